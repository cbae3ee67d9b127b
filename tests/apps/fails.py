"""Raises an uncaught exception inside a function (profiler tests)."""


def ratio(a, b):
    return a / b


if __name__ == "__main__":
    print("starting")
    print(ratio(1, 0))
