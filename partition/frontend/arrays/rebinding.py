"""Names rebound in a loop or branch: the name's own buffer takes the new elements.

Python's `q = q - dt * f(q)` in a time loop makes a new array in every
iteration and rebinds the name; `a = a_new` and `xm1 = img[:, j]` make the
name refer to other elements. A kernel's arrays are fixed buffers, so where
the name named its own buffer as the loop began, the new elements are stored
into that buffer (through a temporary when they read it elsewhere) and the
name keeps naming it. That is Python's meaning when nothing else refers to the
old array (`check_no_alias`) and, for elements of another array, while the
copy and those elements are not written in place (`aliasing.copy_conflict`).

An argument rebound this way is the caller's array: Python leaves it as it was
at the first rebinding (`pos += v` before `pos = np.clip(pos, ...)` in the
first iteration does reach the caller). The buffer is saved once, at the first
rebinding (a flag says whether it was), and restored at the end of the kernel;
a returned rebound argument is returned as a copy of its final elements.
"""

from __future__ import annotations

import ast
from typing import Any

from partition import ir
from partition.dtypes import UINT8
from partition.frontend.arrays import aliasing
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import View, full_view
from partition.frontend.model import ArrayInfo, Reject, VarState, const
from partition.frontend.syntax import text
from partition.frontend.types import NP


class Rebinding:
    """Rebinding a name to new elements in its own buffer (part of `ArrayLowering`)."""

    lw: ScalarLowering  # the function's lowerer, whose tables and scalar rules these methods use
    saved: dict[str, tuple[ArrayInfo, ArrayInfo, str]]  # argument IR name -> (argument, save, flag)
    copy_sources: dict[str, list[aliasing.Source]]  # by variable key: what a name's copy holds
    owners: dict[str, str]  # local array IR name -> the variable key bind_storage made it for
    sourced: set[str]  # temporaries holding copies of elements numpy may pass as a view

    def own_buffer(self, pyname: str, dt: object, shape: tuple) -> ArrayInfo | None:
        """The buffer a name rebound here may take new elements into: its own local array, or
        an argument of the kernel itself, of that dtype and shape (None: it has none)."""
        lw = self.lw
        cur = self.current(pyname)
        if not isinstance(cur, ArrayInfo) or cur.dtype != dt or tuple(cur.shape) != tuple(shape):
            return None
        if cur.kind == "local" and self.owners.get(cur.name) == lw.key(pyname) and cur.pytype == "ndarray":
            return cur
        if cur.kind == "param" and lw.sc is lw.top and cur.pytype == "ndarray" and cur.pyname == pyname:
            return cur
        return None

    def rebind_storage(self, pyname: str, info: ArrayInfo, line: int) -> None:
        """`pyname = <new array>` stored into its own buffer `info` (saving an argument first)."""
        self.check_no_alias(pyname, info, line)
        self.lw.pending.extend(self.save_argument(info, line))
        for region in self.lw.sc.regions:
            region.rebound.append((pyname, info, line))
        self.copy_sources.pop(self.lw.key(pyname), None)
        self.lw.note(
            f"line {line}: {pyname} is rebound to a new array inside a loop or branch; the new elements are "
            f"stored in {pyname}'s own buffer (nothing else refers to the old array)"
        )

    def copy_bind(self, pyname: str, view: View, node: ast.expr, line: int) -> list[ir.Stmt] | None:
        """`pyname = <elements of another array>` in a loop or branch, as a copy into the name's
        own buffer (None: the name has none; a refusal where the copy could be told apart)."""
        lw = self.lw
        info = self.own_buffer(pyname, view.dtype, view.shape)
        if info is None or view.base is info:
            return None
        stmt = getattr(lw, "current_stmt", None)
        if stmt is None:
            return None
        self.check_no_alias(pyname, info, line)
        sources = self.sources_of(node, view, stmt)
        why = aliasing.copy_conflict(lw.sc.body, stmt, pyname, sources)
        if why is not None:
            raise Reject(
                line,
                f"{pyname} = {text(node)} inside a loop or branch makes {pyname} refer to other elements; "
                f"a kernel copies them into {pyname}'s buffer, which would differ from Python here: {why}",
            )
        out = self.save_argument(info, line)
        out += self.store_loop(full_view(info), self.view_av(view), line)
        for region in lw.sc.regions:
            region.rebound.append((pyname, info, line))
        self.copy_sources[lw.key(pyname)] = sources
        lw.sc.views.pop(pyname, None)
        lw.sc.arrays[pyname] = info
        self.bound_in[lw.key(pyname)] = lw.sc.regions[-1] if lw.sc.regions else None
        lw.note(
            f"line {line}: {pyname} = {text(node)} is a copy into {pyname}'s own buffer (Python makes the "
            "name refer to those elements; neither side is written in place while the copy is used)"
        )
        return out

    def check_copy(self, pyname: str, view: View, node: ast.expr, line: int) -> None:
        """`pyname = <stored elements reordered>` (a reshape numpy may make a view): a copy into
        the name's buffer, refused where a write in place could tell it from the view."""
        lw = self.lw
        stmt = lw.current_stmt
        why = "the statement could not be placed" if stmt is None else None
        if stmt is not None:
            why = aliasing.copy_conflict(lw.sc.body, stmt, pyname, self.sources_of(node, view, stmt))
        if why is not None:
            raise Reject(
                line,
                f"{pyname} = {text(node)}: numpy may make {pyname} a view of {view.base.pyname}'s elements, "
                f"which the kernel copies; the copy would differ from Python here: {why}",
            )

    def sources_of(self, node: ast.expr, view: View, stmt: ast.stmt) -> list[aliasing.Source]:
        """The names whose elements a copy of `node` holds: its own name (with the subscript it
        was taken with), what that name's own copy holds, and every other name of the array."""
        lw = self.lw
        out: list[aliasing.Source] = []
        root = aliasing.root_name(node)
        if root is not None:
            sub = node.slice if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) else None
            loop = aliasing.enclosing_loop(lw.sc.body, stmt) if sub is not None else None
            out.append(aliasing.Source(root, sub, loop if isinstance(loop, ast.For) else None))
            out += self.copy_sources.get(lw.key(root), [])
        for other, b in [*lw.sc.arrays.items(), *lw.sc.views.items()]:
            if other != root and (b is view.base or (isinstance(b, View) and b.base is view.base)):
                out.append(aliasing.Source(other))
        return out

    def save_argument(self, info: ArrayInfo, line: int) -> list[ir.Stmt]:
        """Before an argument's buffer takes new elements: its elements saved, the first time."""
        if info.kind != "param":
            return []
        lw = self.lw
        if info.name not in self.saved:
            key = f"@saved{info.name}"
            save = self.local(self.fresh_name(key, f"{info.name}_saved"), key, info.dtype, info.shape, line)
            fkey = f"__rebound_{info.name}"
            lw.vars[fkey] = VarState(pt=NP(UINT8))
            self.saved[info.name] = (info, save, lw.irname(fkey))
        _, save, flag = self.saved[info.name]
        copy = self.store_loop(full_view(save), self.view_av(full_view(info)), line)
        first = ir.Cmp("eq", ir.Var(flag, UINT8), const(0, UINT8))
        return [ir.If(first, [*copy, ir.Assign(flag, const(1, UINT8), line)], [], line)]

    def with_saves(self, stmts: list[ir.Stmt], line: int) -> list[ir.Stmt]:
        """The kernel body with each rebound argument's flag cleared first and its saved
        elements put back at the end (before the final return)."""
        if not self.saved:
            return stmts
        init: list[ir.Stmt] = []
        restore: list[ir.Stmt] = []
        for info, save, flag in self.saved.values():
            init.append(ir.Assign(flag, const(0, UINT8), line))
            back = self.store_loop(full_view(info), self.view_av(full_view(save)), line)
            restore.append(ir.If(ir.Cmp("ne", ir.Var(flag, UINT8), const(0, UINT8)), back, [], line))
        if stmts and isinstance(stmts[-1], ir.Return):
            return [*init, *stmts[:-1], *restore, stmts[-1]]
        return [*init, *stmts, *restore]

    def result_copy(self, info: ArrayInfo, k: int, line: int) -> tuple[ArrayInfo, list[ir.Stmt]]:
        """A returned rebound argument: an output array of its own holding its final elements."""
        key = f"@result{self.lw.sc.prefix}{k}"
        out = self.local(
            self.fresh_name(key, "result" if k == 0 else f"result{k}"), key, info.dtype, info.shape, line
        )
        self.lw.note(
            f"line {line}: {info.pyname} is returned as a copy of its final elements (the argument itself is "
            "left as Python leaves it)"
        )
        return out, self.store_loop(full_view(out), self.view_av(full_view(info)), line)

    def assign_tuple(
        self, names: list[ast.Name], items: list[ast.expr], line: int, scalar: Any
    ) -> list[ir.Stmt]:
        """`a, b = x, y` where some items are arrays: Python evaluates the whole right-hand side,
        then binds the names left to right.

        An item that is computed, or stored elements of a buffer one of the names is about
        to take new elements into (`a, b = b, a`), is held in a temporary first and then
        stored into the name's own buffer (a swap exchanges the contents, which is Python's
        meaning while nothing else refers to either array); any other view binds the name as
        `name = view` does. `scalar(item)` lowers a scalar item into a held temporary.
        """
        lw = self.lw
        targets = {id(b) for n in names if isinstance(b := self.current(n.id), ArrayInfo)}
        targets |= {id(b.base) for n in names if isinstance(b := self.current(n.id), View)}
        values: list[Any] = []
        out: list[ir.Stmt] = []
        for n, v in zip(names, items):
            if self.rank_of(v) is None and not (
                isinstance(v, ast.Name) and lw.lookup_array(v.id) is not None
            ):
                values.append(scalar(v))
                continue
            a = self.av(v)
            self.no_dyn(a.shape, line, f"{n.id} = {text(v)}")
            if a.view is not None and id(a.view.base) not in targets:
                values.append((v, a))
                continue
            if a.view is not None and a.view.base.kind != "local":
                raise Reject(
                    line,
                    f"tuple assignment of {text(v)}, the array of {a.view.base.pyname}, to a name that takes new "
                    "elements here (swapping an argument's or a global's array with another is not supported: "
                    "copy it first)",
                )
            tmp = self.temp_view(a.dtype, a.shape)
            out += self.materialise(a, tmp, line)
            values.append((None, self.view_av(tmp)))
        for n, val in zip(names, values):
            if not isinstance(val, tuple):
                out.append(lw.assign_var(n.id, val, line, n))
                continue
            node, a = val
            if node is not None:
                out += self.assign_value(n.id, a, node, line)
                continue
            info = self.bind_storage(n.id, a.dtype, a.shape, line)
            out += self.store_loop(full_view(info), a, line)
        return out
