"""Type signatures of argument and return values, accumulated over calls.

A `SigAcc` per parameter and call site (an `ArgSlot`, merged per function at
the end) and one per function for the return value see every call.
Most calls take the cheap path (`observe(v, full=False)`): the kind of value,
an array's dtype and shape, a list's length, a Python scalar's range. The
first few calls of each function (the sampled ones) take the full path, which
also scans array contents and list elements for their value range: scanning
every call would cost as much as the app itself.

`to_sig()` produces the "sig" dicts documented in `partition.profile.model`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from partition.profile.model import enc_float
from partition.profile.records import MAX_FIELDS, instance_fields, record_kind, record_values

_ndarray = np.ndarray
_generic = np.generic
_MAX_TUPLE = MAX_FIELDS  # longer tuples are described by kind only


def json_float(v: float) -> float | str:
    """A float JSON can hold: inf/nan as strings, exactly as `encode_value` writes them."""
    return enc_float(v)


def _num(v: Any) -> int | float | str:
    if isinstance(v, float):
        return json_float(v)
    return int(v)


class _Range:
    """Running min/max of observed numbers (NaN is ignored)."""

    __slots__ = ("hi", "lo")

    def __init__(self) -> None:
        self.lo: Any = None
        self.hi: Any = None

    def add(self, lo: Any, hi: Any) -> None:
        if self.lo is None:
            self.lo, self.hi = lo, hi
            return
        if lo < self.lo:
            self.lo = lo
        if hi > self.hi:
            self.hi = hi

    def put(self, sig: dict[str, Any]) -> dict[str, Any]:
        if self.lo is not None:
            sig["min"] = _num(self.lo)
            sig["max"] = _num(self.hi)
        return sig


class _ArrayAcc:
    __slots__ = ("range", "shapes")

    def __init__(self) -> None:
        self.shapes: set[tuple[int, ...]] = set()
        self.range = _Range()


def array_range(a: np.ndarray) -> tuple[Any, Any] | None:
    """(min, max) of an array's values as Python numbers; None if empty/all-NaN/non-numeric."""
    if a.size == 0 or a.dtype.kind not in "biuf":
        return None
    if a.dtype.kind == "b":
        return int(a.min()), int(a.max())
    if a.dtype.kind == "f":
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            lo, hi = np.nanmin(a), np.nanmax(a)
        if np.isnan(lo):
            return None
        return float(lo), float(hi)
    return int(a.min()), int(a.max())


INF = math.inf


class SigAcc:
    """Everything observed about one argument position (or the return value).

    Python int and float ranges live in plain slots with infinite sentinels
    (`ilo > ihi` means "no int seen") so the recorder's hot path can update
    them inline with two comparisons.
    """

    __slots__ = (
        "arrays",
        "elem",
        "fhi",
        "fkind",
        "flo",
        "has_bool",
        "ihi",
        "ikind",
        "ilo",
        "lens",
        "none",
        "npscalars",
        "objects",
        "records",
        "tuples",
    )

    def __init__(self) -> None:
        self.ilo: Any = INF
        self.ihi: Any = -INF
        self.flo: float = INF
        self.fhi: float = -INF
        self.ikind = False  # an int was seen whose value is not in the range (kind-only observation)
        self.fkind = False  # likewise for floats (NaN, or kind-only)
        self.has_bool = False
        self.none = False
        self.arrays: dict[np.dtype, _ArrayAcc] = {}
        self.npscalars: dict[np.dtype, _Range] = {}
        self.lens: set[int] | None = None  # list lengths seen (None: no list seen)
        self.elem: SigAcc | None = None
        self.tuples: dict[int, list[SigAcc]] = {}
        # namedtuples and dataclass instances: (kind, class name, fields) -> one accumulator per field
        self.records: dict[tuple[str, str, tuple[str, ...]], list[SigAcc]] = {}
        self.objects: set[str] = set()

    @property
    def has_int(self) -> bool:
        return self.ilo <= self.ihi or self.ikind

    @property
    def has_float(self) -> bool:
        return self.flo <= self.fhi or self.fkind

    # ----------------------------------------------------------- observing

    def observe(self, v: Any, full: bool) -> None:
        tp = type(v)
        if tp is int:
            if v < self.ilo:
                self.ilo = v
            if v > self.ihi:
                self.ihi = v
        elif tp is float:
            if v != v:
                self.fkind = True
            else:
                if v < self.flo:
                    self.flo = v
                if v > self.fhi:
                    self.fhi = v
        elif tp is _ndarray or isinstance(v, _ndarray):
            acc = self.arrays.get(v.dtype)
            if acc is None:
                acc = self.arrays[v.dtype] = _ArrayAcc()
            acc.shapes.add(v.shape)
            if full:
                rng = array_range(v)
                if rng is not None:
                    acc.range.add(*rng)
        elif tp is bool:
            self.has_bool = True
        elif v is None:
            self.none = True
        elif isinstance(v, _generic):
            self._npscalar(v)
        elif tp is list:
            self._list(v, full)
        elif tp is tuple and len(v) <= _MAX_TUPLE:
            accs = self.tuples.get(len(v))
            if accs is None:
                accs = self.tuples[len(v)] = [SigAcc() for _ in v]
            for a, x in zip(accs, v):
                a.observe(x, full)
        else:
            desc = record_kind(tp)
            if desc is None:
                attrs = instance_fields(v)
                if attrs is None:
                    self.objects.add(tp.__name__)
                    return
                desc = ("instance", attrs)
            kind, fields = desc
            key = (kind, tp.__name__, fields)
            accs = self.records.get(key)
            if accs is None:
                accs = self.records[key] = [SigAcc() for _ in fields]
            for a, x in zip(accs, record_values(v, kind, fields)):
                a.observe(x, full)

    def _npscalar(self, v: np.generic) -> None:
        dt = v.dtype
        if dt.kind not in "biuf" or dt.itemsize > 8:
            self.objects.add(type(v).__name__)
            return
        r = self.npscalars.get(dt)
        if r is None:
            r = self.npscalars[dt] = _Range()
        if dt.kind == "b":
            x: Any = int(v)
        elif dt.kind == "f":
            x = float(v)
            if x != x:
                return
        else:
            x = int(v)
        r.add(x, x)

    def _list(self, v: list, full: bool) -> None:
        if self.lens is None:
            self.lens = set()
            self.elem = SigAcc()
        self.lens.add(len(v))
        if not v:
            return
        elem = self.elem
        assert elem is not None
        if not full:
            # cheap path: the kind of the first element, without values
            elem.observe_kind(v[0])
            return
        kinds = set(map(type, v))
        if kinds == {int}:  # fast scans of homogeneous numeric lists
            elem.observe(min(v), False)
            elem.observe(max(v), False)
            return
        if kinds == {float}:
            rng = array_range(np.asarray(v, dtype=np.float64))
            if rng is None or any(x != x for x in v):
                elem.fkind = True
            if rng is not None:
                elem.observe(rng[0], False)
                elem.observe(rng[1], False)
            return
        for x in v:
            elem.observe(x, True)

    def observe_kind(self, v: Any) -> None:
        """Record the kind of `v` (and an array's dtype/shape) without its value range."""
        tp = type(v)
        if tp is int:
            self.ikind = True
        elif tp is float:
            self.fkind = True
        elif tp is bool:
            self.has_bool = True
        elif isinstance(v, _ndarray):
            acc = self.arrays.get(v.dtype)
            if acc is None:
                acc = self.arrays[v.dtype] = _ArrayAcc()
            acc.shapes.add(v.shape)
        elif isinstance(v, _generic):
            if v.dtype not in self.npscalars:
                self.npscalars[v.dtype] = _Range()
        elif tp is list:
            if self.lens is None:
                self.lens = set()
                self.elem = SigAcc()
            self.lens.add(len(v))
            if v:
                self.elem.observe_kind(v[0])  # type: ignore[union-attr]
        else:
            self.observe(v, False)

    def merge(self, other: SigAcc) -> None:
        """Add everything `other` observed (the recorder keeps one accumulator per call site)."""
        self.ilo = min(self.ilo, other.ilo)
        self.ihi = max(self.ihi, other.ihi)
        self.flo = min(self.flo, other.flo)
        self.fhi = max(self.fhi, other.fhi)
        self.ikind |= other.ikind
        self.fkind |= other.fkind
        self.has_bool |= other.has_bool
        self.none |= other.none
        for dt, oa in other.arrays.items():
            acc = self.arrays.get(dt)
            if acc is None:
                acc = self.arrays[dt] = _ArrayAcc()
            acc.shapes |= oa.shapes
            if oa.range.lo is not None:
                acc.range.add(oa.range.lo, oa.range.hi)
        for dt, orng in other.npscalars.items():
            r = self.npscalars.get(dt)
            if r is None:
                r = self.npscalars[dt] = _Range()
            if orng.lo is not None:
                r.add(orng.lo, orng.hi)
        if other.lens is not None:
            if self.lens is None:
                self.lens = set()
                self.elem = SigAcc()
            self.lens |= other.lens
            assert self.elem is not None and other.elem is not None
            self.elem.merge(other.elem)
        for n, oaccs in other.tuples.items():
            accs = self.tuples.get(n)
            if accs is None:
                accs = self.tuples[n] = [SigAcc() for _ in oaccs]
            for a, b in zip(accs, oaccs):
                a.merge(b)
        for key, oaccs in other.records.items():
            accs = self.records.get(key)
            if accs is None:
                accs = self.records[key] = [SigAcc() for _ in oaccs]
            for a, b in zip(accs, oaccs):
                a.merge(b)
        self.objects |= other.objects

    # ------------------------------------------------------------ summary

    def _parts(self) -> list[tuple[str, dict[str, Any]]]:
        """(type label, sig) for every kind of value seen."""
        parts: list[tuple[str, dict[str, Any]]] = []
        if self.has_int:
            sig = {"type": "int"}
            if self.ilo <= self.ihi:
                sig["min"], sig["max"] = int(self.ilo), int(self.ihi)
            parts.append(("int", sig))
        if self.has_float:
            sig = {"type": "float"}
            if self.flo <= self.fhi:
                sig["min"], sig["max"] = json_float(self.flo), json_float(self.fhi)
            parts.append(("float", sig))
        if self.has_bool:
            parts.append(("bool", {"type": "bool"}))
        if self.none:
            parts.append(("none", {"type": "none"}))
        for dt, acc in self.arrays.items():
            name = dtype_name(dt)
            shapes = sorted(acc.shapes, key=lambda s: (len(s), s))
            sig: dict[str, Any] = {"type": "ndarray", "dtype": name}
            if len(shapes) == 1:
                sig["shape"] = list(shapes[0])
            else:
                sig["shape"] = None
                sig["shapes"] = [list(s) for s in shapes]
            parts.append((f"ndarray[{name}]", acc.range.put(sig)))
        for dt, r in self.npscalars.items():
            name = dtype_name(dt)
            parts.append((f"npscalar[{name}]", r.put({"type": "npscalar", "dtype": name})))
        if self.lens is not None:
            lens = sorted(self.lens)
            assert self.elem is not None
            elem = self.elem.to_sig() if self.elem._parts() else {"type": "none"}
            sig = {"type": "list", "elem": elem, "len": lens[0] if len(lens) == 1 else None}
            if len(lens) > 1:
                sig["lens"] = lens
            parts.append(("list", sig))
        for n, accs in self.tuples.items():
            parts.append((f"tuple[{n}]", {"type": "tuple", "items": [a.to_sig() for a in accs]}))
        for (kind, name, fields), accs in self.records.items():
            sig = {"type": kind, "pytype": name, "fields": list(fields), "items": [a.to_sig() for a in accs]}
            parts.append((f"{kind}[{name}]", sig))
        for name in self.objects:
            parts.append((name, {"type": "object", "pytype": name}))
        return parts

    def to_sig(self) -> dict[str, Any]:
        parts = self._parts()
        if not parts:
            return {"type": "none"}
        if len(parts) == 1:
            return parts[0][1]
        return {"type": "mixed", "types": sorted(label for label, _ in parts)}


def dtype_name(dt: np.dtype) -> str:
    return "bool" if dt == np.bool_ else str(dt)


class ArgSlot(SigAcc):
    """One parameter at one call site: its signature, and what the caller itself passed in.

    `ns` counts Python int/float arguments (8 bytes each), `n` and `nbytes`
    the other arguments, that the calling code made (not another task).
    """

    __slots__ = ("label", "n", "nbytes", "ns")

    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label
        self.n = 0
        self.nbytes = 0
        self.ns = 0

    @property
    def passed(self) -> tuple[int, int]:
        """(bytes, count) of arguments the caller made."""
        return self.nbytes + 8 * self.ns, self.n + self.ns
