"""A profile read from JSON checked field by field against the dataclasses that hold it.

A profile is a file the user keeps, copies and may edit; one whose field has the wrong type
or an impossible value (a negative count, a time that is not a number) must be refused when
it is loaded, naming the field, and never fail later deep inside planning as an internal
error. The checks follow the dataclasses' own type hints, so a field added to
`FunctionProfile` or `Edge` is checked without a second list of fields here; the value ranges
the types cannot say are `NON_NEGATIVE` and `FRACTIONS`.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from typing import Any

NON_NEGATIVE = {"line", "calls", "total_s", "self_s", "child_calls", "child_s", "bytes", "count",
                "direct_bytes", "mutates", "callers", "wall_s", "plain_wall_s", "stopped_after_s"}  # fmt: skip
FRACTIONS = {"native_fraction"}
INT_LIMIT = 2**63  # counts, sizes, lines: what a 64-bit integer holds
# figures of the profiling host's CPU (`partition.profile.bench`) the cost model divides by
_HOST_FIGURES = ("ns",)


def check_type(v: Any, tp: Any, where: str) -> None:
    """That JSON value `v` is of type `tp` (ValueError naming `where` if not)."""
    if tp is Any:
        return
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        errors = []
        for alt in typing.get_args(tp):
            try:
                check_type(v, alt, where)
                return
            except ValueError as e:
                errors.append(str(e))
        raise ValueError(errors[-1])
    if tp is type(None):
        if v is not None:
            raise ValueError(f"{where}: expected null, not {_what(v)}")
        return
    if tp is float:
        if isinstance(v, bool) or not isinstance(v, int | float) or not _finite(v):
            raise ValueError(f"{where}: expected a number, not {_what(v)}")
        return
    if tp in (int, str, bool):
        if not isinstance(v, tp) or (tp is int and isinstance(v, bool)):
            raise ValueError(f"{where}: expected {_NAMES[tp]}, not {_what(v)}")
        if tp is int and not -INT_LIMIT < v < INT_LIMIT:
            raise ValueError(f"{where}: {_what(v)} is out of range")
        return
    if origin is list:
        if not isinstance(v, list):
            raise ValueError(f"{where}: expected a list, not {_what(v)}")
        (item,) = typing.get_args(tp)
        for i, x in enumerate(v):
            check_type(x, item, f"{where}[{i}]")
        return
    if origin is dict or tp is dict:
        if not isinstance(v, dict):
            raise ValueError(f"{where}: expected an object, not {_what(v)}")
        key, value = typing.get_args(tp) or (str, Any)
        for k, x in v.items():
            check_type(k, key, f"{where} key {k!r}")
            check_type(x, value, f"{where}.{k}")
        return
    if dataclasses.is_dataclass(tp):
        check_fields(tp, v, where)
        return
    raise TypeError(f"check_type: no rule for {tp!r}")  # a field type this module must learn


def check_fields(cls: type, data: Any, where: str) -> None:
    """That `data` (a JSON object) can make a `cls`: required fields present, every field of its
    type and, for the fields named in `NON_NEGATIVE`/`FRACTIONS`, in range."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object, not {_what(data)}")
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueError(f"{where}: {f.name} missing")
            continue
        v = data[f.name]
        at = f"{where}.{f.name}"
        check_type(v, hints[f.name], at)
        _check_range(f.name, v, at)


def _check_range(name: str, v: Any, where: str) -> None:
    if name in NON_NEGATIVE:
        values = v.values() if isinstance(v, dict) else v if isinstance(v, list) else [v]
        if any(x is not None and x < 0 for x in values):
            raise ValueError(f"{where}: {v!r} is negative")
    if name in FRACTIONS and v is not None and not 0 <= v <= 1:
        raise ValueError(f"{where}: {v!r} is not between 0 and 1")


def _finite(v: int | float) -> bool:
    try:
        return math.isfinite(v) and abs(v) < 1e300
    except OverflowError:  # an integer too large for a float
        return False


def check_children(data: Any) -> dict[str, Any] | None:
    """The profile's `children` record (`partition.profile.children.gather`), checked."""
    if data is None:
        return None
    check_type(data, dict[str, Any], "profile.children")
    out: dict[str, Any] = {}
    for key, tp in (("forked", int), ("reported", int), ("cpu_s", float), ("profiled_s", float)):
        if key not in data:
            raise ValueError(f"profile.children: {key} missing")
        check_type(data[key], tp, f"profile.children.{key}")
        if data[key] < 0:
            raise ValueError(f"profile.children.{key}: {data[key]!r} is negative")
        out[key] = tp(data[key])
    return out


def check_host(host: Any) -> None:
    """The profiling host's figures the CPU scaling divides by: positive numbers where present."""
    if not isinstance(host, dict):
        raise ValueError(f"host: expected an object, not {_what(host)}")
    check_type(host.get("bench_ns"), float | None, "host.bench_ns")
    check_type(host.get("board"), str | None, "host.board")
    if host.get("bench_ns") is not None and host["bench_ns"] <= 0:
        raise ValueError(f"host.bench_ns: {host['bench_ns']!r} is not a positive time")
    bench = host.get("bench")
    if bench is None:
        return
    check_type(bench, dict[str, dict[str, Any]], "host.bench")
    if host.get("bench_ns") is not None and "interp" not in bench:
        raise ValueError("host.bench: the interpreter's figure (interp) is missing")
    for cls, fig in bench.items():
        for key in _HOST_FIGURES:
            check_type(fig.get(key), float, f"host.bench.{cls}.{key}")
            if fig[key] <= 0:
                raise ValueError(f"host.bench.{cls}.{key}: {fig[key]!r} is not a positive time")


_NAMES = {int: "an integer", str: "a string", bool: "true or false"}


def _what(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, str):
        return f"the string {v[:40]!r}"
    if isinstance(v, int) and abs(v) >= INT_LIMIT:
        return f"an integer of {len(str(abs(v)))} digits"
    return repr(v)[:40]
