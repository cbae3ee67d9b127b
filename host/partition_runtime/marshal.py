"""Conversions between Python values and what a kernel sees: guards, register words, results.

A call is accelerated only when every argument is exactly what the kernel was
compiled for (a *guard*): arrays of the profiled dtype and shape, scalars of the
profiled Python type whose value fits the register's dtype, specialised
parameters equal to the constant compiled in, and records (tuples, namedtuples,
dataclass instances) of the profiled kind, class and length whose fields pass
those same checks. Anything else runs the original Python function, which is
always correct.

Scalars travel as 32-bit register words, low word first: integers in two's
complement of their dtype's width, floats as their IEEE bits, bools as 0/1.
"""

from __future__ import annotations

import dataclasses
import math
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from .spec import KernelSpec, Param, StructSpec, np_dtype

MASK32 = 0xFFFFFFFF

_INT_BITS = {
    "int8": 8,
    "int16": 16,
    "int32": 32,
    "int64": 64,
    "uint8": 8,
    "uint16": 16,
    "uint32": 32,
    "uint64": 64,
}


def int_range(dtype: str) -> tuple[int, int]:
    bits = _INT_BITS[dtype]
    if dtype.startswith("u"):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


# ------------------------------------------------------------------ encoding


def encoder(dtype: str) -> Callable[[Any], list[int]]:
    """value -> register words (low first) for a scalar of `dtype` (already guarded)."""
    if dtype == "bool":
        return lambda v: [1 if v else 0]
    if dtype == "float32":
        return lambda v: [struct.unpack("<I", struct.pack("<f", float(v)))[0]]
    if dtype == "float64":

        def f64(v: Any) -> list[int]:
            u = struct.unpack("<Q", struct.pack("<d", float(v)))[0]
            return [u & MASK32, u >> 32]

        return f64
    bits = _INT_BITS[dtype]
    mask = (1 << bits) - 1
    if bits == 64:

        def i64(v: Any) -> list[int]:
            u = int(v) & mask
            return [u & MASK32, u >> 32]

        return i64
    return lambda v: [int(v) & mask]


def decoder(dtype: str) -> Callable[[list[int]], Any]:
    """register words (low first) -> Python int/float/bool of `dtype`'s value."""
    if dtype == "bool":
        return lambda w: bool(w[0] & 1)
    if dtype == "float32":
        return lambda w: struct.unpack("<f", struct.pack("<I", w[0] & MASK32))[0]
    if dtype == "float64":
        return lambda w: struct.unpack("<d", struct.pack("<Q", (w[0] & MASK32) | ((w[1] & MASK32) << 32)))[0]
    bits = _INT_BITS[dtype]
    mask = (1 << bits) - 1
    signed = not dtype.startswith("u")

    def dec(w: list[int]) -> int:
        u = w[0] & MASK32
        if bits == 64:
            u |= (w[1] & MASK32) << 32
        u &= mask
        if signed and u >> (bits - 1):
            u -= 1 << bits
        return u

    return dec


def to_pytype(value: Any, pytype: str, dtype: str) -> Any:
    """A decoded scalar as the Python function would have returned it."""
    if pytype == "int":
        return int(value)
    if pytype == "float":
        return float(value)
    if pytype == "bool":
        return bool(value)
    return np_dtype(dtype).type(value)


# -------------------------------------------------------------------- guards


def _type_name(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"{v.dtype} array {tuple(v.shape)}"
    if isinstance(v, np.generic):
        return f"numpy {v.dtype} scalar"
    return type(v).__name__


def scalar_guard(name: str, pytype: str, dtype: str) -> Callable[[Any], str | None]:
    """A check: None when `value` can go to the kernel's register, else why not."""
    npdt = np_dtype(dtype)
    if pytype == "int":
        lo, hi = int_range(dtype) if dtype in _INT_BITS else (0, 1)

        def g_int(v: Any) -> str | None:
            if type(v) is not int:
                return f"argument {name} is {_type_name(v)}, the kernel takes a Python int"
            if v < lo or v > hi:
                return f"argument {name} = {v} is outside {dtype} [{lo}, {hi}], the register's range"
            return None

        return g_int
    if pytype == "float":

        def g_float(v: Any) -> str | None:
            if type(v) is not float:
                return f"argument {name} is {_type_name(v)}, the kernel takes a Python float"
            return None

        return g_float
    if pytype == "bool":

        def g_bool(v: Any) -> str | None:
            if type(v) is not bool:
                return f"argument {name} is {_type_name(v)}, the kernel takes a bool"
            return None

        return g_bool

    def g_np(v: Any) -> str | None:
        if not isinstance(v, np.generic) or v.dtype != npdt:
            return f"argument {name} is {_type_name(v)}, the kernel takes a numpy {dtype} scalar"
        return None

    return g_np


def _list_shape_and_items(v: list, depth: int, row_type: type = list) -> tuple[tuple[int, ...], list] | None:
    """The shape and the row-major items of a list nested `depth` deep (its rows of type
    `row_type`), or None when ragged."""
    if depth == 1:
        return (len(v),), v
    if not all(type(row) is row_type for row in v):
        return None
    rows = [_list_shape_and_items(row, depth - 1) for row in v]
    if any(r is None for r in rows):
        return None
    shapes = {r[0] for r in rows}  # type: ignore[index]
    if len(shapes) > 1:
        return None
    inner = shapes.pop() if shapes else (0,) * (depth - 1)
    return (len(v), *inner), [x for r in rows for x in r[1]]  # type: ignore[index]


def list_guard(p: Param) -> Callable[[Any], str | None]:
    """A Python list argument: its nesting, length and element types as profiled, values in range."""
    shape = p.shape
    npdt = p.np
    want = {"b": bool, "f": float}.get(npdt.kind, int)
    rows, what = (tuple, "a list of tuples") if p.pytype == "list_tuple" else (list, "a list")
    lo = hi = None
    if npdt.kind in "iu":
        info = np.iinfo(npdt)
        lo, hi = int(info.min), int(info.max)

    def g(v: Any) -> str | None:
        if type(v) is not list:
            return f"argument {p.name} is {_type_name(v)}, the kernel takes {what} {shape}"
        got = _list_shape_and_items(v, len(shape), rows)
        if got is None or got[0] != shape:
            return f"argument {p.name} is not {what} of shape {shape}"
        for x in got[1]:
            if type(x) is not want:
                return f"argument {p.name} holds {_type_name(x)}, the kernel takes {want.__name__}s"
            if lo is not None and not lo <= x <= hi:
                return f"argument {p.name} holds {x}, beyond the kernel's {p.dtype}"
        return None

    return g


def copy_into(target: Any, values: np.ndarray) -> None:
    """Put a kernel's result into the caller's own array or (nested) list, in place."""
    if isinstance(target, np.ndarray):
        np.copyto(target, values)
    elif values.ndim == 1:
        target[:] = values.tolist()
    else:
        for row, new in zip(target, values):
            copy_into(row, new)


def as_python(values: np.ndarray, pytype: str) -> Any:
    """A produced array as the Python function returns it: array, list, or list of numpy scalars."""
    if pytype == "list":
        return values.tolist()
    if pytype == "list_np":
        return [as_python(row, pytype) for row in values] if values.ndim > 1 else list(values)
    if pytype.startswith("scalar_"):  # a boxed scalar return (spec.BOXED_PYTYPES)
        v = values.reshape(-1)[0]
        return {"scalar_int": int, "scalar_float": float, "scalar_bool": bool}.get(pytype, lambda x: x)(v)
    return values


def array_guard(p: Param, writes: bool) -> Callable[[Any], str | None]:
    if p.pytype in ("list", "list_tuple"):
        return list_guard(p)
    shape = p.shape
    npdt = p.np

    def g(v: Any) -> str | None:
        if type(v) is not np.ndarray:
            if isinstance(v, np.ndarray):
                # ndarray subclasses (masked arrays, matrices) behave differently in Python
                return f"argument {p.name} is a {type(v).__name__}, the kernel takes a plain numpy array"
            return f"argument {p.name} is {_type_name(v)}, the kernel takes a {p.dtype} array {shape}"
        if v.dtype != npdt:
            return f"argument {p.name} has dtype {v.dtype}, the kernel was built for {p.dtype}"
        if v.shape != shape and not (
            p.dyn and v.ndim == len(shape) and v.shape[1:] == shape[1:] and 1 <= v.shape[0] <= shape[0]
        ):
            if p.dyn:
                return (
                    f"argument {p.name} has shape {tuple(v.shape)}, the kernel takes 1 to {shape[0]} rows "
                    f"of shape {shape[1:]}"
                )
            return f"argument {p.name} has shape {tuple(v.shape)}, the kernel was built for {shape}"
        if writes and not v.flags.writeable:
            return f"argument {p.name} is read-only and the kernel writes it"
        return None

    return g


def specialised_guard(name: str, entry: dict[str, Any]) -> Callable[[Any], str | None]:
    """The argument must be the constant compiled into the kernel, of the same Python type."""
    pytype = entry["pytype"]
    want = entry["value"]
    npdt = np_dtype(entry["dtype"]) if pytype == "npscalar" else None
    py = {"int": int, "float": float, "bool": bool}.get(pytype)
    want_nan = isinstance(want, float) and math.isnan(want)

    def g(v: Any) -> str | None:
        if npdt is not None:
            if not isinstance(v, np.generic) or v.dtype != npdt:
                return f"argument {name} is {_type_name(v)}; the kernel has numpy {npdt} {want!r} compiled in"
            got = v.item()
        else:
            if type(v) is not py:
                return f"argument {name} is {_type_name(v)}; the kernel has {pytype} {want!r} compiled in"
            got = v
        if want_nan and isinstance(got, float) and math.isnan(got):
            return None
        if got != want:
            return f"argument {name} = {got!r}; the kernel has {want!r} compiled in"
        return None

    return g


def record_guard(name: str, st: StructSpec, params: list[Param]) -> Callable[[Any], str | None]:
    """The argument must be a record of the kernel's kind, class and length; each field the kernel
    reads must pass its scalar parameter's guard, each compiled-in field equal its constant."""
    n = len(st.fields)
    checks = [
        (p.field, st.reader(p.field), scalar_guard(f"{name}.{p.field}", p.pytype, p.dtype)) for p in params
    ]
    checks += [
        (f, st.reader(f), specialised_guard(f"{name}.{f}", e)) for f, e in sorted(st.constants.items())
    ]
    fields = tuple(st.fields)

    def shape(v: Any) -> str | None:
        if st.kind == "tuple":
            if type(v) is not tuple or len(v) != n:
                return f"argument {name} is {_type_name(v)}, the kernel takes a tuple of {n}"
        elif st.kind == "namedtuple":
            if type(v).__name__ != st.pyclass or getattr(type(v), "_fields", None) != fields:
                return f"argument {name} is {_type_name(v)}, the kernel takes a {st.pyclass} namedtuple"
        elif type(v).__name__ != st.pyclass or not dataclasses.is_dataclass(v):
            return f"argument {name} is {_type_name(v)}, the kernel takes a {st.pyclass} dataclass"
        return None

    def g(v: Any) -> str | None:
        reason = shape(v)
        if reason is not None:
            return reason
        for field, read, check in checks:
            try:
                x = read(v)
            except Exception:
                return f"argument {name} has no field {field}"
            reason = check(x)
            if reason is not None:
                return reason
        return None

    return g


def kernel_guards(k: KernelSpec) -> list[tuple[int, Callable[[Any], str | None]]]:
    """(position, check) for every Python parameter of the kernel."""
    by_pos: dict[int, Callable[[Any], str | None]] = {}
    for p in k.params:
        if p.origin != "arg" or p.field is not None:
            continue
        if p.kind == "array":
            by_pos[p.position] = array_guard(p, writes=p.direction != "in")
        else:
            by_pos[p.position] = scalar_guard(p.name, p.pytype, p.dtype)
    for pos, name in enumerate(k.py_params):
        if name in k.specialised:
            by_pos[pos] = specialised_guard(name, k.specialised[name])
        if name in k.structs:
            fields = [p for p in k.params if p.field is not None and p.position == pos]
            by_pos[pos] = record_guard(name, k.structs[name], fields)
    return sorted(by_pos.items())


def lengths_guard(k: KernelSpec) -> Callable[[tuple], str | None] | None:
    """Array arguments that share one run-time length register must be equally long (the
    kernel was built on the profile's evidence that they are; Python may do anything else)."""
    groups: dict[str, list[Param]] = {}
    for p in k.params:
        if p.kind == "array" and p.origin == "arg" and p.dyn:
            groups.setdefault(p.dyn, []).append(p)
    pairs = [(ps[0], q) for ps in groups.values() for q in ps[1:]]
    if not pairs:
        return None

    def g(args: tuple) -> str | None:
        for a, b in pairs:
            if len(args[a.position]) != len(args[b.position]):
                return f"arguments {a.name} and {b.name} have different lengths; the kernel takes them equally long"
        return None

    return g


def overlap_guard(k: KernelSpec) -> Callable[[tuple], str | None] | None:
    """Arrays the kernel writes must not share memory with another array argument:
    the kernel works on copies, the Python function on the shared memory."""
    arrays = [p for p in k.params if p.kind == "array" and p.origin == "arg" and not p.stream]
    written = [p for p in arrays if p.direction != "in"]
    if not written or len(arrays) < 2:
        return None
    pairs = []
    seen: set[frozenset[str]] = set()
    for w in written:
        for o in arrays:
            key = frozenset((w.name, o.name))
            if o is not w and key not in seen:
                seen.add(key)
                pairs.append((w, o))

    def g(args: tuple) -> str | None:
        for w, o in pairs:
            if np.may_share_memory(args[w.position], args[o.position]):
                return f"arguments {w.name} and {o.name} share memory and the kernel writes {w.name}"
        return None

    return g


# --------------------------------------------------------------- comparison


def compare(got: Any, want: Any, tol: dict[str, tuple[float, float]], what: str = "result") -> str | None:
    """None when `got` matches `want` (ints and bools exactly, floats within tolerance), else why not."""
    if isinstance(want, tuple):
        if not isinstance(got, tuple) or len(got) != len(want):
            return f"{what}: expected a tuple of {len(want)}, got {_type_name(got)}"
        for i, (g, w) in enumerate(zip(got, want)):
            r = compare(g, w, tol, f"{what}[{i}]")
            if r:
                return r
        return None
    if isinstance(want, list):
        if type(got) is not list or len(got) != len(want):
            return f"{what}: expected a list of {len(want)}, got {_type_name(got)}"
        for i, (g, w) in enumerate(zip(got, want)):
            r = compare(g, w, tol, f"{what}[{i}]")
            if r:
                return r
        return None
    if isinstance(want, np.ndarray):
        if type(got) is not type(want):
            return f"{what}: expected {type(want).__name__}, got {_type_name(got)}"
        if got.dtype != want.dtype or got.shape != want.shape:
            return f"{what}: expected {want.dtype} {tuple(want.shape)}, got {got.dtype} {tuple(got.shape)}"
        if want.dtype.kind == "f":
            rtol, atol = tol.get(want.dtype.name, (0.0, 0.0))
            g64 = got.astype(np.float64)
            w64 = want.astype(np.float64)
            both_nan = np.isnan(g64) & np.isnan(w64)
            finite = np.abs(w64[np.isfinite(w64)])
            tol = atol + rtol * (float(finite.max()) if finite.size else 0.0)  # scaled by the array
            with np.errstate(invalid="ignore"):
                ok = (np.abs(g64 - w64) <= tol + rtol * np.abs(w64)) | both_nan | (g64 == w64)
            if not ok.all():
                i = int(np.flatnonzero(~ok.reshape(-1))[0])
                idx = np.unravel_index(i, want.shape)
                return (
                    f"{what}: {int((~ok).sum())} of {ok.size} elements differ beyond rtol {rtol:g} of the "
                    f"array's largest magnitude and atol {atol:g}; first at {tuple(int(x) for x in idx)}: got {g64.reshape(-1)[i]!r}, "
                    f"expected {w64.reshape(-1)[i]!r}"
                )
            return None
        diff = got != want
        if diff.any():
            i = int(np.flatnonzero(diff.reshape(-1))[0])
            idx = np.unravel_index(i, want.shape)
            return (
                f"{what}: {int(diff.sum())} of {diff.size} elements differ; first at "
                f"{tuple(int(x) for x in idx)}: got {got.reshape(-1)[i].item()!r}, "
                f"expected {want.reshape(-1)[i].item()!r}"
            )
        return None
    if isinstance(want, np.generic):
        if not isinstance(got, np.generic) or got.dtype != want.dtype:
            return f"{what}: expected numpy {want.dtype}, got {_type_name(got)}"
        return compare(np.array(got), np.array(want), tol, what)
    if type(got) is not type(want):
        return f"{what}: expected {type(want).__name__}, got {_type_name(got)}"
    if isinstance(want, float):
        rtol, atol = tol.get("float64", (0.0, 0.0))
        if math.isnan(want) and math.isnan(got):
            return None
        if got == want or abs(got - want) <= atol + rtol * abs(want):
            return None
        return f"{what}: got {got!r}, expected {want!r} (rtol {rtol:g}, atol {atol:g})"
    if got != want:
        return f"{what}: got {got!r}, expected {want!r}"
    return None
