"""Edge-case vectors: up to two synthetic samples ("extremes": dtype limits, signed zeros, tiny
values; "random": seeded, full dtype range / twice the observed float range) built from a
function's first sample's shapes and dtypes, and for arrays whose leading length varies
between calls the first sample at the lengths no profiled call may have passed (one, three,
the longest and one less); kept only when the function accepts them (returns without
exception in time).
"""

from __future__ import annotations

import copy
import json
import math
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from partition.dtypes import is_supported_numpy
from partition.profile.model import FunctionProfile, Sample, encode_value
from partition.profile.records import record_kind, record_values
from partition.profile.sandbox import Timeout, deadline
from partition.profile.tasks import Task
from partition.profile.values import same_value


def _dedup(xs: list[Any]) -> list[Any]:
    out: list[Any] = []
    for x in xs:
        if not any(x == y and math.copysign(1, x) == math.copysign(1, y) for y in out):
            out.append(x)
    return out


def _sig_range(sig: dict[str, Any] | None, fallback: Any) -> tuple[float, float]:
    """Observed (min, max) from a signature, else from the value itself."""
    lo = hi = None
    if sig is not None:
        lo, hi = sig.get("min"), sig.get("max")
    if not isinstance(lo, int | float) or not isinstance(hi, int | float):
        lo = hi = None
    if lo is None and fallback is not None:
        a = np.asarray(fallback, dtype=np.float64) if not isinstance(fallback, np.ndarray) else fallback
        if a.size and a.dtype.kind in "biuf":
            with np.errstate(all="ignore"):
                finite = a[np.isfinite(a)] if a.dtype.kind == "f" else a
            if finite.size:
                lo, hi = finite.min().item(), finite.max().item()
    if lo is None or not math.isfinite(lo) or not math.isfinite(hi):
        return -1.0, 1.0
    return lo, hi


def _float_extremes(lo: float, hi: float, tiny: float) -> list[float]:
    return _dedup([float(lo), float(hi), 0.0, -0.0, tiny, -tiny])


def _float_random(rng: np.random.Generator, lo: float, hi: float, n: int, fmax: float) -> np.ndarray:
    width = hi - lo
    if width <= 0:
        width = max(abs(lo), 1.0)
    mid = (lo + hi) / 2
    a, b = max(mid - width, -fmax), min(mid + width, fmax)
    return rng.uniform(a, b, n)


def _int_extremes(lo: int, hi: int) -> list[int]:
    cand = [lo, hi, -1, 0, 1, lo + 1, hi - 1]
    return _dedup([c for c in cand if lo <= c <= hi])


def _synth_array(v: np.ndarray, sig: dict[str, Any], mode: str, rng: np.random.Generator) -> np.ndarray:
    dt = v.dtype
    n = v.size
    if dt.kind == "b":
        if mode == "extremes":
            flat = np.resize(np.array([False, True]), n)
        else:
            flat = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        if mode == "extremes":
            flat = np.resize(np.array(_int_extremes(int(info.min), int(info.max)), dtype=dt), n)
        else:
            flat = rng.integers(int(info.min), int(info.max), size=n, dtype=dt, endpoint=True)
    else:
        finfo = np.finfo(dt)
        lo, hi = _sig_range(sig, v)
        if mode == "extremes":
            flat = np.resize(np.array(_float_extremes(lo, hi, float(finfo.tiny)), dtype=dt), n)
        else:
            flat = _float_random(rng, lo, hi, n, float(finfo.max)).astype(dt)
    return flat.astype(dt, copy=False).reshape(v.shape)


def _leaves(v: Any) -> list[Any]:
    if isinstance(v, list):
        out: list[Any] = []
        for x in v:
            out.extend(_leaves(x))
        return out
    return [v]


def _refill(v: Any, it: Iterator[Any]) -> Any:
    if isinstance(v, list):
        return [_refill(x, it) for x in v]
    return next(it)


def _leaf_sig(sig: dict[str, Any] | None) -> dict[str, Any] | None:
    while sig is not None and sig.get("type") == "list":
        sig = sig.get("elem")
    return sig


def _synth_list(v: list, sig: dict[str, Any], mode: str, rng: np.random.Generator) -> list:
    leaves = _leaves(v)
    n = len(leaves)
    lo, hi = _sig_range(_leaf_sig(sig), leaves)
    if type(leaves[0]) is int:
        lo, hi = int(lo), int(hi)
        if mode == "extremes":
            cyc = _int_extremes(lo, hi)
            vals = [cyc[i % len(cyc)] for i in range(n)]
        else:
            vals = [int(x) for x in rng.integers(lo, hi, size=n, endpoint=True)]
    elif mode == "extremes":
        cyc = _float_extremes(lo, hi, float(np.finfo(np.float64).tiny))
        vals = [cyc[i % len(cyc)] for i in range(n)]
    else:
        vals = [float(x) for x in _float_random(rng, lo, hi, n, float(np.finfo(np.float64).max))]
    return _refill(v, iter(vals))


def _synth_scalar(v: Any, sig: dict[str, Any], mode: str) -> Any:
    if isinstance(v, bool | np.bool_):
        return v
    lo, hi = _sig_range(sig, v)
    x = lo if mode == "extremes" else hi
    if isinstance(v, np.generic):
        return v.dtype.type(x)
    return type(v)(x)


def _record_fields(v: Any) -> list[Any] | None:
    """The fields of a tuple, namedtuple or dataclass of numbers (None for anything else)."""
    if type(v) is tuple:
        fields = list(v)
    else:
        desc = record_kind(type(v))
        if desc is None:
            return None
        fields = record_values(v, *desc)
    if all(_edge_kind(x) == "scalar" for x in fields):
        return fields
    return None


def _synth_record(v: Any, sig: dict[str, Any], mode: str) -> Any:
    """A record of the same class whose every field is synthesised as a scalar argument is."""
    items = sig.get("items") if isinstance(sig, dict) else None
    fields = _record_fields(v) or []
    sigs = items if isinstance(items, list) and len(items) == len(fields) else [{}] * len(fields)
    values = [_synth_scalar(x, s, mode) for x, s in zip(fields, sigs)]
    if type(v) is tuple:
        return tuple(values)
    desc = record_kind(type(v))
    assert desc is not None
    if desc[0] == "namedtuple":
        return type(v)(*values)
    return type(v)(**dict(zip(desc[1], values)))


def _edge_kind(v: Any) -> str | None:
    """How an input can be synthesised, or None when it cannot."""
    if isinstance(v, np.ndarray):
        return "array" if is_supported_numpy(v.dtype) and v.size > 0 else None
    if isinstance(v, np.generic):
        return "scalar" if is_supported_numpy(v.dtype) else None
    if type(v) in (int, float, bool):
        return "scalar"
    if type(v) is list and v:
        leaves = _leaves(v)
        kinds = {type(x) for x in leaves}
        if len(kinds) == 1 and kinds <= {int, float}:
            return "list"
    if (type(v) is tuple or record_kind(type(v)) is not None) and _record_fields(v) is not None:
        return "record"
    return None


def _varying(sig: dict[str, Any] | None) -> list[tuple[int, ...]] | None:
    """The shapes of an array argument called with several leading lengths (and nothing else
    varying), or None."""
    if not sig or sig.get("type") != "ndarray" or sig.get("shape") is not None:
        return None
    shapes = [tuple(int(d) for d in s) for s in sig.get("shapes") or []]
    if (
        len(shapes) < 2
        or len({s[1:] for s in shapes}) != 1
        or not shapes[0]
        or len({len(s) for s in shapes}) != 1
    ):
        return None
    return shapes


def _edge_lengths(first: list[Any], sigs: list[dict[str, Any]]) -> list[int]:
    """Run-time lengths a kernel must take that no profiled call may have passed: one, three
    (no multiple of an unroll or burst factor), the longest and one less than it."""
    varying = [_varying(sig) for sig in sigs]
    longest = max((max(s[0] for s in v) for v in varying if v), default=0)
    if not longest:
        return []
    return sorted({n for n in (1, 3, longest - 1, longest) if 1 <= n <= longest})


def _at_length(v: Any, sig: dict[str, Any] | None, first: list[Any], n: int) -> Any:
    """Argument `v` of the first call with `n` rows when its length varies between calls and
    equals the first varying argument's (arguments of one length stay of one length), its
    rows repeated or cut; others as they are."""
    lead = next((a for a in first if isinstance(a, np.ndarray) and a.ndim), None)
    if _varying(sig) is None or not isinstance(v, np.ndarray) or lead is None or len(v) != len(lead):
        return copy.deepcopy(v)
    return np.resize(v, (n, *v.shape[1:])).astype(v.dtype, copy=False)


def edge_vectors(task: Task, fp: FunctionProfile, first: list[Any], time_limit: float) -> list[Sample]:
    """Up to two synthetic samples (extremes, random) the function accepts, and for arrays of
    run-time lengths the first call at the lengths `_edge_lengths` names."""
    kinds = [_edge_kind(v) for v in first]
    if not kinds or any(k is None for k in kinds):
        return []
    fn = task.fn
    assert fn is not None
    rng = np.random.default_rng(zlib.crc32(task.name.encode()))
    seen = {json.dumps(s.args, sort_keys=True) for s in fp.samples}
    out = []
    modes: list[Any] = ["extremes", "random", *_edge_lengths(first, fp.arg_sigs)]
    for mode in modes:
        args: list[Any] = []
        if isinstance(mode, int):  # the first call's arrays at another run-time length
            args = [_at_length(v, sig, first, mode) for v, sig in zip(first, fp.arg_sigs)]
        for v, kind, sig in zip(first, kinds, fp.arg_sigs):
            if isinstance(mode, int):
                break
            if kind == "array":
                args.append(_synth_array(v, sig, mode, rng))
            elif kind == "list":
                args.append(_synth_list(v, sig, mode, rng))
            elif kind == "record":
                try:
                    args.append(_synth_record(v, sig, mode))
                except Exception:  # a record class that cannot be rebuilt from its fields
                    return out
            else:
                args.append(_synth_scalar(v, sig, mode))
        try:
            encoded = [encode_value(a) for a in args]
        except Exception:
            continue
        key = json.dumps(encoded, sort_keys=True)
        if key in seen:
            continue  # nothing new (e.g. scalar inputs that never varied)
        seen.add(key)
        inputs = copy.deepcopy(args)
        try:
            with deadline(time_limit):
                res = task.call_with(fn, inputs)
        except (Exception, SystemExit, Timeout):
            continue
        try:
            out.append(
                Sample(
                    args=encoded,
                    result=encode_value(res),
                    # every argument this call changed, whether or not the profiled calls
                    # changed it (they may sit at a fixed point of an in-place update)
                    outputs={
                        str(i): encode_value(a)
                        for i, (b, a) in enumerate(zip(args, inputs))
                        if i in fp.mutates or not same_value(b, a)
                    },
                    edge=True,
                )
            )
        except Exception:
            continue
    return out
