"""Sorting and searching: the textbook algorithms as public algorithm collections and course
notes write them (type hints, docstrings, in-place swaps by tuple assignment, while loops)."""

import copy

import numpy as np


def bubble_sort(collection: list[int]) -> list[int]:
    """Pure implementation of bubble sort; sorts in place and returns the list.

    >>> bubble_sort([0, 5, 2, 3, 2])
    [0, 2, 2, 3, 5]
    """
    length = len(collection)
    for i in range(length - 1):
        swapped = False
        for j in range(length - 1 - i):
            if collection[j] > collection[j + 1]:
                swapped = True
                collection[j], collection[j + 1] = collection[j + 1], collection[j]
        if not swapped:
            break  # Stop iteration if the collection is sorted.
    return collection


def insertion_sort(collection: list[int]) -> list[int]:
    """Sort by inserting each element into the sorted prefix.

    >>> insertion_sort([5, -1, 3])
    [-1, 3, 5]
    """
    for insert_index in range(1, len(collection)):
        insert_value = collection[insert_index]
        while insert_index > 0 and insert_value < collection[insert_index - 1]:
            collection[insert_index] = collection[insert_index - 1]
            insert_index -= 1
        collection[insert_index] = insert_value
    return collection


def selection_sort(collection: list[int]) -> list[int]:
    """Repeatedly select the minimum of the unsorted suffix.

    >>> selection_sort([3, 1, 2])
    [1, 2, 3]
    """
    length = len(collection)
    for i in range(length - 1):
        min_index = i
        for k in range(i + 1, length):
            if collection[k] < collection[min_index]:
                min_index = k
        if min_index != i:
            collection[i], collection[min_index] = collection[min_index], collection[i]
    return collection


def shell_sort(collection: list[int]) -> list[int]:
    """Shell sort with Marcin Ciura's gap sequence.

    >>> shell_sort([3, 0, -2, 7])
    [-2, 0, 3, 7]
    """
    gaps = [701, 301, 132, 57, 23, 10, 4, 1]
    for gap in gaps:
        for i in range(gap, len(collection)):
            insert_value = collection[i]
            j = i
            while j >= gap and collection[j - gap] > insert_value:
                collection[j] = collection[j - gap]
                j -= gap
            if j != i:
                collection[j] = insert_value
    return collection


def comb_sort(data: list[int]) -> list[int]:
    """Comb sort: bubble sort with a shrinking gap (shrink factor 1.3).

    >>> comb_sort([10, 3, 7, 1])
    [1, 3, 7, 10]
    """
    shrink_factor = 1.3
    gap = len(data)
    completed = False
    while not completed:
        gap = int(gap / shrink_factor)
        if gap <= 1:
            gap = 1
            completed = True
        index = 0
        while index + gap < len(data):
            if data[index] > data[index + gap]:
                data[index], data[index + gap] = data[index + gap], data[index]
                completed = False
            index += 1
    return data


def cocktail_shaker_sort(arr: list[int]) -> list[int]:
    """Bidirectional bubble sort.

    >>> cocktail_shaker_sort([4, 5, 2, 1, 2])
    [1, 2, 2, 4, 5]
    """
    start, end = 0, len(arr) - 1
    while start < end:
        swapped = False
        for i in range(start, end):
            if arr[i] > arr[i + 1]:
                arr[i], arr[i + 1] = arr[i + 1], arr[i]
                swapped = True
        if not swapped:
            break
        end -= 1
        for i in range(end, start, -1):
            if arr[i] < arr[i - 1]:
                arr[i], arr[i - 1] = arr[i - 1], arr[i]
                swapped = True
        if not swapped:
            break
        start += 1
    return arr


def gnome_sort(lst: list[int]) -> list[int]:
    """Gnome sort: walk forward while ordered, swap and step back otherwise.

    >>> gnome_sort([3, 2, 1])
    [1, 2, 3]
    """
    if len(lst) <= 1:
        return lst
    i = 1
    while i < len(lst):
        if lst[i - 1] <= lst[i]:
            i += 1
        else:
            lst[i - 1], lst[i] = lst[i], lst[i - 1]
            i -= 1
            if i == 0:
                i = 1
    return lst


def odd_even_sort(input_list: list[int]) -> list[int]:
    """Odd-even transposition sort (brick sort).

    >>> odd_even_sort([5, 4, 3, 2, 1])
    [1, 2, 3, 4, 5]
    """
    is_sorted = False
    while is_sorted is False:
        is_sorted = True
        for i in range(0, len(input_list) - 1, 2):
            if input_list[i] > input_list[i + 1]:
                input_list[i], input_list[i + 1] = input_list[i + 1], input_list[i]
                is_sorted = False
        for i in range(1, len(input_list) - 1, 2):
            if input_list[i] > input_list[i + 1]:
                input_list[i], input_list[i + 1] = input_list[i + 1], input_list[i]
                is_sorted = False
    return input_list


def counting_sort(collection: list[int]) -> list[int]:
    """Counting sort over the value range of the data.

    >>> counting_sort([0, 5, 3, 2, 2])
    [0, 2, 2, 3, 5]
    """
    if collection == []:
        return []
    coll_len = len(collection)
    coll_max = max(collection)
    coll_min = min(collection)
    counting_arr_length = coll_max + 1 - coll_min
    counting_arr = [0] * counting_arr_length
    for number in collection:
        counting_arr[number - coll_min] += 1
    for i in range(1, counting_arr_length):
        counting_arr[i] = counting_arr[i] + counting_arr[i - 1]
    ordered = [0] * coll_len
    for i in reversed(range(coll_len)):
        ordered[counting_arr[collection[i] - coll_min] - 1] = collection[i]
        counting_arr[collection[i] - coll_min] -= 1
    return ordered


def counting_sort_bytes(data: np.ndarray) -> np.ndarray:
    """Counting sort of a uint8 array with a 256-bin histogram."""
    counts = np.zeros(256, dtype=np.int32)
    for v in data:
        counts[v] += 1
    out = np.empty_like(data)
    pos = 0
    for value in range(256):
        for _ in range(counts[value]):
            out[pos] = value
            pos += 1
    return out


def cycle_sort(array: list[int]) -> list[int]:
    """Cycle sort: minimal number of writes.

    >>> cycle_sort([4, 3, 2, 1])
    [1, 2, 3, 4]
    """
    array_len = len(array)
    for cycle_start in range(array_len - 1):
        item = array[cycle_start]
        pos = cycle_start
        for i in range(cycle_start + 1, array_len):
            if array[i] < item:
                pos += 1
        if pos == cycle_start:
            continue
        while item == array[pos]:
            pos += 1
        array[pos], item = item, array[pos]
        while pos != cycle_start:
            pos = cycle_start
            for i in range(cycle_start + 1, array_len):
                if array[i] < item:
                    pos += 1
            while item == array[pos]:
                pos += 1
            array[pos], item = item, array[pos]
    return array


def pancake_sort(arr: list[int]) -> list[int]:
    """Sort with prefix reversals only.

    >>> pancake_sort([3, 1, 2])
    [1, 2, 3]
    """
    cur = len(arr)
    while cur > 1:
        mi = arr.index(max(arr[0:cur]))
        # flip the maximum to the front, then flip the prefix to put it at cur - 1
        i, j = 0, mi
        while i < j:
            arr[i], arr[j] = arr[j], arr[i]
            i += 1
            j -= 1
        i, j = 0, cur - 1
        while i < j:
            arr[i], arr[j] = arr[j], arr[i]
            i += 1
            j -= 1
        cur -= 1
    return arr


def bitonic_sort(a: np.ndarray) -> np.ndarray:
    """Iterative bitonic sorting network; len(a) must be a power of two."""
    n = len(a)
    k = 2
    while k <= n:
        j = k // 2
        while j > 0:
            for i in range(n):
                partner = i ^ j
                if partner > i:
                    ascending = (i & k) == 0
                    if (a[i] > a[partner]) == ascending:
                        a[i], a[partner] = a[partner], a[i]
            j //= 2
        k *= 2
    return a


def sift_down(arr: list[int], start: int, end: int) -> None:
    """Restore the max-heap property below start, within arr[:end]."""
    root = start
    while True:
        child = 2 * root + 1
        if child >= end:
            break
        if child + 1 < end and arr[child] < arr[child + 1]:
            child += 1
        if arr[root] < arr[child]:
            arr[root], arr[child] = arr[child], arr[root]
            root = child
        else:
            break


def heap_sort(unsorted: list[int]) -> list[int]:
    """Heap sort with an iterative sift-down.

    >>> heap_sort([3, 7, -1, 0])
    [-1, 0, 3, 7]
    """
    n = len(unsorted)
    for i in range(n // 2 - 1, -1, -1):
        sift_down(unsorted, i, n)
    for i in range(n - 1, 0, -1):
        unsorted[0], unsorted[i] = unsorted[i], unsorted[0]
        sift_down(unsorted, 0, i)
    return unsorted


def merge_runs(src: list[int], dst: list[int], lo: int, mid: int, hi: int) -> None:
    """Merge the sorted runs src[lo:mid] and src[mid:hi] into dst[lo:hi]."""
    i, j, k = lo, mid, lo
    while i < mid and j < hi:
        if src[i] <= src[j]:
            dst[k] = src[i]
            i += 1
        else:
            dst[k] = src[j]
            j += 1
        k += 1
    while i < mid:
        dst[k] = src[i]
        i += 1
        k += 1
    while j < hi:
        dst[k] = src[j]
        j += 1
        k += 1


def merge_sort_bottom_up(arr: list[int]) -> list[int]:
    """Iterative (bottom-up) merge sort with one buffer, ping-ponging between the two."""
    n = len(arr)
    src = arr
    dst = [0] * n
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            merge_runs(src, dst, lo, mid, hi)
        src, dst = dst, src
        width *= 2
    if src is not arr:
        for i in range(n):
            arr[i] = src[i]
    return arr


def quick_sort(collection: list[int]) -> list[int]:
    """Quick sort with list comprehensions around a pivot.

    >>> quick_sort([2, 1, 0])
    [0, 1, 2]
    """
    if len(collection) < 2:
        return collection
    pivot = collection[0]
    rest = collection[1:]
    lesser = [item for item in rest if item <= pivot]
    greater = [item for item in rest if item > pivot]
    return [*quick_sort(lesser), pivot, *quick_sort(greater)]


def binary_search(sorted_collection: list[int], item: int) -> int:
    """Index of item in an ascending list, or -1.

    >>> binary_search([0, 5, 7, 10, 15], 15)
    4
    """
    left = 0
    right = len(sorted_collection) - 1
    while left <= right:
        midpoint = left + (right - left) // 2
        current_item = sorted_collection[midpoint]
        if current_item == item:
            return midpoint
        elif item < current_item:
            right = midpoint - 1
        else:
            left = midpoint + 1
    return -1


def lower_bound(a: np.ndarray, x: int) -> int:
    """First index i with a[i] >= x (bisect_left)."""
    lo, hi = 0, len(a)
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def interpolation_search(sorted_collection: list[int], item: int) -> int:
    """Interpolation search on a sorted list of ints; -1 when absent."""
    left = 0
    right = len(sorted_collection) - 1
    while left <= right:
        if sorted_collection[left] == sorted_collection[right]:
            if sorted_collection[left] == item:
                return left
            return -1
        point = left + ((item - sorted_collection[left]) * (right - left)) // (
            sorted_collection[right] - sorted_collection[left]
        )
        if point < 0 or point >= len(sorted_collection):
            return -1
        current_item = sorted_collection[point]
        if current_item == item:
            return point
        if point < left:
            right = left
            left = point
        elif point > right:
            left = right
            right = point
        elif item < current_item:
            right = point - 1
        else:
            left = point + 1
    return -1


def exponential_search(arr: list[int], target: int) -> int:
    """Find a range by doubling, then binary search inside it."""
    if len(arr) == 0:
        return -1
    if arr[0] == target:
        return 0
    bound = 1
    while bound < len(arr) and arr[bound] < target:
        bound *= 2
    left = bound // 2
    right = min(bound, len(arr) - 1)
    while left <= right:
        mid = (left + right) // 2
        if arr[mid] == target:
            return mid
        if arr[mid] < target:
            left = mid + 1
        else:
            right = mid - 1
    return -1


def kth_smallest(arr: list[int], k: int) -> int:
    """k-th smallest (1-based) by k passes of selection on a copy."""
    data = arr[:]
    n = len(data)
    for i in range(k):
        min_idx = i
        for j in range(i + 1, n):
            if data[j] < data[min_idx]:
                min_idx = j
        data[i], data[min_idx] = data[min_idx], data[i]
    return data[k - 1]


def partition(a: list[int], lo: int, hi: int) -> int:
    """Lomuto partition of a[lo..hi] around a[hi]; returns the pivot's final index."""
    pivot = a[hi]
    i = lo - 1
    for j in range(lo, hi):
        if a[j] <= pivot:
            i += 1
            a[i], a[j] = a[j], a[i]
    a[i + 1], a[hi] = a[hi], a[i + 1]
    return i + 1


def quickselect(a: list[int], k: int) -> int:
    """k-th smallest (0-based) by iterative quickselect; reorders a."""
    lo, hi = 0, len(a) - 1
    while lo < hi:
        p = partition(a, lo, hi)
        if p == k:
            return a[p]
        if k < p:
            hi = p - 1
        else:
            lo = p + 1
    return a[lo]


def binary_insertion_sort(collection: list[int]) -> list[int]:
    """Insertion sort that finds the insertion point by binary search."""
    n = len(collection)
    for i in range(1, n):
        value_to_insert = collection[i]
        low = 0
        high = i - 1
        while low <= high:
            mid = (low + high) // 2
            if value_to_insert < collection[mid]:
                high = mid - 1
            else:
                low = mid + 1
        for j in range(i, low, -1):
            collection[j] = collection[j - 1]
        collection[low] = value_to_insert
    return collection


def dutch_national_flag_sort(sequence: list[int]) -> list[int]:
    """Three-way partition of a list of 0s, 1s and 2s in one pass."""
    low = 0
    mid = 0
    high = len(sequence) - 1
    while mid <= high:
        if sequence[mid] == 0:
            sequence[low], sequence[mid] = sequence[mid], sequence[low]
            low += 1
            mid += 1
        elif sequence[mid] == 1:
            mid += 1
        else:
            sequence[mid], sequence[high] = sequence[high], sequence[mid]
            high -= 1
    return sequence


def is_sorted(arr: list[int]) -> bool:
    """True when arr is non-decreasing."""
    return all(arr[i] <= arr[i + 1] for i in range(len(arr) - 1))


def merge_sort(collection: list[int]) -> list[int]:
    """Top-down merge sort returning a new list."""
    if len(collection) <= 1:
        return collection
    mid = len(collection) // 2
    left = merge_sort(collection[:mid])
    right = merge_sort(collection[mid:])
    result = []
    while left and right:
        result.append(left.pop(0) if left[0] <= right[0] else right.pop(0))
    result.extend(left)
    result.extend(right)
    return result


def _ints(rng, n, lo=-1000, hi=1000):
    return [int(v) for v in rng.integers(lo, hi, n)]


def _sorted_ints(rng, n, lo=-1000, hi=1000):
    return sorted(_ints(rng, n, lo, hi))


def _search_calls(rng, n=200):
    calls = []
    for _ in range(4):
        a = _sorted_ints(rng, n)
        target = a[int(rng.integers(0, n))] if rng.random() < 0.7 else int(rng.integers(-1100, 1100))
        calls.append((a, target))
    return calls


INPUTS = {
    "bubble_sort": lambda rng: [(_ints(rng, 64),) for _ in range(3)] + [(list(range(64)),)],
    "insertion_sort": lambda rng: [(_ints(rng, 64),) for _ in range(3)],
    "selection_sort": lambda rng: [(_ints(rng, 64),) for _ in range(3)],
    "shell_sort": lambda rng: [(_ints(rng, 200),) for _ in range(3)],
    "comb_sort": lambda rng: [(_ints(rng, 128),) for _ in range(3)],
    "cocktail_shaker_sort": lambda rng: [(_ints(rng, 64),) for _ in range(3)],
    "gnome_sort": lambda rng: [(_ints(rng, 48),) for _ in range(3)],
    "odd_even_sort": lambda rng: [(_ints(rng, 64),) for _ in range(3)],
    "counting_sort": lambda rng: [(_ints(rng, 100, -50, 50),) for _ in range(3)],
    "counting_sort_bytes": lambda rng: [(rng.integers(0, 256, 1000).astype(np.uint8),) for _ in range(3)],
    "cycle_sort": lambda rng: [(_ints(rng, 64, -20, 20),) for _ in range(3)],
    "pancake_sort": lambda rng: [(_ints(rng, 50),) for _ in range(3)],
    "bitonic_sort": lambda rng: [(rng.integers(-30000, 30000, 256).astype(np.int16),) for _ in range(3)],
    "heap_sort": lambda rng: [(_ints(rng, 255),) for _ in range(3)],
    "merge_sort_bottom_up": lambda rng: [(_ints(rng, 100),) for _ in range(3)],
    "quick_sort": lambda rng: [(_ints(rng, 64),) for _ in range(3)],
    "binary_search": lambda rng: _search_calls(rng),
    "lower_bound": lambda rng: [
        (np.array(_sorted_ints(rng, 300), dtype=np.int32), int(rng.integers(-1100, 1100))) for _ in range(4)
    ],
    "interpolation_search": lambda rng: _search_calls(rng),
    "exponential_search": lambda rng: _search_calls(rng),
    "kth_smallest": lambda rng: [(_ints(rng, 80), int(rng.integers(1, 81))) for _ in range(3)],
    "quickselect": lambda rng: [(_ints(rng, 120), int(rng.integers(0, 120))) for _ in range(3)],
    "binary_insertion_sort": lambda rng: [(_ints(rng, 64),) for _ in range(3)],
    "dutch_national_flag_sort": lambda rng: [(_ints(rng, 90, 0, 3),) for _ in range(3)],
    "is_sorted": lambda rng: [(_sorted_ints(rng, 50),), (_ints(rng, 50),), ([7] * 50,)],
    "merge_sort": lambda rng: [(_ints(rng, 64),) for _ in range(3)],
}

SCOPE = {
    "bubble_sort": "in",
    "insertion_sort": "in",
    "selection_sort": "in",
    "shell_sort": "in",
    "comb_sort": "in",
    "cocktail_shaker_sort": "in",
    "gnome_sort": "in",
    "odd_even_sort": "in",
    "counting_sort": "out: the counting array is sized by the data's value range (max - min + 1)",
    "counting_sort_bytes": "in",
    "cycle_sort": "in",
    "pancake_sort": "in",
    "bitonic_sort": "in",
    "heap_sort": "in",
    "merge_sort_bottom_up": "in",
    "quick_sort": "out: recursion, and lists built by comprehensions with a data-dependent length",
    "binary_search": "in",
    "lower_bound": "in",
    "interpolation_search": "in",
    "exponential_search": "in",
    "kth_smallest": "in",
    "quickselect": "in",
    "binary_insertion_sort": "in",
    "dutch_national_flag_sort": "in",
    "is_sorted": "in",
    "merge_sort": "out: recursion, list.pop(0)/append with data-dependent lengths",
}


def _shape(v):
    """What must agree between the calls of one function: array dtype and shape, list structure."""
    if isinstance(v, np.ndarray):
        return ("ndarray", v.dtype.str, v.shape)
    if isinstance(v, (list, tuple)) and any(isinstance(e, (list, tuple, np.ndarray)) for e in v):
        return (type(v).__name__, tuple(_shape(e) for e in v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, len(v))
    return type(v).__name__


def _run_inputs(check=None):
    """Call every INPUTS case on copies of its arguments; check(name, args, result) when given.
    Every call of a function passes arrays and lists of the same shapes (as one app would)."""
    assert set(INPUTS) == set(SCOPE), set(INPUTS) ^ set(SCOPE)
    for k, (name, make) in enumerate(sorted(INPUTS.items())):
        calls = make(np.random.default_rng(2024 + k))
        assert len(calls) >= 3, name
        assert len({tuple(_shape(a) for a in args) for args in calls}) == 1, (
            name,
            [[_shape(a) for a in c] for c in calls],
        )
        for args in calls:
            result = globals()[name](*copy.deepcopy(args))
            if check is not None:
                check(name, args, result)


def _selfcheck():
    sorts = {
        "bubble_sort",
        "insertion_sort",
        "selection_sort",
        "shell_sort",
        "comb_sort",
        "cocktail_shaker_sort",
        "gnome_sort",
        "odd_even_sort",
        "counting_sort",
        "cycle_sort",
        "pancake_sort",
        "heap_sort",
        "merge_sort_bottom_up",
        "quick_sort",
        "binary_insertion_sort",
        "dutch_national_flag_sort",
        "merge_sort",
    }

    def check(name, args, result):
        if name in sorts:
            assert list(result) == sorted(args[0]), name
        elif name in ("counting_sort_bytes", "bitonic_sort"):
            assert np.array_equal(result, np.sort(args[0])), name
        elif name in ("binary_search", "interpolation_search", "exponential_search"):
            a, t = args
            if t in a:
                assert a[result] == t, name
            else:
                assert result == -1, name
        elif name == "lower_bound":
            assert result == int(np.searchsorted(args[0], args[1], side="left"))
        elif name == "kth_smallest":
            assert result == sorted(args[0])[args[1] - 1]
        elif name == "quickselect":
            assert result == sorted(args[0])[args[1]]
        elif name == "is_sorted":
            assert result == (list(args[0]) == sorted(args[0]))
        else:
            raise AssertionError(f"no check for {name}")

    _run_inputs(check)
    assert bubble_sort([0, 5, 2, 3, 2]) == [0, 2, 2, 3, 5]
    assert counting_sort([]) == []
    print(f"sorting: {len(INPUTS)} cases OK")


if __name__ == "__main__":
    _selfcheck()
