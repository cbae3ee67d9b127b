"""Icarus Verilog + cocotb 2 from Python: build once, run a test module.

Icarus (Debian `iverilog`) compiles a design in well under a second, so it is the
simulator for breadth (many kernels, each built once); Verilator (partition.sim.verilator)
is the one for speed and lint. Both run the same cocotb test modules through cocotb's
Python runner and report through the same `TestResult`.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from partition.errors import PartitionError
from partition.sim.verilator import COCOTB_MISSING, Build, TestResult, _python_path, parse_results

ICARUS_MISSING = "iverilog not found: apt-get install iverilog (Icarus Verilog 11 or later)"
_STAMP = ".partition-build.json"


def available() -> bool:
    return shutil.which("iverilog") is not None and shutil.which("vvp") is not None


def _runner():
    import importlib.util

    if importlib.util.find_spec("cocotb_tools") is None:
        raise PartitionError(COCOTB_MISSING)
    from cocotb_tools.runner import get_runner

    return get_runner("icarus")


def build(
    sources: Sequence[Path | str], top: str, build_dir: Path | str, *, timescale=("1ns", "1ps")
) -> Build:
    """Compile `sources` with `top` as toplevel into `build_dir`, unless already built from
    byte-identical sources."""
    if not available():
        raise PartitionError(ICARUS_MISSING)
    srcs = [Path(s).resolve() for s in sources]
    for s in srcs:
        if not s.is_file():
            raise PartitionError(f"{s}: Verilog source not found")
    build_dir = Path(build_dir).resolve()
    h = hashlib.sha256(json.dumps({"top": top, "cocotb": importlib.metadata.version("cocotb")}).encode())
    for s in srcs:
        h.update(s.name.encode() + b"\0" + s.read_bytes() + b"\0")
    key = h.hexdigest()
    stamp = build_dir / _STAMP
    if stamp.is_file():
        try:
            if json.loads(stamp.read_text()).get("key") == key:
                return Build(top, build_dir, False, rebuilt=False)
        except (OSError, ValueError):
            pass
    build_dir.mkdir(parents=True, exist_ok=True)
    log = build_dir / "build.log"
    try:
        _runner().build(
            sources=srcs,
            hdl_toplevel=top,
            build_dir=build_dir,
            timescale=timescale,
            always=True,
            log_file=log,
        )
    except (RuntimeError, SystemExit) as e:
        tail = log.read_text(errors="replace")[-4000:] if log.is_file() else ""
        raise PartitionError(f"Icarus build of {top} in {build_dir} failed ({e}):\n{tail}") from None
    stamp.write_text(json.dumps({"key": key, "top": top}, sort_keys=True) + "\n")
    return Build(top, build_dir, False, rebuilt=True)


def run_test(
    model: Build,
    test_module: str,
    test_dir: Path | str,
    *,
    module_dir: Path | str | None = None,
    testcase: str | Sequence[str] | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> TestResult:
    """Run cocotb module `test_module` against an Icarus `model`; results instead of exit."""
    test_dir = Path(test_dir).resolve()
    test_dir.mkdir(parents=True, exist_ok=True)
    results_xml = test_dir / "results.xml"
    log = test_dir / "sim.log"
    results_xml.unlink(missing_ok=True)
    pkg_root = Path(__file__).resolve().parents[2]
    dirs = [Path(module_dir)] if module_dir is not None else []
    error = ""
    with _python_path([*dirs, pkg_root]):
        try:
            _runner().test(
                test_module=test_module,
                hdl_toplevel=model.top,
                hdl_toplevel_lang="verilog",
                build_dir=model.build_dir,
                test_dir=test_dir,
                testcase=testcase,
                extra_env=dict(extra_env or {}),
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
            error = ""
    else:
        error = error or "no results file written"
    result.error = result.error or error
    return result
