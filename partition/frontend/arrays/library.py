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

from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.model import Reject
from partition.frontend.syntax import text

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
