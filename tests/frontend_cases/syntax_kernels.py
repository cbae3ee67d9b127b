"""Functions written the way algorithm collections write Python (tuple swaps, builtins over
sequences, enumerate/zip loops, comprehensions, rebound parameters...): each must translate
and compute exactly what Python computes."""

import math
import sys

import numpy as np

LIMIT = 1000
SCALE_F = np.float32(0.5)


# ------------------------------------------------------------ tuple assignment


def bubble_swaps(a):
    n = len(a)
    for i in range(n - 1):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    return a


def row_swap(m, k, p):
    for j in range(m.shape[1]):
        m[k, j], m[p, j] = m[p, j], m[k, j]
    return m


def mixed_targets(a, i):
    x = 1
    x, a[x] = a[i], x  # a[x] is stored after x is rebound
    (u, v), w = (a[0] + a[1], a[0] - a[1]), a[2] * 2
    return a, x * 7 + u * 3 + v + w


def divmods(a, b):
    q, r = divmod(a, b)
    return q * 1000 + r


def float_divmod(a, b):
    q, r = divmod(a, b)
    return q + r * 0.125


def np_divmod(x, d):
    out = np.zeros(len(x), dtype=x.dtype)
    for i in range(len(x)):
        q, r = divmod(x[i], d)
        out[i] = q + r
    return out


def lo_hi(a, b):
    return min(a, b), max(a, b)


def uses_lo_hi(x):
    s = 0
    for i in range(len(x) - 1):
        lo, hi = lo_hi(x[i], x[i + 1])
        s += hi - lo
    return s


def unpack_row(m):
    s = 0
    for i in range(len(m)):
        a, b, c = m[i]
        s += a * b - c
    return s


def swap_buffers(x):
    src = np.zeros(3)
    dst = np.ones(3)
    src, dst = dst, src  # local buffers: their contents are exchanged
    x, dst = dst, x  # an argument's array: refused
    return x


# ------------------------------------------------------------ builtins over sequences


def builtin_sum_int8(x):
    return sum(x)


def builtin_sum_bool(x, t):
    return sum(x > t)


def builtin_sum_list(xs, start):
    return sum(xs, start)


def builtin_sum_floats(xs):
    return sum(xs)


def builtin_sum_squares(xs):
    return sum(v * v for v in xs)


def builtin_sum_range(n):
    return sum(i * i for i in range(1, n, 2))


def builtin_sum_slice(xs, k):
    return sum(xs[2:]) * k + sum(xs[:3], 5)


def builtin_sum_empty_int(xs, t):
    return sum(v for v in xs if v > t)


def builtin_sum_maybe_empty_floats(xs, t):
    return sum(v for v in xs if v > t)


def builtin_minmax_list(xs):
    return min(xs) * 1000 + max(xs)


def builtin_minmax_floats(x):
    return min(x) + 2.0 * max(x) + 4.0 * max(abs(v) for v in x)


def builtin_min_gen(a, n):
    return min(a[i] for i in range(n))


def builtin_max_zip(a, b):
    return max(abs(p - q) for p, q in zip(a, b))


def builtin_any(x, t):
    return any(v > t for v in x)


def builtin_all(x, t):
    return all(v > t for v in x)


def builtin_any_nested(x, y):
    return any(a == b for a in x for b in y)


def builtin_min_key(x):
    return min(x, key=abs)


# ------------------------------------------------------------ loops


def last_index(x, t):
    for i in range(len(x)):
        if x[i] > t:
            break
    return i


def maybe_unbound(x, n):
    for i in range(n):  # noqa: B007 (read after the loop)
        pass
    return i


def bound_before(x, n):
    i = -1
    for i in range(n):
        if x[i] == 0:
            break
    return i


def loop_var_assigned(x, n):
    s = 0
    for i in range(n):
        i = i * 2
        s += i
    return s


def loop_var_after_branch(x, n):
    for i in range(len(x)):
        if x[i] == n:
            break
    if n > 100:
        i = 5
    return i


def for_else(x, t):
    for v in x:
        if v > t:
            r = int(v)
            break
    else:
        r = -1
    return r


def for_else_return(x, t):
    for v in x:
        if v == t:
            return 1
    else:
        if t < 0:
            return 2
    return 3


def enumerate_zip(x, y):
    s = 0
    for i, v in enumerate(x):
        s += i * v
    for i, v in enumerate(x, 3):
        s -= i * v
    for a, b in zip(x, y):
        s += a * b
    for a, b in zip(x, x[1:]):  # noqa: RUF007 (the form the corpus writes)
        s += a - b
    for i, (a, b) in enumerate(zip(x, y)):
        s += i * (a - b)
    return s


def reversed_loops(x, n):
    s = 0
    for v in reversed(x):
        s = (s * 3 + v) % 10007
    for i in reversed(range(n)):
        s = (s * 2 + i) % 10007
    for i in reversed(range(1, n, 3)):
        s = (s * 5 + i) % 10007
    return s


def literal_loops(x, y):
    s = 0
    for g in (5, 3, 1):
        s = s * 7 + g
    for g in [701, 301, 132, 57, 23, 10, 4, 1]:
        s += g * x[0]
    for dy, dx in ((y + 1, 2), (y - 1, 3), (y, -1)):
        s += x[dy] * dx
    return s


def row_loops(m):
    s = 0
    for row in m:
        for v in row:
            s += v
        s += row[0] * len(row)
    return s


def slice_loops(x):
    s = 0
    for v in x[2:]:
        s += v
    for v in x[::-2]:
        s = s * 2 + v
    return s


def copy_slice_written(xs):
    for v in xs[1:]:
        xs[0] += v
    return xs


# ------------------------------------------------------------ comprehensions and lists


def comprehensions(xs, n):
    zeros = [0 for _ in range(n)]
    doubled = [v * 2 for v in xs]
    table = [[i * j for j in range(3)] for i in range(4)]
    grid = [[0] * (3 + 1) for _ in range(2 + 1)]
    pairs = [xs[i] + doubled[i] for i in range(len(xs))]
    s = zeros[0] + grid[2][3]
    for i in range(4):
        for j in range(3):
            s += table[i][j]
    return doubled, pairs, s


def relu_list(values):
    return [max(0.0, v) for v in values]


def cross_product(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def transpose(m):
    return [[m[i][j] for i in range(len(m))] for j in range(len(m[0]))]


def filtered(xs):
    return [v for v in xs if v > 0]


# ------------------------------------------------------------ parameters and constants


def rebound_params(base, exp, mod):
    result = 1
    base = base % mod
    for _ in range(16):
        if exp & 1:
            result = result * base % mod
        base = base * base % mod
        exp >>= 1
    return result


def rebound_abs(x, n):
    x = abs(x)
    n = n - 1
    return x * n


def constants(x):
    a = math.pi * x + math.e - math.tau
    b = min(x, math.inf) + (-math.inf < x) + float("inf") * 0.0
    c = sys.maxsize > x
    return a + b + c + (True + 2) + LIMIT + SCALE_F


def rounding(x):
    return round(x)


def bit_lengths(n):
    return n.bit_length()


def modular_pow(a, b):
    return pow(a, abs(b), 1000003) + pow(a, abs(b) % 64, -97)


def round_digits(x):
    return round(x, 2)


def with_default(x, n, scale=3):
    return x * n + scale


# ------------------------------------------------------------ more of the same


def identity_bool(x, t):
    done = x[0] > t
    if done is False:
        return 1
    if done is not True:
        return 2
    return 3


def normalise(x):
    peak = max(abs(v) for v in x)
    if peak == 0:
        return list(x)
    return [v / peak for v in x]


def trace(m):
    total = 0
    for i in range(min(m.shape)):
        total += m[i, i]
    return total


def sieve(n):
    return [i % 3 == 0 for i in range(n)]


def count_sieve(n):
    return sum(sieve(n))


def row_copies(m):
    base = [row[:] for row in m]
    copies = [list(r) for r in m]
    tails = [r[1:] for r in m]
    sums = [sum(r) for r in m]
    m[0][0] = 9
    return base, copies, tails, sums


def enumerate_rows(m):
    s = 0
    for i, row in enumerate(m):
        s += i * sum(row) + row[0]
    return s


def lengths(x, a, b):
    return len(x[1:]) * 100 + len(range(a, b)) * 10 + len(range(b, a, -3)) + len(x[::3])


def list_slice_loop(xs, out):
    for k, v in enumerate(xs[1:]):
        out[k] = v - xs[0]
    return out


def guarded_search(arr, target):
    """A load guarded by `and` (exponential search): Python never reads past the list."""
    bound = 1
    while bound < len(arr) and arr[bound] < target:
        bound *= 2
    hits = 0
    for i in range(len(arr) + 4):
        if i < len(arr) and arr[i] == target:
            hits += 1
    return bound * 1000 + hits
