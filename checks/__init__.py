"""The engines: explore (BFS), stateful (Hypothesis), replay, and the command line."""
