"""Calls to the app's own functions, lowered in place (inlined).

The callee is found in the caller's module or through its imports, and must
have run in the profiled run. Its body is lowered in a scope of its own (its
variables cannot collide with the caller's), its statements go before the
caller's statement, and its return value becomes the call's value: a scalar,
an array (by reference), a view, or a tuple of those.
"""

from __future__ import annotations

import ast
from typing import Any

from partition import ir
from partition.errors import PartitionError
from partition.frontend.iteration import for_targets
from partition.frontend.model import TE, ArrayInfo, RecordArg, Reject, Scope, assigned_names
from partition.frontend.source import FunctionSource, load_function
from partition.profile.model import FunctionProfile, decode_value


class Inlining:
    """Inlined calls to app functions (part of `Lowerer`)."""

    def resolve_helper(self, f: ast.expr) -> tuple[FunctionProfile, FunctionSource] | None:
        """The app function a call refers to, when partition inlines it; None for anything else."""
        module = self.src.module
        inside = self.sc is self.top or any(self.sc.fn is src.node for _, src in self.nested_helpers.values())
        if isinstance(f, ast.Name) and f.id in self.nested_helpers and inside:
            return self.nested_helpers[f.id]  # a function defined in the kernel's body (nested.py)
        if isinstance(f, ast.Name):
            name = f.id
            if self.is_local_name(name) or name in self.arrays or self.numpy_attr(f) is not None:
                return None
            for node in module.body:
                if isinstance(node, ast.FunctionDef) and node.name == name:
                    return self.helper_here(node, f)
            for node in module.body:
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    for a in node.names:
                        if (a.asname or a.name) == name:
                            return self.helper_task(f"{node.module}.{a.name}", f)
            return None
        if (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and not self.is_local_name(f.value.id)
        ):
            for node in module.body:
                if isinstance(node, ast.Import):
                    for a in node.names:
                        if (a.asname or a.name) == f.value.id and a.name != "numpy":
                            return self.helper_task(f"{a.name}.{f.attr}", f)
        return None

    def helper_here(self, node: ast.FunctionDef, f: ast.expr) -> tuple[FunctionProfile, FunctionSource]:
        lines = {node.lineno, *(d.lineno for d in node.decorator_list)}
        for fp in self.functions.values():
            if fp.file == self.src.rel and fp.line in lines and fp.qualname == node.name:
                break
        else:
            raise Reject(
                self.where(f), f"{node.name}() never ran in the profiled run, so it cannot be inlined"
            )
        if node.decorator_list:
            raise Reject(self.where(f), f"call to decorated function {node.name}()")
        return fp, FunctionSource(
            node, self.src.module, self.src.path, self.src.rel, *self._numpy_names(), self.src.modules
        )

    def _numpy_names(self) -> tuple[set[str], dict[str, str]]:
        return self.src.numpy_aliases, self.src.numpy_names

    def helper_task(self, task: str, f: ast.expr) -> tuple[FunctionProfile, FunctionSource] | None:
        fp = self.functions.get(task)
        if fp is None:
            return None
        if self.app_dir is None:
            raise Reject(self.where(f), f"call to {task}() in another module")
        try:
            src = load_function(self.app_dir, fp.file, fp.line, fp.qualname)
        except PartitionError as e:
            raise Reject(self.where(f), e.message) from None
        if src.node.decorator_list:
            raise Reject(self.where(f), f"call to decorated function {task}()")
        return fp, src

    def inline(self, call: ast.Call, fp: FunctionProfile, src: FunctionSource) -> Any:
        """Lower a call to another app function in place; its statements go before the caller's.

        Returns the call's value: a TE for a scalar, an ArrayInfo for an array, a list
        of those for a tuple, or None.
        """
        fdef = src.node
        line = call.lineno
        ident = (src.rel, fdef.lineno)
        if ident in self.inline_stack or ident == (self.top.src.rel, self.top.fn.lineno):
            raise Reject(line, f"recursive call to {fdef.name}()")
        a = fdef.args
        if a.vararg or a.kwarg or a.kwonlyargs:
            raise Reject(
                line, f"call to {fdef.name}(), which takes *args, **kwargs or keyword-only arguments"
            )
        if any(isinstance(x, ast.Starred) for x in call.args):
            raise Reject(line, f"call to {fdef.name}() with *args")
        params = [p.arg for p in a.posonlyargs + a.args]
        defaults = dict(zip(params[len(params) - len(a.defaults) :], a.defaults))
        if len(call.args) > len(params):
            raise Reject(line, f"{fdef.name}() called with too many arguments")
        bound: dict[str, ast.expr] = dict(zip(params, call.args))
        for kw in call.keywords:
            if kw.arg is None or kw.arg not in params or kw.arg in bound:
                raise Reject(line, f"{fdef.name}() called with keyword {kw.arg}")
            bound[kw.arg] = kw.value
        values: dict[str, Any] = {}
        for p in params:  # arguments are evaluated in the caller, left to right
            if p not in bound:
                if p not in defaults:
                    raise Reject(line, f"{fdef.name}() called without argument {p}")
                values[p] = None
                continue
            node = bound[p]
            rec = self.record_of(node)
            if rec is not None:  # a record is passed by its fields
                values[p] = rec
                continue
            arr = self.arr.argument(node)  # an array by reference, a slice as a view, or a new array
            values[p] = arr if arr is not None else self.expr(node)
        self.r.inline_counter += 1
        scope = Scope(
            f"{fdef.name}#{self.r.inline_counter}:",
            fp,
            src,
            fdef,
            local_names=assigned_names(fdef) | set(params),
            for_names=for_targets(fdef),
            global_values={name: decode_value(enc) for name, enc in fp.globals.items()},
        )
        caller, outer = self.sc, self.pending
        self.sc, self.pending = scope, []
        self.inline_stack.append(ident)
        saved_statement = self.call_statement
        try:
            stmts: list[ir.Stmt] = []
            for p in params:
                v = values[p]
                if isinstance(v, ArrayInfo):
                    scope.arrays[p] = v
                elif isinstance(v, RecordArg):
                    scope.records[p] = v
                elif self.arr.is_view(v):
                    scope.views[p] = v
                else:
                    te = self.expr(defaults[p]) if v is None else v
                    stmts.extend(self.pending)
                    self.pending = []
                    stmts.append(self.assign_var(p, te, line, None))
            body = self.function_body(fdef)
            ret = body[-1] if body and isinstance(body[-1], ast.Return) else None
            stmts.extend(self.block(body[:-1] if ret is not None else body))
            self.call_statement = None
            result = self.helper_result(ret, stmts) if ret is not None else None
        except Reject as e:
            raise Reject(e.line, e.construct, e.file or src.rel) from None
        finally:
            self.sc, self.pending = caller, outer
            self.inline_stack.pop()
            self.call_statement = saved_statement
        written = {st.array for st in ir.walk_stmts(stmts) if isinstance(st, ir.Store)}
        if written & self.arr.sourced:
            raise Reject(line, f"{fdef.name}() writes to a reshaped array it is given (numpy passes a view)")
        passed = {v.name for v in values.values() if isinstance(v, ArrayInfo)}
        passed |= {v.base.name for v in values.values() if self.arr.is_view(v)}
        if written & passed and (self.cond_depth or self.call_statement is not call):
            raise Reject(
                line,
                f"{fdef.name}() writes to an array it is given, inside a larger expression "
                "(call it as a statement of its own)",
            )
        self.note(f"{fdef.name}() inlined at {self.src.rel}:{line}")
        self.pending.extend(stmts)
        return result

    def helper_result(self, ret: ast.Return, stmts: list[ir.Stmt]) -> Any:
        """Value of an inlined function's final `return`, evaluated in its scope."""
        v = ret.value
        if v is None or (isinstance(v, ast.Constant) and v.value is None):
            return None
        items = v.elts if isinstance(v, ast.Tuple) else [v]
        out: list[Any] = []
        for k, item in enumerate(items):
            arr = self.array_of(item) if isinstance(item, ast.Name) else None
            if arr is not None:
                out.append(arr)
                continue
            if isinstance(item, (ast.List, ast.ListComp)):  # a new list, returned by reference
                name = self.hidden("list")
                made = self.list_value(name, item, ret.lineno)
                stmts.extend(self.pending)
                self.pending = []
                stmts.extend(made)
                out.append(self.arrays[name])
                continue
            if self.arr.rank_of(item) is not None:
                result, made = self.arr.helper_return(item, k, ret.lineno)
                stmts.extend(self.pending)
                self.pending = []
                stmts.extend(made)
                out.append(result)
                continue
            te = self.expr(item)
            stmts.extend(self.pending)
            self.pending = []
            tmp = f"__ret{k}"
            stmts.append(self.assign_var(tmp, te, ret.lineno, item))
            out.append(self.read_var(tmp, item))
        return out if isinstance(v, ast.Tuple) else out[0]

    def bind_result(self, name: str, result: Any, line: int) -> list[ir.Stmt]:
        """`name = helper(...)`: a scalar is assigned, an array is bound to the name."""
        if isinstance(result, TE):
            if name in self.arrays:
                raise Reject(line, f"{name} is an array here and a scalar elsewhere")
            return [self.assign_var(name, result, line, None)]
        if self.arr.is_view(result):
            return self.arr.bind_view(name, result, line)
        if isinstance(result, ArrayInfo):
            key = self.key(name)
            if key in self.vars or key in self.r.assigned or name in self.scalar_params:
                raise Reject(line, f"{name} is a scalar elsewhere and an array here")
            prev = self.arrays.get(name)
            if prev is not None and prev.name != result.name:
                raise Reject(line, f"{name} names different arrays at different places")
            self.sc.views.pop(name, None)
            self.arrays[name] = result
            return []
        raise Reject(line, "assigning the result of a function that returns nothing or a tuple")
