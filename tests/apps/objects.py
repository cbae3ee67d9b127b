"""Classes, nested functions, generators, threads, keyword arguments (profiler tests)."""

import threading


class Acc:
    def __init__(self, start):
        self.value = start

    def add(self, x):
        self.value += x
        return self.value

    @staticmethod
    def twice(x):
        return 2 * x


def outer(xs):
    def inner(x):
        return x + 1

    return [inner(x) for x in xs]


def numbers(n):
    yield from range(n)


def weighted(a, b=2.0, *, scale=1.0):
    return (a + b) * scale


def worker(results):
    results.append(Acc.twice(21))


if __name__ == "__main__":
    acc = Acc(0)
    for i in numbers(5):
        acc.add(i)
    print(acc.value, outer([1, 2, 3]))
    print(weighted(1.0), weighted(1.0, 3.0), weighted(a=2.0, scale=0.5))
    results = []
    t = threading.Thread(target=worker, args=(results,))
    t.start()
    t.join()
    print(results)
