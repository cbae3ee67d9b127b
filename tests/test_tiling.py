"""Arrays tiled through DDR (`tiled` variants): on-chip RAM that no longer grows with the data.

A loop's passes over arrays by rows run a tile at a time: rows copied in from DDR, the
iterations on the tile buffer, rows copied back (`ir.Copy`). The tiled IR must compute
exactly what the kernel does on every vector (the interpreter), C simulation and the
built-in RTL (through its AXI interfaces, copies started from the compute FSM) must pass
every vector, and the estimate must keep the buffers a tile's size, so a pass over a
million elements fits the board where the whole-array variant cannot.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from frontend_util import case_kernel, hls_headers, profile_calls, variant_csim

from partition import ir
from partition.boards import load_board
from partition.estimate.tiling import tile_kernel
from partition.estimate.variants import candidate_directives, estimate_variant, kernel_variants
from partition.frontend import Rejected, translate
from partition.fuzz import rtlsim
from partition.interp import execute
from partition.vectors import kernel_vectors

APP_DIR = Path(__file__).parent
rng = np.random.default_rng(19)


def running_sum(x):
    """A scan: the accumulator is carried from one tile to the next."""
    out = np.empty(len(x), dtype=np.int64)
    acc = 0
    for i in range(len(x)):
        acc += int(x[i])
        out[i] = acc
    return out


def smooth3(x):
    """A window one row either side, from row 1 (tiles start off the bus word of int16)."""
    y = np.zeros_like(x)
    for i in range(1, len(x) - 1):
        y[i] = (x[i - 1] + 2 * x[i] + x[i + 1]) // 4
    return y


def laplace(img):
    """A 3 x 3 stencil by rows of an image: tiles of rows with a halo row above and below."""
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            out[y, x] = (
                int(img[y - 1, x])
                + int(img[y + 1, x])
                + int(img[y, x - 1])
                + int(img[y, x + 1])
                - 4 * int(img[y, x])
            )
    return out


def laplace_np(img):
    """The same in NumPy: the astype temporary is computed again where it is read."""
    x = img.astype(np.int32)
    out = np.zeros_like(x)
    out[1:-1, 1:-1] = x[:-2, 1:-1] + x[2:, 1:-1] + x[1:-1, :-2] + x[1:-1, 2:] - 4 * x[1:-1, 1:-1]
    return out


def gain_clip(x, gain):
    """NumPy elementwise with a temporary; called with arrays of several lengths."""
    y = x.astype(np.int32) * gain
    return np.clip(y, -30000, 30000).astype(np.int16)


def box3(img):
    """A 3 x 3 window as inner loops over a run-time image size (the frontend guards each index
    with Python's negative wrap and a clamp past the end that sets the fallback flag)."""
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            s = 0
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    s += int(img[y + dy, x + dx])
            out[y, x] = s // 9
    return out


def matmul(a, b):
    """A matrix product: its reduction loop moves outward, so b is read a few rows at a time."""
    return a @ b


def matmul_loops(a, b):
    """The textbook triple loop with Python ints (a 64-bit accumulator and its overflow check)."""
    n, m = a.shape
    p = b.shape[1]
    c = np.zeros((n, p), dtype=np.int32)
    for i in range(n):
        for j in range(p):
            acc = 0
            for k in range(m):
                acc += int(a[i, k]) * int(b[k, j])
            c[i, j] = acc
    return c


CASES = {
    "running_sum": (running_sum, lambda: (rng.integers(-1000, 1000, 2500).astype(np.int32),)),
    "smooth3": (smooth3, lambda: (rng.integers(-30000, 30000, 4099).astype(np.int16),)),
    "laplace": (laplace, lambda: (rng.integers(0, 256, (37, 70)).astype(np.uint8),)),
    "laplace_np": (laplace_np, lambda: (rng.integers(0, 256, (29, 72)).astype(np.uint8),)),
    "box3": (box3, lambda: (rng.integers(0, 256, (int(rng.integers(12, 30)), 24)).astype(np.uint8),)),
    # b's rows of 48 and 80 bytes: several tiles of b per row of a, and several tiles of a
    "matmul": (
        matmul,
        lambda: (
            rng.integers(-32768, 32767, (20, 130)).astype(np.int16),
            rng.integers(-32768, 32767, (130, 24)).astype(np.int16),
        ),
    ),
    "matmul_loops": (
        matmul_loops,
        lambda: (
            rng.integers(-3000, 3000, (11, 70)).astype(np.int16),
            rng.integers(-3000, 3000, (70, 40)).astype(np.int16),
        ),
    ),
    "gain_clip": (
        gain_clip,
        lambda: (rng.integers(-32768, 32767, int(rng.integers(1500, 5000))).astype(np.int16), 3),
    ),
}


@pytest.fixture(autouse=True)
def _small_products_tile(monkeypatch):
    """The products here are small enough to simulate; tile their b as a large one's would be."""
    monkeypatch.setattr("partition.estimate.tiling.NESTED_MIN_BYTES", 2048)


def kernel_of(name):
    return case_kernel(CASES, name, APP_DIR, calls=3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tiled_ir_computes_what_the_kernel_does(name):
    k, vectors = kernel_of(name)
    for bus in (32, 64):
        t = tile_kernel(k, bus)
        assert not isinstance(t, str), t
        assert any(p.tiled for p in t.params)
        assert any(isinstance(s, ir.Copy) for s in ir.walk_stmts(t.body))
        for vs in vectors:
            a, b = execute(k, vs.inputs, max_steps=10**8), execute(t, vs.inputs, max_steps=10**8)
            assert a.status == b.status and a.ret == b.ret
            for p in k.arrays:
                assert np.array_equal(a.arrays[p.name], b.arrays[p.name]), (name, bus, p.name)


def test_a_window_written_as_inner_loops_is_tiled():
    """`img[y + dy, x + dx]` for dy, dx in range(-1, 2): the window's rows come from the inner
    loop's constant range, so the image moves a tile of rows (and a halo row each side) at a time."""
    imgs = [(rng.integers(0, 256, (n, 40)).astype(np.uint8),) for n in (230, 161)]
    fp = profile_calls(box3, imgs, APP_DIR)
    k = translate(fp, APP_DIR)
    assert not isinstance(k, Rejected), k.reason
    t = tile_kernel(k, 64)
    assert not isinstance(t, str)
    assert {p.name for p in t.params if p.tiled} == {"img", "out_r"}
    buf = next(a for a in t.locals if a.tile_of == "img")
    assert buf.shape[0] < 161  # tiles, not the whole image
    for vs in kernel_vectors(k, fp):
        a, b = execute(k, vs.inputs, max_steps=10**8), execute(t, vs.inputs, max_steps=10**8)
        assert a.status == b.status == 0
        assert np.array_equal(a.arrays["out_r"], b.arrays["out_r"])


def test_a_loop_that_breaks_out_is_not_tiled():
    def find_first(x, limit):
        out = np.zeros(len(x), dtype=np.int32)
        for i in range(len(x)):
            if x[i] > limit:
                break
            out[i] = x[i]
        return out

    fp = profile_calls(find_first, [(rng.integers(0, 100, 300).astype(np.int32), 99)], APP_DIR)
    k = translate(fp, APP_DIR)
    assert not isinstance(k, Rejected), k.reason
    reason = tile_kernel(k, 32)
    assert isinstance(reason, str) and "break" in reason
    assert "tiled" not in [d.name for d in candidate_directives(k, load_board("pynq-z2"))]


def test_a_pass_over_a_million_elements_fits_only_tiled():
    """The issue's case: the whole-array buffers need more BRAM than the board has; the tiled
    variant needs a few tiles' worth, and costs little time beyond the transfers."""

    def scale_offset(x):
        return x * 3 + 7

    board = load_board("pynq-z2")
    fp = profile_calls(scale_offset, [(np.arange(1 << 20, dtype=np.int32),)], APP_DIR)
    k = translate(fp, APP_DIR)
    assert not isinstance(k, Rejected), k.reason
    by_name = {v.name: v.estimate for v in kernel_variants(k, board)}
    base = estimate_variant(k, board, candidate_directives(k, board)[0])
    assert base.bram18 > board.resources["bram18"]
    tiled = [e for n, e in by_name.items() if n.startswith("tiled")]
    assert tiled and all(e.bram18 <= 8 for e in tiled), [(e.variant, e.bram18) for e in tiled]
    # a tile's copy setup and burst latency are a few % over moving the bytes whole
    whole = next(e for n, e in by_name.items() if n == "tiled")
    assert whole.cycles < 1.15 * base.cycles, (whole.cycles, base.cycles)


def test_a_512_square_int16_product_fits_only_tiled(monkeypatch):
    """b (512 KB) cannot be on chip whole; with the reduction loop outward it moves four rows at
    a time, a and the result a tile of rows at a time. A small b stays whole (read once, not
    again for every row of a), and its product keeps Python's loop order."""
    from partition.estimate import tiling

    monkeypatch.setattr(tiling, "NESTED_MIN_BYTES", 32768)
    small, _ = kernel_of("matmul")
    t = tile_kernel(small, 64)
    assert not isinstance(t, str) and not t.param("b").tiled
    assert not any(a.name.endswith("_row") for a in t.locals)
    board = load_board("pynq-z2")
    a = rng.integers(-300, 300, (512, 512)).astype(np.int16)
    fp = profile_calls(matmul, [(a, a.T.copy())], APP_DIR)
    k = translate(fp, APP_DIR)
    assert not isinstance(k, Rejected), k.reason
    by_name = {v.name: v.estimate for v in kernel_variants(k, board)}
    assert all(e.bram18 > board.resources["bram18"] for n, e in by_name.items() if "tiled" not in n)
    tiled = [e for n, e in by_name.items() if n.startswith("tiled")]
    assert tiled and all(e.bram18 <= 8 for e in tiled), [(e.variant, e.bram18) for e in tiled]
    t = tile_kernel(k, 64)
    assert not isinstance(t, str)
    copies = [s for s in ir.walk_stmts(t.body) if isinstance(s, ir.Copy)]
    assert {c.array for c in copies} == {"a", "b", "result"}
    # b's copies run inside the loop over rows of a: re-read once per row, 4 rows a copy
    assert next(c for c in copies if c.array == "b").rows_max == 4


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_csim_of_the_tiled_variant(tmp_path):
    hls_headers(tmp_path)
    board = load_board("pynq-z2")
    for name in sorted(CASES):
        k, vectors = kernel_of(name)
        for d in [d for d in candidate_directives(k, board) if d.tile]:
            text = variant_csim(tmp_path, k, vectors, d, board)
            assert "copy_in_" in text and "LOOP_TRIPCOUNT" in text


@pytest.mark.skipif(not rtlsim.available(), reason="needs Icarus Verilog")
def test_rtl_of_the_tiled_variants_passes_every_vector(tmp_path):
    board = load_board("pynq-z2")
    items = []
    for seed, name in enumerate(sorted(CASES)):
        k, vectors = kernel_of(name)
        for variant in ("tiled", "tiled_wide64"):
            kk = dataclasses.replace(k, name=f"{name}_{variant.replace('tiled_', '')}")
            items.append(
                rtlsim.prepare(
                    kk, vectors, board, tmp_path / kk.name, seed, max_cycles=200_000, variant=variant
                )
            )
    assert all(it.variant.startswith("tiled") and not it.fallback for it in items), [
        (it.variant, it.fallback) for it in items
    ]
    got = rtlsim.run_batch(items, tmp_path)
    assert all(r.status == "pass" for r in got.values()), got


TILED_APP = """\
import numpy as np


def smooth(x):
    y = np.zeros_like(x)
    for i in range(1, len(x) - 1):
        y[i] = (x[i - 1] + 2 * x[i] + x[i + 1]) // 4
    return y


def main():
    rng = np.random.default_rng(3)
    for n in (6001, 4500, 5333):  # three lengths, none a whole number of tiles
        x = rng.integers(-30000, 30000, n).astype(np.int32)
        print(int(smooth(x).sum()))


main()
"""


@pytest.fixture(scope="module")
def tiled_tree(tmp_path_factory):
    """The app planned for a board of 24 RAMB18 (its other figures pynq-z2's): with its arrays
    whole the kernel cannot fit, tiled it does."""
    from partition.codegen import build_tree
    from partition.fsutil import write_tree
    from partition.plan import Options, make_plan
    from partition.profile import run_profile

    tmp = tmp_path_factory.mktemp("tiled")
    app = tmp / "app.py"
    app.write_text(TILED_APP)
    (tmp / "small_bram.toml").write_text("[resources]\nbram18 = 24\n")
    board = load_board("pynq-z2", tmp / "small_bram.toml")
    prof = run_profile(app, [], cwd=tmp, baseline=False, replay=False)
    plan = make_plan(prof, tmp, board, Options())
    files, executable = build_tree(plan, prof, board, app.read_bytes())
    write_tree(tmp / "tree", files, executable)
    return plan, files, tmp / "tree"


def test_the_plan_tiles_what_does_not_fit_whole(tiled_tree):
    plan, files, _tree = tiled_tree
    (task,) = [t for t in plan.data["tasks"] if t["placement"] == "fpga"]
    assert task["name"] == "smooth" and task["variant"].startswith("tiled"), task["variant"]
    assert task["rtl"]["status"] == "built" and task["rtl"]["variant"] == task["variant"]
    manifest = json.loads(files["rtl/smooth/vectors/manifest.json"])
    assert all(len(v["traffic"]) == 2 for v in manifest["vectors"])
    # each vector is stored once, in hls/; the RTL's manifest points there
    assert [f for f in files if f.startswith("rtl/smooth/vectors/")] == ["rtl/smooth/vectors/manifest.json"]
    assert manifest["data"] == "../../../hls/smooth/vectors"
    named = {f for v in manifest["vectors"] for f in [*v["inputs"].values(), *v["outputs"].values()]}
    assert named and all(f"hls/smooth/vectors/{f}" in files for f in named)
    cpp = files["hls/smooth/smooth.cpp"].decode()
    assert "copy_in_x_tile" in cpp and "x_buf" not in cpp


@pytest.mark.sim
def test_the_tiled_kernel_passes_rtl_simulation_with_its_burst_traffic(verilator_env, tiled_tree):
    """Every vector's outputs, the AXI protocol, and the beats read and written (each copy's
    rows: halo rows read twice, the output's rows copied in where a tile does not store them
    all) as the manifest counts them from the tiled IR; cycles as estimated."""
    from partition.sim.flow import sim_kernel

    _plan, _files, tree = tiled_tree
    r = sim_kernel(tree, "smooth")
    assert r["status"] == "pass", r.get("detail")
    assert r["vectors"] >= 3  # the three lengths
    print("estimate", r["estimate_cycles"], "simulated", r["cycles_per_vector"])
    # the estimate is of a call at the profiled calls' average length: their average cycles
    mean = sum(r["cycles_per_vector"][:3]) / 3
    assert abs(mean - r["estimate_cycles"]) <= 0.10 * mean, (r["estimate_cycles"], r["cycles_per_vector"])


def test_reductions_move_outward_only_where_python_order_holds():
    """A running sum carried from one element to the next, a triangular nest (k's range
    follows j) and a sum read after the nest keep their loop order; a product of float32 matrices moves (each element's sum
    still runs over k in order) and computes exactly NumPy's sums."""
    from partition.estimate.interchange import interchange_reductions

    def carried(a, b):
        out = np.zeros(b.shape[1], dtype=np.int32)
        acc = 0
        for j in range(b.shape[1]):
            for k in range(b.shape[0]):
                acc += int(b[k, j])
            out[j] = acc
        return out + a[0]

    def triangular(a, b):
        out = np.zeros(b.shape[1], dtype=np.int64)
        for j in range(b.shape[1]):
            acc = 0
            for k in range(j):
                acc += int(b[k, j])
            out[j] = acc
        return out + a[0]

    def leaks(a, b):
        out = np.zeros(b.shape[1], dtype=np.int32)
        acc = 0
        for j in range(b.shape[1]):
            acc = 0
            for k in range(b.shape[0]):
                acc += int(b[k, j])
            out[j] = acc
        out[0] = acc  # the last column's sum, read after the nest
        return out + a[0]

    def float_product(a, b):
        c = np.zeros((a.shape[0], b.shape[1]), dtype=np.float32)
        for i in range(a.shape[0]):
            for j in range(b.shape[1]):
                s = np.float32(0)
                for k in range(a.shape[1]):
                    s += a[i, k] * b[k, j]
                c[i, j] = s
        return c

    a = rng.standard_normal((9, 60)).astype(np.float32)
    b = rng.standard_normal((60, 30)).astype(np.float32)
    ints = (rng.integers(-9, 9, (9, 30)).astype(np.int32), rng.integers(-99, 99, (30, 30)).astype(np.int32))
    cases = (
        (carried, ints, False),
        (triangular, ints, False),
        (leaks, ints, False),
        (float_product, (a, b), True),
    )
    for fn, args, moves in cases:
        fp = profile_calls(fn, [args], APP_DIR)
        k = translate(fp, APP_DIR)
        assert not isinstance(k, Rejected), k.reason
        assert (interchange_reductions(k) is not k) == moves, fn.__name__
        t = tile_kernel(k, 64)
        if isinstance(t, str):
            continue
        for vs in kernel_vectors(k, fp):
            x, y = execute(k, vs.inputs, max_steps=10**8), execute(t, vs.inputs, max_steps=10**8)
            assert x.status == y.status
            for p in k.arrays:
                assert np.array_equal(x.arrays[p.name], y.arrays[p.name]), (fn.__name__, p.name)


@pytest.mark.parametrize("name", ["laplace", "matmul", "matmul_loops", "box3"])
def test_the_manifest_traffic_is_what_a_call_copies(name):
    """The beats the testbench expects (counted on the kernel without its compute loops) are
    the beats a full run's copies move, nested tiles (b of a product) included."""
    from partition.rtl.vectors import traffic

    k, vectors = kernel_of(name)
    t = tile_kernel(k, 64)
    assert not isinstance(t, str)
    for vs in vectors:
        run = execute(t, vs.inputs, max_steps=10**8)
        full = [sum(-(-n // 8) for d, n in run.copies if d == way) for way in ("in", "out")]
        assert all(p.tiled for p in t.arrays)  # so the copies are all a call moves
        assert traffic(t, vs, 64) == full


def test_a_zero_fill_written_over_whole_is_not_copied_out():
    """`y = np.zeros(n)` then every y[i] stored: the fill would be a pass of zeros to DDR; a
    window from row 1 leaves rows 0 and n - 1 at zero, so its fill stays."""

    def scaled(x):
        y = np.zeros(len(x), dtype=np.int32)
        for i in range(len(x)):
            y[i] = x[i] * 3
        return y

    for fn, fill_copied in ((scaled, False), (smooth3, True)):
        args = [(rng.integers(-999, 999, n).astype(np.int16),) for n in (3000, 2048, 5)]
        fp = profile_calls(fn, args, APP_DIR)
        k = translate(fp, APP_DIR)
        assert not isinstance(k, Rejected), k.reason
        t = tile_kernel(k, 64)
        assert not isinstance(t, str)
        outs = [s for s in ir.walk_stmts(t.body) if isinstance(s, ir.Copy) and s.direction == "out"]
        assert len(outs) == (2 if fill_copied else 1), fn.__name__
        for vs in kernel_vectors(k, fp):
            a, b = execute(k, vs.inputs), execute(t, vs.inputs)
            assert a.status == b.status
            for p in k.arrays:
                assert np.array_equal(a.arrays[p.name], b.arrays[p.name]), (fn.__name__, p.name)
