"""Small records of values passed as one argument: namedtuples and dataclass instances.

Real code passes a few numbers together (`Point(x, y)`, `QuantParams(scale, zero_point)`);
the profiler records such an argument by its kind, class name and fields, so that each
field can become a kernel parameter. This module recognises those classes, reads their
fields, and makes stand-in classes for decoded sample values: a profile is read where the
app's own classes cannot be imported, and a stand-in with the same name and fields reads
the same way (by attribute, and for a namedtuple by index and unpacking).
"""

from __future__ import annotations

import collections
import dataclasses
from functools import lru_cache
from typing import Any

MAX_FIELDS = 16  # larger records are described by kind only

_KINDS: dict[type, tuple[str, tuple[str, ...]] | None] = {}


def record_kind(tp: type) -> tuple[str, tuple[str, ...]] | None:
    """("namedtuple", fields) or ("dataclass", fields) for a record class; None for anything else."""
    try:
        return _KINDS[tp]
    except KeyError:
        pass
    desc: tuple[str, tuple[str, ...]] | None = None
    try:
        if issubclass(tp, tuple) and tp is not tuple:
            fields = getattr(tp, "_fields", None)
            if isinstance(fields, tuple) and all(isinstance(f, str) for f in fields):
                desc = ("namedtuple", fields)
        elif dataclasses.is_dataclass(tp):
            desc = ("dataclass", tuple(f.name for f in dataclasses.fields(tp)))
    except Exception:  # a class whose introspection misbehaves is not a record
        desc = None
    if desc is not None and len(desc[1]) > MAX_FIELDS:
        desc = None
    _KINDS[tp] = desc
    return desc


def record_values(v: Any, kind: str, fields: tuple[str, ...]) -> list[Any]:
    """The field values of record `v`, in field order."""
    if kind == "namedtuple":
        return list(v)
    return [getattr(v, f) for f in fields]


@lru_cache(maxsize=256)
def stand_in(kind: str, name: str, fields: tuple[str, ...]) -> type | None:
    """A class named `name` with `fields` that reads like the app's record (None if it cannot be made)."""
    try:
        if kind == "namedtuple":
            return collections.namedtuple(name, fields, rename=True)
        return dataclasses.make_dataclass(name, list(fields), frozen=True)
    except (TypeError, ValueError):
        return None


def make_record(kind: str, name: str, fields: tuple[str, ...], values: list[Any]) -> Any:
    """A stand-in record holding `values` (a plain tuple when no stand-in class can be made)."""
    cls = stand_in(kind, name, fields)
    if cls is None:
        return tuple(values)
    return cls(*values)
