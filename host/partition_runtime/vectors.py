"""Read a kernel's profiled test vectors (build tree hls/<kernel>/vectors/) as Python call arguments.

Files, per vector k: `<k>_<param>.in.bin` (inputs of in/inout arrays and
scalars), `<k>_<param>.out.bin` (expected out/inout arrays), `<k>_return.bin`
(expected scalar return): raw little-endian elements, row-major, no header.
The on-board calibration uses them to make a real, in-bounds kernel call and to
check its result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .errors import SpecError
from .marshal import to_pytype
from .spec import KernelSpec, np_dtype


def _read(path: Path, dtype: np.dtype, count: int) -> np.ndarray:
    if not path.is_file():
        raise SpecError(f"{path}: test vector file missing")
    data = np.fromfile(str(path), dtype=dtype.newbyteorder("<"))
    if data.size != count:
        raise SpecError(f"{path}: {data.size} element(s), expected {count}")
    return data.astype(dtype)


def specialised_value(entry: dict[str, Any]) -> Any:
    """The constant a specialised parameter was compiled with, as the Python type the app passed."""
    return to_pytype(entry["value"], entry["pytype"], entry.get("dtype") or "int64")


def vector_call(k: KernelSpec, folder: Path, index: int = 0) -> tuple[tuple, dict[str, Any]]:
    """(positional Python arguments, expected {param name or "return": value}) of vector `index`."""
    args: list[Any] = [None] * len(k.py_params)
    expected: dict[str, Any] = {}
    fields: dict[int, dict[str, Any]] = {}  # record arguments: position -> {field: value}
    for p in k.params:
        size = 1
        for s in p.shape:
            size *= s
        if p.origin == "arg":
            if p.kind == "array":
                if p.direction == "out":
                    args[p.position] = np.zeros(p.shape, dtype=p.np)
                else:
                    args[p.position] = _read(folder / f"{index}_{p.name}.in.bin", p.np, size).reshape(p.shape)
                    if p.pytype == "list_tuple":
                        args[p.position] = [tuple(row) for row in args[p.position].tolist()]
            else:
                v = _read(folder / f"{index}_{p.name}.in.bin", p.np, 1)[0].item()
                if p.field is not None:
                    fields.setdefault(p.position, {})[p.field] = to_pytype(v, p.pytype, p.dtype)
                else:
                    args[p.position] = to_pytype(v, p.pytype, p.dtype)
        if p.kind == "array" and p.direction != "in":
            expected[p.name] = _read(folder / f"{index}_{p.name}.out.bin", p.np, size).reshape(p.shape)
    for pos, name in enumerate(k.py_params):
        if name in k.specialised:
            args[pos] = specialised_value(k.specialised[name])
        st = k.structs.get(name)
        if st is not None:
            values = fields.get(pos, {})
            values.update({f: specialised_value(e) for f, e in st.constants.items()})
            args[pos] = st.build(values)
    if k.ret_dtype is not None:
        expected["return"] = _read(folder / f"{index}_return.bin", np_dtype(k.ret_dtype), 1)[0].item()
    return tuple(args), expected


def check_result(k: KernelSpec, args: tuple, result: Any, expected: dict[str, Any], tol: dict) -> list[str]:
    """Differences between a call's outcome and the vector's expected outputs."""
    from .marshal import compare

    items = list(result) if k.return_tuple else ([result] if k.returns else [])
    problems = []
    for (kind, what), got in zip(k.returns, items):
        if kind == "scalar":
            want = to_pytype(expected["return"], k.ret_pytype or "int", k.ret_dtype or "int64")
            r = compare(got, want, tol, "return value")
        elif what in expected:
            r = compare(got, expected[what], tol, what)
        else:
            r = None  # an input array handed back: nothing produced
        if r:
            problems.append(r)
    for p in k.params:
        if p.origin == "arg" and p.kind == "array" and p.direction != "in":
            r = compare(args[p.position], expected[p.name], tol, f"argument {p.name}")
            if r:
                problems.append(r)
    return problems
