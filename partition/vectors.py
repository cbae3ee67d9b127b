"""Test vectors for a kernel: what one is, its raw files, and taking them from the profile's recorded calls.

The Python function is the golden model: every recorded call (and every edge
vector the profiler synthesised and ran through the same function) becomes a
vector set of kernel inputs and the outputs Python produced.

`bin_files` writes a list of vector sets as the files both backends' testbenches
read (the Vitis HLS C-simulation testbench and the built-in RTL's cocotb one), so
one profiled vector set feeds both:

    vectors/<k>_<name>.in.bin  input of an in/inout array or of a scalar, vector k
    vectors/<k>_<name>.out.bin expected final contents of an out/inout array
    vectors/<k>_return.bin     expected scalar return value
    vectors/<k>_fallback.out.bin  expected fallback register (kernels with a status):
                               one byte, 0 or 1, or 255 when either is right

raw elements, row-major, little-endian, no header, bool one byte. They live
here, below both backends, because the fuzzer, the tests and the RTL backend
use vector sets without generating any C++.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from partition import ir
from partition.dtypes import DType
from partition.errors import PartitionError
from partition.names import printable
from partition.profile.methods import plain_sample
from partition.profile.model import FunctionProfile, Sample, decode_value
from partition.regmap import STATUS

STATUS_EITHER = 255  # a vector's expected fallback register when 0 and 1 are both right
CHECK_STEPS = 20_000  # statements the IR interpreter may run per vector when checking a plan


@dataclass
class VectorSet:
    """One test vector of a kernel: its inputs and what it must produce.

    inputs: parameter name -> np.ndarray (arrays: the parameter's shape and dtype)
    or a Python/numpy scalar (scalar parameters). Out-only arrays need no input.
    outputs: expected final contents of every out/inout array parameter.
    ret: expected scalar return value (None when the kernel returns nothing).
    label: what the vector is ("profiled 0", "edge extremes", ...).
    """

    inputs: dict[str, Any]
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    ret: Any = None
    label: str = ""
    # the kernel's fallback register for this call (kernels with `ir.Kernel.status`): 0, 1, or
    # None when either is right (the call may leave what the kernel was built for; see `STATUS_EITHER`)
    status: int | None = 0

    @classmethod
    def from_interpreter(cls, kernel: ir.Kernel, inputs: dict[str, Any], label: str) -> VectorSet:
        """A vector whose expected outputs come from the reference interpreter."""
        from partition.interp import execute

        run = execute(kernel, inputs)
        outputs = {p.name: run.arrays[p.name] for p in kernel.arrays if p.direction in ("out", "inout")}
        return cls(dict(inputs), outputs, run.ret, label, run.status)


def _as_array(value: Any, shape: tuple[int, ...], dt: DType, what: str) -> np.ndarray:
    """`value` as an array of exactly `dt` and `shape`; refuses anything lossy."""
    arr = np.asarray(value)
    if arr.shape != tuple(shape):
        raise PartitionError(f"{what}: shape {arr.shape}, expected {tuple(shape)}")
    if arr.dtype == dt.np:
        return arr
    with np.errstate(all="ignore"):
        conv = arr.astype(dt.np)
    if arr.dtype.kind not in "biuf" or not np.array_equal(
        conv, arr, equal_nan=dt.is_float and arr.dtype.kind == "f"
    ):
        raise PartitionError(f"{what}: dtype {arr.dtype} does not convert exactly to {dt}; give {dt} values")
    return conv


def _as_scalar(value: Any, dt: DType, what: str) -> np.ndarray:
    """`value` as a one-element array of `dt`; refuses out-of-range integers."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if dt.is_float:
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
            raise PartitionError(f"{what}: {value!r} is not a {dt} value")
        with np.errstate(all="ignore"):
            return np.array([value], dtype=dt.np)
    if isinstance(value, (float, np.floating)) and not float(value).is_integer():
        raise PartitionError(f"{what}: {value!r} is not a {dt} value")
    if not isinstance(value, (bool, int, float, np.integer, np.bool_, np.floating)):
        raise PartitionError(f"{what}: {value!r} is not a {dt} value")
    v = int(value)
    lo, hi = (0, 1) if dt.is_bool else (dt.min, dt.max)
    if not lo <= v <= hi:
        raise PartitionError(f"{what}: {v} is outside the range of {dt} [{lo}, {hi}]")
    return np.array([v], dtype=dt.np)


def _raw(arr: np.ndarray, dt: DType) -> bytes:
    """Raw little-endian element bytes, row-major (bool: one byte, 0 or 1)."""
    return np.ascontiguousarray(arr, dtype=dt.np.newbyteorder("<")).tobytes(order="C")


def bin_files(kernel: ir.Kernel, ret_dt: DType | None, vectors: list[VectorSet]) -> dict[str, bytes]:
    """The raw files of `vectors` for `kernel`, as {"vectors/<file>": bytes} (see the module doc).

    `ret_dt` is the type of the expected return value (None: the kernel returns nothing);
    every value must convert exactly to its parameter's type and shape.
    """
    files: dict[str, bytes] = {}
    params = {p.name: p for p in kernel.params}
    for k, vs in enumerate(vectors):
        what = f"kernel {kernel.name} vector {k} ({printable(vs.label)})"
        unknown = sorted(set(vs.inputs) - set(params)) + sorted(set(vs.outputs) - set(params))
        if unknown:
            raise PartitionError(f"{what}: {', '.join(unknown)} is not a parameter of the kernel")
        for p in kernel.params:
            if p.kind == "scalar" or p.direction in ("in", "inout"):
                if p.name not in vs.inputs:
                    raise PartitionError(f"{what}: no input for parameter {p.name}")
                if p.kind == "scalar":
                    data = _as_scalar(vs.inputs[p.name], p.dtype, f"{what} input {p.name}")
                else:
                    data = _as_array(vs.inputs[p.name], p.shape, p.dtype, f"{what} input {p.name}")
                files[f"vectors/{k}_{p.name}.in.bin"] = _raw(data, p.dtype)
            if p.kind == "array" and p.direction in ("out", "inout"):
                if p.name not in vs.outputs:
                    raise PartitionError(f"{what}: no expected output for array {p.name}")
                data = _as_array(vs.outputs[p.name], p.shape, p.dtype, f"{what} output {p.name}")
                files[f"vectors/{k}_{p.name}.out.bin"] = _raw(data, p.dtype)
        if kernel.status is not None:
            status = STATUS_EITHER if vs.status is None else vs.status
            files[f"vectors/{k}_{STATUS}.out.bin"] = bytes([status])
        if ret_dt is not None:
            if vs.ret is None:
                raise PartitionError(f"{what}: no expected return value")
            files[f"vectors/{k}_return.bin"] = _raw(
                _as_scalar(vs.ret, ret_dt, f"{what} return value"), ret_dt
            )
        elif vs.ret is not None:
            raise PartitionError(f"{what}: expects a return value but the kernel returns nothing")
    return files


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
    if kernel.method:  # a call of a method, as one of the plain function lowered in its place
        plain = plain_sample(sample, kernel.method)
        if plain is None:
            return None
        sample = plain
    args = [decode_value(a) for a in sample.args]
    if len(args) != len(kernel.py_params):
        return None
    for pos, name in enumerate(kernel.py_params):
        if name in kernel.specialised and not _equal(args[pos], kernel.specialised[name]):
            return None
        st = kernel.structs.get(name)
        if st is not None and not _record_fits(st, args[pos]):
            return None
    result = decode_value(sample.result)
    inputs: dict[str, Any] = {}
    outputs: dict[str, np.ndarray] = {}
    given: dict[str, int] = {}  # leading lengths of the arrays passed and returned
    for p in kernel.params:
        kind, pos = p.origin
        if kind == "arg":
            v = args[pos]
            if v is None:
                return None
            if p.field is not None:  # a field of a record argument
                v = kernel.structs[kernel.py_params[pos]].read(v, p.field)
            if p.kind == "array":
                a = np.asarray(v)
                if not fits(p, a.shape):
                    return None
                given[p.name] = a.shape[0]
                inputs[p.name] = padded(p, a.astype(p.dtype.np, copy=False))
                if p.direction != "in":
                    after = sample.outputs.get(str(pos))
                    out = decode_value(after) if after is not None else a
                    out = np.asarray(out).astype(p.dtype.np, copy=False).reshape(a.shape)
                    outputs[p.name] = padded(p, out)
            else:
                inputs[p.name] = v
        elif kind == "dim":  # a run-time length: the leading length of the argument at `pos`
            v = args[pos]
            if not isinstance(v, np.ndarray) or v.ndim == 0:
                return None
            inputs[p.name] = int(v.shape[0])
        else:
            try:
                v = _result_item(kernel, result, pos)
            except ValueError:
                return None
            if p.pytype.startswith("scalar_"):  # a further returned scalar, boxed in one element
                a = boxed(v, p.dtype)
                if a is None:
                    return None
                outputs[p.name] = a
                continue
            a = np.asarray(v)
            if p.pytype in ("list", "list_np") and a.shape == p.shape and a.dtype.kind in "biuf":
                # a returned list holds Python numbers (numpy makes int64/float64 of them):
                # its values must be exactly those of the kernel's element type
                with np.errstate(all="ignore"):
                    conv = a.astype(p.dtype.np)
                if np.array_equal(conv, a, equal_nan=a.dtype.kind == "f"):
                    a = conv
            if not fits(p, a.shape) or a.dtype != p.dtype.np:
                return None
            given[p.name] = a.shape[0] if a.ndim else 0
            outputs[p.name] = padded(p, a)
    if not _lengths_agree(kernel, inputs, given):
        return None
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


def fits(p: ir.Param, shape: tuple[int, ...]) -> bool:
    """An array of `shape` is what parameter `p` takes: its shape, or for a run-time leading
    length (`ir.Param.dyn`) at most as many rows of the same other lengths."""
    shape = tuple(shape)
    if not p.dyn:
        return shape == p.shape
    least = 0 if p.dyn_offset else 1  # a shorter result (np.diff of one element) may be empty
    return len(shape) == len(p.shape) and shape[1:] == p.shape[1:] and least <= shape[0] <= p.shape[0]


def padded(p: ir.Param, a: np.ndarray) -> np.ndarray:
    """`a` as the parameter's whole buffer: the rows of a shorter run-time length first, zeros
    after them (what a kernel never reads, and leaves as it was: the vectors' files compare
    whole buffers)."""
    a = np.ascontiguousarray(a)
    if a.shape == p.shape:
        return a
    out = np.zeros(p.shape, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


def _lengths_agree(kernel: ir.Kernel, inputs: dict[str, Any], given: dict[str, int]) -> bool:
    """Every array of a run-time length is as long as its register says (a call whose arrays
    sharing a register differ in length runs on the CPU, so it is no vector of the kernel)."""
    for p in kernel.arrays:
        n = inputs.get(p.dyn)
        if p.dyn and (n is None or given.get(p.name, ir.dyn_rows(p, n)) != ir.dyn_rows(p, n)):
            return False
    return True


def boxed(value: Any, dt: DType) -> np.ndarray | None:
    """A returned scalar as the one-element array the kernel writes (`ir.Param` "scalar_*"
    pytypes), or None when the value is not one of that dtype (a Python int beyond it)."""
    if isinstance(value, np.generic) and value.dtype != dt.np:
        return None
    if not isinstance(value, (int, float, bool, np.generic)):
        return None
    try:
        with np.errstate(all="ignore"):
            a = np.array([value], dtype=dt.np)
    except OverflowError:
        return None
    if type(value) is int and int(a[0]) != value:
        return None
    return a


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
            if s.edge and kernel.status is not None:
                vs.status = None  # synthetic extremes may leave what the kernel was built for
            out.append(vs)
    return out


def interpreter_check(
    kernel: ir.Kernel, vectors: list[VectorSet], max_steps: int = CHECK_STEPS
) -> str | None:
    """Runs the IR interpreter on every vector it can finish within `max_steps` statements:
    it fixes each such vector's expected fallback status (kernels with a status), and returns
    the first disagreement with Python on an exact (integer or bool) output, or None.

    The backends implement the IR's semantics, so an IR that disagrees with Python is a
    translation bug the kernel must not carry; floats are left to the C simulation, which
    compares them within its tolerance."""
    from partition.interp import StepLimit, execute

    for k, vs in enumerate(vectors):
        try:
            run = execute(kernel, vs.inputs, max_steps=max_steps)
        except StepLimit:
            continue
        except IndexError as e:  # the IR indexes past an array where Python did not
            return f"vector {k} ({printable(vs.label)}): the kernel indexes outside an array ({e})"
        if kernel.status is not None:
            vs.status = run.status
        if run.status:
            continue
        what = f"vector {k} ({printable(vs.label)})"
        for name, want in vs.outputs.items():
            got = run.arrays[name]
            if want.dtype.kind in "biu" and not np.array_equal(got, want):
                i = int(np.flatnonzero(got.reshape(-1) != want.reshape(-1))[0])
                return f"{what}: {name} differs at flat index {i}: {got.reshape(-1)[i]!r}, Python {want.reshape(-1)[i]!r}"
        if vs.ret is not None and kernel.ret is not None and not kernel.ret.is_float and run.ret != vs.ret:
            return f"{what}: returns {run.ret!r}, Python {vs.ret!r}"
    return None


def _record_fits(st: ir.StructArg, value: Any) -> bool:
    """A recorded record has the kernel's fields, with the values of those compiled in."""
    try:
        if st.kind != "dataclass" and len(value) != len(st.fields):
            return False
        for name in st.fields:
            st.read(value, name)
        return all(_equal(st.read(value, f), c["value"]) for f, c in st.constants.items())
    except (AttributeError, IndexError, TypeError, ValueError):
        return False


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False
