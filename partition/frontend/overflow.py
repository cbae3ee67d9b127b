"""Where Python would leave what the kernel computes in: the fallback status.

Python ints have no width; the kernel computes them in at most 64 bits. Where
the range analysis cannot prove that a Python int operation stays within
int64 (an accumulator over int64 inputs, a product of two unbounded values),
the kernel computes it in int64 and sets its fallback status
(`ir.Kernel.status`) when the exact result would not fit. Likewise where Python
raises and a kernel cannot: a Python int division by zero, a Python number
divided by zero, a Python int that does not fit the numpy integer it meets
(NumPy 2 raises OverflowError), `int()` of a float that is NaN, infinite or
beyond 64 bits. The host runs such a call on the CPU, where Python computes it
(or raises) itself, so the kernel is right for every input.

The checks are ordinary IR statements placed before the statement being
lowered (`pending`): `if <cond>: status = 1`, over the operands held in
temporaries so each is computed once. The interpreter and both backends then
compute the status exactly alike. A check may also run where Python would not
have evaluated the expression (an `and`/`or` operand, one side of a
conditional expression: the IR evaluates both); it then only sends a call to
the CPU that the kernel could have done, never a wrong result.
"""

from __future__ import annotations

from partition import ir
from partition.dtypes import BOOL, INT64, UINT8, DType
from partition.frontend.model import TE, VarState, cast, const
from partition.frontend.types import NP, PyBool, PyFloat, PyInt, fits, range_of

STATUS_KEY = "@status"  # not a Python name: the table key of the kernel's status variable
I64_MIN, I64_MAX = INT64.min, INT64.max
_TWO63 = 9.223372036854775808e18  # 2**63 as a float (exact)


def _or(a: ir.Expr | None, b: ir.Expr) -> ir.Expr:
    return b if a is None else ir.Logic("lor", a, b)


class Overflow:
    """Checks that hand a call back to the CPU (part of `Lowerer`)."""

    def status_name(self) -> str:
        """The IR name of the kernel's status variable (made on first use)."""
        self.r.status = True
        if STATUS_KEY in self.ir_names:
            return self.ir_names[STATUS_KEY]
        return self.unique_name(STATUS_KEY, "fallback_st")

    def fallback_if(self, cond: ir.Expr, line: int) -> None:
        """Before the current statement: the call goes back to the CPU when `cond` holds."""
        if isinstance(cond, ir.Const) and not cond.value:
            return
        self.pending.append(ir.If(cond, [ir.Assign(self.status_name(), const(1, UINT8), line)], [], line))

    def checked_operand(self, e: ir.Expr, line: int) -> ir.Expr:
        """`e` computed once into a temporary (constants, variables and loads stay as they are)."""
        if isinstance(e, (ir.Const, ir.Var, ir.Load)):
            return e
        # numbered apart from the other temporaries: checks appear in later rounds only (after an
        # accumulator widened), and must not shift the names other temporaries have across rounds
        self.r.check_counter += 1
        key = f"__ck{self.r.check_counter}"
        self.vars[key] = VarState(pt=NP(e.dtype))
        v = ir.Var(self.irname(key), e.dtype)
        self.pending.append(ir.Assign(v.name, e, line))
        return v

    def checked_int(self, op: str, a: TE, b: TE | None, line: int) -> TE:
        """A Python int operation whose exact result may leave int64: computed in int64, the
        status set when the exact result would not fit (`op`: add, sub, mul, shl, floordiv,
        neg, abs)."""
        x = self.checked_operand(cast(a.e, INT64), line)
        y = self.checked_operand(cast(b.e, INT64), line) if b is not None else None
        top = PyInt(I64_MIN, I64_MAX)
        if op in ("neg", "abs"):
            r = self.checked_operand(ir.Un(op, x, INT64), line)
            self.fallback_if(ir.Cmp("eq", x, const(I64_MIN, INT64)), line)
            return TE(top if op == "neg" else PyInt(0, I64_MAX), r)
        assert y is not None and b is not None
        if op == "shl":
            r = self.checked_operand(ir.Bin("shl", x, y, INT64), line)
            back = ir.Bin("shr", r, y, INT64)
            cond: ir.Expr = ir.Cmp("ne", back, x)  # amounts of 64 or more give 0, so they fail unless x == 0
            if range_of(b.pt)[0] < 0:
                cond = ir.Logic("lor", ir.Cmp("lt", y, const(0, INT64)), cond)  # Python raises ValueError
            self.fallback_if(cond, line)
            return TE(top, r)
        r = self.checked_operand(ir.Bin(op, x, y, INT64), line)
        zero = const(0, INT64)
        if op == "add":
            cond = ir.Cmp(
                "lt", ir.Bin("and", ir.Bin("xor", x, r, INT64), ir.Bin("xor", y, r, INT64), INT64), zero
            )
        elif op == "sub":
            cond = ir.Cmp(
                "lt", ir.Bin("and", ir.Bin("xor", x, y, INT64), ir.Bin("xor", x, r, INT64), INT64), zero
            )
        elif op == "floordiv":
            cond = ir.Logic("land", ir.Cmp("eq", x, const(I64_MIN, INT64)), ir.Cmp("eq", y, const(-1, INT64)))
        elif op == "mul":
            cond = self._product_may_overflow(x, y, range_of(a.pt), range_of(b.pt))
        else:  # pragma: no cover - the callers pass the ops above
            raise AssertionError(op)
        self.fallback_if(cond, line)
        return TE(top, r)

    @staticmethod
    def _product_may_overflow(x: ir.Expr, y: ir.Expr, rx: tuple[int, int], ry: tuple[int, int]) -> ir.Expr:
        """A condition true whenever x * y may leave int64: where one operand's magnitude is at
        most M (the smaller of the two), |other| <= I64_MAX // M keeps the product inside, so
        the check bounds the other operand by that (a product by a literal 3 sends a call to
        the CPU only when the other factor is beyond 2**63 / 3); where neither range is known,
        conservative (a product of a value beyond 2**31 and one beyond 2**32 goes to the CPU
        even when it would fit)."""
        mx, my = max(abs(rx[0]), abs(rx[1])), max(abs(ry[0]), abs(ry[1]))
        if min(mx, my) == 0:
            return const(False, BOOL)
        if max(mx, my) <= I64_MAX // min(mx, my):
            return const(False, BOOL)
        if min(mx, my) <= I64_MAX:
            v = y if mx <= my else x
            lims = [(v, I64_MAX // min(mx, my))]
        else:
            lims = [(x, (1 << 31) - 1), (y, (1 << 32) - 1)]
        cond: ir.Expr | None = None
        for v, lim in lims:
            out = ir.Logic("lor", ir.Cmp("lt", v, const(-lim, INT64)), ir.Cmp("gt", v, const(lim, INT64)))
            cond = _or(cond, out)
        assert cond is not None
        return cond

    def check_divisor(self, a: TE, b: TE, line: int) -> None:
        """Python raises ZeroDivisionError for a Python number divided by zero (numpy scalars give
        inf, NaN or 0 instead): the call goes to the CPU when the divisor may be zero."""
        if not all(isinstance(t.pt, (PyInt, PyFloat, PyBool)) for t in (a, b)):
            return
        r = range_of(b.pt)
        if r is not None and not r[0] <= 0 <= r[1]:
            return
        if isinstance(b.e, ir.Const):
            return  # a literal zero divisor: the frontend's constant folding meets Python's error first
        self.fallback_if(ir.Cmp("eq", b.e, const(0, b.e.dtype)), line)

    def fitting(self, te: TE, dt: DType, line: int) -> ir.Expr:
        """A Python int as numpy integer `dt`: NumPy 2 raises OverflowError for one out of its
        range, so the call goes to the CPU then; the value cast to `dt` otherwise."""
        pt = te.pt
        if (
            not isinstance(pt, PyInt)
            or not dt.is_int
            or fits((pt.lo, pt.hi), dt)
            or isinstance(te.e, ir.Const)
        ):
            return cast(te.e, dt)
        x = self.checked_operand(te.e, line)
        wide = x.dtype
        cond = ir.Logic(
            "lor",
            ir.Cmp("lt", x, const(max(dt.min, wide.min), wide)),
            ir.Cmp("gt", x, const(min(dt.max, wide.max), wide)),
        )
        self.fallback_if(cond, line)
        return cast(x, dt)

    def float_to_int(self, a: TE, line: int) -> TE:
        """int() of a float: Python raises for NaN and infinities and gives a wider int beyond
        64 bits, so the call goes to the CPU unless -2**63 <= x < 2**63."""
        x = self.checked_operand(a.e, line)
        self.check_int64_float(x, line)
        return TE(PyInt(I64_MIN, I64_MAX), ir.Cast(x, INT64))

    def check_int64_float(self, x: ir.Expr, line: int) -> None:
        """The call goes to the CPU unless the float `x` lies in [-2**63, 2**63) (NaN does not)."""
        dt = x.dtype
        inside = ir.Logic("land", ir.Cmp("ge", x, const(-_TWO63, dt)), ir.Cmp("lt", x, const(_TWO63, dt)))
        self.fallback_if(ir.Un("not", inside, BOOL), line)
