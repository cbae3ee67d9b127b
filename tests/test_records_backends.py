"""Record arguments through both backends: kernels taking tuples, namedtuples, dataclasses and
lists of tuples agree with Python in C simulation (g++ of the Vitis HLS C++) and, the integer
ones, in RTL simulation (the built-in RTL under Icarus, driven through its AXI interfaces), on
exactly the fuzzer's path (partition.fuzz.run); and the fuzzer generates such parameters.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from partition.boards import load_board
from partition.frontend import Rejected, translate
from partition.fuzz import Case, golden, rtlsim, run
from partition.fuzz.gen import generate

HEADER = """
from collections import namedtuple
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

Point = namedtuple("Point", ["x", "y"])


class Biquad(NamedTuple):
    b0: float
    b1: float
    b2: float
    a1: float
    a2: float


@dataclass
class Rect:
    x: int
    y: int
    w: int
    h: int
"""

Point = __import__("collections").namedtuple("Point", ["x", "y"])


class Biquad(NamedTuple):
    b0: float
    b1: float
    b2: float
    a1: float
    a2: float


@dataclass
class Rect:
    x: int
    y: int
    w: int
    h: int


I16 = np.int16

# name -> (source of the function, calls, integer kernel: also RTL)
CASES = {
    "rect_overlap_area": (
        """
def rect_overlap_area(a: Rect, b: Rect) -> int:
    dx = min(a.x + a.w, b.x + b.w) - max(a.x, b.x)
    dy = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    if dx <= 0 or dy <= 0:
        return 0
    return dx * dy
""",
        [(Rect(0, 0, 10, 10), Rect(5, 5, 10, 10)), (Rect(0, 0, 4, 4), Rect(4, 0, 4, 4)),
         (Rect(-3, -3, 20, 2), Rect(0, -10, 3, 30)), (Rect(-100, 50, 120, 90), Rect(-90, 60, 7, 9))],
        True,
    ),
    "window_sum": (
        """
def window_sum(img, kernel_size, origin):
    kh, kw = kernel_size
    oy, ox = origin
    h, w = img.shape
    out = np.zeros((h - kh + 1, w - kw + 1), dtype=np.int32)
    for y in range(h - kh + 1):
        for x in range(w - kw + 1):
            s = 0
            for i in range(kh):
                for j in range(kw):
                    s += int(img[y + i, x + j])
            out[y, x] = s - oy * ox
    return out
""",
        [(np.arange(48, dtype=I16).reshape(6, 8) - 20, (3, 3), (k, 2 * k - 5)) for k in range(3)],
        True,
    ),
    "horner_pick": (
        """
def horner_pick(x, coeffs):
    out = np.zeros(len(x), dtype=np.int64)
    for i in range(len(x)):
        acc = 0
        for c in coeffs:
            acc = acc * int(x[i]) + c
        out[i] = acc - coeffs[i % len(coeffs)] + max(coeffs) * len(coeffs) - coeffs[-1]
    return out
""",
        [(np.array([3, -2, 7, 0, -9, 11, 5], I16), c) for c in ((3, -2, 5, 1), (1, 0, -4, 7), (-9, 9, -9, 9))],
        True,
    ),
    "points_moment": (
        """
def points_moment(points, center):
    cx, cy = center
    s = 0
    for x, y in points:
        s += (x - cx) * (y - cy)
    px, py = points[0]
    return s + points[len(points) - 1][1] * px - py
""",
        [([(int(a), int(b)) for a, b in np.random.default_rng(k).integers(-99, 99, (9, 2))], (k, -k))
         for k in range(3)],
        True,
    ),
    "triangle_area": (
        """
def triangle_area(a: Point, b: Point, c: Point) -> float:
    return abs((b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)) / 2.0
""",
        [tuple(Point(*map(float, p)) for p in tri) for tri in np.random.default_rng(3).normal(0, 10, (3, 3, 2))],
        False,
    ),
    "biquad_df2t": (
        """
def biquad_df2t(x, coeffs: Biquad):
    out = np.empty_like(x)
    s1 = 0.0
    s2 = 0.0
    for i in range(len(x)):
        xn = x[i]
        yn = coeffs.b0 * xn + s1
        s1 = coeffs.b1 * xn - coeffs.a1 * yn + s2
        s2 = coeffs.b2 * xn - coeffs.a2 * yn
        out[i] = yn
    return out
""",
        [(np.random.default_rng(k).normal(size=40), Biquad(0.2 + k, 0.4, 0.2, -0.5 + k / 4, 0.25))
         for k in range(3)],
        False,
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, run.CaseResult]:
    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    work = tmp_path_factory.mktemp("records")
    app, csim_dir, rtl_dir = work / "app", work / "csim", work / "rtl"
    app.mkdir()
    csim_dir.mkdir()
    board = load_board("pynq-z2")
    use_rtl = rtlsim.available()
    prepared = []
    for k, (name, (src, calls, integer)) in enumerate(CASES.items()):
        case = Case(k, name, HEADER.lstrip() + src, list(calls), not integer)
        prepared.append(
            run.prepare_case(case, app, csim_dir, rtl_dir if integer and use_rtl else None, board)
        )
    run.backends(prepared, csim_dir, rtl_dir, keep=False)
    for p in prepared:
        run.triage(p)
    return {p.result.name: p.result for p in prepared}


@pytest.mark.parametrize("name", sorted(CASES))
def test_record_kernel_agrees_with_python(outcomes, name):
    r = outcomes[name]
    _src, calls, integer = CASES[name]
    assert r.status == "accepted", r.reason
    assert r.vectors >= len(calls), r.details
    assert r.stages.get("csim") == "pass", r.details
    if integer and rtlsim.available():
        assert r.stages.get("rtl") == "pass", r.details


def test_fuzzer_generates_record_parameters():
    """Over a few hundred seeds: every kind of record, read every way, with compiled-in fields."""
    seen: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as d:
        for seed in range(400):
            case = generate(seed)
            if not any(f.startswith("record") for f in case.features):
                continue
            seen.update(f for f in case.features if "record" in f)
            if seen["accepted"] >= 25:
                continue
            g = golden.run_golden(case, Path(d))
            if g.error:
                continue
            k = translate(g.functions[case.name], Path(d), g.functions)
            if isinstance(k, Rejected):
                continue
            seen["accepted"] += 1
            seen["field parameters"] += any(p.field is not None for p in k.params)
            seen["compiled-in fields"] += any(st.constants for st in k.structs.values())
    kinds = ("record tuple", "record namedtuple", "record dataclass", "record unpacking", "record index",
             "record minmax", "for v in record")  # fmt: skip
    assert all(seen[k] >= 3 for k in kinds), seen
    assert seen["accepted"] == 25 and seen["field parameters"] >= 15 and seen["compiled-in fields"] >= 5, seen


# ------------------------------------------------------------------ the whole app, kernel in RTL

APPS = Path(__file__).parent / "cli_apps"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def records_tree(tmp_path_factory) -> Path:
    import subprocess
    import sys

    d = tmp_path_factory.mktemp("records-cosim")
    prof, tree = d / "p.json", d / "tree"
    py = [sys.executable, "-m", "partition"]
    app = str(APPS / "records_app.py")
    subprocess.run([*py, "profile", app, "--out", str(prof), "--no-baseline", "--", "0"],
                   check=True, capture_output=True, cwd=ROOT)  # fmt: skip
    subprocess.run([*py, "plan", app, "--board", "pynq-z2", "--profile", str(prof), "--out", str(tree),
                    "--pin-fpga", "box_energy", "--quiet"], check=True, capture_output=True, cwd=ROOT)  # fmt: skip
    return tree


def test_records_app_cosim_falls_back_on_other_records(verilator_env, records_tree):
    """The app through the generated host code with its kernel in RTL (the runtime's `sim` backend):
    the calls with the profiled kinds of record run in the RTL, a call with another compiled-in
    value or a field of another type runs on the CPU, and the output equals a plain CPU run."""
    from partition.sim.cosim import cosim

    r = cosim(records_tree, args=["1"])
    assert r["status"] == "pass", r.get("detail")
    assert r["output_matches_cpu_run"] and r["kernels"] == ["box_energy"]
    st = r["run_app"]["tasks"]["box_energy"]
    assert st["calls"] == 3 and st["fallbacks"] == 2, st
    assert set(st["fallback_reasons"]) == {
        "argument scale.0 = 3; the kernel has 2 compiled in",
        "argument offset.x is float, the kernel takes a Python int",
    }
