"""Lowering one profiled Python function to a `Kernel`.

The lowering runs in rounds. Each round walks the function's AST once,
building IR with the variable types known so far and collecting the type of
every assignment; variable types are the join of their assignments (one type
per variable for the whole function, as hardware needs). Rounds repeat until
the types settle. Python ints carry an interval; a variable whose interval
keeps growing (an accumulator) is widened to what the profile observed, or to
64 bits, and the kernel notes say which width was assumed.

Whole-array numpy code (slices, elementwise operators, reductions, products)
is lowered to loops by `partition.frontend.arrays`, which the hooks here call
wherever an expression is array-valued.

Anything outside the subset raises `Reject` with the line and the construct;
the caller turns it into a one-line reason and the task stays on the CPU.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from partition import ir
from partition.dtypes import BOOL, DTYPES, FLOAT64, INT64, DType, dtype, narrowest_signed
from partition.errors import PartitionError
from partition.frontend.arrays import ArrayLowering
from partition.frontend.model import (
    TE,
    ArrayInfo,
    Reject,
    RoundState,
    Scope,
    VarState,
    assigned_names,
    cast,
    const,
)
from partition.frontend.returns import VALUE as RET_VALUE
from partition.frontend.returns import EarlyReturnError, rewrite_returns
from partition.frontend.source import FunctionSource, load_function
from partition.frontend.syntax import (
    ARRAY_MAKERS,
    BINOPS,
    CMPS,
    NUMPY_SCALAR_TYPES,
    OP_TEXT,
    SCALAR_ALIASES,
    SUPPORTED_TEXT,
)
from partition.frontend.types import (
    NP,
    PyBool,
    PyFloat,
    PyInt,
    PyType,
    describe,
    fits,
    ir_dtype,
    iv_bin,
    iv_un,
    range_of,
    result_kind,
    unary_kind,
)
from partition.names import c_name
from partition.profile.model import FunctionProfile, decode_value

MAX_ROUNDS = 24
WIDEN_AFTER = 3


class Lowerer:
    def __init__(
        self,
        fp: FunctionProfile,
        src: FunctionSource,
        task: str,
        functions: dict[str, FunctionProfile] | None = None,
        app_dir: Path | None = None,
    ):
        self.top = Scope("", fp, src, src.node, local_names=assigned_names(src.node))
        self.sc = self.top
        self.functions = functions or {}
        self.app_dir = app_dir
        self.key_scope: dict[str, tuple[Scope, str]] = {}
        self.all_arrays: dict[str, ArrayInfo] = {}
        self.roms: dict[str, ArrayInfo] = {}
        self.inline_stack: list[tuple[str, int]] = []
        self.pending: list[ir.Stmt] = []
        self.call_statement: ast.Call | None = None
        self.cond_depth = 0
        self.task = task
        self.notes: list[str] = []
        self.vars: dict[str, VarState] = {}
        self.specialised: dict[str, Any] = {}
        self.used_names: set[str] = set()
        self.ir_names: dict[str, str] = {}
        self.r = RoundState()
        self.observed_mode = False
        self.returns: list[tuple[str, str]] = []
        self.ret: DType | None = None
        self.ret_pytype = ""
        self.return_tuple = False
        self.arr = ArrayLowering(self)

    # the current scope's view of names
    @property
    def fp(self) -> FunctionProfile:
        return self.sc.fp

    @property
    def src(self) -> FunctionSource:
        return self.sc.src

    @property
    def fn(self) -> ast.FunctionDef:
        return self.sc.fn

    @property
    def arrays(self) -> dict[str, ArrayInfo]:
        return self.sc.arrays

    @property
    def consts(self) -> dict[str, TE]:
        return self.sc.consts

    @property
    def scalar_params(self) -> dict[str, tuple[str, DType, PyType, int, str]]:
        return self.sc.scalar_params

    @property
    def obs_params(self) -> dict[str, PyType]:
        return self.sc.obs_params

    @property
    def local_names(self) -> set[str]:
        return self.sc.local_names

    @property
    def global_values(self) -> dict[str, Any]:
        return self.sc.global_values

    @property
    def facts(self) -> dict[str, tuple[int, int]]:
        return self.sc.facts

    def key(self, pyname: str) -> str:
        """The table key of a variable of the current scope."""
        k = self.sc.prefix + pyname
        self.key_scope.setdefault(k, (self.sc, pyname))
        return k

    def add_array(self, pyname: str, info: ArrayInfo) -> ArrayInfo:
        self.sc.arrays[pyname] = info
        self.all_arrays[info.name] = info
        return info

    # ------------------------------------------------------------ helpers

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def irname(self, pyname: str) -> str:
        if pyname in self.ir_names:
            return self.ir_names[pyname]
        if ":" in pyname:  # a variable of an inlined helper: helper#k:name
            fn, _, n = pyname.partition(":")
            base = c_name(f"{fn.split('#')[0]}_{n.lstrip('_')}")
        else:
            base = c_name(pyname)
        name = base
        k = 2
        while name in self.used_names:
            name = f"{base}_{k}"
            k += 1
        self.used_names.add(name)
        self.ir_names[pyname] = name
        return name

    def where(self, node: ast.AST) -> int:
        return getattr(node, "lineno", self.fn.lineno)

    # ---------------------------------------------------------- signature

    def bind_params(self) -> None:
        a = self.fn.args
        if a.vararg or a.kwarg or a.kwonlyargs:
            raise Reject(self.fn.lineno, "*args/**kwargs/keyword-only parameters")
        params = [p.arg for p in a.posonlyargs + a.args]
        sigs = self.fp.arg_sigs
        if len(sigs) != len(params):
            raise Reject(
                self.fn.lineno, f"the profile saw {len(sigs)} argument(s) but the function has {len(params)}"
            )
        samples = [s for s in self.fp.samples if not s.edge]
        for pos, (pname, sig) in enumerate(zip(params, sigs)):
            self.bind_param(pos, pname, sig, samples)
        self.py_params = params

    def bind_param(self, pos: int, pname: str, sig: dict, samples: list) -> None:
        t = sig.get("type")
        line = self.fn.lineno
        if t == "ndarray":
            if sig.get("shape") is None:
                shapes = sig.get("shapes")
                raise Reject(
                    line,
                    f"argument {pname} is called with arrays of different shapes ({shapes}); "
                    "a kernel is compiled for one shape",
                )
            shape = tuple(int(d) for d in sig["shape"])
            if len(shape) not in (1, 2):
                raise Reject(line, f"argument {pname} is a {len(shape)}-D array (1-D and 2-D are supported)")
            if 0 in shape:
                raise Reject(line, f"argument {pname} is an empty array")
            try:
                dt = dtype(sig["dtype"])
            except KeyError:
                raise Reject(line, f"argument {pname} has dtype {sig['dtype']}") from None
            name = self.irname(pname)
            self.add_array(pname, ArrayInfo(pname, name, dt, shape, "param", NP(dt), position=pos))
            return
        if t in ("int", "float", "bool", "npscalar"):
            values = []
            for s in samples:
                if pos < len(s.args):
                    values.append(decode_value(s.args[pos]))
            lo, hi = sig.get("min"), sig.get("max")
            constant = None
            if values and all(_same(v, values[0]) for v in values) and lo is not None and lo == hi:
                constant = values[0]
            if t == "npscalar":
                try:
                    dt = dtype(sig["dtype"])
                except KeyError:
                    raise Reject(line, f"argument {pname} is a numpy {sig['dtype']}") from None
                pt: PyType = NP(dt)
            elif t == "int":
                if lo is None or hi is None:
                    raise Reject(line, f"argument {pname}: no observed range in the profile")
                dt = narrowest_signed(int(lo), int(hi))
                if dt is None:
                    raise Reject(line, f"argument {pname} takes values beyond 64 bits ({lo}..{hi})")
                pt = PyInt(dt.min, dt.max)
            elif t == "float":
                dt, pt = FLOAT64, PyFloat()
            else:
                dt, pt = BOOL, PyBool()
            if constant is not None:
                self.specialised[pname] = _plain(constant)
                self.consts[pname] = self.const_te(constant, line)
                self.note(f"{pname} specialised to {_plain(constant)!r} (the only value observed)")
                return
            name = self.irname(pname)
            obs = PyInt(int(lo), int(hi)) if t == "int" else pt
            self.scalar_params[pname] = (name, dt, pt, pos, t if t != "npscalar" else "npscalar")
            self.obs_params[pname] = obs
            if t == "int":
                self.note(f"{pname}: Python int, observed {lo}..{hi}, passed as {dt.name}")
            return
        if t == "list":
            shape, dt, elem = self.list_param(pname, sig, line)
            name = self.irname(pname)
            self.add_array(
                pname, ArrayInfo(pname, name, dt, shape, "param", elem, position=pos, pytype="list")
            )
            self.note(
                f"{pname}: list of {describe(elem)}s, passed as {dt.name}[{']['.join(map(str, shape))}]"
            )
            return
        if t == "mixed":
            raise Reject(line, f"argument {pname} is called with different types ({', '.join(sig['types'])})")
        if t == "none":
            raise Reject(line, f"argument {pname} is None")
        what = sig.get("pytype", t)
        raise Reject(line, f"argument {pname} is a {what} object")

    def list_param(self, pname: str, sig: dict, line: int) -> tuple[tuple[int, ...], DType, PyType]:
        """Shape, element dtype and element type of a homogeneous (nested) list argument."""
        shape: list[int] = []
        cur = sig
        while cur.get("type") == "list":
            if cur.get("len") is None:
                raise Reject(
                    line, f"argument {pname} is called with lists of different lengths ({cur.get('lens')})"
                )
            shape.append(int(cur["len"]))
            cur = cur["elem"]
        if not 1 <= len(shape) <= 2 or 0 in shape:
            raise Reject(line, f"argument {pname} is a list of shape {tuple(shape)} (1-D or 2-D, non-empty)")
        t = cur.get("type")
        if t == "int":
            dt = narrowest_signed(int(cur["min"]), int(cur["max"]))
            if dt is None:
                raise Reject(line, f"argument {pname} holds integers beyond 64 bits")
            return tuple(shape), dt, PyInt(dt.min, dt.max)
        if t == "float":
            return tuple(shape), FLOAT64, PyFloat()
        if t == "bool":
            return tuple(shape), BOOL, PyBool()
        what = "different types" if t == "mixed" else (cur.get("pytype") or t)
        raise Reject(
            line, f"argument {pname} is a list of {what} (lists of ints, floats or bools are supported)"
        )

    def elem_type(self, arr: ArrayInfo) -> PyType:
        """What reading an element gives; a local list's element type is the join of what it holds."""
        if arr.elem_key is None:
            return arr.elem
        pt = self.var_type(arr.elem_key, fallback=arr.elem)
        arr.elem = pt
        arr.dtype = ir_dtype(pt)
        arr.pytype = "list_np" if isinstance(pt, NP) else "list"
        return pt

    def const_te(self, v: Any, line: int) -> TE:
        if isinstance(v, (bool, np.bool_)):
            if isinstance(v, np.bool_):
                return TE(NP(BOOL), ir.Const(bool(v), BOOL))
            return TE(PyBool(), ir.Const(bool(v), BOOL))
        if isinstance(v, np.generic):
            dt = dtype(v.dtype)
            return TE(NP(dt), const(v.item(), dt))
        if isinstance(v, int):
            dt = narrowest_signed(v, v)
            if dt is None:
                raise Reject(line, f"integer constant {v} does not fit in 64 bits")
            return TE(PyInt(v, v), ir.Const(v, dt))
        if isinstance(v, float):
            return TE(PyFloat(), ir.Const(v, FLOAT64))
        raise Reject(line, f"constant of type {type(v).__name__}")

    def bind_globals(self) -> None:
        self.sc.global_values = {name: decode_value(enc) for name, enc in self.fp.globals.items()}

    def global_ref(self, name: str, node: ast.AST) -> TE | ArrayInfo:
        line = self.where(node)
        if name in self.fp.globals_changed:
            raise Reject(line, f"global {name} changes while the app runs (a kernel needs it constant)")
        v = self.global_values[name]
        if isinstance(v, np.ndarray) or (
            isinstance(v, (list, tuple)) and v and all(isinstance(x, (int, float)) for x in v)
        ):
            return self.rom(name, v, line)
        if isinstance(v, (int, float, bool, np.generic)):
            return self.const_te(v, line)
        raise Reject(line, f"global {name} of type {type(v).__name__}")

    def rom(self, name: str, v: Any, line: int) -> ArrayInfo:
        if name in self.arrays:
            return self.arrays[name]
        key = name if self.sc.src.rel == self.top.src.rel else f"{Path(self.sc.src.rel).stem}#g:{name}"
        shared = self.roms.get(key)
        if shared is not None:
            self.sc.arrays[name] = shared
            return shared
        if isinstance(v, np.ndarray):
            if v.ndim not in (1, 2) or v.size == 0:
                raise Reject(line, f"global array {name} has shape {v.shape}")
            try:
                dt = dtype(v.dtype)
            except KeyError:
                raise Reject(line, f"global array {name} has dtype {v.dtype}") from None
            flat = [x.item() for x in v.reshape(-1)]
            info = ArrayInfo(name, self.irname(key), dt, tuple(v.shape), "rom", NP(dt), init=flat)
        else:
            if all(isinstance(x, bool) for x in v):
                dt, elem = BOOL, PyBool()
            elif all(isinstance(x, int) and not isinstance(x, bool) for x in v):
                lo, hi = min(v), max(v)
                dt = narrowest_signed(lo, hi)
                if dt is None:
                    raise Reject(line, f"global {name} holds integers beyond 64 bits")
                elem = PyInt(lo, hi)
            else:
                dt, elem = FLOAT64, PyFloat()
            flat = [float(x) if dt.is_float else x for x in v]
            info = ArrayInfo(name, self.irname(key), dt, (len(v),), "rom", elem, init=flat)
        self.roms[key] = info
        return self.add_array(name, info)

    # --------------------------------------------------------------- main

    def lower(self) -> ir.Kernel:
        self.bind_params()
        self.bind_globals()
        params = dict(self.top.arrays)
        body = self.function_body(self.fn)
        stmts: list[ir.Stmt] = []
        for _ in range(MAX_ROUNDS):
            self.r = RoundState()
            self.returns = []
            self.sc = self.top
            # names are bound in program order within a round (numpy rebinding)
            self.top.arrays, self.top.views = dict(params), {}
            self.arr.new_round()
            for a in self.all_arrays.values():
                a.loaded = a.stored = a.full_store = False
                a.returned = None
            stmts = self.block(body, top=True)
            if not self.settle():
                break
        else:
            raise Reject(self.fn.lineno, "variable types did not settle (too many type changes)")
        return self.kernel(stmts)

    def settle(self) -> bool:
        """Join this round's assignment types into the variable types; True if anything changed."""
        changed = self.r.unstable
        for name, pt in sorted(self.r.assigned.items()):
            st = self.vars.setdefault(name, VarState())
            if name in self.r.float_nonconst:
                st.float_consts_only = False
            if st.first is None:
                st.first = pt
            if st.widened:
                continue  # its width is decided; assignments wrap into it
            try:
                new = pt if st.pt is None else self.join(st.pt, pt, name, st)
            except Reject as e:
                raise Reject(self.r.lines.get(name, e.line), e.construct) from None
            if isinstance(new, PyInt):
                new = new.clamp()
            if new != st.pt:
                if st.pt is not None:
                    st.changes += 1
                    if isinstance(new, PyInt) and st.changes >= WIDEN_AFTER:
                        new = self.widen(name, new, st)
                st.pt = new
                changed = True
        return changed

    def widen(self, key: str, pt: PyInt, st: VarState) -> PyInt:
        scope, name = self.key_scope.get(key, (self.top, key))
        if not st.widened:
            st.widened = True
            obs = scope.fp.local_ranges.get(name)
            first = st.first if isinstance(st.first, PyInt) else PyInt(0, 0)
            if obs and obs.get("kind") == "int" and not obs.get("partial"):
                lo, hi = min(int(obs["min"]), first.lo), max(int(obs["max"]), first.hi)
                dt = narrowest_signed(lo, hi) or INT64
                self.note(
                    f"{name}: Python int, observed {obs['min']}..{obs['max']}, assumed {dt.name}; "
                    "values outside that range would wrap"
                )
                return PyInt(dt.min, dt.max)
        self.note(f"{name}: Python int with no bound the tool can prove, assumed int64")
        return PyInt(INT64.min, INT64.max)

    def join(self, a: PyType, b: PyType, name: str, st: VarState) -> PyType:
        if a == b:
            return a
        line = self.fn.lineno
        if isinstance(a, PyInt) and isinstance(b, PyInt):
            return PyInt(min(a.lo, b.lo), max(a.hi, b.hi))
        if isinstance(b, (PyInt, PyBool, PyFloat)) and isinstance(a, NP):
            a, b = b, a
        # now a is the Python-typed one when mixing
        if isinstance(a, PyBool) and isinstance(b, PyInt):
            return PyInt(min(0, b.lo), max(1, b.hi))
        if isinstance(a, PyInt) and isinstance(b, PyBool):
            return PyInt(min(0, a.lo), max(1, a.hi))
        if isinstance(a, (PyInt, PyBool)) and isinstance(b, NP):
            iv = range_of(a)
            dt = b.dtype
            if (dt.is_int or dt.is_bool) and fits(iv, dt):
                return b
            if (
                dt.is_float
                and -(2 ** (24 if dt.bits == 32 else 53)) <= iv[0]
                and iv[1] <= 2 ** (24 if dt.bits == 32 else 53)
            ):
                return b
            raise Reject(
                line, f"variable {name} holds both {describe(a)} and {describe(b)} values; give it one type"
            )
        if (
            isinstance(a, PyFloat)
            and isinstance(b, NP)
            and b.dtype.is_float
            and (b.dtype.bits == 64 or st.float_consts_only)
        ):
            return b
        raise Reject(
            line,
            f"variable {name} holds both {describe(a)} and {describe(b)} values; give it one type "
            "(e.g. np.int32(...) or float(...))",
        )

    def function_body(self, fn: ast.FunctionDef) -> list[ast.stmt]:
        """The statements to lower: docstring dropped, early returns folded into one final return."""
        body = fn.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        if not body:
            return []
        self.check_returns(body, nested_only=True)
        try:
            body = rewrite_returns(body)
        except EarlyReturnError as e:
            raise Reject(e.line, e.construct) from None
        self.sc.local_names |= {
            n.id
            for s in body
            for n in ast.walk(s)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        self.check_returns(body)
        return body

    def check_returns(self, body: list[ast.stmt], nested_only: bool = False) -> None:
        for node in ast.walk(ast.Module(body=body, type_ignores=[])):
            if isinstance(node, ast.Return) and (not body or node is not body[-1]) and not nested_only:
                raise Reject(node.lineno, "return before the end of the function")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                raise Reject(node.lineno, "nested function or class definition")

    # --------------------------------------------------------- statements

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
        try:
            out = self.stmt_body(s, top)
            return self.pending + out
        finally:
            self.pending = outer
            self.call_statement = None

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
            return [self.for_loop(self.indexed_for(s))]
        if isinstance(s, ast.If):
            cond = self.truth(self.expr(s.test), s.test)
            with self.facts_from(s.test, True), self.nested():
                then = self.block(s.body)
            with self.facts_from(s.test, False), self.nested():
                orelse = self.block(s.orelse)
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
            return [self.while_loop(s)]
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
            helper = self.resolve_helper(value.func) if isinstance(value, ast.Call) else None
            if helper is not None:
                result = self.inline(value, *helper)
                return self.bind_result(target.id, result, line)
            if isinstance(value, ast.Name) and self.lookup_array(value.id) is not None:
                if target.id.startswith(RET_VALUE):
                    raise Reject(line, "returns an array from more than one place")
                raise Reject(line, f"array alias {target.id} = {value.id} (use the array directly)")
            if self.arr.rank_of(value) is not None:
                return self.arr.assign_name(target.id, value, line)
            if target.id in self.arrays or target.id in self.sc.views:
                raise Reject(line, f"{target.id} is an array here and a scalar elsewhere")
            te = self.expr(value)
            return [self.assign_var(target.id, te, line, value)]
        if isinstance(target, ast.Subscript):
            if self.arr.rank_of(target) is not None:
                return self.arr.assign_elements(target, value, line)
            arr, idx = self.subscript_target(target)
            te = self.expr(value)
            arr.stored = True
            return [ir.Store(arr.name, idx, self.store_value(te, arr, line), line)]
        if isinstance(target, ast.Tuple):
            return self.tuple_assign(target, value, line, top)
        raise Reject(line, f"assignment to {type(target).__name__}")

    def tuple_assign(self, target: ast.Tuple, value: ast.expr, line: int, top: bool) -> list[ir.Stmt]:
        names = target.elts
        if not all(isinstance(n, ast.Name) for n in names):
            raise Reject(line, "tuple assignment to something other than names")
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            arr = self.array_of(value.value)
            if arr is None or len(arr.shape) != len(names):
                raise Reject(line, "unpacking a shape of a different rank")
            out = []
            for n, d in zip(names, arr.shape):
                out.append(self.assign_var(n.id, self.const_te(int(d), line), line, value))
            return out
        helper = self.resolve_helper(value.func) if isinstance(value, ast.Call) else None
        if helper is not None:
            results = self.inline(value, *helper)
            if not isinstance(results, list) or len(results) != len(names):
                raise Reject(line, "unpacking a helper's result that is not a tuple of the same length")
            out = []
            for n, r in zip(names, results):
                out.extend(self.bind_result(n.id, r, line))
            return out
        if not isinstance(value, ast.Tuple) or len(value.elts) != len(names):
            raise Reject(line, "tuple assignment from something other than a tuple of the same length")
        temps = []
        out = []
        for v in value.elts:
            te = self.expr(v)
            self.r.temp_counter += 1
            tmp = f"__t{self.r.temp_counter}"
            out.append(self.assign_var(tmp, te, line, v))
            temps.append(tmp)
        for n, tmp in zip(names, temps):
            out.append(self.assign_var(n.id, self.read_var(tmp, n), line, n))
        return out

    def assign_var(self, pyname: str, te: TE, line: int, value_node: ast.AST | None) -> ir.Stmt:
        if pyname in self.scalar_params or pyname in self.consts:
            raise Reject(line, f"assignment to parameter {pyname} (use a new local name)")
        key = self.key(pyname)
        self.r.dead_loop_vars.discard(key)
        self.r.lines.setdefault(key, line)
        prev = self.r.assigned.get(key)
        pt = te.pt
        if isinstance(pt, PyFloat) and not (
            isinstance(te.e, ir.Const) and float(np.float32(te.e.value)) == te.e.value
        ):
            self.r.float_nonconst.add(key)
        try:
            self.r.assigned[key] = pt if prev is None else self.join_round(prev, pt, key)
        except Reject as e:
            raise Reject(line, e.construct.replace(key, pyname)) from None
        vt = self.var_type(key, fallback=pt)
        return ir.Assign(self.irname(key), cast(te.e, ir_dtype(vt)), line)

    def join_round(self, a: PyType, b: PyType, name: str) -> PyType:
        st = VarState(float_consts_only=name not in self.r.float_nonconst)
        r = self.join(a, b, name, st)
        return r.clamp() if isinstance(r, PyInt) else r

    def var_type(self, name: str, fallback: PyType | None = None) -> PyType:
        st = self.vars.get(name)
        if st is not None and st.pt is not None:
            return st.pt
        self.r.unstable = True
        if name in self.r.assigned:
            return self.r.assigned[name]
        if fallback is not None:
            return fallback
        return PyInt(0, 0)

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
        if isinstance(te.pt, PyInt) and (arr.dtype.is_int) and not fits((te.pt.lo, te.pt.hi), arr.dtype):
            self.note(
                f"line {line}: a Python int stored into {arr.pyname} ({arr.dtype.name}) may not fit; "
                "Python would raise OverflowError, the kernel wraps"
            )
        return cast(te.e, arr.dtype)

    def indexed_for(self, s: ast.For) -> ast.For:
        """`for v in a:` over a 1-D array or list as `for i in range(len(a)): v = a[i]` (numpy and
        lists both yield the element at each position as the loop reaches it)."""
        it = s.iter
        if s.orelse or not isinstance(s.target, ast.Name) or not isinstance(it, ast.Name):
            return s
        arr = self.array_of(it)
        if arr is None or len(arr.shape) != 1:
            return s
        idx = f"__{s.target.id}_at{s.lineno}"
        self.sc.local_names.add(idx)
        load = ast.Load()
        rng = ast.Call(
            ast.Name("range", load), [ast.Call(ast.Name("len", load), [ast.Name(it.id, load)], [])], []
        )
        elem = ast.Assign(
            [ast.Name(s.target.id, ast.Store())],
            ast.Subscript(ast.Name(it.id, load), ast.Name(idx, load), load),
        )
        loop = ast.For(ast.Name(idx, ast.Store()), rng, [elem, *s.body], [])
        for node in (rng, elem, loop, *ast.walk(rng), *ast.walk(elem)):
            ast.copy_location(node, s)
        ast.copy_location(loop.target, s)
        return loop

    def for_loop(self, s: ast.For) -> ir.For:
        line = s.lineno
        if s.orelse:
            raise Reject(line, "for ... else")
        if not isinstance(s.target, ast.Name):
            raise Reject(line, "for loop target is not a simple name")
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
            what = self.callee_text(it.func) + "()" if isinstance(it, ast.Call) else type(it).__name__
            raise Reject(line, f"for loop over {what} (only range() is supported)")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise Reject(line, "range() with unusual arguments")
        args = [self.int_expr(a) for a in it.args]
        if len(args) == 1:
            start, stop, step = self.const_te(0, line), args[0], self.const_te(1, line)
        elif len(args) == 2:
            start, stop, step = args[0], args[1], self.const_te(1, line)
        else:
            start, stop, step = args
        sr = range_of(step.pt)
        if sr is None or sr[0] != sr[1]:
            raise Reject(line, "range() step is not a constant")
        stepv = sr[0]
        if stepv == 0:
            raise Reject(line, "range() step is zero")
        lo_s, hi_s = range_of(start.pt)
        lo_e, hi_e = range_of(stop.pt)
        # the loop variable's type must hold the bounds and one step past them
        iv = (min(lo_s, lo_e) + min(stepv, 0), max(hi_s, hi_e) + max(stepv, 0))
        trip = self.trip_estimate(it.args, stepv)
        pyvar = s.target.id
        if pyvar in self.arrays:
            raise Reject(line, f"loop variable {pyvar} is also an array")
        if pyvar in self.scalar_params or pyvar in self.consts:
            raise Reject(line, f"loop variable {pyvar} is a parameter (use a new local name)")
        var = self.key(pyvar)
        assign_pt = PyInt(*iv)
        self.r.dead_loop_vars.discard(var)
        prev = self.r.assigned.get(var)
        self.r.assigned[var] = assign_pt if prev is None else self.join_round(prev, assign_pt, var)
        vt = self.var_type(var, fallback=assign_pt)
        if not isinstance(vt, PyInt):
            raise Reject(line, f"loop variable {pyvar} also holds {describe(vt)} values")
        vdt = ir_dtype(vt)
        self.r.loop_counter += 1
        label = f"L{self.r.loop_counter}"
        with self.nested(loop=True):
            body = self.block(s.body)
        self.r.dead_loop_vars.add(var)
        return ir.For(self.irname(var), cast(start.e, vdt), cast(stop.e, vdt), stepv, body, trip, line, label)

    def while_loop(self, s: ast.While) -> ir.For:
        """`while c:` as a counted loop over its bound whose first statement leaves when c is false.

        The bound is proven (`while i < n` with `i` stepped by a constant once per
        iteration and assigned nowhere else in the loop) or given on the `while`
        line as `# partition: max-iterations N`.
        """
        line = s.lineno
        if s.orelse:
            raise Reject(line, "while ... else")
        bound, how = self.while_bound(s)
        self.note(f"line {line}: while loop bounded by {bound:,} iterations ({how})")
        outer, self.pending = self.pending, []
        cond = self.truth(self.expr(s.test), s.test)
        before, self.pending = self.pending, outer  # what the condition computes runs every iteration
        self.r.temp_counter += 1
        counter = f"__w{self.r.temp_counter}"
        key = self.key(counter)
        pt = PyInt(0, bound)
        self.r.assigned[key] = pt
        self.vars.setdefault(key, VarState(pt=pt))
        dt = ir_dtype(pt)
        self.r.loop_counter += 1
        label = f"L{self.r.loop_counter}"
        leave = ir.If(ir.Un("not", cond.e, BOOL), [ir.Break(line)], [], line)
        with self.nested(loop=True):
            body = [*before, leave, *self.block(s.body)]
        return ir.For(self.irname(key), const(0, dt), const(bound, dt), 1, body, bound, line, label)

    def while_bound(self, s: ast.While) -> tuple[int, str]:
        line = s.lineno
        text = self.src.path.read_text().splitlines()[line - 1] if self.src.path.exists() else ""
        mark = re.search(r"#\s*partition:\s*max-iterations\s+(\d+)", text)
        if mark:
            return int(mark.group(1)), "max-iterations mark"
        proven = self.proven_while_bound(s)
        if proven is not None:
            return proven, "proven from its condition"
        raise Reject(
            line,
            "while loop without a provable bound (add `# partition: max-iterations N` on the while line, "
            "or write it as a for loop over range())",
        )

    def proven_while_bound(self, s: ast.While) -> int | None:
        t = s.test
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1):
            return None
        left, op, right = t.left, t.ops[0], t.comparators[0]
        if isinstance(right, ast.Name) and not isinstance(left, ast.Name):
            left, right = right, left
            op = {ast.Lt: ast.Gt(), ast.LtE: ast.GtE(), ast.Gt: ast.Lt(), ast.GtE: ast.LtE()}.get(
                type(op), op
            )
        if not isinstance(left, ast.Name) or type(op) not in (ast.Lt, ast.LtE, ast.Gt, ast.GtE):
            return None
        var = left.id
        steps = []
        for n in ast.walk(ast.Module(body=s.body, type_ignores=[])):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for tg in targets:
                    # only a binding of the name counts (not `a[var] = ...`, which reads it)
                    if any(
                        isinstance(x, ast.Name) and x.id == var and isinstance(x.ctx, ast.Store)
                        for x in ast.walk(tg)
                    ):
                        steps.append(n)
        if len(steps) != 1 or steps[0] not in s.body:
            return None
        step = steps[0]
        if not (isinstance(step, ast.AugAssign) and isinstance(step.value, ast.Constant)):
            return None
        c = step.value.value
        if not isinstance(c, int) or isinstance(c, bool) or c == 0:
            return None
        if isinstance(step.op, ast.Sub):
            c = -c
        elif not isinstance(step.op, ast.Add):
            return None
        # no continue may skip the step
        idx = s.body.index(step)
        if any(_continues(b) for b in s.body[:idx]):
            return None
        ivar = range_of(self.var_type(self.key(var))) if var in self.local_names else None
        outer, self.pending = self.pending, []
        try:
            other = range_of(self.expr(right).pt)
        finally:
            self.pending = outer  # only the interval matters here; the condition is lowered later
        if ivar is None or other is None:
            return None
        upward = isinstance(op, (ast.Lt, ast.LtE))
        if upward != (c > 0):
            return None
        inclusive = isinstance(op, (ast.LtE, ast.GtE))
        span = (other[1] - ivar[0]) if upward else (ivar[1] - other[0])
        span += 1 if inclusive else 0
        return max(0, -(-span // abs(c)))

    def trip_estimate(self, args: list[ast.expr], step: int) -> int:
        """Iterations from the bounds, using observed values of scalar parameters."""
        self.observed_mode = True
        outer, self.pending = self.pending, []
        try:
            ivs = [range_of(self.int_expr(a).pt) for a in args]
        finally:
            self.observed_mode = False
            self.pending = outer  # the bounds' statements were made already; this pass reads intervals
        if len(ivs) == 1:
            start, stop = (0, 0), ivs[0]
        else:
            start, stop = ivs[0], ivs[1]
        if step > 0:
            span = stop[1] - start[0]
        else:
            span = start[1] - stop[0]
        return max(0, -(-span // abs(step)))

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
            if isinstance(arr, ArrayInfo):
                if arr.kind == "rom":
                    raise Reject(line, f"returns global array {arr.pyname}")
                if arr.kind == "local":
                    arr.returned = k
                    self.returns.append(("param", arr.name))
                else:
                    self.returns.append(("param", arr.name))
                continue
            if self.arr.rank_of(item) is not None:  # an array expression or a view: a new output array
                out, stmts = self.arr.result_array(item, k, line)
                out.returned = k
                self.pending.extend(stmts)
                self.returns.append(("param", out.name))
                continue
            if scalar is not None:
                raise Reject(line, "returns more than one scalar")
            scalar = self.expr(item)
            self.returns.append(("scalar", ir_dtype(scalar.pt).name))
        if scalar is None:
            return []
        dt = ir_dtype(scalar.pt)
        self.ret = dt
        self.ret_pytype = {NP: "npscalar", PyInt: "int", PyFloat: "float", PyBool: "bool"}[type(scalar.pt)]
        return [ir.Return(scalar.e, line)]

    # ------------------------------------------------------------- arrays

    def is_array_maker(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and self.numpy_attr(node.func) in ARRAY_MAKERS

    def numpy_attr(self, node: ast.expr) -> str | None:
        """'zeros' for np.zeros / numpy.zeros / a name imported from numpy."""
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in self.src.numpy_aliases
            and not self.is_local_name(node.value.id)
        ):
            return node.attr
        if isinstance(node, ast.Name) and node.id in self.src.numpy_names and not self.is_local_name(node.id):
            return self.src.numpy_names[node.id]
        return None

    def is_local_name(self, name: str) -> bool:
        return name in self.local_names or name in self.scalar_params

    def make_array(self, pyname: str, call: ast.Call, line: int) -> list[ir.Stmt]:
        kind = self.numpy_attr(call.func)
        assert kind is not None
        kw = {k.arg: k.value for k in call.keywords}
        unknown = set(kw) - {"dtype", "fill_value", "order", "shape"}
        if unknown:
            raise Reject(line, f"np.{kind}() with argument {sorted(unknown)[0]}=")
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
        info = self.arr.bind_storage(pyname, dt, tuple(shape), line)
        if kind.startswith("empty"):
            return []
        if kind.startswith("zeros"):
            fill: ir.Expr = const(0, dt)
        elif kind.startswith("ones"):
            fill = const(1, dt)
        else:
            fill = cast(fill_te.e, dt)
        return self.fill_loops(info, fill, line)

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
            if (
                isinstance(node.elt, (ast.List, ast.ListComp, ast.BinOp))
                and inner is None
                and isinstance(node.elt, ast.List)
            ):
                return None
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
        if isinstance(node, ast.Attribute) and node.attr == "shape":
            arr = self.array_of(node.value)
            if arr is not None:
                return arr.shape
        elts = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
        shape = []
        for e in elts:
            te = self.int_expr(e)
            r = range_of(te.pt)
            if r is None or r[0] != r[1]:
                raise Reject(line, "array size that is not a constant (sizes must follow from array shapes)")
            shape.append(int(r[0]))
        return tuple(shape)

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

    def lookup_array(self, name: str) -> ArrayInfo | None:
        if name in self.arrays:
            return self.arrays[name]
        if name in self.global_values and not self.is_local_name(name):
            g = self.global_ref(name, self.fn)
            if isinstance(g, ArrayInfo):
                return g
        return None

    def array_of(self, node: ast.expr) -> Any:
        """The array a name refers to: an ArrayInfo, or an arrays.View for a name bound to a slice."""
        if isinstance(node, ast.Name):
            return self.sc.views.get(node.id) or self.lookup_array(node.id)
        return None

    def subscript_target(self, node: ast.Subscript) -> tuple[ArrayInfo, tuple[ir.Expr, ...]]:
        if self.arr.needs_view(node):
            return self.arr.scalar_target(node)
        base, index_nodes = self.flatten_subscript(node)
        arr = self.array_of(base)
        line = node.lineno
        if arr is None:
            what = base.id if isinstance(base, ast.Name) else type(base).__name__
            raise Reject(line, f"subscript of {what}, which is not a numpy array")
        if len(index_nodes) != len(arr.shape):
            raise Reject(
                line,
                f"{arr.pyname} is {len(arr.shape)}-D but indexed with {len(index_nodes)} index(es) "
                "(whole rows and slices are not supported yet)",
            )
        idx = tuple(self.index(i, d, line) for i, d in zip(index_nodes, arr.shape))
        return arr, idx

    def flatten_subscript(self, node: ast.Subscript) -> tuple[ast.expr, list[ast.expr]]:
        chain: list[ast.expr] = []
        cur: ast.expr = node
        while isinstance(cur, ast.Subscript):
            sl = cur.slice
            parts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            chain = list(parts) + chain
            cur = cur.value
        for p in chain:
            if isinstance(p, ast.Slice):
                raise Reject(node.lineno, "array slice (slicing is not supported yet)")
        return cur, chain

    @contextmanager
    def facts_from(self, test: ast.expr, holds: bool) -> Iterator[None]:
        """Inside `if E >= K:` (and similar) E is known to be >= K: index checks use that.

        Only bounds on expressions compared with constants are kept, keyed by the
        expression's source form; they refine intervals where the same
        expression is used as an index (the usual border guard of a stencil).
        """
        added: list[tuple[str, tuple[int, int] | None]] = []
        for key, lo, hi in self._bounds(test, holds):
            prev = self.facts.get(key)
            added.append((key, prev))
            cur = prev or (INT64.min, INT64.max)
            self.facts[key] = (max(cur[0], lo), min(cur[1], hi))
        try:
            yield
        finally:
            for key, prev in reversed(added):
                if prev is None:
                    self.facts.pop(key, None)
                else:
                    self.facts[key] = prev

    def _bounds(self, test: ast.expr, holds: bool) -> list[tuple[str, int, int]]:
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and holds:
            return [b for v in test.values for b in self._bounds(v, True)]
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and not holds:
            return [b for v in test.values for b in self._bounds(v, False)]
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._bounds(test.operand, not holds)
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return []
        left, op, right = test.left, type(test.ops[0]), test.comparators[0]
        flip = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}
        if isinstance(left, ast.Constant) and op in flip:
            left, right, op = right, left, flip[op]
        if not (isinstance(right, ast.Constant) and isinstance(right.value, int)) or isinstance(
            right.value, bool
        ):
            return []
        if not holds:
            neg = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt}
            if op not in neg:
                return []
            op = neg[op]
        k = right.value
        key = ast.dump(left)
        lo, hi = INT64.min, INT64.max
        if op is ast.GtE:
            lo = k
        elif op is ast.Gt:
            lo = k + 1
        elif op is ast.LtE:
            hi = k
        elif op is ast.Lt:
            hi = k - 1
        else:
            return []
        return [(key, lo, hi)]

    def index(self, node: ast.expr, dim: int, line: int) -> ir.Expr:
        return self.index_of(self.expr(node), node, dim, line)

    def index_of(self, te: TE, node: ast.expr, dim: int, line: int) -> ir.Expr:
        """The in-bounds index `te` (the value of `node`) denotes in a dimension of size `dim`."""
        fact = self.facts.get(ast.dump(node))
        if fact is not None and isinstance(te.pt, PyInt):
            te = TE(PyInt(max(te.pt.lo, fact[0]), min(te.pt.hi, fact[1])), te.e)
        if isinstance(te.pt, (PyBool,)) or (isinstance(te.pt, NP) and not te.pt.dtype.is_int):
            raise Reject(line, f"index of type {describe(te.pt)}")
        if isinstance(te.pt, PyFloat):
            raise Reject(line, "float used as an index")
        lo, hi = range_of(te.pt)
        e = te.e
        if e.dtype.kind == "uint" or lo >= 0:
            return e
        # Python's negative indices count from the end
        dt = narrowest_signed(min(lo, 0), max(hi, dim)) or INT64
        e = cast(e, dt)
        wrapped = ir.Bin("add", e, const(dim, dt), dt)
        if hi < 0:
            return wrapped
        return ir.Select(ir.Cmp("lt", e, const(0, dt)), wrapped, e, dt)

    # -------------------------------------------------------- expressions

    def int_expr(self, node: ast.expr) -> TE:
        te = self.expr(node)
        if (
            range_of(te.pt) is None
            or isinstance(te.pt, PyBool)
            or (isinstance(te.pt, NP) and not te.pt.dtype.is_int)
        ):
            raise Reject(self.where(node), f"range() bound of type {describe(te.pt)}")
        return te

    def read_var(self, name: str, node: ast.AST) -> TE:
        line = self.where(node)
        key = self.key(name)
        if key in self.r.dead_loop_vars:
            raise Reject(line, f"loop variable {name} used after its loop")
        pt = self.var_type(key)
        if isinstance(pt, PyInt) and pt.lo == pt.hi and key in self.vars and not self.vars[key].widened:
            return TE(pt, const(pt.lo, ir_dtype(pt)))
        return TE(pt, ir.Var(self.irname(key), ir_dtype(pt)))

    def name(self, node: ast.Name) -> TE:
        n = node.id
        line = node.lineno
        if n in self.consts:
            return self.consts[n]
        if n in self.scalar_params:
            irn, dt, pt, _, _ = self.scalar_params[n]
            if self.observed_mode:
                return TE(self.obs_params.get(n, pt), ir.Var(irn, dt))
            return TE(pt, ir.Var(irn, dt))
        if n in self.arrays or n in self.sc.views:
            raise Reject(line, f"array {n} used as a value where a scalar is needed")
        if n in self.local_names:
            return self.read_var(n, node)
        if n in ("True", "False"):
            return TE(PyBool(), ir.Const(n == "True", BOOL))
        if n in self.global_values:
            g = self.global_ref(n, node)
            if isinstance(g, ArrayInfo):
                raise Reject(line, f"global array {n} used as a value")
            return g
        raise Reject(line, f"name {n} (not a parameter, a local or a numeric global)")

    def expr(self, node: ast.expr) -> TE:
        line = self.where(node)
        if not isinstance(node, ast.Name) and self.arr.rank_of(node) is not None:
            raise Reject(line, f"array {ast.unparse(node)[:48]} used as a value where a scalar is needed")
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, (bool, int, float)):
                return self.const_te(v, line)
            raise Reject(line, f"constant {v!r}")
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.MatMult):
                return self.arr.dot_scalar(node.left, node.right, node, "@")
            op = BINOPS.get(type(node.op))
            if op is None:
                raise Reject(line, f"operator {type(node.op).__name__}")
            return self.binop(op, self.expr(node.left), self.expr(node.right), node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.BoolOp):
            return self.boolop(node)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.IfExp):
            c = self.truth(self.expr(node.test), node.test)
            self.cond_depth += 1
            try:
                a, b = self.expr(node.body), self.expr(node.orelse)
            finally:
                self.cond_depth -= 1
            pt = self.join_values(a.pt, b.pt, line)
            dt = ir_dtype(pt)
            return TE(pt, ir.Select(c.e, cast(a.e, dt), cast(b.e, dt), dt))
        if isinstance(node, ast.Subscript):
            return self.load(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        names = {
            ast.List: "list",
            ast.Tuple: "tuple",
            ast.Dict: "dict",
            ast.Set: "set",
            ast.ListComp: "list comprehension",
            ast.GeneratorExp: "generator expression",
            ast.DictComp: "dict comprehension",
            ast.SetComp: "set comprehension",
            ast.Lambda: "lambda",
            ast.JoinedStr: "f-string",
            ast.Starred: "starred expression",
            ast.NamedExpr: "assignment expression (:=)",
            ast.Await: "await",
            ast.Yield: "yield",
            ast.YieldFrom: "yield",
        }
        raise Reject(line, names.get(type(node), type(node).__name__))

    def join_values(self, a: PyType, b: PyType, line: int) -> PyType:
        try:
            st = VarState(float_consts_only=False)
            r = self.join(a, b, "of the conditional expression", st)
        except Reject as e:
            raise Reject(line, e.construct.replace("variable of the", "the")) from None
        return r.clamp() if isinstance(r, PyInt) else r

    def attribute(self, node: ast.Attribute) -> TE:
        line = node.lineno
        arr = self.array_of(node.value) if isinstance(node.value, ast.Name) else None
        if arr is not None:
            if node.attr == "size":
                n = 1
                for d in arr.shape:
                    n *= d
                return self.const_te(n, line)
            if node.attr == "ndim":
                return self.const_te(len(arr.shape), line)
            raise Reject(line, f"attribute {arr.pyname}.{node.attr}")
        np_name = self.numpy_attr(node)
        if np_name in ("pi", "e", "inf", "nan"):
            return self.const_te(float(getattr(np, np_name)), line)
        raise Reject(line, f"attribute {self.callee_text(node)}")

    def load(self, node: ast.Subscript) -> TE:
        line = node.lineno
        # a.shape[k]
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            arr = self.array_of(node.value.value)
            if arr is not None:
                k = self.int_expr(node.slice)
                r = range_of(k.pt)
                if r[0] != r[1] or not -len(arr.shape) <= r[0] < len(arr.shape):
                    raise Reject(line, "shape index that is not a constant in range")
                return self.const_te(arr.shape[r[0]], line)
        if self.arr.needs_view(node):
            return self.arr.scalar_load(node)
        arr, idx = self.subscript_target(node)
        arr.loaded = True
        pt = self.elem_type(arr)
        return TE(pt, ir.Load(arr.name, idx, arr.dtype))

    def binop(self, op: str, a: TE, b: TE, node: ast.AST) -> TE:
        line = self.where(node)
        if op == "pow":
            return self.power(a, b, line)
        kind = result_kind(op, a.pt, b.pt)
        if kind is None:
            raise Reject(line, f"{describe(a.pt)} {OP_TEXT[op]} {describe(b.pt)}")
        if isinstance(kind, PyInt):
            ra, rb = range_of(a.pt), range_of(b.pt)
            iv = iv_bin(op, ra, rb)
            if iv is None:
                self.note(f"line {line}: Python int {OP_TEXT[op]} with no bound; assumed int64")
                iv = (INT64.min, INT64.max)
            pt = PyInt(*iv).clamp()
            if pt != PyInt(*iv):
                self.note(f"line {line}: Python int arithmetic may exceed 64 bits; the kernel wraps at 64")
            dt = ir_dtype(pt)
            if pt.lo == pt.hi and isinstance(a.e, ir.Const) and isinstance(b.e, ir.Const):
                return TE(pt, const(pt.lo, dt))
            if op not in ("add", "sub", "mul", "and", "or", "xor", "shl"):
                # //, % and >> do not commute with wrapping: compute them in a type that
                # holds the operands exactly, then narrow the (fitting) result
                wide = ir_dtype(PyInt(min(ra[0], rb[0], pt.lo), max(ra[1], rb[1], pt.hi)).clamp())
                rhs = b.e if op == "shr" else cast(b.e, wide)
                return TE(pt, cast(ir.Bin(op, cast(a.e, wide), rhs, wide), dt))
            if op == "shl":
                return TE(pt, ir.Bin(op, cast(a.e, dt), b.e, dt))
            return TE(pt, ir.Bin(op, cast(a.e, dt), cast(b.e, dt), dt))
        if isinstance(kind, PyBool):
            return TE(kind, ir.Bin(op, cast(a.e, BOOL), cast(b.e, BOOL), BOOL))
        dt = ir_dtype(kind)
        if dt.is_bool:
            bop = {"add": "or", "mul": "and", "and": "and", "or": "or", "xor": "xor"}.get(op)
            if bop is None:
                raise Reject(line, f"{describe(a.pt)} {OP_TEXT[op]} {describe(b.pt)}")
            return TE(kind, ir.Bin(bop, cast(a.e, BOOL), cast(b.e, BOOL), BOOL))
        if op == "div" and not dt.is_float:
            raise Reject(line, "true division with an integer result")
        if dt.is_float and op in ("and", "or", "xor", "shl", "shr"):
            raise Reject(line, f"bitwise {OP_TEXT[op]} on floats")
        for side in (a, b):
            if (
                isinstance(side.pt, PyInt)
                and dt.is_int
                and not fits((side.pt.lo, side.pt.hi), dt)
                and not isinstance(side.e, ir.Const)
            ):
                self.note(
                    f"line {line}: a Python int meets numpy {dt.name}; values outside {dt.name} "
                    "would raise OverflowError in Python and wrap in the kernel"
                )
        if op in ("shl", "shr"):
            return TE(kind, ir.Bin(op, cast(a.e, dt), cast(b.e, dt), dt))
        return TE(kind, ir.Bin(op, cast(a.e, dt), cast(b.e, dt), dt))

    def power(self, a: TE, b: TE, line: int) -> TE:
        r = range_of(b.pt)
        if r is None or r[0] != r[1] or (isinstance(b.pt, NP) and not b.pt.dtype.is_int):
            raise Reject(line, "** with an exponent that is not a constant integer")
        k = r[0]
        kind = result_kind("pow", a.pt, b.pt)
        if kind is None or k < 0:
            raise Reject(line, f"{describe(a.pt)} ** {k}")
        if ir_dtype(kind).is_float and k > 2:
            raise Reject(line, f"float ** {k} (only squares are exact without pow())")
        if k > 16:
            raise Reject(line, f"** {k} (exponent too large)")
        if isinstance(kind, PyInt):
            iv = iv_bin("pow", range_of(a.pt), (k, k))
            pt: PyType = PyInt(*iv).clamp() if iv else PyInt(INT64.min, INT64.max)
        else:
            pt = kind
        dt = ir_dtype(pt)
        if k == 0:
            return TE(pt, const(1, dt))
        base = cast(a.e, dt)
        e: ir.Expr = base
        for _ in range(k - 1):
            e = ir.Bin("mul", e, base, dt)
        return TE(pt, e)

    def unary(self, node: ast.UnaryOp) -> TE:
        line = node.lineno
        a = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            t = self.truth(a, node.operand)
            return TE(PyBool(), ir.Un("not", t.e, BOOL))
        op = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}[type(node.op)]
        return self.unop(op, a, line)

    def unop(self, op: str, a: TE, line: int) -> TE:
        kind = unary_kind(op, a.pt)
        if kind is None:
            raise Reject(line, f"{op} of {describe(a.pt)}")
        if isinstance(kind, PyInt):
            pt = PyInt(*iv_un(op, range_of(a.pt))).clamp()
            dt = ir_dtype(pt)
            if op == "pos":
                return TE(pt, cast(a.e, dt))
            if isinstance(a.e, ir.Const) and pt.lo == pt.hi:
                return TE(pt, const(pt.lo, dt))
            return TE(pt, ir.Un(op, cast(a.e, dt), dt))
        dt = ir_dtype(kind)
        if op == "pos":
            return TE(kind, cast(a.e, dt))
        if dt.is_bool:
            if op == "invert":
                return TE(kind, ir.Un("not", cast(a.e, BOOL), BOOL))
            return TE(kind, cast(a.e, BOOL))  # abs of a bool
        return TE(kind, ir.Un(op, cast(a.e, dt), dt))

    def truth(self, te: TE, node: ast.AST) -> TE:
        if te.e.dtype.is_bool:
            return te
        dt = te.e.dtype
        return TE(PyBool(), ir.Cmp("ne", te.e, const(0, dt)))

    def boolop(self, node: ast.BoolOp) -> TE:
        vals = [self.expr(node.values[0])]
        self.cond_depth += 1
        try:
            vals += [self.expr(v) for v in node.values[1:]]
        finally:
            self.cond_depth -= 1
        for v, n in zip(vals, node.values):
            if not v.e.dtype.is_bool:
                raise Reject(
                    n.lineno,
                    f"`{'and' if isinstance(node.op, ast.And) else 'or'}` on {describe(v.pt)} values "
                    "(Python returns an operand, not a bool; compare explicitly)",
                )
        op = "land" if isinstance(node.op, ast.And) else "lor"
        e = vals[0].e
        for v in vals[1:]:
            e = ir.Logic(op, e, v.e)
        pt = PyBool() if all(isinstance(v.pt, PyBool) for v in vals) else NP(BOOL)
        return TE(pt, e)

    def compare(self, node: ast.Compare) -> TE:
        left = self.expr(node.left)
        result: ir.Expr | None = None
        np_result = False
        for k, (op_node, right_node) in enumerate(zip(node.ops, node.comparators)):
            op = CMPS.get(type(op_node))
            if op is None:
                raise Reject(node.lineno, f"comparison {type(op_node).__name__}")
            self.cond_depth += k > 0
            try:
                right = self.expr(right_node)
            finally:
                self.cond_depth -= k > 0
            dt = self.common_cmp_dtype(left.pt, right.pt, node.lineno)
            np_result = np_result or isinstance(left.pt, NP) or isinstance(right.pt, NP)
            c = ir.Cmp(op, cast(left.e, dt), cast(right.e, dt))
            result = c if result is None else ir.Logic("land", result, c)
            left = right
        assert result is not None
        return TE(NP(BOOL) if np_result else PyBool(), result)

    def common_cmp_dtype(self, a: PyType, b: PyType, line: int) -> DType:
        ra, rb = range_of(a), range_of(b)
        fa = ra is None or (isinstance(a, NP) and a.dtype.is_float)
        fb = rb is None or (isinstance(b, NP) and b.dtype.is_float)
        if fa or fb:
            kind = result_kind("add", a, b)
            if kind is None:
                raise Reject(line, f"comparison of {describe(a)} and {describe(b)}")
            dt = ir_dtype(kind)
            return dt if dt.is_float else FLOAT64
        if isinstance(a, (NP, PyBool)) and isinstance(b, (NP, PyBool)) and ir_dtype(a) == ir_dtype(b):
            return ir_dtype(a)
        lo, hi = min(ra[0], rb[0]), max(ra[1], rb[1])
        if lo >= 0 and hi <= 1 and ir_dtype(a).is_bool and ir_dtype(b).is_bool:
            return BOOL
        dt = narrowest_signed(lo, hi)
        if dt is None:
            if lo >= 0:
                return DTYPES["uint64"]
            raise Reject(line, f"comparison of {describe(a)} and {describe(b)} (no common 64-bit type)")
        return dt

    # ---------------------------------------------------------------- calls

    def callee_text(self, f: ast.expr) -> str:
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute):
            return f"{self.callee_text(f.value)}.{f.attr}"
        return type(f).__name__

    def call(self, node: ast.Call) -> TE:
        line = node.lineno
        f = node.func
        text = self.callee_text(f)
        helper = self.resolve_helper(f)
        if helper is not None:
            result = self.inline(node, *helper)
            if isinstance(result, TE):
                return result
            if result is None:
                raise Reject(line, f"{text}() returns nothing, used as a value")
            raise Reject(
                line, f"{text}() returns an array or tuple inside an expression (assign it to a name first)"
            )
        reduced = self.arr.scalar_call(node)
        if reduced is not None:
            return reduced
        if node.keywords:
            raise Reject(line, f"call to {text}() with keyword arguments")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise Reject(line, f"call to {text}() with *args")
        np_name = self.numpy_attr(f)
        if isinstance(f, ast.Name) and np_name is None and not self.is_local_name(f.id):
            if f.id in ("min", "max"):
                return self.minmax(f.id, node)
            if f.id == "abs":
                self.nargs(node, 1, text)
                return self.unop("abs", self.expr(node.args[0]), line)
            if f.id == "len":
                self.nargs(node, 1, text)
                arg = node.args[0]
                arr = self.array_of(arg)
                if (
                    arr is None
                    and isinstance(arg, ast.Subscript)
                    and not isinstance(arg.slice, (ast.Slice, ast.Tuple))
                ):
                    rows = self.array_of(arg.value)  # len(a[i]): the length of a row of a 2-D array or list
                    if rows is not None and len(rows.shape) == 2:
                        return self.const_te(rows.shape[1], line)
                if arr is None:
                    raise Reject(line, "len() of something that is not an array")
                return self.const_te(arr.shape[0], line)
            if f.id == "int":
                self.nargs(node, 1, text)
                return self.to_int(self.expr(node.args[0]), line)
            if f.id == "float":
                self.nargs(node, 1, text)
                a = self.expr(node.args[0])
                return TE(PyFloat(), cast(a.e, FLOAT64))
            if f.id == "bool":
                self.nargs(node, 1, text)
                t = self.truth(self.expr(node.args[0]), node.args[0])
                return TE(PyBool(), t.e)
        if np_name is not None:
            name = SCALAR_ALIASES.get(np_name, np_name)
            if np_name in NUMPY_SCALAR_TYPES and name in DTYPES:
                self.nargs(node, 1, text)
                dt = DTYPES[name]
                lit = _int_literal(node.args[0])
                if lit is not None and dt.is_int and dt.min <= lit <= dt.max:
                    # e.g. np.uint64(2**64 - 1), whose literal is beyond a Python int's 64 bits
                    return TE(NP(dt), const(lit, dt))
                a = self.expr(node.args[0])
                if dt.is_bool:
                    return TE(NP(BOOL), self.truth(a, node.args[0]).e)
                if isinstance(a.pt, PyInt) and dt.is_int and not fits((a.pt.lo, a.pt.hi), dt):
                    self.note(
                        f"line {line}: np.{np_name}() of a Python int that may not fit; "
                        "Python would raise OverflowError, the kernel wraps"
                    )
                if a.e.dtype.is_float and dt.is_int:
                    self.note(f"line {line}: float to {dt.name} conversion truncates; NaN/overflow undefined")
                return TE(NP(dt), cast(a.e, dt))
            if np_name in ("abs", "absolute"):
                self.nargs(node, 1, text)
                a = self.expr(node.args[0])
                te = self.unop("abs", a, line)
                if not isinstance(a.pt, NP):  # a ufunc gives a numpy scalar (int64 for a Python int)
                    dt = dtype(
                        np.abs(
                            True if isinstance(a.pt, PyBool) else 1 if isinstance(a.pt, PyInt) else 1.0
                        ).dtype
                    )
                    te = TE(NP(dt), cast(te.e, dt))
                return te
            if np_name in ARRAY_MAKERS:
                raise Reject(line, f"np.{np_name}() outside a plain assignment")
            raise Reject(line, f"call to {text}() (not supported; {SUPPORTED_TEXT})")
        raise Reject(line, f"call to {text}()")

    def nargs(self, node: ast.Call, n: int, text: str) -> None:
        if len(node.args) != n:
            raise Reject(node.lineno, f"{text}() with {len(node.args)} arguments")

    def to_int(self, a: TE, line: int) -> TE:
        if isinstance(a.pt, PyInt):
            return a
        r = range_of(a.pt)
        if r is not None:
            pt = PyInt(*r)
            return TE(pt, cast(a.e, ir_dtype(pt)))
        self.note(f"line {line}: int() of a float assumed to fit in int64")
        pt = PyInt(INT64.min, INT64.max)
        return TE(pt, cast(a.e, INT64))

    def minmax(self, which: str, node: ast.Call) -> TE:
        line = node.lineno
        if len(node.args) < 2:
            raise Reject(line, f"{which}() of one iterable (give the values as arguments)")
        vals = [self.expr(a) for a in node.args]
        acc = vals[0]
        for b in vals[1:]:
            ra, rb = range_of(acc.pt), range_of(b.pt)
            if isinstance(acc.pt, PyInt) and isinstance(b.pt, PyInt):
                pt: PyType = PyInt(*iv_bin(which, ra, rb))
                # compare the operands exactly (the result's range can be narrower than theirs)
                wide = ir_dtype(PyInt(min(ra[0], rb[0]), max(ra[1], rb[1])).clamp())
                acc = TE(pt, cast(ir.Bin(which, cast(acc.e, wide), cast(b.e, wide), wide), ir_dtype(pt)))
                continue
            else:
                try:
                    pt = self.join_values(acc.pt, b.pt, line)
                except Reject:
                    raise Reject(line, f"{which}() of {describe(acc.pt)} and {describe(b.pt)}") from None
            dt = ir_dtype(pt)
            acc = TE(pt, ir.Bin(which, cast(acc.e, dt), cast(b.e, dt), dt))
        return acc

    # ------------------------------------------------------------- inlining

    def resolve_helper(self, f: ast.expr) -> tuple[FunctionProfile, FunctionSource] | None:
        """The app function a call refers to, when partition inlines it; None for anything else."""
        module = self.src.module
        if isinstance(f, ast.Name):
            name = f.id
            if self.is_local_name(name) or name in self.arrays or self.numpy_attr(f) is not None:
                return None
            for node in module.body:
                if isinstance(node, ast.FunctionDef) and node.name == name:
                    return self.helper_here(node, f)
            for node in module.body:
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    for a in node.names:
                        if (a.asname or a.name) == name:
                            return self.helper_task(f"{node.module}.{a.name}", f)
            return None
        if (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and not self.is_local_name(f.value.id)
        ):
            for node in module.body:
                if isinstance(node, ast.Import):
                    for a in node.names:
                        if (a.asname or a.name) == f.value.id and a.name != "numpy":
                            return self.helper_task(f"{a.name}.{f.attr}", f)
        return None

    def helper_here(self, node: ast.FunctionDef, f: ast.expr) -> tuple[FunctionProfile, FunctionSource]:
        lines = {node.lineno, *(d.lineno for d in node.decorator_list)}
        for fp in self.functions.values():
            if fp.file == self.src.rel and fp.line in lines and fp.qualname == node.name:
                break
        else:
            raise Reject(
                self.where(f), f"{node.name}() never ran in the profiled run, so it cannot be inlined"
            )
        if node.decorator_list:
            raise Reject(self.where(f), f"call to decorated function {node.name}()")
        return fp, FunctionSource(node, self.src.module, self.src.path, self.src.rel, *self._numpy_names())

    def _numpy_names(self) -> tuple[set[str], dict[str, str]]:
        return self.src.numpy_aliases, self.src.numpy_names

    def helper_task(self, task: str, f: ast.expr) -> tuple[FunctionProfile, FunctionSource] | None:
        fp = self.functions.get(task)
        if fp is None:
            return None
        if self.app_dir is None:
            raise Reject(self.where(f), f"call to {task}() in another module")
        try:
            src = load_function(self.app_dir, fp.file, fp.line, fp.qualname)
        except PartitionError as e:
            raise Reject(self.where(f), e.message) from None
        if src.node.decorator_list:
            raise Reject(self.where(f), f"call to decorated function {task}()")
        return fp, src

    def inline(self, call: ast.Call, fp: FunctionProfile, src: FunctionSource) -> Any:
        """Lower a call to another app function in place; its statements go before the caller's.

        Returns the call's value: a TE for a scalar, an ArrayInfo for an array, a list
        of those for a tuple, or None.
        """
        fdef = src.node
        line = call.lineno
        ident = (src.rel, fdef.lineno)
        if ident in self.inline_stack or ident == (self.top.src.rel, self.top.fn.lineno):
            raise Reject(line, f"recursive call to {fdef.name}()")
        a = fdef.args
        if a.vararg or a.kwarg or a.kwonlyargs:
            raise Reject(
                line, f"call to {fdef.name}(), which takes *args, **kwargs or keyword-only arguments"
            )
        if any(isinstance(x, ast.Starred) for x in call.args):
            raise Reject(line, f"call to {fdef.name}() with *args")
        params = [p.arg for p in a.posonlyargs + a.args]
        defaults = dict(zip(params[len(params) - len(a.defaults) :], a.defaults))
        if len(call.args) > len(params):
            raise Reject(line, f"{fdef.name}() called with too many arguments")
        bound: dict[str, ast.expr] = dict(zip(params, call.args))
        for kw in call.keywords:
            if kw.arg is None or kw.arg not in params or kw.arg in bound:
                raise Reject(line, f"{fdef.name}() called with keyword {kw.arg}")
            bound[kw.arg] = kw.value
        values: dict[str, Any] = {}
        for p in params:  # arguments are evaluated in the caller, left to right
            if p not in bound:
                if p not in defaults:
                    raise Reject(line, f"{fdef.name}() called without argument {p}")
                values[p] = None
                continue
            node = bound[p]
            arr = self.arr.argument(node)  # an array by reference, a slice as a view, or a new array
            values[p] = arr if arr is not None else self.expr(node)
        self.r.inline_counter += 1
        scope = Scope(
            f"{fdef.name}#{self.r.inline_counter}:",
            fp,
            src,
            fdef,
            local_names=assigned_names(fdef) | set(params),
            global_values={name: decode_value(enc) for name, enc in fp.globals.items()},
        )
        caller, outer = self.sc, self.pending
        self.sc, self.pending = scope, []
        self.inline_stack.append(ident)
        saved_statement = self.call_statement
        try:
            stmts: list[ir.Stmt] = []
            for p in params:
                v = values[p]
                if isinstance(v, ArrayInfo):
                    scope.arrays[p] = v
                elif self.arr.is_view(v):
                    scope.views[p] = v
                else:
                    te = self.expr(defaults[p]) if v is None else v
                    stmts.extend(self.pending)
                    self.pending = []
                    stmts.append(self.assign_var(p, te, line, None))
            body = self.function_body(fdef)
            ret = body[-1] if body and isinstance(body[-1], ast.Return) else None
            stmts.extend(self.block(body[:-1] if ret is not None else body))
            self.call_statement = None
            result = self.helper_result(ret, stmts) if ret is not None else None
        except Reject as e:
            raise Reject(e.line, e.construct, e.file or src.rel) from None
        finally:
            self.sc, self.pending = caller, outer
            self.inline_stack.pop()
            self.call_statement = saved_statement
        written = {st.array for st in ir.walk_stmts(stmts) if isinstance(st, ir.Store)}
        passed = {v.name for v in values.values() if isinstance(v, ArrayInfo)}
        passed |= {v.base.name for v in values.values() if self.arr.is_view(v)}
        if written & passed and (self.cond_depth or self.call_statement is not call):
            raise Reject(
                line,
                f"{fdef.name}() writes to an array it is given, inside a larger expression "
                "(call it as a statement of its own)",
            )
        self.note(f"{fdef.name}() inlined at {self.src.rel}:{line}")
        self.pending.extend(stmts)
        return result

    def helper_result(self, ret: ast.Return, stmts: list[ir.Stmt]) -> Any:
        """Value of an inlined function's final `return`, evaluated in its scope."""
        v = ret.value
        if v is None or (isinstance(v, ast.Constant) and v.value is None):
            return None
        items = v.elts if isinstance(v, ast.Tuple) else [v]
        out: list[Any] = []
        for k, item in enumerate(items):
            arr = self.array_of(item) if isinstance(item, ast.Name) else None
            if arr is not None:
                out.append(arr)
                continue
            if self.arr.rank_of(item) is not None:
                result, made = self.arr.helper_return(item, k, ret.lineno)
                stmts.extend(self.pending)
                self.pending = []
                stmts.extend(made)
                out.append(result)
                continue
            te = self.expr(item)
            stmts.extend(self.pending)
            self.pending = []
            tmp = f"__ret{k}"
            stmts.append(self.assign_var(tmp, te, ret.lineno, item))
            out.append(self.read_var(tmp, item))
        return out if isinstance(v, ast.Tuple) else out[0]

    def bind_result(self, name: str, result: Any, line: int) -> list[ir.Stmt]:
        """`name = helper(...)`: a scalar is assigned, an array is bound to the name."""
        if isinstance(result, TE):
            if name in self.arrays:
                raise Reject(line, f"{name} is an array here and a scalar elsewhere")
            return [self.assign_var(name, result, line, None)]
        if self.arr.is_view(result):
            return self.arr.bind_view(name, result, line)
        if isinstance(result, ArrayInfo):
            key = self.key(name)
            if key in self.vars or key in self.r.assigned or name in self.scalar_params:
                raise Reject(line, f"{name} is a scalar elsewhere and an array here")
            prev = self.arrays.get(name)
            if prev is not None and prev.name != result.name:
                raise Reject(line, f"{name} names different arrays at different places")
            self.sc.views.pop(name, None)
            self.arrays[name] = result
            return []
        raise Reject(line, "assigning the result of a function that returns nothing or a tuple")

    # -------------------------------------------------------------- result

    def kernel(self, body: list[ir.Stmt]) -> ir.Kernel:
        params: list[ir.Param] = []
        by_pos: dict[int, ir.Param] = {}
        for a in self.all_arrays.values():
            if a.kind == "param":
                if a.stored:
                    direction = "out" if (not a.loaded and self.full_coverage(a, body)) else "inout"
                else:
                    direction = "in"
                by_pos[a.position] = ir.Param(
                    a.name, "array", a.dtype, a.shape, direction, a.pytype, ("arg", a.position)
                )
        for irn, dt, _pt, pos, t in self.top.scalar_params.values():
            by_pos[pos] = ir.Param(irn, "scalar", dt, (), "in", t, ("arg", pos))
        params = [by_pos[k] for k in sorted(by_pos)]
        for a in self.all_arrays.values():
            if a.kind == "local" and a.returned is not None:
                params.append(
                    ir.Param(a.name, "array", a.dtype, a.shape, "out", a.pytype, ("return", a.returned))
                )
        returned_locals = {
            a.name for a in self.all_arrays.values() if a.kind == "local" and a.returned is not None
        }
        locals_ = [
            ir.LocalArray(a.name, a.dtype, a.shape, a.init if a.kind == "rom" else None)
            for a in self.all_arrays.values()
            if a.kind in ("local", "rom") and a.name not in returned_locals and (a.loaded or a.stored)
        ]
        scalars: dict[str, DType] = {}
        for pyname, st in sorted(self.vars.items()):
            if st.pt is not None and pyname in self.ir_names:
                scalars[self.ir_names[pyname]] = ir_dtype(st.pt)
        for s in ir.walk_stmts(body):
            if isinstance(s, ir.For):
                scalars.setdefault(s.var, s.start.dtype)
        used = self.used_scalar_names(body)
        scalars = {k: v for k, v in sorted(scalars.items()) if k in used}
        return ir.Kernel(
            name=self.task,
            params=params,
            scalars=scalars,
            locals=locals_,
            body=body,
            ret=self.ret,
            ret_pytype=self.ret_pytype,
            returns=list(self.returns),
            return_tuple=self.return_tuple,
            source_file=self.top.src.rel,
            source_line=self.top.fn.lineno,
            notes=list(self.notes),
            py_params=list(self.py_params),
            specialised=dict(self.specialised),
        )

    def used_scalar_names(self, body: list[ir.Stmt]) -> set[str]:
        used: set[str] = set()
        for s in ir.walk_stmts(body):
            if isinstance(s, (ir.Assign,)):
                used.add(s.var)
            if isinstance(s, ir.For):
                used.add(s.var)
            for e in ir.stmt_exprs(s):
                for x in ir.walk_expr(e):
                    if isinstance(x, ir.Var):
                        used.add(x.name)
        params = {irn for irn, _dt, _pt, _pos, _t in self.top.scalar_params.values()}
        return used - params

    def full_coverage(self, a: ArrayInfo, body: list[ir.Stmt]) -> bool:
        """True when a top-level loop nest stores every element of `a` unconditionally."""
        return any(self._covers(s, a, []) for s in body)

    def _covers(self, s: ir.Stmt, a: ArrayInfo, loops: list[ir.For]) -> bool:
        if isinstance(s, ir.For):
            if s.step != 1 or not isinstance(s.start, ir.Const) or s.start.value != 0:
                return False
            if not isinstance(s.stop, ir.Const):
                return False
            if any(isinstance(x, (ir.Break, ir.Continue)) for x in ir.walk_stmts(s.body)):
                return False
            return any(self._covers(b, a, [*loops, s]) for b in s.body)
        if isinstance(s, ir.Store) and s.array == a.name and len(loops) == len(a.shape):
            for idx, loop, dim in zip(s.index, loops, a.shape):
                if not (isinstance(idx, ir.Var) and idx.name == loop.var and loop.stop.value == dim):
                    return False
            return True
        return False


def _int_literal(node: ast.expr) -> int | None:
    """The value of an integer literal (`7`, `-7`), or None."""
    neg = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    c = node.operand if neg else node
    if isinstance(c, ast.Constant) and type(c.value) is int:
        return -c.value if neg else c.value
    return None


def _continues(s: ast.stmt) -> bool:
    """A `continue` in `s` that belongs to the loop around `s` (not to a loop inside it)."""
    if isinstance(s, ast.Continue):
        return True
    if isinstance(s, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef, ast.ClassDef)):
        return any(_continues(b) for b in s.orelse) if isinstance(s, (ast.For, ast.While)) else False
    return any(
        _continues(b) for f in ("body", "orelse", "finalbody", "handlers") for b in getattr(s, f, []) or []
    )


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v
