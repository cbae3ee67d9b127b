"""Record parameters of a generated kernel: a tuple, namedtuple or dataclass of numbers.

A record parameter's fields are read where any scalar parameter could be (`p.x`, `p[1]`,
`p[-2]`, names unpacked from it at the top of the function, `len(p)`), and a record whose
fields are all Python ints is also read at a run-time index (`p[i % 3]`), reduced with
`max(p)`/`min(p)` and iterated (`for c in p:`, which the frontend unrolls). Each call passes
a new record whose fields vary like scalar arguments do (so some stay constant over the calls
and are compiled in). The module's source declares the namedtuple or dataclass as real code
does; the calls pass records of a class of that name and fields.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from partition.fuzz.builder import KernelBuilder
from partition.fuzz.parts import Loop, Param, Rec
from partition.fuzz.typed import Ex, npval, pybool, pyfloat, pyint
from partition.profile.records import make_record

FIELD_NAMES = ("x", "y", "w", "h", "lo", "hi", "gain", "bias")
CLASS_NAMES = {"namedtuple": ("Pt", "Span", "Coeffs"), "dataclass": ("Box", "Params", "Window")}
INT_RANGES = ((0, 16), (-8, 8), (1, 5), (-1000, 1000), (0, 255))


class RecordGen(KernelBuilder):
    """Generates record parameters and the reads of their fields."""

    def add_record_param(self) -> None:
        d = self.d
        kind = d.choice(("tuple", "namedtuple", "dataclass"))
        n = d.int(2, 4)
        name = self.fresh({"tuple": "shape", "namedtuple": "pt", "dataclass": "cfg"}[kind])
        cls = "tuple" if kind == "tuple" else d.choice(CLASS_NAMES[kind])
        if kind != "tuple":
            cls = self.fresh(cls)
        names = [str(k) for k in range(n)] if kind == "tuple" else list(FIELD_NAMES[:n])
        uniform = d.chance(0.5)  # every field a Python int of one range: iterable, indexable at run time
        fields: list[Param] = []
        rng: tuple[int, int] | None = None  # a uniform record's one range
        rec = Rec(name, kind, cls, [])
        for fname in names:
            what = "int" if uniform else d.weighted([("int", 5), ("float", 2 if self.floats else 0),
                                                     ("npscalar", 2), ("bool", 1)])  # fmt: skip
            p = Param(fname, what)
            fixed = d.chance(0.25)  # the same value in every call (compiled in, as kernel_size=(3, 3))
            if what == "int":
                p.lo, p.hi = rng if uniform and rng else d.choice(INT_RANGES)
                rng = rng or (p.lo, p.hi)
                if fixed:
                    p.lo = p.hi = d.int(p.lo, p.hi)
                ex = pyint("_", p.lo, p.hi)
            elif what == "float":
                p.flo, p.fhi = (0.75, 0.75) if fixed else (-4.0, 4.0)
                ex = pyfloat("_")
            elif what == "npscalar":
                p.dt, p.mode = self.int_dt(), d.choice(("full", "small"))
                ex = npval("_", p.dt)
            else:
                ex = pybool("_")
            fields.append(p)
            rec.fields.append((fname, ex))
        self.params.append(Param(name, "record", cls, (n,), fields=fields, record=kind))
        self.records[name] = rec
        self.declare_record_class(rec)
        self.features.add(f"record {kind}")
        if kind != "dataclass" and d.chance(0.35):  # `a, b = p` at the top of the function
            locals_ = [self.fresh("u") for _ in range(n)]
            self.emit(f"{', '.join(locals_)} = {name}")
            for local, (_f, ex) in zip(locals_, rec.fields):
                self.scalars[local] = Ex(local, ex.samples, ex.lo, ex.hi)
            self.features.add("record unpacking")

    def declare_record_class(self, rec: Rec) -> None:
        """The namedtuple or dataclass in the module's source, as the app would declare it."""
        if rec.kind == "namedtuple":
            self.globals_src.append("from collections import namedtuple")
            names = ", ".join(repr(f) for f, _ in rec.fields)
            self.globals_src.append(f"{rec.cls} = namedtuple({rec.cls!r}, [{names}])\n")
        elif rec.kind == "dataclass":
            types = {"int": "int", "float": "float", "bool": "bool", "np": "np.generic"}
            lines = [
                "from dataclasses import dataclass",
                "",
                "",
                "@dataclass(frozen=True)",
                f"class {rec.cls}:",
            ]
            lines += [f"    {f}: {types[ex.kind]}" for f, ex in rec.fields]
            lines.append("\n")
            self.globals_src.append("\n".join(lines))

    def record_leaf(self) -> Ex:
        """A read of a record parameter: a field, `len()`, a run-time index, `max()`/`min()`."""
        d = self.d
        rec = self.records[d.choice(list(self.records))]
        n = len(rec.fields)
        joined = rec.joined()
        how = d.weighted([("field", 8), ("len", 1 if rec.kind != "dataclass" else 0),
                          ("index", 3 if joined else 0), ("minmax", 1 if joined else 0)])  # fmt: skip
        if how == "len":
            return pyint(f"len({rec.name})", n, n)
        if how in ("index", "minmax"):
            assert joined is not None
            if how == "index":
                dim = d.choice((str(n), f"len({rec.name})"))
                text = f"{rec.name}[{self.index(n, dim).text}]"
            else:
                text = f"{d.choice(('max', 'min'))}({rec.name})"
            self.features.add(f"record {how}")
            return pyint(text, joined.lo, joined.hi)
        k = d.int(0, n - 1)
        fname, ex = rec.fields[k]
        if rec.kind == "tuple" or (rec.kind == "namedtuple" and d.chance(0.3)):
            text = f"{rec.name}[{k if d.chance(0.7) else k - n}]"
        else:
            text = f"{rec.name}.{fname}"
        return Ex(text, ex.samples, ex.lo, ex.hi)

    def record_header(self) -> Loop | None:
        """`for c in p:` over a record of Python ints (unrolled by the frontend: no break/continue)."""
        cands = [r for r in self.records.values() if r.joined() is not None]
        if not cands:
            return None
        rec = self.d.choice(cands)
        joined = rec.joined()
        assert joined is not None
        var = self.fresh("c")
        self.emit(f"for {var} in {rec.name}:")
        self.features.add("for v in record")
        return Loop(var, 0, 0, len(rec.fields), elem=pyint(var, joined.lo, joined.hi), unrolled=True)


def record_value(p: Param, values: list[Any]) -> Any:
    """The record a call passes: `values` in the fields of p's kind and class."""
    if p.record == "tuple":
        return tuple(values)
    return make_record(p.record, p.dt, tuple(f.name for f in p.fields), values)


def record_types(v: Any) -> str | None:
    """How a fuzz input that is a record is described in the feature list (None: not a record)."""
    if type(v) is tuple:
        return "tuple argument"
    if isinstance(v, tuple) and hasattr(type(v), "_fields"):
        return "namedtuple argument"
    if hasattr(type(v), "__dataclass_fields__") and not isinstance(v, np.generic):
        return "dataclass argument"
    return None
