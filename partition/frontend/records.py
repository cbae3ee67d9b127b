"""Arguments that are small records of numbers: tuples, namedtuples and dataclass instances.

Real code passes a few numbers together (`image_shape=(h, w)`, `Point(x, y)`,
`QuantParams(scale, zero_point)`). The record never exists in the kernel: each field
the function reads becomes a scalar parameter named `<arg>_<field>`, or a constant
when every profiled call passed the same value (as scalar arguments are specialised),
and every use of the record is resolved to its fields while lowering: `p.x`, `p[0]`
(constant indices, negative ones from the end), `h, w = shape`, `len(p)`,
`min(p)`/`max(p)`, `for c in p` and `for i, c in enumerate(p)` (unrolled: the length
is a constant), and `p[i]` with a run-time index over fields of one type (a chain of
selects on the index). The host reads the fields out of each call's record and checks
them as it checks scalar arguments (`ir.StructArg`).
"""

from __future__ import annotations

import ast
import contextlib

from partition import ir
from partition.frontend.model import TE, RecordArg, RecordField, Reject, cast, const, plain
from partition.frontend.syntax import jumps
from partition.frontend.types import NP, PyBool, PyFloat, PyInt, PyType, describe, ir_dtype, range_of
from partition.names import c_name
from partition.profile.model import decode_value

SCALAR_SIGS = ("int", "float", "bool", "npscalar")


class Records:
    """Record arguments and the reads of their fields (part of `Lowerer`)."""

    # ------------------------------------------------------------ binding

    def bind_record(self, pos: int, pname: str, sig: dict, samples: list) -> None:
        """Each field of record argument `pname` as a scalar parameter or a constant."""
        line = self.fn.lineno
        kind = sig["type"]
        items = list(sig.get("items") or [])
        names = [str(f) for f in sig.get("fields") or range(len(items))]
        pytype = "tuple" if kind == "tuple" else str(sig.get("pytype", kind))
        rec = RecordArg(pname, kind, pytype, pos, [])
        reader = ir.StructArg(kind, pytype, names)
        calls = [decode_value(s.args[pos]) for s in samples if pos < len(s.args)]
        for fname, fsig in zip(names, items):
            label = f"item {fname}" if kind == "tuple" else f"field {fname}"
            ft = fsig.get("type")
            if ft not in SCALAR_SIGS:  # rejected where the function reads it (it may read others only)
                what = fsig.get("pytype") or ft
                why = f"{label} of argument {pname} is a {what} (fields that are numbers are read)"
                rec.fields.append(RecordField(fname, PyInt(0, 0), ir.Const(0, ir_dtype(PyInt(0, 0))), PyInt(0, 0),
                                              unsupported=why))  # fmt: skip
                continue
            values = []
            for v in calls:
                with contextlib.suppress(AttributeError, IndexError, TypeError):  # not a record: no value
                    values.append(reader.read(v, fname))
            constant, dt, pt, obs = self.scalar_kind(f"{label} of argument {pname}", fsig, values, line)
            if constant is not None:
                te = self.const_te(constant, line)
                entry = {"value": plain(constant), "pytype": ft, "dtype": ir_dtype(te.pt).name}
                if ft == "npscalar":
                    entry["dtype"] = dt.name
                rec.fields.append(RecordField(fname, te.pt, te.e, te.pt, constant=entry))
                self.note(f"{pname}.{fname} specialised to {plain(constant)!r} (the only value observed)")
                continue
            irn = self.unique_name(f"{pname}.{fname}", c_name(f"{pname}_{fname}"))
            rec.fields.append(RecordField(fname, pt, ir.Var(irn, dt), obs, param=(irn, dt, ft)))
            if ft == "int":
                self.note(
                    f"{pname}.{fname}: Python int, observed {fsig['min']}..{fsig['max']}, passed as {dt.name}"
                )
        self.sc.records[pname] = rec

    def record_of(self, node: ast.expr) -> RecordArg | None:
        """The record argument a name refers to in the current scope, if it is one."""
        if isinstance(node, ast.Name):
            return self.sc.records.get(node.id)
        return None

    def record_parts(self) -> tuple[dict[tuple[int, int], ir.Param], dict[str, ir.StructArg]]:
        """The kernel's scalar parameters of record fields (keyed by position and field) and its
        `structs`: only the fields the body reads are passed or checked."""
        params: dict[tuple[int, int], ir.Param] = {}
        structs: dict[str, ir.StructArg] = {}
        for rec in self.top.records.values():
            constants = {}
            for k, f in enumerate(rec.fields):
                if not f.used:
                    continue
                if f.param is not None:
                    irn, dt, t = f.param
                    params[(rec.position, k)] = ir.Param(
                        irn, "scalar", dt, (), "in", t, ("arg", rec.position), field=f.name
                    )
                elif f.constant is not None:
                    constants[f.name] = dict(f.constant)
            structs[rec.pyname] = ir.StructArg(rec.kind, rec.pytype, rec.names, constants)
        return params, structs

    # ------------------------------------------------------------ reads

    def record_field(self, rec: RecordArg, k: int, line: int) -> TE:
        f = rec.fields[k]
        if f.unsupported:
            raise Reject(line, f.unsupported)
        f.used = True
        return TE(f.obs if self.observed_mode else f.pt, f.e)

    def record_attr(self, rec: RecordArg, attr: str, line: int) -> TE:
        """`p.x`: a field by name (namedtuples and dataclasses)."""
        if rec.kind == "tuple":
            raise Reject(line, f"attribute {rec.pyname}.{attr} of a tuple")
        if attr not in rec.names:
            raise Reject(
                line,
                f"attribute {rec.pyname}.{attr} is not a field of {rec.pytype} "
                f"(its fields are read: {', '.join(rec.names)})",
            )
        return self.record_field(rec, rec.names.index(attr), line)

    def record_item(self, rec: RecordArg, node: ast.Subscript) -> TE:
        """`p[k]`: a field by position; a run-time index selects among fields of one type."""
        line = node.lineno
        if rec.kind == "dataclass":
            raise Reject(line, f"subscript of {rec.what} (a dataclass is read by attribute)")
        if isinstance(node.slice, (ast.Slice, ast.Tuple)):
            raise Reject(line, f"slice of {rec.what} (its items are read one at a time)")
        n = len(rec.fields)
        idx = self.expr(node.slice)
        if isinstance(idx.pt, (PyBool, PyFloat)) or (isinstance(idx.pt, NP) and not idx.pt.dtype.is_int):
            raise Reject(line, f"index of type {describe(idx.pt)}")
        if isinstance(idx.e, ir.Const):
            k = int(idx.e.value)
            if not -n <= k < n:
                raise Reject(line, f"{ast.unparse(node)[:40]}: index {k} out of range for {rec.what} of {n}")
            return self.record_field(rec, k % n, line)
        values = [self.record_field(rec, k, line) for k in range(n)]
        pt = _one_type([v.pt for v in values])
        if pt is None:
            raise Reject(
                line,
                f"{ast.unparse(node)[:40]}: a run-time index into {rec.what}, whose items have "
                f"different types ({', '.join(sorted({describe(v.pt) for v in values}))})",
            )
        dt = ir_dtype(pt)
        at = self.index_of(idx, node.slice, n, line)
        e = cast(values[-1].e, dt)
        for k in range(n - 2, -1, -1):
            e = ir.Select(ir.Cmp("eq", at, const(k, at.dtype)), cast(values[k].e, dt), e, dt)
        return TE(pt, e)

    def record_items(self, rec: RecordArg, line: int, what: str) -> list[TE]:
        """Every item in order, for what iterates over the record (`what` names it)."""
        if rec.kind == "dataclass":
            raise Reject(line, f"{what} {rec.what} (a dataclass is not iterable)")
        return [self.record_field(rec, k, line) for k in range(len(rec.fields))]

    def record_len(self, rec: RecordArg, line: int) -> TE:
        if rec.kind == "dataclass":
            raise Reject(line, f"len() of {rec.what} (a dataclass has no length)")
        return self.const_te(len(rec.fields), line)

    # ------------------------------------------------------------ statements

    def record_unpack(self, rec: RecordArg, names: list[ast.Name], line: int) -> list[ir.Stmt]:
        """`a, b = p`: each name gets its field (fields never change, so no temporaries)."""
        items = self.record_items(rec, line, "unpacking")
        if len(items) != len(names):
            raise Reject(line, f"unpacking {rec.what} of {len(items)} items into {len(names)} names")
        return [self.assign_var(n.id, te, line, None) for n, te in zip(names, items)]

    def record_for(self, s: ast.For) -> list[ir.Stmt] | None:
        """`for c in p:` / `for i, c in enumerate(p):` unrolled, one copy of the body per item;
        None when the loop is not over a record."""
        it, counter = s.iter, None
        if (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "enumerate"
            and not self.is_local_name("enumerate")
            and len(it.args) == 1
            and not it.keywords
            and self.record_of(it.args[0]) is not None
        ):
            it, counter = it.args[0], True
        rec = self.record_of(it)
        if rec is None:
            return None
        line = s.lineno
        items = self.record_items(rec, line, "for loop over")
        if s.orelse:
            raise Reject(line, "for ... else")
        target = s.target
        if counter:
            if not (
                isinstance(target, ast.Tuple)
                and len(target.elts) == 2
                and all(isinstance(t, ast.Name) for t in target.elts)
            ):
                raise Reject(line, "for loop over enumerate() whose target is not two names")
            index_name, target = target.elts[0].id, target.elts[1]
        if not isinstance(target, ast.Name):
            raise Reject(line, "for loop target is not a simple name")
        if any(jumps(b, (ast.Break, ast.Continue)) for b in s.body):
            raise Reject(line, f"break or continue in a loop over {rec.what} (the loop is unrolled)")
        for name in ([index_name] if counter else []) + [target.id]:
            if name in self.arrays:
                raise Reject(line, f"loop variable {name} is also an array")
        self.note(f"line {line}: the loop over {rec.what} is unrolled ({len(items)} items)")
        out: list[ir.Stmt] = []
        for k, te in enumerate(items):
            if counter:
                out.append(self.assign_var(index_name, self.const_te(k, line), line, None))
            out.append(self.assign_var(target.id, te, line, None))
            out.extend(self.block(s.body))
        return out


def _one_type(types: list[PyType]) -> PyType | None:
    """The one type of several items (Python ints of any range join), or None."""
    first = types[0]
    if all(isinstance(t, PyInt) for t in types):
        return PyInt(min(range_of(t)[0] for t in types), max(range_of(t)[1] for t in types))
    if all(t == first for t in types):
        return first
    return None
