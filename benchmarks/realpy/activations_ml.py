"""Neural-network and machine-learning building blocks: activations, losses, quantisation,
dense/convolution/pooling layers written as loops, distances and tiny classifiers, in the
style of from-scratch ML tutorials, algorithm collections and edge-inference scripts."""

# ruff: noqa: RUF059  (the corpus keeps the style of the code it imitates)
import copy
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class QuantParams:
    """Affine int8 quantisation: real = scale * (q - zero_point)."""

    scale: float
    zero_point: int


def relu(vector: np.ndarray) -> np.ndarray:
    """max(0, x) element-wise."""
    return np.maximum(0, vector)


def relu_list(values: list[float]) -> list[float]:
    """ReLU over a plain list."""
    return [max(0.0, v) for v in values]


def leaky_relu(vector: np.ndarray, alpha: float) -> np.ndarray:
    """x for x > 0, alpha * x otherwise."""
    return np.where(vector > 0, vector, alpha * vector)


def sigmoid(values: list[float]) -> list[float]:
    """Logistic function with math.exp."""
    return [1 / (1 + math.exp(-v)) for v in values]


def sigmoid_stable(x: np.ndarray) -> np.ndarray:
    """Logistic function that never overflows exp."""
    out = np.zeros(len(x))
    for i in range(len(x)):
        if x[i] >= 0:
            z = math.exp(-x[i])
            out[i] = 1.0 / (1.0 + z)
        else:
            z = math.exp(x[i])
            out[i] = z / (1.0 + z)
    return out


def tangent_hyperbolic(vector: np.ndarray) -> np.ndarray:
    """tanh through the logistic identity."""
    return (2 / (1 + np.exp(-2 * vector))) - 1


def softmax(vector: np.ndarray) -> np.ndarray:
    """Softmax with the maximum subtracted for stability."""
    exponent_vector = np.exp(vector - np.max(vector))
    return exponent_vector / np.sum(exponent_vector)


def gelu(values: list[float]) -> list[float]:
    """GELU, tanh approximation."""
    c = math.sqrt(2.0 / math.pi)
    out = [0.0] * len(values)
    for i, x in enumerate(values):
        out[i] = 0.5 * x * (1.0 + math.tanh(c * (x + 0.044715 * x**3)))
    return out


def hard_sigmoid(x: np.ndarray) -> np.ndarray:
    """Piecewise-linear sigmoid relu6(x + 3) / 6, as on mobile networks."""
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = min(max(x[i] + 3.0, 0.0), 6.0) / 6.0
    return out


def swish(vector: np.ndarray, beta: float) -> np.ndarray:
    """x * sigmoid(beta * x)."""
    return vector / (1 + np.exp(-beta * vector))


def quantize_int8(x: np.ndarray, params: QuantParams) -> np.ndarray:
    """Round to the int8 grid of params, saturating."""
    q = np.round(x / params.scale) + params.zero_point
    return np.clip(q, -128, 127).astype(np.int8)


def dequantize_int8(q: np.ndarray, params: QuantParams) -> np.ndarray:
    """Back to float32."""
    return (q.astype(np.float32) - params.zero_point) * np.float32(params.scale)


def argmax(logits: list[float]) -> int:
    """Index of the largest logit (first on ties)."""
    best_index = 0
    best_value = logits[0]
    for i, v in enumerate(logits):
        if v > best_value:
            best_value = v
            best_index = i
    return best_index


def dense_layer(x: np.ndarray, weights: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """y = W x + b with explicit loops (W is out x in)."""
    n_out, n_in = weights.shape
    y = np.zeros(n_out)
    for o in range(n_out):
        acc = bias[o]
        for i in range(n_in):
            acc += weights[o, i] * x[i]
        y[o] = acc
    return y


def dense_int8(x: np.ndarray, weights: np.ndarray, bias: np.ndarray, shift: int) -> np.ndarray:
    """int8 x int8 -> int32 accumulate, add int32 bias, requantise by a right shift, ReLU."""
    n_out, n_in = weights.shape
    y = np.zeros(n_out, dtype=np.int8)
    for o in range(n_out):
        acc = int(bias[o])
        for i in range(n_in):
            acc += int(weights[o, i]) * int(x[i])
        acc >>= shift
        y[o] = min(127, max(0, acc))
    return y


def conv1d_layer(x: np.ndarray, kernels: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """'valid' 1-D convolution layer: x is (C_in, L), kernels (C_out, C_in, K)."""
    c_out, c_in, k = kernels.shape
    length = x.shape[1] - k + 1
    out = np.zeros((c_out, length))
    for o in range(c_out):
        for t in range(length):
            acc = bias[o]
            for c in range(c_in):
                for j in range(k):
                    acc += kernels[o, c, j] * x[c, t + j]
            out[o, t] = acc
    return out


def conv2d_layer(image: np.ndarray, kernels: np.ndarray, bias: np.ndarray, stride: int) -> np.ndarray:
    """'valid' 2-D convolution layer: image (C_in, H, W), kernels (C_out, C_in, KH, KW)."""
    c_out, c_in, kh, kw = kernels.shape
    _, h, w = image.shape
    out_h = (h - kh) // stride + 1
    out_w = (w - kw) // stride + 1
    out = np.zeros((c_out, out_h, out_w), dtype=np.float32)
    for o in range(c_out):
        for y in range(out_h):
            for x in range(out_w):
                region = image[:, y * stride : y * stride + kh, x * stride : x * stride + kw]
                out[o, y, x] = np.sum(region * kernels[o]) + bias[o]
    return out


def max_pool_2x2(feature_map: np.ndarray) -> np.ndarray:
    """2x2 max pooling with stride 2 (odd edges dropped)."""
    h, w = feature_map.shape
    out = np.zeros((h // 2, w // 2), dtype=feature_map.dtype)
    for i in range(h // 2):
        for j in range(w // 2):
            out[i, j] = max(
                feature_map[2 * i, 2 * j],
                feature_map[2 * i, 2 * j + 1],
                feature_map[2 * i + 1, 2 * j],
                feature_map[2 * i + 1, 2 * j + 1],
            )
    return out


def avg_pool(feature_maps: np.ndarray, size: int) -> np.ndarray:
    """size x size average pooling with stride size over (C, H, W)."""
    c, h, w = feature_maps.shape
    out = np.zeros((c, h // size, w // size))
    for ch in range(c):
        for i in range(h // size):
            for j in range(w // size):
                out[ch, i, j] = np.mean(
                    feature_maps[ch, i * size : (i + 1) * size, j * size : (j + 1) * size]
                )
    return out


def global_average_pool(feature_maps: np.ndarray) -> np.ndarray:
    """Mean of every channel of (C, H, W)."""
    return feature_maps.mean(axis=(1, 2))


def batch_norm_inference(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray, var: np.ndarray, eps: float = 1e-5
) -> np.ndarray:
    """Per-channel affine normalisation of (C, H, W) with frozen statistics."""
    out = np.empty_like(x)
    for c in range(x.shape[0]):
        scale = gamma[c] / math.sqrt(var[c] + eps)
        shift = beta[c] - mean[c] * scale
        out[c] = x[c] * scale + shift
    return out


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """Normalise a feature vector to zero mean and unit variance, then scale and shift."""
    n = len(x)
    mean = 0.0
    for v in x:
        mean += v
    mean /= n
    var = 0.0
    for v in x:
        var += (v - mean) ** 2
    var /= n
    inv = 1.0 / math.sqrt(var + eps)
    out = np.zeros(n)
    for i in range(n):
        out[i] = (x[i] - mean) * inv * gamma[i] + beta[i]
    return out


def cross_entropy(probabilities: list[float], label: int) -> float:
    """Negative log-likelihood of the true class."""
    eps = 1e-12
    return -math.log(max(probabilities[label], eps))


def categorical_cross_entropy(y_true: np.ndarray, y_pred: np.ndarray, epsilon: float = 1e-15) -> float:
    """Cross-entropy of one-hot rows against predicted probabilities, summed."""
    y_pred = np.clip(y_pred, epsilon, 1 - epsilon)
    return -np.sum(y_true * np.log(y_pred))


def mean_squared_error(y_true: list[float], y_pred: list[float]) -> float:
    """Average squared difference."""
    total = 0.0
    for t, p in zip(y_true, y_pred):
        total += (t - p) ** 2
    return total / len(y_true)


def euclidean_distance(vector_1: list[float], vector_2: list[float]) -> float:
    """L2 distance."""
    return math.sqrt(sum((a - b) ** 2 for a, b in zip(vector_1, vector_2)))


def cosine_similarity(a: np.ndarray, b: np.ndarray) -> float:
    """dot(a, b) / (|a| |b|), 0 for a zero vector."""
    dot = 0.0
    na = 0.0
    nb = 0.0
    for x, y in zip(a, b):
        dot += x * y
        na += x * x
        nb += y * y
    if na == 0 or nb == 0:
        return 0.0
    return dot / (math.sqrt(na) * math.sqrt(nb))


def knn_distances(train: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Euclidean distance from query to every training row."""
    n, d = train.shape
    dist = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(d):
            diff = train[i, j] - query[j]
            s += diff * diff
        dist[i] = math.sqrt(s)
    return dist


def nearest_neighbour(train: np.ndarray, labels: np.ndarray, query: np.ndarray) -> int:
    """Label of the closest training row (1-NN), through knn_distances."""
    dist = knn_distances(train, query)
    best = 0
    for i in range(1, len(dist)):
        if dist[i] < dist[best]:
            best = i
    return int(labels[best])


def kmeans_assign(points: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Index of the nearest centroid for every point (squared distances)."""
    labels = np.zeros(len(points), dtype=np.int32)
    for i in range(len(points)):
        best_d = math.inf
        for k in range(len(centroids)):
            d = 0.0
            for j in range(points.shape[1]):
                d += (points[i, j] - centroids[k, j]) ** 2
            if d < best_d:
                best_d = d
                labels[i] = k
    return labels


def perceptron_train(X: np.ndarray, y: np.ndarray, epochs: int, lr: float) -> np.ndarray:
    """Rosenblatt perceptron on labels in {-1, +1}; weights with the bias last."""
    n_samples, n_features = X.shape
    w = np.zeros(n_features + 1)
    for _ in range(epochs):
        errors = 0
        for i in range(n_samples):
            activation = w[n_features]
            for j in range(n_features):
                activation += w[j] * X[i, j]
            predicted = 1 if activation >= 0 else -1
            if predicted != y[i]:
                for j in range(n_features):
                    w[j] += lr * y[i] * X[i, j]
                w[n_features] += lr * y[i]
                errors += 1
        if errors == 0:
            break
    return w


def knn_classify(train: np.ndarray, labels: np.ndarray, query: np.ndarray, k: int) -> int:
    """Majority vote of the k nearest neighbours (Counter)."""
    distances = [(euclidean_distance(list(row), list(query)), int(lab)) for row, lab in zip(train, labels)]
    votes = [lab for _, lab in sorted(distances)[:k]]
    return Counter(votes).most_common(1)[0][0]


def top_k_predictions(logits: np.ndarray, k: int) -> list[tuple[float, int]]:
    """The k best (probability, class) pairs, best first."""
    probs = softmax(logits)
    pairs = [(float(p), i) for i, p in enumerate(probs)]
    return sorted(pairs, reverse=True)[:k]


class Dense:
    """A fully-connected layer object that remembers its last input (for backprop)."""

    def __init__(self, weights: np.ndarray, bias: np.ndarray):
        self.weights = weights
        self.bias = bias
        self.last_input = None

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.last_input = x
        return self.weights @ x + self.bias


def mlp_predict(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray) -> int:
    """Two-layer perceptron built from Dense objects."""
    layers = [Dense(w1, b1), Dense(w2, b2)]
    h = relu(layers[0].forward(x))
    return int(np.argmax(layers[1].forward(h)))


def encode_labels(labels: list[str]) -> list[int]:
    """Class names to integer ids in order of first appearance."""
    index: dict[str, int] = {}
    out = []
    for name in labels:
        if name not in index:
            index[name] = len(index)
        out.append(index[name])
    return out


def _f(rng, n, scale=2.0):
    return rng.normal(0, scale, n)


def _fl(rng, n, scale=2.0):
    return [float(v) for v in _f(rng, n, scale)]


def _bn(rng, c, h, w):
    return (
        rng.normal(size=(c, h, w)),
        rng.uniform(0.5, 1.5, c),
        rng.normal(0, 0.1, c),
        rng.normal(0, 0.5, c),
        rng.uniform(0.1, 2.0, c),
    )


def _blobs(rng, n, d=2):
    centers = np.array([[-2.0] * d, [2.0] * d])
    lab = rng.integers(0, 2, n)
    return centers[lab] + rng.normal(0, 0.7, (n, d)), lab


_QP = QuantParams(0.05, 3)

N = 64  # one feature-vector length for every call


def _with(values, n, rng, scale=2.0):
    """A random float vector of length n that starts with the given edge values."""
    x = _f(rng, n, scale)
    x[: len(values)] = values
    return x


INPUTS = {
    "relu": lambda rng: [(_f(rng, N),) for _ in range(2)] + [(_with([-1.0, 0.0, 1.0], N, rng),)],
    "relu_list": lambda rng: [(_fl(rng, N),) for _ in range(2)] + [([0.0] * N,)],
    "leaky_relu": lambda rng: [(_f(rng, N), a) for a in (0.01, 0.2, 0.0)],
    "sigmoid": lambda rng: (
        [(_fl(rng, N, 5.0),) for _ in range(2)] + [(list(_with([-30.0, 0.0, 30.0], N, rng)),)]
    ),
    "sigmoid_stable": lambda rng: (
        [(_f(rng, N, 50.0),) for _ in range(2)] + [(_with([-800.0, 0.0, 800.0], N, rng),)]
    ),
    "tangent_hyperbolic": lambda rng: [(_f(rng, N),) for _ in range(3)],
    "softmax": lambda rng: (
        [(_f(rng, 10, 10.0),) for _ in range(2)] + [(_with([1000.0, 1000.0, -1000.0], 10, rng),)]
    ),
    "gelu": lambda rng: [(_fl(rng, N),) for _ in range(3)],
    "hard_sigmoid": lambda rng: (
        [(_f(rng, N, 4.0),) for _ in range(2)] + [(_with([-3.0, 0.0, 3.0, 9.0], N, rng),)]
    ),
    "swish": lambda rng: [(_f(rng, N), b) for b in (1.0, 1.702, 0.0)],
    "quantize_int8": lambda rng: (
        [(_f(rng, 128, 3.0), _QP) for _ in range(2)] + [(_f(rng, 128, 100.0), QuantParams(0.1, -5))]
    ),
    "dequantize_int8": lambda rng: [(rng.integers(-128, 128, 128).astype(np.int8), _QP) for _ in range(3)],
    "argmax": lambda rng: (
        [(_fl(rng, 10),) for _ in range(2)] + [([3.0, 7.0, 7.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0],)]
    ),
    "dense_layer": lambda rng: [(_f(rng, 64), rng.normal(size=(16, 64)), _f(rng, 16)) for _ in range(3)],
    "dense_int8": lambda rng: [
        (
            rng.integers(-128, 128, 64).astype(np.int8),
            rng.integers(-128, 128, (16, 64)).astype(np.int8),
            rng.integers(-5000, 5000, 16).astype(np.int32),
            s,
        )
        for s in (8, 6, 0)
    ],
    "conv1d_layer": lambda rng: [
        (rng.normal(size=(2, 64)), rng.normal(size=(4, 2, 5)), _f(rng, 4)) for _ in range(3)
    ],
    "conv2d_layer": lambda rng: [
        (
            rng.normal(size=(3, 12, 12)).astype(np.float32),
            rng.normal(size=(4, 3, 3, 3)).astype(np.float32),
            rng.normal(size=4).astype(np.float32),
            1,
        )
        for _ in range(3)
    ],
    "max_pool_2x2": lambda rng: [(rng.normal(size=(16, 16)).astype(np.float32),) for _ in range(3)],
    "avg_pool": lambda rng: [(rng.normal(size=(4, 16, 16)), 2) for _ in range(3)],
    "global_average_pool": lambda rng: [(rng.normal(size=(8, 4, 4)),) for _ in range(3)],
    "batch_norm_inference": lambda rng: [_bn(rng, 4, 8, 8) for _ in range(3)],
    "layer_norm": lambda rng: [(_f(rng, N), rng.uniform(0.5, 1.5, N), _f(rng, N, 0.1)) for _ in range(3)],
    "cross_entropy": lambda rng: [(list(softmax(_f(rng, 10))), 3), ([0.0] * 9 + [1.0], 0), ([0.1] * 10, 9)],
    "categorical_cross_entropy": lambda rng: (
        [
            (np.eye(10)[rng.integers(0, 10, 8)], np.apply_along_axis(softmax, 1, rng.normal(size=(8, 10))))
            for _ in range(2)
        ]
        + [(np.eye(10)[np.zeros(8, int)], np.eye(10)[np.ones(8, int)])]
    ),
    "mean_squared_error": lambda rng: [(_fl(rng, N), _fl(rng, N)) for _ in range(3)],
    "euclidean_distance": lambda rng: [(_fl(rng, N), _fl(rng, N)) for _ in range(3)],
    "cosine_similarity": lambda rng: (
        [(_f(rng, N), _f(rng, N)) for _ in range(2)] + [(np.zeros(N), np.ones(N))]
    ),
    "knn_distances": lambda rng: [(rng.normal(size=(100, 4)), _f(rng, 4)) for _ in range(3)],
    "nearest_neighbour": lambda rng: [(*_blobs(rng, 100), _f(rng, 2)) for _ in range(3)],
    "kmeans_assign": lambda rng: [(rng.normal(size=(200, 2)), rng.normal(size=(4, 2))) for _ in range(3)],
    "perceptron_train": lambda rng: [
        (X, 2 * lab - 1, e, lr)
        for (X, lab), e, lr in (
            (_blobs(rng, 60), 20, 0.1),
            (_blobs(rng, 60), 20, 1.0),
            (_blobs(rng, 60), 1, 0.5),
        )
    ],
    "knn_classify": lambda rng: [(*_blobs(rng, 60), _f(rng, 2), k) for k in (5, 1, 7)],
    "top_k_predictions": lambda rng: [(_f(rng, 10), k) for k in (3, 5, 1)],
    "mlp_predict": lambda rng: [
        (_f(rng, 16), rng.normal(size=(8, 16)), _f(rng, 8), rng.normal(size=(4, 8)), _f(rng, 4))
        for _ in range(3)
    ],
    "encode_labels": lambda rng: [
        ([["cat", "dog", "bird"][v] for v in rng.integers(0, 3, 10)],) for _ in range(3)
    ],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE.update(
    {
        "knn_classify": "out: list of tuples, sorted() of tuples and a Counter vote",
        "top_k_predictions": "out: list of (float, int) tuples and sorted()",
        "mlp_predict": "out: objects of a user class whose method mutates state (Dense.forward)",
        "encode_labels": "out: strings and a dict, list.append",
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
            result = globals()[name](*copy.deepcopy(args))
            if check is not None:
                check(name, args, result)


def _selfcheck():
    def sig(v):
        return 1 / (1 + np.exp(-np.asarray(v, float)))

    def check(name, a, r):
        x = a[0]
        if name == "relu":
            assert np.array_equal(r, np.where(x > 0, x, 0))
        elif name == "relu_list":
            assert r == [v if v > 0 else 0.0 for v in x]
        elif name == "leaky_relu":
            assert np.allclose(r, np.where(x > 0, x, a[1] * x))
        elif name in ("sigmoid", "sigmoid_stable"):
            with np.errstate(over="ignore"):
                assert np.allclose(r, sig(x))
        elif name == "tangent_hyperbolic":
            assert np.allclose(r, np.tanh(x))
        elif name == "softmax":
            e = np.exp(x - x.max())
            assert np.allclose(r, e / e.sum()) and math.isclose(r.sum(), 1.0)
        elif name == "gelu":
            assert np.allclose(r, [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x], atol=1e-3)
        elif name == "hard_sigmoid":
            assert np.allclose(r, np.clip(x + 3, 0, 6) / 6)
        elif name == "swish":
            assert np.allclose(r, x * sig(a[1] * x))
        elif name == "quantize_int8":
            p = a[1]
            ref = np.clip(np.round(x / p.scale) + p.zero_point, -128, 127)
            assert np.array_equal(r, ref) and r.dtype == np.int8
        elif name == "dequantize_int8":
            assert np.allclose(r, (x.astype(float) - a[1].zero_point) * a[1].scale) and r.dtype == np.float32
        elif name == "argmax":
            assert r == int(np.argmax(x))
        elif name == "dense_layer":
            assert np.allclose(r, a[1] @ x + a[2])
        elif name == "dense_int8":
            acc = a[1].astype(np.int64) @ x.astype(np.int64) + a[2]
            assert np.array_equal(r, np.clip(acc >> a[3], 0, 127))
        elif name == "conv1d_layer":
            k = a[1].shape[2]
            ref = (
                np.array(
                    [
                        [sum(np.correlate(x[c], a[1][o, c], "valid") for c in range(x.shape[0]))]
                        for o in range(a[1].shape[0])
                    ]
                )[:, 0]
                + a[2][:, None]
            )
            assert np.allclose(r, ref) and r.shape[1] == x.shape[1] - k + 1
        elif name == "conv2d_layer":
            w, b, s = a[1], a[2], a[3]
            kh = w.shape[2]
            win = np.lib.stride_tricks.sliding_window_view(x, (kh, kh), axis=(1, 2))[:, ::s, ::s]
            ref = (
                np.einsum("cyxij,ocij->oyx", win.astype(np.float64), w.astype(np.float64)) + b[:, None, None]
            )
            assert np.allclose(r, ref, atol=1e-4)
        elif name == "max_pool_2x2":
            h, w = x.shape
            ref = x[: h // 2 * 2, : w // 2 * 2].reshape(h // 2, 2, w // 2, 2).max(axis=(1, 3))
            assert np.array_equal(r, ref)
        elif name == "avg_pool":
            c, h, w = x.shape
            k = a[1]
            ref = x[:, : h // k * k, : w // k * k].reshape(c, h // k, k, w // k, k).mean(axis=(2, 4))
            assert np.allclose(r, ref)
        elif name == "global_average_pool":
            assert np.allclose(r, x.reshape(x.shape[0], -1).mean(axis=1))
        elif name == "batch_norm_inference":
            g, b, m, v = (t[:, None, None] for t in a[1:5])
            assert np.allclose(r, (x - m) / np.sqrt(v + 1e-5) * g + b)
        elif name == "layer_norm":
            assert np.allclose(r, (x - x.mean()) / np.sqrt(x.var() + 1e-5) * a[1] + a[2])
        elif name == "cross_entropy":
            assert math.isclose(r, -math.log(max(x[a[1]], 1e-12)))
        elif name == "categorical_cross_entropy":
            assert math.isclose(r, float(-(x * np.log(np.clip(a[1], 1e-15, 1 - 1e-15))).sum()))
        elif name == "mean_squared_error":
            assert math.isclose(r, float(np.mean((np.array(x) - np.array(a[1])) ** 2)))
        elif name == "euclidean_distance":
            assert math.isclose(r, float(np.linalg.norm(np.array(x) - np.array(a[1]))), abs_tol=1e-12)
        elif name == "cosine_similarity":
            n = np.linalg.norm(x) * np.linalg.norm(a[1])
            assert math.isclose(r, float(x @ a[1] / n) if n else 0.0, abs_tol=1e-12)
        elif name == "knn_distances":
            assert np.allclose(r, np.linalg.norm(x - a[1], axis=1))
        elif name == "nearest_neighbour":
            assert r == int(a[1][np.argmin(np.linalg.norm(x - a[2], axis=1))])
        elif name == "kmeans_assign":
            d = ((x[:, None, :] - a[1][None, :, :]) ** 2).sum(axis=2)
            assert np.array_equal(r, np.argmin(d, axis=1))
        elif name == "perceptron_train":
            X, y = x, a[1]
            pred = np.where(X @ r[:-1] + r[-1] >= 0, 1, -1)
            if a[2] >= 20:
                assert np.mean(pred == y) > 0.9
        elif name == "knn_classify":
            d = np.linalg.norm(x - a[2], axis=1)
            votes = a[1][np.argsort(d, kind="stable")[: a[3]]]
            assert np.sum(votes == r) * 2 >= len(votes)
        elif name == "top_k_predictions":
            assert [i for _, i in r] == list(np.argsort(-x, kind="stable")[: a[1]])
        elif name == "mlp_predict":
            w1, b1, w2, b2 = a[1:]
            assert r == int(np.argmax(w2 @ np.maximum(w1 @ x + b1, 0) + b2))
        elif name == "encode_labels":
            names = list(dict.fromkeys(x))
            assert r == [names.index(v) for v in x]
        else:
            raise AssertionError(f"no check for {name}")

    _run_inputs(check)
    print(f"activations_ml: {len(INPUTS)} cases OK")


if __name__ == "__main__":
    _selfcheck()
