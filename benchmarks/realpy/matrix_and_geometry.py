"""Small linear algebra on lists of lists and 2-D arrays, and 2-D computational geometry on
points, tuples, namedtuples and dataclasses, as in algorithm collections, robotics and
graphics tutorials."""

import copy
import math
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

Point = namedtuple("Point", ["x", "y"])


@dataclass
class Rect:
    """Axis-aligned rectangle: top-left corner and size."""

    x: int
    y: int
    w: int
    h: int


def matrix_multiply(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    """Product of two matrices given as lists of rows."""
    rows, inner, cols = len(a), len(b), len(b[0])
    result = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        for j in range(cols):
            for k in range(inner):
                result[i][j] += a[i][k] * b[k][j]
    return result


def matmul_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int16 x int16 matrix product accumulated in int64 with triple loops."""
    n, m = a.shape
    p = b.shape[1]
    c = np.zeros((n, p), dtype=np.int64)
    for i in range(n):
        for j in range(p):
            s = 0
            for k in range(m):
                s += int(a[i, k]) * int(b[k, j])
            c[i, j] = s
    return c


def transpose(matrix: list[list[int]]) -> list[list[int]]:
    """Rows become columns (nested comprehension)."""
    return [[matrix[j][i] for j in range(len(matrix))] for i in range(len(matrix[0]))]


def matrix_vector(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Matrix times column vector."""
    return [sum(row[j] * vector[j] for j in range(len(vector))) for row in matrix]


def trace(m: np.ndarray) -> float:
    """Sum of the diagonal."""
    total = 0
    for i in range(min(m.shape)):
        total += m[i, i]
    return total


def determinant_3x3(m: list[list[float]]) -> float:
    """Rule of Sarrus."""
    return (
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    )


def identity(n: int) -> list[list[int]]:
    """n x n identity matrix."""
    return [[1 if i == j else 0 for j in range(n)] for i in range(n)]


def gaussian_elimination(coefficients: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Solve A x = b by elimination with partial pivoting and back substitution."""
    n = len(vector)
    a = coefficients.astype(np.float64)
    b = vector.astype(np.float64)
    for k in range(n - 1):
        pivot = k
        for i in range(k + 1, n):
            if abs(a[i, k]) > abs(a[pivot, k]):
                pivot = i
        if pivot != k:
            for j in range(n):
                a[k, j], a[pivot, j] = a[pivot, j], a[k, j]
            b[k], b[pivot] = b[pivot], b[k]
        for i in range(k + 1, n):
            factor = a[i, k] / a[k, k]
            for j in range(k, n):
                a[i, j] -= factor * a[k, j]
            b[i] -= factor * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= a[i, j] * x[j]
        x[i] = s / a[i, i]
    return x


def determinant(matrix: np.ndarray) -> float:
    """Determinant by row reduction with partial pivoting."""
    a = matrix.astype(np.float64)
    n = a.shape[0]
    det = 1.0
    for k in range(n):
        pivot = k
        for i in range(k + 1, n):
            if abs(a[i, k]) > abs(a[pivot, k]):
                pivot = i
        if a[pivot, k] == 0:
            return 0.0
        if pivot != k:
            for j in range(n):
                a[k, j], a[pivot, j] = a[pivot, j], a[k, j]
            det = -det
        det *= a[k, k]
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            for j in range(k, n):
                a[i, j] -= f * a[k, j]
    return det


def lu_decomposition(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Doolittle LU (no pivoting): table = lower @ upper, lower with a unit diagonal."""
    rows, columns = table.shape
    lower = np.zeros((rows, columns))
    upper = np.zeros((rows, columns))
    for i in range(columns):
        for j in range(i):
            total = 0.0
            for k in range(j):
                total += lower[i][k] * upper[k][j]
            lower[i][j] = (table[i][j] - total) / upper[j][j]
        lower[i][i] = 1
        for j in range(i, columns):
            total = 0.0
            for k in range(i):
                total += lower[i][k] * upper[k][j]
            upper[i][j] = table[i][j] - total
    return lower, upper


def power_iteration(matrix: np.ndarray, iterations: int) -> float:
    """Dominant eigenvalue estimate (Rayleigh quotient) after a fixed number of iterations."""
    n = matrix.shape[0]
    v = np.ones(n) / math.sqrt(n)
    for _ in range(iterations):
        w = matrix @ v
        norm = math.sqrt(float(np.dot(w, w)))
        if norm == 0:
            return 0.0
        v = w / norm
    return float(v @ matrix @ v)


def matrix_power_2x2(m: list[list[int]], n: int) -> list[list[int]]:
    """m ** n for a 2x2 integer matrix by repeated squaring."""
    result = [[1, 0], [0, 1]]
    base = [row[:] for row in m]
    while n > 0:
        if n & 1:
            result = matrix_multiply(result, base)
        base = matrix_multiply(base, base)
        n >>= 1
    return result


def rotate_matrix_90(matrix: list[list[int]]) -> list[list[int]]:
    """Rotate a square matrix clockwise in place, layer by layer."""
    n = len(matrix)
    for layer in range(n // 2):
        first, last = layer, n - 1 - layer
        for i in range(first, last):
            offset = i - first
            top = matrix[first][i]
            matrix[first][i] = matrix[last - offset][first]
            matrix[last - offset][first] = matrix[last][last - offset]
            matrix[last][last - offset] = matrix[i][last]
            matrix[i][last] = top
    return matrix


def spiral_order(matrix: list[list[int]]) -> list[int]:
    """Elements in clockwise spiral order from the top-left."""
    result = []
    top, bottom = 0, len(matrix) - 1
    left, right = 0, len(matrix[0]) - 1
    while top <= bottom and left <= right:
        for j in range(left, right + 1):
            result.append(matrix[top][j])
        top += 1
        for i in range(top, bottom + 1):
            result.append(matrix[i][right])
        right -= 1
        if top <= bottom:
            for j in range(right, left - 1, -1):
                result.append(matrix[bottom][j])
            bottom -= 1
        if left <= right:
            for i in range(bottom, top - 1, -1):
                result.append(matrix[i][left])
            left += 1
    return result


def polygon_area(points: list[tuple[float, float]]) -> float:
    """Shoelace formula for a simple polygon given by its vertices in order."""
    area = 0.0
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]):
        area += x1 * y2 - x2 * y1
    return abs(area) / 2


def point_in_polygon(point: Point, polygon: np.ndarray) -> bool:
    """Ray casting (even-odd rule); polygon is an (N, 2) array of vertices."""
    inside = False
    n = len(polygon)
    j = n - 1
    for i in range(n):
        xi, yi = polygon[i]
        xj, yj = polygon[j]
        if (yi > point.y) != (yj > point.y):
            x_cross = (xj - xi) * (point.y - yi) / (yj - yi) + xi
            if point.x < x_cross:
                inside = not inside
        j = i
    return inside


def distance(p: Point, q: Point) -> float:
    """Euclidean distance between two points."""
    return math.hypot(p.x - q.x, p.y - q.y)


def triangle_area(a: Point, b: Point, c: Point) -> float:
    """Half the absolute cross product."""
    return abs((b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)) / 2.0


def line_intersection(
    p1: tuple[float, float], p2: tuple[float, float], p3: tuple[float, float], p4: tuple[float, float]
) -> tuple[float, float] | None:
    """Intersection of the lines p1p2 and p3p4, or None when they are parallel."""
    x1, y1 = p1
    x2, y2 = p2
    x3, y3 = p3
    x4, y4 = p4
    denom = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
    if denom == 0:
        return None
    a = x1 * y2 - y1 * x2
    b = x3 * y4 - y3 * x4
    return ((a * (x3 - x4) - (x1 - x2) * b) / denom, (a * (y3 - y4) - (y1 - y2) * b) / denom)


def rotate_points(points: np.ndarray, angle_deg: float, center: tuple[float, float]) -> np.ndarray:
    """Rotate (N, 2) points counter-clockwise about center."""
    theta = math.radians(angle_deg)
    c, s = math.cos(theta), math.sin(theta)
    cx, cy = center
    out = np.zeros_like(points, dtype=np.float64)
    for i in range(len(points)):
        dx = points[i, 0] - cx
        dy = points[i, 1] - cy
        out[i, 0] = cx + c * dx - s * dy
        out[i, 1] = cy + s * dx + c * dy
    return out


def centroid(points: np.ndarray) -> tuple[float, float]:
    """Mean of the (N, 2) points."""
    n = len(points)
    return sum(points[:, 0]) / n, sum(points[:, 1]) / n


def bounding_box(points: list[tuple[int, int]]) -> tuple[int, int, int, int]:
    """(min_x, min_y, max_x, max_y) of the points."""
    min_x = min(p[0] for p in points)
    min_y = min(p[1] for p in points)
    max_x = max(p[0] for p in points)
    max_y = max(p[1] for p in points)
    return min_x, min_y, max_x, max_y


def rect_overlap_area(a: Rect, b: Rect) -> int:
    """Area of the intersection of two rectangles."""
    dx = min(a.x + a.w, b.x + b.w) - max(a.x, b.x)
    dy = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    if dx <= 0 or dy <= 0:
        return 0
    return dx * dy


def manhattan_distance(point_a: list[float], point_b: list[float]) -> float:
    """L1 distance."""
    return sum(abs(a - b) for a, b in zip(point_a, point_b))


def chebyshev_distance(point_a: list[float], point_b: list[float]) -> float:
    """L-infinity distance."""
    return max(abs(a - b) for a, b in zip(point_a, point_b))


def vector_norms(v: np.ndarray) -> tuple[float, float, float]:
    """(L1, L2, L-infinity) norms."""
    l1 = 0.0
    l2 = 0.0
    linf = 0.0
    for x in v:
        ax = abs(x)
        l1 += ax
        l2 += ax * ax
        if ax > linf:
            linf = ax
    return l1, math.sqrt(l2), linf


def cross_product(a: list[float], b: list[float]) -> list[float]:
    """3-D cross product."""
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def angle_between(a: np.ndarray, b: np.ndarray) -> float:
    """Angle in radians between two vectors (cosine clamped to [-1, 1])."""
    dot = float(np.dot(a, b))
    na = math.sqrt(float(np.dot(a, a)))
    nb = math.sqrt(float(np.dot(b, b)))
    cos_angle = max(-1.0, min(1.0, dot / (na * nb)))
    return math.acos(cos_angle)


def closest_pair(points: np.ndarray) -> tuple[float, int, int]:
    """Brute-force closest pair: (distance, i, j) with i < j."""
    best = math.inf
    bi, bj = -1, -1
    n = len(points)
    for i in range(n - 1):
        for j in range(i + 1, n):
            d = math.hypot(points[i, 0] - points[j, 0], points[i, 1] - points[j, 1])
            if d < best:
                best, bi, bj = d, i, j
    return best, bi, bj


def is_convex_polygon(points: np.ndarray) -> bool:
    """True when all turns have the same orientation."""
    n = len(points)
    sign = 0
    for i in range(n):
        x0, y0 = points[i]
        x1, y1 = points[(i + 1) % n]
        x2, y2 = points[(i + 2) % n]
        cross = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1)
        if cross != 0:
            s = 1 if cross > 0 else -1
            if sign == 0:
                sign = s
            elif s != sign:
                return False
    return True


def convex_hull(points: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Andrew's monotone chain; hull vertices counter-clockwise."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[int, int]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[int, int]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def inverse_2x2(m: list[list[float]]) -> list[list[float]]:
    """Inverse of a 2x2 matrix; raises ValueError when it is singular."""
    det = m[0][0] * m[1][1] - m[0][1] * m[1][0]
    if det == 0:
        raise ValueError("This matrix has no inverse.")
    return [[m[1][1] / det, -m[0][1] / det], [-m[1][0] / det, m[0][0] / det]]


def least_squares_line(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Slope and intercept of the least-squares line, through numpy.linalg.lstsq."""
    design = np.vstack([x, np.ones(len(x))]).T
    (slope, intercept), *_ = np.linalg.lstsq(design, y, rcond=None)
    return float(slope), float(intercept)


def format_matrix(matrix: list[list[float]]) -> str:
    """Pretty-print a matrix with aligned columns."""
    width = max(len(f"{v:.3g}") for row in matrix for v in row)
    return "\n".join(" ".join(f"{v:.3g}".rjust(width) for v in row) for row in matrix)


def sort_by_polar_angle(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Points ordered by angle about their centroid."""
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)
    return sorted(points, key=lambda p: math.atan2(p[1] - cy, p[0] - cx))


def _mat(rng, r, c, lo=-9, hi=10):
    return [[int(v) for v in row] for row in rng.integers(lo, hi, (r, c))]


def _fmat(rng, r, c):
    return [[float(v) for v in row] for row in rng.normal(size=(r, c))]


def _regular_polygon(rng, n, jitter=0.0):
    ang = np.sort(rng.uniform(0, 2 * np.pi, n)) if jitter else np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = 10 + jitter * rng.uniform(-1, 1, n)
    return np.stack([r * np.cos(ang), r * np.sin(ang)], axis=1)


def _spd(rng, n):
    """Symmetric matrix with a clearly dominant eigenvalue (10 against at most 5)."""
    q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    lam = np.concatenate([[10.0], rng.uniform(0.5, 5.0, n - 1)])
    return q @ np.diag(lam) @ q.T


def _tuples(arr):
    return [(float(x), float(y)) for x, y in arr]


def _ipts(rng, n):
    return [(int(x), int(y)) for x, y in rng.integers(-100, 100, (n, 2))]


def _fvec(rng, n):
    return [float(v) for v in rng.normal(size=n)]


def _concave_octagon():
    """An 8-vertex polygon with one reflex vertex."""
    return np.array([[0, 0], [4, 0], [6, 2], [6, 5], [4, 7], [2, 4], [0, 7], [-2, 3]], dtype=np.float64)


INPUTS = {
    "matrix_multiply": lambda rng: [(_mat(rng, 8, 6), _mat(rng, 6, 5)) for _ in range(3)],
    "matmul_int": lambda rng: (
        [
            (
                rng.integers(-1000, 1000, (16, 16)).astype(np.int16),
                rng.integers(-1000, 1000, (16, 16)).astype(np.int16),
            )
            for _ in range(3)
        ]
        + [(np.full((16, 16), -32768, np.int16), np.full((16, 16), -32768, np.int16))]
    ),
    "transpose": lambda rng: [(_mat(rng, 4, 7),) for _ in range(3)],
    "matrix_vector": lambda rng: [(_fmat(rng, 8, 8), _fvec(rng, 8)) for _ in range(3)],
    "trace": lambda rng: [(rng.normal(size=(8, 8)),) for _ in range(3)],
    "determinant_3x3": lambda rng: (
        [(_fmat(rng, 3, 3),) for _ in range(3)] + [([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],)]
    ),
    "identity": lambda rng: [(8,) for _ in range(3)],
    "gaussian_elimination": lambda rng: (
        [(rng.normal(size=(6, 6)) + 6 * np.eye(6), rng.normal(size=6)) for _ in range(3)]
        + [(np.eye(6)[::-1].copy(), np.arange(6.0))]
    ),
    "determinant": lambda rng: [(rng.normal(size=(6, 6)),) for _ in range(3)] + [(np.ones((6, 6)),)],
    "lu_decomposition": lambda rng: [(rng.normal(size=(6, 6)) + 6 * np.eye(6),) for _ in range(3)],
    "power_iteration": lambda rng: [(_spd(rng, 6), it) for it in (100, 200, 3)],
    "matrix_power_2x2": lambda rng: [([[1, 1], [1, 0]], n) for n in (0, 10, 60)] + [([[2, -1], [0, 3]], 7)],
    "rotate_matrix_90": lambda rng: [(_mat(rng, 7, 7),) for _ in range(3)],
    "spiral_order": lambda rng: [(_mat(rng, 5, 6),) for _ in range(3)],
    "polygon_area": lambda rng: [(_tuples(_regular_polygon(rng, 12, j)),) for j in (0.0, 3.0, 5.0)],
    "point_in_polygon": lambda rng: [
        (Point(float(px), float(py)), _regular_polygon(rng, 12, 3.0))
        for px, py in rng.uniform(-12, 12, (4, 2))
    ],
    "distance": lambda rng: [
        (Point(*map(float, a)), Point(*map(float, b))) for a, b in rng.normal(0, 10, (3, 2, 2))
    ],
    "triangle_area": lambda rng: [
        tuple(Point(*map(float, p)) for p in tri) for tri in rng.normal(0, 10, (3, 3, 2))
    ],
    "line_intersection": lambda rng: (
        [tuple(tuple(map(float, p)) for p in seg) for seg in rng.normal(0, 10, (3, 4, 2))]
        + [((0.0, 0.0), (1.0, 1.0), (0.0, 1.0), (1.0, 2.0))]
    ),
    "rotate_points": lambda rng: [(rng.normal(0, 5, (32, 2)), a, (1.0, -2.0)) for a in (30.0, 90.0, -45.0)],
    "centroid": lambda rng: [(rng.normal(0, 5, (32, 2)),) for _ in range(3)],
    "bounding_box": lambda rng: [(_ipts(rng, 32),) for _ in range(3)],
    "rect_overlap_area": lambda rng: [
        (Rect(0, 0, 10, 10), Rect(5, 5, 10, 10)),
        (Rect(0, 0, 4, 4), Rect(4, 0, 4, 4)),
        (Rect(-3, -3, 20, 2), Rect(0, -10, 3, 30)),
    ],
    "manhattan_distance": lambda rng: [(_fvec(rng, 16), _fvec(rng, 16)) for _ in range(3)],
    "chebyshev_distance": lambda rng: [(_fvec(rng, 16), _fvec(rng, 16)) for _ in range(3)],
    "vector_norms": lambda rng: [(rng.normal(size=16),) for _ in range(3)] + [(np.zeros(16),)],
    "cross_product": lambda rng: [(_fvec(rng, 3), _fvec(rng, 3)) for _ in range(3)],
    "angle_between": lambda rng: (
        [(rng.normal(size=3), rng.normal(size=3)) for _ in range(2)]
        + [
            (np.array([1.0, 0.0, 0.0]), np.array([2.0, 0.0, 0.0])),
            (np.array([1.0, 0.0, 0.0]), np.array([-1.0, 0.0, 0.0])),
        ]
    ),
    "closest_pair": lambda rng: [(rng.uniform(0, 100, (64, 2)),) for _ in range(3)],
    "is_convex_polygon": lambda rng: [
        (_regular_polygon(rng, 8),),
        (_regular_polygon(rng, 8) * 2.0,),
        (_concave_octagon(),),
    ],
    "convex_hull": lambda rng: [(_ipts(rng, 50),) for _ in range(3)],
    "inverse_2x2": lambda rng: [
        ([[4.0, 7.0], [2.0, 6.0]],),
        ([[1.0, 2.0], [3.0, 4.0]],),
        (_fmat(rng, 2, 2),),
    ],
    "least_squares_line": lambda rng: [
        (x, 2.5 * x - 1 + rng.normal(0, 0.1, len(x)))
        for x in (np.linspace(0, 10, 50), rng.normal(size=50), rng.uniform(-5, 5, 50))
    ],
    "format_matrix": lambda rng: [(_fmat(rng, 3, 3),) for _ in range(3)],
    "sort_by_polar_angle": lambda rng: [(_tuples(rng.normal(size=(10, 2))),) for _ in range(3)],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE.update(
    {
        "convex_hull": "out: set(), sorted() of tuples, a closure, list append/pop with data-dependent counts",
        "inverse_2x2": "out: raises ValueError on a singular matrix",
        "least_squares_line": "out: numpy.linalg (LAPACK) call",
        "format_matrix": "out: string formatting",
        "sort_by_polar_angle": "out: sorted() with a key lambda over tuples",
    }
)


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
            try:
                result = globals()[name](*copy.deepcopy(args))
            except ValueError:
                assert name == "inverse_2x2", name
                result = ValueError
            if check is not None:
                check(name, args, result)


def _selfcheck():
    def shoelace(arr):
        x, y = arr[:, 0], arr[:, 1]
        return abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2

    def check(name, a, r):
        x = a[0]
        if name == "matrix_multiply":
            assert np.array_equal(np.array(r), np.array(x) @ np.array(a[1]))
        elif name == "matmul_int":
            assert np.array_equal(r, x.astype(np.int64) @ a[1].astype(np.int64))
        elif name == "transpose":
            assert r == [list(c) for c in zip(*x)]
        elif name == "matrix_vector":
            assert np.allclose(r, np.array(x) @ np.array(a[1]))
        elif name == "trace":
            assert math.isclose(r, float(np.trace(x)))
        elif name == "determinant_3x3":
            assert math.isclose(r, float(np.linalg.det(np.array(x, float))), abs_tol=1e-9)
        elif name == "identity":
            assert np.array_equal(np.array(r), np.eye(x, dtype=int))
        elif name == "gaussian_elimination":
            assert np.allclose(r, np.linalg.solve(x, a[1]))
        elif name == "determinant":
            assert math.isclose(r, float(np.linalg.det(x)), rel_tol=1e-9, abs_tol=1e-9)
        elif name == "lu_decomposition":
            lo, up = r
            assert np.allclose(lo @ up, x) and np.allclose(np.tril(lo), lo) and np.allclose(np.triu(up), up)
        elif name == "power_iteration":
            if a[1] >= 100:
                assert math.isclose(r, float(np.linalg.eigvalsh(x).max()), rel_tol=1e-6)
        elif name == "matrix_power_2x2":
            assert np.array_equal(
                np.array(r, dtype=object), np.linalg.matrix_power(np.array(x, dtype=object), a[1])
            )
        elif name == "rotate_matrix_90":
            assert np.array_equal(np.array(r), np.rot90(np.array(x), -1))
        elif name == "spiral_order":
            m = np.array(x)
            ref = []
            while m.size:
                ref.extend(m[0].tolist())
                m = np.rot90(m[1:])
            assert r == ref
        elif name == "polygon_area":
            assert math.isclose(r, shoelace(np.array(x)))
        elif name == "point_in_polygon":
            poly = a[1]
            # a convex-enough check: compare with a winding-number computation
            ang = np.arctan2(poly[:, 1] - x.y, poly[:, 0] - x.x)
            wind = np.sum((np.diff(np.append(ang, ang[0])) + np.pi) % (2 * np.pi) - np.pi)
            assert r == (abs(wind) > np.pi)
        elif name == "distance":
            assert math.isclose(r, math.dist(x, a[1]))
        elif name == "triangle_area":
            assert math.isclose(r, shoelace(np.array(a, float)))
        elif name == "line_intersection":
            if r is not None:
                (x1, y1), (x2, y2), (x3, y3), (x4, y4) = a
                assert abs((x2 - x1) * (r[1] - y1) - (y2 - y1) * (r[0] - x1)) < 1e-6
                assert abs((x4 - x3) * (r[1] - y3) - (y4 - y3) * (r[0] - x3)) < 1e-6
            else:
                assert a[3] == (1.0, 2.0)
        elif name == "rotate_points":
            t = math.radians(a[1])
            rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
            c = np.array(a[2])
            assert np.allclose(r, (x - c) @ rot.T + c)
        elif name == "centroid":
            assert np.allclose(r, x.mean(axis=0))
        elif name == "bounding_box":
            arr = np.array(x)
            assert r == (arr[:, 0].min(), arr[:, 1].min(), arr[:, 0].max(), arr[:, 1].max())
        elif name == "rect_overlap_area":
            ra, rb = a
            cells = {(i, j) for i in range(ra.x, ra.x + ra.w) for j in range(ra.y, ra.y + ra.h)}
            assert r == sum(
                (i, j) in cells for i in range(rb.x, rb.x + rb.w) for j in range(rb.y, rb.y + rb.h)
            )
        elif name == "manhattan_distance":
            assert math.isclose(r, float(np.abs(np.subtract(x, a[1])).sum()))
        elif name == "chebyshev_distance":
            assert math.isclose(r, float(np.abs(np.subtract(x, a[1])).max()))
        elif name == "vector_norms":
            assert np.allclose(r, [np.linalg.norm(x, 1), np.linalg.norm(x), np.linalg.norm(x, np.inf)])
        elif name == "cross_product":
            assert np.allclose(r, np.cross(x, a[1]))
        elif name == "angle_between":
            c = np.dot(x, a[1]) / np.linalg.norm(x) / np.linalg.norm(a[1])
            assert math.isclose(r, math.acos(max(-1, min(1, c))), abs_tol=1e-9)
        elif name == "closest_pair":
            d = np.linalg.norm(x[:, None] - x[None], axis=2) + np.diag([np.inf] * len(x))
            assert math.isclose(r[0], d.min()) and math.isclose(d[r[1], r[2]], d.min()) and r[1] < r[2]
        elif name == "is_convex_polygon":
            e = np.roll(x, -1, axis=0) - x
            cross = e[:, 0] * np.roll(e, -1, axis=0)[:, 1] - e[:, 1] * np.roll(e, -1, axis=0)[:, 0]
            assert r == bool(np.all(cross >= 0) or np.all(cross <= 0))
        elif name == "convex_hull":
            hull = r
            for p in set(x):
                for i in range(len(hull)):
                    o, q = hull[i], hull[(i + 1) % len(hull)]
                    assert (q[0] - o[0]) * (p[1] - o[1]) - (q[1] - o[1]) * (p[0] - o[0]) >= 0 or len(
                        hull
                    ) <= 2
        elif name == "inverse_2x2":
            if r is ValueError:
                assert np.linalg.det(np.array(x)) == 0
            else:
                assert np.allclose(np.array(r) @ np.array(x), np.eye(2))
        elif name == "least_squares_line":
            assert np.allclose(r, np.polyfit(x, a[1], 1))
        elif name == "format_matrix":
            assert len(r.splitlines()) == len(x)
        elif name == "sort_by_polar_angle":
            assert sorted(r) == sorted(x)
        else:
            raise AssertionError(f"no check for {name}")

    _run_inputs(check)
    assert np.allclose(inverse_2x2([[4.0, 7.0], [2.0, 6.0]]), [[0.6, -0.7], [-0.2, 0.4]])
    print(f"matrix_and_geometry: {len(INPUTS)} cases OK")


if __name__ == "__main__":
    _selfcheck()
