"""Small records of values passed as one argument: namedtuples, dataclass instances, and
the objects of the app's own classes (a method's `self`).

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
import sys
import types
from functools import lru_cache
from typing import Any

MAX_FIELDS = 16  # larger records are described by kind only
MAX_ATTRIBUTES = 32  # an object of the app's own class with more attributes is described by its class only
# classes of these packages are never taken apart (their objects are library state, not app data)
_LIBRARY_ROOTS = frozenset({"numpy", "builtins", "partition", "pynq", "scipy", "pandas", "torch"})

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


def instance_fields(v: Any) -> tuple[str, ...] | None:
    """The attribute names of an object of the app's own class (a method's `self`), in the
    order `__init__` set them; None for anything else (records, library objects, functions,
    classes, modules, objects with slots or more than MAX_ATTRIBUTES attributes)."""
    tp = type(v)
    if isinstance(
        v, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
    ):
        return None
    root = (getattr(tp, "__module__", None) or "builtins").split(".")[0]
    if tp.__dict__.get("__partition_stand_in__"):
        root = ""  # a decoded self (make_instance): the app's class as recorded
    if root in _LIBRARY_ROOTS or root in sys.stdlib_module_names or record_kind(tp) is not None:
        return None
    d = getattr(v, "__dict__", None)
    if type(d) is not dict or not d or len(d) > MAX_ATTRIBUTES:
        return None
    if not all(type(k) is str and k.isidentifier() for k in d):
        return None
    return tuple(d)


def record_values(v: Any, kind: str, fields: tuple[str, ...]) -> list[Any]:
    """The field values of record `v`, in field order (an instance's missing attribute: None)."""
    if kind == "namedtuple":
        return list(v)
    if kind == "instance":
        return [getattr(v, f, None) for f in fields]
    return [getattr(v, f) for f in fields]


@lru_cache(maxsize=256)
def _instance_class(name: str) -> type:
    return type(
        name,
        (),
        {"__module__": __name__, "__doc__": "stand-in of an app class", "__partition_stand_in__": True},
    )


def make_instance(name: str, fields: tuple[str, ...], values: list[Any]) -> Any:
    """A stand-in object of class name `name` with these attributes (a decoded `self`)."""
    obj = _instance_class(name)()
    obj.__dict__.update(zip(fields, values))
    return obj


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
