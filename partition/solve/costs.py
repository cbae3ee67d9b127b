"""The cost model: profile + kernels + estimates + board constants -> a `Problem`.

What one accelerated call costs on the board (blocking, the `latency` objective),
as the host runtime performs it:

* **compute**: the kernel's cycles (load, compute, store phases) at the PL clock;
* **call overhead**: the Python wrapper's fixed cost, one MMIO write per 32-bit
  argument word plus the start write, one MMIO read to see ap_done (and one per
  word of a scalar return), and a cache flush/invalidate per array buffer;
* **copy-out** of the arrays the kernel writes into the caller's memory: arrays
  it modifies in place (their new contents go back into the caller's array)
  and returned Python lists. A returned numpy array costs no copy: the runtime
  lends the kernel's (cacheable) device buffer to the app as the result, after
  an invalidate, and takes it back when the app drops it (`lend_bytes` in the
  runtime bounds what is lent at a time; beyond it results are copied).

Array data flowing into an FPGA task is copied into a contiguous (CMA) buffer:
that cost sits on the data edge and is charged whenever the consumer runs on
the FPGA. Except when the data is an array an FPGA task returned, passed on as
the same object (the profile's `direct_bytes` of the edge): that array already
is a device buffer, which the runtime flushes and hands to the consumer kernel,
so FPGA -> FPGA the data stays in DDR and only the rest of the edge's bytes are
copied (c11 < c01). Scalars travel in registers and cost only their MMIO writes.

CPU times scale from the profiling host to the board by the ratio of their
times on the same micro-benchmarks, one per class of CPU work (`Scaling`); a
profile made on the board itself is used as measured.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from partition import ir
from partition.boards import RESOURCES, Board
from partition.estimate import Estimate, KernelVariant, estimate_variant
from partition.estimate.schedule import stream_beats
from partition.profile.model import MAIN, Edge, FunctionProfile, Profile
from partition.regmap import register_map
from partition.solve.model import ChainCost, EdgeCost, Problem, TaskCost, Variant

# per call, the array bytes above which a function's compiled-code time is taken as bound by
# the board's DDR bandwidth (numpy_memory) rather than by its core (numpy_compute): beyond the
# Cortex-A9's 512 KB and the A53's 1 MB L2
MEMORY_BOUND_BYTES = 1 << 20
CLASS_KEYS = {"interp": "bench_ns", "numpy_compute": "numpy_compute_ns", "numpy_memory": "numpy_memory_ns"}


@dataclass
class Scaling:
    """How profiled CPU seconds become board seconds: one ratio per class of CPU work (the
    board's figure over the profiling host's, `partition.profile.bench`), each with the range
    the board figure's stated uncertainty gives. A function's time is split by its measured
    `native_fraction` into interpreter time and time in compiled code (numpy), each scaled by
    its own ratio; without the split (or host figures for the numpy classes) all of it scales
    like the interpreter."""

    factor: float  # the interpreter's ratio
    host_bench_ns: float | None
    board_bench_ns: float
    on_board: bool
    ratios: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # class -> (ratio, low, high)
    source: str = ""

    def to_json(self) -> dict:
        return {
            "factor": self.factor,
            "host_bench_ns": self.host_bench_ns,
            "board_bench_ns": self.board_bench_ns,
            "profiled_on_board": self.on_board,
            "source": self.source,
            "classes": {c: {"ratio": r, "low": lo, "high": hi} for c, (r, lo, hi) in self.ratios.items()},
        }

    def _ratio(self, cls: str, k: int) -> float:
        if cls in self.ratios:
            return self.ratios[cls][k]
        return self.ratios["interp"][k] if "interp" in self.ratios else self.factor

    def of(self, fp: FunctionProfile, k: int = 0) -> float:
        """The ratio for function `fp`'s time (k = 0: the figure, 1: low end, 2: high end)."""
        interp = self._ratio("interp", k)
        nf = fp.native_fraction or 0.0
        if not nf:
            return interp
        return (1 - nf) * interp + nf * self._ratio(numpy_class(fp), k)

    def spread(self) -> tuple[float, float]:
        """The interpreter ratio's low and high ends over its figure."""
        r = self.ratios.get("interp")
        return (r[1] / r[0], r[2] / r[0]) if r else (1.0, 1.0)


def numpy_class(fp: FunctionProfile) -> str:
    """Which numpy class a function's compiled-code time belongs to, by the array bytes one call passes."""
    nbytes = 0
    for sig in fp.arg_sigs:
        if sig.get("type") == "ndarray" and sig.get("shape") is not None:
            n = 1
            for d in sig["shape"]:
                n *= int(d)
            nbytes += n * int(np.dtype(sig["dtype"]).itemsize)
    return "numpy_memory" if nbytes > MEMORY_BOUND_BYTES else "numpy_compute"


def cpu_scaling(profile: Profile, board: Board) -> Scaling:
    cpu = board.cpu
    board_ns = float(cpu["bench_ns"])
    if profile.host.get("board") == board.name:
        return Scaling(
            1.0, profile.host.get("bench_ns"), board_ns, True, {}, "the profile was made on the board"
        )
    host_ns = profile.host.get("bench_ns")
    if not host_ns:
        return Scaling(
            1.0, None, board_ns, False, {}, "no host measurement in the profile: times used as profiled"
        )
    figures = profile.host.get("bench") or {"interp": {"ns": host_ns}}
    ratios = {}
    for cls, key in CLASS_KEYS.items():
        f = figures.get(cls)
        if not f or not f.get("ns"):
            continue
        lo, hi = cpu[f"{key}_range"]
        host = float(f["ns"])
        ratios[cls] = (float(cpu[key]) / host, float(lo) / host, float(hi) / host)
    kinds = {board.source("cpu", k).split(":", 1)[0].strip() for k in CLASS_KEYS.values()}
    what = "board measurements" if kinds == {"measured"} else "board figures (estimates unless measured)"
    source = f"host micro-benchmarks in the profile vs {what} in boards/{board.path} [cpu]"
    return Scaling(ratios["interp"][0], float(host_ns), board_ns, False, ratios, source)


@dataclass
class CallCost:
    """Seconds one call of a kernel costs beyond its compute cycles (on average over the calls).

    The runtime writes only the argument registers whose value changed since the kernel's last
    call: `mmio_writes` is what a call after the first writes (the scalar arguments, which may
    change, the pointers of outputs the app keeps, which do, and ap_start), `mmio_writes_first`
    what the first call writes (every argument); `overhead_s` spreads the difference over the
    calls."""

    mmio_writes: int
    mmio_reads: int
    buffers: int
    overhead_s: float
    copy_out_bytes: int  # per call
    mmio_writes_first: int = 0

    def to_json(self) -> dict:
        return {
            "mmio_writes": self.mmio_writes,
            "mmio_writes_first": self.mmio_writes_first,
            "mmio_reads": self.mmio_reads,
            "buffers": self.buffers,
            "overhead_s": self.overhead_s,
            "copy_out_bytes": self.copy_out_bytes,
        }


def call_cost(kernel: ir.Kernel, board: Board, calls: int = 1) -> CallCost:
    itf = board.interface
    rm = register_map(kernel)
    first = rm.argument_words + 1  # arguments, then ap_start
    # later calls: pooled input buffers come back at the same addresses; an output lent to the
    # app is a new buffer each call, and a scalar may change
    moving = {p.name for p in kernel.params if p.kind == "scalar" or (p.kind == "array" and lent(p))}
    steady = 1 + sum(r.words for r in rm.registers if r.kind in ("pointer", "scalar") and r.name in moving)
    writes = steady + (first - steady) / max(calls, 1)  # on average
    reads = 1  # the read that sees ap_done
    for r in rm.registers:
        if r.kind == "return":
            reads += r.words
    buffers = sum(1 for p in kernel.arrays if not p.stream)  # a streamed array has no buffer
    overhead_us = (
        float(itf["call_overhead_us"])
        + writes * float(itf["mmio_write_us"])
        + reads * float(itf["mmio_read_us"])
        + buffers * float(itf["sync_us"])
    )
    copy_out = sum(
        p.nbytes for p in kernel.arrays if p.direction in ("out", "inout") and not lent(p) and not p.stream
    )
    return CallCost(steady, reads, buffers, overhead_us * 1e-6, copy_out, first)


def lent(p: ir.Param) -> bool:
    """Whether the runtime hands this output to the app as its device buffer (no copy-out)."""
    return p.origin[0] == "return" and p.pytype == "ndarray"


def copy_to_fpga_s(nbytes: int, board: Board) -> float:
    return nbytes / (float(board.interface["copy_to_cma_MBps"]) * 1e6)


def copy_in_s(e: Edge, board: Board, src_on_fpga: bool) -> float:
    """The copy into device buffers an edge costs when its consumer runs on the FPGA.

    With the producer on the FPGA too, the arrays it returned and that reach
    the consumer as the same objects (`direct_bytes`) already are device
    buffers: only the rest is copied.
    """
    return copy_to_fpga_s(e.bytes - (e.direct_bytes if src_on_fpga else 0), board)


def copy_from_fpga_s(nbytes: int, board: Board) -> float:
    return nbytes / (float(board.interface["copy_from_cma_MBps"]) * 1e6)


@dataclass
class TaskFigures:
    """Everything the plan reports about one FPGA-capable task."""

    name: str
    calls: int
    cpu_s: float
    compute_s: float  # all calls
    overhead_s: float  # all calls
    copy_out_s: float  # all calls
    call: CallCost

    @property
    def fpga_s(self) -> float:
        return self.compute_s + self.overhead_s + self.copy_out_s


def task_figures(
    name: str, calls: int, cpu_s: float, kernel: ir.Kernel, est: Estimate, board: Board
) -> TaskFigures:
    cc = call_cost(kernel, board, calls)
    return TaskFigures(
        name=name,
        calls=calls,
        cpu_s=cpu_s,
        compute_s=calls * est.seconds,
        overhead_s=calls * cc.overhead_s,
        copy_out_s=calls * copy_from_fpga_s(cc.copy_out_bytes, board),
        call=cc,
    )


def stream_ends(producer: ir.Kernel, consumer: ir.Kernel, param: str) -> tuple[str, str]:
    """The kernel parameters an AXI-Stream chain connects: the producer's returned array
    and the consumer's array for Python parameter `param`."""
    outs = [p for p in producer.arrays if p.origin[0] == "return"]
    pos = consumer.py_params.index(param) if param in consumer.py_params else -1
    ins = [p for p in consumer.arrays if p.origin == ("arg", pos)]
    if len(outs) != 1 or len(ins) != 1 or outs[0].direction != "out" or ins[0].direction != "in":
        raise ValueError(f"{producer.name} -> {consumer.name}.{param}: not one out-array into one in-array")
    a, b = outs[0], ins[0]
    if a.dtype != b.dtype or a.nbytes != b.nbytes:
        raise ValueError(f"{producer.name} -> {consumer.name}.{param}: the arrays differ in type or size")
    return a.name, b.name


def chain_cost(
    src: str,
    dst: str,
    ends: tuple[ir.Kernel, ir.Kernel],
    param: str,
    variants: tuple[list[KernelVariant], list[KernelVariant]],
    calls: int,
    board: Board,
) -> ChainCost:
    """What chaining task `src` into task `dst` by AXI-Stream saves, per variant of each end.

    `ends`: their kernels; `param`: dst's Python parameter that receives src's
    result; `variants`: the implementation variants of each end, with their
    estimates (`kernel_variants`); `calls`: calls of each.

    Each end is costed twice with the same directives, as built (the array in
    DDR: the producer's store phase, the consumer's load phase, their buffers'
    cache maintenance and pointer registers; the variant's own estimate) and with
    the array as a stream port (`ir.with_streams`: 64-bit beats instead, estimated
    here); an end's share is the difference plus the stream's time, and the chain
    pays the stream once, since the two ends stream at the same time. Both are
    model estimates (a calibrated variant has no measured stream twin, so its
    in-DDR side is the model's again), so the share is the model's difference.
    """
    producer, consumer = ends
    out_name, in_name = stream_ends(producer, consumer, param)
    beats_s = stream_beats(producer.param(out_name).nbytes) / (board.pl_mhz * 1e6)

    def shares(kernel: ir.Kernel, port: str, kvs: list[KernelVariant]) -> dict[str, float]:
        streamed = ir.with_streams(kernel, [port])
        out = {}
        for kv in kvs:
            d = kv.directives
            ddr = kv.estimate if kv.estimate.source == "model" else estimate_variant(kernel, board, d)
            whole = task_figures(kernel.name, calls, 0.0, kernel, ddr, board)
            part = task_figures(
                kernel.name, calls, 0.0, streamed, estimate_variant(streamed, board, d), board
            )
            out[d.name] = max(0.0, whole.fpga_s - part.fpga_s + calls * beats_s)
        return out

    return ChainCost(
        src,
        dst,
        shares(producer, out_name, variants[0]),
        shares(consumer, in_name, variants[1]),
        calls * beats_s,
    )


def budget(board: Board, max_util: float) -> dict[str, float]:
    """Usable resources: the utilisation cap of the device minus the overlay's fixed shell."""
    return {r: max_util * float(board.resources[r]) - float(board.shell.get(r, 0)) for r in RESOURCES}


def build_problem(
    profile: Profile,
    figures: dict[str, TaskFigures],
    estimates: dict[str, Estimate],
    board: Board,
    scaling: Scaling,
    max_util: float,
    pins: dict[str, str],
    variants: dict[str, list[tuple[str, TaskFigures, Estimate]]] | None = None,
) -> Problem:
    """The problem over the FPGA-capable tasks (objective latency; the caller may change it).

    `variants` (task -> (name, figures, estimate) per implementation variant)
    gives a task its variants; without it a task has the one of `figures` and
    `estimates`.
    """
    tasks = []
    for name in sorted(figures):
        f = figures[name]
        e = estimates[name]
        opts = [
            Variant(vname, vf.fpga_s, {r: float(getattr(ve, r)) for r in RESOURCES})
            for vname, vf, ve in (variants or {}).get(name, [])
        ]
        tasks.append(
            TaskCost(
                name=name,
                cpu_s=f.cpu_s,
                fpga_s=None if opts else f.fpga_s,
                resources={} if opts else {"lut": e.lut, "ff": e.ff, "dsp": e.dsp, "bram18": e.bram18},
                pin=pins.get(name),
                variants=opts,
            )
        )
    capable = set(figures)
    all_cpu = all_cpu_seconds(profile, scaling)
    base = all_cpu - sum(t.cpu_s for t in tasks)
    edges = []
    for e in sorted(profile.edges, key=lambda e: (e.src, e.dst, e.what)):
        if e.dst not in capable:
            continue
        if not is_array_edge(e, profile):
            continue
        src_fp = profile.functions.get(e.src)
        # a callee returning data to the caller that inlines it: no transfer
        callee_to_caller = src_fp is not None and e.dst in src_fp.ancestors
        c01 = 0.0 if callee_to_caller else copy_in_s(e, board, False)
        c11 = 0.0 if callee_to_caller else copy_in_s(e, board, True)
        edges.append(EdgeCost(e.src if e.src in capable else MAIN, e.dst, c01=c01, c11=c11))
    exclusive = []
    for name in sorted(capable):
        for anc in sorted(profile.functions[name].ancestors):
            if anc in capable:
                exclusive.append((anc, name))
    return Problem(
        tasks=tasks,
        edges=_merge_edges(edges),
        budget=budget(board, max_util),
        base_s=base,
        exclusive=exclusive,
    )


def is_array_edge(e: Edge, profile: Profile) -> bool:
    """Whether an edge carries array data (scalars go through registers)."""
    fp = profile.functions.get(e.dst)
    if fp is None:
        return True
    labels = {w.strip() for w in e.what.split(",")}
    known = False
    for name, sig in zip(fp.params, fp.arg_sigs):
        if name in labels:
            known = True
            if sig.get("type") in ("ndarray", "list", "tuple"):
                return True
    return not known


def _merge_edges(edges: list[EdgeCost]) -> list[EdgeCost]:
    merged: dict[tuple[str, str], EdgeCost] = {}
    for e in edges:
        m = merged.setdefault((e.src, e.dst), EdgeCost(e.src, e.dst))
        m.c00 += e.c00
        m.c01 += e.c01
        m.c10 += e.c10
        m.c11 += e.c11
    return [merged[k] for k in sorted(merged)]


def all_cpu_seconds(profile: Profile, scaling: Scaling, k: int = 0) -> float:
    """The whole app on the board's CPU (k: 0 the figure, 1 and 2 its low and high ends).

    From the instrumented run, the same run the task times come from, so the
    parts add up (the profiler subtracts its own per-call cost from them). The compiled-code
    time of the outermost functions whose split was measured scales by its own ratio, the
    rest like the interpreter.
    """
    return _split_seconds(profile, scaling, profile.wall_s, None, k)


def task_cpu_seconds(profile: Profile, scaling: Scaling, name: str, k: int = 0) -> float:
    """Task `name`'s time (all calls, callees included) on the board's CPU: by its own split when
    it was measured, else like `all_cpu_seconds` over the calls below it (a driver such as
    `main` is not replayed, but the functions it calls were)."""
    fp = profile.functions[name]
    if fp.native_fraction is not None:
        return fp.total_s * scaling.of(fp, k)
    return _split_seconds(profile, scaling, fp.total_s, name, k)


def _split_seconds(profile: Profile, scaling: Scaling, total_s: float, under: str | None, k: int) -> float:
    """`total_s` of interpreter time, corrected by the outermost measured functions below
    `under` (None: the whole app), whose compiled-code share scales by its own ratio."""
    measured = {
        n for n, fp in profile.functions.items() if fp.native_fraction is not None and (
            under is None or under in fp.ancestors)
    }  # fmt: skip
    interp = scaling.of(_NO_SPLIT, k)
    total = total_s * interp
    for name in sorted(measured):
        fp = profile.functions[name]
        if measured & set(fp.ancestors):
            continue  # inside an outer measured call: counted there
        total += fp.total_s * (scaling.of(fp, k) - interp)
    return total


_NO_SPLIT = FunctionProfile(name="", qualname="", file="", line=0)
