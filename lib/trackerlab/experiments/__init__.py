"""Published numbers, the functions that reproduce them, and benchmarks."""
