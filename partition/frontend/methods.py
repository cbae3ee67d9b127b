"""Methods of the app's own classes: `self`'s attributes as the kernel's arguments and results.

A board user writes small classes: `__init__` stores coefficients and state on `self`, and a
method (`process`, `update`, `step`, `__call__`) runs once per block of samples. Such a
method becomes a kernel by taking `self` apart, as a record argument is taken apart
(`partition.frontend.records`), before lowering: every attribute the method uses becomes a
parameter of its own (named `self_<attr>`), read from the object at each call:

* an attribute the method only reads is an input (a number, or an array);
* an array attribute it writes in place (`self.delay[k] = x`) is an inout array the host
  writes back into the object's own array, as Python leaves it;
* an attribute it assigns (`self.pos = ...`, `self.integral += ...`, `self.state = buf[n:]`)
  is a local variable that starts from the attribute's value, and its final value is
  returned after the method's own result; the host sets the attribute to it (a number of the
  same Python type, or a new array, as Python's assignment does).

A call of another method of the class as a statement (`y = self.update(z)`, `out[i] =
self.update(z)`, `self.reset()`) is inlined at the source level, that method's parameters and
locals renamed. What is not taken (refused with the reason): such a method that returns before
its end, or a call of one inside an expression; `self` used other than through its attributes, attributes the object lacks when called,
class methods and properties. A static method is a plain function.

The rest of the pipeline sees a plain function: `as_function` gives its source and profile;
`to_method` records how the method maps onto it (`ir.Kernel.method`): the host reads the
attributes from the object before each call and sets the assigned ones after it.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from typing import Any

from partition import ir
from partition.frontend.model import Reject
from partition.frontend.source import FunctionSource
from partition.profile.methods import plain_sample
from partition.profile.model import FunctionProfile

STATE_PREFIX = "self_"


@dataclasses.dataclass
class MethodShape:
    """How a method maps onto the plain function lowered in its place."""

    cls: str  # the class name (the recorded self's)
    self_name: str  # the method's first parameter, normally "self"
    attrs: list[str]  # attributes used, in the order of the object's attributes
    names: dict[str, str]  # attribute -> the plain function's parameter name
    assigned: list[str]  # attributes the method assigns, in `attrs` order (returned after its result)
    fields: list[str]  # every attribute of the recorded object
    returns: int  # items of the method's own return value (0: returns None)
    return_tuple: bool  # the method returns a tuple (of `returns` items)
    sigs: dict[str, dict[str, Any]]  # attribute -> its recorded signature


def _decorators(node: ast.FunctionDef) -> list[str]:
    out = []
    for d in node.decorator_list:
        if isinstance(d, ast.Name):
            out.append(d.id)
        elif isinstance(d, ast.Attribute):
            out.append(d.attr)
        elif isinstance(d, ast.Call):
            out.append(ast.unparse(d.func))
    return out


def is_static(node: ast.FunctionDef) -> bool:
    return "staticmethod" in _decorators(node)


class _Uses(ast.NodeVisitor):
    """Every `self.<attr>` of the body: read or assigned; any other use of `self` refused."""

    def __init__(self, self_name: str) -> None:
        self.self_name = self_name
        self.read: list[str] = []
        self.assigned: list[str] = []

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and node.value.id == self.self_name:
            (self.assigned if isinstance(node.ctx, ast.Store) else self.read).append(node.attr)
            return
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == self.self_name:
            raise Reject(
                node.lineno,
                f"{ast.unparse(f)}(): a method's call of another method is inlined only as a statement "
                "(x = self.f(...), out[i] = self.f(...) or self.f(...)): assign its result to a name first",
            )
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == self.self_name:
            why = "assigned" if isinstance(node.ctx, ast.Store) else "used other than through its attributes"
            raise Reject(node.lineno, f"{self.self_name} is {why} (a kernel reads and writes its attributes)")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        raise Reject(node.lineno, "nested function or class definition")

    visit_Lambda = visit_ClassDef = visit_FunctionDef  # type: ignore[assignment]


class _Rewrite(ast.NodeTransformer):
    """`self.<attr>` -> its parameter's name; every `return` also returns the assigned attributes."""

    def __init__(self, shape: MethodShape) -> None:
        self.shape = shape

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == self.shape.self_name:
            return ast.copy_location(ast.Name(id=self.shape.names[node.attr], ctx=node.ctx), node)
        return self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        if not self.shape.assigned:  # the method's own result, as it is
            return node
        return ast.copy_location(ast.Return(value=self.with_state(node.value, node)), node)

    def with_state(self, value: ast.expr | None, like: ast.AST) -> ast.expr:
        s = self.shape
        own: list[ast.expr] = []
        if s.return_tuple and isinstance(value, ast.Tuple):
            own = list(value.elts)
        elif s.returns:
            own = [value] if value is not None else []
        state = [ast.Name(id=s.names[a], ctx=ast.Load()) for a in s.assigned]
        t = ast.Tuple(elts=[*own, *state], ctx=ast.Load())
        return ast.fix_missing_locations(ast.copy_location(t, like))


_BUILTINS = frozenset(dir(__import__("builtins")))
MAX_INLINE_DEPTH = 4


def _class_methods(module: ast.Module, cls: str) -> dict[str, ast.FunctionDef]:
    for n in ast.walk(module):
        if isinstance(n, ast.ClassDef) and n.name == cls:
            return {f.name: f for f in n.body if isinstance(f, ast.FunctionDef)}
    return {}


class _InlineCalls(ast.NodeTransformer):
    """`x = self.m(a, b)`, `out[i] = self.m(a)` and `self.m(a)` statements replaced by the body
    of method `m` (its parameters and locals renamed `m__<name>`, `self` kept), when `m` is a
    plain method of the same class with its one `return` at the end."""

    def __init__(self, self_name: str, methods: dict[str, ast.FunctionDef], depth: int = 0) -> None:
        self.self_name = self_name
        self.methods = methods
        self.depth = depth

    def _callee(self, value: ast.expr | None) -> ast.FunctionDef | None:
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
            return None
        f = value.func
        if not (isinstance(f.value, ast.Name) and f.value.id == self.self_name):
            return None
        return self.methods.get(f.attr)

    def visit_stmts(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for st in body:
            st = self.visit(st)
            value = st.value if isinstance(st, (ast.Assign, ast.Expr)) else None
            callee = self._callee(value)
            if callee is None or (isinstance(st, ast.Assign) and len(st.targets) != 1):
                out.append(st)
                continue
            assert isinstance(value, ast.Call)
            out.extend(self.inline(st, value, callee))
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, name, self.visit_stmts(block))
        return node

    def inline(self, st: ast.stmt, call: ast.Call, callee: ast.FunctionDef) -> list[ast.stmt]:
        line = st.lineno
        what = ast.unparse(call.func)
        if self.depth >= MAX_INLINE_DEPTH:
            raise Reject(line, f"{what}(): methods calling methods nested too deep")
        if callee.decorator_list or callee.args.vararg or callee.args.kwarg or callee.args.kwonlyargs:
            raise Reject(line, f"{what}(): a decorated method or one with *args/**kwargs is not inlined")
        params = [a.arg for a in callee.args.posonlyargs + callee.args.args]
        if call.keywords or len(call.args) != len(params) - 1:
            raise Reject(
                line, f"{what}(): pass each of its parameters positionally (no defaults, no keywords)"
            )
        body = [s for s in callee.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        result: ast.expr | None = None
        if body and isinstance(body[-1], ast.Return):
            result = body[-1].value
            body = body[:-1]
        if any(isinstance(n, ast.Return) for s in body for n in ast.walk(s)):
            raise Reject(line, f"{what}(): a method inlined into another returns only at its end")
        own_self = params[0]
        local = set(params[1:]) | {
            n.id
            for s in body
            for n in ast.walk(s)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        prefix = f"{callee.name.strip('_')}__"

        class Rename(ast.NodeTransformer):
            def visit_Name(self, n: ast.Name) -> ast.AST:
                if n.id == own_self:
                    return ast.copy_location(ast.Name(id=outer_self, ctx=n.ctx), n)
                if n.id in local:
                    return ast.copy_location(ast.Name(id=prefix + n.id, ctx=n.ctx), n)
                return n

        outer_self = self.self_name
        stmts: list[ast.stmt] = [
            ast.Assign(targets=[ast.Name(id=prefix + p, ctx=ast.Store())], value=a)
            for p, a in zip(params[1:], call.args)
        ]
        for s in copy.deepcopy(body):
            stmts.append(Rename().visit(s))
        stmts = _InlineCalls(self.self_name, self.methods, self.depth + 1).visit_stmts(stmts)
        if isinstance(st, ast.Assign):
            if result is None:
                raise Reject(line, f"{what}() returns nothing, used as a value")
            stmts.append(ast.Assign(targets=st.targets, value=Rename().visit(copy.deepcopy(result))))
        for s in stmts:
            for n in ast.walk(s):
                if hasattr(n, "lineno") or isinstance(n, (ast.expr, ast.stmt)):
                    n.lineno, n.col_offset = line, getattr(st, "col_offset", 0)
                    n.end_lineno, n.end_col_offset = line, getattr(st, "end_col_offset", 0)
        return stmts


def _return_shape(node: ast.FunctionDef) -> tuple[int, bool]:
    """(items of the method's return value, whether it is a tuple); refuses mixed shapes."""
    shapes = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Return):
            v = n.value
            if v is None or (isinstance(v, ast.Constant) and v.value is None):
                shapes.add((0, False))
            elif isinstance(v, ast.Tuple):
                shapes.add((len(v.elts), True))
            else:
                shapes.add((1, False))
    if not shapes:
        return 0, False
    if len(shapes) > 1:
        raise Reject(node.lineno, "returns of different shapes (a value here, none or a tuple elsewhere)")
    return shapes.pop()


def _falls_off(body: list[ast.stmt]) -> bool:
    return not body or not isinstance(body[-1], ast.Return)


def as_function(
    fp: FunctionProfile, src: FunctionSource
) -> tuple[FunctionProfile, FunctionSource, MethodShape]:
    """The plain function lowered in the method's place, its profile, and how they map back."""
    node = src.node
    line = node.lineno
    if node.name in ("__init__", "__new__", "__del__", "__post_init__"):
        raise Reject(line, f"{node.name} sets up or tears down the object (it stays on the CPU)")
    extra = [d for d in _decorators(node) if d != "staticmethod"]
    if extra:
        raise Reject(line, f"method decorated with @{extra[0]} (plain methods and static methods are taken)")
    args = node.args
    if args.vararg or args.kwarg or args.kwonlyargs or not (args.posonlyargs + args.args):
        raise Reject(line, "method without a plain self parameter, or with *args/**kwargs")
    self_name = (args.posonlyargs + args.args)[0].arg
    sig = fp.arg_sigs[0] if fp.arg_sigs else {}
    if sig.get("type") != "instance":
        what = sig.get("pytype") or sig.get("type") or "nothing"
        raise Reject(
            line,
            f"{self_name} is a {what} object whose attributes the profile could not record (objects of the "
            "app's own classes with up to 32 attributes, no __slots__, are taken apart)",
        )
    fields = [str(f) for f in sig["fields"]]
    node = copy.deepcopy(node)
    node.body = _InlineCalls(self_name, _class_methods(src.module, str(sig.get("pytype", "")))).visit_stmts(
        node.body
    )
    uses = _Uses(self_name)
    for s in node.body:
        uses.visit(s)
    missing = sorted({a for a in uses.read if a not in fields} - set(uses.assigned))
    if missing:
        raise Reject(
            line, f"attribute {self_name}.{missing[0]} is not set on the object when the method is called"
        )
    new = sorted({a for a in uses.assigned if a not in fields})
    if new:
        raise Reject(line, f"attribute {self_name}.{new[0]} is created by the method (set it in __init__)")
    used = [f for f in fields if f in uses.read or f in uses.assigned]
    taken = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {a.arg for a in args.args}
    names: dict[str, str] = {}
    for a in used:
        name = STATE_PREFIX + a
        while name in taken:
            name += "_"
        taken.add(name)
        names[a] = name
    returns, return_tuple = _return_shape(node)
    shape = MethodShape(
        cls=str(sig.get("pytype", "")),
        self_name=self_name,
        attrs=used,
        names=names,
        assigned=[a for a in used if a in uses.assigned],
        fields=fields,
        returns=returns,
        return_tuple=return_tuple,
        sigs={str(f): dict(x) for f, x in zip(fields, sig.get("items") or [])},
    )
    fn = copy.deepcopy(node)
    fn.decorator_list = []
    rest = (args.posonlyargs + args.args)[1:]
    fn.args = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(arg=names[a]) for a in used] + [copy.deepcopy(a) for a in rest],
        kwonlyargs=[],
        kw_defaults=[],
        defaults=copy.deepcopy(args.defaults),
    )
    fn = _Rewrite(shape).visit(fn)
    if shape.assigned and _falls_off(fn.body):
        end = ast.Return(value=_Rewrite(shape).with_state(None, fn.body[-1] if fn.body else fn))
        fn.body.append(ast.fix_missing_locations(ast.copy_location(end, fn.body[-1] if fn.body else fn)))
    ast.fix_missing_locations(fn)
    return _profile(fp, shape, sig), dataclasses.replace(src, node=fn), shape


def _profile(fp: FunctionProfile, shape: MethodShape, sig: dict[str, Any]) -> FunctionProfile:
    """The method's profile as the plain function's: the used attributes as leading arguments,
    and each recorded call's result followed by the assigned attributes' values after it."""
    at = [shape.fields.index(a) for a in shape.attrs]
    items = [_one_type(x) for x in sig.get("items") or []]
    info = {"attrs": shape.attrs, "assigned": shape.assigned, "returns": shape.returns,
            "return_tuple": shape.return_tuple}  # fmt: skip
    samples = [p for s in fp.samples if (p := plain_sample(s, info, shape.fields)) is not None]
    return dataclasses.replace(
        fp,
        params=[shape.names[a] for a in shape.attrs] + list(fp.params[1:]),
        arg_sigs=[items[k] for k in at] + list(fp.arg_sigs[1:]),
        samples=samples,
        mutates=sorted({int(p) for x in samples for p in x.outputs}),
        kind="function",
    )


def _one_type(sig: dict[str, Any]) -> dict[str, Any]:
    """An attribute seen as a Python number and as one numpy scalar type (state that starts as
    0.0 and becomes numpy's once numpy arithmetic updates it) is that numpy type: the host's check
    sends the calls where it is still the Python number to the CPU, where Python keeps its own
    type (the first call, typically)."""
    types = sorted(sig.get("types", [])) if sig.get("type") == "mixed" else []
    numpy = [t for t in types if t.startswith("npscalar[")]
    python = [t for t in types if t in ("int", "float", "bool")]
    if len(numpy) == 1 and python and len(numpy) + len(python) == len(types):
        return {"type": "npscalar", "dtype": numpy[0][len("npscalar[") : -1]}
    return sig


def to_method(k: ir.Kernel, shape: MethodShape, py_params: list[str]) -> ir.Kernel:
    """The kernel of the plain function, marked as a method's (`ir.Kernel.method`): its
    leading parameters are attributes of self, read from the object at each call."""
    k.method = {
        "class": shape.cls,
        "params": list(py_params),
        "attrs": list(shape.attrs),
        "assigned": list(shape.assigned),
        "returns": shape.returns,
        "return_tuple": shape.return_tuple,
    }
    return k
