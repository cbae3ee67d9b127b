"""Kernels calling math functions: Python's math module, numpy's ufuncs, float powers.

The `math` kernels keep their arguments inside the domain where Python's call
returns (abs(), guards, squares), as the frontend must prove; the `reject_`
ones do not, and must stay on the CPU.
"""

import math
from math import floor as math_floor

import numpy as np

# ------------------------------------------------------ Python's math, scalar


def m_unary(x: float) -> float:
    """Every unary math function on a float, each inside its domain."""
    a = abs(x)
    r = math.sqrt(a) + math.exp(-a) + math.expm1(-a) + math.log(a + 1.0) + math.log2(a + 0.5)
    r += math.log10(a + 2.0) + math.log1p(a) + math.atan(x) + math.tanh(x)
    c = max(-1.0, min(1.0, x))
    r += math.asin(c) + math.acos(c)
    b = min(a, 700.0)
    r += math.sinh(b) * 1e-300 + math.cosh(b) * 1e-300
    return r + math.fabs(x) + math.copysign(2.0, x) + math.radians(x) + math.degrees(x)


def m_trig(x: float) -> float:
    """sin/cos/tan need a finite argument: a clamped one is."""
    t = max(-1e6, min(1e6, x))
    return math.sin(t) + math.cos(t) + math.tan(t)


def m_binary(x: float, y: float) -> float:
    return math.atan2(x, y) + math.hypot(x, y) + math.copysign(x, y)


def m_floor(x: float) -> int:
    """floor/ceil/trunc of a bounded float are Python ints."""
    t = max(-1e9, min(1e9, x))
    return math.floor(t) + math.ceil(t) * 3 + math.trunc(t) * 7 + math_floor(2.5)


def m_predicates(x: float) -> int:
    n = 0
    if math.isnan(x):
        n += 1
    if math.isinf(x):
        n += 2
    if math.isfinite(x):
        n += 4
    return n


def m_constants() -> float:
    return math.pi + math.e + math.tau + math.sqrt(2.0) + math.floor(2.5) + math.log(10.0)


def m_powers(x: float) -> float:
    """Python float ** : squares are x * x, ** 0.5 and ** 3 need a proven base."""
    a = min(abs(x), 1e100)
    return x**2 + a**0.5 + a**3 + (a + 1.0) ** -2 + x**1 + x**0 + math.pow(a, 1.5)


def m_int_sqrt(n: int) -> int:
    """int(math.sqrt(n)) of an int the guards keep non-negative (trial division)."""
    if n < 2:
        return 0
    return int(math.sqrt(n)) + 1


def is_prime(number: int) -> bool:
    """Trial division by 6k +- 1: the early returns leave number >= 5 for the loop."""
    if 1 < number < 4:
        return True
    elif number < 2 or number % 2 == 0 or number % 3 == 0:
        return False
    for i in range(5, int(math.sqrt(number) + 1), 6):
        if number % i == 0 or number % (i + 2) == 0:
            return False
    return True


# ---------------------------------------------------------- loops and arrays


def knn_distances(train, query):
    n, d = train.shape
    dist = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(d):
            diff = train[i, j] - query[j]
            s += diff * diff
        dist[i] = math.sqrt(s)
    return dist


def sigmoid_stable(x):
    """exp of a non-positive value in both branches, NaN in the else branch."""
    out = np.zeros(len(x))
    for i in range(len(x)):
        if x[i] >= 0:
            z = math.exp(-x[i])
            out[i] = 1.0 / (1.0 + z)
        else:
            z = math.exp(x[i])
            out[i] = z / (1.0 + z)
    return out


def log_guarded(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        v = x[i]
        if v > 0:
            out[i] = math.log(v)
        else:
            out[i] = -1.0
    return out


def cross_entropy(p, label: int) -> float:
    return -math.log(max(p[label], 1e-12))


def angle_between(a, b) -> float:
    dot = float(np.dot(a, b))
    na = math.sqrt(float(np.dot(a, a)))
    nb = math.sqrt(float(np.dot(b, b)))
    cos_angle = max(-1.0, min(1.0, dot / (na * nb)))
    return math.acos(cos_angle)


def roberts_cross(img):
    h, w = img.shape
    out = np.zeros((h - 1, w - 1))
    for y in range(h - 1):
        for x in range(w - 1):
            d1 = int(img[y, x]) - int(img[y + 1, x + 1])
            d2 = int(img[y, x + 1]) - int(img[y + 1, x])
            out[y, x] = math.sqrt(d1**2 + d2**2)
    return out


def resize_rows(img, k: int):
    """math.floor of a bounded float index, as bilinear resizing does (8 rows from h)."""
    h, w = img.shape
    out = np.zeros((8, w), dtype=np.uint8)
    sy = (h - 1) / (k - 1) if k > 1 else 0.0
    for i in range(8):
        fy = i * sy
        y0 = math.floor(fy)
        y1 = min(y0 + 1, h - 1)
        dy = fy - y0
        for j in range(w):
            out[i, j] = int(img[y0, j] * (1 - dy) + img[y1, j] * dy)
    return out


def dft_real(x):
    n = len(x)
    real = np.zeros(n)
    for k in range(n):
        for t in range(n):
            angle = 2 * math.pi * k * t / n
            real[k] += x[t] * math.cos(angle)
    return real


# ----------------------------------------------------------- numpy's ufuncs


def np_unary(x):
    """numpy's unary ufuncs elementwise: NaN or inf where undefined, never an error."""
    r = np.sqrt(x) + np.exp(x) + np.expm1(x) + np.log(x) + np.log2(x) + np.log10(x) + np.log1p(x)
    r = r + np.sin(x) + np.cos(x) + np.tan(x) + np.arcsin(x) + np.arccos(x) + np.arctan(x)
    r = r + np.sinh(x) + np.cosh(x) + np.tanh(x)
    return r


def np_rounding(x):
    return np.floor(x) + np.ceil(x) * 2 + np.trunc(x) * 4 + np.rint(x) * 8 + np.round(x) * 16 + np.fabs(x)


def np_binary(x, y):
    return np.arctan2(x, y) + np.hypot(x, y) + np.power(x, y) + np.fmod(x, y) + np.copysign(x, y)


def np_misc(x):
    return np.square(x) + np.reciprocal(x) + np.sign(x) + np.deg2rad(x) + np.rad2deg(x) + np.radians(x)


def np_predicates(x):
    return np.isnan(x) | (np.isinf(x) & np.isfinite(x))


def np_power_paths(x):
    """array ** constant: numpy's fast paths (0.5, -1, 1, 2) and its pow loop (3)."""
    return x**0.5 + x**-1 + x**1 + x**2 + x**3 + x**0


def np_scalar(v: float, w: float) -> float:
    """numpy ufuncs on scalars give numpy scalars."""
    return np.sqrt(v) + np.exp(w) + np.hypot(v, w) + np.power(v, 2) + np.floor(w)


def np_int_sign(x):
    return np.sign(x) + np.square(x) + np.floor(x)


def np_bool_rounding(b):
    """np.floor/ceil/trunc of bool arrays are bool arrays; np.square of bool is int8."""
    return np.floor(b) | np.ceil(b) | np.trunc(b), np.square(b)


def np_int_to_float(x):
    """np.sqrt of int16 is float32, of int32 float64 (numpy's promotion)."""
    return np.sqrt(x)


def softmax(vector):
    e = np.exp(vector - np.max(vector))
    return e / np.sum(e)


def sobel_hypot(img):
    f = img.astype(np.float32)
    gx = (f[:-2, 2:] + 2 * f[1:-1, 2:] + f[2:, 2:]) - (f[:-2, :-2] + 2 * f[1:-1, :-2] + f[2:, :-2])
    gy = (f[2:, :-2] + 2 * f[2:, 1:-1] + f[2:, 2:]) - (f[:-2, :-2] + 2 * f[:-2, 1:-1] + f[:-2, 2:])
    return np.hypot(gx, gy)


def np_float32_exp(x):
    return np.exp(x) * np.float32(0.5) + np.tanh(x)


# --------------------------------------------- rejected: Python would raise


def reject_sqrt(x: float) -> float:
    return math.sqrt(x)


def reject_log_zero(x: float) -> float:
    return math.log(abs(x))  # abs(x) may be 0: ValueError


def reject_exp(x: float) -> float:
    return math.exp(x)  # OverflowError above 709.78


def reject_floor_nan(x: float) -> int:
    return math.floor(x)  # NaN: ValueError, inf: OverflowError


def reject_asin(x: float) -> float:
    return math.asin(x)


def reject_sin_inf(x: float) -> float:
    return math.sin(x)  # inf: ValueError


def reject_half_power(x: float) -> float:
    return x**0.5  # a negative x gives a complex number


def reject_cube(x: float) -> float:
    return x**3  # OverflowError beyond 5.6e102


def reject_fmod(x: float, y: float) -> float:
    return math.fmod(x, y)


def reject_constant(x: float) -> float:
    if x > 100.0:
        return math.sqrt(-1.0)  # raises if this call happens
    return x


def reject_loop_negative(x):
    """The accumulator goes negative after the sqrt, in the next iteration."""
    s = 1.0
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = math.sqrt(s)
        s = s - x[i] * x[i]
    return out


def norm2(x: float, y: float) -> float:
    """math.sqrt of a sum of squares: never negative, so no check is needed."""
    return math.sqrt(x * x + y * y)


def variable_powers(x, y):
    """Python float ** with exponents known only at run time (PolyBench deriche's 2.0 ** -alpha)."""
    return 2.0 ** (-x) + abs(x) ** y
