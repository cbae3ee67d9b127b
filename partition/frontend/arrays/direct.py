"""numpy library calls lowered to loop nests of their own: np.tensordot, np.convolve,
np.bincount and np.insert (and the dispatch to np.linalg's solvers and np.median/percentile).

Each builds an `AV` from its operands' AVs: a sum of products per element for tensordot and
convolve (in np.dot's dtype; floats in index order, within the tolerance of numpy's BLAS
order), a counting loop for bincount (only where numpy's result length is fixed by minlength,
never writing out of bounds), a select for insert. What a call takes is checked here and the
rest refused with the call named.
"""

from __future__ import annotations

import ast

import numpy as np

from partition import ir
from partition.dtypes import INT64, UINT8, narrowest_signed
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import AV, Ix, View, has_dyn, ix_const
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.syntax import text
from partition.frontend.types import NP, PyInt


class DirectCalls:
    """np.tensordot, np.convolve, np.bincount and np.insert (part of `ArrayLowering`)."""

    lw: ScalarLowering

    def library_rank(self, node: ast.Call) -> int | None:
        """The rank of the library calls lowered here directly (not rewritten), else None."""
        solved = self.linalg_rank(node)
        if solved is None:
            solved = self.order_rank(node)
        if solved is not None:
            return solved
        name = self.lw.numpy_attr(node.func)
        if name in ("insert", "convolve", "bincount") and node.args:
            return 1 if self.rank_of(node.args[0]) is not None else None
        if name == "tensordot" and len(node.args) in (2, 3):
            ra, rb = self.rank_of(node.args[0]), self.rank_of(node.args[1])
            axes = self.tensordot_axes(node, ra or 0, rb or 0)
            rank = (ra or 0) + (rb or 0) - 2 * len(axes[0])
            return rank if rank > 0 else None
        return None

    def tensordot_axes(self, node: ast.Call, ra: int, rb: int) -> tuple[list[int], list[int]]:
        """The axes np.tensordot contracts, of a and of b (normalised), from its constant axes argument."""
        line = node.lineno
        spec = node.args[2] if len(node.args) == 3 else ast.Constant(2)
        try:
            value = ast.literal_eval(spec)
        except ValueError:
            raise Reject(line, f"{text(node)}: the axes must be written as constants") from None
        if type(value) is int:
            if not 0 <= value <= min(ra, rb):
                raise Reject(line, f"{text(node)}: axes={value} for arrays of {ra} and {rb} dimensions")
            return list(range(ra - value, ra)), list(range(value))
        if isinstance(value, (list, tuple)) and len(value) == 2:
            xs, ys = ([v] if type(v) is int else list(v) for v in value)
            if (
                len(xs) == len(ys)
                and all(type(k) is int and -ra <= k < ra for k in xs)
                and all(type(k) is int and -rb <= k < rb for k in ys)
            ):
                xs, ys = [k % ra for k in xs], [k % rb for k in ys]
                if len(set(xs)) == len(xs) and len(set(ys)) == len(ys):
                    return xs, ys
        raise Reject(line, f"{text(node)}: axes must be an int or two equally long lists of distinct axes")

    def library_call(self, node: ast.Call) -> AV | None:
        """The array value of the library calls lowered here directly, else None."""
        solved = self.linalg_call(node) or self.order_call(node)
        if solved is not None:
            return solved
        name = self.lw.numpy_attr(node.func)
        if name == "insert":
            return self.insert(node)
        if name == "convolve":
            return self.convolve(node)
        if name == "tensordot":
            return self.tensordot(node)
        if name == "bincount":
            return self.bincount(node)
        return None

    def bincount(self, node: ast.Call) -> AV:
        """np.bincount(x, minlength=m) of a 1-D integer array whose every value is below m: the
        counts, int64. numpy's length is max(m, max(x) + 1), so only a minlength above the
        dtype's largest value fixes it (uint8 and 256); a negative value (numpy raises
        ValueError) sets the fallback status, and no count is written out of bounds."""
        lw = self.lw
        line = node.lineno
        if not 1 <= len(node.args) <= 3 or node.keywords:
            raise Reject(line, f"{text(node)}: np.bincount(x, minlength=m) of an integer array is taken")
        if len(node.args) >= 2 and not (
            isinstance(node.args[1], ast.Constant) and node.args[1].value is None
        ):
            raise Reject(line, f"{text(node)}: np.bincount with weights is not taken")
        x = self.av(node.args[0])
        if len(x.shape) != 1 or has_dyn(x.shape):
            raise Reject(
                line, f"{text(node)}: np.bincount of a 1-D array of constant length (numpy raises otherwise)"
            )
        dt = x.dtype
        if not (dt.is_int or dt.is_bool) or dt.name == "uint64":
            raise Reject(
                line, f"{text(node)}: np.bincount of a {dt.name} array (numpy casts it safely to int64)"
            )
        m = self.slice_bound(node.args[2]) if len(node.args) == 3 else 0
        top = dt.max
        if type(m) is not int or m < top + 1 or m > 1 << 16:
            raise Reject(
                line,
                f"{text(node)}: np.bincount needs a constant minlength of at least {top + 1} (the {dt.name} "
                "values' bound) and at most 65536: otherwise the result's length depends on the values",
            )
        rdt = INT64
        idt = narrowest_signed(-1, m) or INT64
        status = lw.status_name() if dt.kind == "int" else None

        def fill(target: View) -> list[ir.Stmt]:
            stmts = self.loop_nest(
                (m,), line, lambda i: [ir.Store(target.base.name, target.index(i), const(0, rdt), line)]
            )

            def count(i: tuple[Ix, ...]) -> list[ir.Stmt]:
                v = cast(x.at(i).e, idt)
                safe = ir.Bin("max", v, const(0, idt), idt) if status else v
                where = target.index((Ix(safe, 0, m - 1),))
                add = ir.Store(
                    target.base.name,
                    where,
                    ir.Bin("add", ir.Load(target.base.name, where, rdt), const(1, rdt), rdt),
                    line,
                )
                if status is None:
                    return [add]
                neg = ir.Cmp("lt", v, const(0, idt))
                return [ir.If(neg, [ir.Assign(status, const(1, UINT8), line)], [add], line)]

            target.base.stored = target.base.loaded = True
            return stmts + self.loop_nest(x.shape, line, count)

        return self.produced((m,), rdt, fill, line)

    def tensordot(self, node: ast.Call) -> AV:
        """np.tensordot(a, b, axes): each element the sum of products over the contracted axes
        (a's free axes, then b's, in order), in np.dot's dtype, as numpy's dot of the reshaped
        operands (the float sum in index order, within the tolerance of numpy's BLAS order)."""
        line = node.lineno
        if len(node.args) not in (2, 3) or node.keywords:
            raise Reject(line, f"{text(node)}: np.tensordot(a, b[, axes]) of two arrays")
        a, b = self.operand(node.args[0]), self.operand(node.args[1])
        if not isinstance(a, AV) or not isinstance(b, AV):
            raise Reject(line, f"{text(node)}: np.tensordot of a scalar")
        if has_dyn(a.shape) or has_dyn(b.shape):
            raise Reject(
                line, f"{text(node)}: np.tensordot of a slice whose length is known only at run time"
            )
        ra, rb = len(a.shape), len(b.shape)
        xs, ys = self.tensordot_axes(node, ra, rb)
        kshape = tuple(a.shape[k] for k in xs)
        if kshape != tuple(b.shape[k] for k in ys):
            raise Reject(line, f"{text(node)}: shape-mismatch for sum (numpy raises)")
        free_a = [k for k in range(ra) if k not in xs]
        free_b = [k for k in range(rb) if k not in ys]
        shape = tuple(a.shape[k] for k in free_a) + tuple(b.shape[k] for k in free_b)
        rdt = self.probe(np.dot, [a, b], f"np.tensordot() of {a.dtype.name} and {b.dtype.name}", line)
        self.note_float_order(rdt, "np.tensordot()", "numpy uses BLAS", line)

        def place(rank: int, free: list[int], contracted: list[int], fi: tuple, ki: tuple) -> tuple[Ix, ...]:
            full: list[Ix] = [ix_const(0)] * rank
            for k, i in zip(free, fi):
                full[k] = i
            for k, i in zip(contracted, ki):
                full[k] = i
            return tuple(full)

        def total(idx: tuple[Ix, ...]) -> tuple[list[ir.Stmt], ir.Var]:
            acc = self.scalar_temp("acc", rdt)
            ia, ib = idx[: len(free_a)], idx[len(free_a) :]

            def step(kk: tuple[Ix, ...]) -> list[ir.Stmt]:
                x = cast(a.at(place(ra, free_a, xs, ia, kk)).e, rdt)
                y = cast(b.at(place(rb, free_b, ys, ib, kk)).e, rdt)
                prod = ir.Bin("and" if rdt.is_bool else "mul", x, y, rdt)
                return [ir.Assign(acc.name, ir.Bin("or" if rdt.is_bool else "add", acc, prod, rdt), line)]

            return [ir.Assign(acc.name, const(0, rdt), line), *self.loop_nest(kshape, line, step)], acc

        if not shape:  # numpy gives a 0-d array; call_rank sends a full contraction to the scalar path
            raise Reject(line, f"{text(node)}: np.tensordot over every axis (a 0-d array; use np.sum(a * b))")

        def fill(target: View) -> list[ir.Stmt]:
            def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                stmts, acc = total(idx)
                value = self.lw.store_value(TE(NP(rdt), acc), target.base, line)
                return [*stmts, ir.Store(target.base.name, target.index(idx), value, line)]

            target.base.stored = True
            return self.loop_nest(shape, line, body)

        return self.produced(shape, rdt, fill, line)

    def convolve(self, node: ast.Call) -> AV:
        """np.convolve(a, v, mode) of two 1-D arrays of constant lengths: element k of the full
        convolution is the sum over j of a[k - j] * v[j] (the terms inside a), in numpy's dtype;
        "same" and "valid" are its middle (numpy swaps the operands when v is the longer)."""
        line = node.lineno
        if not 2 <= len(node.args) <= 3 or node.keywords:
            raise Reject(line, f"{text(node)}: np.convolve(a, v[, mode]) of two 1-D arrays is taken")
        mode_node = node.args[2] if len(node.args) == 3 else ast.Constant("full")
        mode = mode_node.value if isinstance(mode_node, ast.Constant) else None
        if mode not in ("full", "same", "valid"):
            raise Reject(line, f"{text(node)}: mode must be the constant 'full', 'same' or 'valid'")
        a, v = self.av(node.args[0]), self.operand(node.args[1])
        if not isinstance(v, AV) or len(a.shape) != 1 or len(v.shape) != 1:
            raise Reject(line, f"{text(node)}: np.convolve of two 1-D arrays is taken")
        if has_dyn(a.shape) or has_dyn(v.shape):
            raise Reject(line, f"{text(node)}: np.convolve of a slice whose length is known only at run time")
        if a.shape[0] == 0 or v.shape[0] == 0:
            raise Reject(line, f"{text(node)}: np.convolve of an empty array (numpy raises)")
        if v.shape[0] > a.shape[0]:
            a, v = v, a
        n, m = a.shape[0], v.shape[0]
        rdt = self.probe(np.convolve, [a, v], f"np.convolve() of {a.dtype.name} and {v.dtype.name}", line)
        self.note_float_order(rdt, "np.convolve()", "numpy uses dot products of slices", line)
        off, size = {"full": (0, n + m - 1), "same": ((m - 1) // 2, n), "valid": (m - 1, n - m + 1)}[mode]
        idt = narrowest_signed(-m, n + m) or INT64

        def pair(k: Ix, j: Ix) -> tuple[TE, TE]:
            src = ir.Bin("sub", ir.Bin("add", cast(k.e, idt), const(off, idt), idt), cast(j.e, idt), idt)
            if mode == "valid":  # always inside a
                return a.at((Ix(src, 0, n - 1),)), v.at((j,))
            clamped = ir.Bin("min", ir.Bin("max", src, const(0, idt), idt), const(n - 1, idt), idt)
            x = cast(a.at((Ix(clamped, 0, n - 1),)).e, rdt)
            inside = ir.Logic("land", ir.Cmp("ge", src, const(0, idt)), ir.Cmp("lt", src, const(n, idt)))
            # a term outside a is no term: both factors 0 (not 0 * v[j], NaN for an infinite v[j])
            y = cast(v.at((j,)).e, rdt)
            zero = const(0, rdt)
            return TE(NP(rdt), ir.Select(inside, x, zero, rdt)), TE(NP(rdt), ir.Select(inside, y, zero, rdt))

        def fill(target: View) -> list[ir.Stmt]:
            def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                stmts, acc = self.accumulate(m, rdt, line, lambda j: pair(idx[0], j))
                value = self.lw.store_value(TE(NP(rdt), acc), target.base, line)
                return [*stmts, ir.Store(target.base.name, target.index(idx), value, line)]

            target.base.stored = True
            return self.loop_nest((size,), line, body)

        return self.produced((size,), rdt, fill, line)

    def insert(self, node: ast.Call) -> AV:
        """np.insert(a, i, v) of one scalar at a constant position: the flattened array (numpy
        flattens without an axis) with v, cast to a's dtype as numpy stores it, before element i."""
        lw = self.lw
        line = node.lineno
        if len(node.args) != 3 or node.keywords:
            raise Reject(
                line, f"{text(node)}: np.insert of one scalar at a constant position (no axis=) is taken"
            )
        a = self.av(node.args[0])
        if len(a.shape) != 1:
            a = self.flattened("flatten", a, ast.Call(ast.Name("flatten"), [], [], lineno=line))
        n = a.shape[0]
        if has_dyn(a.shape):
            raise Reject(line, f"{text(node)}: np.insert into a slice whose length is known only at run time")
        pos = self.slice_bound(node.args[1])
        if type(pos) is not int:
            raise Reject(line, f"{text(node)}: the position must be one constant int")
        if not -n <= pos <= n:
            raise Reject(
                line, f"{text(node)}: position {pos} is out of bounds for {n} elements (numpy raises)"
            )
        if pos < 0:
            pos += n  # numpy counts a negative position from the end
        if self.rank_of(node.args[2]) is not None:
            raise Reject(line, f"{text(node)}: np.insert of an array of values (one scalar is taken)")
        te = lw.expr(node.args[2])
        dt = a.dtype
        if not hasattr(te.e, "dtype") or isinstance(te.pt, tuple):
            raise Reject(line, f"{text(node)}: the value must be one number")
        if dt.is_int and not te.e.dtype.is_int:
            raise Reject(line, f"{text(node)}: a {te.e.dtype.name} value into an integer array")
        if dt.is_int and isinstance(te.e, ir.Const) and not dt.min <= int(te.e.value) <= dt.max:
            raise Reject(
                line, f"{text(node)}: {te.e.value} does not fit {dt.name} (numpy raises OverflowError)"
            )
        value = lw.fitting(te, dt, line) if dt.is_int and isinstance(te.pt, PyInt) else cast(te.e, dt)
        idt = narrowest_signed(-1, n + 1) or INT64

        def at(idx: tuple[Ix, ...]) -> TE:
            if n == 0:
                return TE(NP(dt), value)
            i = cast(idx[0].e, idt)
            # the source element: i before the position, i - 1 after it (clamped: both are read)
            src = ir.Bin("sub", i, cast(ir.Cmp("gt", i, const(pos, idt)), idt), idt)
            before = a.at((Ix(ir.Bin("min", src, const(n - 1, idt), idt), 0, n - 1),))
            here = ir.Cmp("eq", i, const(pos, idt))
            return TE(NP(dt), ir.Select(here, value, cast(before.e, dt), dt))

        return AV((n + 1,), dt, at)

    def triangle_call(self, node: ast.expr) -> ast.Call | None:
        """`node` when it is a call to np.triu_indices or np.tril_indices, else None."""
        if isinstance(node, ast.Call) and self.lw.numpy_attr(node.func) in ("triu_indices", "tril_indices"):
            return node
        return None

    def triangle(self, base: AV, call: ast.Call, node: ast.AST) -> AV:
        """x[np.triu_indices(n, k, m)] (or tril): the elements of x's first two axes on and above
        (below) diagonal k, row by row as numpy lists them; gathered by a loop nest with a
        counter (n, k, m constants; the triangle must lie inside x, or numpy raises)."""
        line = self.lw.where(node)
        name = self.lw.numpy_attr(call.func)
        what = f"np.{name}()"
        if not 1 <= len(call.args) <= 3 or call.keywords:
            raise Reject(line, f"{text(node)}: {what} takes n, k and m (constants)")
        vals = []
        for a in call.args:
            v = None if isinstance(a, ast.Constant) and a.value is None else self.slice_bound(a)
            if v is not None and type(v) is not int:
                raise Reject(line, f"{text(node)}: the arguments of {what} must be constant ints")
            vals.append(v)
        n, k, m = (*vals, None, None)[:3]
        k = 0 if k is None else k
        if not isinstance(n, int):
            raise Reject(line, f"{text(node)}: {what} needs n")
        rows, cols = getattr(np, name)(n, k, m)
        if len(base.shape) < 2 or has_dyn(base.shape[:2]):
            raise Reject(line, f"{text(node)}: {what} indexes a 2-D array of constant shape")
        if rows.size == 0:
            raise Reject(line, f"{text(node)}: the triangle is empty (a kernel has no empty arrays)")
        if rows.max() >= base.shape[0] or cols.max() >= base.shape[1]:
            raise Reject(line, f"{text(node)}: the triangle lies outside the array (numpy raises IndexError)")
        count, rest = int(rows.size), base.shape[2:]
        upper = name == "triu_indices"
        width = int(cols.max()) + 1

        def fill(target: View) -> list[ir.Stmt]:
            c = self.scalar_temp("c", INT64)
            idt = narrowest_signed(-abs(k) - width, n + width + abs(k)) or INT64

            def body(rc: tuple[Ix, ...]) -> list[ir.Stmt]:
                r, q = cast(rc[0].e, idt), cast(rc[1].e, idt)
                diag = ir.Bin("sub", q, r, idt)
                inside = ir.Cmp("ge", diag, const(k, idt)) if upper else ir.Cmp("le", diag, const(k, idt))
                pos = Ix(c, 0, count - 1)

                def copy(ix: tuple[Ix, ...]) -> list[ir.Stmt]:
                    value = cast(base.at((rc[0], rc[1], *ix)).e, base.dtype)
                    return [ir.Store(target.base.name, target.index((pos, *ix)), value, line)]

                moves = self.loop_nest(rest, line, copy) if rest else copy(())
                step = ir.Assign(c.name, ir.Bin("add", c, const(1, INT64), INT64), line)
                return [ir.If(inside, [*moves, step], [], line)]

            target.base.stored = True
            height = int(rows.max()) + 1
            return [ir.Assign(c.name, const(0, INT64), line), *self.loop_nest((height, width), line, body)]

        return self.produced((count, *rest), base.dtype, fill, line)
