"""``ckptcheck prove``: Z3 proofs of the redistribution rules for every parallelism and key-group
count (``keygroups``, ``operator_state``, ``channel_state``), each with its mutants refuted;
``theorems`` lists them, ``solver`` holds what they share."""

from .solver import PROVED, REFUTED
from .theorems import THEOREMS, Theorem, theorem

__all__ = ["PROVED", "REFUTED", "THEOREMS", "Theorem", "theorem"]
