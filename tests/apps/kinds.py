"""Functions of every shape a numeric app writes: lambdas, generators, coroutines, decorators.

The printed lines check that the profiler's wrappers change nothing the app can see:
values sent into a generator, exceptions thrown into it, its return value through
`yield from`, closing it early, coroutines run together by an event loop.
"""

import asyncio
import functools

square = lambda x: x * x  # noqa: E731


def running_mean():
    total, n = 0.0, 0
    mean = None
    while True:
        try:
            x = yield mean
        except ValueError:
            total, n, mean = 0.0, 0, None
            continue
        if x is None:
            return n
        total += x
        n += 1
        mean = total / n


def windows(xs, n):
    for i in range(len(xs) - n + 1):
        yield sum(xs[i : i + n])


def all_windows(xs):
    count = yield from counted(windows(xs, 4))
    return count


def counted(gen):
    k = 0
    for w in gen:
        yield w
        k += 1
    return k


async def chunk_energy(xs, delay):
    await asyncio.sleep(delay)
    return sum(square(x) for x in xs)


async def agen(n):
    for i in range(n):
        yield i


async def gather_all(blocks):
    parts = await asyncio.gather(*(chunk_energy(b, 0.001 * (len(blocks) - i)) for i, b in enumerate(blocks)))
    extra = [i async for i in agen(3)]
    return parts, extra


@functools.lru_cache(maxsize=None)  # noqa: UP033 (as apps write it)
def binomial(n, k):
    return 1 if k in (0, n) else binomial(n - 1, k - 1) + binomial(n - 1, k)


def main():
    xs = [(i * 37) % 101 - 50 for i in range(400)]
    m = running_mean()
    next(m)
    for x in xs[:10]:
        m.send(x)
    m.throw(ValueError)
    print("mean", m.send(5), m.send(7))
    try:
        m.send(None)
    except StopIteration as stop:
        print("returned", stop.value)
    g = all_windows(xs)
    first = [next(g) for _ in range(3)]
    print("windows", first, sum(g))
    w = windows(xs, 2)
    next(w)
    w.close()
    print("energy", asyncio.run(gather_all([xs[:100], xs[100:]])))
    print("binomial", binomial(30, 15), square(12))


if __name__ == "__main__":
    main()
