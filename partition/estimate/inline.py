"""Elementwise temporaries computed again where they are read (`inline_maps`).

`x = img.astype(np.int32)` followed by a stencil over `x` buffers `x` whole; reading
`img` through the cast instead lets the stencil tile `img` (`partition.estimate.tiling`).
"""

from __future__ import annotations

import dataclasses

from partition import ir
from partition.estimate.windows import accesses

# operations cheap enough to compute again at every use of an inlined temporary (no DSP, no
# divider, a LUT level or two): what `x = img.astype(np.int32)` and its kin are made of
_CHEAP = frozenset(
    ("add", "sub", "and", "or", "xor", "shl", "shr", "min", "max", "neg", "invert", "not", "abs")
)


def inline_maps(kernel: ir.Kernel) -> ir.Kernel:
    """`kernel` with each elementwise temporary computed again where it is read.

    A local array written by one top-level nest over its whole shape (`for i: for j:
    x[i, j] = f(a[i, j])`, a NumPy `astype` or cheap expression of arrays nothing stores
    into) and read only after it holds at every element what f gives there, so a read of
    x[p, q] is f(a[p, q]): the nest and the array go, and a loop reading x with a window of
    rows can tile `a` instead of buffering x whole."""
    stored = {s.array for s in ir.walk_stmts(kernel.body) if isinstance(s, ir.Store)}
    assigned = {s.var for s in ir.walk_stmts(kernel.body) if isinstance(s, (ir.Assign, ir.For))}
    body = list(kernel.body)
    gone: set[str] = set()
    for a in kernel.locals:
        if a.init is not None:
            continue
        found = _map_def(body, a, stored, assigned)
        if found is None:
            continue
        pos, loop_vars, value = found
        if any(a.name in {x[0] for x in accesses([st])} for st in body[:pos]):
            continue  # read before the nest writes it

        def fn(e: ir.Expr, a=a, loop_vars=loop_vars, value=value) -> ir.Expr:
            if isinstance(e, ir.Load) and e.array == a.name:
                env = dict(zip(loop_vars, e.index))
                return ir.map_expr(value, lambda v: env.get(v.name, v) if isinstance(v, ir.Var) else v)
            return e

        body = body[:pos] + ir.map_stmts(body[pos + 1 :], fn)
        gone.add(a.name)
    if not gone:
        return kernel
    return dataclasses.replace(kernel, body=body, locals=[a for a in kernel.locals if a.name not in gone])


def _map_def(
    body: list[ir.Stmt], a: ir.LocalArray, stored: set[str], assigned: set[str]
) -> tuple[int, list[str], ir.Expr] | None:
    """(position, loop variables, value) of the one top-level nest that writes every element of
    `a` from arrays nothing stores into, when there is exactly that nest and no other store."""
    stores = [s for s in ir.walk_stmts(body) if isinstance(s, ir.Store) and s.array == a.name]
    if len(stores) != 1:
        return None
    for pos, top in enumerate(body):
        s: ir.Stmt = top
        loop_vars: list[str] = []
        for dim in a.shape:
            if not (
                isinstance(s, ir.For)
                and s.step == 1
                and isinstance(s.start, ir.Const)
                and int(s.start.value) == 0
                and isinstance(s.stop, ir.Const)
                and int(s.stop.value) == dim
                and len(s.body) == 1
            ):
                break
            loop_vars.append(s.var)
            s = s.body[0]
        else:
            if not (
                isinstance(s, ir.Store)
                and s is stores[0]
                and s.index == tuple(ir.Var(v, i.dtype) for v, i in zip(loop_vars, s.index))
            ):
                return None
            for e in ir.walk_expr(s.value):
                if isinstance(e, ir.Load) and (e.array in stored or e.array == a.name):
                    return None
                if isinstance(e, ir.Var) and e.name not in loop_vars and e.name in assigned:
                    return None
                if (isinstance(e, (ir.Bin, ir.Un)) and e.op not in _CHEAP) or isinstance(e, ir.Math):
                    return None
            return pos, loop_vars, s.value
    return None
