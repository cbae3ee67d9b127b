"""What a function is given: its parameters (from the profiled signature) and its globals.

Each parameter becomes an array argument, a scalar argument of the narrowest
type holding what the profile observed, or a constant when only one value was
ever seen (the kernel is specialised to it). Globals the function reads are
constants, or read-only on-chip arrays (ROMs) when they are arrays or lists.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any

import numpy as np

from partition import ir
from partition.dtypes import BOOL, FLOAT64, DType, dtype, narrowest_signed
from partition.frontend.model import TE, ArrayInfo, Reject
from partition.frontend.types import NP, PyBool, PyFloat, PyInt, PyType, describe
from partition.names import c_name
from partition.profile.model import decode_value


class Inputs:
    """Parameters and globals (part of `Lowerer`)."""

    def bind_params(self) -> None:
        a = self.fn.args
        if a.vararg or a.kwarg or a.kwonlyargs:
            raise Reject(self.fn.lineno, "*args/**kwargs/keyword-only parameters")
        params = [p.arg for p in a.posonlyargs + a.args]
        sigs = self.fp.arg_sigs
        defaults = dict(zip(params[len(params) - len(a.defaults) :], a.defaults))
        if len(sigs) > len(params) or any(p not in defaults for p in params[len(sigs) :]):
            raise Reject(
                self.fn.lineno, f"the profile saw {len(sigs)} argument(s) but the function has {len(params)}"
            )
        self.param_stores = _stored_names(self.fn)
        samples = [s for s in self.fp.samples if not s.edge]
        for pos, (pname, sig) in enumerate(zip(params, sigs)):
            self.bind_param(pos, pname, sig, samples)
        for pname in params[len(sigs) :]:
            self.bind_default(pname, defaults[pname])
        self.py_params = params

    def bind_default(self, pname: str, node: ast.expr) -> None:
        """A parameter no profiled call passed: its default value, compiled in as a constant."""
        line = self.fn.lineno
        try:
            value = ast.literal_eval(node)
        except ValueError:
            value = None
        if type(value) not in (int, float, bool):
            raise Reject(
                line,
                f"parameter {pname} was never passed and its default {ast.unparse(node)[:40]} is not a number",
            )
        self.specialised[pname] = value
        self.note(f"{pname} specialised to its default {value!r} (no profiled call passed it)")
        self.param_value(pname, self.const_te(value, line))

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
                self.note(f"{pname} specialised to {_plain(constant)!r} (the only value observed)")
                self.param_value(pname, self.const_te(constant, line))
                return
            rebound = pname in self.param_stores
            key = f"@{pname}" if rebound else pname  # a rebound parameter's name is a local variable's
            name = self.unique_name(key, c_name(pname)) if rebound else self.irname(pname)
            obs = PyInt(int(lo), int(hi)) if t == "int" else pt
            self.scalar_params[key] = (name, dt, pt, pos, t if t != "npscalar" else "npscalar")
            self.obs_params[key] = obs
            if rebound:
                self.param_value(pname, TE(pt, ir.Var(name, dt)))
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

    def param_value(self, pname: str, te: TE) -> None:
        """A scalar parameter's value: a constant, or a local variable when the body assigns the name.

        Assigning a parameter rebinds a local name in Python (the caller never sees it):
        the kernel gives the name a variable that starts as the parameter's value.
        """
        if pname in self.param_stores:
            self.sc.rebound.add(pname)
            self.param_inits[pname] = te
        else:
            self.consts[pname] = te

    def param_init(self) -> list[ir.Stmt]:
        """The first statements of the body: rebound parameters' variables take the parameters' values."""
        return [self.assign_var(p, te, self.fn.lineno, None) for p, te in self.param_inits.items()]

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


def _stored_names(fn: ast.FunctionDef) -> set[str]:
    """Names the function's own statements assign (a comprehension's variables are its own)."""
    inner = {
        id(n)
        for c in ast.walk(fn)
        if isinstance(c, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp))
        for g in c.generators
        for n in ast.walk(g.target)
    }
    return {
        n.id
        for n in ast.walk(fn)
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and id(n) not in inner
    }


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
