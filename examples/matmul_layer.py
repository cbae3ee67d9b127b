"""An int8 multi-layer perceptron: matrix multiply + bias + ReLU + requantisation, then argmax.

A tiny model description (text) declares the batch, the layers and the class names. Weights and
inputs are int8 and biases int32, drawn from a seeded generator as a stand-in for a trained,
quantised model. Each hidden layer computes relu(x @ W + b) with an int32 accumulator and
requantises it to int8 with a rounding right shift and saturation; the last layer keeps its int32
scores, whose row-wise argmax is the predicted class.

What `partition` sees: `dense_relu_int8`, `dense_int32` and `argmax_rows` are integer
multiply-accumulate loop nests over a few KiB of operands; parsing the model, drawing weights,
softmax confidences and the printed summary are Python work that belongs on the CPU.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import zlib

import numpy as np

DEFAULT_MODEL = """\
# int8 MLP description
input   64 x 128                   # batch x features
seed    7
dense   fc1  128 -> 128  shift=7   relu
dense   fc2  128 -> 16   logits
classes ant bee cat dog eel fox gnu hen ibis jay koi lynx mole newt owl pig
"""


# ------------------------------------------------------------------------------ FPGA candidates


def dense_relu_int8(x: np.ndarray, w: np.ndarray, bias: np.ndarray, shift: int) -> np.ndarray:
    """out = sat8(round(relu(x @ w + bias) / 2**shift)); int32 accumulation, shift >= 1."""
    out = np.zeros((x.shape[0], w.shape[1]), dtype=np.int8)
    for i in range(x.shape[0]):
        for j in range(w.shape[1]):
            acc = np.int32(bias[j])
            for k in range(x.shape[1]):
                acc += np.int32(x[i, k]) * np.int32(w[k, j])
            acc = max(acc, 0)  # ReLU
            out[i, j] = min((acc + (1 << (shift - 1))) >> shift, 127)
    return out


def dense_int32(x: np.ndarray, w: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Output layer: int32 scores x @ w + bias, no requantisation."""
    out = np.zeros((x.shape[0], w.shape[1]), dtype=np.int32)
    for i in range(x.shape[0]):
        for j in range(w.shape[1]):
            acc = np.int32(bias[j])
            for k in range(x.shape[1]):
                acc += np.int32(x[i, k]) * np.int32(w[k, j])
            out[i, j] = acc
    return out


def argmax_rows(scores: np.ndarray) -> np.ndarray:
    """Index of the largest score in each row (the first one on ties)."""
    out = np.zeros(scores.shape[0], dtype=np.int32)
    for i in range(scores.shape[0]):
        best = 0
        for j in range(1, scores.shape[1]):
            if scores[i, j] > scores[i, best]:
                best = j
        out[i] = best
    return out


# ------------------------------------------------------------------------------ CPU side


@dataclasses.dataclass(frozen=True)
class Layer:
    name: str
    inputs: int
    outputs: int
    shift: int  # requantisation shift of a relu layer; 0 for the logits layer
    relu: bool


@dataclasses.dataclass(frozen=True)
class Model:
    batch: int
    features: int
    seed: int
    layers: tuple[Layer, ...]
    classes: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Prediction:
    row: int
    label: str
    top: tuple[tuple[str, int, float], ...]  # (class, score, softmax probability), best first


def _parse_dense(fields: list[str], line_no: int) -> Layer:
    # dense <name> <in> -> <out> (shift=<n> relu | logits)
    if len(fields) not in (5, 6) or fields[2] != "->":
        raise ValueError(f"model line {line_no}: expected 'dense NAME IN -> OUT shift=N relu|logits'")
    name, n_in, _, n_out, *rest = fields
    if rest == ["logits"]:
        return Layer(name, int(n_in), int(n_out), 0, relu=False)
    if len(rest) == 2 and rest[0].startswith("shift=") and rest[1] == "relu":
        shift = int(rest[0].removeprefix("shift="))
        if not 1 <= shift <= 24:
            raise ValueError(f"model line {line_no}: shift {shift} is outside 1..24")
        return Layer(name, int(n_in), int(n_out), shift, relu=True)
    raise ValueError(f"model line {line_no}: a dense layer ends with 'shift=N relu' or 'logits'")


def parse_model(text: str) -> Model:
    """Read the model description; layer sizes must chain and only the last layer gives logits."""
    batch = features = seed = None
    layers: list[Layer] = []
    classes: tuple[str, ...] = ()
    for line_no, line in enumerate(text.splitlines(), start=1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        keyword, args = fields[0], fields[1:]
        if keyword == "input" and len(args) == 3 and args[1] == "x":
            batch, features = int(args[0]), int(args[2])
        elif keyword == "seed" and len(args) == 1:
            seed = int(args[0])
        elif keyword == "dense":
            layers.append(_parse_dense(args, line_no))
        elif keyword == "classes" and args:
            classes = tuple(args)
        else:
            raise ValueError(f"model line {line_no}: cannot read {line.strip()!r}")
    if batch is None or features is None or seed is None or not layers:
        raise ValueError("model: 'input', 'seed' and at least one 'dense' line are required")
    width = features
    for i, layer in enumerate(layers):
        if layer.inputs != width:
            raise ValueError(f"model: layer {layer.name} takes {layer.inputs} inputs, previous gives {width}")
        if layer.relu == (i == len(layers) - 1):
            raise ValueError(f"model: layer {layer.name}: hidden layers are 'relu', the last is 'logits'")
        width = layer.outputs
    if len(classes) != width:
        raise ValueError(f"model: {len(classes)} class names for {width} outputs")
    return Model(batch, features, seed, tuple(layers), classes)


def make_parameters(model: Model) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """Input batch and (weights, bias) per layer: int8 ~ N(0, 40) and N(0, 24), int32 bias."""
    rng = np.random.RandomState(model.seed)
    x = np.clip(np.round(rng.normal(0, 40, (model.batch, model.features))), -128, 127).astype(np.int8)
    params = []
    for layer in model.layers:
        w = np.clip(np.round(rng.normal(0, 24, (layer.inputs, layer.outputs))), -128, 127).astype(np.int8)
        b = rng.randint(-2048, 2048, layer.outputs).astype(np.int32)
        params.append((w, b))
    return x, params


def predictions(scores: np.ndarray, best: np.ndarray, classes: tuple[str, ...], k: int) -> list[Prediction]:
    """Top-k classes per row with softmax probabilities (scores scaled by 1/2048)."""
    result = []
    for row, (row_scores, label_index) in enumerate(zip(scores.tolist(), best.tolist())):
        peak = max(row_scores)
        weights = [math.exp((s - peak) / 2048) for s in row_scores]
        total = sum(weights)
        order = sorted(range(len(row_scores)), key=lambda c: (-row_scores[c], c))[:k]
        top = tuple((classes[c], row_scores[c], weights[c] / total) for c in order)
        result.append(Prediction(row, classes[label_index], top))
    return result


def checksum(a: np.ndarray) -> str:
    return f"crc32={zlib.crc32(a.tobytes()):08x} sum={int(a.sum(dtype=np.int64))}"


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model description file (default: the built-in one)")
    parser.add_argument("--top", type=int, default=3, help="classes shown per row (default: %(default)s)")
    parser.add_argument("--rows", type=int, default=8, help="rows shown (default: %(default)s)")
    args = parser.parse_args(argv)

    text = DEFAULT_MODEL
    if args.model:
        with open(args.model, encoding="utf-8") as f:
            text = f.read()
    try:
        model = parse_model(text)
    except ValueError as e:
        parser.error(str(e))
    x, params = make_parameters(model)

    activations = [x]
    for layer, (w, b) in zip(model.layers, params):
        if layer.relu:
            activations.append(dense_relu_int8(activations[-1], w, b, layer.shift))
        else:
            activations.append(dense_int32(activations[-1], w, b))
    scores = activations[-1]
    best = argmax_rows(scores)
    preds = predictions(scores, best, model.classes, args.top)

    counts = {name: 0 for name in model.classes}
    for p in preds:
        counts[p.label] += 1

    print(f"matmul_layer: batch {model.batch} x {model.features} int8, seed {model.seed}")
    print(f"  input     {checksum(x)}")
    for layer, (w, b), out in zip(model.layers, params, activations[1:]):
        kind = f"relu, >> {layer.shift}, int8" if layer.relu else "logits, int32"
        print(f"  {layer.name:<8}  {layer.inputs} -> {layer.outputs} ({kind})")
        print(f"    weights {checksum(w)}  bias {checksum(b)}")
        print(f"    output  {checksum(out)}")
        if layer.relu:
            print(f"    zeros {int((out == 0).sum())}  saturated {int((out == 127).sum())} of {out.size}")
    print(f"  argmax    {checksum(best)}")
    print("  class counts: " + " ".join(f"{name}={n}" for name, n in counts.items() if n))
    print(f"  first {args.rows} rows, top {args.top}:")
    for p in preds[: args.rows]:
        top = "  ".join(f"{name:>4} {score:7d} {prob:5.3f}" for name, score, prob in p.top)
        print(f"    row {p.row:2d}  {p.label:>4} | {top}")
    surest = sorted(preds, key=lambda p: (-p.top[0][2], p.row))[:3]
    print("  most confident: " + ", ".join(f"row {p.row} {p.label} {p.top[0][2]:.3f}" for p in surest))
    return {"input": x, "params": params, "activations": activations, "best": best, "predictions": preds}


if __name__ == "__main__":
    main()
