"""Functions the frontend must translate exactly (each is checked against Python itself)."""

import numpy as np

TAPS = np.array([1, -2, 3, -4], dtype=np.int16)
SCALE = 3
COEFS = (5, -7, 11)


def fir(x, h):
    n = len(x) - len(h) + 1
    y = np.zeros(n, dtype=np.int32)
    for i in range(n):
        acc = np.int32(0)
        for k in range(len(h)):
            acc += np.int32(x[i + k]) * np.int32(h[k])
        y[i] = acc
    return y


def weak_acc(x):
    acc = 0
    for i in range(len(x)):
        acc += x[i]
    return acc


def py_int_sum(x):
    s = 0
    for i in range(x.shape[0]):
        s += int(x[i]) * int(x[i])
    return s


def floor_ops(a, b):
    out = np.zeros(len(a), dtype=np.int32)
    for i in range(len(a)):
        if b[i] != 0:
            out[i] = a[i] // b[i] + a[i] % b[i]
        else:
            out[i] = -1
    return out


def py_floor(n):
    t = 0
    for i in range(-n, n):
        t += (i * 7) // 3 - (i * 5) % 4
    return t


def wrap16(x):
    y = np.empty(len(x), dtype=np.int16)
    for i in range(len(x)):
        y[i] = x[i] * np.int16(3) + np.int16(1000)
    return y


def shifts(x, s):
    y = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        y[i] = (x[i] << s) ^ (x[i] >> (s + 1))
    return y


def blur2d(img):
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for r in range(h):
        for c in range(w):
            if r == 0 or c == 0 or r == h - 1 or c == w - 1:
                out[r, c] = img[r, c]
            else:
                s = 0
                for dr in range(-1, 2):
                    for dc in range(-1, 2):
                        s += int(img[r + dr][c + dc])
                out[r, c] = s // 9
    return out


def minmax_abs(x):
    y = np.zeros(len(x), dtype=np.int16)
    for i in range(len(x)):
        v = abs(x[i])
        y[i] = min(max(v, np.int16(-100)), np.int16(100))
    return y


def true_div(a, b):
    y = np.zeros(len(a), dtype=np.float64)
    for i in range(len(a)):
        y[i] = a[i] / b[i]
    return y


def floats32(a):
    s = np.float32(0.0)
    for i in range(len(a)):
        s = s + a[i] * np.float32(0.5) - a[i] * a[i]
    return s


def uses_globals(x):
    y = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        y[i] = x[i] * TAPS[i % 4] + SCALE * COEFS[i % 3]
    return y


def in_place(buf, k):
    for i in range(len(buf)):
        buf[i] = buf[i] * k + 1


def negative_index(x):
    y = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        y[i] = x[i - 1] - x[-1]
    return y


def reverse_step(x):
    y = np.zeros(len(x), dtype=x.dtype)
    j = 0
    for i in range(len(x) - 1, -1, -1):
        y[j] = x[i]
        j += 1  # noqa: SIM113 - the loop under test counts down
    return y


def tuple_out(x):
    lo = np.zeros(len(x), dtype=np.uint8)
    hi = np.zeros(len(x), dtype=np.uint8)
    total = np.int64(0)
    for i in range(len(x)):
        lo[i] = x[i] & 0xFF
        hi[i] = (x[i] >> 8) & 0xFF
        total += x[i]
    return lo, hi, total


def branches(x, t):
    y = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        v = x[i]
        if v > t:
            y[i] = 1
        elif v == t:
            y[i] = 0
        else:
            y[i] = -1 if v < -t else -2
    return y


def bools(x):
    cnt = 0
    for i in range(len(x)):
        if not (x[i] > 3 and x[i] < 10) or x[i] == 0:
            cnt += 1
    return cnt


def breaks(x):
    first = -1
    n = 0
    for i in range(len(x)):
        if x[i] < 0:
            continue
        n += 1
        if x[i] > 100:
            first = i
            break
    return first * 1000 + n


def power(x):
    y = np.zeros(len(x), dtype=np.int64)
    for i in range(len(x)):
        y[i] = x[i] ** 3 + 2**5
    return y


# ------------------------------------------------------------ rejections


def uses_while(x):
    i = 0
    while i < len(x):
        i += 1
    return i


def uses_slice(x):
    return x[1:3]


def uses_print(x):
    print(x)


def uses_list(xs):
    s = 0
    for i in range(len(xs)):
        s += xs[i]
    return s


def whole_array(x):
    return x[x > 0]  # a boolean mask: the result's shape depends on the data


def mixed_types(x):
    v = np.int16(0)
    for i in range(len(x)):
        v = x[i]
    return v


def helper(a):
    return a * 2


def calls_helper(x):
    s = 0
    for i in range(len(x)):
        s += helper(int(x[i]))
    return s


def guarded(x, taps):
    y = np.zeros(len(x), dtype=np.int32)
    for n in range(len(x)):
        acc = np.int32(0)
        for k in range(len(taps)):
            if n - k >= 0:
                acc += np.int32(x[n - k]) * np.int32(taps[k])
        y[n] = acc
    return y


def clamp(v, lo, hi):
    if v < lo:
        return lo
    return min(v, hi)


def clamp_all(x):
    y = np.zeros(len(x), dtype=np.int16)
    for i in range(len(x)):
        y[i] = clamp(x[i], np.int16(-50), np.int16(50))
    return y


def fill_ramp(buf, start):
    for i in range(len(buf)):
        buf[i] = start + i


def uses_fill(n_buf):
    fill_ramp(n_buf, 7)
    s = np.int32(0)
    for i in range(len(n_buf)):
        s += n_buf[i]
    return s


def make_sq(x):
    out = np.zeros(len(x), dtype=np.int32)
    for i in range(len(x)):
        out[i] = np.int32(x[i]) * np.int32(x[i])
    return out


def minmax_of(x):
    lo = x[0]
    hi = x[0]
    for i in range(len(x)):
        lo = min(lo, x[i])
        hi = max(hi, x[i])
    return lo, hi


def pipeline_of_helpers(x):
    sq = make_sq(x)
    lo, hi = minmax_of(sq)
    return sq, hi - lo


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def uses_recursion(x):
    return fact(len(x))


def bad_side_effect(x):
    return x[0] + fill_and_count(x)


def fill_and_count(x):
    fill_ramp(x, 1)
    return 1


def find_first(x, t):
    for i in range(len(x)):
        for j in range(3):
            if x[i] + j > t:
                return i * 10 + j
    return -1


def sign_class(v):
    if v > 0:
        return 1
    elif v < 0:
        return -1
    return 0


def classify(x):
    y = np.zeros(len(x), dtype=np.int8)
    for i in range(len(x)):
        y[i] = sign_class(int(x[i]))
    return y


def while_counted(x):
    i = 0
    s = np.int32(0)
    while i < len(x):
        s += x[i]
        i += 2
    return s


def while_marked(x, t):
    n = 0
    v = np.int32(x[0])
    while v > t:  # partition: max-iterations 64
        v = v // 2
        n += 1
    return n


def while_unbounded(x):
    n = 0
    v = int(x[0])
    while v > 1:
        v = v // 2
        n += 1
    return n


def list_hist(x):
    counts = [0] * 8
    for i in range(len(x)):
        counts[x[i]] += 1
    return counts


def grid_sum(m):
    rows = [[0] * 3 for _ in range(2)]
    total = 0
    for r in range(len(m)):
        for c in range(3):
            rows[r][c] = m[r][c] * 2
            total += rows[r][c]
    return total


def doubled(x):
    out = [np.int16(0)] * len(x)
    for i in range(len(x)):
        out[i] = x[i] * np.int16(2)
    return out
