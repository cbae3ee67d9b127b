"""Tiling through DDR: passes over arrays larger than on-chip RAM, a tile of rows at a time.

The base microarchitecture buffers every array whole, so its RAM grows with the data: a
pass over a million int32 elements needs 4 MB of buffer, six times a PYNQ-Z2's BRAM. A
top-level loop `for i in range(start, stop)` whose every access to an array parameter
`x` indexes the leading dimension by `i + c` (c a small constant: a sliding window along
the rows) can instead run `TILE_BYTES` of rows at a time (`tile_kernel`):

    stop_T = stop
    for t in range(start, stop_T, T):            # the tile loop (label T<n>)
        end_T = min(t + T, stop_T)
        lo_x = max(floor((t + cmin) / A) * A, 0)  # first row of x the tile touches
        n_x = max(min(end_T + cmax, rows_x) - lo_x, 0)
        copy x[lo_x : lo_x + n_x] -> x_tile      # `ir.Copy`, in: rows the loop may read
        for i in range(t, end_T):                 # the original loop, same label
            ... x_tile[i + c - lo_x] ...
        copy x_tile -> x[lo_x : lo_x + n_x]      # out: rows it may have written

Rows outside the loop's iterations are never touched, rows a tile only reads are written
back unchanged, and tiles run in order, so every load sees what Python's loop saw; `A`
keeps each copy's first byte on a bus word (what the burst engines require). A local
temporary every access of which is row `i` of one such loop (`np.empty` rows computed
and used in the same iteration) shrinks to a tile's rows. Nothing else changes: the
schedule, the HLS C++ and the built-in RTL all build the tiled IR (a `Copy` is a burst
transfer started from the compute FSM), so they share one microarchitecture, and the
transfers cost what the phase transfers cost (`transfer_cycles`) at the board's bus.

An array that is not accessed that way anywhere keeps its whole buffer; a kernel none of
whose arrays can be tiled has no tiled variant (`tile_kernel` returns why). Which rows a
loop touches is `partition.estimate.windows`; a matrix product's reduction loop is moved
outward first (`partition.estimate.interchange`), so its `b` tiles inside the loop over rows
of `a`; elementwise temporaries are read through their definition (`partition.estimate.inline`).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

from partition import ir
from partition.dtypes import DType, dtype, narrowest_signed
from partition.estimate.inline import inline_maps
from partition.estimate.interchange import interchange_reductions
from partition.estimate.schedule import has_jumps
from partition.estimate.schedule.widths import register_bits, significant
from partition.estimate.windows import Loop, accesses, candidate, offset

TILE_BYTES = 4096  # bytes of a tile's own rows per tiled array: one 4 KB burst boundary apart
HALO_AMORTISE = 4  # a tile has at least this many rows per row of its window's halo ...
MAX_TILE_BYTES = 32768  # ... as long as a buffer stays within this
NESTED_MIN_BYTES = 32768  # an array read again in every outer iteration tiles only above this
I64 = dtype("int64")


def _rows_expr(kernel: ir.Kernel, p: ir.Param, ti: DType) -> ir.Expr:
    """The rows array `p` holds in a call (its run-time length, or its shape's), in `ti`: a
    run-time length is at most the shape's rows, which `ti` holds (`_tile_type`)."""
    if not p.dyn:
        return ir.Const(p.shape[0], ti)
    dt = kernel.param(p.dyn).dtype
    n: ir.Expr = ir.Cast(ir.Bin("min", ir.Var(p.dyn, dt), ir.Const(p.shape[0] - p.dyn_offset, dt), dt), ti)
    if p.dyn_offset:
        n = ir.Bin("max", ir.Bin("add", n, ir.Const(p.dyn_offset, ti), ti), ir.Const(0, ti), ti)
    return n


def _tile_type(kernel: ir.Kernel, s: ir.For, arrays: list[str], beyond: int) -> DType:
    """The signed type the tile arithmetic of loop `s` runs in: it holds the loop's bounds
    (their significant bits, `schedule.widths`) and every tiled array's rows, `beyond` (a
    tile, its halo and a bus word) past them either way, and the differences of two such
    values. Narrow where the loop is (16 bits for a 64-row image, 32 for a million
    samples): the row arithmetic is what every copy and every tile-buffer address computes."""
    var_bits = register_bits(kernel, dict(kernel.scalars))
    bound = max(significant(s.start, var_bits), significant(s.stop, var_bits))
    reach = max(1 << (bound - 1), *(kernel.param(n).shape[0] for n in arrays)) + beyond
    return narrowest_signed(-2 * reach, 2 * reach, 16) or I64


def tile_kernel(kernel: ir.Kernel, bus_bits: int, tile_bytes: int = TILE_BYTES) -> ir.Kernel | str:
    """`kernel` with every array parameter it can tile moved a tile at a time (module doc),
    or the reason no array can be."""
    kernel = _drop_overwritten_fills(inline_maps(kernel))
    swapped = interchange_reductions(kernel)
    names = _Names(swapped)
    nested = _tile_nested(swapped, bus_bits, tile_bytes, names)
    if nested is not None:
        kernel = nested
    nested_names = {p.name for p in kernel.arrays if p.tiled}
    loops: list[Loop] = []
    outside: set[str] = set()
    reasons: list[str] = []
    for pos, s in enumerate(kernel.body):
        c = candidate(kernel, pos, s)
        if isinstance(c, str):
            outside.update(name for name, _i, _s in accesses([s]))
            if isinstance(s, ir.For):
                reasons.append(c)
        else:
            loops.append(c)
    tiled: list[ir.Param] = []
    for p in kernel.arrays:
        if p.stream or p.name in outside or p.tiled:
            continue
        mine = [lp for lp in loops if p.name in lp.offsets]
        if not mine or any(math.inf in lp.offsets[p.name] for lp in mine):
            continue
        tiled.append(p)
    if not tiled and nested is not None:
        return kernel
    if not tiled:
        return "; ".join(reasons) or "no array parameter is accessed only by rows of a top-level loop"
    tiled_names = {p.name for p in tiled}
    # temporaries of one loop that tiles an array: each iteration computes and uses its own row
    temps = [
        a
        for a in kernel.locals
        if a.init is None
        and a.name not in outside
        and [lp.offsets[a.name] for lp in loops if a.name in lp.offsets] == [{0}]
        and any(tiled_names & set(lp.offsets) for lp in loops if a.name in lp.offsets)
    ]
    temp_names = {a.name for a in temps}
    body = list(kernel.body)
    scalars = dict(kernel.scalars)
    locals_ = [a for a in kernel.locals if a.name not in temp_names]
    bufs: dict[str, ir.LocalArray] = {}
    for lp in reversed(loops):
        mine = sorted(n for n in lp.offsets if n in tiled_names)
        mine_temps = sorted(n for n in lp.offsets if n in temp_names)
        if not mine:
            continue
        new, more_scalars, new_bufs = _tile_loop(kernel, lp, mine, mine_temps, bus_bits, tile_bytes, names)
        body[lp.pos : lp.pos + 1] = new
        scalars.update(more_scalars)
        for b in new_bufs:
            if b.name in bufs:  # an array tiled in several loops: one buffer of the largest window
                old = bufs[b.name]
                b = dataclasses.replace(b, shape=(max(old.shape[0], b.shape[0]), *b.shape[1:]))
            bufs[b.name] = b
    params = [dataclasses.replace(p, tiled=True) if p.name in tiled_names else p for p in kernel.params]
    notes = [
        *(n for n in kernel.notes if not n.startswith("tiled through DDR")),
        "tiled through DDR: "
        + ", ".join(
            [f"{p.name} ({bufs[names.buffer(p.name)].shape[0]} rows on chip)" for p in tiled]
            + [f"{n} (a few rows at a time, in an inner loop)" for n in sorted(nested_names)]
        )
        + f"; a tile is about {tile_bytes:,} bytes of rows (more where a window's halo needs them)",
    ]
    return dataclasses.replace(
        kernel, params=params, body=body, scalars=scalars, locals=[*locals_, *bufs.values()], notes=notes
    )


def _drop_overwritten_fills(kernel: ir.Kernel) -> ir.Kernel:
    """`kernel` without the top-level loops that only fill an array parameter with constants
    (`y = np.zeros(n)`) when the next loop touching it stores every element of it before
    reading any (`for i in range(n): y[i] = ...`): tiled, the fill would be a pass of zeros
    to DDR that the next pass writes over."""
    body = list(kernel.body)
    dead: set[int] = set()
    for pos, s in enumerate(body):
        names = {name for name, _i, _s in accesses([s])}
        if len(names) != 1 or not isinstance(s, ir.For) or not _fills(s.body):
            continue
        (n,) = names
        p = next((q for q in kernel.arrays if q.name == n), None)
        if p is None or p.stream:
            continue
        later = [q for q in range(pos + 1, len(body)) if n in {x for x, _i, _s in accesses([body[q]])}]
        returns = any(
            isinstance(x, ir.Return) for x in ir.walk_stmts(body[pos + 1 : later[0] if later else None])
        )
        if not later or returns:
            continue
        lp = candidate(kernel, later[0], body[later[0]])
        if isinstance(lp, str) or lp.offsets.get(n) != {0} or n in lp.loaded:
            continue
        if _all_rows(lp.loop, p) and _writes_rows(lp.loop.body, n, p.shape[1:], []):
            dead.add(pos)
    if not dead:
        return kernel
    return dataclasses.replace(kernel, body=[s for pos, s in enumerate(body) if pos not in dead])


def _fills(body: list[ir.Stmt]) -> bool:
    """Only loops and stores of constants."""
    return all(
        (isinstance(x, ir.Store) and isinstance(x.value, ir.Const))
        or (isinstance(x, ir.For) and _fills(x.body))
        for x in body
    )


def _all_rows(loop: ir.For, p: ir.Param) -> bool:
    """Whether `loop` runs over every row of `p`: from 0 to its rows, by 1."""
    if loop.step != 1 or not (isinstance(loop.start, ir.Const) and int(loop.start.value) == 0):
        return False
    stop = loop.stop
    while isinstance(stop, ir.Cast) and stop.dtype.is_int and stop.operand.dtype.is_int:
        stop = stop.operand
    if not p.dyn:
        return isinstance(stop, ir.Const) and int(stop.value) == p.shape[0]
    return isinstance(stop, ir.Var) and stop.name == p.dyn and p.dyn_offset == 0


def _tile_nested(kernel: ir.Kernel, bus_bits: int, tile_bytes: int, names: _Names) -> ir.Kernel | None:
    """`kernel` with each array that only a loop nested in a top-level loop reads, by rows of
    its own variable (`b[k, j]` in `for i: for k: ...`: a matrix product after
    `interchange_reductions`), moved a tile of rows at a time inside that loop; None when
    there is no such array. Only arrays nothing stores into (their tile needs no write-back,
    however often the outer loop comes back to the same rows), and larger than a tile buffer
    may be: a smaller one is read once, whole, rather than again for every outer iteration."""
    written = {name for name, _i, store in accesses(kernel.body) if store}
    everywhere = Counter(name for name, _i, _s in accesses(kernel.body))
    body = list(kernel.body)
    scalars = dict(kernel.scalars)
    bufs: list[ir.LocalArray] = []
    done: set[str] = set()
    for pos, top in enumerate(body):
        if not isinstance(top, ir.For):
            continue
        inner = list(top.body)
        for q in reversed(range(len(inner))):
            lp = candidate(kernel, q, inner[q])
            if isinstance(lp, str):
                continue
            here = Counter(name for name, _i, _s in accesses([inner[q]]))
            mine = sorted(
                n
                for n, offs in lp.offsets.items()
                if n in {p.name for p in kernel.arrays if not p.stream}
                and n not in written
                and n not in done
                and math.inf not in offs
                and here[n] == everywhere[n]
                and kernel.param(n).nbytes > NESTED_MIN_BYTES  # a smaller one stays whole: read once
            )
            if not mine:
                continue
            new, more, new_bufs = _tile_loop(kernel, lp, mine, [], bus_bits, tile_bytes, names)
            inner[q : q + 1] = new
            scalars.update(more)
            bufs += new_bufs
            done.update(mine)
        body[pos] = dataclasses.replace(top, body=inner)
    if not done:
        return None
    return dataclasses.replace(
        kernel,
        params=[dataclasses.replace(p, tiled=True) if p.name in done else p for p in kernel.params],
        body=body,
        scalars=scalars,
        locals=[*kernel.locals, *bufs],
    )


class _Names:
    """Fresh names for the tiling's scalars and buffers (never one the kernel uses)."""

    def __init__(self, kernel: ir.Kernel):
        self.used = (
            set(kernel.scalars)
            | {p.name for p in kernel.params}
            | {a.name for a in kernel.locals}
            | {s.var for s in ir.walk_stmts(kernel.body) if isinstance(s, ir.For)}
        )
        self.buffers: dict[str, str] = {}

    def fresh(self, base: str) -> str:
        return ir.fresh_name(self.used, base)

    def buffer(self, array: str) -> str:
        if array not in self.buffers:
            self.buffers[array] = self.fresh(f"{array}_tile")
        return self.buffers[array]


def _tile_loop(
    kernel: ir.Kernel,
    lp: Loop,
    arrays: list[str],
    temps: list[str],
    bus_bits: int,
    tile_bytes: int,
    names: _Names,
) -> tuple[list[ir.Stmt], dict[str, DType], list[ir.LocalArray]]:
    s = lp.loop
    label = s.label or s.var
    vdt = kernel.scalars.get(s.var, s.start.dtype)
    row_bytes = {n: kernel.param(n).nbytes // kernel.param(n).shape[0] for n in arrays}
    temp_bytes = [a.size // a.shape[0] * a.dtype.nbytes for a in kernel.locals if a.name in temps]
    widest = max([*row_bytes.values(), *temp_bytes])
    T = tile_bytes // widest
    span = max(max(lp.offsets[n]) - min(lp.offsets[n]) for n in arrays)
    if HALO_AMORTISE * span > T:  # wide rows and a window: more rows a tile, so the halo is a small part
        T = min(HALO_AMORTISE * span, MAX_TILE_BYTES // widest)
    T = max(1, min(T, s.trip_max or 1))
    # what the estimate counts: the tiles, and a tile's iterations on average (the last one is
    # short), so tiles x per_tile is the loop's trip, not a whole tile more
    tiles = max(1, math.ceil((s.trip_max or 1) / T))
    per_tile = math.ceil((s.trip_max or 1) / tiles)
    stop_v, t_v, end_v = (
        names.fresh(f"stop_{label}"),
        names.fresh(f"tile_{label}"),
        names.fresh(f"end_{label}"),
    )
    scalars: dict[str, DType] = {stop_v: vdt, t_v: vdt, end_v: vdt}
    ti = _tile_type(kernel, s, arrays, T + span + bus_bits // 8)
    t64 = ir.Cast(ir.Var(t_v, vdt), ti)
    end64 = ir.Cast(ir.Var(end_v, vdt), ti)
    # the tile's end in a type that holds t + T (the loop variable's may not), then in the
    # variable's own: it is at most `stop`, which that type holds
    end = _min(ir.Bin("add", t64, ir.Const(T, ti), ti), ir.Cast(ir.Var(stop_v, vdt), ti), ti)
    pre: list[ir.Stmt] = [ir.Assign(end_v, ir.Cast(end, vdt), s.line)]
    copies_in: list[ir.Stmt] = []
    copies_out: list[ir.Stmt] = []
    subst: dict[str, tuple[str, ir.Expr]] = {}
    bufs: list[ir.LocalArray] = []
    for n in arrays:
        p = kernel.param(n)
        cmin, cmax = min(lp.offsets[n]), max(lp.offsets[n])
        bus = bus_bits // 8
        align = bus // math.gcd(row_bytes[n], bus)  # rows a bus word apart
        lo_v, cnt_v = names.fresh(f"lo_{n}"), names.fresh(f"rows_{n}")
        scalars[lo_v] = scalars[cnt_v] = ti
        first = ir.Bin("add", t64, ir.Const(cmin, ti), ti)
        if align > 1:
            first = ir.Bin("mul", ir.Bin("floordiv", first, ir.Const(align, ti), ti), ir.Const(align, ti), ti)
        pre.append(ir.Assign(lo_v, ir.Bin("max", first, ir.Const(0, ti), ti), s.line))
        hi = _min(ir.Bin("add", end64, ir.Const(cmax, ti), ti), _rows_expr(kernel, p, ti), ti)
        pre.append(
            ir.Assign(
                cnt_v, ir.Bin("max", ir.Bin("sub", hi, ir.Var(lo_v, ti), ti), ir.Const(0, ti), ti), s.line
            )
        )
        rows = min(T + (cmax - cmin) + (align - 1), p.shape[0])
        typical = min(per_tile + cmax - cmin, rows)
        buf = names.buffer(n)
        bufs.append(ir.LocalArray(buf, p.dtype, (rows, *p.shape[1:]), None, tile_of=n))
        lo = ir.Var(lo_v, ti)
        cnt = ir.Var(cnt_v, ti)
        copy_in = n in lp.loaded or not _covers(lp, n, p, align, T)
        if copy_in:
            copies_in.append(ir.Copy(buf, n, lo, cnt, "in", typical, s.line))
        if n in lp.stored:
            copies_out.append(ir.Copy(buf, n, lo, cnt, "out", typical, s.line))
        subst[n] = (buf, lo)
    for n in temps:
        a = next(x for x in kernel.locals if x.name == n)
        buf = names.fresh(f"{n}_tile")
        bufs.append(ir.LocalArray(buf, a.dtype, (min(T, a.shape[0]), *a.shape[1:]), None))
        subst[n] = (buf, t64)
    inner = dataclasses.replace(
        s,
        start=ir.Var(t_v, vdt),
        stop=ir.Var(end_v, vdt),
        body=_rebased(s.body, subst),
        trip_max=per_tile,
    )
    tiles = ir.For(
        t_v,
        s.start,
        ir.Var(stop_v, vdt),
        T,
        [*pre, *copies_in, inner, *copies_out],
        tiles,
        s.line,
        f"T{label}",
    )
    return [ir.Assign(stop_v, s.stop, s.line), tiles], scalars, bufs


def _covers(lp: Loop, n: str, p: ir.Param, align: int, tile: int) -> bool:
    """Whether every tile stores every element of its window of output `n`: stored at row
    i + c (one c; every tile's first row i + c on a bus word, so the window starts there), by
    a store every iteration reaches whose other indices run over the whole row, and never
    loaded. Then its rows need not be copied in first."""
    if p.direction != "out" or n in lp.loaded or len(lp.offsets[n]) != 1:
        return False
    (c,) = lp.offsets[n]
    start = lp.loop.start
    if align > 1 and (tile % align or not isinstance(start, ir.Const) or (int(start.value) + c) % align):
        return False
    return _writes_rows(lp.loop.body, n, p.shape[1:], [])


def _writes_rows(body: list[ir.Stmt], n: str, rest: tuple[int, ...], inner: list[str]) -> bool:
    """Whether running `body` once stores `n` at every index of the row's other dimensions
    `rest` (the loops `inner` already entered run over the ones before)."""
    for x in body:
        if (
            isinstance(x, ir.Store)
            and x.array == n
            and len(inner) == len(rest)
            and all(offset(i, v) == 0 for i, v in zip(x.index[1:], inner))
        ):
            return True
        if (
            isinstance(x, ir.For)
            and len(inner) < len(rest)
            and x.step == 1
            and isinstance(x.start, ir.Const)
            and int(x.start.value) == 0
            and isinstance(x.stop, ir.Const)
            and int(x.stop.value) == rest[len(inner)]
            and not has_jumps(x.body)
            and _writes_rows(x.body, n, rest, [*inner, x.var])
        ):
            return True
        if has_jumps([x], (ir.Continue,)):
            return False  # a store after it may not run in every iteration
    return False


def _min(a: ir.Expr, b: ir.Expr, dt: DType) -> ir.Expr:
    return ir.Bin("min", a, b, dt)


def _row(index: ir.Expr, lo: ir.Expr) -> ir.Expr:
    """Row `index` of the array as a row of its tile buffer, which starts at row `lo` (in
    lo's type, which holds every row of the array)."""
    ti = lo.dtype
    if isinstance(index, ir.Select) and isinstance(index.cond, ir.Cmp) and index.cond.op == "ge":
        # `0 if i >= n else i` (an index past the end, which sets the fallback flag) reads
        # row 0 of the tile instead: the tile's rows are the only ones on chip
        return ir.Select(index.cond, ir.Const(0, ti), _row(index.orelse, lo), ti)
    return ir.Bin("sub", ir.Cast(index, ti) if index.dtype != ti else index, lo, ti)


def _rebased(body: list[ir.Stmt], subst: dict[str, tuple[str, ir.Expr]]) -> list[ir.Stmt]:
    """`body` with each access of an array in `subst` made to its tile buffer, which holds
    its rows from `lo` on."""

    def fn(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Load) and e.array in subst:
            buf, lo = subst[e.array]
            return ir.Load(buf, (_row(e.index[0], lo), *e.index[1:]), e.dtype)
        return e

    return ir.map_stmts(body, fn)
