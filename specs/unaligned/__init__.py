"""Unaligned checkpoints (FLIP-76), on POINTWISE edges too (PR #28523): the presets, scopes,
properties of channel state and rescaling, catalog and measured searches.  The rules are in
``model/barriers.py``, ``model/subtask_checkpoint.py``, ``model/assignment.py`` and
``model/assignment_pointwise.py``."""
