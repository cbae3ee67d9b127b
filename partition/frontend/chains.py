"""Which producer -> consumer pairs of tasks the app lets run as one AXI-Stream chain.

Chaining kernel u into kernel v by AXI-Stream means u's result never exists in
memory: u streams it straight into v. The runtime can only do that if it may
defer u's call until v is called (u's inputs are captured when the app calls u,
its kernel starts together with v's). That is safe when nothing but v ever
looks at u's result, which the profile alone cannot tell (it follows objects
into tasks, not reads by the app's own code). So the app's source must show it,
at every place u is called:

* nested: ``v(..., u(...), ...)`` — u's call is directly an argument of a call of v;
* named: ``t = u(...)`` and the function's only other mention of ``t`` is one
  argument of a call of v in a later statement of the same block, not inside a
  loop, a comprehension, a lambda or a nested function that the assignment is
  not also in (so each u call meets at most one v call). ``t`` is a plain local
  (not global, nonlocal, deleted or assigned anywhere else).

`u` and `v` are called by plain name, and that name is the module-level
function of the same file (not shadowed by a local of the caller). Everything
else — a call through an attribute, ``*args``, an alias of the result, a use
after the consumer — makes the pair ineligible, with the reason kept for
`partition explain`. What the profile adds (the result is one ndarray, u
modifies no argument, every call of u fed the same parameter of v and that
parameter always came from u) is checked by the caller of `chain_sites`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from partition.errors import PartitionError
from partition.frontend.source import read_source
from partition.profile.model import MAIN, Profile

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_INTROSPECTION = frozenset({"locals", "vars", "eval", "exec", "globals"})


@dataclass(frozen=True)
class Site:
    """One place the app calls the producer and passes its result to the consumer."""

    line: int  # the producer's call
    param: str  # the consumer's parameter that receives the result
    form: str  # "nested" or "named"


@dataclass(frozen=True)
class Verdict:
    """Whether every call of `producer` in one caller feeds `consumer` as a chain may."""

    sites: tuple[Site, ...]
    reason: str = ""  # why not, empty when eligible

    @property
    def ok(self) -> bool:
        return not self.reason and bool(self.sites)


def caller_node(app_dir: Path, rel_file: str, qualname: str, line: int | None) -> tuple[ast.AST, str]:
    """The AST of a caller: a function (by qualname and `def` line) or, line None, the module body.

    Returns the node and the file as shown to the user."""
    path = Path(app_dir) / rel_file
    try:
        module = ast.parse(read_source(path), filename=rel_file)
    except (OSError, SyntaxError, ValueError) as e:
        raise PartitionError(f"{rel_file}: cannot read the app's source ({e})") from e
    if line is None:
        return module, rel_file
    for node in ast.walk(module):
        is_def = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        if is_def and node.lineno == line and node.name == qualname.rsplit(".", 1)[-1]:
            return node, rel_file
    raise PartitionError(f"{rel_file}:{line}: no function {qualname} there; re-run `partition profile`")


def chain_sites(
    caller: ast.AST, producer: str, consumer: str, consumer_params: list[str], where: str = ""
) -> Verdict:
    """Every call of `producer` in `caller`, judged as a chain into `consumer` (module docstring).

    `producer`/`consumer` are the functions' names as the caller spells them;
    `consumer_params` the consumer's parameters in order (to map a positional
    argument to its name). The verdict is eligible only if every call of the
    producer is a chain site and all of them feed the same parameter.
    """
    parents = _parents(caller)
    body_scope = _own_nodes(caller)
    local_names = _assigned_names(caller, body_scope)
    for name in (producer, consumer):
        if name in local_names:
            return Verdict((), f"{where}: {name} is a local name of the caller, not the module's function")
    hidden = sorted(
        {n.func.id for n in ast.walk(caller) if isinstance(n, ast.Call) and _called(n) in _INTROSPECTION}
    )
    if hidden:
        return Verdict((), f"{where}: the caller calls {', '.join(hidden)}, which can read any local name")
    sites: list[Site] = []
    for node in body_scope:
        if not (isinstance(node, ast.Call) and _called(node) == producer):
            continue
        at = f"{where}:{node.lineno}" if where else f"line {node.lineno}"
        site = _nested(node, parents, consumer, consumer_params)
        if site is None:
            site, why = _named(node, parents, caller, body_scope, consumer, consumer_params)
            if site is None:
                return Verdict((), f"{at}: {why}")
        sites.append(site)
    if not sites:
        return Verdict((), f"{where}: {producer} is not called there by its plain name")
    params = {s.param for s in sites}
    if len(params) > 1:
        return Verdict((), f"{where}: the result of {producer} goes to different parameters of {consumer}")
    return Verdict(tuple(sites))


# ----------------------------------------------------------------------------- the two forms


def _nested(call: ast.Call, parents: dict, consumer: str, params: list[str]) -> Site | None:
    outer = _call_of_argument(call, parents)
    if not (isinstance(outer, ast.Call) and _called(outer) == consumer):
        return None
    param = _param_of(outer, call, params)
    return Site(call.lineno, param, "nested") if param else None


def _named(
    call: ast.Call, parents: dict, caller: ast.AST, scope: list[ast.AST], consumer: str, params: list[str]
) -> tuple[Site | None, str]:
    assign = parents.get(call)
    if not (
        isinstance(assign, ast.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0], ast.Name)
    ):
        return None, "its result is neither passed straight to the consumer nor assigned to one plain name"
    name = assign.targets[0].id
    if _declared(caller, name):
        return None, f"{name} is declared global or nonlocal"
    stores = [
        n for n in scope if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
    ]
    if stores != [assign.targets[0]]:
        return None, f"{name} is assigned or deleted elsewhere in the caller"
    # every read counts, in nested functions and classes too: they may see the name as a closure
    # variable (or, at module level, as a global)
    loads = [
        n
        for n in ast.walk(caller)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]
    if len(loads) != 1:
        return None, f"{name} is used {len(loads)} times (a chain needs exactly one use, by the consumer)"
    use = loads[0]
    outer = _call_of_argument(use, parents)
    if not (isinstance(outer, ast.Call) and _called(outer) == consumer):
        return None, f"line {use.lineno}: {name} is used other than as an argument of the consumer"
    param = _param_of(outer, use, params)
    if not param:
        return None, f"line {use.lineno}: {name} reaches the consumer through *args/**kwargs"
    block, index = _statement_of(assign, parents)
    stmt = _enclosing_statement_in(use, block, parents)
    if stmt is None or block.index(stmt) <= index:
        return None, f"line {use.lineno}: the consumer's call is not later in the same block as {name} = ..."
    if _crosses_loop_or_scope(use, stmt, parents):
        return None, f"line {use.lineno}: the consumer's call is inside a loop or a nested scope"
    return Site(call.lineno, param, "named"), ""


# ----------------------------------------------------------------------------- AST helpers


def _called(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else None


def _call_of_argument(node: ast.AST, parents: dict) -> ast.AST | None:
    """The node `node` is an argument of: the call itself for a keyword argument too."""
    up = parents.get(node)
    return parents.get(up) if isinstance(up, ast.keyword) else up


def _param_of(outer: ast.Call, arg: ast.AST, params: list[str]) -> str | None:
    """The consumer's parameter `arg` binds to; None behind a starred argument or **kwargs."""
    for i, a in enumerate(outer.args):
        if any(isinstance(b, ast.Starred) for b in outer.args[: i + 1]):
            return None
        if a is arg:
            return params[i] if i < len(params) else None
    for kw in outer.keywords:
        if kw.value is arg:
            return kw.arg if kw.arg in params else None
    return None


def _parents(root: ast.AST) -> dict[ast.AST, ast.AST]:
    out: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(root):
        for child in ast.iter_child_nodes(node):
            out[child] = node
    return out


def _own_nodes(root: ast.AST) -> list[ast.AST]:
    """The nodes of `root`'s own scope: not inside nested defs or classes (their names are theirs).

    Lambdas and comprehensions are kept: they read the caller's names."""
    out: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(root))
    while stack:
        node = stack.pop()
        if isinstance(node, _DEFS):
            continue
        out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    out.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    return out


def _assigned_names(root: ast.AST, scope: list[ast.AST]) -> set[str]:
    """Names the caller binds itself (at module level: rebinds; its own `def`s are the functions)."""
    names = {n.id for n in scope if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    if not isinstance(root, ast.Module):
        names |= {d.name for d in ast.iter_child_nodes(root) if isinstance(d, _DEFS)}
    for node in scope:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = root.args
        names |= {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
        names |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    return names


def _declared(root: ast.AST, name: str) -> bool:
    return any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in ast.walk(root))


def _statement_of(node: ast.AST, parents: dict) -> tuple[list[ast.stmt], int]:
    """The statement list that holds `node` (a statement) and its index there."""
    parent = parents[node]
    for field in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and node in block:
            return block, block.index(node)
    raise AssertionError("a statement outside any block")


def _enclosing_statement_in(node: ast.AST, block: list[ast.stmt], parents: dict) -> ast.stmt | None:
    members = set(map(id, block))
    while node in parents:
        if id(node) in members:
            return node  # type: ignore[return-value]
        node = parents[node]
    return None


def _crosses_loop_or_scope(node: ast.AST, stop: ast.AST, parents: dict) -> bool:
    """Whether a loop, comprehension or lambda lies between `node` and statement `stop` (inclusive)."""
    while node is not stop:
        node = parents[node]
        if isinstance(node, _LOOPS + _SCOPES):
            return True
    return False


# ----------------------------------------------------------------------------- with the profile


def chainable(profile: Profile, app_dir: Path, producer: str, consumer: str) -> Verdict:
    """Whether task `producer` may stream its result into task `consumer` (module docstring).

    From the profile: the producer returns one ndarray and modifies no argument;
    all its results reached the consumer as the very objects (the edge's bytes
    are all `direct_bytes`, one transfer per call, nothing else consumed them);
    the consumer was called as often and that parameter always came from the
    producer. From the source: every caller of the producer has only chain sites.
    """
    fu, fv = profile.functions.get(producer), profile.functions.get(consumer)
    if fu is None or fv is None:
        return Verdict((), f"{producer} or {consumer} is not in the profile")
    if fu.return_sig.get("type") != "ndarray":
        return Verdict((), f"{producer} does not return one numpy array")
    if fu.mutates:
        return Verdict((), f"{producer} modifies an argument in place")
    out = [e for e in profile.edges if e.src == producer]
    into = [e for e in out if e.dst == consumer]
    if len(out) != 1 or not into:
        return Verdict((), f"the results of {producer} do not all go to {consumer}")
    e = into[0]
    if e.direct_bytes != e.bytes or e.count != fu.calls or fv.calls != fu.calls or e.what not in fv.params:
        return Verdict(
            (), f"not every call of {producer} hands its array, as it is, to one call of {consumer}"
        )
    if any(x.dst == consumer and x.what == e.what and x.src != producer for x in profile.edges):
        return Verdict((), f"{consumer}'s argument {e.what} does not always come from {producer}")
    names = []
    for f in (fu, fv):
        if "." in f.qualname or f.file != fu.file:
            return Verdict((), f"{f.name} is not a module-level function of {fu.file}")
        names.append(f.qualname)
    sites: list[Site] = []
    for caller in sorted(fu.callers):
        if caller == MAIN:
            rel, qual, line = profile.app, "<module>", None
        elif caller in profile.functions:
            fc = profile.functions[caller]
            rel, qual, line = fc.file, fc.qualname, fc.line
        else:
            return Verdict((), f"{producer} is called from {caller}, whose source is unknown")
        if rel != fu.file:
            return Verdict((), f"{producer} is called from another file ({rel})")
        node, shown = caller_node(app_dir, rel, qual, line)
        v = chain_sites(node, names[0], names[1], fv.params, shown)
        if not v.ok:
            return v
        if v.sites[0].param != e.what:
            return Verdict((), f"{shown}: the result of {producer} goes to {consumer}'s {v.sites[0].param}")
        sites.extend(v.sites)
    return Verdict(tuple(sites))
