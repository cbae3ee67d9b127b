"""Dynamic programming: bottom-up tables over integer sequences and grids, as algorithm
collections, interview-preparation notes and competitive-programming write-ups have them."""

# ruff: noqa: RUF007  (the corpus keeps the style of the code it imitates)
import copy
import math
import sys
from functools import cache

import numpy as np


def knapsack(capacity: int, weights: list[int], values: list[int]) -> int:
    """0/1 knapsack: best total value within capacity, with the (n + 1) x (W + 1) table.

    >>> knapsack(50, [10, 20, 30], [60, 100, 120])
    220
    """
    n = len(weights)
    dp = [[0] * (capacity + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for w in range(1, capacity + 1):
            if weights[i - 1] <= w:
                dp[i][w] = max(values[i - 1] + dp[i - 1][w - weights[i - 1]], dp[i - 1][w])
            else:
                dp[i][w] = dp[i - 1][w]
    return dp[n][capacity]


def knapsack_1d(capacity: int, weights: list[int], values: list[int]) -> int:
    """0/1 knapsack with a single row, iterating the capacity downwards."""
    dp = [0] * (capacity + 1)
    for wt, val in zip(weights, values):
        for w in range(capacity, wt - 1, -1):
            dp[w] = max(dp[w], dp[w - wt] + val)
    return dp[capacity]


def longest_common_subsequence_length(x: list[int], y: list[int]) -> int:
    """Length of the LCS of two integer sequences."""
    m = len(x)
    n = len(y)
    dp = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if x[i - 1] == y[j - 1]:
                dp[i][j] = dp[i - 1][j - 1] + 1
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
    return dp[m][n]


def edit_distance(first: list[int], second: list[int]) -> int:
    """Levenshtein distance between two integer sequences (insert, delete, substitute)."""
    m, n = len(first), len(second)
    dp = [[0 for _ in range(n + 1)] for _ in range(m + 1)]
    for i in range(m + 1):
        for j in range(n + 1):
            if i == 0:
                dp[i][j] = j
            elif j == 0:
                dp[i][j] = i
            elif first[i - 1] == second[j - 1]:
                dp[i][j] = dp[i - 1][j - 1]
            else:
                insert = dp[i][j - 1]
                delete = dp[i - 1][j]
                replace = dp[i - 1][j - 1]
                dp[i][j] = 1 + min(insert, delete, replace)
    return dp[m][n]


def longest_increasing_subsequence_length(arr: list[int]) -> int:
    """O(n^2) LIS length."""
    n = len(arr)
    if n == 0:
        return 0
    lis = [1] * n
    for i in range(1, n):
        for j in range(i):
            if arr[j] < arr[i] and lis[i] < lis[j] + 1:
                lis[i] = lis[j] + 1
    return max(lis)


def max_subarray_sum(arr: list[int]) -> int:
    """Kadane's algorithm; the empty subarray is not allowed."""
    best = arr[0]
    current = arr[0]
    for num in arr[1:]:
        current = max(num, current + num)
        best = max(best, current)
    return best


def max_subarray(arr: np.ndarray) -> tuple[int, int, int]:
    """Kadane's algorithm returning (sum, start, end) of the best subarray, end inclusive."""
    best_sum = int(arr[0])
    best_start = best_end = 0
    current_sum = 0
    current_start = 0
    for i, x in enumerate(arr):
        if current_sum <= 0:
            current_start = i
            current_sum = int(x)
        else:
            current_sum += int(x)
        if current_sum > best_sum:
            best_sum = current_sum
            best_start = current_start
            best_end = i
    return best_sum, best_start, best_end


def coin_change_ways(coins: list[int], amount: int) -> int:
    """Number of ways to make amount from unlimited coins of the given denominations."""
    ways = [0] * (amount + 1)
    ways[0] = 1
    for coin in coins:
        for i in range(coin, amount + 1):
            ways[i] += ways[i - coin]
    return ways[amount]


def min_coins(coins: list[int], amount: int) -> int:
    """Fewest coins making amount, or -1 when it cannot be made."""
    dp = [math.inf] * (amount + 1)
    dp[0] = 0
    for i in range(1, amount + 1):
        for coin in coins:
            if coin <= i and dp[i - coin] + 1 < dp[i]:
                dp[i] = dp[i - coin] + 1
    return -1 if dp[amount] == math.inf else int(dp[amount])


def rod_cutting(prices: list[int], n: int) -> int:
    """Best revenue from cutting a rod of length n; prices[i - 1] is the price of length i."""
    max_rev = [0] * (n + 1)
    for i in range(1, n + 1):
        max_revenue_i = -sys.maxsize
        for j in range(1, i + 1):
            max_revenue_i = max(max_revenue_i, prices[j - 1] + max_rev[i - j])
        max_rev[i] = max_revenue_i
    return max_rev[n]


def matrix_chain_order(dims: list[int]) -> int:
    """Fewest scalar multiplications to multiply a chain of len(dims) - 1 matrices."""
    n = len(dims) - 1
    m = [[0] * n for _ in range(n)]
    for chain_length in range(2, n + 1):
        for a in range(n - chain_length + 1):
            b = a + chain_length - 1
            m[a][b] = sys.maxsize
            for c in range(a, b):
                cost = m[a][c] + m[c + 1][b] + dims[a] * dims[c + 1] * dims[b + 1]
                if cost < m[a][b]:
                    m[a][b] = cost
    return m[0][n - 1]


def is_subset_sum(arr: list[int], required_sum: int) -> bool:
    """True when some subset of the non-negative arr sums to required_sum."""
    arr_len = len(arr)
    subset = [[False] * (required_sum + 1) for _ in range(arr_len + 1)]
    for i in range(arr_len + 1):
        subset[i][0] = True
    for i in range(1, arr_len + 1):
        for j in range(1, required_sum + 1):
            if arr[i - 1] > j:
                subset[i][j] = subset[i - 1][j]
            if arr[i - 1] <= j:
                subset[i][j] = subset[i - 1][j] or subset[i - 1][j - arr[i - 1]]
    return subset[arr_len][required_sum]


def min_path_sum(grid: list[list[int]]) -> int:
    """Cheapest path from top-left to bottom-right moving right or down; updates grid."""
    rows, cols = len(grid), len(grid[0])
    for c in range(1, cols):
        grid[0][c] += grid[0][c - 1]
    for r in range(1, rows):
        grid[r][0] += grid[r - 1][0]
        for c in range(1, cols):
            grid[r][c] += min(grid[r - 1][c], grid[r][c - 1])
    return grid[-1][-1]


def climbing_stairs(number_of_steps: int) -> int:
    """Distinct ways to climb the stairs taking 1 or 2 steps at a time."""
    if number_of_steps == 1:
        return 1
    previous, current = 1, 1
    for _ in range(number_of_steps - 1):
        current, previous = current + previous, current
    return current


def unique_paths(m: int, n: int) -> int:
    """Lattice paths through an m x n grid."""
    dp = [[1] * n for _ in range(m)]
    for i in range(1, m):
        for j in range(1, n):
            dp[i][j] = dp[i - 1][j] + dp[i][j - 1]
    return dp[m - 1][n - 1]


def unique_paths_with_obstacles(obstacle_grid: np.ndarray) -> int:
    """Lattice paths avoiding cells marked 1, with a single row of counts."""
    rows, cols = obstacle_grid.shape
    dp = [0] * cols
    dp[0] = 1 if obstacle_grid[0, 0] == 0 else 0
    for r in range(rows):
        for c in range(cols):
            if obstacle_grid[r, c] == 1:
                dp[c] = 0
            elif c > 0:
                dp[c] += dp[c - 1]
    return dp[-1]


def longest_palindromic_subsequence(seq: list[int]) -> int:
    """Length of the longest palindromic subsequence."""
    n = len(seq)
    dp = [[0] * n for _ in range(n)]
    for i in range(n - 1, -1, -1):
        dp[i][i] = 1
        for j in range(i + 1, n):
            if seq[i] == seq[j]:
                dp[i][j] = dp[i + 1][j - 1] + 2
            else:
                dp[i][j] = max(dp[i + 1][j], dp[i][j - 1])
    return dp[0][n - 1]


def catalan_numbers(upper_limit: int) -> list[int]:
    """The Catalan numbers C(0) .. C(upper_limit)."""
    catalan_list = [0] * (upper_limit + 1)
    catalan_list[0] = 1
    if upper_limit > 0:
        catalan_list[1] = 1
    for i in range(2, upper_limit + 1):
        for j in range(i):
            catalan_list[i] += catalan_list[j] * catalan_list[i - j - 1]
    return catalan_list


def fibonacci(n: int) -> int:
    """n-th Fibonacci number, iteratively."""
    if n < 2:
        return n
    a, b = 0, 1
    for _ in range(n - 1):
        a, b = b, a + b
    return b


def longest_common_substring_length(a: list[int], b: list[int]) -> int:
    """Length of the longest contiguous run common to a and b."""
    best = 0
    prev = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best:
                    best = cur[j]
        prev = cur
    return best


def can_partition(nums: list[int]) -> bool:
    """True when nums splits into two subsets of equal sum."""
    total = sum(nums)
    if total % 2 != 0:
        return False
    target = total // 2
    dp = [False] * (target + 1)
    dp[0] = True
    for num in nums:
        for s in range(target, num - 1, -1):
            dp[s] = dp[s] or dp[s - num]
    return dp[target]


def max_product_subarray(numbers: list[int]) -> int:
    """Largest product of a contiguous subarray."""
    max_till_now = min_till_now = max_prod = numbers[0]
    for i in range(1, len(numbers)):
        number = numbers[i]
        if number < 0:
            max_till_now, min_till_now = min_till_now, max_till_now
        max_till_now = max(number, max_till_now * number)
        min_till_now = min(number, min_till_now * number)
        max_prod = max(max_prod, max_till_now)
    return max_prod


def house_robber(nums: list[int]) -> int:
    """Best sum of non-adjacent elements."""
    prev_max = curr_max = 0
    for num in nums:
        prev_max, curr_max = curr_max, max(curr_max, prev_max + num)
    return curr_max


def egg_drop(eggs: int, floors: int) -> int:
    """Fewest trials that always find the critical floor."""
    dp = [[0] * (floors + 1) for _ in range(eggs + 1)]
    for f in range(1, floors + 1):
        dp[1][f] = f
    for e in range(2, eggs + 1):
        for f in range(1, floors + 1):
            dp[e][f] = sys.maxsize
            for x in range(1, f + 1):
                res = 1 + max(dp[e - 1][x - 1], dp[e][f - x])
                if res < dp[e][f]:
                    dp[e][f] = res
    return dp[eggs][floors]


def minimum_total_triangle(triangle: list[list[int]]) -> int:
    """Cheapest top-to-bottom path in a triangle of numbers (rows of growing length)."""
    memo = triangle[-1][:]
    for row in range(len(triangle) - 2, -1, -1):
        for col in range(row + 1):
            memo[col] = triangle[row][col] + min(memo[col], memo[col + 1])
    return memo[0]


def fibonacci_memo(n: int) -> int:
    """Fibonacci with a memoised recursion."""

    @cache
    def fib(k: int) -> int:
        return k if k < 2 else fib(k - 1) + fib(k - 2)

    return fib(n)


def longest_increasing_subsequence(arr: list[int]) -> list[int]:
    """One longest strictly increasing subsequence itself (patience sorting with back links)."""
    tails: list[int] = []
    tails_idx: list[int] = []
    parent = [-1] * len(arr)
    for i, x in enumerate(arr):
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        if lo > 0:
            parent[i] = tails_idx[lo - 1]
        if lo == len(tails):
            tails.append(x)
            tails_idx.append(i)
        else:
            tails[lo] = x
            tails_idx[lo] = i
    out = []
    k = tails_idx[-1] if tails_idx else -1
    while k != -1:
        out.append(arr[k])
        k = parent[k]
    return out[::-1]


def _ints(rng, n, lo, hi):
    return [int(v) for v in rng.integers(lo, hi, n)]


def _knapsack_calls(rng):
    calls = [(100, _ints(rng, 12, 1, 40), _ints(rng, 12, 0, 100)) for _ in range(3)]
    calls.append((100, _ints(rng, 12, 101, 200), _ints(rng, 12, 0, 100)))  # nothing fits
    return calls


def _neg(rng, n):
    return _ints(rng, n, -50, 0)


INPUTS = {
    "knapsack": _knapsack_calls,
    "knapsack_1d": _knapsack_calls,
    "longest_common_subsequence_length": lambda rng: [
        (_ints(rng, 40, 0, 6), _ints(rng, 50, 0, 6)) for _ in range(3)
    ],
    "edit_distance": lambda rng: (
        [(_ints(rng, 30, 0, 5), _ints(rng, 35, 0, 5)) for _ in range(3)]
        + [(lambda a: (a, a[:30] + [9] * 5))(_ints(rng, 30, 0, 5))]
    ),
    "longest_increasing_subsequence_length": lambda rng: (
        [(_ints(rng, 100, -100, 100),) for _ in range(3)] + [(list(range(100, 0, -1)),)]
    ),
    "max_subarray_sum": lambda rng: [(_ints(rng, 64, -50, 50),) for _ in range(3)] + [(_neg(rng, 64),)],
    "max_subarray": lambda rng: (
        [(rng.integers(-50, 50, 100).astype(np.int16),) for _ in range(3)]
        + [(np.array(_neg(rng, 100), dtype=np.int16),)]
    ),
    "coin_change_ways": lambda rng: [([1, 2, 5, 10], 100), ([2, 5, 3, 6], 100), ([3, 7, 11, 13], 100)],
    "min_coins": lambda rng: [([1, 2, 5], 201), ([4, 6, 8], 201), ([7, 3, 9], 201)],
    "rod_cutting": lambda rng: [(_ints(rng, 30, 1, 50), 30) for _ in range(3)],
    "matrix_chain_order": lambda rng: [(_ints(rng, 8, 1, 60),) for _ in range(3)],
    "is_subset_sum": lambda rng: [(_ints(rng, 12, 1, 30), 50) for _ in range(3)] + [([40] * 12, 50)],
    "min_path_sum": lambda rng: [([_ints(rng, 20, 0, 10) for _ in range(12)],) for _ in range(3)],
    "climbing_stairs": lambda rng: [(n,) for n in (1, 10, 45)],
    "unique_paths": lambda rng: [(10, 10) for _ in range(3)],
    "unique_paths_with_obstacles": lambda rng: [
        ((rng.random((10, 12)) < p).astype(np.int8),) for p in (0.0, 0.15, 0.3)
    ],
    "longest_palindromic_subsequence": lambda rng: [(_ints(rng, 50, 0, 4),) for _ in range(3)],
    "catalan_numbers": lambda rng: [(30,) for _ in range(3)],
    "fibonacci": lambda rng: [(n,) for n in (0, 1, 20, 90)],
    "longest_common_substring_length": lambda rng: [
        (_ints(rng, 40, 0, 3), _ints(rng, 30, 0, 3)) for _ in range(3)
    ],
    "can_partition": lambda rng: (
        [(_ints(rng, 10, 1, 20),) for _ in range(3)] + [([1, 5, 11, 5, 2, 2, 3, 3, 4, 4],)]
    ),
    "max_product_subarray": lambda rng: [(_ints(rng, 30, -4, 5),) for _ in range(3)],
    "house_robber": lambda rng: [(_ints(rng, 50, 0, 100),) for _ in range(3)] + [([0] * 50,)],
    "egg_drop": lambda rng: [(2, 36) for _ in range(3)],
    "minimum_total_triangle": lambda rng: [
        ([_ints(rng, r + 1, -9, 10) for r in range(12)],) for _ in range(3)
    ],
    "fibonacci_memo": lambda rng: [(n,) for n in (0, 10, 60)],
    "longest_increasing_subsequence": lambda rng: [(_ints(rng, 80, -100, 100),) for _ in range(3)],
}

SCOPE = {
    "knapsack": "in",
    "knapsack_1d": "in",
    "longest_common_subsequence_length": "in",
    "edit_distance": "in",
    "longest_increasing_subsequence_length": "in",
    "max_subarray_sum": "in",
    "max_subarray": "in",
    "coin_change_ways": "in",
    "min_coins": "in",
    "rod_cutting": "in",
    "matrix_chain_order": "in",
    "is_subset_sum": "in",
    "min_path_sum": "in",
    "climbing_stairs": "in",
    "unique_paths": "in",
    "unique_paths_with_obstacles": "in",
    "longest_palindromic_subsequence": "in",
    "catalan_numbers": "in",
    "fibonacci": "in",
    "longest_common_substring_length": "in",
    "can_partition": "out: the table is sized by the data (sum(nums) // 2 + 1)",
    "max_product_subarray": "in",
    "house_robber": "in",
    "egg_drop": "in",
    "minimum_total_triangle": "in",
    "fibonacci_memo": "out: recursion through a closure memoised with functools.cache",
    "longest_increasing_subsequence": "out: list.append with a data-dependent count, then a reversed copy",
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


def _brute_lcs(x, y):
    @cache
    def go(i, j):
        if i == len(x) or j == len(y):
            return 0
        if x[i] == y[j]:
            return 1 + go(i + 1, j + 1)
        return max(go(i + 1, j), go(i, j + 1))

    return go(0, 0)


def _is_lis(sub, arr):
    it = iter(arr)
    return all(v in it for v in sub) and all(a < b for a, b in zip(sub, sub[1:]))


def _selfcheck():
    def best_subset(weights, values, cap):
        best = 0
        for mask in range(1 << len(weights)):
            w = sum(weights[i] for i in range(len(weights)) if mask >> i & 1)
            if w <= cap:
                best = max(best, sum(values[i] for i in range(len(weights)) if mask >> i & 1))
        return best

    def check(name, args, r):
        if name in ("knapsack", "knapsack_1d"):
            cap, w, v = args
            if len(w) <= 15:
                assert r == best_subset(w, v, cap), name
            assert r == knapsack(cap, w, v)
        elif name == "longest_common_subsequence_length":
            assert r == _brute_lcs(tuple(args[0]), tuple(args[1]))
        elif name == "edit_distance":
            a, b = args
            prev = list(range(len(b) + 1))
            for i in range(1, len(a) + 1):
                cur = [i] + [0] * len(b)
                for j in range(1, len(b) + 1):
                    cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
                prev = cur
            assert r == prev[-1]
        elif name == "longest_increasing_subsequence_length":
            assert r == len(longest_increasing_subsequence(args[0]))
        elif name == "longest_increasing_subsequence":
            assert _is_lis(r, args[0]) and len(r) == longest_increasing_subsequence_length(args[0])
        elif name in ("max_subarray_sum", "max_subarray"):
            a = [int(v) for v in args[0]]
            best = max(sum(a[i : j + 1]) for i in range(len(a)) for j in range(i, len(a)))
            if name == "max_subarray":
                s, i, j = r
                assert s == best == sum(a[i : j + 1])
            else:
                assert r == best
        elif name == "coin_change_ways":
            coins, amount = args

            @cache
            def ways(i, left):
                if left == 0:
                    return 1
                if i == len(coins) or left < 0:
                    return 0
                return ways(i, left - coins[i]) + ways(i + 1, left)

            assert r == ways(0, amount)
        elif name == "min_coins":
            coins, amount = args

            @cache
            def fewest(left):
                if left == 0:
                    return 0
                options = [fewest(left - c) for c in coins if c <= left]
                options = [o for o in options if o >= 0]
                return 1 + min(options) if options else -1

            assert r == fewest(amount), (args, r)
        elif name == "rod_cutting":
            prices, n = args

            @cache
            def best(k):
                return 0 if k == 0 else max(prices[i - 1] + best(k - i) for i in range(1, k + 1))

            assert r == best(n)
        elif name == "matrix_chain_order":
            d = args[0]

            @cache
            def cost(i, j):
                if i == j:
                    return 0
                return min(cost(i, k) + cost(k + 1, j) + d[i] * d[k + 1] * d[j + 1] for k in range(i, j))

            assert r == cost(0, len(d) - 2)
        elif name == "is_subset_sum":
            arr, t = args
            sums = {0}
            for v in arr:
                sums |= {s + v for s in sums}
            assert r == (t in sums)
        elif name == "can_partition":
            sums = {0}
            for v in args[0]:
                sums |= {s + v for s in sums}
            assert r == (sum(args[0]) % 2 == 0 and sum(args[0]) // 2 in sums)
        elif name == "min_path_sum":
            g = args[0]
            h, w = len(g), len(g[0])

            @cache
            def cheapest(y, x):
                if y == h - 1 and x == w - 1:
                    return g[y][x]
                options = []
                if y + 1 < h:
                    options.append(cheapest(y + 1, x))
                if x + 1 < w:
                    options.append(cheapest(y, x + 1))
                return g[y][x] + min(options)

            assert r == cheapest(0, 0)
        elif name == "climbing_stairs":
            assert r == fibonacci(args[0] + 1)
        elif name == "unique_paths":
            m, n = args
            assert r == math.comb(m + n - 2, m - 1)
        elif name == "unique_paths_with_obstacles":
            g = args[0]
            h, w = g.shape

            @cache
            def paths(y, x):
                if y >= h or x >= w or g[y, x] == 1:
                    return 0
                if (y, x) == (h - 1, w - 1):
                    return 1
                return paths(y + 1, x) + paths(y, x + 1)

            assert r == paths(0, 0)
        elif name == "longest_palindromic_subsequence":
            assert r == _brute_lcs(tuple(args[0]), tuple(args[0][::-1]))
        elif name == "catalan_numbers":
            assert r == [math.comb(2 * k, k) // (k + 1) for k in range(args[0] + 1)]
        elif name in ("fibonacci", "fibonacci_memo"):
            a, b = 0, 1
            for _ in range(args[0]):
                a, b = b, a + b
            assert r == a
        elif name == "longest_common_substring_length":
            a, b = args
            best = 0
            for i in range(len(a)):
                for j in range(len(b)):
                    k = 0
                    while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                        k += 1
                    best = max(best, k)
            assert r == best
        elif name == "max_product_subarray":
            a = args[0]
            assert r == max(math.prod(a[i : j + 1]) for i in range(len(a)) for j in range(i, len(a)))
        elif name == "house_robber":
            a = args[0]

            @cache
            def rob(i):
                return 0 if i >= len(a) else max(rob(i + 1), a[i] + rob(i + 2))

            assert r == rob(0)
        elif name == "egg_drop":
            # with e eggs and t trials one can resolve sum_{i=1..e} C(t, i) floors
            e, f = args
            t = 0
            while sum(math.comb(t, i) for i in range(1, e + 1)) < f:
                t += 1
            assert r == t
        elif name == "minimum_total_triangle":
            t = args[0]

            @cache
            def go(row, col):
                if row == len(t) - 1:
                    return t[row][col]
                return t[row][col] + min(go(row + 1, col), go(row + 1, col + 1))

            assert r == go(0, 0)
        else:
            raise AssertionError(f"no check for {name}")

    _run_inputs(check)
    assert knapsack(50, [10, 20, 30], [60, 100, 120]) == 220
    print(f"dynamic_programming: {len(INPUTS)} cases OK")


if __name__ == "__main__":
    _selfcheck()
