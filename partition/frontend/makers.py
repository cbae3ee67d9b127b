"""New arrays and lists: np.zeros/ones/full/empty(_like), `[v] * n` and list comprehensions.

A name assigned a new numpy array gets an on-chip array filled by loops; a
fixed-size local list is an on-chip array whose element type is the join of
what it holds. Shapes must be constants (sizes, array shapes and slices of
them, and expressions of those and specialised arguments: `np.zeros((h + 2, w
+ 2))`, `np.zeros(img.shape[:2])`); dtypes are numpy's names for them.
"""

from __future__ import annotations

import ast

from partition import ir
from partition.dtypes import BOOL, DTYPES, FLOAT64, INT64, DType
from partition.frontend.model import TE, ArrayInfo, Reject, cast, const
from partition.frontend.syntax import ARRAY_MAKERS, SCALAR_ALIASES
from partition.frontend.types import PyBool, PyFloat, PyInt, ir_dtype, range_of


class Makers:
    """Arrays and lists made by the function (part of `Lowerer`)."""

    def is_array_maker(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and self.numpy_attr(node.func) in ARRAY_MAKERS

    def make_array(self, pyname: str, call: ast.Call, line: int) -> list[ir.Stmt]:
        kind = self.numpy_attr(call.func)
        assert kind is not None
        shape, dt, fill_te = self.maker_parts(kind, call, line)
        info = self.arr.bind_storage(pyname, dt, tuple(shape), line)
        if kind.startswith("empty"):
            return []
        if kind.startswith("zeros"):
            fill: ir.Expr = const(0, dt)
        elif kind.startswith("ones"):
            fill = const(1, dt)
        else:
            fill = cast(fill_te.e, dt)  # type: ignore[union-attr]
        return self.fill_loops(info, fill, line)

    def maker_parts(self, kind: str, call: ast.Call, line: int) -> tuple[tuple[int, ...], DType, TE | None]:
        """The shape, dtype and (np.full) fill value of np.zeros/ones/full/empty(_like)."""
        kw = {k.arg: k.value for k in call.keywords}
        unknown = set(kw) - {"dtype", "fill_value", "order", "shape"}
        if unknown:
            raise Reject(line, f"np.{kind}() with argument {sorted(unknown, key=str)[0]}=")
        if "order" in kw and not (isinstance(kw["order"], ast.Constant) and kw["order"].value == "C"):
            raise Reject(line, f"np.{kind}() with a non-C order")
        args = list(call.args)
        fill_te: TE | None = None
        if kind.endswith("_like"):
            if not args:
                raise Reject(line, f"np.{kind}() without an array")
            proto = self.array_of(args[0])
            if proto is None:
                raise Reject(line, f"np.{kind}() of something that is not an array")
            shape = proto.shape
            dt = proto.dtype
            rest = args[1:]
            fill_node = kw.get("fill_value") or (rest[0] if kind == "full_like" and rest else None)
            if "dtype" in kw:
                dt = self.parse_dtype(kw["dtype"], line)
            elif kind == "full_like" and len(rest) > 1:
                dt = self.parse_dtype(rest[1], line)
            elif kind != "full_like" and rest:
                dt = self.parse_dtype(rest[0], line)
        else:
            shape_node = kw.get("shape") or (args[0] if args else None)
            if shape_node is None:
                raise Reject(line, f"np.{kind}() without a shape")
            shape = self.parse_shape(shape_node, line)
            rest = args[1:]
            if kind == "full":
                fill_node = kw.get("fill_value") or (rest[0] if rest else None)
                if fill_node is None:
                    raise Reject(line, "np.full() without a fill value")
                dt_node = kw.get("dtype") or (rest[1] if len(rest) > 1 else None)
            else:
                fill_node = None
                dt_node = kw.get("dtype") or (rest[0] if rest else None)
            if dt_node is not None:
                dt = self.parse_dtype(dt_node, line)
            elif kind == "full":
                fill_te = self.expr(fill_node)
                dt = {PyInt: INT64, PyFloat: FLOAT64, PyBool: BOOL}.get(type(fill_te.pt)) or ir_dtype(
                    fill_te.pt
                )
            else:
                dt = FLOAT64
        if kind.startswith("full") and fill_te is None:
            fill_te = self.expr(fill_node)  # before the name is rebound: the value may read its old array
        return tuple(shape), dt, fill_te

    def list_maker(self, node: ast.expr) -> tuple[ast.expr, list[ast.expr]] | None:
        """(fill value, sizes) of `[v] * n`, `[v for _ in range(n)]`, `[[v] * m for _ in range(n)]`."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            lst, n = node.left, node.right
            if isinstance(n, ast.List):
                lst, n = n, lst
            if (
                isinstance(lst, ast.List)
                and len(lst.elts) == 1
                and not isinstance(lst.elts[0], (ast.List, ast.ListComp))
            ):
                return lst.elts[0], [n]
            return None
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            g = node.generators[0]
            it = g.iter
            if (
                g.ifs
                or g.is_async
                or not isinstance(g.target, ast.Name)
                or not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range")
                or len(it.args) != 1
            ):
                return None
            if any(isinstance(x, ast.Name) and x.id == g.target.id for x in ast.walk(node.elt)):
                return None
            inner = self.list_maker(node.elt) if isinstance(node.elt, (ast.BinOp, ast.ListComp)) else None
            if inner is not None:
                return inner[0], [it.args[0], *inner[1]]
            if inner is None and isinstance(node.elt, (ast.List, ast.ListComp)):
                return None  # rows that are not fills: a comprehension of its own (sequences)
            return node.elt, [it.args[0]]
        return None

    def make_list(self, pyname: str, node: ast.expr, line: int) -> list[ir.Stmt]:
        """A fixed-size local list: an on-chip array whose element type is what it is given."""
        fill_node, size_nodes = self.list_maker(node)  # type: ignore[misc]
        shape = []
        for n in size_nodes:
            r = range_of(self.int_expr(n).pt)
            if r is None or r[0] != r[1] or r[0] <= 0:
                raise Reject(line, "list size that is not a positive constant")
            shape.append(int(r[0]))
        if len(shape) > 2:
            raise Reject(line, "list nested more than two deep")
        key = self.key(pyname)
        if key in self.vars or key in self.r.assigned or pyname in self.scalar_params:
            raise Reject(line, f"{pyname} is a scalar elsewhere and a list here")
        fill = self.expr(fill_node)
        ekey = key + "[]"
        info = self.arrays.get(pyname)
        if info is None:
            irn = self.irname(key)
            info = self.all_arrays.get(irn) or ArrayInfo(
                pyname, irn, ir_dtype(fill.pt), tuple(shape), "local", fill.pt, pytype="list", elem_key=ekey
            )
            self.add_array(pyname, info)
        elif info.elem_key is None or info.shape != tuple(shape):
            raise Reject(line, f"{pyname} is created twice with different shapes or kinds")
        self.store_value(fill, info, line)
        return self.fill_loops(info, cast(fill.e, info.dtype), line)

    def fill_loops(self, info: ArrayInfo, value: ir.Expr, line: int) -> list[ir.Stmt]:
        info.stored = True
        return self.arr.loop_nest(
            info.shape, line, lambda idx: [ir.Store(info.name, tuple(i.e for i in idx), value, line)]
        )

    def parse_shape(self, node: ast.expr, line: int) -> tuple[int, ...]:
        """A shape: a size, a tuple of sizes, `a.shape` or a slice of it (`img.shape[:2]`)."""
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            arr = self.array_of(node.value)
            if arr is not None:
                return arr.shape
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Slice)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "shape"
        ):
            arr = self.array_of(node.value.value)
            if arr is not None:
                sl = node.slice
                parts = [self.shape_bound(x, line) for x in (sl.lower, sl.upper, sl.step)]
                return tuple(arr.shape[slice(*parts)])
        elts = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
        shape = []
        for e in elts:
            if isinstance(e, ast.Starred):
                shape.extend(self.parse_shape(e.value, line))
                continue
            dim = self.dim_of_node(e)
            if dim is not None:  # a run-time length (len(x) of an argument of several lengths)
                shape.append(dim)
                continue
            less = self.dim_less(e, line)
            if less is not None:
                shape.append(less)
                continue
            te = self.int_expr(e)
            r = range_of(te.pt)
            if r is None or r[0] != r[1]:
                raise Reject(line, "array size that is not a constant (sizes must follow from array shapes)")
            shape.append(int(r[0]))
        return tuple(shape)

    def shape_bound(self, node: ast.expr | None, line: int) -> int | None:
        if node is None:
            return None
        r = range_of(self.int_expr(node).pt)
        if r is None or r[0] != r[1]:
            raise Reject(line, "slice of a shape with a bound that is not a constant")
        return int(r[0])

    def parse_dtype(self, node: ast.expr, line: int) -> DType:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value
        elif isinstance(node, ast.Attribute) and node.attr == "dtype":
            arr = self.array_of(node.value)
            if arr is None:
                raise Reject(line, "dtype of something that is not an array")
            return arr.dtype
        else:
            name = self.numpy_attr(node) or (node.id if isinstance(node, ast.Name) else None)
            if name in ("int", "float", "bool"):
                name = {"int": "int64", "float": "float64", "bool": "bool"}[name]
        if name is None:
            raise Reject(line, "dtype that is not a numpy type name")
        name = SCALAR_ALIASES.get(name, name)
        if name not in DTYPES:
            raise Reject(line, f"dtype {name}")
        return DTYPES[name]
