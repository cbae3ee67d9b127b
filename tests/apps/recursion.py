"""Recursion, a caught exception and a driver function (profiler tests)."""


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def check(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x


def run():
    r = fib(10)
    caught = 0
    for x in (1, -1, 2, -2):
        try:
            check(x)
        except ValueError:
            caught += 1
    return r, caught


if __name__ == "__main__":
    print(run())
