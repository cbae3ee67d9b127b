"""Whole-array numpy functions the frontend must translate exactly (each is checked against numpy itself)."""

import numpy as np

W3 = np.array([[1, -2, 1], [2, 0, -2], [1, 2, -1]], dtype=np.int16)

# ------------------------------------------------------------- elementwise


def ew_arith(a, b):
    """Array-array and array-scalar arithmetic in the arrays' dtype (wrapping), floor division and modulo."""
    return a + b * 3 - (a // 2) % 5


def ew_divmod(a, b):
    return a // b, a % b


def ew_bits(a, s):
    return (a << 3) ^ (a >> s) | (a & 0x0F)


def ew_unary(a):
    return -a, abs(a), np.abs(a) + np.negative(a), ~a


def ew_power(a):
    return a**2 - a


def promote(a8, b16, u8, f32):
    """numpy 2 promotion: int8+int16 -> int16, int8*float -> float64, int/int -> float64,
    float32*Python float -> float32, uint8+int8 -> int16, strong numpy scalars."""
    r1 = a8 + b16
    r2 = a8 * 0.5
    r3 = a8 / b16
    r4 = f32 * 2.5 + f32
    r5 = u8 + a8
    r6 = a8 * np.int32(3)
    r7 = f32 + np.float64(1.0)
    return r1, r2, r3, r4, r5, r6, r7


def compare_ops(a, b):
    return (a < b) & (a != 0) | (b >= 3), a == 2.5, a > 300


def bool_arrays(m, n):
    return (m & n) | ~m, m ^ n, m + n, m * n


# ---------------------------------------------------------- numpy functions


def threshold(x, t):
    return np.where(x > t, x, 0)


def where_mixed(c, a, b):
    return np.where(c, a, b), np.where(a > 0, 1.5, a), np.where(c, a, -1)


def clip_ops(x):
    return np.clip(x, -100, 100), np.clip(x, 0, 300), x.clip(None, 7)


def clip_float(x):
    return np.clip(x, -0.5, 0.5), np.maximum(x, 0.0), np.minimum(x, 0.25), np.maximum(x, x[::-1])


def minmax_int(a, b):
    return np.maximum(a, b), np.minimum(a, 0)


def scalar_numpy_funcs(a, b):
    s = np.float64(a[0]) + np.float64(a[1])
    t = float(b[0])
    return np.maximum(s, t) + np.minimum(s, t) + np.clip(s, -1.0, 1.0)


def astype_ops(x):
    return x.astype(np.int32) * 1000, x.astype(np.uint8), x.astype(bool), np.float32(x)


def float_to_int(x):
    return np.clip(x, 0, 255).astype(np.uint8), x.astype(np.int16)


# ------------------------------------------------------------- reductions


def int_stats(x):
    out = np.zeros(6, dtype=np.int64)
    out[0] = np.sum(x)
    out[1] = x.max()
    out[2] = np.min(x)
    out[3] = np.argmax(x)
    out[4] = x.argmin()
    out[5] = x.sum(dtype=np.int8)
    return out


def sum_of(x):
    return np.sum(x)


def max_of(x):
    return np.max(x)


def argmax_of(x):
    return np.argmax(x)


def argmin_of(x):
    return x.argmin()


def mean_of(x):
    return x.mean()


def count_in_range(x):
    return np.sum((x > 3) & (x < 10))


def dot_1d(a, b):
    return np.dot(a, b)


def matmul_1d(a, b):
    return a @ b + 1


# -------------------------------------------------------------- products


def matvec(w, x):
    return w @ x


def vecmat(x, w):
    return np.dot(x, w)


def matmat(a, b):
    return a @ b


def dot_scalar(a):
    return np.dot(a, 3)


def dense_relu(x, w, b):
    """A dense layer with ReLU (float)."""
    return np.maximum(w @ x + b, 0.0)


def dense_int8(x, w, b):
    """A quantised dense layer: int32 accumulation, shift, saturation to int8."""
    acc = w.astype(np.int32) @ x.astype(np.int32) + b
    return np.clip(acc >> 7, -128, 127).astype(np.int8)


def two_layers(x, w1, w2):
    h = np.maximum(w1 @ x, 0)
    h = h >> 4
    return w2 @ h


# ---------------------------------------------------------------- slices


def moving_average(x):
    return (x[:-2] + x[1:-1] + x[2:]) / 3


def diff_reverse_step(x):
    return x[1:] - x[:-1], x[::-1] * 2, x[::2] + x[1::2], x[-3:] * 1, -x[5:1:-2]


def slice_bounds_from_shape(x):
    n = len(x)
    half = n // 2
    return x[:half] + x[n - half :]


def conv3x3(img):
    """A 3x3 convolution written with shifted slices (valid region)."""
    acc = img[:-2, :-2].astype(np.int32) * W3[0, 0]
    acc = acc + img[:-2, 1:-1] * W3[0, 1] + img[:-2, 2:] * W3[0, 2]
    acc = acc + img[1:-1, :-2] * W3[1, 0] + img[1:-1, 1:-1] * W3[1, 1] + img[1:-1, 2:] * W3[1, 2]
    acc = acc + img[2:, :-2] * W3[2, 0] + img[2:, 1:-1] * W3[2, 1] + img[2:, 2:] * W3[2, 2]
    return acc


def rows_cols(m, i):
    return m[i, :] * 2, m[:, -1] + 1, m.T * 1, m[1:3, ::2] + 0, -m[-1]


def row_loop(m):
    """Row views with a loop index, and an accumulator array rebound in the loop."""
    acc = np.zeros(m.shape[1], dtype=np.int64)
    best = np.zeros(m.shape[0], dtype=np.int32)
    for r in range(m.shape[0]):
        row = m[r, :]
        acc = acc + row
        best[r] = np.argmax(row)
    return acc, best


def broadcast_2d(m, v):
    return m + v, m * m[:, 0:1], v[0:1] - m


def normalise(x):
    lo = x.min()
    hi = x.max()
    return (x - lo) / (hi - lo)


def standardise(x):
    return x - x.mean()


def chained_element(m):
    return m[1:][0, 2] + m[:, 1][-1] + m.T[0, 1]


# ---------------------------------------------------------- assignments


def inplace_ops(buf, v):
    buf[2:5] += v
    buf *= 2
    buf[::2] -= buf[1::2]
    buf[-1] = 7
    buf[0:2] = buf[5]


def shift_right(a):
    a[1:] = a[:-1]


def prefix_overlap(a):
    a[1:] += a[:-1]
    return a


def overlap_scalar(a):
    a[:] = a * a[0]


def view_writes(x):
    v = x[2:6]
    v[:] = 0
    v[1] = 7
    w = v[::-1]
    w[0] += 1
    return x.sum()


def local_arrays(x):
    y = np.zeros(len(x), dtype=np.int32)
    y[1:-1] = x[:-2] + x[2:]
    z = np.full(len(x), 3, dtype=np.int16)
    z[::3] = x[::3]
    e = np.empty_like(x)
    e[:] = x * 2
    return y, z, e


def rebinding(x):
    x = x * 2
    x = x + 1
    x = x.astype(np.float32) / 2
    return x


def loop_rebinding(x):
    y = x.copy()
    for _ in range(3):
        y = y * 0.5 + 1.0
    return y


def row_assign(m, v):
    m[0] = v
    m[:, 1] = -1
    m[1:, 2:] = m[:-1, :-2]
    return m


def returns_element_copy(x):
    return x[1:3].copy()


def helper_scale(a, k):
    return a * k


def helper_zero(v):
    v[:] = 0


def uses_array_helpers(x):
    y = helper_scale(x[1:], 3)
    helper_zero(x[:2])
    return y + x[1:]


def argmax_transposed(m):
    return np.argmax(m.T) * 100 + np.argmin(m)


def halve_until_small(x):
    y = x.copy()
    n = 0
    while np.sum(y) > 100:  # partition: max-iterations 40
        y = y // 2
        n += 1
    return n, y


def rows_with_positive_sum(m):
    s = 0
    for r in range(m.shape[0]):
        if m[r, :].sum() > 0 and m[r, 0] != 0:
            s += 1
    return s


def conditional_reduction(x, c):
    return x.max() if c > 0 else x.min()


def loop_local_rebinding(m):
    out = np.zeros(m.shape, dtype=np.int32)
    for i in range(m.shape[0]):
        row = m[i, :]
        row = row * 2
        tail = row[1:]
        out[i, 1:] = tail + i
    return out, row


def branch_bindings(x, c):
    if c > 0:
        y = x * 2
    else:
        y = x - 1
    if c > 1:
        v = x[1:]
        v = v + 1
    else:
        v = x[:-1] * 3
    return y, v


# ------------------------------------------------------------ rejections


def reject_loop_carried_alias(x):
    for i in range(3):
        a = x * i
        if i == 0:
            first = a[0:2]
    return first * 1


def reject_guarded_reduction(m, n):
    s = 0
    for i in range(n):
        s += np.sum(m[i, :]) if i < m.shape[0] else 0
    return s


def reject_mask(x):
    return x[x > 0]


def reject_dynamic_slice(x):
    s = 0
    for i in range(len(x) // 2):
        s += np.sum(x[i : 2 * i + 1 : 2])  # its length changes with i, and it steps
    return s


def reject_cbrt(x):
    return np.cbrt(x)


def reject_axis(m):
    axes = (0, 1)
    return np.sum(m, axis=axes)


def reject_inplace_cast(x):
    if x[0] == 12345:  # never true when profiled: numpy would raise
        x += 0.5


def reject_rebind_param_in_loop(x):
    for _ in range(2):
        x = x * 0.5  # an int32 argument rebound to a float64 array: no buffer of its own fits
    return x


def return_view(x):
    return x[1:]


def reject_matmul_scalar(a):
    if a[0] == 12345:
        return np.sum(a @ 2)
    return 0


def reject_truth(x):
    if x > 0:
        return 1
    return 0


def reject_alias_rebind(y):
    y = y * 1
    v = y[1:]
    y = y * 2
    return v + y[1:]


def reject_chained(x):
    y = x * 1
    if x[0] == 12345:
        y = 0 < x < 5
    return y


def reject_overflow(x):
    y = x * 1
    if x[0] == 127:
        y = x + 300
    return y


def reject_branch_views(x, c):
    if c > 0:
        v = x[1:]
    else:
        v = x[:-1]
    return v * 2
