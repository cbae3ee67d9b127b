"""A module inside a local package (profiler tests)."""


def inc(a):
    return a + 1
