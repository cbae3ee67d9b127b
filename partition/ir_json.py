"""The kernel IR as JSON (`to_json` / `from_json`): what the build tree keeps of each kernel.

Every IR node becomes a dict tagged with its class name ("node"); fields a newer kernel uses
and older ones leave at their default are left out, so the files of kernels without them
read as before.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from partition.dtypes import DType, dtype
from partition.ir import (
    Assign,
    Bin,
    Break,
    Cast,
    Cmp,
    Const,
    Continue,
    Copy,
    For,
    If,
    Kernel,
    Load,
    LocalArray,
    Logic,
    Math,
    Param,
    Return,
    Select,
    Store,
    StructArg,
    Un,
    Var,
)

_NODES = {
    c.__name__: c
    for c in (
        Const,
        Var,
        Load,
        Bin,
        Un,
        Cmp,
        Logic,
        Cast,
        Select,
        Math,
        Assign,
        Store,
        For,
        If,
        Break,
        Continue,
        Return,
        Copy,
        Param,
        StructArg,
        LocalArray,
        Kernel,
    )
}

# fields that newer kernels use and others leave at their default: left out of the JSON then,
# so the files of kernels without them read as before
_OMIT_DEFAULT = {
    ("Param", "field"): None,
    ("Param", "dyn"): "",
    ("Param", "dyn_offset"): 0,
    ("Param", "tiled"): False,
    ("LocalArray", "tile_of"): "",
    ("Kernel", "structs"): {},
    ("Kernel", "status"): None,
    ("Kernel", "method"): {},
    ("Kernel", "lengths"): {},
}


def to_json(obj: Any) -> Any:
    """IR object -> JSON-compatible data (dicts tagged with "node")."""
    if isinstance(obj, DType):
        return obj.name
    if dataclasses.is_dataclass(obj):
        node = type(obj).__name__
        out: dict[str, Any] = {"node": node}
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            key = (node, f.name)
            if key in _OMIT_DEFAULT and v == _OMIT_DEFAULT[key]:
                continue
            out[f.name] = to_json(v)
        return out
    if isinstance(obj, (list, tuple)):
        return [to_json(x) for x in obj]
    if isinstance(obj, dict):
        return {k: to_json(v) for k, v in obj.items()}
    return obj


_TUPLE_FIELDS = {"index", "shape", "origin", "args"}
_DTYPE_FIELDS = {"dtype", "ret"}


def from_json(data: Any) -> Any:
    """Inverse of `to_json`."""
    if isinstance(data, list):
        return [from_json(x) for x in data]
    if not isinstance(data, dict) or "node" not in data:
        return data
    cls = _NODES[data["node"]]
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        v = data[f.name]
        if f.name in _DTYPE_FIELDS:
            v = dtype(v) if v is not None else None
        elif f.name == "scalars":
            v = {k: dtype(x) for k, x in v.items()}
        elif f.name == "structs":
            v = {k: from_json(x) for k, x in v.items()}
        elif f.name == "returns":
            v = [tuple(x) for x in v]
        else:
            v = from_json(v)
            if f.name in _TUPLE_FIELDS:
                v = tuple(v)
        kwargs[f.name] = v
    return cls(**kwargs)
