"""Flink 2.x checkpointing as it is: the presets (aligned, incremental), their scopes, the
properties of checkpointing itself, the catalog of its known flaws and the measured searches.
The rules are the model's components (``model/``)."""
