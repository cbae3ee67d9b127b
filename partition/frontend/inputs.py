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
from partition.dtypes import BOOL, FLOAT64, INT32, INT64, DType, dtype, narrowest_signed
from partition.frontend.model import RECORD_KINDS, TE, ArrayInfo, Reject, plain
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
        self.run_time_lengths(params, sigs, samples)
        for pos, (pname, sig) in enumerate(zip(params, sigs)):
            self.bind_param(pos, pname, sig, samples)
        for pname in params[len(sigs) :]:
            self.bind_default(pname, defaults[pname])
        self.py_params = params

    def run_time_lengths(self, params: list[str], sigs: list[dict], samples: list) -> None:
        """Array arguments called with arrays of several lengths: their leading length becomes
        a register (`ParamDyn`) and the kernel is built for the longest. Arguments whose
        lengths were equal in every profiled call share one register (the host checks that
        they still are); only the leading dimension may vary (rows of an image, samples of a
        signal), so an array of any length is the first rows of the kernel's buffer."""
        from partition.frontend.arrays.values import ParamDyn

        self.dim_regs: dict[str, str] = {}
        self.typical_lengths: dict[str, int] = {}
        varying: list[tuple[int, str, int, int]] = []
        for pos, (pname, sig) in enumerate(zip(params, sigs)):
            if sig.get("type") != "ndarray" or sig.get("shape") is not None or not sig.get("shapes"):
                continue
            shapes = [tuple(int(d) for d in s) for s in sig["shapes"]]
            if len({len(s) for s in shapes}) > 1 or len({s[1:] for s in shapes}) > 1 or not shapes[0]:
                raise Reject(
                    self.fn.lineno,
                    f"argument {pname} is called with arrays of shapes {sorted(set(shapes))}, which differ in "
                    "more than their first dimension; a kernel takes a run-time length only in the first "
                    "(call it with one number of columns, or transpose so that the varying length comes first)",
                )
            lens = [s[0] for s in shapes]
            if min(lens) == 0:
                raise Reject(self.fn.lineno, f"argument {pname} is called with an empty array")
            varying.append((pos, pname, min(lens), max(lens)))
        groups: dict[tuple, list[tuple[int, str, int, int]]] = {}
        typical: dict[str, int] = {}
        for v in varying:
            seen = []
            for s in samples:
                a = decode_value(s.args[v[0]]) if v[0] < len(s.args) else None
                seen.append(int(np.shape(a)[0]) if isinstance(a, np.ndarray) and a.ndim else -1)
            key = tuple(seen) if seen and min(seen) >= 0 else ("own", v[1])
            groups.setdefault(key, []).append(v)
            known = [n for n in seen if n > 0]
            typical[v[1]] = round(sum(known) / len(known)) if known else v[3]
        for members in groups.values():
            pos, pname = members[0][0], members[0][1]
            lo, hi = min(m[2] for m in members), max(m[3] for m in members)
            key = f"@len:{pname}"
            reg = self.ir_names.get(key) or self.unique_name(key, c_name(f"len_{pname}"))
            self.sc.dims[reg] = (ParamDyn(reg, INT32, 1, hi), pos)  # the host takes any length 1..hi
            self.typical_lengths[reg] = min(typical[pname], hi)
            for m in members:
                self.dim_regs[m[1]] = reg
            names = ", ".join(m[1] for m in members)
            self.note(
                f"{names}: {'lengths' if len(members) > 1 else 'length'} {lo}..{hi} profiled, taken at run "
                f"time (register {reg}); the kernel is built for {hi} and takes any length up to it"
                + ("; calls must pass them equally long" if len(members) > 1 else "")
            )

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
            dim = self.sc.dims.get(self.dim_regs.get(pname, ""))
            if sig.get("shape") is None and dim is None:
                raise Reject(
                    line,
                    f"argument {pname} is called with arrays of different shapes ({sig.get('shapes')}); "
                    "a kernel is compiled for one shape",
                )
            if dim is not None:
                shape = (dim[0], *(int(d) for d in sig["shapes"][0][1:]))
            else:
                shape = tuple(int(d) for d in sig["shape"])
            if not shape:
                raise Reject(line, f"argument {pname} is a 0-D array")
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
            constant, dt, pt, obs = self.scalar_kind(f"argument {pname}", sig, values, line)
            if constant is not None and pname not in self.state_params:
                self.specialised[pname] = plain(constant)
                self.note(f"{pname} specialised to {plain(constant)!r} (the only value observed)")
                self.param_value(pname, self.const_te(constant, line))
                return
            rebound = pname in self.param_stores
            key = f"@{pname}" if rebound else pname  # a rebound parameter's name is a local variable's
            name = self.unique_name(key, c_name(pname)) if rebound else self.irname(pname)
            self.scalar_params[key] = (name, dt, pt, pos, t if t != "npscalar" else "npscalar")
            self.obs_params[key] = obs
            if rebound:
                self.param_value(pname, TE(pt, ir.Var(name, dt)))
            if t == "int":
                self.note(f"{pname}: Python int, observed {sig['min']}..{sig['max']}, passed as {dt.name}")
            return
        if t in RECORD_KINDS:
            self.bind_record(pos, pname, sig, samples)
            return
        if t == "list":
            shape, dt, elem, pytype = self.list_param(pname, sig, line)
            name = self.irname(pname)
            self.add_array(
                pname, ArrayInfo(pname, name, dt, shape, "param", elem, position=pos, pytype=pytype)
            )
            what = f"tuples of {describe(elem)}s" if pytype == "list_tuple" else f"{describe(elem)}s"
            self.note(f"{pname}: list of {what}, passed as {dt.name}[{']['.join(map(str, shape))}]")
            return
        if t == "mixed":
            raise Reject(line, f"argument {pname} is called with different types ({', '.join(sig['types'])})")
        if t == "none":
            raise Reject(line, f"argument {pname} is None")
        what = sig.get("pytype", t)
        raise Reject(line, f"argument {pname} is a {what} object")

    def scalar_kind(self, what: str, sig: dict, values: list, line: int) -> tuple[Any, DType, PyType, PyType]:
        """(the one value every call passed or None, dtype, type, observed type) of a scalar.

        `sig` is an int/float/bool/npscalar signature and `values` what the recorded
        calls passed; `what` names it in rejections ("argument k").
        """
        t = sig["type"]
        lo, hi = sig.get("min"), sig.get("max")
        constant = None
        if values and all(_same(v, values[0]) for v in values) and lo is not None and lo == hi:
            constant = values[0]
        if t == "npscalar":
            try:
                dt = dtype(sig["dtype"])
            except KeyError:
                raise Reject(line, f"{what} is a numpy {sig['dtype']}") from None
            pt: PyType = NP(dt)
        elif t == "int":
            if lo is None or hi is None:
                raise Reject(line, f"{what}: no observed range in the profile")
            dt = self.int_width(int(lo), int(hi))
            if dt is None:
                raise Reject(line, f"{what} takes values beyond 64 bits ({lo}..{hi})")
            pt = PyInt(dt.min, dt.max)
        elif t == "float":
            dt, pt = FLOAT64, PyFloat()
        else:
            dt, pt = BOOL, PyBool()
        obs = PyInt(int(lo), int(hi)) if t == "int" else pt
        return constant, dt, pt, obs

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

    def list_param(self, pname: str, sig: dict, line: int) -> tuple[tuple[int, ...], DType, PyType, str]:
        """Shape, element dtype, element type and host type ("list", or "list_tuple" for a list of
        equal-length tuples of numbers: rows of a 2-D array) of a homogeneous (nested) list argument."""
        shape: list[int] = []
        cur = sig
        while cur.get("type") == "list":
            if cur.get("len") is None:
                raise Reject(
                    line, f"argument {pname} is called with lists of different lengths ({cur.get('lens')})"
                )
            shape.append(int(cur["len"]))
            cur = cur["elem"]
        pytype = "list"
        if cur.get("type") == "tuple" and len(shape) == 1:
            shape.append(len(cur.get("items") or []))
            cur, pytype = self.tuple_rows(pname, cur, line), "list_tuple"
        if 0 in shape:
            raise Reject(
                line, f"argument {pname} is a list of shape {tuple(shape)} (lists must be non-empty)"
            )
        t = cur.get("type")
        if t == "int":
            dt = self.int_width(int(cur["min"]), int(cur["max"]))
            if dt is None:
                raise Reject(line, f"argument {pname} holds integers beyond 64 bits")
            return tuple(shape), dt, PyInt(dt.min, dt.max), pytype
        if t == "float":
            return tuple(shape), FLOAT64, PyFloat(), pytype
        if t == "bool":
            return tuple(shape), BOOL, PyBool(), pytype
        what = "different types" if t == "mixed" else (cur.get("pytype") or t)
        raise Reject(
            line, f"argument {pname} is a list of {what} (lists of ints, floats or bools are supported)"
        )

    def int_width(self, lo: int, hi: int) -> DType | None:
        """The dtype a Python int argument (or list element) travels in: int64, whatever the
        profile saw, so that every value a Python int can take in 64 bits works (the host runs a
        call with a wider one on the CPU); with `observed_ints`, the narrowest covering the
        profiled values (the host runs a call with any other value on the CPU). None beyond 64 bits."""
        dt = narrowest_signed(lo, hi)
        if dt is None or not self.observed_ints:
            return dt and INT64
        return dt

    def tuple_rows(self, pname: str, row: dict, line: int) -> dict:
        """The one element signature of a list of tuples whose items are all ints (their ranges
        joined), all floats or all bools: every item of every row is then one array element."""
        items = row.get("items") or []
        kinds = {i.get("type") for i in items}
        if not items or len(kinds) != 1 or not kinds <= {"int", "float", "bool"}:
            what = ", ".join(sorted(str(k) for k in kinds)) or "nothing"
            raise Reject(
                line,
                f"argument {pname} is a list of tuples of {what} (tuples of ints, floats or bools are supported)",
            )
        kind = kinds.pop()
        if kind != "int":
            return {"type": kind}
        if any(i.get("min") is None for i in items):
            raise Reject(line, f"argument {pname}: no observed range in the profile")
        return {"type": "int", "min": min(i["min"] for i in items), "max": max(i["max"] for i in items)}

    def bind_globals(self) -> None:
        self.sc.global_values = {name: decode_value(enc) for name, enc in self.fp.globals.items()}

    def global_ref(self, name: str, node: ast.AST) -> TE | ArrayInfo:
        line = self.where(node)
        if name in self.fp.globals_changed:
            raise Reject(line, f"global {name} changes while the app runs (a kernel needs it constant)")
        v = self.global_values[name]
        if isinstance(v, np.ndarray) or (isinstance(v, (list, tuple)) and _nested(v) is not None):
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
            if v.ndim == 0 or v.size == 0:
                raise Reject(line, f"global array {name} has shape {v.shape}")
            try:
                dt = dtype(v.dtype)
            except KeyError:
                raise Reject(line, f"global array {name} has dtype {v.dtype}") from None
            flat = [x.item() for x in v.reshape(-1)]
            info = ArrayInfo(name, self.irname(key), dt, tuple(v.shape), "rom", NP(dt), init=flat)
        else:
            shape, v = _nested(v)  # type: ignore[misc]
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
            info = ArrayInfo(name, self.irname(key), dt, shape, "rom", elem, init=flat)
        self.roms[key] = info
        return self.add_array(name, info)


def _nested(v: list | tuple) -> tuple[tuple[int, ...], list] | None:
    """The shape and row-major items of a non-empty rectangular (nested) list or tuple of
    numbers, None for anything else."""
    if not v:
        return None
    if all(isinstance(x, (int, float)) for x in v):
        return (len(v),), list(v)
    if not all(isinstance(x, (list, tuple)) for x in v):
        return None
    rows = [_nested(x) for x in v]
    if any(r is None for r in rows) or len({r[0] for r in rows}) != 1:  # type: ignore[index]
        return None
    return (len(v), *rows[0][0]), [x for r in rows for x in r[1]]  # type: ignore[index]


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
