"""FLIP-147 (checkpoints after tasks finish) with Sink V2: the preset with two concurrent
checkpoints, its scopes, properties, catalog and measured searches.  The rules are in
``model/task.py``, ``model/finished_state.py`` and ``model/sinkv2.py``."""
