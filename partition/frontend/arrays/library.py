"""numpy library calls that are other numpy expressions the lowering already takes.

`np.linalg.norm(x)` is numpy's `sqrt(dot(x, x))`, `np.einsum("ij,jk->ik", a, b)` is `a @ b`,
`np.cov(X, rowvar=False)` is the product of the centred columns over n - 1: rather than a
lowering of its own, each such call is rewritten into the numpy expression that computes
the same thing (the same result dtype and shape, the same elements up to the float order
numpy's own code uses), and that expression is lowered in its place. The rewrite reads only
the call's constant arguments and, where numpy's result dtype depends on it, the dtype of
an operand; a call it cannot rewrite exactly is refused here, naming what is taken.

Rewritten expressions name numpy by `NP_ALIAS`, which the lowering is told is numpy.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np

from partition import ir
from partition.dtypes import INT64, UINT8, narrowest_signed
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import AV, Ix, View, has_dyn, ix_const
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.syntax import text
from partition.frontend.types import NP, PyInt

NP_ALIAS = "__np"

EINSUM_TEXT = (
    'np.einsum takes one or two operands in the patterns "i,i->", "ij,ij->", "ij,j->i", '
    '"i,ij->j", "ij,jk->ik", "bij,bjk->bik", "i,j->ij" and "ij->ji" (any letters)'
)
NORM_TEXT = "np.linalg.norm takes ord=None, 2, 1 or np.inf of a vector (or along one axis), and the 2-norm of a whole array"


def _np(attr: str) -> ast.expr:
    return ast.Attribute(ast.Name(NP_ALIAS, ast.Load()), attr, ast.Load())


def _call(attr: str, *args: ast.expr, **kw: ast.expr) -> ast.Call:
    return ast.Call(_np(attr), list(args), [ast.keyword(k, v) for k, v in kw.items()])


def _method(obj: ast.expr, name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(obj, name, ast.Load()), list(args), [])


def _const(v: object) -> ast.Constant:
    return ast.Constant(v)


class Library:
    """numpy library calls rewritten to the expressions numpy computes them by (part of `ArrayLowering`)."""

    lw: ScalarLowering

    def library_rewrite(self, node: ast.Call, typed: bool = True) -> ast.expr | None:
        """The numpy expression `node` stands for, None when it is no call this part takes.

        typed=False builds it without looking at operand dtypes (enough for its rank)."""
        lw = self.lw
        f = node.func
        name = lw.numpy_attr(f)
        linalg = (
            f.attr
            if isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Attribute)
            and lw.numpy_attr(f.value) == "linalg"
            else None
        )
        if name is None and linalg is None:
            return None
        if any(isinstance(a, ast.Starred) for a in node.args):
            return None
        if linalg == "norm":
            out = self.norm_rewrite(node, typed)
        elif name == "einsum":
            out = self.einsum_rewrite(node)
        elif name == "cov":
            out = self.cov_rewrite(node)
        elif name == "array_equal":
            out = self.array_equal_rewrite(node)
        else:
            return None
        lw.src.numpy_aliases.add(NP_ALIAS)
        ast.copy_location(out, node)
        return ast.fix_missing_locations(out)

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

    def as_float(self, x: ast.expr, typed: bool) -> ast.expr:
        """x as numpy's linalg and statistics functions take it: integers and bools become float64."""
        if typed and self.av(x).dtype.is_float:
            return x
        return _method(x, "astype", _np("float64"))

    def norm_rewrite(self, node: ast.Call, typed: bool) -> ast.expr:
        line = node.lineno
        kw = {k.arg: k.value for k in node.keywords}
        if set(kw) - {"keepdims"} or not 1 <= len(node.args) <= 3:
            raise Reject(line, f"{text(node)}: {NORM_TEXT} (and keepdims=)")
        x, ord_node, axis = (*node.args, None, None)[:3]
        rank = self.rank_of(x)
        if rank is None:
            raise Reject(line, f"{text(node)}: np.linalg.norm of a scalar")
        no_axis = axis is None or (isinstance(axis, ast.Constant) and axis.value is None)
        keep = kw.get("keepdims")
        if keep is not None and not (isinstance(keep, ast.Constant) and isinstance(keep.value, bool)):
            raise Reject(line, f"{text(node)}: keepdims must be True or False")
        keepdims = keep is not None and keep.value
        if no_axis and keepdims:
            raise Reject(line, f"{text(node)}: keepdims=True without an axis")
        vector = (rank == 1 and no_axis) or (not no_axis and not isinstance(axis, ast.Tuple))
        ord_v = _ord_value(ord_node, self.is_inf)
        if ord_v == "bad" or (ord_v in (1, 2, "inf") and not vector):
            raise Reject(line, f"{text(node)}: ord={text(ord_node)} ({NORM_TEXT})")
        if ord_v == "fro" and vector:
            raise Reject(line, f"{text(node)}: ord='fro' of a vector (numpy raises)")
        xf = self.as_float(x, typed)
        extra = {} if no_axis else {"axis": axis}
        if keepdims:
            extra["keepdims"] = _const(True)
        if ord_v == 1:
            return _call("sum", _call("abs", xf), **extra)
        if ord_v == "inf":
            return _call("max", _call("abs", xf), **extra)
        if no_axis and rank == 1:  # numpy: sqrt(dot(x, x))
            return _call("sqrt", _call("dot", xf, xf))
        return _call("sqrt", _call("sum", ast.BinOp(xf, ast.Mult(), xf), **extra))

    def is_inf(self, node: ast.expr) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and node.attr in ("inf", "Inf", "infty")
            and self.lw.numpy_attr(node) is not None
        )

    def einsum_rewrite(self, node: ast.Call) -> ast.expr:
        line = node.lineno
        if set(k.arg for k in node.keywords) - {"optimize"}:
            raise Reject(line, f"{text(node)}: np.einsum with keywords other than optimize= ({EINSUM_TEXT})")
        if (
            not node.args
            or not isinstance(node.args[0], ast.Constant)
            or not isinstance(node.args[0].value, str)
        ):
            raise Reject(line, f"{text(node)}: the subscripts must be a constant string ({EINSUM_TEXT})")
        spec = node.args[0].value.replace(" ", "")
        ops = node.args[1:]
        ins_text, arrow, out = spec.partition("->")
        ins = ins_text.split(",")
        if (
            len(ins) != len(ops)
            or not all(s.isalpha() for s in ins)
            or not (out.isalpha() or out == "")
            or "." in spec
        ):
            raise Reject(line, f"{text(node)}: subscripts {spec!r} ({EINSUM_TEXT})")
        if not arrow:  # implicit output: the letters seen once, in alphabetical order
            out = "".join(sorted(c for c in set(ins_text) if c.isalpha() and ins_text.count(c) == 1))
        for s, op in zip(ins, ops):
            r = self.rank_of(op)
            if (r or 0) != len(s):
                raise Reject(
                    line, f"{text(node)}: operand {text(op)} has {r or 0} dimensions, subscripts {s!r}"
                )
        if any(len(set(s)) != len(s) for s in ins) or len(set(out)) != len(out):
            raise Reject(line, f"{text(node)}: a repeated subscript in one operand ({EINSUM_TEXT})")
        if len(ops) == 1:
            (a,) = ins
            if len(a) == 2 and out == a[::-1]:
                return ast.Attribute(ops[0], "T", ast.Load())
            raise Reject(line, f"{text(node)}: subscripts {spec!r} ({EINSUM_TEXT})")
        if len(ops) != 2:
            raise Reject(line, f"{text(node)}: np.einsum of {len(ops)} operands ({EINSUM_TEXT})")
        a, b = ins
        x, y = ops
        if a == b and out == "":  # "i,i->" / "ij,ij->": the dot of the flattened operands
            if len(a) == 1:
                return _call("dot", x, y)
            return _call("dot", _method(x, "ravel"), _method(y, "ravel"))
        if len(a) == 1 and len(b) == 1 and a != b and out == a + b:
            return _call("outer", x, y)
        # matrix products: a's last letter contracted with b's first (b's second to last for stacks)
        if len(a) == 2 and len(b) == 1 and a[1] == b and out == a[0]:
            return ast.BinOp(x, ast.MatMult(), y)
        if len(a) == 1 and len(b) == 2 and a == b[0] and out == b[1]:
            return ast.BinOp(x, ast.MatMult(), y)
        if (
            len(a) == len(b) >= 2
            and a[:-2] == b[:-2]
            and a[-1] == b[-2]
            and len(set(a + b)) == len(a) + 1
            and out == a[:-1] + b[-1]
        ):
            return ast.BinOp(x, ast.MatMult(), y)
        raise Reject(line, f"{text(node)}: subscripts {spec!r} ({EINSUM_TEXT})")

    def cov_rewrite(self, node: ast.Call) -> ast.expr:
        """np.cov(m, rowvar=True, bias=False, ddof=None): numpy centres the variables, then
        dot(X, X.T) * (1 / (n - ddof)), in float64 (or a wider float of m)."""
        line = node.lineno
        if len(node.args) != 1:
            raise Reject(line, f"{text(node)}: np.cov of one array (y, fweights, aweights are not taken)")
        kw = {k.arg: k.value for k in node.keywords}
        if set(kw) - {"rowvar", "bias", "ddof"}:
            raise Reject(line, f"{text(node)}: np.cov takes rowvar=, bias= and ddof= (constants)")
        vals = {}
        for k, v in kw.items():
            if not isinstance(v, ast.Constant) or (k != "ddof" and not isinstance(v.value, bool)):
                raise Reject(line, f"{text(node)}: {k}= must be a constant")
            vals[k] = v.value
        x = node.args[0]
        if self.rank_of(x) != 2:
            raise Reject(line, f"{text(node)}: np.cov of a 2-D array (numpy gives a 0-d array for a vector)")
        shape = self.av(x).shape
        rowvar = vals.get("rowvar", True)
        n = shape[1] if rowvar else shape[0]
        ddof = vals.get("ddof")
        if ddof is None:
            ddof = 0 if vals.get("bias", False) else 1
        if type(ddof) is not int or not isinstance(n, int) or n - ddof <= 0:
            raise Reject(
                line, f"{text(node)}: {n} observations with ddof={ddof} (numpy divides by zero or less)"
            )
        xf = _method(x, "astype", _np("float64"))  # numpy: result_type(m, float64)
        if not rowvar:
            xf = ast.Attribute(xf, "T", ast.Load())
        centred = ast.BinOp(xf, ast.Sub(), _call("mean", xf, axis=_const(1), keepdims=_const(True)))
        prod = ast.BinOp(centred, ast.MatMult(), ast.Attribute(centred, "T", ast.Load()))
        return ast.BinOp(prod, ast.Mult(), _const(1.0 / (n - ddof)))

    def array_equal_rewrite(self, node: ast.Call) -> ast.expr:
        """np.array_equal(a, b): False for different shapes, else no element differs (NaN differs)."""
        line = node.lineno
        if len(node.args) != 2 or node.keywords:
            raise Reject(line, f"{text(node)}: np.array_equal of two arrays (equal_nan= is not taken)")
        x, y = node.args
        if self.rank_of(x) is None or self.rank_of(y) is None:
            raise Reject(line, f"{text(node)}: np.array_equal of a scalar")
        if self.av(x).shape != self.av(y).shape:
            return _const(False)
        return ast.Compare(_call("sum", ast.Compare(x, [ast.NotEq()], [y])), [ast.Eq()], [_const(0)])


def _ord_value(node: ast.expr | None, is_inf: Callable[[ast.expr], bool]) -> object:
    """ord= of np.linalg.norm: None (also for an explicit None), 1, 2, "inf", "fro", or "bad"
    for one this rewrite does not take."""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        v = node.value
        if v is None or v == "fro":
            return v
        if type(v) in (int, float) and v in (1, 2):
            return int(v)
        return "bad"
    return "inf" if is_inf(node) else "bad"
