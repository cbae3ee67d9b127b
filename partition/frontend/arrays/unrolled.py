"""`sum(<array expression> for a in (...) for b in (...) if ...)` over constant displays.

Python's `sum` adds the generated arrays to its start value 0 in order:
`0 + e1 + e2 + ...`. When every `for` of the generator runs over a tuple or
list display of constants (or `range` of constants) and every condition is
constant once the loop variables are, the generator is spelled out: the sum
becomes that chain of additions with the loop variables replaced by their
values (so `np.roll(board, dy, axis=0)` gets its constant shift). Anything
else is left to the scalar path, which says what it does not take.
"""

from __future__ import annotations

import ast
import copy
import itertools
from typing import Any

MAX_TERMS = 64  # a longer sum is a loop, not a chain of additions


def unrolled_sum(node: ast.Call) -> ast.expr | None:
    """The addition chain `sum(genexp)` spells out to (None: not such a sum)."""
    if not (
        isinstance(node.func, ast.Name)
        and node.func.id == "sum"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.GeneratorExp)
    ):
        return None
    gen = node.args[0]
    envs: list[dict[str, Any]] = [{}]
    for comp in gen.generators:
        if comp.is_async:
            return None
        values = _constant_items(comp.iter)
        if values is None:
            return None
        nxt = []
        for env, v in itertools.product(envs, values):
            bound = _bind(comp.target, v)
            if bound is None:
                return None
            env2 = {**env, **bound}
            ok = True
            for cond in comp.ifs:
                c = _evaluate(_substitute(cond, env2))
                if c is _NO:
                    return None
                ok = ok and bool(c)
            if ok:
                nxt.append(env2)
        envs = nxt
        if len(envs) > MAX_TERMS:
            return None
    out: ast.expr = ast.Constant(0)
    for env in envs:
        out = ast.BinOp(out, ast.Add(), _substitute(gen.elt, env))
    return ast.fix_missing_locations(ast.copy_location(out, node))


_NO = object()


def _constant_items(it: ast.expr) -> list[Any] | None:
    if isinstance(it, (ast.Tuple, ast.List)):
        out = [_evaluate(e) for e in it.elts]
        return None if any(v is _NO for v in out) else out
    if (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id == "range"
        and not it.keywords
    ):
        args = [_evaluate(a) for a in it.args]
        if not 1 <= len(args) <= 3 or any(type(a) is not int for a in args):
            return None
        r = range(*args)
        return list(r) if len(r) <= MAX_TERMS else None
    return None


def _bind(target: ast.expr, v: Any) -> dict[str, Any] | None:
    if isinstance(target, ast.Name):
        return {target.id: v}
    if isinstance(target, ast.Tuple) and isinstance(v, tuple) and len(v) == len(target.elts):
        out: dict[str, Any] = {}
        for t, x in zip(target.elts, v):
            b = _bind(t, x)
            if b is None:
                return None
            out.update(b)
        return out
    return None


def _substitute(node: ast.expr, env: dict[str, Any]) -> ast.expr:
    """`node` with the loop variables in `env` replaced by constants (a copy)."""

    class Sub(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name) -> ast.AST:
            if isinstance(n.ctx, ast.Load) and n.id in env:
                return ast.copy_location(_literal(env[n.id]), n)
            return n

        def visit_Lambda(self, n: ast.Lambda) -> ast.AST:
            return n  # its own names

    return ast.fix_missing_locations(Sub().visit(copy.deepcopy(node)))


def _literal(v: Any) -> ast.expr:
    if isinstance(v, tuple):
        return ast.Tuple([_literal(x) for x in v], ast.Load())
    if isinstance(v, (int, float)) and v < 0 and not isinstance(v, bool):
        return ast.UnaryOp(ast.USub(), ast.Constant(-v))
    return ast.Constant(v)


_SAFE = (
    ast.Expression, ast.Constant, ast.Tuple, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp,
    ast.cmpop, ast.boolop, ast.unaryop, ast.operator, ast.Load,
)  # fmt: skip


def _evaluate(node: ast.expr) -> Any:
    """The value of a constant expression (numbers, tuples, arithmetic, comparisons), else _NO."""
    tree = ast.Expression(node)
    if not all(isinstance(n, _SAFE) and not isinstance(n, (ast.Pow, ast.LShift)) for n in ast.walk(tree)):
        return _NO  # (no powers or shifts: a constant that large is not worth computing here)
    try:
        v = eval(compile(ast.fix_missing_locations(tree), "<constant>", "eval"), {"__builtins__": {}}, {})
    except Exception:  # numbers Python refuses to combine: not a constant here
        return _NO
    return v if isinstance(v, (bool, int, float, tuple)) else _NO
