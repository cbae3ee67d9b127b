"""Acceptance: how much of the numeric Python people write becomes a kernel, and is it right?

    python -m benchmarks.bench_acceptance            # what `make bench` runs

The functions are those of benchmarks/corpus/ (lists, whole-array numpy, helpers and
tuples, while loops, break/continue, floats, and realistic code that must stay on the CPU:
recursion, dicts, strings, growing lists, boolean masks, exceptions), each called on the
inputs its module's INPUTS gives, and every function of the examples/ apps, profiled by
running the app. For each one: accepted or rejected (with the frontend's reason, grouped),
and for accepted ones whether the kernel reproduces Python on every recorded call — in C
simulation of the Vitis HLS C++ (g++), and for integer kernels in RTL simulation of the
built-in backend's IP (Icarus Verilog, driven through its AXI interfaces) — using the
differential fuzzer's batch machinery (partition.fuzz): one g++ build and one Icarus build.

Writes benchmarks/results/acceptance.md and benchmarks/results/acceptance.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples import NAMES as EXAMPLES  # noqa: E402
from partition.boards import load_board  # noqa: E402
from partition.frontend import Rejected, kernel_name, translate  # noqa: E402
from partition.fuzz import Case, rtlsim, run  # noqa: E402
from partition.profile import run_profile  # noqa: E402
from partition.templating import render  # noqa: E402

CORPUS = ROOT / "benchmarks" / "corpus"
REALPY = ROOT / "benchmarks" / "realpy"  # numeric Python as algorithm collections write it
NUMPY_CORPUS = ROOT / "benchmarks" / "numpy_corpus"  # PolyBench, NumPy programs, board users' code
RESULTS = ROOT / "benchmarks" / "results"
SEED = 2024
# RTL simulation runs kernels whose estimated compute is up to this many cycles per call
# (Icarus: some 10-50 k cycles a second); the examples' larger kernels are verified with
# Verilator by the test suite and `partition sim`
RTL_MAX_CYCLES = 150_000


def corpus_cases() -> list[tuple[str, Case, str]]:
    """(source file, case, scope) for every function a corpus module lists in INPUTS: those of
    benchmarks/corpus/ (scope "") and of benchmarks/realpy/ and benchmarks/numpy_corpus/ (scope
    "in" or "out", from the module's SCOPE label)."""
    out = []
    for folder in (CORPUS, REALPY, NUMPY_CORPUS):
        for path in sorted(folder.glob("*.py")):
            if path.name.startswith(("_", "app_")):  # (app_*.py: whole apps built from the modules)
                continue
            spec = importlib.util.spec_from_file_location(f"acceptance_{folder.name}_{path.stem}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            source = path.read_text()
            functions = [
                n
                for n, v in vars(module).items()
                if inspect.isfunction(v) and v.__module__ == module.__name__
            ]
            scopes = getattr(module, "SCOPE", {})
            for k, (name, inputs) in enumerate(sorted(module.INPUTS.items())):
                calls = inputs(np.random.default_rng(SEED + k))
                helpers = [f for f in functions if f != name and not f.startswith("_")]
                scope = scopes.get(name, "in").split(":")[0] if folder is not CORPUS else ""
                out.append(
                    (f"{folder.name}/{path.name}", Case(k, name, source, calls, False, helpers), scope)
                )
    return out


def _row(origin: str, r: run.CaseResult, calls: int, scope: str) -> dict:
    stages = r.stages
    return {
        "origin": origin,
        "scope": scope,
        "function": r.name,
        "status": r.status,
        "reason": r.reason,
        "vectors": r.vectors,
        "calls": calls,
        "csim": stages.get("csim", ""),
        "rtl": stages.get("rtl", ""),
        "details": {k: v for k, v in sorted(r.details.items()) if k in ("csim", "rtl", "vectors", "crash")},
    }


def evaluate(work: Path, only: str = "") -> tuple[list[dict], float]:
    """Every corpus case and example function (or, with `only`, the corpus cases whose source
    file or function name contains that text, and no example)."""
    t0 = time.monotonic()
    board = load_board("pynq-z2")
    app_dir, csim_dir, rtl_dir = work / "app", work / "csim", work / "rtl"
    for d in (app_dir, csim_dir):
        d.mkdir(parents=True, exist_ok=True)
    prepared: list[tuple[str, run.Prepared, int, str]] = []
    use_rtl = rtlsim.available()
    taken: set[str] = set()

    def unique(name: str) -> str:
        """A kernel name not yet in the batch (corpora and examples share function names)."""
        out, n = name, 2
        while out in taken:
            out, n = f"{name}_{n}", n + 1
        taken.add(out)
        return out

    for origin, case, scope in corpus_cases():
        if only and only not in origin and only not in case.name:
            continue
        p = run.prepare_case(
            case,
            app_dir,
            csim_dir,
            rtl_dir if use_rtl else None,
            board,
            RTL_MAX_CYCLES,
            unique(kernel_name(case.name)),
        )
        prepared.append((origin, p, len(case.calls), scope))
    for ex in [] if only else EXAMPLES:
        app = ROOT / "examples" / f"{ex}.py"
        profile = run_profile(app, [], samples=3, baseline=False)
        for name, fp in sorted(profile.functions.items()):
            res = run.CaseResult(0, name, False, [], "accepted")
            try:
                k = translate(fp, app.parent, profile.functions)
            except Exception as e:  # an internal error is a finding, not a crash of the benchmark
                res.status, res.reason = "crash", f"frontend: {type(e).__name__}: {e}"
                prepared.append((f"examples/{ex}.py", run.Prepared(res), len(fp.samples), ""))
                continue
            if isinstance(k, Rejected):
                res.status, res.reason = "rejected", k.reason
                prepared.append((f"examples/{ex}.py", run.Prepared(res), len(fp.samples), ""))
                continue
            k.name = res.name = unique(k.name)
            p = run.prepare_kernel(
                run.Prepared(res, k),
                fp,
                len(fp.samples),
                csim_dir,
                rtl_dir if use_rtl else None,
                board,
                RTL_MAX_CYCLES,
            )
            prepared.append((f"examples/{ex}.py", p, len(fp.samples), ""))
    run.backends([p for _, p, _, _ in prepared], csim_dir, rtl_dir, keep=False)
    rows = [_row(origin, p.result, calls, scope) for origin, p, calls, scope in prepared]
    return rows, time.monotonic() - t0


def verdict(row: dict) -> str:
    """One word on an accepted function: agrees, MISMATCH, or why it was not simulated."""
    if row["status"] != "accepted":
        return ""
    bad = [s for s in ("csim", "rtl") if row[s] in ("fail", "error")]
    if bad:
        return "MISMATCH (" + ", ".join(bad) + ")"
    return "agrees"


def summary(rows: list[dict]) -> dict:
    accepted = [r for r in rows if r["status"] == "accepted"]
    rejected = [r for r in rows if r["status"] != "accepted"]
    reasons = Counter(run.normalise_reason(r["reason"]) for r in rejected)
    sources: dict[str, list[int]] = {}
    for r in rows:
        n = sources.setdefault(r["origin"], [0, 0])
        n[0] += r["status"] == "accepted"
        n[1] += 1
    return {
        "sources": sorted(sources.items()),
        "functions": len(rows),
        "accepted": len(accepted),
        "rejected": len(rejected),
        "csim_agree": sum(1 for r in accepted if r["csim"] == "pass"),
        "rtl_agree": sum(1 for r in accepted if r["rtl"] == "pass"),
        "rtl_float": sum(1 for r in accepted if r["rtl"] == "unsupported"),
        "mismatches": sum(1 for r in accepted if verdict(r) != "agrees"),
        "reasons": sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])),
        "scopes": [
            _scope_row(label, [r for r in rows if r["origin"].startswith(prefix)]) for label, prefix in GROUPS
        ],
    }


# corpora whose functions carry a scope label: (label, source prefix)
GROUPS = (
    ("realpy (algorithm collections)", "realpy/"),
    ("numpy_corpus: PolyBench", "numpy_corpus/polybench"),
    ("numpy_corpus: other NumPy programs", "numpy_corpus/numpy_"),
    ("numpy_corpus: board users' code", "numpy_corpus/board_"),
)


def _scope_row(label: str, rows: list[dict]) -> dict:
    """In-scope and out-of-scope functions of one corpus, and how many of each were accepted."""
    ok = [r for r in rows if r["status"] == "accepted"]
    return {
        "label": label,
        "in": sum(r["scope"] == "in" for r in rows),
        "in_accepted": sum(r["scope"] == "in" for r in ok),
        "out": sum(r["scope"] == "out" for r in rows),
        "out_accepted": sum(r["scope"] == "out" for r in ok),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument(
        "--only",
        default="",
        metavar="TEXT",
        help="only the corpus functions whose file or name contains TEXT; prints the table, writes nothing",
    )
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="partition-acceptance-") as tmp:
        rows, seconds = evaluate(Path(tmp), args.only)
    if args.only:
        for r in rows:
            print(f"{r['origin']} {r['function']}: {r['status']} {verdict(r)} {r['reason']}")
        return 1 if any(verdict(r) == "MISMATCH" for r in rows) else 0
    s = summary(rows)
    for r in rows:
        r["verdict"] = verdict(r)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "acceptance.json").write_text(json.dumps({"summary": s, "functions": rows}, indent=2) + "\n")
    (args.out / "acceptance.md").write_text(
        render("bench/acceptance.md.j2", s=s, rows=rows, seconds=f"{seconds:.0f}", examples=EXAMPLES)
    )
    for g in s["scopes"]:
        if g["in"]:
            print(
                f"{g['label']}: {g['in_accepted']} of {g['in']} in-scope functions accepted "
                f"({100 * g['in_accepted'] / g['in']:.1f} %), {g['out_accepted']} of {g['out']} out-of-scope ones"
            )
    print(
        f"acceptance: {s['accepted']} of {s['functions']} functions accepted, {s['rejected']} rejected; "
        f"{s['csim_agree']} agree in C simulation, {s['rtl_agree']} in RTL simulation; "
        f"{s['mismatches']} mismatches"
    )
    for reason, n in s["reasons"]:
        print(f"  rejected x{n}: {reason}")
    return 1 if s["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
