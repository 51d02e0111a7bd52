"""The executable model of Flink checkpointing: pure Python and networkx, no checker code."""
