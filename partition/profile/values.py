"""What the recorder asks of a call's values on its sampled calls: a private copy of what the
call could modify in place, whether the call changed it, whether a value is numeric, and
which globals a function reads. Plain functions of values, apart from the recorder's state
(the fuzzer's golden model asks the same questions).
"""

from __future__ import annotations

import copy
import types
from typing import Any

import numpy as np

from partition.profile.records import instance_fields


def snapshot(v: Any) -> Any:
    """A private copy of a value that a call could modify in place (None: cannot tell)."""
    if isinstance(v, np.ndarray):
        return v.copy()
    if type(v) is list:
        try:
            return copy.deepcopy(v)
        except Exception:
            return None
    attrs = instance_fields(v)
    if attrs is not None:  # a method's self: its attributes, each copied
        return _Attributes(
            {a: snapshot(getattr(v, a)) if _mutable(getattr(v, a)) else getattr(v, a) for a in attrs}
        )
    return None


class _Attributes(dict):
    """The attributes of an object as they were before a call (`snapshot` of a method's self)."""


def _mutable(v: Any) -> bool:
    return isinstance(v, np.ndarray) or type(v) is list


def same_value(a: Any, b: Any) -> bool:
    if isinstance(b, _Attributes):  # an object now against its attributes before the call
        a, b = b, a
    if isinstance(a, _Attributes):
        attrs = instance_fields(b) if not isinstance(b, _Attributes) else tuple(b)
        if attrs is None or tuple(attrs) != tuple(a):
            return False
        now = b if isinstance(b, _Attributes) else {k: getattr(b, k) for k in attrs}
        return all(same_value(a[k], now[k]) and type(a[k]) is type(now[k]) for k in attrs)
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.shape == b.shape
            and a.dtype == b.dtype
            and a.tobytes() == b.tobytes()
        )
    if type(a) is list:
        return type(b) is list and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    try:
        return a is b or bool(a == b) or (a != a and b != b)
    except Exception:
        return True


def is_numeric_value(v: Any) -> bool:
    """Numbers, numeric arrays and homogeneous (nested) lists/tuples of numbers."""
    tp = type(v)
    if tp in (int, float, bool):
        return True
    if isinstance(v, np.ndarray):
        return v.dtype.kind in "biuf" and v.dtype.itemsize <= 8
    if isinstance(v, np.generic):
        return v.dtype.kind in "biuf" and v.dtype.itemsize <= 8
    if tp in (list, tuple) and v:
        leaf = _leaf_type(v)
        return leaf is not None
    return False


def _leaf_type(v: Any) -> type | None:
    """The one type of every leaf of nested lists/tuples of numbers, or None."""
    types_seen: set[type] = set()
    todo = [v]
    while todo:
        x = todo.pop()
        if type(x) in (list, tuple):
            if not x:
                return None
            todo.extend(x)
        elif type(x) in (int, float, bool):
            types_seen.add(type(x))
            if len(types_seen) > 1:
                return None
        else:
            return None
    return types_seen.pop() if types_seen else None


def globals_read(code: types.CodeType) -> set[str]:
    """Names the code and the code nested in it look up (`co_names`).

    `co_names` holds global reads and attribute names alike; the caller keeps
    only names bound in the module's namespace.
    """
    names: set[str] = set()
    todo = [code]
    while todo:
        c = todo.pop()
        names.update(c.co_names)
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return names
