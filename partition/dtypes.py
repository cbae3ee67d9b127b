"""Scalar element types shared by every stage.

One place for what a dtype *is*: its width, signedness, C++ spelling, numpy
spelling and value range. The frontend, the interpreter, both backends and the
estimator all ask here, so a width decision made once is the same everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    name: str
    bits: int
    kind: str  # "int", "uint", "float", "bool"

    @property
    def is_int(self) -> bool:
        return self.kind in ("int", "uint")

    @property
    def is_signed(self) -> bool:
        return self.kind in ("int", "float")

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_bool(self) -> bool:
        return self.kind == "bool"

    @property
    def nbytes(self) -> int:
        return 1 if self.kind == "bool" else self.bits // 8

    @property
    def min(self) -> int:
        if self.kind == "int":
            return -(1 << (self.bits - 1))
        return 0

    @property
    def max(self) -> int:
        if self.kind == "int":
            return (1 << (self.bits - 1)) - 1
        if self.kind == "uint":
            return (1 << self.bits) - 1
        if self.kind == "bool":
            return 1
        raise ValueError(f"{self.name} has no integer range")

    @property
    def np(self) -> np.dtype:
        return np.dtype("bool" if self.kind == "bool" else self.name)

    @property
    def ctype(self) -> str:
        return C_TYPES[self.name]

    def __str__(self) -> str:
        return self.name


_ALL = [
    DType("bool", 1, "bool"),
    DType("int8", 8, "int"),
    DType("int16", 16, "int"),
    DType("int32", 32, "int"),
    DType("int64", 64, "int"),
    DType("uint8", 8, "uint"),
    DType("uint16", 16, "uint"),
    DType("uint32", 32, "uint"),
    DType("uint64", 64, "uint"),
    DType("float32", 32, "float"),
    DType("float64", 64, "float"),
]

DTYPES: dict[str, DType] = {d.name: d for d in _ALL}

C_TYPES = {
    "bool": "bool",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int32_t",
    "int64": "int64_t",
    "uint8": "uint8_t",
    "uint16": "uint16_t",
    "uint32": "uint32_t",
    "uint64": "uint64_t",
    "float32": "float",
    "float64": "double",
}

BOOL = DTYPES["bool"]
INT32 = DTYPES["int32"]
INT64 = DTYPES["int64"]
UINT8 = DTYPES["uint8"]
FLOAT64 = DTYPES["float64"]

SIGNED_INTS = [DTYPES[n] for n in ("int8", "int16", "int32", "int64")]


def dtype(name: str | np.dtype | DType) -> DType:
    """Look a dtype up by name (or numpy dtype); raise KeyError for unsupported ones."""
    if isinstance(name, DType):
        return name
    if isinstance(name, np.dtype):
        name = "bool" if name == np.bool_ else name.name
    return DTYPES[str(name)]


def is_supported_numpy(dt: np.dtype) -> bool:
    try:
        dtype(dt)
    except KeyError:
        return False
    return True


def narrowest_signed(lo: int, hi: int, minimum_bits: int = 8) -> DType | None:
    """Narrowest standard signed integer type holding [lo, hi], or None if none does.

    Python ints have no width; the frontend gives each one the narrowest standard
    width that covers its range, and reports which.
    """
    for d in SIGNED_INTS:
        if d.bits >= minimum_bits and d.min <= lo and hi <= d.max:
            return d
    return None


def wrap(value: int, dt: DType) -> int:
    """Two's-complement wraparound of an exact integer into `dt` (numpy's behaviour)."""
    if dt.is_bool:
        return 1 if value else 0
    mask = (1 << dt.bits) - 1
    v = value & mask
    if dt.kind == "int" and v >> (dt.bits - 1):
        v -= 1 << dt.bits
    return v
