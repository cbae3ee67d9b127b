"""Icarus Verilog + cocotb 2 from Python: build once, run a test module.

Icarus (Debian `iverilog`) compiles a design in well under a second, so it is the
simulator for breadth (many kernels, each built once); Verilator (partition.sim.verilator)
is the one for speed and lint. Both run the same cocotb test modules through cocotb's
Python runner and report through the same `TestResult`.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from partition.errors import PartitionError
from partition.sim.cocotb_run import Build, TestResult, build_key, cached_build, existing_sources, run_cocotb

ICARUS_MISSING = "iverilog not found: apt-get install iverilog (Icarus Verilog 11 or later)"


def available() -> bool:
    return shutil.which("iverilog") is not None and shutil.which("vvp") is not None


def build(
    sources: Sequence[Path | str], top: str, build_dir: Path | str, *, timescale=("1ns", "1ps")
) -> Build:
    """Compile `sources` with `top` as toplevel into `build_dir`, unless already built from
    byte-identical sources."""
    if not available():
        raise PartitionError(ICARUS_MISSING)
    srcs = existing_sources(sources)
    key = build_key(srcs, {"top": top, "timescale": list(timescale)})
    return cached_build("icarus", srcs, top, Path(build_dir).resolve(), key, timescale=timescale)


def run_test(model: Build, test_module: str, test_dir: Path | str, **options: Any) -> TestResult:
    """Run cocotb module `test_module` against an Icarus `model`; results instead of exit.
    `options`: those of `partition.sim.cocotb_run.run_cocotb` (module_dir, testcase, extra_env, ...)."""
    return run_cocotb("icarus", model, test_module, test_dir, **options)
