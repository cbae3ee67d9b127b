"""A local package (profiler tests)."""
