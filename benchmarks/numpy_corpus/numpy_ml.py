"""Neural-network layers in plain NumPy: the "from scratch" code of ML courses and tutorials.

Dense layers with a bias and `np.maximum` ReLU, softmax with max subtraction and `keepdims`,
layer and batch norm over an axis, convolution as loops over the output with slice windows
(`np.tensordot` over three axes), pooling by reshape, batched `@` on 3-D arrays, scaled
dot-product attention with heads split by reshape/transpose, an LSTM cell, fancy indexing for
losses and embeddings, default arguments, a nested helper, and non-maximum suppression, whose
output length depends on the boxes.
"""

import numpy as np


def dense_relu(x, W, b):
    """Fully connected layer with ReLU on a batch of row vectors."""
    return np.maximum(x @ W + b, 0)


def softmax(z, axis=-1):
    """Numerically stable softmax along an axis."""
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def mlp_forward(x, W1, b1, W2, b2):
    """Two-layer perceptron: ReLU hidden layer, softmax output probabilities."""
    h = dense_relu(x, W1, b1)
    return softmax(h @ W2 + b2)


def layer_norm(x, gamma, beta, eps=1e-5):
    """Layer normalisation over the last axis with a learned scale and shift."""
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def batch_norm_inference(x, running_mean, running_var, gamma, beta, eps=1e-5):
    """Batch normalisation at inference time on N x H x W x C activations (channels last)."""
    scale = gamma / np.sqrt(running_var + eps)
    return (x - running_mean) * scale + beta


def conv2d(x, w, b):
    """Valid 2-D convolution (cross-correlation) of an H x W x Cin map with KH x KW x Cin x Cout filters."""
    H, W, _ = x.shape
    KH, KW, _, Cout = w.shape
    out = np.zeros((H - KH + 1, W - KW + 1, Cout))
    for i in range(H - KH + 1):
        for j in range(W - KW + 1):
            out[i, j, :] = np.tensordot(x[i : i + KH, j : j + KW, :], w, axes=3) + b
    return out


def conv2d_single(img, kernel):
    """Single-channel valid 2-D convolution with an explicit window sum per output pixel."""
    kh, kw = kernel.shape
    oh = img.shape[0] - kh + 1
    ow = img.shape[1] - kw + 1
    out = np.empty((oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[i, j] = np.sum(img[i : i + kh, j : j + kw] * kernel)
    return out


def maxpool2x2(x):
    """2x2 max pooling with stride 2 of an H x W x C map."""
    H, W, C = x.shape
    return x.reshape(H // 2, 2, W // 2, 2, C).max(axis=(1, 3))


def batched_matmul(a, b):
    """A batch of matrix products: (B, M, K) @ (B, K, N) -> (B, M, N)."""
    return np.matmul(a, b)


def attention(q, k, v):
    """Scaled dot-product attention of one head."""
    d = q.shape[-1]
    scores = q @ k.T / np.sqrt(d)
    weights = softmax(scores, axis=-1)
    return weights @ v


def multi_head_attention(x, Wq, Wk, Wv, Wo, n_heads):
    """Self-attention over a sequence x (T x D) with n_heads heads split by reshape/transpose."""
    T, D = x.shape
    dh = D // n_heads
    q = (x @ Wq).reshape(T, n_heads, dh).transpose(1, 0, 2)
    k = (x @ Wk).reshape(T, n_heads, dh).transpose(1, 0, 2)
    v = (x @ Wv).reshape(T, n_heads, dh).transpose(1, 0, 2)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(dh)
    ctx = softmax(scores) @ v
    return ctx.transpose(1, 0, 2).reshape(T, D) @ Wo


def gelu(x):
    """GELU activation, tanh approximation."""
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))


def cross_entropy(logits, labels):
    """Mean cross-entropy of integer class labels under softmax(logits)."""
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(n), labels])


def sgd_momentum_step(w, grad, velocity, lr, momentum=0.9):
    """One SGD step with momentum, updating the weights and the velocity in place."""
    velocity *= momentum
    velocity -= lr * grad
    w += velocity


def top_k(scores, k):
    """Indices of the k largest scores, best first."""
    order = np.argsort(scores)[::-1]
    return order[:k]


def embedding_bag(table, ids):
    """Sum of the embedding rows of a bag of token ids."""
    return table[ids].sum(axis=0)


def lstm_cell(x, h, c, W, U, b):
    """One LSTM step; W, U, b hold the input, forget, cell and output gates side by side."""

    def sigmoid(z):
        return 1.0 / (1.0 + np.exp(-z))

    n = h.shape[0]
    z = W @ x + U @ h + b
    i = sigmoid(z[:n])
    f = sigmoid(z[n : 2 * n])
    g = np.tanh(z[2 * n : 3 * n])
    o = sigmoid(z[3 * n :])
    c_new = f * c + i * g
    h_new = o * np.tanh(c_new)
    return h_new, c_new


def nms(boxes, scores, iou_threshold):
    """Greedy non-maximum suppression of boxes (x1, y1, x2, y2); the indices kept."""
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    order = scores.argsort()[::-1]
    keep = []
    while order.size > 0:
        i = order[0]
        keep.append(int(i))
        xx1 = np.maximum(x1[i], x1[order[1:]])
        yy1 = np.maximum(y1[i], y1[order[1:]])
        xx2 = np.minimum(x2[i], x2[order[1:]])
        yy2 = np.minimum(y2[i], y2[order[1:]])
        inter = np.maximum(0.0, xx2 - xx1) * np.maximum(0.0, yy2 - yy1)
        iou = inter / (areas[i] + areas[order[1:]] - inter)
        order = order[1:][iou <= iou_threshold]
    return keep


# ---------------------------------------------------------------------------------------------


def _boxes(rng, n=24):
    xy = rng.uniform(0, 50, (n, 2))
    wh = rng.uniform(5, 20, (n, 2))
    return np.concatenate([xy, xy + wh], axis=1)


def _mha(rng, T=12, D=16):
    return (rng.normal(size=(T, D)), *(rng.normal(0, 0.3, (D, D)) for _ in range(4)))


INPUTS = {
    "dense_relu": lambda rng: [
        (rng.normal(size=(8, 32)), rng.normal(size=(32, 16)), rng.normal(size=16)) for _ in range(3)
    ],
    "softmax": lambda rng: [(rng.normal(size=(8, 10)),), (rng.normal(0, 50, (8, 10)),), (np.zeros((8, 10)),)],
    "mlp_forward": lambda rng: [
        (
            rng.normal(size=(8, 20)),
            rng.normal(size=(20, 32)),
            rng.normal(size=32),
            rng.normal(size=(32, 10)),
            rng.normal(size=10),
        )
        for _ in range(3)
    ],
    "layer_norm": lambda rng: [
        (rng.normal(3, 2, (16, 64)), rng.normal(size=64), rng.normal(size=64)) for _ in range(3)
    ],
    "batch_norm_inference": lambda rng: [
        (
            rng.normal(size=(2, 8, 8, 16)),
            rng.normal(size=16),
            rng.uniform(0.1, 2, 16),
            rng.normal(size=16),
            rng.normal(size=16),
        )
        for _ in range(3)
    ],
    "conv2d": lambda rng: [
        (rng.normal(size=(12, 12, 3)), rng.normal(size=(3, 3, 3, 8)), rng.normal(size=8)) for _ in range(3)
    ],
    "conv2d_single": lambda rng: [
        (rng.normal(size=(28, 28)), rng.normal(size=(5, 5)) * s) for s in (1.0, 0.1, 0.0)
    ],
    "maxpool2x2": lambda rng: [(rng.normal(size=(16, 16, 8)),) for _ in range(3)],
    "batched_matmul": lambda rng: [
        (rng.normal(size=(4, 8, 12)), rng.normal(size=(4, 12, 6))) for _ in range(3)
    ],
    "attention": lambda rng: [
        (rng.normal(size=(16, 32)), rng.normal(size=(16, 32)), rng.normal(size=(16, 32))) for _ in range(3)
    ],
    "multi_head_attention": lambda rng: [(*_mha(rng), h) for h in (1, 2, 4)],
    "gelu": lambda rng: [(rng.normal(0, s, 256),) for s in (0.1, 1.0, 5.0)],
    "cross_entropy": lambda rng: [(rng.normal(size=(16, 10)), rng.integers(0, 10, 16)) for _ in range(3)],
    "sgd_momentum_step": lambda rng: [
        (rng.normal(size=(16, 16)), rng.normal(size=(16, 16)), rng.normal(size=(16, 16)), 0.01)
        for _ in range(3)
    ],
    "top_k": lambda rng: [(rng.normal(size=100), 5), (np.arange(100.0), 5), (-np.arange(100.0), 5)],
    "embedding_bag": lambda rng: [
        (rng.normal(size=(50, 16)), ids)
        for ids in (rng.integers(0, 50, 8), np.zeros(8, np.int64), np.arange(42, 50))
    ],
    "lstm_cell": lambda rng: [
        (
            rng.normal(size=8),
            rng.normal(size=16),
            rng.normal(size=16),
            rng.normal(0, 0.3, (64, 8)),
            rng.normal(0, 0.3, (64, 16)),
            rng.normal(size=64),
        )
        for _ in range(3)
    ],
    "nms": lambda rng: [(_boxes(rng), rng.random(24), t) for t in (0.1, 0.3, 0.7)],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE["nms"] = "out: the kept list grows by append and the candidate array shrinks by a data-dependent mask"

# realistic model sizes: weights and activations of megabytes
REALISTIC_SIZES = {
    "dense_relu": {"x": (256, 4096), "W": (4096, 4096), "b": (4096,)},
    "mlp_forward": {"x": (256, 784), "W1": (784, 1024), "b1": (1024,), "W2": (1024, 10), "b2": (10,)},
    "layer_norm": {"x": (2048, 768), "gamma": (768,), "beta": (768,)},
    "batch_norm_inference": {"x": (32, 56, 56, 64)},
    "conv2d": {"x": (224, 224, 3), "w": (3, 3, 3, 64), "b": (64,)},
    "conv2d_single": {"img": (1080, 1920), "kernel": (5, 5)},
    "maxpool2x2": {"x": (112, 112, 64)},
    "batched_matmul": {"a": (64, 512, 512), "b": (64, 512, 512)},
    "attention": {"q": (2048, 64), "k": (2048, 64), "v": (2048, 64)},
    "multi_head_attention": {
        "x": (1024, 768),
        "Wq": (768, 768),
        "Wk": (768, 768),
        "Wv": (768, 768),
        "Wo": (768, 768),
    },
    "embedding_bag": {"table": (50000, 256), "ids": (512,)},
}


# ---------------------------------------------------------------------------------------------
# references: loops and textbook formulas


def _softmax_rows(z):
    out = np.empty_like(z)
    for idx in np.ndindex(z.shape[:-1]):
        e = [np.exp(v - max(z[idx])) for v in z[idx]]
        out[idx] = np.array(e) / sum(e)
    return out


def _ref_conv(x, w, b):
    H, W, C = x.shape
    KH, KW, _, Co = w.shape
    out = np.zeros((H - KH + 1, W - KW + 1, Co))
    for i in range(H - KH + 1):
        for j in range(W - KW + 1):
            for o in range(Co):
                out[i, j, o] = b[o] + sum(
                    x[i + a, j + bb, c] * w[a, bb, c, o]
                    for a in range(KH)
                    for bb in range(KW)
                    for c in range(C)
                )
    return out, {}


def _ref_mha(x, Wq, Wk, Wv, Wo, h):
    D = x.shape[1]
    dh = D // h
    heads = []
    for k in range(h):
        sl = slice(k * dh, (k + 1) * dh)
        q, kk, v = (x @ Wq)[:, sl], (x @ Wk)[:, sl], (x @ Wv)[:, sl]
        heads.append(_softmax_rows(q @ kk.T / np.sqrt(dh)) @ v)
    return np.concatenate(heads, axis=1) @ Wo, {}


def _ref_lstm(x, h, c, W, U, b):
    n = len(h)
    z = W @ x + U @ h + b
    sig = [1 / (1 + np.exp(-v)) for v in z]
    cn = np.array([sig[n + k] * c[k] + sig[k] * np.tanh(z[2 * n + k]) for k in range(n)])
    return (np.array([sig[3 * n + k] for k in range(n)]) * np.tanh(cn), cn), {}


def _ref_nms(boxes, scores, thr):
    def iou(a, b):
        w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
        h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
        area = lambda r: (r[2] - r[0]) * (r[3] - r[1])  # noqa: E731
        return w * h / (area(a) + area(b) - w * h)

    keep = []
    for i in sorted(range(len(scores)), key=lambda i: -scores[i]):
        if all(iou(boxes[i], boxes[j]) <= thr for j in keep):
            keep.append(i)
    return keep, {}


def _ref_layer_norm(x, g, b, eps=1e-5):
    out = np.empty_like(x)
    for r in range(len(x)):
        m = sum(x[r]) / len(x[r])
        var = sum((v - m) ** 2 for v in x[r]) / len(x[r])
        out[r] = g * (x[r] - m) / np.sqrt(var + eps) + b
    return out, {}


def _ref_sgd(w, g, v, lr, mu=0.9):
    v2 = mu * v - lr * g
    return None, {0: w + v2, 2: v2}


_REFERENCES = {
    "dense_relu": lambda x, W, b: (np.where(x @ W + b > 0, x @ W + b, 0.0), {}),
    "softmax": lambda z: (_softmax_rows(z), {}),
    "mlp_forward": lambda x, W1, b1, W2, b2: (_softmax_rows(np.maximum(x @ W1 + b1, 0) @ W2 + b2), {}),
    "layer_norm": _ref_layer_norm,
    "batch_norm_inference": lambda x, m, v, g, b: (g * (x - m) / np.sqrt(v + 1e-5) + b, {}),
    "conv2d": _ref_conv,
    "conv2d_single": lambda img, k: (
        _ref_conv(img[:, :, None], k[:, :, None, None], np.zeros(1))[0][:, :, 0],
        {},
    ),
    "maxpool2x2": lambda x: (
        np.maximum(np.maximum(x[::2, ::2], x[1::2, ::2]), np.maximum(x[::2, 1::2], x[1::2, 1::2])),
        {},
    ),
    "batched_matmul": lambda a, b: (np.stack([a[i] @ b[i] for i in range(len(a))]), {}),
    "attention": lambda q, k, v: (_softmax_rows(q @ k.T / np.sqrt(q.shape[1])) @ v, {}),
    "multi_head_attention": _ref_mha,
    "gelu": lambda x: (
        np.array([0.5 * v * (1 + np.tanh(0.7978845608028654 * (v + 0.044715 * v**3))) for v in x]),
        {},
    ),
    "cross_entropy": lambda z, y: (-np.mean([np.log(_softmax_rows(z)[i, y[i]]) for i in range(len(y))]), {}),
    "sgd_momentum_step": _ref_sgd,
    "top_k": lambda s, k: (np.array(sorted(range(len(s)), key=lambda i: -s[i])[:k]), {}),
    "embedding_bag": lambda t, ids: (sum(t[i] for i in ids), {}),
    "lstm_cell": _ref_lstm,
    "nms": _ref_nms,
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    return run_cases(globals())


if __name__ == "__main__":
    _selfcheck()
