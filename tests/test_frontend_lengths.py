"""Arrays whose leading length varies between calls: one kernel for the longest, the length
in a register (`ir.Param.dyn`), right for every length up to it.

Each function is profiled with three lengths and then run through the IR interpreter on
lengths it never saw: 1, odd ones, ones that are no multiple of anything, the longest.
Where Python raises (an index past a shorter array's end), the kernel must hand the call
back to the CPU (its fallback status), never compute something."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
from frontend_util import csim_pass, profile_calls

from partition import ir
from partition.frontend import Rejected, translate
from partition.interp import execute
from partition.vectors import padded

APP_DIR = Path(__file__).parent
rng = np.random.default_rng(7)


def prefix_sum(xs):
    out = np.zeros_like(xs)
    total = 0
    for i in range(len(xs)):
        total += xs[i]
        out[i] = total
    return out


def dot(a, b):
    acc = 0
    for i in range(len(a)):
        acc += int(a[i]) * int(b[i])
    return acc


def pairwise_products(x):
    s = 0
    for i in range(0, len(x), 2):
        s += x[i] * x[i + 1]
    return s


def span(x):
    return int(x[-1]) - int(x[0])


def row_sums(img):
    h, w = img.shape
    out = np.zeros(h, dtype=np.int32)
    for r in range(h):
        acc = 0
        for c in range(w):
            acc += img[r, c]
        out[r] = acc
    return out


def scale_clip(x, gain):
    y = x * gain
    return np.clip(y, -1000, 1000)


def count_above(x, level):
    return int(np.sum(x > level))


def smooth3(x):
    n = len(x)
    out = np.zeros(n, dtype=np.int32)
    for i in range(1, n - 1):
        out[i] = (int(x[i - 1]) + 2 * int(x[i]) + int(x[i + 1])) // 4
    out[0] = x[0]
    out[n - 1] = x[n - 1]
    return out


def normalise(x):
    m = x.mean()
    return (x - m) / (x.std() + 1e-9)


def peak_index(x):
    best = 0
    for i in range(1, len(x)):
        if x[i] > x[best]:
            best = i
    return best


def rectify_in_place(x):
    for i in range(len(x)):
        if x[i] < 0:
            x[i] = -x[i]


def reverse(x):
    return x[::-1].copy()


def rising_steps(x):
    return int(np.sum(x[1:] > x[:-1]))


def tail_energy(x):
    return int(np.sum(x[-4:].astype(np.int64) ** 2))


def steps(x):
    return x[1:] - x[:-1]


def slopes(x):
    return np.diff(x)


def moving_sum4(x):
    out = np.zeros(len(x) - 3, dtype=np.int32)
    for i in range(len(x) - 3):
        out[i] = int(x[i]) + int(x[i + 1]) + int(x[i + 2]) + int(x[i + 3])
    return out


def argmax_enumerated(x):
    best, at = x[0], 0
    for i, v in enumerate(x):
        if v > best:
            best, at = v, i
    return at


def zipped_mac(a, b):
    s = 0
    for p, q in zip(a, b):
        s += int(p) * int(q)
    return s


def i32(n):
    return rng.integers(-1000, 1000, n).astype(np.int32)


def i16(n):
    return rng.integers(-3000, 3000, n).astype(np.int16)


CASES = {
    "prefix_sum": (prefix_sum, lambda n: (i32(n),)),
    "dot": (dot, lambda n: (i16(n), i16(n))),
    "pairwise_products": (pairwise_products, lambda n: (i32(n),)),
    "span": (span, lambda n: (i16(n),)),
    "row_sums": (row_sums, lambda n: (rng.integers(0, 255, (n, 8)).astype(np.uint8),)),
    "scale_clip": (scale_clip, lambda n: (i32(n), 3)),
    "count_above": (count_above, lambda n: (i16(n), 100)),
    "smooth3": (smooth3, lambda n: (i16(n),)),
    "normalise": (normalise, lambda n: (rng.normal(size=n),)),
    "peak_index": (peak_index, lambda n: (i32(n),)),
    "rectify_in_place": (rectify_in_place, lambda n: (i32(n),)),
    "reverse": (reverse, lambda n: (i16(n),)),
    "rising_steps": (rising_steps, lambda n: (i32(n),)),
    "tail_energy": (tail_energy, lambda n: (i16(n),)),
    "steps": (steps, lambda n: (i32(n),)),
    "slopes": (slopes, lambda n: (i16(n),)),
    "moving_sum4": (moving_sum4, lambda n: (i16(n),)),
    "argmax_enumerated": (argmax_enumerated, lambda n: (i32(n),)),
    "zipped_mac": (zipped_mac, lambda n: (i16(n), i16(n))),
    "zipped_unequal": (zipped_mac, lambda n: (i16(n), i16(n + 3))),
}
# lengths the C and RTL simulations add to the profiled ones (where Python raises on some, others)
EXTRA = {"pairwise_products": (2, 8, 34), "moving_sum4": (4, 7, 33)}
PROFILED = (6, 20, 64)  # all even: pairwise_products must still be right for odd lengths
TRIED = (1, 2, 3, 7, 20, 33, 63, 64)


def run_kernel(k: ir.Kernel, args: tuple):
    """The kernel on `args` as the host runs it: arrays in the longest buffers, the lengths in
    their registers; (status, return value, {param: first rows of each written array})."""
    inputs = {}
    for p in k.params:
        kind, pos = p.origin
        if kind == "dim":
            inputs[p.name] = len(args[pos])
        elif kind == "arg":
            inputs[p.name] = padded(p, np.asarray(args[pos])) if p.kind == "array" else args[pos]
    run = execute(k, inputs, max_steps=10**7)
    rows = {}
    for p in k.arrays:
        rows[p.name] = run.arrays[p.name][: ir.dyn_rows(p, inputs.get(p.dyn, 0))]
    return run.status, run.ret, rows


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_length_up_to_the_longest(name):
    fn, make = CASES[name]
    fp = profile_calls(fn, [make(n) for n in PROFILED], APP_DIR)
    k = translate(fp, APP_DIR)
    assert not isinstance(k, Rejected), k.reason
    assert any(p.dyn for p in k.arrays) and max(p.shape[0] for p in k.arrays) >= max(PROFILED)
    for n in TRIED:
        args = make(n)
        mine = copy.deepcopy(args)
        try:
            want = fn(*mine)
        except (IndexError, ValueError):
            status, _, _ = run_kernel(k, args)
            assert status == 1, (name, n, "Python raises; the kernel must hand the call back")
            continue
        status, ret, rows = run_kernel(k, args)
        assert status in (0, None), (name, n)
        for kind, what in k.returns:
            got = ret if kind == "scalar" else rows[what]
            if isinstance(want, np.ndarray) and want.dtype.kind == "f":
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
            else:
                assert np.array_equal(np.asarray(got), np.asarray(want)), (name, n, got, want)
        for p in k.arrays:
            if p.origin[0] == "arg" and p.direction != "in":
                assert np.array_equal(rows[p.name], mine[p.origin[1]]), (name, n)


def test_arrays_equally_long_in_every_call_share_a_register():
    k = translate(profile_calls(dot, [(i16(n), i16(n)) for n in PROFILED], APP_DIR), APP_DIR)
    regs = {p.dyn for p in k.arrays}
    assert len(regs) == 1 and [p.name for p in k.params if p.pytype == "dim"] == list(regs)
    assert length_checks(k) == 0  # b[i] is proven in bounds: b is as long as a (the host checks)


def length_checks(k: ir.Kernel) -> int:
    """How many comparisons with a run-time length register the kernel's conditions make."""
    regs = {p.name for p in k.params if p.pytype == "dim"}
    n = 0
    for s in ir.walk_stmts(k.body):
        if isinstance(s, ir.If):
            for x in ir.walk_expr(s.cond):
                if isinstance(x, ir.Cmp) and any(
                    isinstance(v, ir.Var) and v.name in regs for v in ir.walk_expr(x.rhs)
                ):
                    n += 1
    return n


def test_unchecked_when_proven_checked_otherwise():
    k = translate(profile_calls(prefix_sum, [(i32(n),) for n in PROFILED], APP_DIR), APP_DIR)
    assert k.status is None
    k = translate(profile_calls(smooth3, [(i16(n),) for n in PROFILED], APP_DIR), APP_DIR)
    assert length_checks(k) == 0  # x[i + 1] below n - 1 + 1, out[n - 1]
    k = translate(profile_calls(pairwise_products, [(i32(n),) for n in PROFILED], APP_DIR), APP_DIR)
    assert length_checks(k) == 1  # x[i + 1] may be x[n] for an odd n


def test_only_the_leading_length_may_vary():
    k = translate(profile_calls(row_sums, [(np.zeros((4, w), np.uint8),) for w in (8, 16)], APP_DIR), APP_DIR)
    assert isinstance(k, Rejected) and "first dimension" in k.reason


def test_csim(tmp_path):
    cases = {}
    for name in ("prefix_sum", "pairwise_products", "row_sums", "smooth3"):
        fn, make = CASES[name]
        cases[name] = (fn, [make(n) for n in (*PROFILED, *EXTRA.get(name, (1, 7, 33)))])
    csim_pass(tmp_path, cases)


RTL_CASES = (
    "prefix_sum",
    "dot",
    "pairwise_products",
    "row_sums",
    "smooth3",
    "span",
    "rectify_in_place",
    "reverse",
    "rising_steps",
    "tail_energy",
    "steps",
    "moving_sum4",
)


@pytest.fixture(scope="module")
def backends(tmp_path_factory) -> dict:
    """C simulation and (integer kernels) RTL simulation through the AXI interfaces, where a
    store past a shorter array's rows shows: those rows start as the expected outputs have
    them and the whole memory is compared after each call."""
    import inspect
    import shutil

    from partition.boards import load_board
    from partition.fuzz import Case, rtlsim, run

    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    work = tmp_path_factory.mktemp("lengths")
    app, csim_dir, rtl_dir = work / "app", work / "csim", work / "rtl"
    for d in (app, csim_dir, rtl_dir):
        d.mkdir()
    board = load_board("pynq-z2")
    source = "import numpy as np\n\n\n" + "\n\n".join(inspect.getsource(CASES[n][0]) for n in RTL_CASES)
    prepared = []
    for k, name in enumerate(RTL_CASES):
        make = CASES[name][1]
        lengths = (*PROFILED, *EXTRA.get(name, (1, 7, 33)))
        case = Case(k, name, source, [make(n) for n in lengths], False, [])
        prepared.append(
            run.prepare_case(case, app, csim_dir, rtl_dir if rtlsim.available() else None, board, 200_000)
        )
    run.backends(prepared, csim_dir, rtl_dir, keep=False)
    return {p.result.name: p.result for p in prepared}


@pytest.mark.parametrize("name", RTL_CASES)
def test_csim_and_rtl_agree_with_python(backends, name):
    from partition.fuzz import rtlsim

    r = backends[name]
    assert r.status == "accepted", r.reason
    assert r.stages.get("csim") == "pass", r.details
    if rtlsim.available():
        assert r.stages.get("rtl") == "pass", r.details


def test_max_shape_builds_the_kernel_for_a_longer_array():
    from partition.errors import PartitionError
    from partition.plan.shapes import parse_max_shape, with_max_shapes
    from partition.profile.model import Profile

    fp = profile_calls(prefix_sum, [(i32(64),)], APP_DIR)  # one length profiled
    fp.name = "prefix_sum"
    prof = Profile("app.py", [], {}, 1.0, None, {"prefix_sum": fp}, [])
    wide = with_max_shapes(prof, [parse_max_shape("prefix_sum:xs=1000")])
    assert fp.arg_sigs[0]["shape"] == [64]  # the profile itself is left as it was
    k = translate(wide.functions["prefix_sum"], APP_DIR)
    assert not isinstance(k, Rejected) and k.param("xs").shape == (1000,) and k.param("xs").dyn
    for bad, says in (
        ("prefix_sum:xs", "FUNCTION:ARG=DIMS"),
        ("prefix_sum:xs=10x4", "only the first length"),
        ("prefix_sum:xs=8", "more than 8"),
        ("prefix_sum:ys=100", "no profiled argument ys"),
        ("other:xs=100", "no function other"),
    ):
        with pytest.raises(PartitionError, match=says):
            with_max_shapes(prof, [parse_max_shape(bad)])
