"""Sequences as a counted loop sees them: a length, the element at an index, and what runs first.

A kernel counts: every loop over a sequence is a loop over a hidden index whose
first statements bind the targets to the element at that index. `Seq` is that
view of arrays and lists (their rows too), slices with constant bounds (the
first sliced axis is iterated), `range()`, `enumerate()`, `zip()` (it stops at
the shortest), `reversed()`, tuple or list displays (a ROM when every item is a
constant, else a hidden list built once), and arrays computed by an expression
or an app function (computed once, into a hidden array). Elements are AST, so
the loop body reads them with the ordinary rules (`a[k]`, `a[1 + 2 * k]`); the
index expressions are registered as facts in [0, n - 1], so no negative-index
handling is added for them.

What Python evaluates once (range bounds, enumerate's start, a display) is held
in hidden variables or tables before the loop; arrays, lists, rows and views
are read when the loop reaches the element, as Python's iterators do. A slice
of a list is a copy in Python: `Seq.copies` names the list, and the loop over it
is rejected if it writes that list.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from partition.dtypes import BOOL, FLOAT64, narrowest_signed
from partition.frontend.model import ArrayInfo, Reject
from partition.frontend.types import PyBool, PyFloat, PyInt, range_of


@dataclass
class Seq:
    """A sequence as AST: its length, the element at an index, and what must run before the loop."""

    length: ast.expr
    static: int | None  # the length, when it is a constant
    element: Callable[[ast.expr], ast.expr]
    nonempty: bool  # provably at least one element
    prologue: list[ast.stmt] = field(default_factory=list)
    copies: list[ArrayInfo] = field(default_factory=list)  # lists a slice of which is iterated (a copy)
    rank: int = 0  # rank of an element (0: a scalar or tuple, 1: a row)


def loc(node: ast.AST, like: ast.AST) -> ast.AST:
    """`node` placed at `like`'s line; its parts keep their own positions where they have them."""
    ast.copy_location(node, like)
    return ast.fix_missing_locations(node)


def name_of(n: str) -> ast.Name:
    return ast.Name(n, ast.Load())


def int_const(v: int) -> ast.expr:
    return ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v))


def binop_of(a: ast.expr, op: ast.operator, b: ast.expr) -> ast.expr:
    return ast.BinOp(a, op, b)


def is_call(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def target_names(t: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]


class SeqBuilder:
    """Sequences of for loops and comprehensions (part of `Lowerer`)."""

    def const_bound(self, node: ast.expr | None, line: int) -> int | None:
        """A slice bound of a sequence: a constant (a loop over a slice has a static length)."""
        b = self.arr.slice_bound(node)
        if b is False:
            raise Reject(
                line,
                f"slice bound {ast.unparse(node)} is not a constant (a loop over a slice needs a fixed length)",
            )
        return b  # type: ignore[return-value]

    def hidden(self, base: str) -> str:
        """A fresh local name no Python code can spell the same way."""
        self.r.temp_counter += 1
        name = f"__{re.sub('_+', '_', base).strip('_')}{self.r.temp_counter}"  # single underscores: C names
        self.sc.local_names.add(name)
        return name

    def seq_of(self, node: ast.expr, line: int) -> Seq:
        """What iterating over `node` gives (rejected when it is not a sequence the subset knows)."""
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and not self.is_local_name(node.func.id)
        ):
            name = node.func.id
            if name in ("range", "enumerate", "zip", "reversed") and any(
                isinstance(a, ast.Starred) for a in node.args
            ):
                raise Reject(line, f"{name}() with *args")
            if name == "range":
                return self.range_seq(node, line)
            if name == "enumerate":
                return self.enumerate_seq(node, line)
            if name == "zip":
                return self.zip_seq(node, line)
            if name == "reversed":
                return self.reversed_seq(node, line)
        if isinstance(node, (ast.Tuple, ast.List)):
            return self.display_seq(node, line)
        if isinstance(node, ast.Call) and self.resolve_helper(node.func) is not None:
            # an app function's result: computed once before the loop, then its elements
            return self.bound_seq(self.hidden("items"), node, line)
        if isinstance(node, (ast.Name, ast.Subscript)) and self.arr.rank_of(node) is not None:
            return self.array_seq(node, line)
        if self.arr.rank_of(node) is not None:
            # numpy computes the array once, before the loop: into a hidden array, then its elements
            return self.bound_seq(self.hidden("arr"), node, line)
        what = self.callee_text(node.func) + "()" if isinstance(node, ast.Call) else ast.unparse(node)[:40]
        raise Reject(
            line,
            f"for loop over {what} (the subset iterates over range(), arrays, lists, their slices and rows, "
            "enumerate(), zip(), reversed() and tuple or list displays)",
        )

    def bound_seq(self, name: str, node: ast.expr, line: int) -> Seq:
        """The elements of what `node` computes, bound to the hidden `name` by statements placed
        before the statement being lowered (the iterable is evaluated once, before the loop)."""
        bind = loc(ast.Assign([ast.Name(name, ast.Store())], node), node)
        self.arr.emit(self.lower_hidden([bind], line, "the loop's sequence"), line, "the loop's sequence")  # type: ignore[list-item]
        shape = self.static_shape(name_of(name), line)
        seq = Seq(
            ast.Constant(shape[0]), shape[0], lambda k: ast.Subscript(name_of(name), k, ast.Load()), True
        )
        seq.rank = len(shape) - 1
        return seq

    def held(self, node: ast.expr, seq: Seq, base: str) -> ast.expr:
        """`node` evaluated once before the loop: a constant, a parameter, or a hidden variable the
        prologue assigns."""
        te = self.peek(node)
        if isinstance(te.pt, PyInt) and te.pt.lo == te.pt.hi:
            return int_const(te.pt.lo)
        if isinstance(node, ast.Name) and node.id in self.scalar_params:
            return node
        h = self.hidden(base)
        seq.prologue.append(ast.Assign([ast.Name(h, ast.Store())], node))
        return name_of(h)

    def peek(self, node: ast.expr):
        """The typed value of `node` without keeping the statements it would need (only its type is wanted)."""
        outer, self.pending = self.pending, []
        try:
            return self.expr(node)
        finally:
            self.pending = outer

    def range_parts(self, node: ast.Call, line: int) -> tuple[ast.expr, ast.expr, int]:
        if node.keywords or not 1 <= len(node.args) <= 3:
            raise Reject(line, "range() with unusual arguments")
        outer, self.pending = self.pending, []
        try:
            ranges = [range_of(self.int_expr(a).pt) for a in node.args]  # rejects bounds that are not ints
        finally:
            self.pending = outer
        args = list(node.args)
        if len(args) == 1:
            args = [ast.Constant(0), args[0]]
        step = 1
        if len(args) == 3:
            r = ranges[2]
            if r is None or r[0] != r[1]:
                raise Reject(line, "range() step is not a constant")
            step = r[0]
            if step == 0:
                raise Reject(line, "range() step is zero")
        return args[0], args[1], step

    def range_seq(self, node: ast.Call, line: int) -> Seq:
        start, stop, step = self.range_parts(node, line)
        seq = Seq(ast.Constant(0), None, lambda k: k, self.range_nonempty(node, line))
        a = self.held(start, seq, "start")
        b = self.held(stop, seq, "stop")
        seq.length, seq.static = self.range_length(a, b, step)

        def element(k: ast.expr) -> ast.expr:
            e = k if step == 1 else binop_of(k, ast.Mult(), int_const(step))
            if isinstance(a, ast.Constant) and a.value == 0:
                return e
            return binop_of(copy.deepcopy(a), ast.Add(), e)

        seq.element = element
        return seq

    def range_length(self, a: ast.expr, b: ast.expr, step: int) -> tuple[ast.expr, int | None]:
        """len(range(a, b, step)) as AST (a constant when a and b are)."""
        ca = _literal(a)
        cb = _literal(b)
        if ca is not None and cb is not None:
            n = len(range(ca, cb, step))
            return ast.Constant(n), n
        if step > 0:
            span: ast.expr = binop_of(copy.deepcopy(b), ast.Sub(), copy.deepcopy(a))
        else:
            span = binop_of(copy.deepcopy(a), ast.Sub(), copy.deepcopy(b))
        if abs(step) != 1:
            span = binop_of(
                binop_of(span, ast.Add(), ast.Constant(abs(step) - 1)),
                ast.FloorDiv(),
                ast.Constant(abs(step)),
            )
        return ast.Call(name_of("max"), [ast.Constant(0), span], []), None

    def range_nonempty(self, node: ast.Call, line: int) -> bool:
        """True when the range surely has an element, from the intervals of its bounds."""
        start, stop, step = self.range_parts(node, line)
        ra, rb = range_of(self.peek(start).pt), range_of(self.peek(stop).pt)
        if ra is None or rb is None:
            return False
        return ra[1] < rb[0] if step > 0 else ra[0] > rb[1]

    def reversed_range(self, node: ast.Call, line: int) -> ast.Call:
        """reversed(range(a, b, s)) as the range counting the other way: range(last, a - s, -s)."""
        a, b, s = self.range_parts(node, line)
        if s == 1:
            first: ast.expr = binop_of(copy.deepcopy(b), ast.Sub(), ast.Constant(1))
            stop: ast.expr = binop_of(copy.deepcopy(a), ast.Sub(), ast.Constant(1))
        elif s == -1:
            first = binop_of(copy.deepcopy(b), ast.Add(), ast.Constant(1))
            stop = binop_of(copy.deepcopy(a), ast.Add(), ast.Constant(1))
        else:
            # the last element a + q*s, q = (b - a - 1) // s (s > 0) or (a - b - 1) // -s (s < 0);
            # when the range is empty this is past a - s, and the reversed range is empty too
            span = (
                binop_of(copy.deepcopy(b), ast.Sub(), copy.deepcopy(a))
                if s > 0
                else binop_of(copy.deepcopy(a), ast.Sub(), copy.deepcopy(b))
            )
            q = binop_of(binop_of(span, ast.Sub(), ast.Constant(1)), ast.FloorDiv(), ast.Constant(abs(s)))
            first = binop_of(copy.deepcopy(a), ast.Add(), binop_of(q, ast.Mult(), int_const(s)))
            stop = binop_of(copy.deepcopy(a), ast.Sub(), int_const(s))
        call = ast.Call(name_of("range"), [first, stop, int_const(-s)], [])
        return ast.fix_missing_locations(loc(call, node))  # type: ignore[return-value]

    def enumerate_seq(self, node: ast.Call, line: int) -> Seq:
        args = list(node.args)
        kw = {k.arg: k.value for k in node.keywords}
        if set(kw) - {"start"} or not 1 <= len(args) + len(kw) <= 2 or not args:
            raise Reject(line, "enumerate() with unusual arguments")
        inner = self.seq_of(args[0], line)
        start_node = args[1] if len(args) > 1 else kw.get("start", ast.Constant(0))
        seq = Seq(
            inner.length, inner.static, inner.element, inner.nonempty, list(inner.prologue), inner.copies
        )
        start = self.held(start_node, seq, "start")
        if not isinstance(self.peek(start_node).pt, PyInt):
            raise Reject(line, "enumerate() with a start that is not an int")

        def element(k: ast.expr) -> ast.expr:
            pos = (
                k
                if isinstance(start, ast.Constant) and start.value == 0
                else binop_of(copy.deepcopy(start), ast.Add(), copy.deepcopy(k))
            )
            return ast.Tuple([pos, inner.element(k)], ast.Load())

        seq.element = element
        return seq

    def zip_seq(self, node: ast.Call, line: int) -> Seq:
        if node.keywords:
            raise Reject(line, "zip() with keyword arguments")
        if not node.args:
            raise Reject(line, "zip() of nothing")
        parts = [self.seq_of(a, line) for a in node.args]
        statics = [p.static for p in parts]
        if all(n is not None for n in statics):
            n = min(statics)  # type: ignore[type-var]
            length: ast.expr = ast.Constant(n)
            static: int | None = n
        else:
            lengths = [p.length for p in parts]
            length = lengths[0] if len(lengths) == 1 else ast.Call(name_of("min"), lengths, [])
            static = None
        seq = Seq(length, static, lambda k: k, all(p.nonempty for p in parts))
        for p in parts:
            seq.prologue += p.prologue
            seq.copies += p.copies
        seq.element = lambda k: ast.Tuple([p.element(copy.deepcopy(k)) for p in parts], ast.Load())
        return seq

    def reversed_seq(self, node: ast.Call, line: int) -> Seq:
        if node.keywords or len(node.args) != 1:
            raise Reject(line, "reversed() with unusual arguments")
        inner = self.seq_of(node.args[0], line)
        if is_call(node.args[0], "zip") or is_call(node.args[0], "enumerate"):
            raise Reject(line, "reversed() of zip() or enumerate() (Python raises: they are not sequences)")
        last = binop_of(copy.deepcopy(inner.length), ast.Sub(), ast.Constant(1))

        def element(k: ast.expr) -> ast.expr:
            idx = binop_of(copy.deepcopy(last), ast.Sub(), k)
            if inner.static is not None:
                self.facts[ast.dump(idx)] = (0, max(inner.static - 1, 0))
            return inner.element(idx)

        return Seq(
            inner.length, inner.static, element, inner.nonempty, inner.prologue, inner.copies, inner.rank
        )

    def display_seq(self, node: ast.Tuple | ast.List, line: int) -> Seq:
        """A tuple or list display: a table built once before the loop."""
        if not node.elts:
            raise Reject(line, "for loop over an empty display")
        if any(isinstance(e, ast.Starred) for e in node.elts):
            raise Reject(line, "starred item in a display")
        rows = [e for e in node.elts if isinstance(e, (ast.Tuple, ast.List))]
        if rows and len(rows) != len(node.elts):
            raise Reject(line, "a display mixing tuples and scalars")
        width = len(rows[0].elts) if rows else 0
        if rows and any(len(r.elts) != width or not width for r in rows):
            raise Reject(line, "a display of tuples of different lengths")
        name = self.table(node, line)
        n = len(node.elts)
        seq = Seq(ast.Constant(n), n, lambda k: k, True)
        if name is None:  # not all constants: a hidden list filled before the loop
            name = self.hidden("items")
            seq.prologue.append(
                ast.Assign(
                    [ast.Name(name, ast.Store())],
                    ast.List(
                        [ast.List(list(r.elts), ast.Load()) for r in rows] if rows else list(node.elts),
                        ast.Load(),
                    ),
                )
            )

        def element(k: ast.expr) -> ast.expr:
            row = ast.Subscript(name_of(name), k, ast.Load())
            if not rows:
                return row
            return ast.Tuple(
                [ast.Subscript(copy.deepcopy(row), ast.Constant(j), ast.Load()) for j in range(width)],
                ast.Load(),
            )

        seq.element = element
        return seq

    def table(self, node: ast.Tuple | ast.List, line: int) -> str | None:
        """A display of numeric constants as a ROM (its hidden name), or None when an item is not a constant."""
        flat: list[object] = []
        for e in node.elts:
            for x in e.elts if isinstance(e, (ast.Tuple, ast.List)) else [e]:
                v = _number(x)
                if v is None:
                    return None
                flat.append(v)
        kinds = {type(v) for v in flat}
        if len(kinds) != 1:
            raise Reject(
                line,
                "for loop over a display of "
                + " and ".join(sorted(k.__name__ + "s" for k in kinds))
                + " (the loop variable would change type; give every item one type)",
            )
        name = self.hidden("table")
        shape = (
            (len(node.elts), len(flat) // len(node.elts))
            if isinstance(node.elts[0], (ast.Tuple, ast.List))
            else (len(flat),)
        )
        self.const_rom(name, flat, shape, line)
        return name

    def const_rom(self, pyname: str, flat: list, shape: tuple[int, ...], line: int) -> ArrayInfo:
        """A table of constants (one Python type) as a read-only on-chip array."""
        if isinstance(flat[0], bool):
            dt, elem = BOOL, PyBool()
        elif isinstance(flat[0], int):
            lo, hi = min(flat), max(flat)
            found = narrowest_signed(lo, hi)
            if found is None:
                raise Reject(line, "a display of integers beyond 64 bits")
            dt, elem = found, PyInt(lo, hi)
        else:
            dt, elem = FLOAT64, PyFloat()
        info = ArrayInfo(pyname, self.irname(self.key(pyname)), dt, shape, "rom", elem, init=list(flat))
        return self.add_array(pyname, info)

    def array_seq(self, node: ast.expr, line: int) -> Seq:
        """An array, a list, a row of one or a slice with constant bounds: its elements (or rows)."""
        shape = self.static_shape(node, line)
        n = shape[0]
        if not isinstance(n, int) and isinstance(node, ast.Name):  # a run-time length: len(x) rows
            length = loc(ast.Call(name_of("len"), [copy.deepcopy(node)], []), node)
            return Seq(
                length,  # type: ignore[arg-type]
                None,
                lambda k: ast.Subscript(copy.deepcopy(node), k, ast.Load()),
                n.lo >= 1,
                rank=len(shape) - 1,
            )
        seq = Seq(ast.Constant(n), n, lambda k: k, n > 0, rank=len(shape) - 1)
        if isinstance(node, ast.Subscript):
            base, parts = (
                node.value,
                list(node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]),
            )
            first = next((j for j, p in enumerate(parts) if isinstance(p, ast.Slice)), None)
            if first is not None:
                dim = self.static_shape(base, line)[first]
                p = parts[first]
                start, _stop, step = slice(
                    *(self.const_bound(x, line) for x in (p.lower, p.upper, p.step))
                ).indices(dim)
                lists = self.list_base(base)
                if lists is not None:
                    seq.copies.append(lists)

                def element(k: ast.expr) -> ast.expr:
                    idx = k if step == 1 else binop_of(k, ast.Mult(), int_const(step))
                    if start:
                        idx = binop_of(ast.Constant(start), ast.Add(), idx)
                    self.facts[ast.dump(idx)] = (0, dim - 1)
                    new = list(parts)
                    new[first] = idx
                    sl = new[0] if len(new) == 1 else ast.Tuple(new, ast.Load())
                    return ast.Subscript(copy.deepcopy(base), sl, ast.Load())

                seq.element = element
                return seq
        seq.element = lambda k: ast.Subscript(copy.deepcopy(node), k, ast.Load())
        return seq

    def list_base(self, node: ast.expr) -> ArrayInfo | None:
        """The list a subscript chain reads from, when it is a Python list (whose slices are copies)."""
        while isinstance(node, ast.Subscript):
            node = node.value
        b = self.array_of(node) if isinstance(node, ast.Name) else None
        if isinstance(b, ArrayInfo) and b.pytype != "ndarray":
            return b
        return None

    def static_shape(self, node: ast.expr, line: int) -> tuple[int, ...]:
        """The shape of an array, list, row or slice expression (slice bounds must be constants)."""
        if isinstance(node, ast.Name):
            b = self.array_of(node)
            if b is None:
                raise Reject(line, f"{node.id} is not an array or list")
            return tuple(b.shape)
        if isinstance(node, ast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if self.arr.rank_of(node.value) is not None and any(
                not isinstance(p, ast.Slice) and self.arr.rank_of(p) is not None for p in parts
            ):  # index arrays: a gather (its shape is the indices') or a mask's selection
                arr_shape = tuple(self.arr.av(node).shape)
                if any(not isinstance(d, int) for d in arr_shape):
                    raise Reject(
                        line,
                        f"{ast.unparse(node)[:40]}: a boolean-mask selection, whose length is known only at "
                        "run time, where a fixed length is needed",
                    )
                return arr_shape
            shape = self.static_shape(node.value, line)
            if len(parts) > len(shape):
                raise Reject(
                    line, f"{ast.unparse(node)[:40]}: {len(parts)} indices for a {len(shape)}-D array"
                )
            out = []
            for d, p in zip(shape, parts):
                if isinstance(p, ast.Slice):
                    bounds = [self.const_bound(x, line) for x in (p.lower, p.upper, p.step)]
                    if bounds[2] == 0:
                        raise Reject(line, "slice step is zero")
                    n = len(range(*slice(*bounds).indices(d)))
                    if n == 0:
                        raise Reject(
                            line, f"{ast.unparse(node)[:40]} is empty (a kernel has no empty arrays)"
                        )
                    out.append(n)
            return (*out, *shape[len(parts) :])
        raise Reject(line, f"{ast.unparse(node)[:40]} is not an array, list or slice of one")


def _literal(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _literal(node.operand)
        return None if v is None else -v
    return None


def _number(node: ast.expr) -> int | float | bool | None:
    """The value of a numeric literal (`3`, `-2.5`, `True`), or None."""
    neg = isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd))
    c = node.operand if neg else node  # type: ignore[attr-defined]
    if not isinstance(c, ast.Constant) or type(c.value) not in (int, float, bool):
        return None
    if neg and type(c.value) is bool:
        return None
    return -c.value if neg and isinstance(node.op, ast.USub) else c.value  # type: ignore[attr-defined]
