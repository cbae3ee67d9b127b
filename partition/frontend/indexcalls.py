"""Names bound to np.triu_indices/np.tril_indices, replaced by the call where they index.

`iu = np.triu_indices(n, k=1)` binds a tuple of two index arrays, and `r2[iu]` gathers the
upper triangle of r2. A kernel has no tuple values, but when the name is bound once, by that
call alone, and is used only as a whole index (`x[iu]`), the program means `x[np.triu_indices
(n, k=1)]` at each use: the call is pure, so the rewrite moves it to its uses (the binding
goes), provided the names its arguments read are bound only once before it (so they mean
the same at each use). The array lowering then takes `x[np.triu_indices(...)]` as one gather.
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from collections.abc import Callable

TRIANGLES = ("triu_indices", "tril_indices")


def inline_index_calls(body: list[ast.stmt], numpy_attr: Callable[[ast.expr], str | None]) -> list[ast.stmt]:
    """`body` with every name bound (at its top level) to a triangle-indices call and used only
    as a whole index replaced by the call there, and its binding dropped."""
    stores: Counter[str] = Counter(
        n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    )
    out = list(body)
    for pos, s in enumerate(body):
        if not (
            isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
            and isinstance(s.value, ast.Call)
            and numpy_attr(s.value.func) in TRIANGLES
            and stores[s.targets[0].id] == 1
        ):
            continue
        name, call = s.targets[0].id, s.value
        reads = {n.id for n in ast.walk(call) if isinstance(n, ast.Name)}
        if any(stores[r] > 1 for r in reads):
            continue
        rest = body[pos + 1 :]
        uses = [n for t in rest for n in ast.walk(t) if isinstance(n, ast.Name) and n.id == name]
        index_uses = [
            n for t in rest for n in ast.walk(t) if isinstance(n, ast.Subscript) and _is_name(n.slice, name)
        ]
        if not uses or len(uses) != len(index_uses):
            continue
        new_rest = [_Substitute(name, call).visit(copy.deepcopy(t)) for t in rest]
        out = [*body[:pos], *new_rest]
        return inline_index_calls(out, numpy_attr)  # one at a time: positions moved
    return out


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


class _Substitute(ast.NodeTransformer):
    def __init__(self, name: str, call: ast.Call):
        self.name, self.call = name, call

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        if _is_name(node.slice, self.name):
            node.slice = ast.copy_location(copy.deepcopy(self.call), node.slice)
        return node
