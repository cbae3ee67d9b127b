"""Tiny CNN inference on 16x16 synthetic glyphs (horizontal bar, vertical bar, cross, box):
conv 3x3 -> ReLU -> 2x2 max pool -> dense -> softmax, in float, and the dense layer again in
int8 with requantisation, the way an edge-inference script prototypes its accelerator."""

from dataclasses import dataclass

import numpy as np

CLASSES = 4


@dataclass(frozen=True)
class QuantParams:
    scale: float
    zero_point: int


def make_glyph(rng: np.random.Generator, label: int) -> np.ndarray:
    """One noisy 16x16 glyph of the given class."""
    img = np.zeros((16, 16), dtype=np.float32)
    c = int(rng.integers(5, 11))
    if label == 0:
        img[c - 1 : c + 1, 2:14] = 1
    elif label == 1:
        img[2:14, c - 1 : c + 1] = 1
    elif label == 2:
        img[c - 1 : c + 1, 2:14] = 1
        img[2:14, c - 1 : c + 1] = 1
    else:
        img[3:13, 3] = img[3:13, 12] = 1
        img[3, 3:13] = img[12, 3:13] = 1
    return img + rng.normal(0, 0.2, (16, 16)).astype(np.float32)


def conv2d(image: np.ndarray, kernels: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """'valid' convolution of a (H, W) image with (C, 3, 3) kernels."""
    c_out, kh, kw = kernels.shape
    h, w = image.shape
    out = np.zeros((c_out, h - kh + 1, w - kw + 1), dtype=np.float32)
    for o in range(c_out):
        for y in range(h - kh + 1):
            for x in range(w - kw + 1):
                out[o, y, x] = np.sum(image[y : y + kh, x : x + kw] * kernels[o]) + bias[o]
    return out


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)


def max_pool_2x2(fmap: np.ndarray) -> np.ndarray:
    """2x2/2 max pooling of (C, H, W)."""
    c, h, w = fmap.shape
    out = np.zeros((c, h // 2, w // 2), dtype=fmap.dtype)
    for ch in range(c):
        for i in range(h // 2):
            for j in range(w // 2):
                out[ch, i, j] = max(
                    fmap[ch, 2 * i, 2 * j],
                    fmap[ch, 2 * i, 2 * j + 1],
                    fmap[ch, 2 * i + 1, 2 * j],
                    fmap[ch, 2 * i + 1, 2 * j + 1],
                )
    return out


def dense(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """W x + b with loops."""
    out = np.zeros(w.shape[0])
    for o in range(w.shape[0]):
        acc = b[o]
        for i in range(w.shape[1]):
            acc += w[o, i] * x[i]
        out[o] = acc
    return out


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def argmax(v: np.ndarray) -> int:
    best = 0
    for i in range(1, len(v)):
        if v[i] > v[best]:
            best = i
    return best


def quantize(x: np.ndarray, p: QuantParams) -> np.ndarray:
    return np.clip(np.round(x / p.scale) + p.zero_point, -128, 127).astype(np.int8)


def dense_int8(x: np.ndarray, w: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """int8 x int8 -> int32 accumulators (symmetric, zero points 0)."""
    acc = np.zeros(w.shape[0], dtype=np.int32)
    for o in range(w.shape[0]):
        s = int(bias[o])
        for i in range(w.shape[1]):
            s += int(w[o, i]) * int(x[i])
        acc[o] = s
    return acc


def features(img: np.ndarray, kernels: np.ndarray, kbias: np.ndarray) -> np.ndarray:
    return max_pool_2x2(relu(conv2d(img, kernels, kbias))).reshape(-1)


def train_readout(feats: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares readout weights (one-hot targets) with a ridge term."""
    x = np.hstack([feats, np.ones((len(feats), 1))])
    y = np.eye(CLASSES)[labels]
    wb = np.linalg.solve(x.T @ x + 1e-2 * np.eye(x.shape[1]), x.T @ y)
    return wb[:-1].T.copy(), wb[-1].copy()


def main() -> None:
    rng = np.random.default_rng(2)
    kernels = (
        np.array(
            [
                [[-1, -1, -1], [2, 2, 2], [-1, -1, -1]],
                [[-1, 2, -1], [-1, 2, -1], [-1, 2, -1]],
                [[0, 1, 0], [1, -4, 1], [0, 1, 0]],
                [[1, 1, 1], [1, 1, 1], [1, 1, 1]],
            ],
            dtype=np.float32,
        )
        / 3
    )
    kbias = np.zeros(4, dtype=np.float32)
    train_labels = rng.integers(0, CLASSES, 40)
    train_feats = np.array([features(make_glyph(rng, int(lab)), kernels, kbias) for lab in train_labels])
    w, b = train_readout(train_feats, train_labels)

    test_labels = rng.integers(0, CLASSES, 24)
    wq_params = QuantParams(float(np.abs(w).max()) / 127, 0)
    wq = quantize(w, wq_params)
    correct = correct_q = agree = 0
    confidence = 0.0
    for label in test_labels:
        f = features(make_glyph(rng, int(label)), kernels, kbias)
        probs = softmax(dense(f, w, b))
        pred = argmax(probs)
        confidence += probs[pred]
        xq_params = QuantParams(float(np.abs(f).max()) / 127 or 1.0, 0)
        fq = quantize(f, xq_params)
        bq = np.round(b / (wq_params.scale * xq_params.scale)).astype(np.int32)
        pred_q = argmax(dense_int8(fq, wq, bq))
        correct += pred == label
        correct_q += pred_q == label
        agree += pred == pred_q
    n = len(test_labels)
    print(f"float accuracy {correct}/{n}, int8 accuracy {correct_q}/{n}, agreement {agree}/{n}")
    print(
        f"mean top-class probability {confidence / n:.3f} (readout logits are near one-hot, so softmax is soft)"
    )


if __name__ == "__main__":
    main()
