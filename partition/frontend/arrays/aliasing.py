"""Whether a name may hold a copy of elements Python would make it refer to.

In a loop, `a = a_new`, `phi = new` or `xm1 = img[:, j]` makes a name refer to
other elements in every iteration; a kernel's buffers are fixed, so the
frontend copies the elements into the name's own buffer instead. The copy
behaves as Python's reference only while nothing writes in place to either
side: a write through the name would have reached the elements it refers to,
and a write to those elements (through any name of them) would have been seen
through the name. `copy_conflict` scans the statements that can run after the
binding, in program order and around the loops that hold it, until the name is
bound again, and names the first write that would tell the two apart.

One write is known not to: `y[:, j] = ...` in a later iteration of
`for j in range(...)` when the copy was taken as `y[:, j]` in an earlier one
(the loop variable differs, so the elements do). The scan is syntactic and
conservative: a write it cannot place is a conflict.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# methods of an array that do not write to it
PURE_METHODS = {
    "copy", "astype", "sum", "mean", "max", "min", "argmax", "argmin", "reshape", "ravel",
    "flatten", "transpose", "any", "all", "prod", "std", "var", "dot", "cumsum", "item",
    "tolist", "clip", "round", "nonzero", "swapaxes", "squeeze",
}  # fmt: skip
# builtins that do not write to the arrays they are given
PURE_BUILTINS = {
    "len", "range", "float", "int", "bool", "abs", "sum", "min", "max", "print", "enumerate",
    "zip", "round", "isinstance", "tuple", "list", "sorted", "reversed", "any", "all",
}  # fmt: skip


@dataclass(frozen=True)
class Source:
    """A name whose elements a copy holds: `sub` the subscript it was taken with (None: all of
    it, or not known), `loop` the `for` statement whose variable `sub` is indexed by."""

    name: str
    sub: ast.expr | None = None
    loop: ast.For | None = None


def root_name(node: ast.expr) -> str | None:
    """The name an expression of subscripts and attributes starts from (`y` of `y[:, j].T`)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def enclosing_loop(body: list[ast.stmt], stmt: ast.stmt) -> ast.stmt | None:
    """The innermost `for` or `while` statement around `stmt` (None: none, or not found)."""
    path = _path(body, stmt)
    for _, _, owner in reversed(path or []):
        if isinstance(owner, (ast.For, ast.While)):
            return owner
    return None


def _path(body: list[ast.stmt], stmt: ast.stmt) -> list[tuple[list[ast.stmt], int, ast.stmt | None]] | None:
    """The blocks from `body` down to `stmt`: (block, index in it, the statement owning it)."""
    for i, s in enumerate(body):
        if s is stmt:
            return [(body, i, None)]
        for block in _blocks(s):
            inner = _path(block, stmt)
            if inner is not None:
                inner[0] = (inner[0][0], inner[0][1], s)
                return [(body, i, None), *inner]
    return None


def _blocks(s: ast.stmt) -> list[list[ast.stmt]]:
    if isinstance(s, (ast.For, ast.While, ast.If)):
        return [s.body, s.orelse]
    return []


def copy_conflict(body: list[ast.stmt], stmt: ast.stmt, name: str, sources: list[Source]) -> str | None:
    """Why `name` (bound at `stmt` to a copy of `sources`) cannot hold a copy, or None.

    Scans what runs after `stmt` until `name` is bound again: first the rest of
    its block, then, in a loop, the loop body from its start (the next
    iteration), then the same one level further out.
    """
    path = _path(body, stmt)
    if path is None:
        return "the statement could not be placed in the function"
    live: dict[str, list[Source]] = {name: []}
    for src in sources:
        live.setdefault(src.name, []).append(src)
    copies = {name}  # names that hold the copy (the name, and names bound to it after)
    levels = list(reversed(path))
    for depth, (block, i, owner) in enumerate(levels):
        why = _scan(block[i + 1 :], live, copies, None)
        if why is not None or not copies:
            return why
        if isinstance(owner, (ast.For, ast.While)):
            if depth == 0:  # the next iteration, up to the binding itself (which binds the name again)
                return _scan(block[:i], live, copies, owner if isinstance(owner, ast.For) else None)
            why = _scan(block[: i + 1], live, copies, None)
            if why is not None or not copies:
                return why
    return None


def _scan(
    stmts: list[ast.stmt], live: dict[str, list[Source]], copies: set[str], later: ast.For | None
) -> str | None:
    """The first write in `stmts` to a live name (None: none). `later` is the loop whose next
    iteration `stmts` are (where a write at the copy's own subscript touches other elements)."""
    for s in stmts:
        for root, sub, node in _writes(s, set(live)):
            if all(_disjoint(src, sub, later) for src in live[root]) and live[root] and root not in copies:
                continue
            return f"line {getattr(node, 'lineno', s.lineno)} writes to {root} in place"
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            value = s.value
            bound = [t.id for t in targets if isinstance(t, ast.Name)]
            bound += [
                e.id for t in targets if isinstance(t, ast.Tuple) for e in t.elts if isinstance(e, ast.Name)
            ]
            aliased = value is not None and _aliases(value, live)
            for b in bound:
                live.pop(b, None)
                copies.discard(b)
                if aliased is not None:  # `m = name[...]`: m refers to the same elements
                    live[b] = []
                    if aliased in copies:
                        copies.add(b)
            if not copies:
                return None
    return None


def _aliases(value: ast.expr, live: dict[str, list[Source]]) -> str | None:
    """The live name `value` refers to the elements of (a name, a slice of it, its .T)."""
    if isinstance(value, (ast.Name, ast.Subscript, ast.Attribute)):
        r = root_name(value)
        if r in live and not (isinstance(value, ast.Attribute) and value.attr not in ("T",)):
            return r
    return None


def _writes(s: ast.stmt, names: set[str]) -> list[tuple[str, ast.expr | None, ast.AST]]:
    """In-place writes in `s` to `names`: (name, subscript written or None, node)."""
    out: list[tuple[str, ast.expr | None, ast.AST]] = []

    def target(t: ast.expr, node: ast.AST, aug: bool) -> None:
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e, node, aug)
            return
        if isinstance(t, ast.Starred):
            target(t.value, node, aug)
            return
        if isinstance(t, ast.Name):
            if aug and t.id in names:
                out.append((t.id, None, node))
            return
        r = root_name(t)
        if r in names:
            sub = t.slice if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) else None
            out.append((r, sub, node))

    for node in ast.walk(s):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                target(t, node, False)
        elif isinstance(node, ast.AnnAssign):
            target(node.target, node, False)
        elif isinstance(node, ast.AugAssign):
            target(node.target, node, True)
        elif isinstance(node, ast.For):
            target(node.target, node, False)
        elif isinstance(node, ast.Call):
            f = node.func
            args = [*node.args, *(k.value for k in node.keywords)]
            if isinstance(f, ast.Attribute):
                r = root_name(f.value)
                if r in names and f.attr not in PURE_METHODS:
                    out.append((r, None, node))
                if f.attr == "copyto" and node.args:
                    r = root_name(node.args[0])
                    if r in names:
                        out.append((r, None, node))
                for k in node.keywords:
                    r = root_name(k.value) if k.arg == "out" else None
                    if r in names:
                        out.append((r, None, node))
            elif isinstance(f, ast.Name) and f.id not in PURE_BUILTINS:
                for a in args:  # a function of the app's may write to an array it is given
                    r = root_name(a)
                    if r in names:
                        out.append((r, None, node))
    return out


def _disjoint(src: Source, sub: ast.expr | None, later: ast.For | None) -> bool:
    """True when a write at `sub` in a later iteration of `later` misses the elements `src` holds."""
    if later is None or src.loop is not later or src.sub is None or sub is None:
        return False
    if ast.dump(src.sub) != ast.dump(sub):
        return False
    loop = later
    if not (
        isinstance(loop.target, ast.Name)
        and isinstance(loop.iter, ast.Call)
        and isinstance(loop.iter.func, ast.Name)
        and loop.iter.func.id == "range"
    ):
        return False
    var = loop.target.id
    parts = sub.elts if isinstance(sub, ast.Tuple) else [sub]
    if not any(isinstance(p, ast.Name) and p.id == var for p in parts):
        return False
    assigned = {
        n.id
        for st in loop.body
        for n in ast.walk(st)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    used = {n.id for n in ast.walk(sub) if isinstance(n, ast.Name)}
    return not (used & assigned)
