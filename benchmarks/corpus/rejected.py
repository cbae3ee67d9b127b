"""Realistic code that stays on the CPU: the frontend must say why, naming line and construct."""

import numpy as np


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def word_lengths(words):
    return [len(w) for w in words]


def count_keys(keys):
    seen = {}
    for k in keys:
        seen[k] = seen.get(k, 0) + 1
    return len(seen)


def positives(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v)
    return out


def masked(x):
    return x[x > 0]


def describe_signal(x):
    return f"max {x.max()}"


def sorted_copy(x):
    return sorted(x)


def try_divide(a, b):
    try:
        return a // b
    except ZeroDivisionError:
        return 0


INPUTS = {
    "fib": lambda rng: [(n,) for n in (5, 8, 10)],
    "word_lengths": lambda rng: [(["alpha", "be", "gamma"],)],
    "count_keys": lambda rng: [([1, 2, 2, 3, 3, 3],)],
    "positives": lambda rng: [(rng.integers(-5, 5, 10).astype(np.int32),) for _ in range(2)],
    "masked": lambda rng: [(rng.integers(-5, 5, 10).astype(np.int32),) for _ in range(2)],
    "describe_signal": lambda rng: [(rng.integers(-5, 5, 10).astype(np.int32),)],
    "sorted_copy": lambda rng: [([int(v) for v in rng.integers(0, 100, 6)],)],
    "try_divide": lambda rng: [(7, 2), (7, 0)],
}
