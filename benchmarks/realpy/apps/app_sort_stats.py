"""Sorting and order-statistics report on a day of temperature-sensor readings: several sorts
cross-checked, median and percentiles by selection, threshold counts by binary search, and a
byte histogram by counting sort."""

import numpy as np


def insertion_sort(collection: list[int]) -> list[int]:
    """In-place insertion sort."""
    for i in range(1, len(collection)):
        value = collection[i]
        j = i
        while j > 0 and collection[j - 1] > value:
            collection[j] = collection[j - 1]
            j -= 1
        collection[j] = value
    return collection


def shell_sort(collection: list[int]) -> list[int]:
    """Shell sort with Ciura's gaps."""
    for gap in [701, 301, 132, 57, 23, 10, 4, 1]:
        for i in range(gap, len(collection)):
            value = collection[i]
            j = i
            while j >= gap and collection[j - gap] > value:
                collection[j] = collection[j - gap]
                j -= gap
            collection[j] = value
    return collection


def sift_down(a: list[int], start: int, end: int) -> None:
    """Max-heap sift-down inside a[:end]."""
    root = start
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and a[child] < a[child + 1]:
            child += 1
        if a[root] >= a[child]:
            return
        a[root], a[child] = a[child], a[root]
        root = child


def heap_sort(a: list[int]) -> list[int]:
    """In-place heap sort."""
    n = len(a)
    for i in range(n // 2 - 1, -1, -1):
        sift_down(a, i, n)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        sift_down(a, 0, end)
    return a


def merge_sort_bottom_up(a: list[int]) -> list[int]:
    """Iterative merge sort returning a new list."""
    n = len(a)
    src = a[:]
    dst = [0] * n
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid, hi = min(lo + width, n), min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                if i < mid and (j >= hi or src[i] <= src[j]):
                    dst[k] = src[i]
                    i += 1
                else:
                    dst[k] = src[j]
                    j += 1
        src, dst = dst, src
        width *= 2
    return src


def partition(a: list[int], lo: int, hi: int) -> int:
    """Lomuto partition around a[hi]."""
    pivot = a[hi]
    i = lo
    for j in range(lo, hi):
        if a[j] < pivot:
            a[i], a[j] = a[j], a[i]
            i += 1
    a[i], a[hi] = a[hi], a[i]
    return i


def quickselect(values: list[int], k: int) -> int:
    """k-th smallest (0-based) of a copy, iteratively."""
    a = values[:]
    lo, hi = 0, len(a) - 1
    while lo < hi:
        p = partition(a, lo, hi)
        if p == k:
            break
        if p < k:
            lo = p + 1
        else:
            hi = p - 1
    return a[k]


def lower_bound(a: list[int], x: int) -> int:
    """First index with a[i] >= x."""
    lo, hi = 0, len(a)
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def counting_histogram(data: np.ndarray) -> np.ndarray:
    """256-bin histogram of a uint8 array."""
    counts = np.zeros(256, dtype=np.int32)
    for v in data:
        counts[v] += 1
    return counts


def mean_and_std(values: list[int]) -> tuple[float, float]:
    """Population mean and standard deviation."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / n
    return mean, var**0.5


def main() -> None:
    rng = np.random.default_rng(3)
    minutes = 720
    t = np.arange(minutes)
    readings = (200 + 60 * np.sin(2 * np.pi * t / minutes) + rng.normal(0, 15, minutes)).astype(int)
    data = [int(v) for v in readings]  # tenths of a degree

    a = heap_sort(data[:])
    b = merge_sort_bottom_up(data)
    c = shell_sort(data[:])
    d = insertion_sort(data[:200])
    assert a == b == c and d == sorted(data[:200])

    median = quickselect(data, len(data) // 2)
    p10 = quickselect(data, len(data) // 10)
    p90 = quickselect(data, 9 * len(data) // 10)
    mean, std = mean_and_std(data)
    over_25 = len(a) - lower_bound(a, 250)
    under_15 = lower_bound(a, 150)
    hist = counting_histogram(np.clip(readings, 0, 255).astype(np.uint8))
    mode = int(np.argmax(hist))

    print(
        f"{len(data)} readings: min {a[0] / 10:.1f} max {a[-1] / 10:.1f} mean {mean / 10:.2f} std {std / 10:.2f}"
    )
    print(f"median {median / 10:.1f}, p10 {p10 / 10:.1f}, p90 {p90 / 10:.1f}, mode {mode / 10:.1f}")
    print(f"minutes above 25.0: {over_25}, below 15.0: {under_15}")


if __name__ == "__main__":
    main()
