"""`run_app.py`: run the unmodified app with its FPGA tasks accelerated.

    python3 host/run_app.py [--backend pynq|cpu] [--check] [--timeout S] [-- APP ARGS...]

The app runs as __main__ (its own argv, working directory and output), its
FPGA tasks replaced by the runtime's accelerated callables as they are
defined. At the end the measured time per task is printed beside the plan's
predictions (on stderr, so the app's own output is unchanged).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from .core import DEFAULT_TIMEOUT_S, Runtime, make_backend
from .device import Backend
from .errors import RuntimeFailure
from .spec import load_spec
from .swap import run_app

EXIT_MISMATCH = 1
EXIT_ERROR = 2


def _parser(prog: str, app_name: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=f"Run {app_name} with its FPGA tasks on the FPGA (or on the CPU through the same path).",
        epilog="arguments after -- go to the app",
    )
    p.add_argument(
        "--backend",
        default="pynq",
        choices=["pynq", "cpu"],
        help="where accelerated calls run (default pynq)",
    )
    p.add_argument(
        "--overlay",
        metavar="BIT",
        help="overlay .bit to load (default: overlay/<app>.bit next to this script)",
    )
    p.add_argument(
        "--no-download",
        action="store_true",
        help="use the overlay already in the PL instead of programming it",
    )
    p.add_argument(
        "--interrupts", action="store_true", help="wait on kernel interrupts where wired instead of polling"
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="run every accelerated call on the CPU too and compare (ints exactly, floats within tolerance); exit 1 on a mismatch",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="S",
        help=f"seconds to wait for a kernel (default {DEFAULT_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--app",
        metavar="APP.py",
        help="run this copy of the app instead (e.g. the original, next to its own modules)",
    )
    p.add_argument("--stats", metavar="FILE.json", help="also write the per-task statistics as JSON")
    p.add_argument("--quiet", action="store_true", help="no report at the end")
    return p


def main(argv: list[str] | None, spec: str | Path, app: str | Path, backend: Backend | None = None) -> int:
    """Entry point of the generated run_app.py. `backend` replaces --backend (a simulator's, a test's)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" in argv:
        i = argv.index("--")
        ours, app_args = argv[:i], argv[i + 1 :]
    else:
        ours, app_args = argv, []
    args = _parser("run_app.py", Path(app).name).parse_args(ours)
    app_path = Path(args.app) if args.app else Path(app)
    try:
        return _run(args, Path(spec), app_path, app_args, backend)
    except RuntimeFailure as e:
        print(f"run_app: error: {e}", file=sys.stderr)
        return EXIT_ERROR


def _run(args: Any, spec_path: Path, app_path: Path, app_args: list[str], backend: Backend | None) -> int:
    spec = load_spec(spec_path)
    if not app_path.is_file():
        print(f"run_app: error: {app_path}: no such app file", file=sys.stderr)
        return EXIT_ERROR
    digest = hashlib.sha256(app_path.read_bytes()).hexdigest()
    if spec.app.get("sha256") and digest != spec.app["sha256"]:
        print(
            f"run_app: warning: {app_path.name} differs from the app the plan was made for; tasks are found "
            "by file and line, so re-run `partition plan` after editing the app",
            file=sys.stderr,
        )
    if backend is None:
        options: dict[str, Any] = {}
        if args.backend == "pynq":
            options = {"download": not args.no_download, "interrupts": args.interrupts}
            if args.overlay:
                options["overlay"] = args.overlay
        backend = make_backend(args.backend, **options)
    rt = Runtime(backend, spec_path, timeout=args.timeout, check=args.check)
    targets = [(k.task, k.function, k.source_file, k.source_line) for k in spec.kernels]
    code: Any = 0
    t0 = time.perf_counter()
    swapped: set[str] = set()
    failed = True
    try:
        swapped = run_app(app_path, app_args, rt.accelerate, targets)
        failed = False
    except SystemExit as e:
        code = e.code
        failed = False
    finally:
        wall = time.perf_counter() - t0
        rt.close()
        if not args.quiet or failed:
            _report(rt, wall, swapped if not failed else None)
        if args.stats:
            _write_stats(Path(args.stats), rt, wall, swapped)
    if code is None:
        code = 0
    if not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    if rt.mismatches:
        print(
            f"run_app: --check FAILED: {rt.mismatches} accelerated call(s) differ from the CPU",
            file=sys.stderr,
        )
        return code or EXIT_MISMATCH
    return code


def _report(rt: Runtime, wall: float, swapped: set[str] | None) -> None:
    out = sys.stderr
    print(f"\nrun_app: the app took {wall:.3f} s", file=out)
    print(rt.report(), file=out)
    if swapped is not None:
        for k in rt.spec.kernels:
            if k.task not in swapped:
                print(
                    f"run_app: {k.task} was not swapped in: no `def {k.function}` at {k.source_file}:{k.source_line} "
                    "was executed (the app changed since `partition plan`, or that module was not imported)",
                    file=out,
                )


def _write_stats(path: Path, rt: Runtime, wall: float, swapped: set[str]) -> None:
    data = {
        "backend": rt.backend.name,
        "info": {k: v for k, v in sorted(rt.backend.info.items()) if isinstance(v, (str, int, float))},
        "wall_s": wall,
        "swapped": sorted(swapped),
        "tasks": rt.stats(),
        "predicted": {k.task: k.predicted for k in rt.spec.kernels},
    }
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
