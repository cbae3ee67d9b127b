"""The example apps run on their own, print the same text every time, and compute the right thing.

Each loop kernel of an example is checked against an independent, vectorised numpy version of the
same arithmetic: on small edge-case inputs in process, and through the checksums the app prints
when it runs as a script. The examples' CPU-side helpers (config parsing, data synthesis) are
reused to rebuild their inputs; only the kernels are re-derived here.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import zlib
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import EXAMPLES as EXAMPLE_NAMES

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load_example(name: str) -> ModuleType:
    module_name = f"example_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def checksum(a: np.ndarray) -> str:
    """The format every example prints."""
    return f"crc32={zlib.crc32(a.tobytes()):08x} sum={int(a.sum(dtype=np.int64))}"


def run_twice(name: str, tmp_path: Path) -> str:
    """Run examples/<name>.py twice at once, from a foreign directory, with warnings as errors."""
    cmd = [sys.executable, "-W", "error", str(EXAMPLES / f"{name}.py")]
    procs = [
        subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"{name} exited {proc.returncode}:\n{err}"
        assert err == "", f"{name} wrote to stderr:\n{err}"
        outputs.append(out)
    assert outputs[0] == outputs[1], f"{name} printed different text on two runs"
    assert outputs[0].strip(), f"{name} printed nothing"
    return outputs[0]


def line_after(text: str, label: str) -> str:
    """The rest of the first output line whose first word(s) are `label`."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(label + " "):
            return stripped[len(label) :].strip()
    raise AssertionError(f"no line starting with {label!r} in:\n{text}")


# ------------------------------------------------------------------------ reference kernels


def ref_fir_q15(x: np.ndarray, taps: np.ndarray) -> np.ndarray:
    full = np.convolve(x.astype(np.int64), taps.astype(np.int64))[: len(x)]
    return np.clip((full + (1 << 14)) >> 15, -32768, 32767).astype(np.int16)


def ref_frame_energy(x: np.ndarray, frame: int, shift: int) -> np.ndarray:
    frames = len(x) // frame
    squares = (x[: frames * frame].astype(np.int64) ** 2) >> shift
    return squares.reshape(frames, frame).sum(axis=1).astype(np.int32)


def ref_detect(energy: np.ndarray, threshold: int) -> np.ndarray:
    """Hysteresis as a set of run boundaries: on above threshold, off below threshold // 2."""
    state = np.where(energy > threshold, 1, np.where(energy < threshold // 2, 0, -1))
    # -1 = keep the previous state: carry the last decided state forward (start: off).
    idx = np.where(state >= 0, np.arange(len(state)), -1)
    last = np.maximum.accumulate(idx)
    return np.where(last >= 0, state[np.maximum(last, 0)], 0).astype(np.uint8)


def ref_blur(img: np.ndarray) -> np.ndarray:
    p = np.pad(img.astype(np.int32), 1, mode="edge")
    h, w = img.shape
    weights = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]])
    acc = sum(weights[di, dj] * p[di : di + h, dj : dj + w] for di in range(3) for dj in range(3))
    return ((acc + 8) >> 4).astype(np.uint8)


def ref_sobel(img: np.ndarray, shift: int) -> np.ndarray:
    p = img.astype(np.int32)
    h, w = img.shape
    win = {(di, dj): p[di : h - 2 + di, dj : w - 2 + dj] for di in range(3) for dj in range(3)}
    gx = (win[0, 2] + 2 * win[1, 2] + win[2, 2]) - (win[0, 0] + 2 * win[1, 0] + win[2, 0])
    gy = (win[2, 0] + 2 * win[2, 1] + win[2, 2]) - (win[0, 0] + 2 * win[0, 1] + win[0, 2])
    out = np.zeros((h, w), dtype=np.uint8)
    out[1:-1, 1:-1] = np.minimum((np.abs(gx) + np.abs(gy)) >> shift, 255)
    return out


def ref_otsu(hist: np.ndarray) -> int:
    levels = np.arange(256)
    below = np.cumsum(hist)[:-1].astype(np.float64)
    below_mass = np.cumsum(hist * levels)[:-1].astype(np.float64)
    total, total_mass = float(hist.sum()), float((hist * levels).sum())
    above = total - below
    with np.errstate(divide="ignore", invalid="ignore"):
        score = below * above * (below_mass / below - (total_mass - below_mass) / above) ** 2
    score[(below == 0) | (above == 0)] = -1.0
    return int(np.argmax(score))


def ref_dense(x: np.ndarray, w: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return x.astype(np.int64) @ w.astype(np.int64) + bias.astype(np.int64)


def ref_dense_relu_int8(x: np.ndarray, w: np.ndarray, bias: np.ndarray, shift: int) -> np.ndarray:
    acc = np.maximum(ref_dense(x, w, bias), 0)
    return np.minimum((acc + (1 << (shift - 1))) >> shift, 127).astype(np.int8)


# ------------------------------------------------------------------------ kernels, in process


def test_fir_kernels_on_edge_cases() -> None:
    fir = load_example("fir_pipeline")
    rng = np.random.RandomState(0)
    x = rng.randint(-32768, 32768, 300).astype(np.int16)
    x[:40] = 32767  # drives the filter into positive saturation
    x[100:140] = -32768  # and negative saturation
    taps = np.array([20000, 20000, -3, 7, 0, -1], dtype=np.int16)  # sum |taps| < 2**16
    y = fir.fir_q15(x, taps)
    expected = ref_fir_q15(x, taps)
    assert y.dtype == np.int16
    np.testing.assert_array_equal(y, expected)
    assert expected.max() == 32767 and expected.min() == -32768

    z = x[:200]
    np.testing.assert_array_equal(fir.bandpass_q15(z), ref_fir_q15(z, fir.BANDPASS_TAPS))

    np.testing.assert_array_equal(fir.decimate(x[:299], 4), x[:296:4])

    energy = fir.frame_energy(x, 16, 4)
    np.testing.assert_array_equal(energy, ref_frame_energy(x, 16, 4))
    assert energy.dtype == np.int32

    e = np.array([5, 100, 60, 40, 30, 120, 49, 51, 10, 200], dtype=np.int32)
    flags = np.full(len(e), 9, dtype=np.uint8)
    count = fir.detect_frames(e, 100, flags)
    np.testing.assert_array_equal(flags, [0, 0, 0, 0, 0, 1, 0, 0, 0, 1])
    np.testing.assert_array_equal(flags, ref_detect(e, 100))
    assert count == 2


def test_image_kernels_on_edge_cases() -> None:
    image = load_example("image_pipeline")
    rng = np.random.RandomState(1)
    img = rng.randint(0, 256, (9, 6)).astype(np.uint8)  # not square: rows and columns differ
    img[0, :] = 255
    img[:, -1] = 0
    img[4, 2] = 255
    blurred = image.gaussian_blur3(img)
    np.testing.assert_array_equal(blurred, ref_blur(img))
    for shift in (0, 2):  # shift 0 saturates at 255
        np.testing.assert_array_equal(image.sobel_magnitude(img, shift), ref_sobel(img, shift))
    assert ref_sobel(img, 0).max() == 255
    np.testing.assert_array_equal(image.histogram256(img), np.bincount(img.ravel(), minlength=256))
    np.testing.assert_array_equal(image.threshold(img, 128), (img > 128).astype(np.uint8))


def test_matmul_kernels_on_edge_cases() -> None:
    mm = load_example("matmul_layer")
    rng = np.random.RandomState(2)
    x = rng.randint(-128, 128, (5, 7)).astype(np.int8)
    w = rng.randint(-128, 128, (7, 3)).astype(np.int8)
    x[0, :] = 127
    w[:, 0] = 127  # row 0, column 0 saturates at 127
    x[1, :] = -128  # row 1, column 0 is negative: ReLU gives 0
    bias = np.array([100, -70000, 12345], dtype=np.int32)
    out = mm.dense_relu_int8(x, w, bias, 6)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, ref_dense_relu_int8(x, w, bias, 6))
    assert out[0, 0] == 127 and out[1, 0] == 0

    scores = mm.dense_int32(x, w, bias)
    np.testing.assert_array_equal(scores, ref_dense(x, w, bias))
    ties = np.array([[3, 7, 7], [9, 9, 1], [-5, -6, -4], [0, 0, 0]], dtype=np.int32)
    np.testing.assert_array_equal(mm.argmax_rows(ties), np.argmax(ties, axis=1))
    np.testing.assert_array_equal(mm.argmax_rows(scores), np.argmax(scores, axis=1))


# ------------------------------------------------------------------------ whole apps


def test_fir_pipeline_runs(tmp_path: Path) -> None:
    fir = load_example("fir_pipeline")
    out = run_twice("fir_pipeline", tmp_path)

    cfg = fir.parse_config(fir.DEFAULT_CONFIG)
    taps = fir.design_lowpass(cfg.lowpass_taps, cfg.lowpass_cutoff, cfg.sample_rate)
    assert int(taps.astype(np.int64).sum()) == 32768  # unit DC gain
    x = fir.synthesize_signal(cfg)
    lowpassed = ref_fir_q15(x, taps)
    decimated = lowpassed[:: cfg.decimate][: len(lowpassed) // cfg.decimate]
    channel = ref_fir_q15(decimated, fir.BANDPASS_TAPS)
    energy = ref_frame_energy(channel, cfg.frame, cfg.frame.bit_length() - 1)
    threshold = cfg.detect_ratio * int(np.sort(energy)[len(energy) // 2])
    flags = ref_detect(energy, threshold)

    assert line_after(out, "input").startswith(checksum(x))
    assert line_after(out, "decimated").startswith(checksum(decimated))
    assert line_after(out, "channel") == checksum(channel)
    assert line_after(out, "energy").startswith(checksum(energy))
    assert line_after(out, "threshold") == str(threshold)
    assert line_after(out, "active") == f"{int(flags.sum())} frames"
    assert line_after(out, "frames") == "".join("#" if f else "." for f in flags)
    # The detector finds each configured burst, within two frames of its configured span.
    frame_ms = 1000 * cfg.frame * cfg.decimate / cfg.sample_rate
    rows = re.findall(r"^\s+\d+\s+([\d.]+)\s+([\d.]+)\s+\d+\s+\d+-\d+$", out, re.MULTILINE)
    assert len(rows) == len(cfg.bursts)
    for (start, end), (want_start, want_end) in zip(rows, cfg.bursts):
        assert abs(float(start) - want_start) <= 2 * frame_ms
        assert abs(float(end) - want_end) <= 2 * frame_ms


def test_image_pipeline_runs(tmp_path: Path) -> None:
    image = load_example("image_pipeline")
    out = run_twice("image_pipeline", tmp_path)

    img = image.render_scene(image.parse_scene(image.DEFAULT_SCENE), seed=11, noise=18.0)
    blurred = ref_blur(img)
    edges = ref_sobel(blurred, 2)
    hist = np.bincount(blurred.ravel(), minlength=256).astype(np.int32)
    level = ref_otsu(hist)
    binary = (blurred > level).astype(np.uint8)
    edge_hist = np.bincount(edges.ravel(), minlength=256).astype(np.int32)

    assert line_after(out, "input") == checksum(img)
    assert line_after(out, "blurred") == checksum(blurred)
    assert line_after(out, "edges") == checksum(edges)
    assert line_after(out, "hist") == checksum(hist)
    assert line_after(out, "otsu") == f"level {level}"
    assert line_after(out, "binary") == f"{checksum(binary)} ({int(binary.sum())} foreground pixels)"
    assert line_after(out, "edge hist") == f"{checksum(edge_hist)} (saturated: {int(edge_hist[255])})"
    # Every painted shape is found as its own region; their areas cannot exceed the foreground.
    shapes = image.parse_scene(image.DEFAULT_SCENE)
    assert line_after(out, "regions:").startswith(f"{len(shapes)} ")
    areas = [int(a) for a in re.findall(r"^\s+\d+\s+(\d+)\s+\(", out, re.MULTILINE)]
    assert len(areas) == len(shapes)
    assert areas == sorted(areas, reverse=True) and sum(areas) <= int(binary.sum())


def test_matmul_layer_runs(tmp_path: Path) -> None:
    mm = load_example("matmul_layer")
    out = run_twice("matmul_layer", tmp_path)

    model = mm.parse_model(mm.DEFAULT_MODEL)
    x, params = mm.make_parameters(model)
    act = x
    outputs = []
    for layer, (w, b) in zip(model.layers, params):
        if layer.relu:
            act = ref_dense_relu_int8(act, w, b, layer.shift)
        else:
            act = ref_dense(act, w, b).astype(np.int32)
        outputs.append(act)
    best = np.argmax(act, axis=1).astype(np.int32)

    assert line_after(out, "input") == checksum(x)
    printed = re.findall(r"^\s+output\s+(crc32=\S+ sum=-?\d+)$", out, re.MULTILINE)
    assert printed == [checksum(o) for o in outputs]
    assert line_after(out, "argmax") == checksum(best)
    counts = np.bincount(best, minlength=len(model.classes))
    expected_counts = " ".join(f"{name}={n}" for name, n in zip(model.classes, counts) if n)
    assert line_after(out, "class counts:") == expected_counts


# the option through which each example reads its input description from a file
INPUT_OPTION = {"fir_pipeline": "--config", "image_pipeline": "--scene", "matmul_layer": "--model"}


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_bad_input_is_reported_not_raised(name: str, tmp_path: Path) -> None:
    """A broken config file is an argparse error (exit 2, message naming the line), no traceback."""
    option = INPUT_OPTION[name]
    bad = tmp_path / "bad.txt"
    bad.write_text("# comment\nthis is not valid = =\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py"), option, str(bad)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "line 2" in proc.stderr
    assert "Traceback" not in proc.stderr
