"""The lowered function assembled into a `Kernel`.

After the last round: array parameters get their direction (in, out when
every element is stored before any is read, inout), returned local arrays
become output parameters, and the scalars and local arrays the body uses are
declared.
"""

from __future__ import annotations

from partition import ir
from partition.dtypes import UINT8, DType
from partition.frontend.arrays.values import ParamDyn, static
from partition.frontend.model import ArrayInfo, Reject, const
from partition.frontend.types import ir_dtype


class KernelAssembly:
    """The `Kernel` of the lowered body (part of `Lowerer`)."""

    def kernel(self, body: list[ir.Stmt]) -> ir.Kernel:
        params: list[ir.Param] = []
        by_pos, structs = self.record_parts()  # keyed (position, field); other arguments (position, -1)
        for a in self.all_arrays.values():
            if a.kind == "param":
                if a.stored:
                    direction = "out" if (not a.loaded and self.full_coverage(a, body)) else "inout"
                else:
                    direction = "in"
                by_pos[(a.position, -1)] = ir.Param(
                    a.name,
                    "array",
                    a.dtype,
                    static(a.shape),
                    direction,
                    a.pytype,
                    ("arg", a.position),
                    dyn=dyn_register(a.shape),
                    dyn_offset=dyn_offset(a.shape),
                )
        for irn, dt, _pt, pos, t in self.top.scalar_params.values():
            by_pos[(pos, -1)] = ir.Param(irn, "scalar", dt, (), "in", t, ("arg", pos))
        params = [by_pos[k] for k in sorted(by_pos)]
        for a in self.all_arrays.values():
            if a.kind == "local" and a.returned is not None:
                params.append(
                    ir.Param(
                        a.name,
                        "array",
                        a.dtype,
                        static(a.shape),
                        "out",
                        a.pytype,
                        ("return", a.returned),
                        dyn=dyn_register(a.shape),
                        dyn_offset=dyn_offset(a.shape),
                    )
                )
        for reg, (dim, pos) in self.top.dims.items():  # run-time lengths: the host sets them
            params.append(ir.Param(reg, "scalar", dim.e.dtype, (), "in", "dim", ("dim", pos)))
        returned_locals = {
            a.name for a in self.all_arrays.values() if a.kind == "local" and a.returned is not None
        }
        locals_ = [
            ir.LocalArray(a.name, a.dtype, static(a.shape), a.init if a.kind == "rom" else None)
            for a in self.all_arrays.values()
            if a.kind in ("local", "rom") and a.name not in returned_locals and (a.loaded or a.stored)
        ]
        scalars: dict[str, DType] = {}
        for pyname, st in sorted(self.vars.items()):
            if st.pt is not None and pyname in self.ir_names:
                scalars[self.ir_names[pyname]] = ir_dtype(st.pt)
        for s in ir.walk_stmts(body):
            if isinstance(s, ir.For):
                scalars.setdefault(s.var, s.start.dtype)
        status = None
        if self.r.status:  # the status starts at 0; checks set it (partition.frontend.overflow)
            status = self.status_name()
            scalars[status] = UINT8
            body = [ir.Assign(status, const(0, UINT8), self.top.fn.lineno), *body]
        used = self.used_scalar_names(body)
        scalars = {k: v for k, v in sorted(scalars.items()) if k in used}
        return ir.Kernel(
            name=self.task,
            params=params,
            scalars=scalars,
            locals=locals_,
            body=body,
            ret=self.ret,
            ret_pytype=self.ret_pytype,
            returns=list(self.returns),
            return_tuple=self.return_tuple,
            source_file=self.top.src.rel,
            source_line=self.top.fn.lineno,
            notes=list(self.notes),
            py_params=list(self.py_params),
            specialised=dict(self.specialised),
            structs=structs,
            status=status,
            lengths=dict(self.typical_lengths),
        )

    def used_scalar_names(self, body: list[ir.Stmt]) -> set[str]:
        used: set[str] = set()
        for s in ir.walk_stmts(body):
            if isinstance(s, (ir.Assign,)):
                used.add(s.var)
            if isinstance(s, ir.For):
                used.add(s.var)
            for e in ir.stmt_exprs(s):
                for x in ir.walk_expr(e):
                    if isinstance(x, ir.Var):
                        used.add(x.name)
        params = {irn for irn, _dt, _pt, _pos, _t in self.top.scalar_params.values()}
        params |= {f.param[0] for r in self.top.records.values() for f in r.fields if f.param is not None}
        return used - params

    def full_coverage(self, a: ArrayInfo, body: list[ir.Stmt]) -> bool:
        """True when a top-level loop nest stores every element of `a` unconditionally."""
        return any(self._covers(s, a, []) for s in body)

    def _covers(self, s: ir.Stmt, a: ArrayInfo, loops: list[ir.For]) -> bool:
        if isinstance(s, ir.For):
            if s.step != 1 or not isinstance(s.start, ir.Const) or s.start.value != 0:
                return False
            if not isinstance(_uncast(s.stop), (ir.Const, ir.Var)):
                return False
            if any(isinstance(x, (ir.Break, ir.Continue)) for x in ir.walk_stmts(s.body)):
                return False
            return any(self._covers(b, a, [*loops, s]) for b in s.body)
        if isinstance(s, ir.Store) and s.array == a.name and len(loops) == len(a.shape):
            for idx, loop, dim in zip(s.index, loops, a.shape):
                stop = _uncast(loop.stop)
                whole = (
                    stop == dim.e
                    if isinstance(dim, ParamDyn)
                    else isinstance(stop, ir.Const) and stop.value == dim
                )
                if not (isinstance(idx, ir.Var) and idx.name == loop.var and whole):
                    return False
            return True
        return False


def dyn_register(shape: tuple) -> str:
    """The register of an array's run-time leading length ("" for a fixed shape); a run-time
    length anywhere else is refused (`ir.Param.dyn`: only the leading length varies)."""
    if any(isinstance(d, ParamDyn) for d in shape[1:]) or any(
        not isinstance(d, (int, ParamDyn)) for d in shape
    ):
        raise Reject(0, "an array whose length is known only at run time outside its first dimension")
    return shape[0].reg if shape and isinstance(shape[0], ParamDyn) else ""


def _uncast(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.Cast):
        e = e.operand
    return e


def dyn_offset(shape: tuple) -> int:
    """The offset of an array's run-time leading length from its register (`ir.Param.dyn_offset`)."""
    return shape[0].off if shape and isinstance(shape[0], ParamDyn) else 0
