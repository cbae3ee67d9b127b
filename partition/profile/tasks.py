"""What the recorder keeps per function of the app (`Task`: its signature, timing totals,
samples) and per call site (`Context`, `CallSite`).

Call sites. A context is "which task is on top, which tasks are on the stack";
contexts are interned, and each (context, callee) pair has one `CallSite`
that counts calls and the bytes the caller passed in. Separate from the recorder,
whose module globals are the hot path's state: these are the records it fills,
and what replay and the fuzzer's golden model read back.
"""

from __future__ import annotations

import inspect
import types
from typing import Any

from partition.profile.model import Sample
from partition.profile.signature import ArgSlot, SigAcc


class Context:
    """Top of the call stack (task name) and the set of task names on it."""

    __slots__ = ("name", "rec", "sites", "tasks")

    def __init__(self, name: str, tasks: frozenset[str], rec: bool) -> None:
        self.name = name
        self.tasks = tasks
        self.rec = rec  # the top task was already on the stack (a recursive call)
        self.sites: dict[Task, CallSite] = {}  # calls made from this context, by callee


class CallSite:
    """Calls of one task from one context: count, and per parameter its signature and caller-made bytes.

    `sites` and `rec` repeat the callee context's fields so the wrapper reads
    them with one attribute access; the per-site `slots` (merged per task at
    the end) let it update a parameter's record with one attribute access too.
    """

    __slots__ = ("caller", "calls", "ctx", "pctx", "rec", "sites", "slots", "task")

    def __init__(self, task: Task | None, pctx: Context | None, ctx: Context) -> None:
        self.task = task
        self.pctx = pctx
        self.ctx = ctx  # the callee's context
        self.sites = ctx.sites
        self.rec = ctx.rec
        self.caller = pctx.name if pctx is not None else ""
        self.calls = 0
        self.slots = [ArgSlot(p) for p in (task.params if task else ())]


class Task:
    """What is known about one function of the app."""

    __slots__ = ("calls", "errors", "file", "fn", "glob_dict", "glob_values", "kind",
                 "line", "mutates", "name", "nparams", "params", "qualname", "ret_acc", "samples",
                 "self_ns", "signature", "total_ns")  # fmt: skip

    def __init__(self, name: str, qualname: str, file: str, line: int, kind: str) -> None:
        self.name = name
        self.qualname = qualname
        self.file = file
        self.line = line
        self.kind = kind
        self.calls = 0
        self.self_ns = 0
        self.total_ns = 0
        self.fn: types.FunctionType | None = None
        self.signature: inspect.Signature | None = None
        self.params: list[str] = []
        self.nparams = -1  # positional parameter count when calls can be read without binding
        self.ret_acc = SigAcc()
        self.mutates: set[int] = set()
        self.samples: list[Sample] = []
        self.glob_dict: dict[str, Any] | None = None
        self.glob_values: dict[str, dict[str, Any]] = {}
        self.errors = 0

    def set_function(self, fn: types.FunctionType) -> None:
        self.fn = fn
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = None
        self.signature = sig
        if sig is None:
            return
        params, simple = [], True
        for p in sig.parameters.values():
            if p.kind is p.VAR_POSITIONAL:
                params.append("*" + p.name)
                simple = False
            elif p.kind is p.VAR_KEYWORD:
                params.append("**" + p.name)
                simple = False
            else:
                params.append(p.name)
                simple = simple and p.kind is not p.KEYWORD_ONLY
        self.params = params
        self.nparams = len(params) if simple else -1

    def bind(self, args: tuple, kwargs: dict) -> list[Any] | tuple:
        """The call's value for every parameter, in order (defaults applied)."""
        if self.signature is None:
            return args
        try:
            ba = self.signature.bind(*args, **kwargs)
        except TypeError:
            return args  # the call itself will raise
        ba.apply_defaults()
        return [ba.arguments[p.name] for p in self.signature.parameters.values()]

    def call_with(self, fn: Any, values: list[Any]) -> Any:
        """Call `fn` with one value per parameter (the inverse of `bind`)."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        assert self.signature is not None
        for p, v in zip(self.signature.parameters.values(), values):
            if p.kind is p.VAR_POSITIONAL:
                args.extend(v)
            elif p.kind is p.VAR_KEYWORD:
                kwargs.update(v)
            elif p.kind is p.KEYWORD_ONLY:
                kwargs[p.name] = v
            else:
                args.append(v)
        return fn(*args, **kwargs)
