"""Statements with arrays: element loops, stores, assignment, returns and arguments.

`loop_nest` is the one place element loops are made; `store_loop` stores an
array value into stored elements with numpy's broadcasting and casting, going
through a temporary when the right-hand side reads the target elsewhere.
Assignments to names and elements, in-place operators, returned arrays and
arrays passed to or returned from inlined functions are built on them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np

from partition import ir
from partition.dtypes import INT64, narrowest_signed
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.selections import mask_key
from partition.frontend.arrays.values import (
    AV,
    CountDyn,
    Dyn,
    Ix,
    Operand,
    ParamDyn,
    View,
    bcast,
    broadcast,
    describe_operand,
    full_view,
    numpy_sample,
)
from partition.frontend.model import TE, ArrayInfo, Reject, cast, const
from partition.frontend.returns import VALUE as RET_VALUE
from partition.frontend.syntax import OP_TEXT, PY_IOPS, text
from partition.frontend.types import NP


class ArrayStatements:
    """Statements that store arrays (part of `ArrayLowering`)."""

    lw: ScalarLowering  # the function's lowerer, whose tables and scalar rules these methods use

    def loop_nest(
        self, shape: tuple[int, ...], line: int, body: Callable[[tuple[Ix, ...]], list[ir.Stmt]]
    ) -> list[ir.Stmt]:
        """Loops over every index of `shape` (row-major, outer loop first) around body(indices).

        The one place element loops are made: fills, materialised expressions,
        reductions and products all come through here.
        """
        lw = self.lw
        loops = []
        for n in shape:
            lw.r.temp_counter += 1
            lw.r.loop_counter += 1
            most = n.hi if isinstance(n, Dyn) else n
            dt = narrowest_signed(0, most) or INT64
            loops.append((lw.irname(f"__i{lw.r.temp_counter}"), dt, n, f"L{lw.r.loop_counter}"))
        idx = tuple(Ix(ir.Var(v, dt), 0, (n.hi if isinstance(n, Dyn) else n) - 1) for v, dt, n, _ in loops)
        stmts = body(idx)
        for v, dt, n, label in reversed(loops):
            if isinstance(n, Dyn):  # a run-time length: the loop runs that many times, at most n.hi
                stmts = [ir.For(v, const(0, dt), cast(n.e, dt), 1, stmts, n.hi, line, label)]
            else:
                stmts = [ir.For(v, const(0, dt), const(n, dt), 1, stmts, n, line, label)]
        return stmts

    def store_loop(
        self, target: View, value: Operand, line: int, op: str | None = None, mask: AV | None = None
    ) -> list[ir.Stmt]:
        """target[...] = value (or target op= value), numpy broadcasting; a temporary when they
        overlap. With `mask` (a boolean array of the target's shape), only where it is true."""
        lw = self.lw
        base = target.base
        if base.kind == "rom":
            raise Reject(line, f"writes to global array {base.pyname} (kernels may only read globals)")
        shape = target.shape
        if isinstance(value, AV) and not _broadcasts_to(value.shape, shape):
            raise Reject(
                line,
                f"an array of shape {value.shape} cannot be assigned to elements of shape {shape} (or their "
                "run-time lengths cannot be shown equal)",
            )

        def build(val: Operand) -> list[ir.Stmt]:
            def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                te = val.at(bcast(idx, val.shape, shape)) if isinstance(val, AV) else val
                where = target.index(idx)
                if op is not None:
                    base.loaded = True
                    cur = TE(NP(base.dtype), ir.Load(base.name, where, base.dtype))
                    te = lw.binop(op, cur, te, ast.Pass(lineno=line))
                store: list[ir.Stmt] = [ir.Store(base.name, where, lw.store_value(te, base, line), line)]
                return store if mask is None else [ir.If(mask.at(idx).e, store, [], line)]

            return self.loop_nest(shape, line, body)

        stmts = build(value)
        clash = self.overlap(stmts, base.name, line)
        if clash:
            lw.note(
                f"line {line}: the right-hand side reads {base.pyname} at other elements than it writes; "
                "it is computed into a temporary first (numpy evaluates it whole before assigning)"
            )
            if isinstance(value, AV):
                tmp = self.temp_view(value.dtype, value.shape)
                lw.pending.extend(self.store_loop(tmp, value, line))
                value = self.view_av(tmp)
            else:
                v = self.scalar_temp("rhs", value.e.dtype)
                lw.pending.append(ir.Assign(v.name, value.e, line))
                value = TE(value.pt, v)
            if mask is not None:  # the mask as it was before any element changes, too
                tmask = self.temp_view(mask.dtype, mask.shape)
                lw.pending.extend(self.store_loop(tmask, mask, line))
                mask = self.view_av(tmask)
            stmts = build(value)
        base.stored = True
        return stmts

    def overlap(self, stmts: list[ir.Stmt], name: str, line: int) -> bool:
        """True when a store to `name` reads `name` at another element than it writes."""
        for s in ir.walk_stmts(stmts):
            if isinstance(s, ir.Store) and s.array == name:
                for i in s.index:
                    if any(isinstance(x, ir.Load) and x.array == name for x in ir.walk_expr(i)):
                        raise Reject(line, f"the target's index reads the array being assigned ({name})")
                for x in ir.walk_expr(s.value):
                    if isinstance(x, ir.Load) and x.array == name and x.index != s.index:
                        return True
        return False

    def materialise(self, a: AV, target: View, line: int) -> list[ir.Stmt]:
        """target[...] = a, for a value just computed (a product fills the target directly when it can)."""
        if a.fill is not None and a.shape == target.shape:
            stmts = a.fill(target)
            reads = any(
                isinstance(x, ir.Load) and x.array == target.base.name
                for s in ir.walk_stmts(stmts)
                for e in ir.stmt_exprs(s)
                for x in ir.walk_expr(e)
            )
            if not reads:
                return stmts
        return self.store_loop(target, a, line)

    def target_view(self, node: ast.expr, line: int) -> View:
        a = self.av(node)
        if a.view is None:
            raise Reject(line, f"assignment to {text(node)}, which is a computed array, not stored elements")
        return a.view

    def assign_name(self, pyname: str, value: ast.expr, line: int) -> list[ir.Stmt]:
        """`name = <array expression>`: a view binds the name, anything else makes a new array."""
        if pyname.startswith(RET_VALUE):
            raise Reject(line, "returns an array from more than one place")
        a = self.av(value)
        self.no_dyn(a.shape, line, f"{pyname} = {text(value)}")
        return self.assign_value(pyname, a, value, line)

    def assign_value(self, pyname: str, a: AV, value: ast.expr, line: int) -> list[ir.Stmt]:
        """`name = value` for the array value `a` of the expression `value`."""
        if a.view is not None:
            cur = self.current(pyname)
            if (
                cur is not None
                and self.bound_on_entry(pyname)
                and not (isinstance(cur, View) and cur.same(a.view))
            ):
                stmts = self.copy_bind(pyname, a.view, value, line)
                if stmts is not None:
                    return stmts
            return self.bind_view(pyname, a.view, line)
        if a.source is not None:  # numpy may make the name a view of those elements
            self.check_copy(pyname, a.source, value, line)
        info = self.bind_storage(pyname, a.dtype, a.shape, line)
        return self.materialise(a, full_view(info), line)

    def masked_target(self, target: ast.expr, line: int) -> tuple[View, AV, ast.expr] | None:
        """`x[mask]` as an assignment target, for a boolean array `mask` of x's shape: (x's
        elements, the mask, the mask's expression), or None for any other target."""
        if not isinstance(target, ast.Subscript) or isinstance(target.slice, (ast.Slice, ast.Tuple)):
            return None
        if self.rank_of(target.slice) is None or self.rank_of(target.value) is None:
            return None
        mask = self.av(target.slice)
        if not mask.dtype.is_bool:
            return None  # integer-array indexing: `gather` says what it takes
        view = self.target_view(target.value, line)
        if mask.shape != view.shape:
            raise Reject(
                line,
                f"{text(target)}: a boolean mask of shape {mask.shape} for an array of shape {view.shape} "
                "(a mask of the array's own shape is taken)",
            )
        return view, mask, target.slice

    def masked_value(
        self, value: ast.expr, mask_node: ast.expr, mask: AV, shape: tuple[int, ...], line: int
    ) -> Operand:
        """The value assigned through a mask: a scalar, or `y[mask]` with the same mask (numpy
        then takes y's element at each true position: y where the mask holds), or an
        elementwise expression of such selections and scalars (`z[m] * z[m] + c[m]`: its
        k-th element is that of the k-th true position, so again the value there)."""
        if (
            isinstance(value, ast.Subscript)
            and ast.dump(value.slice) == ast.dump(mask_node)
            and self.rank_of(value.value) is not None
        ):
            y = self.av(value.value)
            if y.shape == shape:
                return y
        val = self.operand(value)
        if (
            isinstance(val, AV)
            and val.sel is not None
            and val.sel.shape == shape
            and val.sel.key == (mask_key(mask), shape)
        ):
            return AV(shape, val.dtype, val.sel.value)
        if isinstance(val, AV):
            raise Reject(
                line,
                "an array assigned through a boolean mask (its length is the number of true elements, known "
                "only at run time): write y[mask] with the same mask, or use np.where",
            )
        return val

    def assign_elements(self, target: ast.expr, value: ast.expr, line: int) -> list[ir.Stmt]:
        """`x[...] = value` for a slice or row (numpy casts to x's dtype), or through a boolean
        mask of x's shape."""
        masked = self.masked_target(target, line)
        if masked is not None:
            view, mask, mask_node = masked
            return self.store_loop(
                view, self.masked_value(value, mask_node, mask, view.shape, line), line, mask=mask
            )
        view = self.target_view(target, line)
        val = self.operand(value)
        if isinstance(val, AV):
            return (
                self.materialise(val, view, line)
                if val.shape == view.shape
                else self.store_loop(view, val, line)
            )
        return self.store_loop(view, val, line)

    def augassign(self, target: ast.expr, op: str, value: ast.expr, line: int) -> list[ir.Stmt]:
        """`x op= value` / `x[...] op= value`: in place, numpy's same_kind casting (also through
        a boolean mask of x's shape)."""
        masked = self.masked_target(target, line)
        mask = None
        if masked is not None:
            view, mask, mask_node = masked
            val = self.masked_value(value, mask_node, mask, view.shape, line)
        else:
            view = self.target_view(target, line)
            val = self.operand(value)
        shape = view.shape
        if isinstance(val, AV) and not _broadcasts_to(val.shape, shape):
            raise Reject(
                line,
                f"{text(target)} {OP_TEXT[op]}= an array of shape {val.shape}: it does not broadcast to "
                f"{shape}, or their run-time lengths cannot be shown equal",
            )
        sample = numpy_sample(val)
        self.probe(  # numpy's own in-place operation decides (same_kind casting)
            lambda t: PY_IOPS[op](np.array(t), sample),
            [AV((1,), view.dtype, lambda idx: TE(NP(view.dtype), const(0, view.dtype)))],
            f"{view.dtype.name} array {OP_TEXT[op]}= {describe_operand(val)}",
            line,
        )
        return self.store_loop(view, val, line, op=op, mask=mask)

    def result_array(self, item: ast.expr, k: int, line: int) -> tuple[ArrayInfo, list[ir.Stmt]]:
        """A returned array expression, made into an output array of its own."""
        a = self.av(item)
        self.no_dyn(a.shape, line, f"returning {text(item)}")
        if a.view is not None and a.view.base.kind == "rom":
            raise Reject(
                line,
                f"returns {text(item)}, a slice of global array {a.view.base.pyname} that numpy makes a view "
                f"sharing its memory (return a copy: ({text(item)}).copy())",
            )
        if a.view is not None and a.view.base.kind == "param":
            self.lw.note(
                f"line {line}: returns {text(item)}, in Python a view sharing argument {a.view.base.pyname}'s "
                "memory; the kernel returns a copy of its elements (the same values: only a caller that then "
                f"writes into the returned array would see {a.view.base.pyname} change in Python and not here; "
                "the profile does not record what callers do with returned arrays)"
            )
        key = f"@result{self.lw.sc.prefix}{k}"
        info = self.local(
            self.fresh_name(key, "result" if k == 0 else f"result{k}"), key, a.dtype, a.shape, line
        )
        return info, self.materialise(a, full_view(info), line)

    def argument(self, node: ast.expr) -> ArrayInfo | View | None:
        """An array passed to an inlined function: by reference (a name or a view), or a new array."""
        if isinstance(node, ast.Name):
            b = self.binding(node.id)
            if b is not None:
                return b
        if self.rank_of(node) is None:
            return None
        a = self.av(node)
        if a.view is not None:
            return a.view
        line = self.lw.where(node)
        self.no_dyn(a.shape, line, f"{text(node)} passed to a function")
        info = self.temp_array(a.dtype, a.shape)
        if a.source is not None:  # a copy where numpy may pass a view: the callee must not write to it
            self.sourced.add(info.name)
        self.lw.pending.extend(self.materialise(a, full_view(info), line))
        return info

    def no_dyn(self, shape: tuple, line: int, what: str) -> None:
        """Refuse a value of run-time length where it would outlive its statement."""
        if any(isinstance(d, CountDyn) for d in shape):
            raise Reject(
                line,
                f"{what}: a boolean-mask selection (its length is the number of true elements, known only "
                "at run time) can be reduced within one statement (np.sum(x[mask]), x[mask].mean()), not "
                "kept under a name, passed or returned: a kernel's arrays have a fixed length",
            )
        if any(isinstance(d, Dyn) and not isinstance(d, ParamDyn) for d in shape):
            raise Reject(
                line,
                f"{what}: an array whose length is known only at run time (a slice with run-time bounds) "
                "can be used within one statement, not kept under a name, passed or returned",
            )

    def helper_return(self, item: ast.expr, k: int, line: int) -> tuple[ArrayInfo | View, list[ir.Stmt]]:
        """What an inlined function returns for an array expression: a view, or a new array."""
        a = self.av(item)
        self.no_dyn(a.shape, line, f"returning {text(item)}")
        if a.view is not None:
            return a.view, []
        key = f"@result{self.lw.sc.prefix}{k}"
        info = self.local(self.fresh_name(key, "result"), key, a.dtype, a.shape, line)
        return info, self.materialise(a, full_view(info), line)

    def scalar_load(self, node: ast.Subscript) -> TE:
        a = self.av(node)
        if a.shape:
            raise Reject(node.lineno, f"array {text(node)} used where a scalar is needed")
        return a.at(())

    def scalar_target(self, node: ast.Subscript) -> tuple[ArrayInfo, tuple[ir.Expr, ...]]:
        view = self.target_view(node, node.lineno)
        if view.shape:
            raise Reject(node.lineno, f"array {text(node)} used where a scalar is needed")
        return view.base, view.index(())


def _broadcasts_to(value: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """True when an array of shape `value` broadcasts to exactly `shape` (numpy's rule for
    assigning it to elements of that shape)."""
    if len(value) > len(shape):
        return False
    return broadcast([value, shape]) == tuple(shape)
