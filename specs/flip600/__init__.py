"""FLIP-600 (regional checkpoints): the presets (the thread's proposal, the pull requests, the
corrected design), scopes, properties, catalog, findings manifest and measured searches.  The
thread's rules are ``model/regional.py``; each reading of the PRs is a class in ``model/flip600.py``."""
