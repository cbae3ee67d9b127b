"""Which array each name names: new on-chip arrays, views, temporaries and rebinding.

numpy rebinds names: `y = x + 1` makes a new array, `v = x[1:]` a view of x.
A name gets one on-chip array per dtype and shape it is given; a view binds
the name to another array's elements. Inside a loop or a branch a name that
already named an array keeps naming it (`Region` records what was bound on
entry and what was rebound): a new array of its dtype and shape, or other
elements, go into the name's own buffer (`Rebinding`), and no other name may be
left referring to an array a loop gives a new value in every iteration.
"""

from __future__ import annotations

import dataclasses

from partition import ir
from partition.dtypes import DType
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import Comp, Ix, Region, View, full_view, static
from partition.frontend.model import ArrayInfo, Reject, VarState
from partition.frontend.types import NP
from partition.names import c_name


class Bindings:
    """Names bound to arrays and views (part of `ArrayLowering`)."""

    lw: ScalarLowering  # the function's lowerer, whose tables and scalar rules these methods use
    versions: dict[str, list[tuple[DType, tuple[int, ...]]]]
    bound_in: dict[str, Region | None]
    snapshots: set[str]
    copy_sources: dict[str, list]  # by variable key: what a name's copy holds (Rebinding)

    def scalar_temp(self, base: str, dt: DType) -> ir.Var:
        lw = self.lw
        lw.r.temp_counter += 1
        key = f"__{base}{lw.r.temp_counter}"
        lw.vars[key] = VarState(pt=NP(dt))
        return ir.Var(lw.irname(key), dt)

    def fresh_name(self, key: str, base: str) -> str:
        """The IR name of a frontend-made array (`key` cannot be a Python name)."""
        lw = self.lw
        if key in lw.ir_names:
            return lw.ir_names[key]
        return lw.unique_name(key, c_name(base))

    def local(self, irn: str, pyname: str, dt: DType, shape: tuple[int, ...], line: int) -> ArrayInfo:
        lw = self.lw
        info = lw.all_arrays.get(irn)
        if info is None:
            info = ArrayInfo(pyname, irn, dt, shape, "local", NP(dt))
            lw.all_arrays[irn] = info
        elif info.kind != "local" or info.elem_key is not None:
            raise Reject(line, f"{pyname} is a parameter, global or list and an array made here")
        info.dtype, info.shape, info.elem = dt, tuple(shape), NP(dt)
        return info

    def temp_array(self, dt: DType, shape: tuple[int, ...]) -> ArrayInfo:
        lw = self.lw
        lw.r.temp_counter += 1
        key = f"@tmp{lw.r.temp_counter}"
        return self.local(self.fresh_name(key, "tmp"), key, dt, static(shape), 0)

    def temp_view(self, dt: DType, shape: tuple) -> View:
        """A temporary array of `shape` (run-time lengths stored at their largest), all of it."""
        return full_view(self.temp_array(dt, shape), shape)

    def check_not_scalar(self, pyname: str, line: int) -> None:
        lw = self.lw
        key = lw.key(pyname)
        if key in lw.vars or key in lw.r.assigned or pyname in lw.scalar_params or pyname in lw.consts:
            raise Reject(line, f"{pyname} is a scalar elsewhere and an array here")

    def current(self, pyname: str) -> ArrayInfo | View | None:
        sc = self.lw.sc
        return sc.views.get(pyname) or sc.arrays.get(pyname)

    def bind_storage(self, pyname: str, dt: DType, shape: tuple[int, ...], line: int) -> ArrayInfo:
        """`pyname = <new array>`: the on-chip array the name now names (numpy rebinding).

        A name has one array per dtype and shape; the first keeps the name's IR name.
        """
        lw = self.lw
        self.check_not_scalar(pyname, line)
        if not shape or any(isinstance(d, int) and d <= 0 for d in shape):
            raise Reject(line, f"local array {pyname} of shape {shape} (at least 1-D, non-empty)")
        key = lw.key(pyname)
        cur = self.current(pyname)
        if (
            isinstance(cur, ArrayInfo)
            and cur.kind == "param"
            and self.bound_on_entry(pyname)
            and self.own_buffer(pyname, dt, shape) is cur
        ):  # an argument rebound in a loop or branch: its own buffer, saved (Rebinding)
            self.rebind_storage(pyname, cur, line)
            lw.sc.views.pop(pyname, None)
            lw.sc.arrays[pyname] = cur
            self.bound_in[key] = lw.sc.regions[-1] if lw.sc.regions else None
            return cur
        versions = self.versions.setdefault(key, [])
        if (dt, shape) not in versions:
            versions.append((dt, shape))
        k = versions.index((dt, shape))
        taken = key in lw.ir_names and (
            (a := lw.all_arrays.get(lw.ir_names[key])) is not None and a.kind != "local"
        )
        if k == 0 and not taken:
            irn = lw.irname(key)
        else:
            irn = self.fresh_name(f"{key}@{k}", lw.irname(key))
        info = self.local(irn, pyname, dt, shape, line)
        self.owners[info.name] = key
        if cur is not None and cur is not info and self.bound_on_entry(pyname):
            raise Reject(
                line,
                f"{pyname} is rebound inside a loop or branch to an array other than the one it names before "
                "(copy into it with [:] = or use a new name; e.g. x = x.copy() before a loop updating x)",
            )
        self.check_no_alias(pyname, info, line)
        for region in lw.sc.regions:
            region.rebound.append((pyname, info, line))
        lw.sc.views.pop(pyname, None)
        lw.sc.arrays[pyname] = info
        self.bound_in[lw.key(pyname)] = lw.sc.regions[-1] if lw.sc.regions else None
        self.copy_sources.pop(lw.key(pyname), None)
        return info

    def check_no_alias(self, pyname: str, info: ArrayInfo, line: int) -> None:
        sc = self.lw.sc
        for other, b in [*sc.arrays.items(), *sc.views.items()]:
            if other == pyname:
                continue
            if b is info or (isinstance(b, View) and b.base is info):
                raise Reject(
                    line,
                    f"{pyname} gets a new array while {other} still refers to its old one "
                    "(use a new name for the new array)",
                )

    def bind_view(self, pyname: str, view: View, line: int) -> list[ir.Stmt]:
        """`pyname = x[...]`: the name refers to x's elements; dynamic indices are fixed now."""
        lw = self.lw
        self.check_not_scalar(pyname, line)
        stmts: list[ir.Stmt] = []
        comps = []
        for c in view.comps:
            if c.fixed is not None and not isinstance(c.fixed.e, ir.Const):
                c = Comp(fixed=self.snapshot(c.fixed, stmts, line))
            elif c.off is not None and not isinstance(c.off.e, ir.Const):
                c = dataclasses.replace(c, off=self.snapshot(c.off, stmts, line))
            comps.append(c)
        view = View(view.base, view.shape, tuple(comps))
        cur = self.current(pyname)
        if cur is not None and self.bound_on_entry(pyname) and not (isinstance(cur, View) and cur.same(view)):
            raise Reject(
                line,
                f"{pyname} is bound inside a loop or branch to other elements than it names before "
                "(use a new name)",
            )
        lw.sc.arrays.pop(pyname, None)
        lw.sc.views[pyname] = view
        self.copy_sources.pop(lw.key(pyname), None)
        self.bound_in[lw.key(pyname)] = lw.sc.regions[-1] if lw.sc.regions else None
        return stmts

    def snapshot(self, ix: Ix, stmts: list[ir.Stmt], line: int) -> Ix:
        """`ix` as a scalar set now (a bound view keeps the elements it named when bound)."""
        v = self.scalar_temp("at", ix.e.dtype)
        self.snapshots.add(v.name)
        stmts.append(ir.Assign(v.name, ix.e, line))
        return Ix(v, ix.lo, ix.hi)

    def enter(self, loop: bool) -> Region:
        sc = self.lw.sc
        region = Region(set(sc.arrays) | set(sc.views), loop)
        sc.regions.append(region)
        return region

    def leave(self, region: Region) -> None:
        self.lw.sc.regions.remove(region)

    def bound_on_entry(self, pyname: str) -> bool:
        """True when `pyname` named an array as the innermost loop body or branch began.

        Rebinding such a name there to another array would leave it naming
        either array after the branch (or in the next iteration), depending
        on the path; a name first bound inside may be rebound freely.
        """
        regions = self.lw.sc.regions
        return bool(regions) and pyname in regions[-1].bound

    def check_loop(self, region: Region) -> None:
        """At the end of a loop body: no name may still refer to an array rebound in the loop,
        unless it is bound again in every iteration after that (at the body's own level)."""
        if not region.loop:
            return
        sc = self.lw.sc
        for pyname, info, line in region.rebound:
            for other, b in [*sc.arrays.items(), *sc.views.items()]:
                if other == pyname or not (b is info or (isinstance(b, View) and b.base is info)):
                    continue
                if self.bound_in.get(self.lw.key(other)) is not region:
                    raise Reject(
                        line,
                        f"{pyname} gets a new array in every iteration while {other} may still refer to "
                        "the previous one (use a new name for the new array)",
                    )
