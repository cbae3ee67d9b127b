"""The records every lowering module shares, and the rejection they all raise.

`Reject` (a construct outside the subset), `TE` (a typed expression) with the
two IR constructors every module builds with (`const`, `cast`), and the tables
the lowering keeps: arrays (`ArrayInfo`), variables (`VarState`), one round's
findings (`RoundState`) and the names one function body sees (`Scope`). They
sit apart from the lowering classes so that the scalar and the whole-array
lowering both use them without importing each other.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from partition import ir
from partition.dtypes import DType, wrap
from partition.frontend.source import FunctionSource
from partition.frontend.types import PyType
from partition.profile.model import FunctionProfile


class Reject(Exception):
    """The function uses something outside the subset: `line` and `construct` say what."""

    def __init__(self, line: int, construct: str, file: str | None = None):
        super().__init__(construct)
        self.line = line
        self.construct = construct
        self.file = file


@dataclass
class TE:
    """A typed expression: the Python-level type and the IR that computes it."""

    pt: PyType
    e: ir.Expr


def const(value: Any, dt: DType) -> ir.Const:
    """The constant `value` of dtype `dt`."""
    if dt.is_bool:
        return ir.Const(bool(value), dt)
    if dt.is_float:
        return ir.Const(float(value), dt)
    return ir.Const(int(value), dt)


def cast(e: ir.Expr, dt: DType) -> ir.Expr:
    """`e` as dtype `dt` (integer constants are wrapped into it now, not cast later)."""
    if e.dtype == dt:
        return e
    if isinstance(e, ir.Const) and not e.dtype.is_float and not dt.is_float and not dt.is_bool:
        return ir.Const(wrap(int(e.value), dt), dt)
    return ir.Cast(e, dt)


@dataclass
class ArrayInfo:
    pyname: str
    name: str  # IR name
    dtype: DType
    shape: tuple[int, ...]
    kind: str  # "param", "local", "rom"
    elem: PyType  # type of an element read
    init: list | None = None
    position: int = -1  # argument position for params
    loaded: bool = False
    stored: bool = False
    full_store: bool = False
    returned: int | None = None
    pytype: str = "ndarray"  # "ndarray", "list" (Python scalars) or "list_np" (numpy scalars)
    elem_key: str | None = None  # a local list: its element type is joined like a variable's


RECORD_KINDS = ("tuple", "namedtuple", "dataclass")  # signatures of arguments that are records


def plain(v: Any) -> Any:
    """A numpy scalar as the Python number it holds (how constants are written down)."""
    if isinstance(v, np.generic):
        return v.item()
    return v


@dataclass
class RecordField:
    """One field of a record argument: a scalar parameter of its own, or a constant compiled in."""

    name: str
    pt: PyType  # its type in the kernel
    e: ir.Expr  # the parameter's Var, or the constant
    obs: PyType  # what the profile observed (trip-count estimates read this)
    param: tuple[str, DType, str] | None = None  # (IR name, dtype, host pytype); None for a constant
    constant: dict[str, Any] | None = None  # {"value", "pytype", "dtype"} when compiled in
    used: bool = False
    unsupported: str = ""  # why the field cannot be read (not a number), if so


@dataclass
class RecordArg:
    """An argument that is a tuple, namedtuple or dataclass of numbers, taken apart into fields."""

    pyname: str
    kind: str  # tuple | namedtuple | dataclass
    pytype: str  # class name ("tuple" for a plain tuple)
    position: int
    fields: list[RecordField]

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    @property
    def what(self) -> str:
        """How messages name it: "tuple p", "Point p"."""
        return f"{'tuple' if self.kind == 'tuple' else self.pytype} {self.pyname}"


@dataclass
class VarState:
    pt: PyType | None = None
    changes: int = 0
    widened: bool = False
    float_consts_only: bool = True
    first: PyType | None = None


@dataclass
class RoundState:
    assigned: dict[str, PyType] = field(default_factory=dict)
    float_nonconst: set[str] = field(default_factory=set)
    unstable: bool = False
    loop_counter: int = 0
    temp_counter: int = 0
    check_counter: int = 0  # temporaries of partition.frontend.overflow's checks
    inline_counter: int = 0
    dead_loop_vars: set[str] = field(default_factory=set)
    lines: dict[str, int] = field(default_factory=dict)
    # math calls Python would raise on outside a domain (partition.frontend.domains)
    requirements: dict[ir.Expr, list[Any]] = field(default_factory=dict)
    like: dict[str, str] = field(default_factory=dict)  # untyped variable -> one whose type to guess for it
    status: bool = False  # a check may hand the call back to the CPU (partition.frontend.overflow)
    domain_checks: dict[Any, ir.Stmt] = field(default_factory=dict)  # math call's Requirement -> its check


@dataclass
class Scope:
    """Names as one function body sees them: the kernel's own, or an inlined callee's.

    Variables of a scope live in the shared tables under `prefix + name`, so
    an inlined helper's locals never collide with its caller's.
    """

    prefix: str
    fp: FunctionProfile
    src: FunctionSource
    fn: ast.FunctionDef
    local_names: set[str] = field(default_factory=set)
    arrays: dict[str, ArrayInfo] = field(default_factory=dict)
    consts: dict[str, TE] = field(default_factory=dict)
    scalar_params: dict[str, tuple[str, DType, PyType, int, str]] = field(default_factory=dict)
    obs_params: dict[str, PyType] = field(default_factory=dict)
    records: dict[str, RecordArg] = field(default_factory=dict)  # record arguments by name
    global_values: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, tuple[int, int]] = field(default_factory=dict)
    views: dict[str, Any] = field(
        default_factory=dict
    )  # names bound to slices of arrays (arrays.values.View)
    regions: list[Any] = field(
        default_factory=list
    )  # loops and branches around the statement (arrays.values.Region)
    for_names: set[str] = field(default_factory=set)  # names `for` statements bind (iteration.for_targets)
    rebound: set[str] = field(default_factory=set)  # scalar parameters the body assigns (now locals)
    body: list[ast.stmt] = field(default_factory=list)  # the statements lowered (returns folded)
    # run-time lengths of array arguments called with several lengths: register -> its
    # arrays.values.ParamDyn, and the argument position whose shape sets it
    dims: dict[str, tuple[Any, int]] = field(default_factory=dict)
    # loop variables below a run-time length: name -> (its key, k), at most that length + k
    sym_facts: dict[str, tuple[Any, int]] = field(default_factory=dict)


def assigned_names(fn: ast.FunctionDef) -> set[str]:
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
