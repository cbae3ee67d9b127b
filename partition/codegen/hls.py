"""Vitis HLS C++ backend: one kernel IR -> the files of hls/<task>/ in the build tree.

    <task>.h  <task>.cpp     the top function (DESIGN.md §4): m_axi arrays, s_axilite scalars and control
    <task>_tb.cpp            C-simulation testbench over the vectors below
    vectors/                 profiled (and edge) inputs with their expected outputs, raw little-endian
    run_hls.tcl              csim, csynth, cosim and IP export under Vitis HLS

The kernel follows the shared microarchitecture: copy every in/inout array into
a local buffer `<name>_buf`, compute on buffers and registers (innermost loops
pipelined), copy out/inout buffers back. Every IR operation keeps numpy's exact
semantics through hls/partition_ops.h, so the same file compiles with plain g++
here (`csim_command`) and under Vitis HLS, and C simulation on the profiled
vectors proves the C++ computes what the Python did.
"""

from __future__ import annotations

import math
import re
from pathlib import PurePath
from typing import Any

from partition import ir
from partition.codegen.cexpr import (
    ArrayRef,
    ExprPrinter,
    c_string,
    check_identifier,
    ctype,
    literal,
)
from partition.dtypes import DTYPES, DType
from partition.errors import PartitionError
from partition.estimate.schedule import ram_geometry, stream_beats
from partition.names import CPP_RESERVED, printable
from partition.templating import render
from partition.vectors import VectorSet, bin_files

# One compile line for C simulation, shared by the build tree's Makefile and the tests.
# -ffp-contract=off: no fused multiply-add, so float results are the IEEE operations
#   numpy performs (GCC contracts by default on targets with FMA, e.g. aarch64).
# -fno-fast-math: keep NaN/inf/signed-zero semantics even if a user's CXXFLAGS say otherwise.
# -Wno-unknown-pragmas: g++ does not know `#pragma HLS`.
# -Wno-unused-label: loop labels name loops for Vitis HLS (pragmas, reports), nothing jumps to them.
CSIM_FLAGS: tuple[str, ...] = (
    "-std=c++14",
    "-O1",
    "-ffp-contract=off",
    "-fno-fast-math",
    "-Wall",
    "-Wno-unknown-pragmas",
    "-Wno-unused-label",
)
CSIM_BINARY = "csim"

# Vitis HLS project layout under hls/<task>/ (run_hls.tcl creates it).
HLS_PROJECT = "prj"
HLS_SOLUTION = "sol1"

# Float outputs match when |got - want| <= atol + rtol * |want| (NaN matches NaN).
# C simulation of IEEE basic operations is bit-exact (the testbench reports the
# largest ulp distance); the margin covers the synthesised operators, which flush
# subnormals to zero (Floating-Point Operator, PG060), in co-simulation.
FLOAT_TOLERANCE: dict[str, tuple[float, float]] = {
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-15),
}

# Clock uncertainty for synthesis: the margin the estimator's schedule assumes
# (Vivado HLS's default; Vitis HLS would otherwise use 27 %).
CLOCK_UNCERTAINTY = "12.5%"


def csim_command(task: str, include_dir: str, extra_flags: tuple[str, ...] = ()) -> list[str]:
    """argv that builds the C-simulation executable; run it in the task folder.

    `include_dir` holds partition_ops.h (the build tree's hls/include, i.e.
    "../include" from hls/<task>/). The executable is `./csim`, run from the
    same folder (it reads vectors/).
    """
    return [
        "g++",
        *CSIM_FLAGS,
        *extra_flags,
        f"-I{include_dir}",
        f"{task}.cpp",
        f"{task}_tb.cpp",
        "-o",
        CSIM_BINARY,
    ]


def hls_ip_dir() -> str:
    """Where `export_design` leaves the IP (relative to hls/<task>/): Vivado's ip_repo_paths entry."""
    return f"{HLS_PROJECT}/{HLS_SOLUTION}/impl/ip"


def csynth_report(task: str) -> str:
    """The csynth XML report of a task (relative to hls/<task>/)."""
    return f"{HLS_PROJECT}/{HLS_SOLUTION}/syn/report/{task}_csynth.xml"


def generate_hls(
    kernel: ir.Kernel,
    vectors: list[VectorSet],
    *,
    part: str,
    clock_mhz: float,
    include_rel: str = "../include",
    directives: dict[str, Any] | None = None,
    bus_bits: int = 32,
) -> dict[str, bytes]:
    """All files of hls/<task>/ (paths relative to that folder) for `kernel`.

    `vectors` become the testbench's vectors/ (at least one). `part` and
    `clock_mhz` go into run_hls.tcl; `include_rel` is the folder holding
    partition_ops.h, relative to the task folder. `directives` are the chosen
    implementation variant's (partition.estimate.variants.Directives.to_json:
    "sequential" loop labels get PIPELINE off, "unroll" {label: factor} an
    UNROLL factor, "partition" {array: factor} a cyclic ARRAY_PARTITION of the
    array's local buffer); None is the base variant.

    `bus_bits` is the kernel's m_axi data width: the board's kernel_axi_bits, or the
    PS port's width for a burst-width variant (`Directives.bus`). The load and store loops
    move one bus word a cycle, as the estimate (partition.estimate.schedule's
    `ram_geometry`) and the built-in RTL do: the m_axi port may be widened to
    `bus_bits` (buffers from pynq.allocate are page-aligned), a buffer of
    narrower elements is reshaped so one RAM word holds a bus word's elements
    (`ARRAY_RESHAPE cyclic`, the estimate's packed RAM), and the copy loop is
    unrolled by that many elements. A buffer the variant partitions into banks
    keeps its banks (they give the copy loop as many ports).

    Array parameters marked `stream` (`ir.with_streams`: the kernel is in an
    AXI-Stream chain, partition.frontend.chains) are AXI-Stream ports: an in-array is read
    from `hls::stream<uint64_t>` beats into its buffer instead of its m_axi load,
    an out-array written to one after compute instead of its store, in the byte
    layout of the array in DDR (partition_ops.h, pack_beat), one beat a cycle. The
    testbench feeds and drains those streams from the same vectors.
    """
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", part or ""):
        raise PartitionError(f"HLS part {part!r} is not a Xilinx part name (e.g. xc7z020clg400-1)")
    if not (isinstance(clock_mhz, (int, float)) and math.isfinite(clock_mhz) and clock_mhz > 0):
        raise PartitionError(f"HLS clock {clock_mhz!r} MHz: give a positive frequency")
    if not re.fullmatch(r"[A-Za-z0-9_.\-/]+", include_rel) or include_rel.startswith("/"):
        raise PartitionError(f"HLS include folder {include_rel!r}: give a relative path without spaces")
    if not vectors:
        raise PartitionError(f"kernel {kernel.name}: no test vectors for the C-simulation testbench")

    if bus_bits not in (32, 64, 128):
        raise PartitionError(f"HLS m_axi width {bus_bits!r} bits: use 32, 64 or 128")
    view = _KernelView(kernel, directives, bus_bits)
    ctx = view.context()
    ctx.update(
        part=part,
        clock_period_ns=f"{1000.0 / clock_mhz:.3f}",
        clock_mhz=f"{clock_mhz:g}",
        clock_uncertainty=CLOCK_UNCERTAINTY,
        include_rel=include_rel,
        bus_bits=bus_bits,
        align_bytes=bus_bits // 8,
        streams=any(p.stream for p in kernel.params),
        project=HLS_PROJECT,
        solution=HLS_SOLUTION,
        labels=[c_string(v.label or f"vector {k}") for k, v in enumerate(vectors)],
        readme_labels=[printable(v.label or f"vector {k}") for k, v in enumerate(vectors)],
        nvectors=len(vectors),
        tolerance=[
            {"dtype": name, "rtol": repr(rt), "atol": repr(at)} for name, (rt, at) in FLOAT_TOLERANCE.items()
        ],
    )
    task = kernel.name
    files: dict[str, bytes] = {
        f"{task}.h": render("hls/kernel.h.j2", **ctx).encode(),
        f"{task}.cpp": render("hls/kernel.cpp.j2", **ctx).encode(),
        f"{task}_tb.cpp": render("hls/tb.cpp.j2", **ctx).encode(),
        "run_hls.tcl": render("hls/run_hls.tcl.j2", **ctx).encode(),
        "vectors/README": render("hls/vectors_README.j2", **ctx).encode(),
    }
    files.update(bin_files(kernel, view.ret_dtype, vectors))
    return dict(sorted(files.items()))


# ====================================================================== kernel


def _tolerance(dt: DType) -> dict[str, str]:
    """rtol/atol of a float dtype as C++ literals (0 for exact types)."""
    rtol, atol = FLOAT_TOLERANCE.get(dt.name, (0, 0))
    return {"rtol": repr(rtol), "atol": repr(atol)}


class _Names:
    """Fresh C++ identifiers that collide with nothing the kernel already names."""

    def __init__(self, taken: set[str]):
        self.taken = set(taken) | set(CPP_RESERVED)

    def fresh(self, base: str) -> str:
        name, k = base, 2
        while name in self.taken:
            name = f"{base}_{k}"
            k += 1
        self.taken.add(name)
        return name


def _int_range(e: ir.Expr, where: str) -> tuple[int, int]:
    """Values a loop bound can take: exact for constants, the dtype's range otherwise."""
    dt = e.dtype
    if dt.is_float:
        raise PartitionError(f"{where}: loop bound of type {dt} (range() needs integers)")
    if isinstance(e, ir.Const):
        v = int(e.value)
        return v, v
    if dt.is_bool:
        return 0, 1
    return dt.min, dt.max


def _fits(dt: DType, lo: int, hi: int) -> bool:
    return dt.is_int and dt.min <= lo and hi <= dt.max


def _vars_in(exprs: list[ir.Expr]) -> set[str]:
    return {x.name for e in exprs for x in ir.walk_expr(e) if isinstance(x, ir.Var)}


def _arrays_in(exprs: list[ir.Expr]) -> set[str]:
    return {x.array for e in exprs for x in ir.walk_expr(e) if isinstance(x, ir.Load)}


def _has_loop(body: list[ir.Stmt]) -> bool:
    return any(isinstance(s, ir.For) for s in ir.walk_stmts(body))


def _breaks_out(body: list[ir.Stmt]) -> bool:
    """A Break that leaves this loop (not one of a nested loop)."""
    for s in body:
        if isinstance(s, ir.Break):
            return True
        if isinstance(s, ir.If) and (_breaks_out(s.then) or _breaks_out(s.orelse)):
            return True
    return False


class _KernelView:
    """The kernel prepared for the templates: names, buffers, statements as dicts."""

    def __init__(self, kernel: ir.Kernel, directives: dict[str, Any] | None = None, bus_bits: int = 32):
        self.k = kernel
        self.bus_bits = bus_bits
        d = directives or {}
        self.sequential = set(d.get("sequential", ()))
        self.unroll = {str(k): int(v) for k, v in d.get("unroll", {}).items()}
        self.partition = {str(k): int(v) for k, v in d.get("partition", {}).items()}
        src = kernel.source_file
        if src and PurePath(src).is_absolute():
            src = PurePath(src).name
        self.source_file = printable(src)
        self.source = f"{self.source_file}:{kernel.source_line}" if src else "kernel IR"
        self.where = f"{self.source} (kernel {kernel.name})"
        self._check()
        self.ret_dtype = self._ret_dtype()

        names = {kernel.name} | {p.name for p in kernel.params} | {a.name for a in kernel.locals}
        names |= set(kernel.scalars)
        self.names = _Names(names)
        self.labels = _Names(set())
        for s in ir.walk_stmts(kernel.body):
            if isinstance(s, ir.For) and s.label:
                check_identifier(s.label, f"{self.where}: loop label")
                if s.label in self.labels.taken:
                    raise PartitionError(f"{self.where}: loop label {s.label} is used twice")
                self.labels.taken.add(s.label)

        self.buffers: dict[str, str] = {p.name: self.names.fresh(f"{p.name}_buf") for p in kernel.arrays}
        arrays = {p.name: ArrayRef(self.buffers[p.name], p.shape, p.dtype) for p in kernel.arrays}
        arrays.update({a.name: ArrayRef(a.name, a.shape, a.dtype) for a in kernel.locals})
        scalars = {name: name for name in kernel.scalars}
        scalars.update({p.name: p.name for p in kernel.scalar_params})
        self.printer = ExprPrinter(arrays, scalars, self.where)
        self._scan()
        self.declared: set[str] = set()  # loop variables a wider counter assigns (declared at the top)
        ends_with_return = bool(kernel.body) and isinstance(kernel.body[-1], ir.Return)
        self.body = self._block(kernel.body[:-1] if ends_with_return else kernel.body, ())
        params = {p.name for p in kernel.scalar_params}
        self.top_scalars = {v for v in self.read if v not in params and v in self.escaped} | self.declared

    # ---------------------------------------------------------- validation

    def _check(self) -> None:
        k = self.k
        check_identifier(k.name, "kernel name")
        tb_names = {"tb_probe", "tb_passed", "tb_k", "tb_errors", "tb_got_return", "tb_want_return"}
        tb_names |= {"tb_verdict", "tb_vectors", "tb_labels"}
        tb_names |= {f"{prefix}_{p.name}" for p in k.params for prefix in ("arg", "want", "strm")}
        if k.name in tb_names:
            raise PartitionError(
                f"kernel name {k.name} clashes with a name of its testbench; rename the task"
            )
        seen: set[str] = set()
        for p in k.params:
            check_identifier(p.name, f"{self.where}: parameter")
            if p.name in seen:
                raise PartitionError(f"{self.where}: parameter {p.name} appears twice")
            seen.add(p.name)
            if p.kind == "array":
                if not p.shape or any(int(d) <= 0 for d in p.shape):
                    raise PartitionError(f"{self.where}: array parameter {p.name} has shape {p.shape}")
                if p.direction not in ("in", "out", "inout"):
                    raise PartitionError(
                        f"{self.where}: array parameter {p.name} has direction {p.direction!r}"
                    )
                if p.stream and p.direction == "inout":
                    raise PartitionError(f"{self.where}: inout array {p.name} cannot be an AXI-Stream port")
            elif p.kind != "scalar":
                raise PartitionError(f"{self.where}: parameter {p.name} has kind {p.kind!r}")
        for a in k.locals:
            check_identifier(a.name, f"{self.where}: local array")
            if a.name in seen:
                raise PartitionError(f"{self.where}: local array {a.name} reuses a parameter's name")
            seen.add(a.name)
            if not a.shape or any(int(d) <= 0 for d in a.shape):
                raise PartitionError(f"{self.where}: local array {a.name} has shape {a.shape}")
            if a.init is not None and len(a.init) != a.size:
                raise PartitionError(
                    f"{self.where}: local array {a.name} has {len(a.init)} initial values for {a.size} elements"
                )
        params = {p.name: p for p in k.params}
        for name, dt in k.scalars.items():
            check_identifier(name, f"{self.where}: scalar")
            p = params.get(name)
            if (p is not None and (p.kind != "scalar" or p.dtype != dt)) or any(
                a.name == name for a in k.locals
            ):
                raise PartitionError(f"{self.where}: scalar {name} clashes with another kernel object")
        for i, s in enumerate(k.body):
            if isinstance(s, ir.Return) and i != len(k.body) - 1:
                raise PartitionError(f"{self.where}: return at line {s.line} is not the last statement")
        for s in ir.walk_stmts(k.body):
            if isinstance(s, ir.Return) and s is not (k.body[-1] if k.body else None):
                raise PartitionError(f"{self.where}: return at line {s.line} inside a loop or branch")

    def _ret_dtype(self) -> DType | None:
        last = self.k.body[-1] if self.k.body else None
        value = last.value if isinstance(last, ir.Return) else None
        if self.k.ret is not None and value is None:
            raise PartitionError(f"{self.where}: declares a {self.k.ret} return value but never returns one")
        if value is None:
            return None
        return self.k.ret or value.dtype

    # ------------------------------------------------------------ analysis

    def _scan(self) -> None:
        """Which scalars are read, and which are used outside every loop over them.

        A loop variable used only inside loops over it (the usual case) is
        declared in the `for` itself; one that is read after its loop (Python
        keeps the last value) or assigned elsewhere is declared at the top.
        """
        self.read: set[str] = set()
        self.escaped: set[str] = set()
        self.stored: set[str] = set()
        self.loaded: set[str] = set()

        def visit(body: list[ir.Stmt], loops: frozenset[str]) -> None:
            for s in body:
                exprs = ir.stmt_exprs(s)
                used = _vars_in(exprs)
                self.read |= used
                self.escaped |= used - loops
                self.loaded |= _arrays_in(exprs)
                if isinstance(s, ir.Assign) and s.var not in loops:
                    self.escaped.add(s.var)
                elif isinstance(s, ir.Store):
                    self.stored.add(s.array)
                elif isinstance(s, ir.For):
                    visit(s.body, loops | {s.var})
                elif isinstance(s, ir.If):
                    visit(s.then, loops)
                    visit(s.orelse, loops)

        visit(self.k.body, frozenset())
        params = {p.name for p in self.k.scalar_params}
        for v in sorted(self.read - params):
            if v not in self.k.scalars:
                raise PartitionError(f"{self.where}: scalar {v} is used but has no type in the kernel IR")

    # ---------------------------------------------------------- statements

    def _block(self, body: list[ir.Stmt], loops: tuple[str, ...]) -> list[dict[str, Any]]:
        """Statements as template dicts; `loops` are the variables of the enclosing loops."""
        out: list[dict[str, Any]] = []
        for s in body:
            out.extend(self._stmt(s, loops))
        return out

    def _stmt(self, s: ir.Stmt, loops: tuple[str, ...]) -> list[dict[str, Any]]:
        p = self.printer
        p.where = f"{self.where} line {s.line}" if s.line else self.where
        if isinstance(s, ir.Assign):
            if s.var not in self.k.scalars:
                raise PartitionError(f"{self.where}: line {s.line} assigns {s.var}, which has no type")
            if s.var not in self.read:
                return []  # never read: the (pure) value is dead
            return [{"kind": "assign", "target": s.var, "value": p.converted(s.value, self.k.scalars[s.var])}]
        if isinstance(s, ir.Store):
            target = p.element(s.array, s.index)
            return [
                {
                    "kind": "assign",
                    "target": target,
                    "value": p.converted(s.value, self.k.array_dtype(s.array)),
                }
            ]
        if isinstance(s, ir.If):
            return [
                {
                    "kind": "if",
                    "cond": p.expr(s.cond),
                    "then": self._block(s.then, loops),
                    "orelse": self._block(s.orelse, loops),
                }
            ]
        if isinstance(s, (ir.Break, ir.Continue)):
            if not loops:
                raise PartitionError(
                    f"{self.where}: line {s.line}: {type(s).__name__.lower()} outside a loop"
                )
            return [{"kind": type(s).__name__.lower()}]
        if isinstance(s, ir.For):
            return self._for(s, loops)
        raise PartitionError(f"{self.where}: unexpected statement {type(s).__name__} in the kernel IR")

    def _for(self, s: ir.For, loops: tuple[str, ...]) -> list[dict[str, Any]]:
        """A Python range() loop as a C++ for loop with the same iterations.

        The counter must never overflow: its type covers the start, the stop and
        the one step past the last iteration. If the loop variable's own type
        does and the variable lives only inside this loop (it is read only inside
        loops over it, assigned only by them, and no enclosing loop has the same
        variable, whose body could read it after this loop), it is the counter;
        otherwise a wider counter runs the loop and the variable gets
        its (wrapped) value at the top of each iteration, as Python's range does.
        """
        where = f"{self.where} line {s.line}"
        if s.var not in self.k.scalars:
            raise PartitionError(f"{where}: loop variable {s.var} has no type in the kernel IR")
        if not isinstance(s.step, int) or isinstance(s.step, bool) or s.step == 0:
            raise PartitionError(f"{where}: loop step {s.step!r} (a non-zero integer constant)")
        step = s.step
        vdt = self.k.scalars[s.var]
        (lo_a, hi_a), (lo_b, hi_b) = _int_range(s.start, where), _int_range(s.stop, where)
        # the counter holds the start, the stop (it is compared with it) and one step past the last value
        lo, hi = min(lo_a, lo_b), max(hi_a, hi_b)
        if step > 0:
            hi = max(hi, hi_b - 1 + step)
        else:
            lo = min(lo, lo_b + 1 + step)
        label = s.label or self.labels.fresh(f"L{s.line}" if s.line else "L")
        self.labels.taken.add(label)

        written = {x.var for x in ir.walk_stmts(s.body) if isinstance(x, (ir.Assign, ir.For))}
        in_place = (
            s.var not in self.escaped
            and s.var not in written
            and s.var not in loops
            and s.var not in {p.name for p in self.k.scalar_params}
            and _fits(vdt, lo, hi)
        )
        if in_place:
            counter_dt, counter = vdt, s.var
        else:
            counter_dt = next(
                (d for d in (vdt, DTYPES["int32"], DTYPES["int64"], DTYPES["uint64"]) if _fits(d, lo, hi)),
                None,
            )
            if counter_dt is None:
                return self._for_counted(s, loops, label, where)
            counter = self.names.fresh(f"{label}_{s.var}")

        out: list[dict[str, Any]] = []
        stop_reads = _vars_in([s.stop]) | _arrays_in([s.stop])
        stored_in_body = {x.array for x in ir.walk_stmts(s.body) if isinstance(x, ir.Store)}
        if isinstance(s.stop, ir.Const):
            stop = literal(int(s.stop.value), counter_dt)
        elif stop_reads & (written | stored_in_body | {s.var}):
            stop = self.names.fresh(f"{label}_stop")
            out.append(
                {
                    "kind": "const",
                    "ctype": ctype(counter_dt),
                    "name": stop,
                    "value": self._bound(s.stop, counter_dt),
                }
            )
        else:
            stop = self._bound(s.stop, counter_dt, operand=True)

        if isinstance(s.start, ir.Const):
            start = literal(int(s.start.value), counter_dt)
        else:
            start = self._bound(s.start, counter_dt)
        body: list[dict[str, Any]] = []
        if not in_place and s.var in self.read:
            self.declared.add(s.var)
            value = counter if counter_dt == vdt else f"pt::cast<{ctype(vdt)}>({counter})"
            body.append({"kind": "assign", "target": s.var, "value": value})
        body.extend(self._block(s.body, (*loops, s.var)))

        if step == 1:
            incr = f"++{counter}"
        elif step == -1:
            incr = f"--{counter}"
        else:
            incr = f"{counter} {'+' if step > 0 else '-'}= {abs(step)}"
        out.append(
            {
                "kind": "for",
                "label": label,
                "init": f"{ctype(counter_dt)} {counter} = {start}",
                "cond": f"{counter} {'<' if step > 0 else '>'} {stop}",
                "incr": incr,
                "pragmas": self._loop_pragmas(s),
                "body": body,
                "comment": f"{self.source_file}:{s.line}" if self.source_file and s.line else "",
            }
        )
        return out

    def _for_counted(self, s: ir.For, loops: tuple[str, ...], label: str, where: str) -> list[dict[str, Any]]:
        """A range() over 64-bit bounds whose last step would overflow any counter:
        iterate over the precomputed trip count, the value running modulo 2**64."""
        base = next(
            (
                d
                for d in (DTYPES["int64"], DTYPES["uint64"])
                if all(_fits(d, *_int_range(e, where)) for e in (s.start, s.stop))
            ),
            None,
        )
        if base is None:
            raise PartitionError(
                f"{where}: range() from {s.start.dtype} to {s.stop.dtype} mixes bounds no 64-bit type holds; "
                "cast both bounds to one type"
            )
        trips, n, value = (self.names.fresh(f"{label}_{x}") for x in ("trips", "n", s.var))
        start, stop = self._bound(s.start, base), self._bound(s.stop, base)
        body: list[dict[str, Any]] = []
        if s.var in self.read:
            self.declared.add(s.var)
            vdt = self.k.scalars[s.var]
            wrapped = value if vdt.name == "uint64" else f"pt::cast<{ctype(vdt)}>({value})"
            body.append({"kind": "assign", "target": s.var, "value": wrapped})
        body.extend(self._block(s.body, (*loops, s.var)))
        return [
            {
                "kind": "const",
                "ctype": "uint64_t",
                "name": trips,
                "value": f"pt::range_trips<{ctype(base)}>({start}, {stop}, {literal(s.step, DTYPES['int64'])})",
            },
            {
                "kind": "for",
                "label": label,
                "init": f"uint64_t {n} = 0, {value} = static_cast<uint64_t>({start})",
                "cond": f"{n} < {trips}",
                "incr": f"++{n}, {value} {'+' if s.step > 0 else '-'}= {abs(s.step)}U",
                "pragmas": self._loop_pragmas(s),
                "body": body,
                "comment": f"{self.source_file}:{s.line}" if self.source_file and s.line else "",
            },
        ]

    def _loop_pragmas(self, s: ir.For) -> list[str]:
        """Innermost loops are pipelined (or not, or unrolled, per the variant); a trip count where
        bounds vary or a break can leave early."""
        pragmas = []
        if not _has_loop(s.body):
            pragmas.append("PIPELINE off" if s.label in self.sequential else "PIPELINE")
            if s.label in self.unroll:
                pragmas.append(f"UNROLL factor={self.unroll[s.label]}")
        if not (isinstance(s.start, ir.Const) and isinstance(s.stop, ir.Const)) or _breaks_out(s.body):
            pragmas.append(f"LOOP_TRIPCOUNT min=0 max={int(s.trip_max)}")
        return pragmas

    def _bound(self, e: ir.Expr, dt: DType, operand: bool = False) -> str:
        """A loop bound in the counter's type (the counter's range covers the bound's)."""
        if e.dtype == dt:
            return self.printer.operand(e) if operand else self.printer.expr(e)
        return f"static_cast<{ctype(dt)}>({self.printer.expr(e)})"

    # -------------------------------------------------------------- context

    def context(self) -> dict[str, Any]:
        k = self.k
        # index of the copy loops: only an array of that name could clash with it
        loop_index = _Names({p.name for p in k.arrays} | set(self.buffers.values())).fresh("i")
        params = []
        for p in k.params:
            entry: dict[str, Any] = {
                "name": p.name,
                "kind": p.kind,
                "ctype": ctype(p.dtype),
                "dtype": p.dtype.name,
                "is_float": p.dtype.is_float,
                "direction": p.direction if p.kind == "array" else "in",
                "stream": p.stream,
            }
            if p.kind == "array":
                # elements per bus word in the buffer's RAM (1 for elements of a word or more)
                per_word = ram_geometry(p.name, p.dtype, p.size, "buffer", self.bus_bits).per_word
                entry.update(
                    buf=self.buffers[p.name],
                    size=p.size,
                    shape=list(p.shape),
                    shape_text=" x ".join(str(d) for d in p.shape),
                    nbytes=p.size * p.dtype.nbytes,
                    index_ctype="int32_t" if p.size < 2**31 else "int64_t",
                    load_label=self.labels.fresh(f"load_{p.name}") if p.direction in ("in", "inout") else "",
                    store_label=self.labels.fresh(f"store_{p.name}")
                    if p.direction in ("out", "inout")
                    else "",
                    decl=f"{'const ' if p.direction == 'in' else ''}{ctype(p.dtype)}* {p.name}",
                    beats=stream_beats(p.nbytes),
                    per_word=per_word,
                    reshape=per_word > 1 and p.name not in self.partition,
                    **_tolerance(p.dtype),
                )
                if entry["stream"]:
                    entry["decl"] = f"hls::stream<uint64_t>& {p.name}"
            else:
                entry.update(decl=f"{ctype(p.dtype)} {p.name}", nbytes=p.dtype.nbytes, size=1)
            params.append(entry)

        local_arrays = []
        for a in k.locals:
            if a.name not in self.loaded and a.name not in self.stored:
                continue  # never used: nothing to declare
            values = [literal(v, a.dtype) for v in a.init] if a.init is not None else []
            per_line = a.shape[-1] if len(a.shape) == 2 and a.shape[-1] <= 12 else 8  # rows of a small matrix
            if a.init is None:
                storage = "empty"
            elif a.name not in self.stored:
                storage = "rom"
            elif all(v == 0 for v in a.init):
                storage = "zeros"
            else:
                storage = "init"
            local_arrays.append(
                {
                    "name": a.name,
                    "ctype": ctype(a.dtype),
                    "size": a.size,
                    "shape_text": " x ".join(str(d) for d in a.shape),
                    "storage": storage,
                    "rows": [values[i : i + per_line] for i in range(0, len(values), per_line)],
                }
            )

        scalars = [
            {"ctype": ctype(dt), "name": name, "init": literal(0, dt)}
            for name, dt in k.scalars.items()
            if name in self.top_scalars
        ]
        ret = None
        if self.ret_dtype is not None:
            last = k.body[-1]
            assert isinstance(last, ir.Return) and last.value is not None
            ret = {
                "ctype": ctype(self.ret_dtype),
                "dtype": self.ret_dtype.name,
                "value": self.printer.converted(last.value, self.ret_dtype),
                "is_float": self.ret_dtype.is_float,
                "nbytes": self.ret_dtype.nbytes,
                **_tolerance(self.ret_dtype),
            }
        return {
            "task": k.name,
            "guard": f"PARTITION_{k.name.upper()}_H",
            "source": self.source,
            "notes": [printable(n) for note in k.notes for n in str(note).splitlines()],
            "params": params,
            "arrays": [p for p in params if p["kind"] == "array"],
            "scalar_params": [p for p in params if p["kind"] == "scalar"],
            "loop_index": loop_index,
            "locals": local_arrays,
            "partitions": [
                {"variable": self.buffers.get(a, a), "factor": f}
                for a, f in sorted(self.partition.items())
                if a in self.buffers or any(x["name"] == a for x in local_arrays)
            ],
            "scalars": scalars,
            "body": self.body,
            "ret": ret,
            "ret_ctype": ret["ctype"] if ret else "void",
        }
