"""Arrays numpy creates inside an expression: np.array, np.arange, np.eye, np.zeros/ones/full.

* `np.array([[1, 2], [3, 4]], dtype=...)` of constants: numpy itself builds the
  array from the constants' Python or numpy values (so its dtype, its values
  and its errors, such as OverflowError for `np.array([300], np.uint8)`, are
  numpy's), and the kernel reads it from a ROM. Assigned to a name it is
  copied into an array of the name's own, as numpy makes a new array.
* `np.arange(stop)`, `np.arange(start, stop[, step])` of integer constants (or
  specialised arguments): element i is start + i * step in numpy's dtype for
  them (int64 for Python ints), or `dtype=`.
* `np.zeros/ones/full(shape[, dtype])` inside an expression
  (`np.ones((h, w, 3), np.uint8) * 255`): every element is the fill value.
"""

from __future__ import annotations

import ast
import warnings
from typing import Any

import numpy as np

from partition import ir
from partition.dtypes import FLOAT64, INT32, dtype
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import AV, Comp, Ix, View, ix_const, numpy_sample
from partition.frontend.model import TE, ArrayInfo, Reject, cast, const
from partition.frontend.syntax import ARRAY_MAKERS, text
from partition.frontend.types import NP, PyBool, PyFloat, PyInt

CONVERTERS = ("asarray", "ascontiguousarray", "asanyarray")  # an array as it is, or in a dtype


class Created:
    """Arrays made by numpy calls inside expressions (part of `ArrayLowering`)."""

    lw: ScalarLowering  # the function's lowerer, whose tables and scalar rules these methods use

    def created_rank(self, node: ast.Call) -> int | None:
        """The rank of an array a numpy call creates here, None when it is not such a call."""
        name = self.lw.numpy_attr(node.func)
        if name in CONVERTERS or (name == "array" and node.args and self.rank_of(node.args[0]) is not None):
            return self.rank_of(node.args[0]) if node.args else None
        if name == "array":
            return self.literal_rank(node)
        if name in ("arange", "linspace"):
            return 1
        if name in ("eye", "identity"):
            return 2
        if (
            name == "stack"
            and node.args
            and isinstance(node.args[0], (ast.List, ast.Tuple))
            and node.args[0].elts
        ):
            r = self.rank_of(node.args[0].elts[0])
            return None if r is None else r + 1
        if name in ARRAY_MAKERS:
            if name.endswith("_like"):
                arr = self.lw.array_of(node.args[0]) if node.args else None
                return len(arr.shape) if arr is not None else 1
            kw = {k.arg: k.value for k in node.keywords}
            shape = kw.get("shape") or (node.args[0] if node.args else None)
            if isinstance(shape, (ast.Tuple, ast.List)) and not any(
                isinstance(e, ast.Starred) for e in shape.elts
            ):
                return max(len(shape.elts), 1)
            if isinstance(shape, (ast.Attribute, ast.Subscript)):
                return len(self.lw.parse_shape(shape, node.lineno)) or 1
            return 1
        return None

    def created_call(self, node: ast.Call) -> AV | None:
        """The array value of np.array/np.arange/np.zeros/ones/full(...), None for other calls."""
        name = self.lw.numpy_attr(node.func)
        if name in CONVERTERS or (name == "array" and node.args and self.rank_of(node.args[0]) is not None):
            return self.converted(name, node)
        if name == "array":
            return self.np_array(node)
        if name == "arange":
            return self.arange(node)
        if name == "linspace":
            return self.linspace(node)
        if name in ("eye", "identity"):
            return self.eye(name, node)
        if name == "stack":
            return self.stacked(node)
        if name in ARRAY_MAKERS:
            return self.filled(name, node)
        return None

    def literal_rank(self, node: ast.Call) -> int:
        """The rank of `np.array(<nested list or tuple>)`."""
        if not node.args:
            return 1
        rank, cur = 0, node.args[0]
        while isinstance(cur, (ast.List, ast.Tuple)):
            rank += 1
            if not cur.elts:
                break
            cur = cur.elts[0]
        return max(rank, 1)

    def kwargs(self, node: ast.Call, allowed: set[str], what: str) -> dict[str, ast.expr]:
        kw = {k.arg: k.value for k in node.keywords}
        extra = [k for k in kw if k not in allowed]
        if None in kw or extra:
            raise Reject(node.lineno, f"{what} with argument {extra[0] if extra else '**'}=")
        return kw

    def converted(self, name: str, node: ast.Call) -> AV:
        """np.asarray(x[, dtype]) of an array: x itself when the dtype is x's (writes reach x, as
        in numpy), else a copy in the dtype; np.array(x[, dtype]) of an array: always a copy."""
        lw = self.lw
        line = node.lineno
        kw = self.kwargs(node, {"dtype", "copy", "order"}, f"np.{name}()")
        args = list(node.args)
        if len(args) > 2 or any(isinstance(a, ast.Starred) for a in args):
            raise Reject(line, f"np.{name}() takes one array (and a dtype)")
        a = self.av(args[0])
        dt_node = kw.get("dtype") or (args[1] if len(args) > 1 else None)
        dt = lw.parse_dtype(dt_node, line) if dt_node is not None else a.dtype
        if name != "array" and dt == a.dtype:
            return a
        return self.astype(a, dt, line)

    def np_array(self, node: ast.Call) -> AV:
        """np.array of a (nested) list or tuple of constants: a ROM numpy filled."""
        lw = self.lw
        line = node.lineno
        kw = self.kwargs(node, {"dtype", "copy"}, "np.array()")
        args = list(node.args)
        if not args or len(args) > 2:
            raise Reject(line, "np.array() takes one list of values (and a dtype)")
        dt_node = kw.get("dtype") or (args[1] if len(args) > 1 else None)
        if not isinstance(args[0], (ast.List, ast.Tuple)):
            raise Reject(
                line,
                f"np.array({text(args[0])}): only a list or tuple written out is supported (an array or "
                "list argument is already an array: use it, or .copy() it)",
            )
        flat, shape = self.written_out(args[0], line)
        tes = [lw.expr(e) for e in flat]
        want = lw.parse_dtype(dt_node, line).np if dt_node is not None else None
        if not all(isinstance(te.e, ir.Const) for te in tes):
            return self.run_time_array(flat, tes, shape, want, line)
        values = np.array([self.constant_value(te) for te in tes] or [], dtype=object).reshape(shape).tolist()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                arr = np.array(values, dtype=want)
            except (TypeError, ValueError, OverflowError, Warning) as e:
                raise Reject(line, f"np.array(): numpy raises {type(e).__name__} ({e})") from None
        if arr.dtype.kind not in "biuf" or arr.dtype.name == "float16":
            raise Reject(line, f"np.array() gives numpy {arr.dtype}")
        if arr.size == 0:
            raise Reject(line, "np.array() of no values (a kernel has no empty arrays)")
        rom = self.literal_rom(arr, node)
        return self.rom_value(rom)

    def stacked(self, node: ast.Call) -> AV:
        """np.stack([a, b, ...], axis=k) of arrays of one shape: a new array with a new axis k,
        in numpy's result dtype of the items, filled before the statement."""
        lw = self.lw
        line = node.lineno
        kw = self.kwargs(node, {"axis"}, "np.stack()")
        seq = node.args[0] if len(node.args) == 1 else None
        if (
            not isinstance(seq, (ast.List, ast.Tuple))
            or not seq.elts
            or any(isinstance(e, ast.Starred) for e in seq.elts)
        ):
            raise Reject(line, "np.stack() of a list or tuple of arrays written out")
        if any(self.rank_of(e) is None for e in seq.elts):
            raise Reject(line, "np.stack() of scalars (write np.array([...]))")
        items = [self.av(e) for e in seq.elts]
        shape = items[0].shape
        self.no_dyn(shape, line, "np.stack()")
        if any(a.shape != shape for a in items):
            raise Reject(line, "np.stack() of arrays of different shapes (numpy raises ValueError)")
        axis = 0
        if "axis" in kw:
            te = lw.expr(kw["axis"])
            if not isinstance(te.e, ir.Const) or not te.e.dtype.is_int:
                raise Reject(line, "np.stack(): the axis must be a constant int")
            axis = int(te.e.value)
        rank = len(shape) + 1
        if not -rank <= axis < rank:
            raise Reject(line, f"np.stack(): axis {axis} of a {rank}-D result (numpy raises)")
        axis %= rank
        dt = dtype(np.result_type(*(np.ones(1, a.dtype.np) for a in items)).name)
        out_shape = (*shape[:axis], len(items), *shape[axis:])
        tmp = self.temp_array(dt, out_shape)
        for k, a in enumerate(items):
            comps = tuple(
                Comp(fixed=ix_const(k)) if d == axis else Comp(d if d < axis else d - 1) for d in range(rank)
            )
            lw.pending.extend(self.store_loop(View(tmp, shape, comps), a, line))

        def at(idx: tuple[Ix, ...]) -> TE:
            tmp.loaded = True
            return TE(NP(dt), ir.Load(tmp.name, tuple(i.e for i in idx), dt))

        return AV(tmp.shape, dt, at)  # a value, not a view: a name bound to it gets its own copy

    def rom_value(self, rom: ArrayInfo) -> AV:
        """The elements of a ROM made here, as a value (not a view: the name it is assigned to gets
        a copy, as numpy made a new array)."""

        def at(idx: tuple[Ix, ...]) -> TE:
            rom.loaded = True
            return TE(NP(rom.dtype), ir.Load(rom.name, tuple(i.e for i in idx), rom.dtype))

        return AV(rom.shape, rom.dtype, at)

    def written_out(self, node: ast.expr, line: int) -> tuple[list[ast.expr], tuple[int, ...]]:
        """The elements of a nested list/tuple display in row-major order, and its shape (rows
        of different lengths are refused: numpy makes an object array or raises there)."""
        if not isinstance(node, (ast.List, ast.Tuple)):
            if isinstance(node, ast.Starred):
                raise Reject(line, "np.array() of a starred expression")
            if self.rank_of(node) is not None:
                raise Reject(
                    line,
                    f"np.array() element {text(node)} is an array (use np.stack, or fill an array with "
                    "np.empty and assignments)",
                )
            return [node], ()
        parts = [self.written_out(e, line) for e in node.elts]
        shapes = {sh for _, sh in parts}
        if len(shapes) > 1:
            raise Reject(
                line, "np.array() of rows of different lengths (numpy makes an object array or raises)"
            )
        inner = shapes.pop() if shapes else ()
        return [e for flat, _ in parts for e in flat], (len(parts), *inner)

    def run_time_array(
        self, flat: list[ast.expr], tes: list[TE], shape: tuple[int, ...], want: np.dtype | None, line: int
    ) -> AV:
        """np.array of values known only at run time (`np.array([x + v * dt, v])`): numpy's dtype
        for values of those types (or `dtype=`), the elements stored into an array of its own."""
        if not tes:
            raise Reject(line, "np.array() of no values (a kernel has no empty arrays)")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                got = np.array([numpy_sample(te) for te in tes]).dtype if want is None else np.dtype(want)
            except (TypeError, ValueError, OverflowError, Warning) as e:
                raise Reject(line, f"np.array(): numpy raises {type(e).__name__} ({e})") from None
        if got.kind not in "biuf" or got.name == "float16":
            raise Reject(line, f"np.array() gives numpy {got}")
        dt = dtype(got)
        info = self.temp_array(dt, shape)
        strides = [int(np.prod(shape[k + 1 :], dtype=np.int64)) for k in range(len(shape))]
        for k, (node, te) in enumerate(zip(flat, tes)):
            if isinstance(te.pt, NP) and te.pt.dtype != dt and dt.is_int and te.pt.dtype.is_float:
                raise Reject(
                    line, f"np.array() element {text(node)}: a numpy {te.pt.dtype.name} value into {dt.name}"
                )
            value = te.e
            if isinstance(te.pt, PyInt) and dt.is_int and not (dt.min <= te.pt.lo and te.pt.hi <= dt.max):
                # numpy raises OverflowError for a Python int beyond the dtype: that call runs on the CPU
                value = self.lw.checked_operand(value, line)
                lo, hi = const(dt.min, value.dtype), const(dt.max, value.dtype)
                self.lw.fallback_if(ir.Logic("lor", ir.Cmp("lt", value, lo), ir.Cmp("gt", value, hi)), line)
            idx = tuple(const((k // st) % n, INT32) for st, n in zip(strides, shape))
            self.lw.pending.append(ir.Store(info.name, idx, cast(value, dt), line))
        info.stored = True
        return self.rom_value(info)

    def constant_value(self, te: TE) -> Any:
        """A constant element as the Python or numpy value numpy would see."""
        v = te.e.value
        if isinstance(te.pt, PyBool):
            return bool(v)
        if isinstance(te.pt, PyInt):
            return int(v)
        if isinstance(te.pt, PyFloat):
            return float(v)
        return te.e.dtype.np.type(v)

    def literal_rom(self, arr: np.ndarray, node: ast.AST) -> ArrayInfo:
        lw = self.lw
        key = f"@lit{lw.sc.prefix}:{node.lineno}:{node.col_offset}"
        info = lw.roms.get(key)
        dt = dtype(arr.dtype)
        if info is None or info.dtype != dt or info.shape != arr.shape:
            irn = self.fresh_name(key, "lit")
            info = ArrayInfo(key, irn, dt, tuple(arr.shape), "rom", NP(dt), init=arr.reshape(-1).tolist())
            lw.roms[key] = info
        lw.all_arrays[info.name] = info
        return info

    def eye(self, name: str, node: ast.Call) -> AV:
        """np.eye(n[, m][, k][, dtype]) and np.identity(n[, dtype]) of constants: numpy builds the
        matrix, the kernel reads it from a ROM (a new array where it is assigned to a name)."""
        lw = self.lw
        line = node.lineno
        allowed = {"dtype"} if name == "identity" else {"M", "k", "dtype"}
        kw = self.kwargs(node, allowed, f"np.{name}()")
        args = list(node.args)
        if not args or len(args) > (2 if name == "identity" else 4):
            raise Reject(line, f"np.{name}() takes its sizes as constants")
        sizes: list[int] = []
        for a in (
            args[:1] + ([] if name == "identity" else args[1:3]) + [kw[k] for k in ("M", "k") if k in kw]
        ):
            if isinstance(a, ast.Constant) and a.value is None:
                sizes.append(-1)
                continue
            te = lw.expr(a)
            if (
                not isinstance(te.e, ir.Const)
                or not isinstance(te.pt, (PyInt, NP))
                or isinstance(te.pt, PyBool)
            ):
                raise Reject(
                    line,
                    f"np.{name}(): {text(a)} is not a constant integer (a kernel's arrays have fixed sizes)",
                )
            sizes.append(int(te.e.value))
        dt_node = kw.get("dtype") or (args[1] if name == "identity" and len(args) > 1 else None)
        if name == "eye" and len(args) > 3:
            dt_node = args[3]
        want = lw.parse_dtype(dt_node, line).np if dt_node is not None else None
        n = sizes[0]
        m = sizes[1] if len(sizes) > 1 and sizes[1] >= 0 else n
        k = sizes[2] if len(sizes) > 2 else 0
        if n <= 0 or m <= 0:
            raise Reject(line, f"np.{name}() of an empty matrix (a kernel has no empty arrays)")
        if n * m > 1 << 20:
            raise Reject(line, f"np.{name}() of {n}x{m}: too large for an on-chip table")
        arr = np.eye(n, m, k, dtype=want if want is not None else float)
        return self.rom_value(self.literal_rom(arr, node))

    def linspace(self, node: ast.Call) -> AV:
        """np.linspace(start, stop, num) with a constant num (start and stop may be known only at
        run time): numpy's formula, i * step + start with step = (stop - start) / (num - 1), the
        last element stop itself (and i / div * delta + start when the step is zero)."""
        lw = self.lw
        line = node.lineno
        kw = self.kwargs(node, {"num", "endpoint", "dtype"}, "np.linspace()")
        args = list(node.args)
        if not 2 <= len(args) + ("num" in kw) <= 3 or len(args) < 2:
            raise Reject(line, "np.linspace() takes start, stop and num")
        num_node = kw.get("num") or (args[2] if len(args) > 2 else None)
        num = 50 if num_node is None else self.slice_bound(num_node)
        if type(num) is not int or num < 1:
            raise Reject(line, "np.linspace(): num must be a constant of at least 1 (the array's length)")
        endpoint = kw.get("endpoint")
        if endpoint is not None and not (isinstance(endpoint, ast.Constant) and endpoint.value is True):
            raise Reject(line, "np.linspace() with endpoint= other than True")
        dt = lw.parse_dtype(kw["dtype"], line) if "dtype" in kw else FLOAT64
        if not dt.is_float:
            raise Reject(line, f"np.linspace() giving {dt.name} (float results are taken)")
        start, stop = (cast(lw.expr(a).e, FLOAT64) for a in args[:2])
        div = max(num - 1, 1)
        delta = self.scalar_temp("delta", FLOAT64)
        step = self.scalar_temp("step", FLOAT64)
        first = self.scalar_temp("start", FLOAT64)
        last = self.scalar_temp("stop", FLOAT64)
        lw.pending.extend(
            [
                ir.Assign(first.name, start, line),
                ir.Assign(last.name, stop, line),
                ir.Assign(delta.name, ir.Bin("sub", last, first, FLOAT64), line),
                ir.Assign(step.name, ir.Bin("div", delta, const(float(div), FLOAT64), FLOAT64), line),
            ]
        )

        def at(idx: tuple[Ix, ...]) -> TE:
            i = cast(idx[0].e, FLOAT64)
            stepped = ir.Bin("add", ir.Bin("mul", i, step, FLOAT64), first, FLOAT64)
            scaled = ir.Bin(
                "add",
                ir.Bin("mul", ir.Bin("div", i, const(float(div), FLOAT64), FLOAT64), delta, FLOAT64),
                first,
                FLOAT64,
            )
            e: ir.Expr = ir.Select(ir.Cmp("eq", step, const(0.0, FLOAT64)), scaled, stepped, FLOAT64)
            if num > 1:
                e = ir.Select(ir.Cmp("eq", idx[0].e, const(num - 1, idx[0].e.dtype)), last, e, FLOAT64)
            return TE(NP(dt), cast(e, dt))

        return AV((num,), dt, at)

    def arange(self, node: ast.Call) -> AV:
        """np.arange with integer bounds known when compiling: start + i * step."""
        lw = self.lw
        line = node.lineno
        kw = self.kwargs(node, {"dtype", "start", "stop", "step"}, "np.arange()")
        dt_node = kw.pop("dtype", None)
        args = list(node.args)
        if len(args) > 3 or (len(args) == 3 and dt_node is None and len(node.args) > 3):
            raise Reject(line, "np.arange() with more than three bounds")
        bounds = []
        for a in args:
            te = lw.expr(a)
            if (
                isinstance(te.pt, PyInt) and te.pt.lo == te.pt.hi
            ):  # a name known to hold one value (n = x.shape[0])
                bounds.append(te.pt.lo)
                continue
            if not (isinstance(te.e, ir.Const) and te.e.dtype.is_int) or isinstance(te.pt, PyBool):
                raise Reject(
                    line, f"np.arange() bound {text(a)} is not an integer constant (its length must be known)"
                )
            bounds.append(int(te.e.value) if isinstance(te.pt, PyInt) else te.e.dtype.np.type(te.e.value))
        for name in ("start", "stop", "step"):
            if name in kw:
                raise Reject(line, f"np.arange() with {name}= (give the bounds by position)")
        want = lw.parse_dtype(dt_node, line).np if dt_node is not None else None
        try:
            sample = np.arange(*bounds, dtype=want)
        except (TypeError, ValueError, OverflowError) as e:
            raise Reject(line, f"np.arange(): numpy raises {type(e).__name__} ({e})") from None
        if sample.size == 0:
            raise Reject(line, "np.arange() of no values (a kernel has no empty arrays)")
        try:
            dt = dtype(sample.dtype)
        except KeyError:
            raise Reject(line, f"np.arange() gives numpy {sample.dtype}") from None
        if not dt.is_int:
            raise Reject(line, f"np.arange() giving {dt.name} (integer ranges are supported)")
        start = int(sample[0])
        step = int(sample[1]) - start if sample.size > 1 else 1
        if sample.tolist() != [start + i * step for i in range(sample.size)]:
            raise Reject(line, f"np.arange() whose values wrap in {dt.name}")

        def at(idx: tuple[Ix, ...]) -> TE:
            i = cast(idx[0].e, dt)
            e: ir.Expr = i
            if step != 1:
                e = ir.Bin("mul", e, const(step, dt), dt)
            if start != 0:
                e = ir.Bin("add", e, const(start, dt), dt)
            return TE(NP(dt), e)

        return AV((int(sample.size),), dt, at)

    def filled(self, kind: str, node: ast.Call) -> AV:
        """np.zeros/ones/full(shape[, ...]) inside an expression: every element the fill value."""
        lw = self.lw
        line = node.lineno
        if kind.endswith("_like") or kind == "empty":
            raise Reject(line, f"np.{kind}() inside an expression (assign it to a name first)")
        shape, dt, fill = lw.maker_parts(kind, node, line)
        if fill is None:
            fill = TE(NP(dt), const(1 if kind == "ones" else 0, dt))
        value = TE(NP(dt), cast(fill.e, dt))
        return AV(tuple(shape), dt, lambda idx: value)
