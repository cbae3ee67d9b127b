"""Variable types across rounds: one type per variable, the join of its assignments.

Each round records the type of every assignment; `settle` joins them into the
variables' types (a Python int's interval grows, an int meets a numpy type it
fits), and widens an accumulator whose interval keeps growing to what the
profile observed, or to 64 bits. Reading and assigning variables go through
here so that every use sees the variable's one type.
"""

from __future__ import annotations

import ast

import numpy as np

from partition import ir
from partition.dtypes import INT64
from partition.frontend.model import TE, ArrayInfo, Reject, VarState, cast, const
from partition.frontend.types import NP, PyBool, PyFloat, PyInt, PyType, describe, fits, ir_dtype, range_of

WIDEN_AFTER = 3


class Variables:
    """Variable types, assignments and reads (part of `Lowerer`)."""

    def settle(self) -> bool:
        """Join this round's assignment types into the variable types; True if anything changed."""
        changed = self.r.unstable
        for name, pt in sorted(self.r.assigned.items()):
            st = self.vars.setdefault(name, VarState())
            if name in self.r.float_nonconst:
                st.float_consts_only = False
            if st.first is None:
                st.first = pt
            if st.widened:
                continue  # its width is decided; assignments wrap into it
            try:
                new = pt if st.pt is None else self.join(st.pt, pt, name, st)
            except Reject as e:
                raise Reject(self.r.lines.get(name, e.line), e.construct) from None
            if isinstance(new, PyInt):
                new = new.clamp()
            if new != st.pt:
                if st.pt is not None:
                    st.changes += 1
                    if isinstance(new, PyInt) and st.changes >= WIDEN_AFTER:
                        new = self.widen(name, new, st)
                st.pt = new
                changed = True
        return changed

    def widen(self, key: str, pt: PyInt, st: VarState) -> PyInt:
        """A Python int whose interval keeps growing over the rounds (an accumulator): the bound
        that moved goes to int64's end, the one that held stays (interval widening), so a
        counter that only grows keeps its start; its operations are checked where they may
        leave int64 (partition.frontend.overflow)."""
        prev = st.pt if isinstance(st.pt, PyInt) else pt
        lo = prev.lo if pt.lo >= prev.lo else INT64.min
        hi = prev.hi if pt.hi <= prev.hi else INT64.max
        if not st.widened:
            st.widened = True
            _scope, name = self.key_scope.get(key, (self.top, key))
            self.note(
                f"{name}: Python int with no bound the tool can prove, held in int64 (beyond it the call "
                "runs on the CPU)"
            )
        return PyInt(min(lo, pt.lo), max(hi, pt.hi)) if (lo, hi) != (prev.lo, prev.hi) else PyInt(lo, hi)

    def join(self, a: PyType, b: PyType, name: str, st: VarState) -> PyType:
        if a == b:
            return a
        line = self.fn.lineno
        if isinstance(a, PyInt) and isinstance(b, PyInt):
            return PyInt(min(a.lo, b.lo), max(a.hi, b.hi))
        if isinstance(b, (PyInt, PyBool, PyFloat)) and isinstance(a, NP):
            a, b = b, a
        # now a is the Python-typed one when mixing
        if isinstance(a, PyBool) and isinstance(b, PyInt):
            return PyInt(min(0, b.lo), max(1, b.hi))
        if isinstance(a, PyInt) and isinstance(b, PyBool):
            return PyInt(min(0, a.lo), max(1, a.hi))
        if isinstance(a, (PyInt, PyBool)) and isinstance(b, NP):
            iv = range_of(a)
            dt = b.dtype
            if (dt.is_int or dt.is_bool) and fits(iv, dt):
                return b
            if (
                dt.is_float
                and -(2 ** (24 if dt.bits == 32 else 53)) <= iv[0]
                and iv[1] <= 2 ** (24 if dt.bits == 32 else 53)
            ):
                return b
            raise Reject(
                line, f"variable {name} holds both {describe(a)} and {describe(b)} values; give it one type"
            )
        if (
            isinstance(a, PyFloat)
            and isinstance(b, NP)
            and b.dtype.is_float
            and (b.dtype.bits == 64 or st.float_consts_only)
        ):
            return b
        raise Reject(
            line,
            f"variable {name} holds both {describe(a)} and {describe(b)} values; give it one type "
            "(e.g. np.int32(...) or float(...))",
        )

    def join_round(self, a: PyType, b: PyType, name: str) -> PyType:
        st = VarState(float_consts_only=name not in self.r.float_nonconst)
        r = self.join(a, b, name, st)
        return r.clamp() if isinstance(r, PyInt) else r

    def join_values(self, a: PyType, b: PyType, line: int) -> PyType:
        try:
            st = VarState(float_consts_only=False)
            r = self.join(a, b, "of the conditional expression", st)
        except Reject as e:
            raise Reject(line, e.construct.replace("variable of the", "the")) from None
        return r.clamp() if isinstance(r, PyInt) else r

    def var_type(self, name: str, fallback: PyType | None = None) -> PyType:
        st = self.vars.get(name)
        if st is not None and st.pt is not None:
            return st.pt
        self.r.unstable = True
        if name in self.r.assigned:
            return self.r.assigned[name]
        if fallback is not None:
            return fallback
        if name in self.r.like:  # not typed yet: guess the type of the variable it is computed from
            return self.var_type(self.r.like.pop(name))
        return PyInt(0, 0)

    def elem_type(self, arr: ArrayInfo) -> PyType:
        """What reading an element gives; a local list's element type is the join of what it holds."""
        if arr.elem_key is None:
            return arr.elem
        pt = self.var_type(arr.elem_key, fallback=arr.elem)
        arr.elem = pt
        arr.dtype = ir_dtype(pt)
        arr.pytype = "list_np" if isinstance(pt, NP) else "list"
        return pt

    def assign_var(self, pyname: str, te: TE, line: int, value_node: ast.AST | None) -> ir.Stmt:
        if pyname in self.scalar_params or pyname in self.consts or pyname in self.sc.records:
            raise Reject(line, f"assignment to parameter {pyname} (use a new local name)")
        key = self.key(pyname)
        self.defined.add(key)
        self.r.dead_loop_vars.discard(key)
        self.r.lines.setdefault(key, line)
        prev = self.r.assigned.get(key)
        pt = te.pt
        if isinstance(pt, PyFloat) and not (
            isinstance(te.e, ir.Const) and float(np.float32(te.e.value)) == te.e.value
        ):
            self.r.float_nonconst.add(key)
        try:
            self.r.assigned[key] = pt if prev is None else self.join_round(prev, pt, key)
        except Reject as e:
            raise Reject(line, e.construct.replace(key, pyname)) from None
        vt = self.var_type(key, fallback=pt)
        return ir.Assign(self.irname(key), cast(te.e, ir_dtype(vt)), line)

    def read_var(self, name: str, node: ast.AST) -> TE:
        line = self.where(node)
        key = self.key(name)
        if key in self.r.dead_loop_vars:
            raise Reject(line, f"loop variable {name} used after its loop")
        if name in self.sc.for_names and key not in self.defined:
            raise Reject(
                line,
                f"loop variable {name} may be unbound here (its loop may run zero times and nothing "
                "assigned it before)",
            )
        pt = self.var_type(key)
        if isinstance(pt, PyInt) and pt.lo == pt.hi and key in self.vars and not self.vars[key].widened:
            return TE(pt, const(pt.lo, ir_dtype(pt)))
        return TE(pt, ir.Var(self.irname(key), ir_dtype(pt)))
