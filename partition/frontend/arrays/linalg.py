"""np.linalg.solve, np.linalg.inv and np.linalg.cholesky of small constant-size matrices.

numpy calls LAPACK: gesv (LU factorisation with partial pivoting, then the two triangular
solves) for solve and for inv (the solve of A X = I), and potrf (the lower Cholesky factor,
column by column) for cholesky. The kernel runs the same textbook loop nests in the same
order of pivots, so its results agree with numpy's within the float tolerance (not bit for
bit: LAPACK blocks and scales by reciprocals). Where numpy raises LinAlgError (an exactly
zero pivot: a singular matrix; a non-positive or NaN diagonal in cholesky: not positive
definite) the kernel sets its fallback status, and the call runs on the CPU, where numpy
raises as it would have. A NaN pivot or diagonal also falls back (numpy then gives NaNs,
but which ones is LAPACK's choice among NaN pivots): the CPU computes numpy's own.

Integer and bool matrices are solved in float64 as numpy converts them; float32 ones in
float32 (numpy's single-precision LAPACK routines).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from partition import ir
from partition.dtypes import DTYPES, FLOAT64, INT64, UINT8, DType, narrowest_signed
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import AV, Ix, View, has_dyn
from partition.frontend.model import Reject, cast, const
from partition.frontend.syntax import text

LINALG_SOLVERS = ("solve", "inv", "cholesky")
FLOAT32 = DTYPES["float32"]


class LinalgSolvers:
    """np.linalg.solve/inv/cholesky as loop nests (part of `ArrayLowering`)."""

    lw: ScalarLowering

    def linalg_name(self, node: ast.Call) -> str | None:
        """'solve' for np.linalg.solve (and inv, cholesky), None for other calls."""
        f = node.func
        if (
            isinstance(f, ast.Attribute)
            and f.attr in LINALG_SOLVERS
            and isinstance(f.value, ast.Attribute)
            and self.lw.numpy_attr(f.value) == "linalg"
        ):
            return f.attr
        return None

    def linalg_rank(self, node: ast.Call) -> int | None:
        name = self.linalg_name(node)
        if name is None or not node.args:
            return None
        if name == "solve" and len(node.args) == 2:
            return self.rank_of(node.args[1])
        return 2

    def linalg_call(self, node: ast.Call) -> AV | None:
        name = self.linalg_name(node)
        if name is None:
            return None
        line = node.lineno
        arity = 2 if name == "solve" else 1
        if len(node.args) != arity or node.keywords:
            raise Reject(
                line, f"{text(node)}: np.linalg.{name} takes {arity} array argument(s) (no keywords)"
            )
        ops = [self.av(x) for x in node.args]
        a = ops[0]
        if len(a.shape) != 2 or a.shape[0] != a.shape[1] or has_dyn(a.shape) or a.shape[0] == 0:
            raise Reject(line, f"{text(node)}: np.linalg.{name} of a square matrix of constant size is taken")
        n = a.shape[0]
        if n > 64:
            raise Reject(
                line, f"{text(node)}: np.linalg.{name} of a {n}x{n} matrix (small matrices, up to 64x64)"
            )
        rdt = _solve_dtype(ops, line, name)
        if name == "cholesky":
            return self.produced((n, n), rdt, lambda t: self.cholesky_fill(a, t, rdt, line), line)
        if name == "inv":
            return self.produced((n, n), rdt, lambda t: self.gesv_fill(a, None, t, rdt, line), line)
        b = ops[1]
        if len(b.shape) not in (1, 2) or b.shape[0] != n or has_dyn(b.shape):
            raise Reject(
                line,
                f"{text(node)}: np.linalg.solve of a {n}x{n} matrix and a b of shape {b.shape} is not taken",
            )
        return self.produced(b.shape, rdt, lambda t: self.gesv_fill(a, b, t, rdt, line), line)

    def _loop(self, start: ir.Expr, stop: int, line: int, body: Callable[[ir.Var], list[ir.Stmt]]) -> ir.For:
        """for v in range(start, stop): body(v) (start a run-time value, stop a constant)."""
        lw = self.lw
        lw.r.temp_counter += 1
        lw.r.loop_counter += 1
        dt = narrowest_signed(0, stop) or INT64
        v = ir.Var(lw.irname(f"__i{lw.r.temp_counter}"), dt)
        label = f"L{lw.r.loop_counter}"  # taken before the body's loops take theirs
        return ir.For(v.name, cast(start, dt), const(stop, dt), 1, body(v), stop, line, label)

    def _fail(self, cond: ir.Expr, line: int) -> ir.If:
        return ir.If(cond, [ir.Assign(self.lw.status_name(), const(1, UINT8), line)], [], line)

    def gesv_fill(self, a: AV, b: AV | None, target: View, rdt: DType, line: int) -> list[ir.Stmt]:
        """LU with partial pivoting of a copy of `a`, applied to `target` (b, or the identity for
        inv), then the back substitution: target holds the solution."""
        n = a.shape[0]
        idt = narrowest_signed(-1, n) or INT64
        m = self.temp_view(rdt, (n, n))
        k = n if b is None else (b.shape[1] if len(b.shape) == 2 else 1)
        vec = b is not None and len(b.shape) == 1
        target.base.stored = True

        def ix(e: ir.Expr) -> Ix:
            return Ix(cast(e, idt), 0, n - 1)

        def cols(j: ir.Expr) -> Ix:
            return Ix(cast(j, idt), 0, k - 1)

        def mld(i: ir.Expr, j: ir.Expr) -> ir.Expr:
            return self.view_av(m).at((ix(i), ix(j))).e

        def mst(i: ir.Expr, j: ir.Expr, e: ir.Expr) -> ir.Stmt:
            return ir.Store(m.base.name, m.index((ix(i), ix(j))), e, line)

        def xat(i: ir.Expr, j: ir.Expr) -> tuple[Ix, ...]:
            return (ix(i),) if vec else (ix(i), cols(j))

        def xld(i: ir.Expr, j: ir.Expr) -> ir.Expr:
            return self.view_av(target).at(xat(i, j)).e

        def xst(i: ir.Expr, j: ir.Expr, e: ir.Expr) -> ir.Stmt:
            return ir.Store(target.base.name, target.index(xat(i, j)), e, line)

        zero, one = const(0, rdt), const(1, rdt)
        stmts = self.loop_nest((n, n), line, lambda i: [mst(i[0].e, i[1].e, cast(a.at(i).e, rdt))])
        if b is None:
            stmts += self.loop_nest(
                (n, n),
                line,
                lambda i: [xst(i[0].e, i[1].e, ir.Select(ir.Cmp("eq", i[0].e, i[1].e), one, zero, rdt))],
            )
        else:
            stmts += self.loop_nest(
                b.shape,
                line,
                lambda i: [ir.Store(target.base.name, target.index(i), cast(b.at(i).e, rdt), line)],
            )
        best = self.scalar_temp("best", rdt)
        piv = self.scalar_temp("piv", idt)
        factor = self.scalar_temp("f", rdt)
        tmp = self.scalar_temp("t", rdt)

        def column(c: ir.Var) -> list[ir.Stmt]:
            def search(r: ir.Var) -> list[ir.Stmt]:
                v = ir.Un("abs", mld(r, c), rdt)
                return [
                    ir.If(
                        ir.Cmp("gt", v, best),
                        [ir.Assign(best.name, v, line), ir.Assign(piv.name, cast(r, idt), line)],
                        [],
                        line,
                    )
                ]

            def swap_m(j: ir.Var) -> list[ir.Stmt]:
                return [ir.Assign(tmp.name, mld(c, j), line), mst(c, j, mld(piv, j)), mst(piv, j, tmp)]

            def swap_x(j: ir.Var) -> list[ir.Stmt]:
                return [ir.Assign(tmp.name, xld(c, j), line), xst(c, j, xld(piv, j)), xst(piv, j, tmp)]

            def eliminate(r: ir.Var) -> list[ir.Stmt]:
                def row_m(j: ir.Var) -> list[ir.Stmt]:
                    return [mst(r, j, ir.Bin("sub", mld(r, j), ir.Bin("mul", factor, mld(c, j), rdt), rdt))]

                def row_x(j: ir.Var) -> list[ir.Stmt]:
                    return [xst(r, j, ir.Bin("sub", xld(r, j), ir.Bin("mul", factor, xld(c, j), rdt), rdt))]

                return [
                    ir.Assign(factor.name, ir.Bin("div", mld(r, c), mld(c, c), rdt), line),
                    self._loop(ir.Bin("add", c, const(1, c.dtype), c.dtype), n, line, row_m),
                    self._loop(const(0, idt), k, line, row_x),
                ]

            nxt = ir.Bin("add", c, const(1, c.dtype), c.dtype)
            return [
                ir.Assign(best.name, ir.Un("abs", mld(c, c), rdt), line),
                ir.Assign(piv.name, cast(c, idt), line),
                self._loop(nxt, n, line, search),
                # numpy raises LinAlgError for an exactly zero pivot; a NaN one is LAPACK's choice
                self._fail(ir.Logic("lor", ir.Cmp("eq", best, zero), ir.Cmp("ne", best, best)), line),
                ir.If(
                    ir.Cmp("ne", piv, cast(c, idt)),
                    [self._loop(const(0, idt), n, line, swap_m), self._loop(const(0, idt), k, line, swap_x)],
                    [],
                    line,
                ),
                self._loop(nxt, n, line, eliminate),
            ]

        stmts.append(self._loop(const(0, idt), n, line, column))
        acc = self.scalar_temp("acc", rdt)

        def back(i: ir.Var) -> list[ir.Stmt]:
            c = ir.Bin("sub", const(n - 1, idt), cast(i, idt), idt)  # rows from the last up

            def col(j: ir.Var) -> list[ir.Stmt]:
                def sub(t: ir.Var) -> list[ir.Stmt]:
                    return [
                        ir.Assign(
                            acc.name, ir.Bin("sub", acc, ir.Bin("mul", mld(c, t), xld(t, j), rdt), rdt), line
                        )
                    ]

                return [
                    ir.Assign(acc.name, xld(c, j), line),
                    self._loop(ir.Bin("add", c, const(1, idt), idt), n, line, sub),
                    xst(c, j, ir.Bin("div", acc, mld(c, c), rdt)),
                ]

            return [self._loop(const(0, idt), k, line, col)]

        stmts.append(self._loop(const(0, idt), n, line, back))
        m.base.stored = True
        return stmts

    def cholesky_fill(self, a: AV, target: View, rdt: DType, line: int) -> list[ir.Stmt]:
        """The lower Cholesky factor into `target` (zeros above the diagonal), column by column
        from a's lower triangle as LAPACK's potrf reads it; a diagonal that is not > 0 falls back."""
        n = a.shape[0]
        idt = narrowest_signed(-1, n) or INT64
        target.base.stored = True
        zero = const(0, rdt)

        def ix(e: ir.Expr) -> Ix:
            return Ix(cast(e, idt), 0, n - 1)

        def ld(i: ir.Expr, j: ir.Expr) -> ir.Expr:
            return self.view_av(target).at((ix(i), ix(j))).e

        def st(i: ir.Expr, j: ir.Expr, e: ir.Expr) -> ir.Stmt:
            return ir.Store(target.base.name, target.index((ix(i), ix(j))), e, line)

        stmts = self.loop_nest(
            (n, n),
            line,
            lambda i: [
                st(i[0].e, i[1].e, ir.Select(ir.Cmp("ge", i[0].e, i[1].e), cast(a.at(i).e, rdt), zero, rdt))
            ],
        )
        acc = self.scalar_temp("acc", rdt)
        diag = self.scalar_temp("d", rdt)

        def column(j: ir.Var) -> list[ir.Stmt]:
            def square(t: ir.Var) -> list[ir.Stmt]:
                x = ld(j, t)
                return [ir.Assign(acc.name, ir.Bin("sub", acc, ir.Bin("mul", x, x, rdt), rdt), line)]

            def below(i: ir.Var) -> list[ir.Stmt]:
                def dot(t: ir.Var) -> list[ir.Stmt]:
                    return [
                        ir.Assign(
                            acc.name, ir.Bin("sub", acc, ir.Bin("mul", ld(i, t), ld(j, t), rdt), rdt), line
                        )
                    ]

                return [
                    ir.Assign(acc.name, ld(i, j), line),
                    self._loop(
                        const(0, idt),
                        n,
                        line,
                        lambda t: [ir.If(ir.Cmp("lt", t, cast(j, t.dtype)), dot(t), [], line)],
                    ),
                    st(i, j, ir.Bin("div", acc, diag, rdt)),
                ]

            return [
                ir.Assign(acc.name, ld(j, j), line),
                self._loop(
                    const(0, idt),
                    n,
                    line,
                    lambda t: [ir.If(ir.Cmp("lt", t, cast(j, t.dtype)), square(t), [], line)],
                ),
                # numpy raises LinAlgError when the matrix is not positive definite (or NaN)
                self._fail(ir.Logic("lor", ir.Cmp("le", acc, zero), ir.Cmp("ne", acc, acc)), line),
                ir.Assign(
                    diag.name,
                    ir.Math("sqrt", (ir.Select(ir.Cmp("gt", acc, zero), acc, const(1, rdt), rdt),), rdt),
                    line,
                ),
                st(j, j, diag),
                self._loop(ir.Bin("add", j, const(1, j.dtype), j.dtype), n, line, below),
            ]

        stmts.append(self._loop(const(0, idt), n, line, column))
        return stmts


def _solve_dtype(ops: list[AV], line: int, name: str) -> DType:
    """numpy's result dtype: float32 when every operand is float32, float64 otherwise."""
    for o in ops:
        if o.dtype.is_float and o.dtype not in (FLOAT32, FLOAT64):
            raise Reject(
                line, f"np.linalg.{name} of a {o.dtype.name} array (numpy's linalg does not take it)"
            )
    return FLOAT32 if all(o.dtype == FLOAT32 for o in ops) else FLOAT64
