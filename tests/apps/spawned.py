"""Work in workers started with the spawn method: a fresh interpreter the profiler cannot follow."""

import multiprocessing


def busy(n):
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


if __name__ == "__main__":
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        print(sum(pool.map(busy, [200_000] * 4)))
