"""What every simulator here shares around cocotb's Python runner: a build cached by the hash of
its sources and options, and a test run whose outcome comes back as data.

cocotb's runner raises (or exits, under pytest) when a build or a test fails; the flows want a
message naming the design and the log's tail, and tests want to assert that a test *fails*, so
both calls are wrapped here once, for Verilator (partition.sim.verilator) and Icarus
(partition.sim.icarus) alike.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from partition.errors import PartitionError

COCOTB_MISSING = "cocotb not found: pip install cocotb==2.1.0 cocotbext-axi==0.1.28"
_STAMP = ".partition-build.json"


@dataclass(frozen=True)
class Build:
    """A built simulation model: `top` compiled into `build_dir`."""

    top: str
    build_dir: Path
    waves: bool
    rebuilt: bool


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


def runner(simulator: str) -> Any:
    """cocotb's runner for `simulator` ("verilator", "icarus"), or a PartitionError saying what to install."""
    if importlib.util.find_spec("cocotb_tools") is None:
        raise PartitionError(COCOTB_MISSING)
    from cocotb_tools.runner import get_runner

    return get_runner(simulator)


def existing_sources(sources: Sequence[Path | str]) -> list[Path]:
    """The sources as absolute paths; a PartitionError names the first that does not exist."""
    srcs = [Path(s).resolve() for s in sources]
    for s in srcs:
        if not s.is_file():
            raise PartitionError(f"{s}: Verilog source not found")
    return srcs


def build_key(sources: Sequence[Path], meta: Mapping[str, Any]) -> str:
    """Hash of the sources' names and bytes, the options in `meta` and the cocotb version."""
    h = hashlib.sha256(
        json.dumps({**meta, "cocotb": importlib.metadata.version("cocotb")}, sort_keys=True).encode()
    )
    for src in sources:
        h.update(src.name.encode() + b"\0" + src.read_bytes() + b"\0")
    return h.hexdigest()


def cached_build(
    simulator: str,
    srcs: list[Path],
    top: str,
    build_dir: Path,
    key: str,
    *,
    waves: bool = False,
    product: Path | None = None,
    **options: Any,
) -> Build:
    """Build `srcs` into `build_dir` with cocotb's runner unless the stamp there holds `key`
    (and `product`, when given, exists); `options` go to the runner's build()."""
    stamp = build_dir / _STAMP
    if stamp.is_file() and (product is None or product.is_file()):
        try:
            if json.loads(stamp.read_text()).get("key") == key:
                return Build(top, build_dir, waves, rebuilt=False)
        except (OSError, ValueError):
            pass
    build_dir.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    log = build_dir / "build.log"
    try:
        runner(simulator).build(
            sources=srcs,
            hdl_toplevel=top,
            build_dir=build_dir,
            waves=waves,
            always=True,
            log_file=log,
            **options,
        )
    except (RuntimeError, SystemExit) as e:
        tail = log.read_text(errors="replace")[-4000:] if log.is_file() else ""
        name = {"verilator": "Verilator", "icarus": "Icarus"}.get(simulator, simulator)
        raise PartitionError(f"{name} build of {top} in {build_dir} failed ({e}):\n{tail}") from None
    stamp.write_text(json.dumps({"key": key, "top": top}, sort_keys=True) + "\n")
    return Build(top, build_dir, waves, rebuilt=True)


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


def run_cocotb(
    simulator: str,
    model: Build,
    test_module: str,
    test_dir: Path | str,
    *,
    module_dir: Path | str | None = None,
    testcase: str | Sequence[str] | None = None,
    extra_env: Mapping[str, str] | None = None,
    **options: Any,
) -> TestResult:
    """Run cocotb module `test_module` (importable from `module_dir`, and `partition` always)
    against `model`; the parsed results instead of an exit. `options` go to the runner's test()."""
    test_dir = Path(test_dir).resolve()
    test_dir.mkdir(parents=True, exist_ok=True)
    results_xml = test_dir / "results.xml"
    log = test_dir / "sim.log"
    results_xml.unlink(missing_ok=True)
    pkg_root = Path(__file__).resolve().parents[2]  # so test modules can import partition
    dirs = [Path(module_dir)] if module_dir is not None else []
    error = ""
    with _python_path([*dirs, pkg_root]):
        try:
            runner(simulator).test(
                test_module=test_module,
                hdl_toplevel=model.top,
                hdl_toplevel_lang="verilog",
                build_dir=model.build_dir,
                test_dir=test_dir,
                testcase=testcase,
                extra_env=dict(extra_env or {}),
                results_xml=str(results_xml),
                log_file=log,
                **options,
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
