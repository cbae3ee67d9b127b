"""A batch of dynamic-programming puzzles on random instances: knapsack, sequence alignment
(LCS and edit distance of DNA-like integer sequences), coin change, longest increasing
subsequence, matrix-chain ordering and grid paths."""

import sys

import numpy as np


def knapsack(capacity: int, weights: list[int], values: list[int]) -> int:
    """0/1 knapsack with a 2-D table."""
    n = len(weights)
    dp = [[0] * (capacity + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        wt, val = weights[i - 1], values[i - 1]
        for w in range(capacity + 1):
            dp[i][w] = dp[i - 1][w]
            if wt <= w and dp[i - 1][w - wt] + val > dp[i][w]:
                dp[i][w] = dp[i - 1][w - wt] + val
    return dp[n][capacity]


def lcs_length(x: list[int], y: list[int]) -> int:
    """Longest common subsequence length."""
    m, n = len(x), len(y)
    dp = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if x[i - 1] == y[j - 1]:
                dp[i][j] = dp[i - 1][j - 1] + 1
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
    return dp[m][n]


def edit_distance(a: list[int], b: list[int]) -> int:
    """Levenshtein distance with two rows."""
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev = cur
    return prev[len(b)]


def coin_change_ways(coins: list[int], amount: int) -> int:
    """Number of combinations making amount."""
    ways = [0] * (amount + 1)
    ways[0] = 1
    for coin in coins:
        for v in range(coin, amount + 1):
            ways[v] += ways[v - coin]
    return ways[amount]


def min_coins(coins: list[int], amount: int) -> int:
    """Fewest coins, -1 if impossible."""
    inf = amount + 1
    dp = [inf] * (amount + 1)
    dp[0] = 0
    for v in range(1, amount + 1):
        for c in coins:
            if c <= v and dp[v - c] + 1 < dp[v]:
                dp[v] = dp[v - c] + 1
    return dp[amount] if dp[amount] < inf else -1


def lis_length(arr: list[int]) -> int:
    """O(n^2) longest increasing subsequence."""
    n = len(arr)
    best = [1] * n
    for i in range(n):
        for j in range(i):
            if arr[j] < arr[i]:
                best[i] = max(best[i], best[j] + 1)
    return max(best)


def matrix_chain_cost(dims: list[int]) -> int:
    """Fewest scalar multiplications for the chain."""
    n = len(dims) - 1
    m = [[0] * n for _ in range(n)]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            m[i][j] = sys.maxsize
            for k in range(i, j):
                m[i][j] = min(m[i][j], m[i][k] + m[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1])
    return m[0][n - 1]


def min_path_sum(grid: np.ndarray) -> int:
    """Cheapest right/down path through the grid costs."""
    rows, cols = grid.shape
    cost = np.zeros((rows, cols), dtype=np.int64)
    for r in range(rows):
        for c in range(cols):
            if r == 0 and c == 0:
                cost[r, c] = grid[r, c]
            elif r == 0:
                cost[r, c] = cost[r, c - 1] + grid[r, c]
            elif c == 0:
                cost[r, c] = cost[r - 1, c] + grid[r, c]
            else:
                cost[r, c] = min(cost[r - 1, c], cost[r, c - 1]) + grid[r, c]
    return int(cost[rows - 1, cols - 1])


def main() -> None:
    rng = np.random.default_rng(5)
    weights = [int(v) for v in rng.integers(5, 40, 30)]
    values = [int(v) for v in rng.integers(10, 100, 30)]
    best = knapsack(200, weights, values)

    dna_a = [int(v) for v in rng.integers(0, 4, 120)]
    dna_b = dna_a[:]
    for _ in range(20):
        dna_b[int(rng.integers(0, len(dna_b)))] = int(rng.integers(0, 4))
    lcs = lcs_length(dna_a, dna_b)
    dist = edit_distance(dna_a, dna_b)

    ways = coin_change_ways([1, 2, 5, 10, 20, 50, 100, 200], 500)
    fewest = min_coins([1, 7, 23, 50], 367)
    lis = lis_length([int(v) for v in rng.integers(-500, 500, 300)])
    chain = matrix_chain_cost([int(v) for v in rng.integers(5, 80, 12)])
    path = min_path_sum(rng.integers(0, 10, (40, 40)))

    print(f"knapsack best value {best}")
    print(f"DNA alignment: LCS {lcs} of {len(dna_a)}, edit distance {dist}")
    print(f"coin change: {ways} ways to make 5.00, fewest coins for 367 = {fewest}")
    print(f"LIS {lis}, matrix chain {chain} multiplications, grid path {path}")


if __name__ == "__main__":
    main()
