"""FLINK-4120's null-state checkpoint, a design Flink never built: the presets, scopes,
properties, catalog and measured searches.  The rules are ``model/nullstate.py``."""
