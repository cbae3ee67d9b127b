"""Lowering one profiled Python function to a `Kernel`.

The lowering runs in rounds. Each round walks the function's AST once,
building IR with the variable types known so far and collecting the type of
every assignment; variable types are the join of their assignments (one type
per variable for the whole function, as hardware needs). Rounds repeat until
the types settle. Python ints carry an interval; a variable whose interval
keeps growing (an accumulator) is widened to what the profile observed, or to
64 bits, and the kernel notes say which width was assumed.

Whole-array numpy code (slices, elementwise operators, reductions, products)
is lowered to loops by `partition.frontend.arrays`, which the lowerer holds as
`arr` and its parts call wherever an expression is array-valued.

Anything outside the subset raises `Reject` with the line and the construct;
the caller turns it into a one-line reason and the task stays on the CPU.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

from partition import ir
from partition.dtypes import DType
from partition.frontend import domains
from partition.frontend.arrays import ArrayLowering
from partition.frontend.calls import Calls
from partition.frontend.expressions import Expressions
from partition.frontend.indexcalls import inline_index_calls
from partition.frontend.indexing import Indexing
from partition.frontend.inlining import Inlining
from partition.frontend.inputs import Inputs
from partition.frontend.intrinsics import Intrinsics
from partition.frontend.iteration import Iteration, for_targets
from partition.frontend.kernel import KernelAssembly
from partition.frontend.keywords import positional_calls
from partition.frontend.lengths import RunTimeLengths
from partition.frontend.loops import Loops
from partition.frontend.makers import Makers
from partition.frontend.mathcalls import MathCalls
from partition.frontend.model import TE, ArrayInfo, Reject, RoundState, Scope, VarState, assigned_names
from partition.frontend.nested import nested_defs
from partition.frontend.overflow import Overflow
from partition.frontend.records import Records
from partition.frontend.returns import EarlyReturnError, rewrite_returns
from partition.frontend.seqs import SeqBuilder
from partition.frontend.sequences import Sequences
from partition.frontend.source import FunctionSource
from partition.frontend.statements import Statements
from partition.frontend.targets import Targets
from partition.frontend.types import PyType
from partition.frontend.variables import Variables
from partition.names import c_name
from partition.profile.model import FunctionProfile

MAX_ROUNDS = 24


class Lowerer(
    Inputs,
    Records,
    Variables,
    Statements,
    Targets,
    Iteration,
    SeqBuilder,
    Sequences,
    Loops,
    Makers,
    Indexing,
    RunTimeLengths,
    Expressions,
    Calls,
    MathCalls,
    Intrinsics,
    Overflow,
    Inlining,
    KernelAssembly,
):
    """Lowers one profiled function to a `Kernel` in rounds (see the module docstring).

    This class holds the state of the lowering and drives the rounds; its parts
    (the classes it is made of) lower inputs, record arguments, variables, statements, loops,
    new arrays and lists, subscripts, expressions, calls and inlined functions,
    and assemble the kernel. `arr` lowers whole-array numpy code.
    """

    def __init__(
        self,
        fp: FunctionProfile,
        src: FunctionSource,
        task: str,
        functions: dict[str, FunctionProfile] | None = None,
        app_dir: Path | None = None,
        observed_ints: bool = False,
    ):
        self.top = Scope(
            "", fp, src, src.node, local_names=assigned_names(src.node), for_names=for_targets(src.node)
        )
        self.sc = self.top
        self.functions = functions or {}
        self.observed_ints = observed_ints  # see Inputs.int_width
        self.app_dir = app_dir
        self.key_scope: dict[str, tuple[Scope, str]] = {}
        self.all_arrays: dict[str, ArrayInfo] = {}
        self.roms: dict[str, ArrayInfo] = {}
        self.inline_stack: list[tuple[str, int]] = []
        self.pending: list[ir.Stmt] = []
        self.call_statement: ast.Call | None = None
        self.current_stmt: ast.stmt | None = None  # the statement being lowered
        self.nested_helpers: dict[
            str, tuple[FunctionProfile, FunctionSource]
        ] = {}  # functions defined in the body
        self.cond_depth = 0
        self.task = task
        self.notes: list[str] = []
        self.vars: dict[str, VarState] = {}
        self.specialised: dict[str, Any] = {}
        self.param_stores: set[str] = set()  # names the body assigns (parameters among them become locals)
        self.param_inits: dict[str, TE] = {}  # rebound scalar parameter -> its value on entry
        # parameters that carry state between calls (a method's assigned attributes): never
        # compiled in as constants, whatever the profiled calls passed
        self.state_params: set[str] = set()
        self.used_names: set[str] = set()
        self.ir_names: dict[str, str] = {}
        self.r = RoundState()
        self.observed_mode = False
        self.returns: list[tuple[str, str]] = []
        self.defined: set[str] = set()  # variables assigned on every path to the statement being lowered
        self.ret: DType | None = None
        self.ret_pytype = ""
        self.return_tuple = False
        self.arr = ArrayLowering(self)

    # the current scope's view of names
    @property
    def fp(self) -> FunctionProfile:
        return self.sc.fp

    @property
    def src(self) -> FunctionSource:
        return self.sc.src

    @property
    def fn(self) -> ast.FunctionDef:
        return self.sc.fn

    @property
    def arrays(self) -> dict[str, ArrayInfo]:
        return self.sc.arrays

    @property
    def consts(self) -> dict[str, TE]:
        return self.sc.consts

    @property
    def scalar_params(self) -> dict[str, tuple[str, DType, PyType, int, str]]:
        return self.sc.scalar_params

    @property
    def obs_params(self) -> dict[str, PyType]:
        return self.sc.obs_params

    @property
    def local_names(self) -> set[str]:
        return self.sc.local_names

    @property
    def global_values(self) -> dict[str, Any]:
        return self.sc.global_values

    @property
    def facts(self) -> dict[str, tuple[int, int]]:
        return self.sc.facts

    def key(self, pyname: str) -> str:
        """The table key of a variable of the current scope."""
        k = self.sc.prefix + pyname
        self.key_scope.setdefault(k, (self.sc, pyname))
        return k

    def add_array(self, pyname: str, info: ArrayInfo) -> ArrayInfo:
        self.sc.arrays[pyname] = info
        self.all_arrays[info.name] = info
        return info

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def irname(self, pyname: str) -> str:
        if pyname in self.ir_names:
            return self.ir_names[pyname]
        if ":" in pyname:  # a variable of an inlined helper: helper#k:name
            fn, _, n = pyname.partition(":")
            base = c_name(f"{fn.split('#')[0]}_{n.lstrip('_')}")
        else:
            base = c_name(pyname)
        return self.unique_name(pyname, base)

    def unique_name(self, key: str, base: str) -> str:
        """`base`, or `base_2`, `base_3`, ... if taken: the IR name of table key `key` from now on."""
        name = base
        k = 2
        while name in self.used_names:
            name = f"{base}_{k}"
            k += 1
        self.used_names.add(name)
        self.ir_names[key] = name
        return name

    def where(self, node: ast.AST) -> int:
        return getattr(node, "lineno", self.fn.lineno)

    def lower(self) -> ir.Kernel:
        """The function's Kernel: rounds of lowering until the variable types settle."""
        self.bind_params()
        self.bind_globals()
        params = dict(self.top.arrays)
        body = self.function_body(self.fn)
        stmts: list[ir.Stmt] = []
        for _ in range(MAX_ROUNDS):
            self.r = RoundState()
            self.returns = []
            self.defined = set()
            self.sc = self.top
            # names are bound in program order within a round (numpy rebinding)
            self.top.arrays, self.top.views = dict(params), {}
            self.top.facts = {}  # the hidden loops' index facts are this round's (their names are)
            self.arr.new_round()
            for a in self.all_arrays.values():
                a.loaded = a.stored = a.full_store = False
                a.returned = None
            stmts = self.arr.with_saves(self.param_init() + self.block(body, top=True), self.fn.lineno)
            if not self.settle():
                break
        else:
            raise Reject(self.fn.lineno, "variable types did not settle (too many type changes)")
        kernel = self.kernel(stmts)
        checks = self.r.domain_checks
        failure, notes, proven = domains.check(kernel, self.r.requirements, set(checks))
        if failure is not None:
            req, why = failure
            raise Reject(req.line, f"{req.call}: {why}", req.file or None)
        kernel.notes += [n for n in notes if n not in kernel.notes]
        return without_checks(kernel, {id(checks[r]) for r in proven if r in checks})

    def function_body(self, fn: ast.FunctionDef) -> list[ast.stmt]:
        """The statements to lower: docstring dropped, early returns folded into one final return."""
        body = fn.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        if not body:
            return []
        if self.sc is self.top:  # functions defined in the body: helpers to inline (nested.py)
            body, helpers = nested_defs(fn, body, self.src, self.functions, self.fp)
            self.nested_helpers.update(helpers)
        self.check_returns(body, nested_only=True)
        try:
            body = rewrite_returns(body)
        except EarlyReturnError as e:
            raise Reject(e.line, e.construct) from None
        self.sc.local_names |= {
            n.id
            for s in body
            for n in ast.walk(s)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        self.check_returns(body)
        body = inline_index_calls(positional_calls(body, self.numpy_attr), self.numpy_attr)
        self.sc.body = body
        return body

    def check_returns(self, body: list[ast.stmt], nested_only: bool = False) -> None:
        for node in ast.walk(ast.Module(body=body, type_ignores=[])):
            if isinstance(node, ast.Return) and (not body or node is not body[-1]) and not nested_only:
                raise Reject(node.lineno, "return before the end of the function")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                raise Reject(node.lineno, "nested function or class definition")


def without_checks(kernel: ir.Kernel, drop: set[int]) -> ir.Kernel:
    """`kernel` without the check statements `drop` (by identity: the domain checks the range
    analysis proved never fire), and without its status when no check is left."""
    if not drop:
        return kernel

    def block(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
        out = []
        for s in stmts:
            if id(s) in drop:
                continue
            if isinstance(s, ir.For):
                s = dataclasses.replace(s, body=block(s.body))
            elif isinstance(s, ir.If):
                s = dataclasses.replace(s, then=block(s.then), orelse=block(s.orelse))
            out.append(s)
        return out

    body = block(kernel.body)
    st = kernel.status
    if st is not None and not any(
        isinstance(s, ir.Assign)
        and s.var == st
        and not (isinstance(s.value, ir.Const) and s.value.value == 0)
        for s in ir.walk_stmts(body)
    ):
        body = [s for s in body if not (isinstance(s, ir.Assign) and s.var == st)]
        scalars = {k: v for k, v in kernel.scalars.items() if k != st}
        return dataclasses.replace(kernel, body=body, scalars=scalars, status=None)
    return dataclasses.replace(kernel, body=body)
