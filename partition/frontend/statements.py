"""Statements: assignments, augmented assignments, branches, returns and the rest.

Each statement lowers to IR statements, preceded by what inlined calls and
array expressions in it compute (`pending`). Loops are lowered by
`partition.frontend.loops`, array-valued assignments by the array lowering;
anything else is rejected with the statement's line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager

from partition import ir
from partition.dtypes import INT32
from partition.frontend.arrays.values import View, full_view
from partition.frontend.model import TE, ArrayInfo, Reject, cast, const
from partition.frontend.returns import VALUE as RET_VALUE
from partition.frontend.syntax import BINOPS, OP_TEXT
from partition.frontend.types import NP, PyBool, PyFloat, PyInt, fits, ir_dtype


class Statements:
    """Statements (part of `Lowerer`)."""

    def block(self, body: list[ast.stmt], top: bool = False) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for s in body:
            out.extend(self.stmt(s, top))
        return out

    def stmt(self, s: ast.stmt, top: bool = False) -> list[ir.Stmt]:
        """One statement, preceded by what inlined calls in it compute."""
        outer = self.pending
        self.pending = []
        value = getattr(s, "value", None)
        self.call_statement = value if isinstance(value, ast.Call) else None
        enclosing, self.current_stmt = self.current_stmt, s
        try:
            out = self.stmt_body(s, top)
            return self.pending + out
        finally:
            self.pending = outer
            self.call_statement = None
            self.current_stmt = enclosing

    def stmt_body(self, s: ast.stmt, top: bool = False) -> list[ir.Stmt]:
        line = s.lineno
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                if not all(isinstance(t, ast.Name) for t in s.targets):
                    raise Reject(line, "chained assignment to an element (a[i] = b = ...)")
                # `a = b = v`: a and b name the one value v
                first = s.targets[0]
                out = self.assign(first, s.value, line, top)
                for t in s.targets[1:]:
                    out += self.assign(t, ast.copy_location(ast.Name(first.id, ast.Load()), first), line, top)
                return out
            return self.assign(s.targets[0], s.value, line, top)
        if isinstance(s, ast.AnnAssign):
            if s.value is None:
                return []
            return self.assign(s.target, s.value, line, top)
        if isinstance(s, ast.AugAssign):
            return self.augassign(s)
        if isinstance(s, ast.For):
            unrolled = self.record_for(s)
            if unrolled is not None:
                return unrolled
            return self.for_stmt(s)
        if isinstance(s, ast.If):
            cond = self.truth(self.expr(s.test), s.test)
            before = set(self.defined)
            with self.facts_from(s.test, True), self.nested():
                then = self.block(s.body)
            after_then, self.defined = self.defined, set(before)
            with self.facts_from(s.test, False), self.nested():
                orelse = self.block(s.orelse)
            self.defined &= after_then  # assigned on both paths
            return [ir.If(cond.e, then, orelse, line)]
        if isinstance(s, ast.Return):
            return self.return_stmt(s)
        if isinstance(s, ast.Pass):
            return []
        if isinstance(s, ast.Break):
            return [ir.Break(line)]
        if isinstance(s, ast.Continue):
            return [ir.Continue(line)]
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return []
            if isinstance(s.value, ast.Call):
                out = next((k.value for k in s.value.keywords if k.arg == "out"), None)
                if out is not None and self.numpy_attr(s.value.func) is not None:
                    # np.dot(a, b, out=c), np.add(x, y, out=z): the result written into out's
                    # elements, which must have its shape (numpy raises otherwise; so does the
                    # assignment, for a shape that differs)
                    call = ast.Call(
                        s.value.func, s.value.args, [k for k in s.value.keywords if k.arg != "out"]
                    )
                    ast.copy_location(call, s.value)
                    target = ast.Subscript(out, ast.Constant(Ellipsis), ast.Store())
                    ast.copy_location(target, out)
                    return self.assign(target, call, line, top)
                helper = self.resolve_helper(s.value.func)
                if helper is None:
                    raise Reject(line, f"call to {self.callee_text(s.value.func)}() as a statement")
                self.inline(s.value, *helper)
                return []
            raise Reject(line, "expression statement")
        if isinstance(s, ast.Assert):
            self.note(f"assert at line {line} is not checked in hardware")
            return []
        if isinstance(s, ast.While):
            before = set(self.defined)
            loop = self.while_loop(s)
            self.defined = before  # the body may not run
            return [loop]
        return [self.reject_stmt(s)]

    @contextmanager
    def nested(self, loop: bool = False) -> Iterator[None]:
        """Statements inside a loop body or a branch (what array names name must agree where paths meet)."""
        region = self.arr.enter(loop)
        try:
            yield
        finally:
            self.arr.leave(region)
        self.arr.check_loop(region)

    def reject_stmt(self, s: ast.stmt) -> ir.Stmt:
        names = {
            ast.With: "with statement",
            ast.Try: "try statement",
            ast.Raise: "raise statement",
            ast.Global: "global statement",
            ast.Nonlocal: "nonlocal statement",
            ast.Delete: "del statement",
            ast.Import: "import statement",
            ast.ImportFrom: "import statement",
            ast.FunctionDef: "nested function",
            ast.ClassDef: "class definition",
            ast.AsyncFor: "async for",
            ast.AsyncWith: "async with",
            ast.Match: "match statement",
        }
        raise Reject(s.lineno, names.get(type(s), type(s).__name__))

    def assign(self, target: ast.expr, value: ast.expr, line: int, top: bool) -> list[ir.Stmt]:
        if isinstance(target, ast.Name):
            if self.is_array_maker(value):
                return self.make_array(target.id, value, line)
            if isinstance(value, (ast.List, ast.ListComp, ast.BinOp)) and self.list_maker(value) is not None:
                return self.make_list(target.id, value, line)
            if isinstance(value, (ast.List, ast.ListComp)) or self.list_call(value):
                return self.list_value(target.id, value, line)
            helper = self.resolve_helper(value.func) if isinstance(value, ast.Call) else None
            if helper is not None:
                result = self.inline(value, *helper)
                return self.bind_result(target.id, result, line)
            if isinstance(value, ast.Name) and self.lookup_array(value.id) is not None:
                if target.id.startswith(RET_VALUE):
                    raise Reject(line, "returns an array from more than one place")
                # `out = inp`: the same array under a second name, as in Python (writes through
                # either reach it): bound like a view of all of it
                return self.arr.assign_name(target.id, value, line)
            if self.arr.rank_of(value) is not None:
                return self.arr.assign_name(target.id, value, line)
            if target.id in self.arrays or target.id in self.sc.views:
                raise Reject(line, f"{target.id} is an array here and a scalar elsewhere")
            te = self.expr(value)
            return [self.assign_var(target.id, te, line, value)]
        if isinstance(target, ast.Subscript):
            row = self.row_targets(target, value)
            if row is not None:  # `out[y, x] = (r, g, b)`: the tuple's items into the row's elements
                held: list[ir.Stmt] = []
                items = self.tuple_items(value, len(row), line, held)
                return held + self.assign_items(ast.Tuple(row, ast.Store()), items, line)
            if self.arr.rank_of(target) is not None:
                return self.arr.assign_elements(target, value, line)
            arr, idx = self.subscript_target(target)
            te = self.expr(value)
            arr.stored = True
            return [ir.Store(arr.name, idx, self.store_value(te, arr, line), line)]
        if isinstance(target, (ast.Tuple, ast.List)):
            return self.tuple_assign(target, value, line, top)
        raise Reject(line, f"assignment to {type(target).__name__}")

    def row_targets(self, target: ast.Subscript, value: ast.expr) -> list[ast.expr] | None:
        """`a[i, j]` naming a row of a stored array, assigned a tuple or list display of as many
        items: each element as a target (`a[i, j, 0]`, ...), None for any other assignment.
        numpy converts the whole display before it stores, as the held items are."""
        if not isinstance(value, (ast.Tuple, ast.List)) or any(
            isinstance(e, ast.Starred) for e in value.elts
        ):
            return None
        if self.arr.rank_of(target) != 1 or not isinstance(target.value, ast.Name):
            return None
        arr = self.array_of(target.value)
        parts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        if not isinstance(arr, ArrayInfo) or len(parts) != len(arr.shape) - 1:
            return None
        if any(isinstance(p, ast.Slice) or self.arr.rank_of(p) is not None for p in parts):
            return None
        if arr.shape[-1] != len(value.elts) or any(self.arr.rank_of(e) is not None for e in value.elts):
            return None
        out: list[ast.expr] = []
        for k in range(len(value.elts)):
            sub = ast.Subscript(target.value, ast.Tuple([*parts, ast.Constant(k)], ast.Load()), ast.Store())
            out.append(ast.fix_missing_locations(ast.copy_location(sub, target)))
        return out

    def row_items(self, value: ast.expr, n: int) -> ast.Tuple | None:
        """`a[i]` of a 2-D array or list with rows of `n` items, as the tuple `(a[i][0], ..., a[i][n-1])`
        (unpacking a row reads its items; the right-hand side is whole before any name is bound)."""
        if not isinstance(value, ast.Subscript) or isinstance(value.slice, (ast.Slice, ast.Tuple)):
            return None
        arr = self.array_of(value.value)
        if not isinstance(arr, ArrayInfo) or len(arr.shape) != 2 or arr.shape[1] != n:
            return None
        load = ast.Load()
        items = [ast.Subscript(value, ast.Constant(k), load) for k in range(n)]
        row = ast.Tuple(items, load)
        for node in (row, *items, *(i.slice for i in items)):
            ast.copy_location(node, value)
        return row

    def augassign(self, s: ast.AugAssign) -> list[ir.Stmt]:
        op = BINOPS.get(type(s.op))
        line = s.lineno
        if op is None:
            raise Reject(line, f"operator {type(s.op).__name__}=")
        if isinstance(s.target, ast.Name):
            if s.target.id in self.arrays or s.target.id in self.sc.views:
                return self.arr.augassign(s.target, op, s.value, line)
            if self.arr.rank_of(s.value) is not None:
                raise Reject(
                    line, f"{s.target.id} {OP_TEXT[op]}= an array makes the scalar {s.target.id} an array"
                )
            cur = self.read_var(s.target.id, s.target)
            te = self.binop(op, cur, self.expr(s.value), s)
            return [self.assign_var(s.target.id, te, line, s)]
        if isinstance(s.target, ast.Subscript):
            if self.arr.rank_of(s.target) is not None:
                return self.arr.augassign(s.target, op, s.value, line)
            arr, idx = self.subscript_target(s.target)
            arr.loaded = True
            arr.stored = True
            cur = TE(self.elem_type(arr), ir.Load(arr.name, idx, arr.dtype))
            te = self.binop(op, cur, self.expr(s.value), s)
            return [ir.Store(arr.name, idx, self.store_value(te, arr, line), line)]
        raise Reject(line, "augmented assignment to this target")

    def store_value(self, te: TE, arr: ArrayInfo, line: int) -> ir.Expr:
        if arr.kind == "rom":
            raise Reject(line, f"writes to global array {arr.pyname} (kernels may only read globals)")
        if arr.pytype == "list_tuple":
            raise Reject(line, f"writes to {arr.pyname}, a list of tuples (tuples cannot change)")
        if arr.elem_key is not None:
            key = arr.elem_key
            prev = self.r.assigned.get(key)
            try:
                self.r.assigned[key] = te.pt if prev is None else self.join_round(prev, te.pt, key)
            except Reject as e:
                raise Reject(line, e.construct.replace(key, f"list {arr.pyname}")) from None
            self.elem_type(arr)
        elif arr.pytype == "list" and not isinstance(te.pt, (PyInt, PyFloat, PyBool)):
            self.note(f"line {line}: numpy scalars stored into list {arr.pyname} come back as Python numbers")
        if arr.dtype.is_int and arr.pytype == "ndarray":
            return self.fitting(te, arr.dtype, line)  # NumPy 2 raises OverflowError for one beyond the dtype
        if isinstance(te.pt, PyInt) and arr.dtype.is_int and not fits((te.pt.lo, te.pt.hi), arr.dtype):
            return self.fitting(te, arr.dtype, line)  # a list element held narrower than the value
        return cast(te.e, arr.dtype)

    def returned_list(self, node: ast.expr, k: int, n: int, line: int) -> ArrayInfo:
        """`return [...]`: the list is made in a local list of its own, the kernel's output."""
        pyname = f"__result{k}"
        key = self.key(pyname)
        if key not in self.ir_names:
            self.unique_name(key, "result" if n == 1 else f"result{k}")
        self.sc.local_names.add(pyname)
        if self.list_maker(node) is not None:
            self.pending.extend(self.make_list(pyname, node, line))
        else:
            self.pending.extend(self.list_value(pyname, node, line))
        out = self.arrays[pyname]
        out.returned = k
        return out

    def boxed_scalar(self, te: TE, k: int, line: int) -> tuple[ArrayInfo, list[ir.Stmt]]:
        """Item `k` of a returned tuple, a scalar beyond the first: an output array of one
        element whose `pytype` ("scalar_int", "scalar_float", "scalar_bool", "scalar_npscalar")
        tells the host which Python value to make of it. The kernel has one return register."""
        kind = {NP: "npscalar", PyInt: "int", PyFloat: "float", PyBool: "bool"}[type(te.pt)]
        dt = ir_dtype(te.pt)
        key = f"@result{self.sc.prefix}{k}"
        info = self.arr.local(self.arr.fresh_name(key, f"result{k}"), key, dt, (1,), line)
        info.returned = k
        info.pytype = f"scalar_{kind}"
        info.stored = True
        return info, [ir.Store(info.name, (const(0, INT32),), cast(te.e, dt), line)]

    def return_stmt(self, s: ast.Return) -> list[ir.Stmt]:
        line = s.lineno
        v = s.value
        if v is None or (isinstance(v, ast.Constant) and v.value is None):
            return []
        items = v.elts if isinstance(v, ast.Tuple) else [v]
        self.return_tuple = isinstance(v, ast.Tuple)
        scalar: TE | None = None
        for k, item in enumerate(items):
            arr = self.array_of(item) if isinstance(item, ast.Name) else None
            if isinstance(arr, View) and arr.same(full_view(arr.base)):
                arr = arr.base  # an alias of a whole array (out = inp): the array itself
            if isinstance(arr, ArrayInfo) and arr.name in self.arr.saved:  # a rebound argument
                out, stmts = self.arr.result_copy(arr, k, line)
                out.returned = k
                self.pending.extend(stmts)
                self.returns.append(("param", out.name))
                continue
            if isinstance(arr, ArrayInfo):
                if arr.kind == "rom":
                    raise Reject(line, f"returns global array {arr.pyname}")
                if arr.kind == "local":
                    arr.returned = k
                    self.returns.append(("param", arr.name))
                else:
                    self.returns.append(("param", arr.name))
                continue
            if isinstance(item, (ast.List, ast.ListComp)) or self.list_call(item):  # a new list, returned
                out = self.returned_list(item, k, len(items), line)
                self.returns.append(("param", out.name))
                continue
            if self.arr.rank_of(item) is not None:  # an array expression or a view: a new output array
                out, stmts = self.arr.result_array(item, k, line)
                out.returned = k
                self.pending.extend(stmts)
                self.returns.append(("param", out.name))
                continue
            if scalar is not None:  # a further scalar: a one-element output array (the host unboxes it)
                out, stmts = self.boxed_scalar(self.expr(item), k, line)
                self.pending.extend(stmts)
                self.returns.append(("param", out.name))
                continue
            scalar = self.expr(item)
            self.returns.append(("scalar", ir_dtype(scalar.pt).name))
        if scalar is None:
            return []
        dt = ir_dtype(scalar.pt)
        self.ret = dt
        self.ret_pytype = {NP: "npscalar", PyInt: "int", PyFloat: "float", PyBool: "bool"}[type(scalar.pt)]
        return [ir.Return(scalar.e, line)]
