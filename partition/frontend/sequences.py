"""Builtins over sequences, and lists built from displays and comprehensions.

`sum`, `min`, `max`, `any` and `all` of a sequence (an array, a list, a row, a
slice, `range()`, `zip()`/`enumerate()`/`reversed()`, a display) or of a
generator expression or list comprehension become a loop with an accumulator,
placed before the statement that reads it. The loops are the ones a `for`
statement over the same sequence gives (`partition.frontend.iteration`), with
the comprehension's variables renamed to hidden ones (they are local to the
comprehension in Python). Exactly Python's semantics:

* `sum(seq, start=0)` adds left to right starting from `start`: Python ints
  stay Python ints; numpy scalars add as numpy scalars (`0 + np.int8(x)` is an
  int8, so the builtin sum of an int8 array wraps in int8, unlike np.sum), and
  Python floats add one at a time (CPython 3.12 adds them with compensation:
  there it is rejected). The accumulator's type is the elements' sum type, so
  the int `start` 0 is converted to it; a sequence that may be empty would
  give Python's int start itself, so that case needs a start of the sum's type.
* `min`/`max` keep the first extreme element (an element replaces the
  current one only when it compares strictly less/greater, so a NaN first
  element stays); an empty sequence raises ValueError in Python (noted).
  `key=` and `default=` are not supported.
* `any`/`all` stop at the first element that decides them.

A list display `[a, b, c]` (or of rows) and a list comprehension without a
condition, `[f(x) for x in xs]`, `[[g(i, j) for j in range(m)] for i in
range(n)]`, make a local list of constant size. A comprehension with an `if`
has a length that depends on the data: rejected.
"""

from __future__ import annotations

import ast
import copy
import sys
from collections.abc import Callable

from partition import ir
from partition.dtypes import INT64, DType, narrowest_signed
from partition.frontend.model import TE, ArrayInfo, Reject, const
from partition.frontend.seqs import Seq, target_names
from partition.frontend.types import NP, PyBool, PyFloat, PyInt, PyType, describe, fits, ir_dtype

REDUCERS = ("sum", "min", "max", "any", "all")


class _Rename(ast.NodeTransformer):
    """Comprehension variables renamed to hidden names, or replaced by the row they stand for."""

    def __init__(self, mapping: dict[str, str | ast.expr]):
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.expr:
        new = self.mapping.get(node.id)
        if new is None:
            return node
        if isinstance(new, str):
            return ast.copy_location(ast.Name(new, node.ctx), node)
        return ast.copy_location(copy.deepcopy(new), node)


def _rename(node: ast.AST, mapping: dict[str, str | ast.expr]) -> ast.AST:
    return _Rename(mapping).visit(copy.deepcopy(node)) if mapping else copy.deepcopy(node)


def _assign(name: str, value: ast.expr, line: int) -> ast.stmt:
    stmt = ast.Assign([ast.Name(name, ast.Store())], value)
    stmt.lineno = line
    return ast.fix_missing_locations(stmt)


def _fixed(node: ast.AST, line: int) -> ast.AST:
    node.lineno = line  # type: ignore[attr-defined]
    node.col_offset = 0  # type: ignore[attr-defined]
    return ast.fix_missing_locations(node)


class Sequences:
    """Reductions of sequences and local lists from displays and comprehensions (part of `Lowerer`)."""

    # ------------------------------------------------------------ clauses

    def clause_loops(
        self,
        gens: list[ast.comprehension],
        inner: Callable[[dict[str, str | ast.expr], list[ast.Name], list[Seq]], list[ast.stmt]],
        line: int,
        exit_test: Callable[[], ast.expr] | None = None,
    ) -> tuple[list[ast.stmt], list[Seq]]:
        """The comprehension's `for` clauses as nested loops around `inner(renaming, indices, seqs)`.

        Each clause iterates its `Seq` with a hidden index; its targets are renamed to
        hidden names (a target bound to rows stands for the row expression itself, so later
        clauses can iterate over it); its conditions guard what follows it. `exit_test`,
        when given, leaves every enclosing loop once it holds (the innermost loop leaves by
        itself).
        """
        mapping: dict[str, str | ast.expr] = {}
        levels: list[tuple[list[ast.stmt], ast.expr, str, Seq, list[ast.expr]]] = []
        for g in gens:
            if g.is_async:
                raise Reject(line, "async comprehension")
            it = _rename(g.iter, mapping)
            mark = len(self.pending)
            seq = self.seq_of(it, line)  # type: ignore[arg-type]
            if levels and len(self.pending) > mark:
                raise Reject(
                    line,
                    f"a comprehension's inner clause iterates over {ast.unparse(g.iter)[:40]}, which must be computed first (assign it to a name)",
                )
            k = self.hidden("k")
            target: ast.expr | None
            if seq.rank and isinstance(g.target, ast.Name):
                mapping[g.target.id] = seq.element(ast.Name(k, ast.Load()))
                target = None
            else:
                for n in target_names(g.target):
                    mapping[n] = self.hidden(f"c_{n}")
                target = _rename(g.target, mapping)  # type: ignore[assignment]
            conds = [_rename(c, mapping) for c in g.ifs]
            levels.append((seq.prologue, target, k, seq, conds))  # type: ignore[arg-type]
        body = inner(mapping, [ast.Name(k, ast.Load()) for *_, k, _s, _c in levels], [lv[3] for lv in levels])
        for depth in range(len(levels) - 1, -1, -1):
            prologue, target, k, seq, conds = levels[depth]
            for c in reversed(conds):
                body = [_fixed(ast.If(c, body, []), line)]
            if seq.static is not None:
                self.facts[ast.dump(ast.Name(k, ast.Load()))] = (0, max(seq.static - 1, 0))
            if target is not None:
                body = self.bind(target, seq.element(ast.Name(k, ast.Load())), body, seq.rank, line)
            rng = ast.Call(ast.Name("range", ast.Load()), [seq.length], [])
            loop = _fixed(ast.For(ast.Name(k, ast.Store()), rng, body, []), line)
            body = [*prologue, loop]
            if exit_test is not None and depth > 0:
                body.append(_fixed(ast.If(exit_test(), [ast.Break()], []), line))
        return body, [lv[3] for lv in levels]

    def lower_hidden(self, stmts: list[ast.stmt], line: int, what: str) -> list[ir.Stmt]:
        """Statements the frontend wrote, lowered where an expression needs them (not emitted yet)."""
        saved = (self.call_statement, self.cond_depth)
        self.cond_depth = 0
        try:
            return self.block([ast.fix_missing_locations(s) for s in stmts])
        finally:
            self.call_statement, self.cond_depth = saved

    # ------------------------------------------------------------ reductions

    def seq_call(self, name: str, node: ast.Call) -> TE:
        """sum/min/max/any/all of one sequence or generator expression."""
        line = node.lineno
        kws = {k.arg for k in node.keywords}
        if name in ("min", "max") and kws:
            raise Reject(line, f"{name}() with {'/'.join(sorted(str(k) + '=' for k in kws))} (not supported)")
        if (name == "sum" and kws - {"start"}) or (name in ("any", "all") and kws):
            raise Reject(line, f"{name}() with keyword arguments")
        nmax = 2 if name == "sum" else 1
        if not 1 <= len(node.args) <= nmax or any(isinstance(a, ast.Starred) for a in node.args):
            raise Reject(line, f"{name}() with {len(node.args)} arguments")
        arg = node.args[0]
        if isinstance(arg, ast.Attribute) and arg.attr == "shape" and isinstance(arg.value, ast.Name):
            b = self.array_of(arg.value)
            if b is not None and len(node.args) == 1:  # a tuple of constants
                value = {"sum": sum, "min": min, "max": max, "any": any, "all": all}[name](b.shape)
                return self.const_te(value, line)
        if isinstance(arg, (ast.GeneratorExp, ast.ListComp)):
            gens, elt = arg.generators, arg.elt
        else:
            h = self.hidden("e")
            gens = [ast.comprehension(ast.Name(h, ast.Store()), arg, [], 0)]
            elt = ast.Name(h, ast.Load())
            rank = self.arr.rank_of(arg)
            if rank is not None and rank > 1:
                raise Reject(
                    line,
                    f"{name}() of a {rank}-D array goes over its rows, which are arrays "
                    "(use np.sum/np.max/... for whole arrays)",
                )
        if name == "sum":
            start = (
                node.args[1]
                if len(node.args) > 1
                else next((k.value for k in node.keywords if k.arg == "start"), None)
            )
            return self.seq_sum(gens, elt, start, line)
        if name in ("min", "max"):
            return self.seq_extreme(name, gens, elt, line)
        return self.seq_any_all(name, gens, elt, line)

    def seq_sum(self, gens: list[ast.comprehension], elt: ast.expr, start: ast.expr | None, line: int) -> TE:
        acc = self.hidden("sum")
        key = self.key(acc)

        def inner(
            mapping: dict[str, str | ast.expr], _idx: list[ast.Name], _seqs: list[Seq]
        ) -> list[ast.stmt]:
            add = ast.BinOp(ast.Name(acc, ast.Load()), ast.Add(), _rename(elt, mapping))
            return [_assign(acc, add, line)]

        loops, seqs = self.clause_loops(gens, inner, line)
        start_te = self.expr(start) if start is not None else self.const_te(0, line)
        weak = isinstance(start_te.pt, PyInt) and isinstance(start_te.e, ir.Const)
        init = None if weak else self.assign_var(acc, start_te, line, None)  # its type joins the sum's
        body = self.lower_hidden(loops, line, "sum()")
        nonempty = all(s.nonempty for s in seqs) and not any(g.ifs for g in gens)
        total = self.var_type(key, fallback=start_te.pt)
        if isinstance(total, PyFloat) and sys.version_info >= (3, 12):
            raise Reject(line, "sum() of Python floats (CPython 3.12 adds them with compensation)")
        if init is None:
            init = self.sum_start(acc, key, start_te, total, nonempty, line)
        self.arr.emit([init, *body], line, "sum()")
        return self.read_var(acc, ast.Name(acc, ast.Load(), lineno=line))

    def sum_start(self, acc: str, key: str, start: TE, total: PyType, nonempty: bool, line: int) -> ir.Stmt:
        """The accumulator's first value: the int constant `start` as the sum's type (the first
        addition converts it so: `0 + x` is `0.0 + x` for a float x, `np.int8(0) + x` for an int8 x)."""
        if isinstance(total, PyInt):
            return self.assign_var(acc, start, line, None)
        if not nonempty:
            like = "0.0" if isinstance(total, PyFloat) else f"np.{ir_dtype(total).name}(0)"
            raise Reject(
                line,
                f"sum() of a sequence that may be empty, of {describe(total)} values: Python gives the int "
                f"start then (give a start of the sum's type: sum(..., {like}))",
            )
        c = int(start.e.value)
        dt = ir_dtype(total)
        if dt.is_float and abs(c) > (1 << (24 if dt.bits == 32 else 53)):
            raise Reject(line, f"sum() start {c} is not exact as {dt.name}")
        if (dt.is_int or dt.is_bool) and not fits((c, c), dt):
            raise Reject(line, f"sum() start {c} does not fit {dt.name} (numpy raises OverflowError)")
        self.defined.add(key)
        return ir.Assign(self.irname(key), const(c, dt), line)

    def seq_extreme(self, which: str, gens: list[ast.comprehension], elt: ast.expr, line: int) -> TE:
        acc, first, v = self.hidden(which), self.hidden("first"), self.hidden("v")
        key = self.key(acc)
        self.r.like[key] = self.key(v)  # before the first round types it, the extreme is like an element

        def inner(
            mapping: dict[str, str | ast.expr], _idx: list[ast.Name], _seqs: list[Seq]
        ) -> list[ast.stmt]:
            pick = ast.IfExp(
                ast.Name(first, ast.Load()),
                ast.Name(v, ast.Load()),
                ast.Call(
                    ast.Name(which, ast.Load()), [ast.Name(acc, ast.Load()), ast.Name(v, ast.Load())], []
                ),
            )
            return [
                _assign(v, _rename(elt, mapping), line),
                _assign(acc, pick, line),
                _assign(first, ast.Constant(False), line),
            ]

        loops, seqs = self.clause_loops(gens, inner, line)
        body = self.lower_hidden([_assign(first, ast.Constant(True), line), *loops], line, f"{which}()")
        if not (all(s.nonempty for s in seqs) and not any(g.ifs for g in gens)):
            self.note(
                f"line {line}: {which}() of an empty sequence raises ValueError in Python; the kernel gives 0"
            )
        total = self.var_type(key, fallback=PyInt(0, 0))
        self.defined.add(key)
        init = ir.Assign(self.irname(key), const(0, ir_dtype(total)), line)
        self.arr.emit([init, *body], line, f"{which}()")
        return self.read_var(acc, ast.Name(acc, ast.Load(), lineno=line))

    def seq_any_all(self, which: str, gens: list[ast.comprehension], elt: ast.expr, line: int) -> TE:
        acc = self.hidden(which)
        found = which == "any"

        def inner(
            mapping: dict[str, str | ast.expr], _idx: list[ast.Name], _seqs: list[Seq]
        ) -> list[ast.stmt]:
            test = _rename(elt, mapping)
            if not found:
                test = ast.UnaryOp(ast.Not(), test)
            return [_fixed(ast.If(test, [_assign(acc, ast.Constant(found), line), ast.Break()], []), line)]

        def leave() -> ast.expr:
            flag = ast.Name(acc, ast.Load())
            return flag if found else ast.UnaryOp(ast.Not(), flag)

        loops, _ = self.clause_loops(gens, inner, line, leave)
        body = self.lower_hidden([_assign(acc, ast.Constant(not found), line), *loops], line, f"{which}()")
        self.arr.emit(body, line, f"{which}()")
        return self.read_var(acc, ast.Name(acc, ast.Load(), lineno=line))

    # ------------------------------------------------------------ lists

    def list_call(self, node: ast.expr) -> bool:
        """`list(seq)`: a new list of the sequence's elements."""
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "list"
            and not self.is_local_name("list")
            and len(node.args) == 1
            and not node.keywords
            and not isinstance(node.args[0], ast.Starred)
        )

    def list_value(self, pyname: str, node: ast.expr, line: int) -> list[ir.Stmt]:
        """`pyname = [..]`: a display or comprehension filling a local list of constant size."""
        if self.list_call(node):
            arg = node.args[0]  # type: ignore[attr-defined]
            if isinstance(arg, ast.GeneratorExp):
                node = ast.ListComp(arg.elt, arg.generators)
            else:
                h = self.hidden("x")
                node = ast.ListComp(
                    ast.Name(h, ast.Load()), [ast.comprehension(ast.Name(h, ast.Store()), arg, [], 0)]
                )
            node = _fixed(node, line)  # type: ignore[assignment]
        if isinstance(node, ast.ListComp):
            return self.list_comprehension(pyname, node, line)
        assert isinstance(node, ast.List)
        if not node.elts:
            raise Reject(line, "an empty list (a kernel has no empty arrays)")
        if any(isinstance(e, ast.Starred) for e in node.elts):
            raise Reject(line, "starred item in a list display")
        rows = [e for e in node.elts if isinstance(e, (ast.List, ast.Tuple))]
        if rows:
            width = len(rows[0].elts)
            if len(rows) != len(node.elts) or not width or any(len(r.elts) != width for r in rows):
                raise Reject(line, "a list of rows of different lengths (or of rows and scalars)")
            if any(isinstance(x, (ast.List, ast.Tuple, ast.Starred)) for r in rows for x in r.elts):
                raise Reject(line, "a list nested more than two deep")
            if any(isinstance(r, ast.Tuple) for r in rows):
                raise Reject(line, "a list of tuples (tuples are not values in a kernel)")
            cells = [((i, j), x) for i, r in enumerate(rows) for j, x in enumerate(r.elts)]
            shape: tuple[int, ...] = (len(rows), width)
        else:
            cells = [((i,), x) for i, x in enumerate(node.elts)]
            shape = (len(node.elts),)
        reads_self = any(isinstance(n, ast.Name) and n.id == pyname for _, x in cells for n in ast.walk(x))
        values: list[TE] = []
        held: list[ir.Stmt] = []
        for _, x in cells:
            if self.arr.rank_of(x) is not None:
                raise Reject(line, f"a list holding array {ast.unparse(x)[:40]} (lists hold numbers)")
            te = self.expr(x)
            values.append(self.hold(te, x, line, held) if reads_self else te)
        info = self.local_list(pyname, shape, values[0].pt, line)
        stores = [
            ir.Store(
                info.name,
                tuple(const(i, self.index_dtype(shape)) for i in pos),
                self.store_value(te, info, line),
                line,
            )
            for (pos, _), te in zip(cells, values)
        ]
        info.stored = True
        return [*held, *stores]

    def index_dtype(self, shape: tuple[int, ...]) -> DType:
        return narrowest_signed(0, max(shape)) or INT64

    def list_comprehension(self, pyname: str, node: ast.ListComp, line: int) -> list[ir.Stmt]:
        """[elt for ...] (and [[elt for ...] for ...]) into a local list, element by element."""
        if any(g.ifs for g in node.generators) or (
            isinstance(node.elt, ast.ListComp) and any(g.ifs for g in node.elt.generators)
        ):
            raise Reject(line, "list comprehension with a condition (its length depends on the data)")
        if any(isinstance(n, ast.Name) and n.id == pyname for n in ast.walk(node)):
            raise Reject(line, f"the list comprehension assigned to {pyname} reads {pyname}")
        if isinstance(node.elt, (ast.List, ast.Tuple)):
            raise Reject(
                line, "list comprehension of displays (write [[...] for ...] as a nested comprehension)"
            )

        def inner(mapping: dict[str, str | ast.expr], idx: list[ast.Name], seqs: list[Seq]) -> list[ast.stmt]:
            rows = self.static_lengths(seqs, line)
            row = self.flat_position(idx, rows)
            elt = _rename(node.elt, mapping)
            row_names = {t for g, s in zip(node.generators, seqs) if s.rank for t in target_names(g.target)}
            if _is_row(node.elt, row_names):  # [row[:] for row in m], [list(row) ...]: copies of rows
                h = self.hidden("x")
                src = elt.args[0] if isinstance(elt, ast.Call) else elt
                elt = ast.ListComp(
                    ast.Name(h, ast.Load()), [ast.comprehension(ast.Name(h, ast.Store()), src, [], 0)]
                )
            if not isinstance(elt, ast.ListComp):
                self.local_list(pyname, (_product(rows, line),), PyInt(0, 0), line)
                return [self.cell_store(pyname, [row], elt, line)]

            def cell(m2: dict[str, str | ast.expr], idx2: list[ast.Name], seqs2: list[Seq]) -> list[ast.stmt]:
                cols = self.static_lengths(seqs2, line)
                self.local_list(pyname, (_product(rows, line), _product(cols, line)), PyInt(0, 0), line)
                col = self.flat_position(idx2, cols)
                return [self.cell_store(pyname, [row, col], _rename(elt.elt, m2), line)]

            loops, _ = self.clause_loops(elt.generators, cell, line)
            return loops

        loops, _ = self.clause_loops(node.generators, inner, line)
        return self.block(loops)

    def static_lengths(self, seqs: list[Seq], line: int) -> list[int]:
        out = []
        for s in seqs:
            if s.static is None:
                raise Reject(line, "list comprehension over a sequence whose length is not a constant")
            out.append(s.static)
        return out

    def flat_position(self, idx: list[ast.Name], statics: list[int]) -> ast.expr:
        """Row-major position of the clause indices (each within its clause's constant length)."""
        pos: ast.expr | None = None
        for k, n in zip(idx, statics):
            term = ast.Name(k.id, ast.Load())
            pos = (
                term
                if pos is None
                else ast.BinOp(ast.BinOp(pos, ast.Mult(), ast.Constant(n)), ast.Add(), term)
            )
        assert pos is not None
        total = 1
        for n in statics:
            total *= n
        self.facts[ast.dump(pos)] = (0, total - 1)
        return pos

    def cell_store(self, pyname: str, pos: list[ast.expr], value: ast.expr, line: int) -> ast.stmt:
        target: ast.expr = ast.Name(pyname, ast.Load())
        for p in pos:
            target = ast.Subscript(target, copy.deepcopy(p), ast.Load())
        target.ctx = ast.Store()  # type: ignore[attr-defined]
        return _fixed(ast.Assign([target], value), line)

    def local_list(
        self, pyname: str, shape: tuple[int, ...], first: NP | PyInt | PyFloat | PyBool, line: int
    ) -> ArrayInfo:
        """The on-chip array of a local list (one per name; its element type is what it is given)."""
        key = self.key(pyname)
        if key in self.vars or key in self.r.assigned or pyname in self.scalar_params:
            raise Reject(line, f"{pyname} is a scalar elsewhere and a list here")
        info = self.arrays.get(pyname)
        if info is None:
            irn = self.irname(key)
            info = self.all_arrays.get(irn) or ArrayInfo(
                pyname, irn, ir_dtype(first), tuple(shape), "local", first, pytype="list", elem_key=key + "[]"
            )
            self.add_array(pyname, info)
        elif info.elem_key is None or info.shape != tuple(shape):
            raise Reject(line, f"{pyname} is created twice with different shapes or kinds")
        return info


def _is_row(elt: ast.expr, rows: set[str]) -> bool:
    """`row`, `row[:]`, `row[a:b]` or `list(row)` for a comprehension variable bound to rows."""
    if (
        isinstance(elt, ast.Call)
        and isinstance(elt.func, ast.Name)
        and elt.func.id == "list"
        and len(elt.args) == 1
    ):
        elt = elt.args[0]
    if isinstance(elt, ast.Subscript) and isinstance(elt.slice, ast.Slice):
        elt = elt.value
    return isinstance(elt, ast.Name) and elt.id in rows


def _product(xs: list[int], line: int) -> int:
    n = 1
    for x in xs:
        n *= x
    if n == 0:
        raise Reject(line, "an empty list comprehension (a kernel has no empty arrays)")
    return n
