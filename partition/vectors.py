"""Test vectors for a kernel, taken from the profile's recorded calls.

The Python function is the golden model: every recorded call (and every edge
vector the profiler synthesised and ran through the same function) becomes a
vector set of kernel inputs and the outputs Python produced.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from partition import ir
from partition.codegen.hls import VectorSet
from partition.profile.model import FunctionProfile, Sample, decode_value


def _scalar_return_index(kernel: ir.Kernel) -> int | None:
    for k, (kind, _) in enumerate(kernel.returns):
        if kind == "scalar":
            return k
    return None


def _result_item(kernel: ir.Kernel, result: Any, k: int) -> Any:
    if kernel.return_tuple:
        if not isinstance(result, tuple) or k >= len(result):
            raise ValueError("result is not the expected tuple")
        return result[k]
    return result


def vector_set(kernel: ir.Kernel, sample: Sample, label: str) -> VectorSet | None:
    """One vector set, or None when the sample does not fit the compiled kernel."""
    args = [decode_value(a) for a in sample.args]
    if len(args) != len(kernel.py_params):
        return None
    for pos, name in enumerate(kernel.py_params):
        if name in kernel.specialised and not _equal(args[pos], kernel.specialised[name]):
            return None
    result = decode_value(sample.result)
    inputs: dict[str, Any] = {}
    outputs: dict[str, np.ndarray] = {}
    for p in kernel.params:
        kind, pos = p.origin
        if kind == "arg":
            v = args[pos]
            if v is None:
                return None
            if p.kind == "array":
                a = np.asarray(v)
                if a.shape != p.shape:
                    return None
                inputs[p.name] = np.ascontiguousarray(a.astype(p.dtype.np, copy=False))
                if p.direction != "in":
                    after = sample.outputs.get(str(pos))
                    out = decode_value(after) if after is not None else a
                    outputs[p.name] = np.asarray(out).astype(p.dtype.np, copy=False).reshape(p.shape)
            else:
                inputs[p.name] = v
        else:
            try:
                v = _result_item(kernel, result, pos)
            except ValueError:
                return None
            a = np.asarray(v)
            if p.pytype in ("list", "list_np") and a.shape == p.shape and a.dtype.kind in "biuf":
                # a returned list holds Python numbers (numpy makes int64/float64 of them):
                # its values must be exactly those of the kernel's element type
                with np.errstate(all="ignore"):
                    conv = a.astype(p.dtype.np)
                if np.array_equal(conv, a, equal_nan=a.dtype.kind == "f"):
                    a = conv
            if a.shape != p.shape or a.dtype != p.dtype.np:
                return None
            outputs[p.name] = np.ascontiguousarray(a)
    ret = None
    k = _scalar_return_index(kernel)
    if k is not None:
        try:
            ret = _result_item(kernel, result, k)
        except ValueError:
            return None
        if ret is None:
            return None
    return VectorSet(inputs=inputs, outputs=outputs, ret=ret, label=label)


def kernel_vectors(kernel: ir.Kernel, fp: FunctionProfile) -> list[VectorSet]:
    out = []
    profiled = edge = 0
    for s in fp.samples:
        if s.edge:
            label = f"edge {edge}"
            edge += 1
        else:
            label = f"profiled {profiled}"
            profiled += 1
        vs = vector_set(kernel, s, label)
        if vs is not None:
            out.append(vs)
    return out


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
