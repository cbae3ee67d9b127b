"""What the array lowering needs from the lowering of the function it is part of.

The whole-array lowering (`ArrayLowering`) is a part of the function's
`partition.frontend.lowerer.Lowerer`: it reads and extends the lowerer's
tables and applies its scalar rules to one element at a time. `ScalarLowering`
names exactly that much, so the array modules depend on an interface rather
than on the lowerer that composes them (which imports them).
"""

from __future__ import annotations

import ast
from typing import Any, Protocol

from partition import ir
from partition.dtypes import DType
from partition.frontend.model import TE, ArrayInfo, RoundState, Scope, VarState
from partition.frontend.types import PyType


class ScalarLowering(Protocol):
    """The function's lowerer, as far as the array lowering uses it."""

    sc: Scope  # the function body being lowered: its names, arrays, views and enclosing regions
    r: RoundState  # this round's counters and assignment types
    vars: dict[str, VarState]  # variable types by table key
    all_arrays: dict[str, ArrayInfo]  # every array of the kernel by IR name
    ir_names: dict[str, str]  # IR name by table key
    roms: dict[str, ArrayInfo]  # read-only arrays by key (globals, literals), shared across rounds
    pending: list[ir.Stmt]  # statements placed before the statement being lowered
    cond_depth: int  # > 0 inside a conditional expression or the right side of and/or

    @property
    def consts(self) -> dict[str, TE]: ...

    @property
    def facts(self) -> dict[str, tuple[int, int]]: ...

    @property
    def scalar_params(self) -> dict[str, tuple[str, DType, PyType, int, str]]: ...

    def where(self, node: ast.AST) -> int: ...

    def note(self, text: str) -> None: ...

    def key(self, pyname: str) -> str: ...

    def irname(self, pyname: str) -> str: ...

    def unique_name(self, key: str, base: str) -> str: ...

    def is_local_name(self, name: str) -> bool: ...

    def numpy_attr(self, node: ast.expr) -> str | None: ...

    def callee_text(self, f: ast.expr) -> str: ...

    def lookup_array(self, name: str) -> ArrayInfo | None: ...

    def nargs(self, node: ast.Call, n: int, text: str) -> None: ...

    def parse_dtype(self, node: ast.expr, line: int) -> DType: ...

    def parse_shape(self, node: ast.expr, line: int) -> tuple[int, ...]: ...

    def array_of(self, node: ast.expr) -> Any: ...

    def maker_parts(
        self, kind: str, call: ast.Call, line: int
    ) -> tuple[tuple[int, ...], DType, TE | None]: ...

    def expr(self, node: ast.expr) -> TE: ...

    def binop(self, op: str, a: TE, b: TE, node: ast.AST) -> TE: ...

    def unop(self, op: str, a: TE, line: int) -> TE: ...

    def truth(self, te: TE, node: ast.AST) -> TE: ...

    def common_cmp_dtype(self, a: PyType, b: PyType, line: int) -> DType: ...

    def index_of(self, te: TE, node: ast.expr, dim: int, line: int) -> ir.Expr: ...

    def store_value(self, te: TE, arr: ArrayInfo, line: int) -> ir.Expr: ...

    def numpy_math_args(self, name: str, node: ast.Call) -> list[ast.expr]: ...

    def np_math_element(self, name: str, tes: list[TE], rdt: DType, line: int) -> TE: ...

    def array_power(self, a: TE, b: TE, rdt: DType, line: int) -> TE: ...
