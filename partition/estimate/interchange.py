"""Reduction loops moved outward: `for j: acc = 0; for k: acc += a[i, k] * b[k, j]` made
`for k: for j: acc[j] += a[i, k] * b[k, j]`, so a matrix product reads `b` by rows.

A matrix product as NumPy's `@` (and the textbook triple loop) computes each element of a
row in turn, its reduction loop innermost: every element reads a whole column of `b`, so
`b` must be on chip whole (512 KB for a 512 x 512 int16 matrix, more than a PYNQ-Z2's BRAM).
With the reduction loop outside the element loop, row k of `b` is what an iteration of k
reads, so `b` can move through DDR a few rows at a time (`partition.estimate.tiling`), and the
innermost loop runs along a row with no chain from one iteration to the next: it pipelines at
II 1 where the accumulation's add latency held the reduction loop (a float add's 4-5 cycles
an iteration), which is what the `permuted` variants (`partition.estimate.variants`) build.

`interchange_reductions` does this to a loop `J` whose body is statements `pre`, one loop
`K`, statements `post`, when it changes nothing Python computes:

* the scalars carried between the parts of one j (the accumulator) become arrays indexed
  by j (`acc_j[j - start]`), so every j keeps its own and sees its operations in Python's
  order: pre(j), K's iterations in order, post(j), whichever order the j's interleave in;
  each is set in `pre` before anything reads it, so no value passes from one j to the next;
* scalars a part assigns before it reads them stay scalars (each iteration computes them
  afresh), and the kernel's fallback flag (only ever set to a constant) stays one flag;
* nothing in `pre` or `K` stores to an array, the arrays `post` stores to are not read in
  the nest, and no array the nest reads is stored in it, so moving iterations of different
  j across each other reorders no memory access that matters;
* `K`'s bounds do not depend on j or on anything the nest assigns, `J` runs a constant
  range (the arrays' size), and neither has break or continue;
* and it is worth it: an array is read in K's body only at rows `k + c` (`b[k, j]`); an
  argmax over each row (`scores[i, j]` with j innermost) keeps its order.

Floating-point reductions keep their order (each j's sum runs over k in order), so the
result is exact for every type.
"""

from __future__ import annotations

import dataclasses

from partition import ir
from partition.dtypes import DType
from partition.estimate.schedule import has_jumps
from partition.estimate.windows import offset


def interchange_reductions(kernel: ir.Kernel) -> ir.Kernel:
    """`kernel` with every loop nest of the module doc's shape interchanged (the same kernel
    when there is none)."""
    names = set(kernel.scalars) | {p.name for p in kernel.params} | {a.name for a in kernel.locals}
    names |= {s.label for s in ir.walk_stmts(kernel.body) if isinstance(s, ir.For) and s.label}
    state = _State(kernel, names)
    body = state.stmts(kernel.body)
    if not state.new_locals:
        return kernel
    return dataclasses.replace(
        kernel,
        body=body,
        locals=[*kernel.locals, *state.new_locals],
        notes=[
            *kernel.notes,
            "reduction loops moved outward: "
            + ", ".join(state.done)
            + " (each accumulator became a row; every element's sum keeps Python's order)",
        ],
    )


class _State:
    def __init__(self, kernel: ir.Kernel, names: set[str]):
        self.kernel = kernel
        self.names = names
        self.new_locals: list[ir.LocalArray] = []
        self.done: list[str] = []

    def fresh(self, base: str) -> str:
        return ir.fresh_name(self.names, base)

    def stmts(self, body: list[ir.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for s in body:
            if isinstance(s, ir.For):
                new = self.nest(s)
                if new is not None:
                    out.extend(new)
                    continue
                out.append(dataclasses.replace(s, body=self.stmts(s.body)))
            elif isinstance(s, ir.If):
                out.append(dataclasses.replace(s, then=self.stmts(s.then), orelse=self.stmts(s.orelse)))
            else:
                out.append(s)
        return out

    def nest(self, j: ir.For) -> list[ir.Stmt] | None:
        """The interchanged statements of loop `j`, or None when it is not such a nest."""
        loops = [n for n, s in enumerate(j.body) if isinstance(s, ir.For)]
        if len(loops) != 1 or j.step != 1:
            return None
        if not (isinstance(j.start, ir.Const) and isinstance(j.stop, ir.Const)):
            return None
        pos = loops[0]
        pre, k, post = j.body[:pos], j.body[pos], j.body[pos + 1 :]
        assert isinstance(k, ir.For)
        if any(isinstance(s, ir.For) for s in ir.walk_stmts([*pre, *post, *k.body])):
            return None
        if has_jumps(j.body) or has_jumps(k.body):
            return None
        if any(isinstance(s, (ir.Store, ir.Return, ir.Copy)) for s in ir.walk_stmts([*pre, *k.body])):
            return None
        if any(isinstance(s, (ir.Return, ir.Copy)) for s in ir.walk_stmts(post)):
            return None
        assigned = {s.var for s in ir.walk_stmts(j.body) if isinstance(s, ir.Assign)} | {j.var, k.var}
        for e in (k.start, k.stop):
            if any(isinstance(x, ir.Var) and x.name in assigned for x in ir.walk_expr(e)):
                return None
            if any(isinstance(x, ir.Load) for x in ir.walk_expr(e)):
                return None
        loaded = {x.array for s in ir.walk_stmts(j.body) for e in ir.stmt_exprs(s) for x in ir.walk_expr(e)
                  if isinstance(x, ir.Load)}  # fmt: skip
        stored = {s.array for s in ir.walk_stmts(post) if isinstance(s, ir.Store)}
        if loaded & stored:
            return None
        if not _read_by_rows(k):
            return None  # nothing would then be read by rows of k: the order stays Python's
        status = self.kernel.status
        carried = sorted(
            v
            for v in assigned - {j.var, k.var, status}
            if not all(_fresh(part, v) for part in (pre, k.body, post) if _touches(part, v))
        )
        if not carried or not all(_touches(pre, v) and _fresh(pre, v) for v in carried):
            return None  # a value carried from one j to the next (or into a K that may not run)
        if status in assigned and not _only_constants(j.body, status):
            return None
        others = [x for x in ir.walk_stmts(self.kernel.body) if x is not j and not _within(j, x)]
        if any(_own_read(x, v) for x in others for v in assigned - {status}):
            return None  # a value the nest leaves may be read after it
        trip = int(j.stop.value) - int(j.start.value)
        if trip <= 1:
            return None
        rows: dict[str, str] = {}
        for v in carried:
            dt = self.kernel.scalars[v]
            rows[v] = self.fresh(f"{v}_row")
            self.new_locals.append(ir.LocalArray(rows[v], dt, (trip,), None))
        jv = ir.Var(j.var, j.start.dtype)
        at = ir.Bin("sub", jv, j.start, jv.dtype) if int(j.start.value) else jv

        def expand(part: list[ir.Stmt]) -> list[ir.Stmt]:
            return _expanded(part, rows, at, self.kernel.scalars)

        label = j.label or j.var
        first = dataclasses.replace(j, body=expand(pre), label=self.fresh(f"{label}_pre"))
        inner = dataclasses.replace(j, body=expand(k.body), label=self.fresh(f"{label}_in"))
        last = dataclasses.replace(j, body=expand(post), label=label)
        self.done.append(f"loop {k.label or k.var} outside loop {label}")
        out: list[ir.Stmt] = []
        if pre:
            out.append(first)
        out.append(dataclasses.replace(k, body=[inner]))
        if post:
            out.append(last)
        return out


def _read_by_rows(k: ir.For) -> bool:
    """Whether an array is read in `k`'s body only at rows `k + c` (what moving k outward is
    for: that array can then move a few rows at a time)."""
    loads: dict[str, list[ir.Load]] = {}
    for s in ir.walk_stmts(k.body):
        for e in ir.stmt_exprs(s):
            for x in ir.walk_expr(e):
                if isinstance(x, ir.Load):
                    loads.setdefault(x.array, []).append(x)
    return any(all(x.index and offset(x.index[0], k.var) is not None for x in xs) for xs in loads.values())


def _within(loop: ir.For, s: ir.Stmt) -> bool:
    return any(x is s for x in ir.walk_stmts(loop.body))


def _own_read(s: ir.Stmt, v: str) -> bool:
    """Whether statement `s` itself (not the statements nested in it) reads `v`."""
    return any(_reads(e, v) for e in ir.stmt_exprs(s))


def _touches(part: list[ir.Stmt], v: str) -> bool:
    for s in ir.walk_stmts(part):
        if isinstance(s, ir.Assign) and s.var == v:
            return True
        if any(isinstance(x, ir.Var) and x.name == v for e in ir.stmt_exprs(s) for x in ir.walk_expr(e)):
            return True
    return False


def _reads(e: ir.Expr, v: str) -> bool:
    return any(isinstance(x, ir.Var) and x.name == v for x in ir.walk_expr(e))


def _fresh(part: list[ir.Stmt], v: str) -> bool:
    """Whether `part` assigns `v` at its top level, unconditionally, before anything reads it."""
    for s in part:
        if isinstance(s, ir.Assign):
            if _reads(s.value, v):
                return False
            if s.var == v:
                return True
        elif _touches([s], v):
            return False
    return True


def _only_constants(body: list[ir.Stmt], v: str) -> bool:
    return all(
        isinstance(s.value, ir.Const) for s in ir.walk_stmts(body) if isinstance(s, ir.Assign) and s.var == v
    )


def _expanded(
    part: list[ir.Stmt], rows: dict[str, str], at: ir.Expr, scalars: dict[str, DType]
) -> list[ir.Stmt]:
    """`part` with each carried scalar read from and written to its row at `at`."""

    def fn(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Var) and e.name in rows:
            return ir.Load(rows[e.name], (at,), scalars[e.name])
        return e

    out: list[ir.Stmt] = []
    for s in ir.map_stmts(part, fn):
        out.append(_assign_to_row(s, rows, at))
    return out


def _assign_to_row(s: ir.Stmt, rows: dict[str, str], at: ir.Expr) -> ir.Stmt:
    if isinstance(s, ir.Assign) and s.var in rows:
        return ir.Store(rows[s.var], (at,), s.value, s.line)
    if isinstance(s, ir.If):
        return dataclasses.replace(
            s,
            then=[_assign_to_row(x, rows, at) for x in s.then],
            orelse=[_assign_to_row(x, rows, at) for x in s.orelse],
        )
    return s
