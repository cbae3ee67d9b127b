"""Several returned scalars, and methods of small classes (the board user's code), checked
against Python through the reference interpreter and C simulation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from frontend_cases import several_scalars as S
from frontend_util import csim_pass, profile_calls
from test_frontend import run_ir, run_python

from partition.frontend import Rejected, translate
from partition.sim.cosim import cosim

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

APP_DIR = Path(__file__).parent
RNG = np.random.default_rng(11)

SCALARS = {
    "min_max": (S.min_max, [(RNG.integers(-100, 100, 9).astype(np.int16),) for _ in range(3)]),
    "sum_count_mean": (
        S.sum_count_mean,
        [(RNG.integers(-100, 100, 12).astype(np.int32), t) for t in (0, 50, 200)],
    ),
    "mean_var": (S.mean_var, [(RNG.normal(5, 2, 16),) for _ in range(3)]),
    "peak_and_profile": (
        S.peak_and_profile,
        [(RNG.integers(-50, 300, 10).astype(np.int32),) for _ in range(3)],
    ),
}


def _same(a, b) -> bool:
    if isinstance(b, tuple):
        return isinstance(a, tuple) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and a.dtype == b.dtype and np.allclose(a, b, rtol=1e-12)
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def test_several_scalars_in_the_interpreter():
    for name, (fn, calls) in SCALARS.items():
        fp = profile_calls(fn, calls, APP_DIR)
        k = translate(fp, APP_DIR)
        assert not isinstance(k, Rejected), (name, k.reason)
        boxed = [p for p in k.params if p.pytype.startswith("scalar_")]
        assert boxed and all(p.shape == (1,) and p.origin[0] == "return" for p in boxed), name
        for args in calls:
            want, _ = run_python(fn, args)
            got, _ = run_ir(k, args)
            assert _same(got, want), (name, got, want)
            # the boxed items come back as the Python scalar types Python returned
            for (kind, what), w, g in zip(k.returns, want, got):
                if kind == "param" and k.param(what).pytype.startswith("scalar_"):
                    assert type(g) is type(w), (name, what, g, w)


def test_several_scalars_in_c_simulation(tmp_path):
    csim_pass(tmp_path, SCALARS)


# ------------------------------------------------------------------ methods

METHOD_APP = Path(__file__).parent / "cli_apps" / "board_methods.py"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def methods_tree(tmp_path_factory) -> Path:
    tree = tmp_path_factory.mktemp("methods") / "tree"
    cmd = [sys.executable, "-m", "partition", "plan", str(METHOD_APP), "--board", "pynq-z2", "--out", str(tree),
           "--pin-fpga", "FixedFir.process", "--pin-fpga", "Leaky.feed", "--quiet"]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    return tree


def test_methods_become_kernels_over_their_attributes(methods_tree):
    spec = json.loads((methods_tree / "host" / "board_methods_kernels.json").read_text())
    kernels = {k["task"]: k for k in spec["kernels"]}
    fir = kernels["FixedFir.process"]
    assert fir["method"]["class"] == "FixedFir" and fir["method"]["params"] == ["self", "x"]
    assert fir["method"]["attrs"] == ["taps", "delay", "pos", "gain"]
    assert fir["method"]["assigned"] == ["pos"]  # the delay line is written in place, pos reassigned
    direction = {p["name"]: p["direction"] for p in fir["params"]}
    assert direction["self_delay"] == "inout" and direction["self_taps"] == "in"
    leaky = kernels["Leaky.feed"]["method"]
    assert leaky["assigned"] == ["level", "peak"] and leaky["returns"] == 1


def test_method_kernels_pass_c_simulation_and_run_through_the_host_runtime(methods_tree):
    r = subprocess.run(["make", "-C", str(methods_tree), "csim"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "FixedFir_process csim: PASS" in r.stdout and "Leaky_feed csim: PASS" in r.stdout
    host = methods_tree / "host"
    cpu = subprocess.run([sys.executable, str(METHOD_APP)], capture_output=True, text=True, check=True)
    run = subprocess.run([sys.executable, "run_app.py", "--backend", "cpu", "--quiet"], cwd=host,
                         capture_output=True, text=True)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout == cpu.stdout


def test_method_cosim_carries_the_state_between_calls(verilator_env, methods_tree):
    r = cosim(methods_tree)
    assert r["status"] == "pass", r.get("detail")
    assert r["output_matches_cpu_run"] and r["kernels"] == ["FixedFir_process"]
    st = r["run_app"]["tasks"]["FixedFir.process"]
    assert st["calls"] == 4 and st["fallbacks"] == 0


class Ring:
    def __init__(self):
        self.buf = np.zeros(4)


def test_a_call_on_an_object_of_another_class_runs_on_the_cpu():
    from partition_runtime.methodcall import MethodCall

    m = MethodCall({"class": "FixedFir", "params": ["self", "x"], "attrs": ["buf"], "assigned": [],
                    "returns": 1, "return_tuple": False})  # fmt: skip
    assert "Ring" in m.expand(None, (Ring(), 1), {})
    obj = Ring()
    obj.__class__ = type("FixedFir", (), {})
    del obj.__dict__["buf"]
    assert "no attribute buf" in m.expand(None, (obj, 1), {})


PID_SOURCE = """
import numpy as np


class PID:
    def __init__(self, kp, ki, dt):
        self.kp = kp
        self.ki = ki
        self.dt = dt
        self.integral = 0.0
        self.steps = 0

    def update(self, setpoint, measurement):
        error = setpoint - measurement
        self.integral += error * self.dt
        self.steps += 1
        out = self.kp * error + self.ki * self.integral
        if out > 1.0:
            out = 1.0
            self.integral -= error * self.dt
        return out

    def run(self, setpoints, measurements):
        out = np.zeros(len(measurements))
        for i in range(len(measurements)):
            out[i] = self.update(setpoints[i], measurements[i])
        return out
"""


def test_a_method_calling_a_method_is_inlined_and_keeps_the_state(tmp_path):
    from partition.fuzz.golden import import_module, run_golden, write_module
    from partition.fuzz.parts import Case
    from partition.interp import execute
    from partition.vectors import kernel_vectors

    module = import_module(write_module(Case(0, "PID_src", PID_SOURCE, [], False, []), tmp_path))
    warm = module.PID(2.0, 0.5, 0.01)
    warm.run(np.ones(8), np.zeros(8))
    calls = [
        (warm, np.ones(16), RNG.normal(0, 0.5, 16)),
        (module.PID(5.0, 2.0, 0.1), np.ones(16), np.zeros(16)),
    ]
    g = run_golden(Case(0, "PID.run", PID_SOURCE, calls, False, []), tmp_path)
    assert not g.error, g.error
    k = translate(g.functions["PID.run"], tmp_path, g.functions)
    assert not isinstance(k, Rejected), k.reason
    assert k.method["assigned"] == ["integral", "steps"] and k.method["attrs"][:3] == ["kp", "ki", "dt"]
    vectors = kernel_vectors(k, g.functions["PID.run"])
    assert len(vectors) == 2
    for vs in vectors:
        run = execute(k, vs.inputs)
        for name, want in vs.outputs.items():
            np.testing.assert_allclose(run.arrays[name], want, rtol=1e-12)
        assert run.ret == vs.ret  # integral: the first returned scalar, in the return register


SENSOR_APP = ROOT / "benchmarks" / "numpy_corpus" / "app_sensor_node.py"


def test_a_board_app_whose_classes_live_in_a_local_module_runs_from_its_host_folder(tmp_path):
    """The classes come from board_classes.py beside the app: the host folder carries it too, and
    the unchanged app runs there with its methods accelerated (the CPU backend runs the runtime's
    guards, attribute reads and write-backs with Python behind them)."""
    tree = tmp_path / "tree"
    cmd = [sys.executable, "-m", "partition", "plan", str(SENSOR_APP), "--board", "pynq-z2", "--out", str(tree),
           "--quiet"]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    host = tree / "host"
    assert (host / "board_classes.py").read_bytes() == (SENSOR_APP.parent / "board_classes.py").read_bytes()
    spec = json.loads((host / "app_sensor_node_kernels.json").read_text())
    methods = {k["task"] for k in spec["kernels"] if k.get("method")}
    assert "board_classes.FixedFir.__call__" in methods and len(methods) >= 4
    want = subprocess.run(
        [sys.executable, str(SENSOR_APP)], capture_output=True, text=True, check=True
    ).stdout
    run = subprocess.run([sys.executable, "run_app.py", "--backend", "cpu", "--quiet"], cwd=host,
                         capture_output=True, text=True)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout == want
