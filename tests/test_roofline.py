"""Each kernel's roofline: the bounds from the DSP budget, the HP port and true recurrences.

The bounds are checked against hand counts of the functions below (loops written as users
write them), so a change to the op counting, the byte counting or the recurrence test fails
here; and the plan carries them (plan.json, the terminal summary).
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest
from frontend_util import profile_calls

from partition.boards import load_board
from partition.estimate.roofline import configuration, roofline
from partition.estimate.variants import kernel_variants
from partition.frontend import Rejected, translate
from partition.plan import Options, make_plan
from partition.profile.model import load_profile
from partition.report.terminal import summary

HERE = Path(__file__).parent
BOARD = load_board("pynq-z2")
DSP = 176  # pynq-z2's 220 at the default 80 % cap


def fir(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    y = np.zeros(x.shape[0], dtype=np.int32)
    for n in range(x.shape[0]):
        acc = np.int32(0)
        for k in range(h.shape[0]):
            if n - k >= 0:
                acc += np.int32(x[n - k]) * np.int32(h[k])
        y[n] = acc
    return y


def one_pole(x: np.ndarray) -> np.ndarray:
    """y[i] = (3 * y[i-1] + x[i]) >> 2: each output needs the previous one."""
    y = np.zeros(x.shape[0], dtype=np.int32)
    state = np.int32(0)
    for i in range(x.shape[0]):
        state = (state * 3 + np.int32(x[i])) >> 2
        y[i] = state
    return y


def mean_f32(x: np.ndarray) -> float:
    total = np.float32(0.0)
    for i in range(x.shape[0]):
        total += x[i]
    return float(total / np.float32(x.shape[0]))


def first_negative(x: np.ndarray) -> int:
    found = 0
    for i in range(x.shape[0]):
        if x[i] < 0:
            found = 1
    return found


def _kernel(fn, *args):
    k = translate(profile_calls(fn, [args], HERE), HERE)
    assert not isinstance(k, Rejected), k.reason
    return k


def test_fir_is_bound_by_the_dsp_slices_and_its_reduction_is_no_recurrence() -> None:
    rng = np.random.default_rng(1)
    x = rng.integers(-3000, 3000, 2048, dtype=np.int16)
    h = rng.integers(-3000, 3000, 128, dtype=np.int16)
    rl = roofline(_kernel(fir, x, h), BOARD, DSP)
    assert rl.dsp_ops == {"mul": 2048 * 128}  # one product per tap and sample, one DSP48 each (16 x 16)
    assert rl.dsp_cycles == math.ceil(2048 * 128 / DSP)
    assert (rl.read_bytes, rl.write_bytes) == (2048 * 2 + 128 * 2, 2048 * 4)
    assert rl.memory_cycles == 2048 * 4 // 8  # the output, the larger way, over one 64-bit port
    assert rl.recurrences == []  # acc += ... is an integer sum: reassociable
    assert rl.limit == "dsp" and rl.bound_cycles == rl.dsp_cycles
    assert "mul on 176 DSP slices" in rl.why()


def test_a_value_that_needs_the_previous_one_is_a_recurrence() -> None:
    x = np.arange(-500, 500, dtype=np.int16)
    rl = roofline(_kernel(one_pole, x), BOARD, DSP)
    [r] = rl.recurrences
    assert r["var"] == "state" and r["iterations"] == 1000
    assert r["cycles_per_iteration"] >= 1
    assert rl.recurrence_cycles == 1000 * r["cycles_per_iteration"]
    assert rl.limit == "recurrence"


def test_a_float_sum_keeps_python_order_so_it_is_a_recurrence() -> None:
    x = np.linspace(-1, 1, 300, dtype=np.float32)
    rl = roofline(_kernel(mean_f32, x), BOARD, DSP)
    [r] = rl.recurrences
    assert r["var"] == "total"
    assert r["cycles_per_iteration"] > 1  # a float adder's latency
    assert rl.recurrence_cycles == 300 * r["cycles_per_iteration"]


def test_a_flag_set_under_a_condition_is_no_recurrence() -> None:
    x = np.arange(-5, 400, dtype=np.int32)
    rl = roofline(_kernel(first_negative, x), BOARD, DSP)
    assert rl.recurrences == []
    assert rl.limit == "memory" and rl.memory_cycles == math.ceil(405 * 4 / 8)


def test_a_configuration_reports_its_share_and_what_limits_it() -> None:
    rng = np.random.default_rng(2)
    x = rng.integers(-3000, 3000, 512, dtype=np.int16)
    h = rng.integers(-3000, 3000, 16, dtype=np.int16)
    k = _kernel(fir, x, h)
    rl = roofline(k, BOARD, DSP)
    for v in kernel_variants(k, BOARD):
        c = configuration(v.estimate, rl)
        assert c["variant"] == v.name and c["cycles"] == v.estimate.cycles
        assert c["fraction"] == rl.bound_cycles / v.estimate.cycles
        assert 0 < c["fraction"] <= 1  # no configuration beats the bound
        assert c["limited_by"].startswith(("loop ", "load and store", "compute"))


def test_the_plan_states_each_fpga_kernels_roofline(tmp_path: Path) -> None:
    prof_path = tmp_path / "fir_pipeline.json"
    prof_path.write_bytes(gzip.decompress((HERE / "golden" / "fir_pipeline.profile.json.gz").read_bytes()))
    prof = load_profile(prof_path)
    plan = make_plan(prof, HERE.parent / "examples", BOARD, Options())
    data = plan.data
    fpga = [t for t in data["tasks"] if t["placement"] == "fpga"]
    assert fpga
    for t in fpga:
        rl = t["fpga"]["roofline"]
        c = rl["configuration"]
        chosen = next(v for v in t["fpga"]["variants"] if v["name"] == t["variant"])
        assert c["variant"] == t["variant"] and c["cycles"] == chosen["estimate"]["cycles"]
        assert rl["bound_cycles"] == max(rl["dsp_cycles"], rl["memory_cycles"], rl["recurrence_cycles"])
        assert c["fraction"] == rl["bound_cycles"] / c["cycles"] == chosen["roofline_fraction"]
    text = summary(data)
    assert "roofline" in text
    # the printed command is quoted for a shell (a path with a space)
    assert "  make -C 'build/my app' csim " in summary(data, "build/my app")
    for t in fpga:
        assert f"  {t['name']}: {t['fpga']['roofline']['configuration']['cycles']:,} cycles" in text


def test_the_roofline_benchmark_sets_kernels_against_compiled_code(tmp_path: Path) -> None:
    """benchmarks/bench_roofline.py on two of its kernels: each row has its bound, a fraction no
    kernel can beat, and the compiled alternative, timed here (the testbench checks it first) and
    scaled by the board's compiled_factor, within the factor's range."""
    from benchmarks import bench_roofline

    rows, meta = bench_roofline.rows("pynq-z2", ["fir32_q15", "dot_i16"], tmp_path)
    assert [r["kernel"] for r in rows] == ["dot_i16", "fir32_q15"]
    for r in rows:
        assert 0 < r["fraction"] <= 1 and r["limit"] in ("dsp", "memory", "recurrence")
        assert r["host_compiled_us"] > 0 and r["fpga_call_us"] > r["kernel_us"] > 0
        lo, hi = r["board_compiled_us_range"]
        assert r["board_compiled_us"] == pytest.approx(r["host_compiled_us"] * meta["compiled_factor"])
        assert lo <= r["board_compiled_us"] <= hi
    text = bench_roofline.markdown(rows, meta)
    assert "| fir32_q15 | loops | integer |" in text and "2 kernels" in text
