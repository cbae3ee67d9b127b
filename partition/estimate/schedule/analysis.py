"""What the schedule reads off the IR before placing anything: affine indices and jumps.

Array indices as affine forms in a loop variable (`flat_affine`: the schedule's port banks
and RAW distances, and the variants' cyclic partitioning, ask it), whether statements
contain loops or break/continue (`contains_loop`, `has_jumps`: which loops pipeline, for
the schedule and the variants alike). Pure functions of the IR, apart from the
scheduling state that uses them; the widths synthesis keeps are `schedule.widths`.
"""

from __future__ import annotations

from collections import defaultdict

from partition import ir
from partition.dtypes import DType

# an affine form: coef * loop variable + offset + ((symbol, coefficient), ...)
Affine = tuple[int, int, tuple]


def dtype_bits(dt: DType) -> int:
    return 1 if dt.is_bool else dt.bits


def contains_loop(stmts: list[ir.Stmt]) -> bool:
    return any(isinstance(s, ir.For) for s in ir.walk_stmts(stmts))


def has_jumps(stmts: list[ir.Stmt], kinds: tuple[type, ...] = (ir.Break, ir.Continue)) -> bool:
    """A break or continue (or only the `kinds` given) among these statements, not inside a
    nested loop: one that acts on the loop these statements are the body of."""
    for s in stmts:
        if isinstance(s, kinds):
            return True
        if isinstance(s, ir.If) and (has_jumps(s.then, kinds) or has_jumps(s.orelse, kinds)):
            return True
    return False


# ------------------------------------------------------- affine indices


def _affine(e: ir.Expr, loop_var: str | None) -> Affine | None:
    """e as coef * loop_var + offset + (symbolic terms), or None when not affine."""
    if isinstance(e, ir.Const):
        if isinstance(e.value, bool) or not isinstance(e.value, int):
            return None
        return (0, int(e.value), ())
    if isinstance(e, ir.Var):
        if e.name == loop_var:
            return (1, 0, ())
        return (0, 0, ((e.name, 1),))
    if isinstance(e, ir.Cast) and e.dtype.is_int and e.operand.dtype.is_int:
        return _affine(e.operand, loop_var)
    if isinstance(e, ir.Un) and e.op == "neg":
        a = _affine(e.operand, loop_var)
        return None if a is None else _scale(a, -1)
    if isinstance(e, ir.Bin) and e.op in ("add", "sub"):
        a, b = _affine(e.lhs, loop_var), _affine(e.rhs, loop_var)
        if a is None or b is None:
            return None
        if e.op == "sub":
            b = _scale(b, -1)
        return _add(a, b)
    if isinstance(e, ir.Bin) and e.op == "mul":
        for x, y in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if isinstance(y, ir.Const) and isinstance(y.value, int) and not isinstance(y.value, bool):
                a = _affine(x, loop_var)
                return None if a is None else _scale(a, int(y.value))
    return None


def _scale(a: Affine, k: int) -> Affine:
    return (a[0] * k, a[1] * k, tuple((n, c * k) for n, c in a[2]))


def _add(a: Affine, b: Affine) -> Affine:
    terms: dict[str, int] = defaultdict(int)
    for n, c in a[2] + b[2]:
        terms[n] += c
    return (a[0] + b[0], a[1] + b[1], tuple(sorted((n, c) for n, c in terms.items() if c)))


def flat_affine(index: tuple[ir.Expr, ...], shape: tuple[int, ...], loop_var: str | None) -> Affine | None:
    """The row-major flat index of `index` as an affine form in `loop_var`, or None when it is not affine.

    The schedule (memory ports, RAW distances) and the variants (cyclic
    partitioning needs a uniform stride) both ask this of array accesses.
    """
    total: Affine = (0, 0, ())
    stride = 1
    for e, dim in zip(reversed(index), reversed(shape or (1,))):
        a = _affine(e, loop_var)
        if a is None:
            return None
        total = _add(total, _scale(a, stride))
        stride *= dim
    return total


def distinct(a: Affine | None, b: Affine | None) -> bool:
    """Provably different addresses within one iteration (same symbols, different offset)."""
    return a is not None and b is not None and a[0] == b[0] and a[2] == b[2] and a[1] != b[1]
