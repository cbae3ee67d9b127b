"""The differential fuzzing loop: generate, run as Python, translate, and compare three ways.

For each seed: `gen.generate` makes a kernel and its calls; `golden.run_golden` runs them
as Python and profiles them; the real frontend (`partition.frontend.translate`) lowers the
kernel or says why not (a rejection, counted by reason); `partition.vectors.kernel_vectors`
turns Python's results into test vectors, exactly as a plan does. Then:

* csim — the Vitis HLS C++ and its own testbench, many kernels per g++ build (`csim`);
* rtl  — for integer kernels (a chosen fraction of them), the built-in RTL backend's IP,
         in an implementation variant and for a board drawn by seed, driven through its
         AXI interfaces, many kernels per Icarus build (`rtlsim`);
* ir   — when a backend disagreed, the reference interpreter (`partition.interp`) on the
         same vectors says whether the IR itself (the frontend) or the backend is wrong.

Any difference from Python, any vector Python produced that the kernel cannot take, any
backend that fails on an accepted kernel, and any exception inside the tool is a finding.
Batches are prepared in the main process while the previous batch compiles and simulates.
"""

from __future__ import annotations

import re
import shutil
import time
import traceback
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from partition import ir
from partition.boards import Board, load_board
from partition.codegen import FLOAT_TOLERANCE
from partition.errors import PartitionError
from partition.frontend import Rejected, translate
from partition.fuzz import csim, golden, rtlsim
from partition.fuzz.gen import generate
from partition.fuzz.parts import Case
from partition.interp import StepLimit, execute
from partition.profile.model import FunctionProfile
from partition.rtl import RtlUnsupported
from partition.vectors import VectorSet, interpreter_check, kernel_vectors

STAGES = ("vectors", "ir", "csim", "rtl")
FUZZ_STEPS = 5_000_000  # interpreter statements per vector for its expected fallback status


@dataclass
class CaseResult:
    seed: int
    name: str
    floats: bool
    features: list[str]
    status: str  # invalid | rejected | accepted | crash (an exception inside the tool)
    reason: str = ""
    vectors: int = 0
    stages: dict[str, str] = field(default_factory=dict)  # stage -> pass | fail | error | unsupported
    details: dict[str, str] = field(default_factory=dict)
    rtl_variant: str = ""  # the implementation variant the RTL stage built
    rtl_drawn: str = ""  # the variant drawn for it (differs when the backend declined it)
    rtl_fallback: str = ""  # why the drawn variant was built as base
    rtl_board: str = ""  # the board the RTL was built for
    rtl_streams: list[str] = field(default_factory=list)  # arrays the RTL streamed (AXI-Stream ports)

    @property
    def findings(self) -> list[str]:
        """Stages where the tool disagreed with Python or failed."""
        out = [s for s in STAGES if self.stages.get(s) in ("fail", "error")]
        if self.status == "crash":
            out.insert(0, "crash")
        return out


@dataclass
class Summary:
    seeds: tuple[int, int]  # first, last
    results: list[CaseResult]
    seconds: float
    rtl_fraction: float
    float_fraction: float

    def count(self, pred: Callable[[CaseResult], bool]) -> int:
        return sum(1 for r in self.results if pred(r))

    @property
    def findings(self) -> list[CaseResult]:
        return [r for r in self.results if r.findings]

    def through(self, stage: str) -> int:
        """Cases whose kernel went through `stage` and agreed with Python."""
        return self.count(lambda r: r.stages.get(stage) == "pass")

    def rejects(self) -> list[tuple[str, int]]:
        c = Counter(normalise_reason(r.reason) for r in self.results if r.status == "rejected")
        return sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))

    def invalid(self) -> list[tuple[str, int]]:
        c = Counter(normalise_reason(r.reason) for r in self.results if r.status == "invalid")
        return sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))

    def per_minute(self, n: int) -> float:
        return 60.0 * n / self.seconds if self.seconds > 0 else 0.0


def normalise_reason(text: str) -> str:
    """A reason without its file, line, names and numbers, so equal reasons group."""
    text = re.sub(r"^[\w./-]+\.py:\d+: ", "", text)
    text = re.sub(
        r"\b(?!(?:u?int|float)\d+\b)[A-Za-z_]\w*\d\w*\b", "<name>", text
    )  # generated names (acc3, fz12, pair9_ret0), not dtypes
    text = re.sub(r"ndarray\[\w+\]", "ndarray[<dtype>]", text)
    text = re.sub(r"\b\d+\b", "N", text)
    return text[:160]


# ------------------------------------------------------------------ one case


def _same(got: Any, want: Any, dt_name: str) -> bool:
    g, w = np.asarray(got), np.asarray(want)
    if g.shape != w.shape:
        return False
    if dt_name in FLOAT_TOLERANCE:
        rtol, atol = FLOAT_TOLERANCE[dt_name]
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        both_nan = np.isnan(g64) & np.isnan(w64)
        finite = np.abs(w64[np.isfinite(w64)])
        tol = atol + rtol * (float(finite.max()) if finite.size else 0.0)  # as partition_ops.h compares
        with np.errstate(all="ignore"):
            close = (g64 == w64) | (np.abs(g64 - w64) <= tol + rtol * np.abs(w64))
        return bool(np.all(both_nan | close))
    return bool(np.array_equal(g.astype(np.int64) if dt_name == "bool" else g, w.astype(g.dtype)))


def check_ir(kernel: ir.Kernel, vectors: list[VectorSet]) -> str:
    """'' when the interpreter reproduces every vector (one it hands back to the CPU
    excepted: Python computes that call; and one it cannot finish within FUZZ_STEPS
    statements, a call the profile never saw with a loop bound near 2**62), else the first
    difference."""
    for k, vs in enumerate(vectors):
        try:
            run_ = execute(kernel, vs.inputs, max_steps=FUZZ_STEPS)
        except StepLimit:
            continue
        if run_.status:
            continue
        outs, ret = run_.arrays, run_.ret
        for name, want in vs.outputs.items():
            if not _same(outs[name], want, kernel.param(name).dtype.name):
                got = np.asarray(outs[name]).reshape(-1)
                w = np.asarray(want).reshape(-1)
                i = next(
                    (j for j in range(w.size) if not _same(got[j], w[j], kernel.param(name).dtype.name)), 0
                )
                return f"vector {k}: {name}[{i}] (flat) interpreter {got[i]!r}, Python {w[i]!r}"
        if vs.ret is not None and kernel.ret is not None and not _same(ret, vs.ret, kernel.ret.name):
            return f"vector {k}: return interpreter {ret!r}, Python {vs.ret!r}"
    return ""


@dataclass
class Prepared:
    result: CaseResult
    kernel: ir.Kernel | None = None
    vectors: list[VectorSet] = field(default_factory=list)
    rtl_item: rtlsim.RtlItem | None = None


def prepare_case(
    case: Case,
    app_dir: Path,
    csim_dir: Path,
    rtl_dir: Path | None,
    board: Board,
    rtl_max_cycles: int = rtlsim.MAX_COMPUTE_CYCLES,
    kernel_name: str | None = None,
) -> Prepared:
    """Everything up to the batched backends, for one case (`kernel_name`: the kernel's name
    in the batch, where two cases share a function name)."""
    res = CaseResult(case.seed, case.name, case.floats, case.features, "accepted")
    try:
        g = golden.run_golden(case, app_dir)
    except Exception as e:  # the profiler's own code failed on a program Python ran
        res.status, res.reason = "crash", f"profiling: {type(e).__name__}: {e}"
        res.details["crash"] = traceback.format_exc(limit=6)
        return Prepared(res)
    if g.error:
        res.status, res.reason = "invalid", g.error
        return Prepared(res)
    fp = g.functions[case.name]
    try:
        k = translate(fp, app_dir, g.functions)
    except Exception as e:
        res.status, res.reason = "crash", f"frontend: {type(e).__name__}: {e}"
        res.details["crash"] = traceback.format_exc(limit=8)
        return Prepared(res)
    if isinstance(k, Rejected):
        res.status, res.reason = "rejected", k.reason
        return Prepared(res)
    if kernel_name:
        k.name = kernel_name
    return prepare_kernel(Prepared(res, k), fp, len(case.calls), csim_dir, rtl_dir, board, rtl_max_cycles)


def prepare_kernel(
    out: Prepared,
    fp: FunctionProfile,
    calls: int,
    csim_dir: Path,
    rtl_dir: Path | None,
    board: Board,
    rtl_max_cycles: int = rtlsim.MAX_COMPUTE_CYCLES,
) -> Prepared:
    """An accepted kernel's vectors (Python's results) and its files for the batched backends."""
    res, k = out.result, out.kernel
    assert k is not None
    try:
        vectors = kernel_vectors(k, fp)
    except Exception as e:
        res.stages["vectors"] = "error"
        res.details["vectors"] = f"{type(e).__name__}: {e}"
        return out
    res.vectors = len(vectors)
    profiled = sum(1 for v in vectors if v.label.startswith("profiled"))
    if profiled != calls:  # (edge and unseen calls that do not fit the compiled kernel give none)
        res.stages["vectors"] = "fail"
        res.details["vectors"] = f"{calls - profiled} of {calls} calls gave no vector"
    else:
        res.stages["vectors"] = "pass"
    if not vectors:
        return out
    if k.status is not None:  # each vector's expected fallback register, from the IR interpreter
        interpreter_check(k, vectors, max_steps=FUZZ_STEPS)
    out.vectors = vectors
    try:
        csim.write_kernel(k, vectors, csim_dir)
        res.stages["csim"] = "pending"
    except Exception as e:
        res.stages["csim"] = "error"
        res.details["csim"] = f"generate_hls: {type(e).__name__}: {e}"
    if rtl_dir is not None:
        try:
            out.rtl_item = rtlsim.prepare(
                k,
                vectors,
                board,
                rtl_dir / k.name,
                res.seed,
                rtl_max_cycles,
                streams=rtlsim.streams_for(k, res.seed),
            )
            res.rtl_streams = [s["name"] for s in out.rtl_item.streams]
            res.stages["rtl"] = "pending"
            res.rtl_variant = out.rtl_item.variant
            res.rtl_drawn = out.rtl_item.drawn
            res.rtl_fallback = out.rtl_item.fallback
            res.rtl_board = out.rtl_item.board
        except RtlUnsupported as e:
            res.stages["rtl"] = "unsupported"
            res.details["rtl"] = e.message
        except rtlsim.TooLong as e:
            res.stages["rtl"] = "skipped"
            res.details["rtl"] = str(e)
        except PartitionError as e:
            res.stages["rtl"] = "error"
            res.details["rtl"] = f"generate_rtl: {e.message}"
        except Exception as e:
            res.stages["rtl"] = "error"
            res.details["rtl"] = f"generate_rtl: {type(e).__name__}: {e}"
    return out


def triage(p: Prepared) -> None:
    """After a backend disagreed: does the IR itself (the frontend's output) agree with Python?"""
    if p.kernel is None or not p.vectors:
        return
    r = p.result
    try:
        diff = check_ir(p.kernel, p.vectors)
        r.stages["ir"] = "fail" if diff else "pass"
        if diff:
            r.details["ir"] = diff
    except Exception as e:
        r.stages["ir"] = "error"
        r.details["ir"] = f"{type(e).__name__}: {e}"


def wants_rtl(seed: int, fraction: float) -> bool:
    """A fixed, seed-determined choice of the cases that also go through RTL simulation."""
    return (seed * 2654435761) % 1000 < round(fraction * 1000)


# ------------------------------------------------------------------ batches


def backends(batch: list[Prepared], csim_dir: Path, rtl_dir: Path, keep: bool = False) -> None:
    """Run the batched C and RTL simulations of `batch`; results go into each case's stages."""
    names = [
        p.kernel.name for p in batch if p.kernel is not None and p.result.stages.get("csim") == "pending"
    ]
    if names:
        for name, r in csim.run_batch(names, csim_dir).items():
            p = next(p for p in batch if p.kernel is not None and p.kernel.name == name)
            p.result.stages["csim"] = r.status
            if r.detail and r.status != "pass":
                p.result.details["csim"] = r.detail
    items = [p.rtl_item for p in batch if p.rtl_item is not None]
    if items:
        for name, r in rtlsim.run_batch(items, rtl_dir).items():
            p = next(p for p in batch if p.kernel is not None and p.kernel.name == name)
            p.result.stages["rtl"] = r.status
            if r.status != "pass":
                p.result.details["rtl"] = r.detail
    for p in batch:
        if p.result.findings:
            triage(p)
    if not keep:
        for p in batch:
            if p.kernel is not None and not p.result.findings:
                shutil.rmtree(csim_dir / p.kernel.name, ignore_errors=True)
                shutil.rmtree(rtl_dir / p.kernel.name, ignore_errors=True)


def fuzz(
    seeds: range,
    work: Path,
    *,
    rtl_fraction: float = 0.3,
    float_fraction: float = 0.25,
    batch: int = 100,
    board: str | None = None,
    keep: bool = False,
    progress: Callable[[str], None] | None = None,
) -> Summary:
    """Run the cases of `seeds`; scratch files go under `work` (failing cases' files stay).
    `board`: the board every RTL build targets (None: drawn by seed among rtlsim.RTL_BOARDS)."""
    t0 = time.monotonic()
    boards = {name: load_board(name) for name in ((board,) if board else rtlsim.RTL_BOARDS)}
    app_dir = work / "app"
    app_dir.mkdir(parents=True, exist_ok=True)
    use_rtl = rtl_fraction > 0 and rtlsim.available()
    results: list[CaseResult] = []
    seed_list = list(seeds)
    pending: Future | None = None
    with ThreadPoolExecutor(max_workers=1) as pool:
        for start in range(0, len(seed_list), batch):
            chunk = seed_list[start : start + batch]
            csim_dir = work / "csim" / f"b{start // batch}"
            rtl_dir = work / "rtl" / f"b{start // batch}"
            csim_dir.mkdir(parents=True, exist_ok=True)
            prepared = []
            for seed in chunk:
                case = generate(seed, float_fraction=float_fraction)
                pick = use_rtl and not case.floats and wants_rtl(seed, rtl_fraction)
                brd = boards[board or rtlsim.board_for(seed)]
                prepared.append(prepare_case(case, app_dir, csim_dir, rtl_dir if pick else None, brd))
            if pending is not None:
                pending.result()
            pending = pool.submit(backends, prepared, csim_dir, rtl_dir, keep)
            results.extend(p.result for p in prepared)
            if progress:
                progress(f"prepared {len(results)} of {len(seed_list)} cases")
        if pending is not None:
            pending.result()
    for r in results:
        for s, v in list(r.stages.items()):
            if v == "pending":
                r.stages[s] = "error"
                r.details[s] = "no result"
    first, last = (seed_list[0], seed_list[-1]) if seed_list else (0, -1)
    return Summary((first, last), results, time.monotonic() - t0, rtl_fraction, float_fraction)
