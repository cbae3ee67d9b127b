"""Functions defined inside the kernel's function: inlined as the module's helpers are.

`def f(y): return np.array([y[1], -(omega**2) * y[0]])` or `sigmoid = lambda z: ...`
in the body, called there. A nested function reads the enclosing function's
variables as they are when it is called (Python looks closure variables up at
call time, and a nested function cannot rebind them without `nonlocal`), so it
is lowered as a helper whose closure variables are extra parameters that every
call passes: `f(y)` becomes `f(y, omega)`, evaluated in the caller at the call.
Only definitions at the top level of the body are taken; the name must only be
called (not passed, stored or redefined), and defaults must be constants.
"""

from __future__ import annotations

import ast
import copy

from partition.frontend.model import Reject
from partition.frontend.source import FunctionSource
from partition.profile.model import FunctionProfile


def nested_defs(
    fn: ast.FunctionDef,
    body: list[ast.stmt],
    src: FunctionSource,
    functions: dict[str, FunctionProfile],
    fp: FunctionProfile,
) -> tuple[list[ast.stmt], dict[str, tuple[FunctionProfile, FunctionSource]]]:
    """The body without its nested definitions (calls of them given the closure variables),
    and each definition as a helper to inline: name -> (profile, source)."""
    defs: dict[str, ast.FunctionDef] = {}
    rest: list[ast.stmt] = []
    for s in body:
        d = _definition(s)
        if d is None:
            rest.append(s)
            continue
        if d.name in defs:
            raise Reject(s.lineno, f"nested function {d.name} defined twice")
        defs[d.name] = d
    if not defs:
        return body, {}
    enclosing = _locals(fn, rest)
    free = {name: _free(d, enclosing) - set(defs) for name, d in defs.items()}
    own = {name: _own(d) for name, d in defs.items()}
    changed = True
    while changed:  # a nested function calling another needs that one's closure variables too
        changed = False
        for name, d in defs.items():
            for callee in _called(d, set(defs)):
                if free[callee] & own[name]:
                    raise Reject(
                        d.lineno,
                        f"nested function {name} calls {callee} with its own {sorted(free[callee] & own[name])[0]}",
                    )
                if not free[callee] <= free[name]:
                    free[name] |= free[callee]
                    changed = True
    extra = {name: sorted(v) for name, v in free.items()}
    rest = [_with_closure(copy.deepcopy(s), extra) for s in rest]
    helpers = {}
    for name, d in defs.items():
        node = _with_closure(copy.deepcopy(d), extra)
        params = {a.arg for a in node.args.posonlyargs + node.args.args}
        node.args.args += [ast.arg(v) for v in extra[name] if v not in params]
        helpers[name] = (_profile(node, src, functions, fp), _source(node, src))
    for s in rest:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and n.id in defs and not getattr(n, "_callee", False):
                raise Reject(n.lineno, f"nested function {n.id} used other than by calling it")
    return rest, helpers


def _definition(s: ast.stmt) -> ast.FunctionDef | None:
    """A nested definition: `def f(...)`, or `f = lambda ...: expr` (as the def it means)."""
    if isinstance(s, ast.FunctionDef):
        if s.decorator_list:
            raise Reject(s.lineno, f"decorated nested function {s.name}")
        d = s
    elif (
        isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and isinstance(s.value, ast.Lambda)
    ):
        lam = s.value
        ret = ast.Return(lam.body)
        d = ast.FunctionDef(s.targets[0].id, lam.args, [ret], [], None, None)
        ast.copy_location(ret, lam.body)
        ast.copy_location(d, s)
        d.end_lineno = s.end_lineno
    else:
        return None
    if any(not isinstance(x, ast.Constant) for x in [*d.args.defaults, *d.args.kw_defaults] if x is not None):
        raise Reject(d.lineno, f"nested function {d.name} with a default that is not a constant")
    for n in ast.walk(d):
        if isinstance(n, (ast.Nonlocal, ast.Global)):
            raise Reject(n.lineno, f"nonlocal or global statement in nested function {d.name}")
    return d


def _locals(fn: ast.FunctionDef, body: list[ast.stmt]) -> set[str]:
    """The enclosing function's own variables: its parameters and the names its body binds."""
    a = fn.args
    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    names |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
    return names


def _own(d: ast.FunctionDef) -> set[str]:
    """The nested function's own variables: its parameters and the names it binds."""
    a = d.args
    own = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    return own | {n.id for n in ast.walk(d) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _free(d: ast.FunctionDef, enclosing: set[str]) -> set[str]:
    """The enclosing function's variables `d` reads (its closure)."""
    own = _own(d)
    loads = {n.id for n in ast.walk(d) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return (loads - own) & enclosing


def _called(d: ast.FunctionDef, names: set[str]) -> set[str]:
    return {
        n.func.id
        for n in ast.walk(d)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
    }


def _with_closure(node: ast.AST, extra: dict[str, list[str]]) -> ast.AST:
    """`node` with every call of a nested function given its closure variables."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in extra:
            n.func._callee = True  # type: ignore[attr-defined]
            n.args = [*n.args, *(ast.copy_location(ast.Name(v, ast.Load()), n) for v in extra[n.func.id])]
    return node


def _profile(
    node: ast.FunctionDef, src: FunctionSource, functions: dict[str, FunctionProfile], fp: FunctionProfile
) -> FunctionProfile:
    """The nested function's own profile where the profiler recorded it, else one with no calls
    (its locals then get the widths the lowering proves, not observed ones)."""
    for p in functions.values():
        if p.file == src.rel and p.line == node.lineno and p.qualname.endswith(f"<locals>.{node.name}"):
            return p
    return FunctionProfile(
        name=f"{fp.name}.<locals>.{node.name}",
        qualname=f"{fp.qualname}.<locals>.{node.name}",
        file=src.rel,
        line=node.lineno,
        globals=dict(fp.globals),
        kind="nested",
    )


def _source(node: ast.FunctionDef, src: FunctionSource) -> FunctionSource:
    return FunctionSource(
        node, src.module, src.path, src.rel, src.numpy_aliases, src.numpy_names, src.modules
    )
