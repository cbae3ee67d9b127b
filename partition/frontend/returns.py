"""Early `return`s rewritten into one final return, before lowering.

Hardware has one exit, so a body such as

    for i in range(n):
        if x[i] > t:
            return i
    return -1

becomes (in Python, with the same meaning)

    __ret_done = False
    for i in range(n):
        if x[i] > t:
            __ret_value = i
            __ret_done = True
            break
    if not __ret_done:
        __ret_value = -1
        __ret_done = True
    return __ret_value

A `return` inside loops leaves every enclosing loop (a `break`, then a check of
the flag after each inner loop), and the statements after anything that may
have returned run only while the flag is down. Only scalar values (or tuples
of scalars) may be returned early; returning arrays from several places keeps
the function on the CPU.
"""

from __future__ import annotations

import ast
import copy

DONE = "__ret_done"
VALUE = "__ret_value"


class EarlyReturnError(Exception):
    def __init__(self, line: int, construct: str):
        super().__init__(construct)
        self.line = line
        self.construct = construct


def _has_return(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def needs_rewrite(body: list[ast.stmt]) -> bool:
    """True when a `return` appears anywhere but as the body's last statement."""
    for k, s in enumerate(body):
        last = k == len(body) - 1
        if isinstance(s, ast.Return) and last:
            continue
        if _has_return(s):
            return True
    return False


def _value_targets(node: ast.Return) -> tuple[list[str], list[ast.expr]]:
    v = node.value
    if v is None or (isinstance(v, ast.Constant) and v.value is None):
        return [], []
    items = v.elts if isinstance(v, ast.Tuple) else [v]
    if isinstance(v, ast.Tuple):
        return [f"{VALUE}{k}" for k in range(len(items))], list(items)
    return [VALUE], items


def _loc(node: ast.AST, like: ast.AST) -> ast.AST:
    return ast.copy_location(node, like)


def _assign(name: str, value: ast.expr, like: ast.AST) -> ast.stmt:
    a = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value)
    return ast.fix_missing_locations(_loc(a, like))


def _flag_down(like: ast.AST) -> ast.expr:
    return _loc(ast.UnaryOp(op=ast.Not(), operand=_loc(ast.Name(id=DONE, ctx=ast.Load()), like)), like)


class _Rewriter:
    def __init__(self) -> None:
        self.shape: tuple[str, int] | None = None  # ("none"|"scalar"|"tuple", arity)

    def check_shape(self, node: ast.Return) -> list[str]:
        names, values = _value_targets(node)
        v = node.value
        kind = "none" if not names else ("tuple" if isinstance(v, ast.Tuple) else "scalar")
        shape = (kind, len(values))
        if self.shape is None:
            self.shape = shape
        elif self.shape != shape:
            raise EarlyReturnError(
                node.lineno, "returns of different shapes (a value here, none or a tuple elsewhere)"
            )
        return names

    def block(self, body: list[ast.stmt], in_loop: bool) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for k, s in enumerate(body):
            rest = body[k + 1 :]
            new = self.stmt(s, in_loop)
            out.extend(new)
            if _has_return(s) and rest:
                guarded = self.block(rest, in_loop)
                out.append(_loc(ast.If(test=_flag_down(s), body=guarded, orelse=[]), rest[0]))
                return out
        return out

    def stmt(self, s: ast.stmt, in_loop: bool) -> list[ast.stmt]:
        if isinstance(s, ast.Return):
            names = self.check_shape(s)
            _, values = _value_targets(s)
            out = [_assign(n, copy.deepcopy(v), s) for n, v in zip(names, values)]
            out.append(_assign(DONE, _loc(ast.Constant(True), s), s))
            if in_loop:
                out.append(_loc(ast.Break(), s))
            return out
        if not _has_return(s):
            return [s]
        if isinstance(s, ast.If):
            s = copy.copy(s)
            s.body = self.block(s.body, in_loop) or [_loc(ast.Pass(), s)]
            s.orelse = self.block(s.orelse, in_loop)
            return [s]
        if isinstance(s, (ast.For, ast.While)):
            s = copy.copy(s)
            s.body = self.block(s.body, True)  # a return leaves by `break`, which skips the else clause too
            s.orelse = self.block(s.orelse, in_loop)  # the else clause runs after the loop, outside it
            out: list[ast.stmt] = [s]
            if in_loop:  # leave the enclosing loop too
                out.append(
                    _loc(
                        ast.If(
                            test=_loc(ast.Name(id=DONE, ctx=ast.Load()), s),
                            body=[_loc(ast.Break(), s)],
                            orelse=[],
                        ),
                        s,
                    )
                )
            return out
        raise EarlyReturnError(s.lineno, f"return inside a {type(s).__name__.lower()} statement")


def rewrite_returns(body: list[ast.stmt]) -> list[ast.stmt]:
    """The body with a single final return (unchanged when it already has at most one)."""
    if not needs_rewrite(body):
        return body
    rw = _Rewriter()
    first = body[0]
    new = [_assign(DONE, _loc(ast.Constant(False), first), first)]
    new += rw.block(body, in_loop=False)
    last = body[-1]
    kind, arity = rw.shape or ("none", 0)
    if not isinstance(last, ast.Return) and kind != "none":
        raise EarlyReturnError(
            last.lineno, "a path that ends without returning a value, beside paths that return one"
        )
    if kind == "scalar":
        value: ast.expr | None = ast.Name(id=VALUE, ctx=ast.Load())
    elif kind == "tuple":
        value = ast.Tuple(
            elts=[ast.Name(id=f"{VALUE}{k}", ctx=ast.Load()) for k in range(arity)], ctx=ast.Load()
        )
    else:
        value = None
    ret = ast.Return(value=value)
    new.append(ast.fix_missing_locations(_loc(ret, last)))
    for n in new:
        ast.fix_missing_locations(n)
    return new
