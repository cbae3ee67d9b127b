"""Datapath of a kernel: the scheduled values as Verilog-2001 wires and registers.

`partition.estimate.schedule.schedule_kernel` is run with a `Recorder` (partition.rtl.recorder)
as its emitter: every value the schedule creates (constant, variable read, operation, load)
becomes a `Node` carrying the cycle the schedule gave it. `Netlist` then prints each node as a
named wire with numpy's exact semantics (ir.py) and provides `at(node, cycle)`: the
node's value as seen in a later cycle of the same region. A value is read in its ready
cycle straight from its wire (operations chain within a cycle) and later from a
free-running register chain (`<wire>_d1`, `_d2`, ...), which is exactly what the
estimator counts as chain registers: because every register of the chain shifts every
cycle, the tap `d` cycles after a value's ready cycle holds that value whatever the
initiation interval of the pipeline it belongs to.

All values are unsigned bit vectors of their dtype's width (bool: 1 bit); signed
operations use `$signed` on named operands only, in wires of their own, so Verilog's
context-determined signedness never changes a result.
"""

from __future__ import annotations

from partition import ir
from partition.dtypes import DType
from partition.estimate.schedule import BankGeometry, RamInfo, bank_geometry
from partition.rtl.literals import bit_slice, const_int, is_lit, lit, lit_value, resize
from partition.rtl.recorder import Node

# -------------------------------------------------------------------- netlist


class Netlist:
    """Verilog text of the datapath: declarations, continuous assignments, registers.

    `active(region, cycle)` (set by the FSM builder) is the condition under which a region
    executes a given cycle; it gates side effects only (register writes, stores, unit
    starts). `var_value(region, name, cycle)` resolves variable reads.
    """

    def __init__(self, kernel: ir.Kernel, rams: dict[str, RamInfo]):
        self.kernel = kernel
        self.rams = rams
        self.decls: list[str] = []
        self.assigns: list[str] = []
        self.regs: list[str] = []  # always blocks (free-running registers)
        self.taps: dict[str, tuple[int, int]] = {}  # wire -> (bits, deepest tap)
        self.units: list[dict] = []  # divider instances
        self.names: dict[int, str] = {}
        self.wire_memo: dict[tuple, str] = {}
        self.active = None  # set by the FSM builder: (region, cycle) -> Verilog condition
        self.var_value = None  # set by the FSM builder: (node, cycle) -> identifier or literal
        self.bus_bits = 32  # m_axi data width (the packing of partitioned buffers' banks)
        self._n = 0

    # ---- naming and wires
    def fresh(self, base: str) -> str:
        self._n += 1
        return f"{base}{self._n}"

    def wire(self, bits: int, expr: str, comment: str = "", base: str = "t") -> str:
        """A named wire holding `expr` (memoised by text)."""
        key = (bits, expr)
        if key in self.wire_memo:
            return self.wire_memo[key]
        name = self.fresh(base)
        rng = f"[{bits - 1}:0] " if bits > 1 else ""
        self.decls.append(f"wire {rng}{name};" + (f"  // {comment}" if comment else ""))
        self.assigns.append(f"assign {name} = {expr};")
        self.wire_memo[key] = name
        return name

    def ident(self, text: str, bits: int) -> str:
        """`text` as something that can be sliced: a literal gets a wire of its own."""
        return self.wire(bits, text) if is_lit(text) else text

    def tap(self, name: str, bits: int, d: int) -> str:
        """The value wire `name` had `d` cycles ago (free-running register chain)."""
        if d == 0 or is_lit(name):
            return name  # a constant (an operation folded to a literal) needs no register
        old = self.taps.get(name, (bits, 0))
        self.taps[name] = (bits, max(old[1], d))
        return f"{name}_d{d}"

    def chain_registers(self) -> None:
        for name, (bits, depth) in sorted(self.taps.items()):
            rng = f"[{bits - 1}:0] " if bits > 1 else ""
            self.decls.append(
                f"reg  {rng}{name}_d1" + "".join(f", {name}_d{k}" for k in range(2, depth + 1)) + ";"
            )
            lines = [f"    {name}_d1 <= {name};"] + [
                f"    {name}_d{k} <= {name}_d{k - 1};" for k in range(2, depth + 1)
            ]
            self.regs.append("always @(posedge ap_clk) begin\n" + "\n".join(lines) + "\nend")

    # ---- values
    def at(self, n: Node, cycle: int) -> str:
        """Identifier or literal of node `n`'s value in `cycle` of its region."""
        if n.kind == "const":
            return lit(const_int(n.value), n.bits)
        if n.kind == "var":
            return self.var_value(n, cycle)
        if n.timing == "wiring":
            key = (n.id, cycle)
            if key not in self.wire_memo:
                self.wire_memo[key] = self._emit(n, cycle)
            return self.wire_memo[key]
        if cycle < n.ready:
            raise AssertionError(
                f"value {n.op_kind or n.kind} read in cycle {cycle} before it is ready ({n.ready})"
            )
        base = self.names.get(n.id)
        if base is None:
            base = self.names[n.id] = self._emit(n, n.issue if n.timing == "unit" else n.ready)
        return self.tap(base, n.bits, cycle - n.ready)

    def truth(self, n: Node, cycle: int) -> str:
        t = self.at(n, cycle)
        return t if n.bits == 1 else self.wire(1, f"|{t}")

    # ---- operations
    def _emit(self, n: Node, cycle: int) -> str:
        if n.kind == "load":
            return self._load(n)
        return self._op(n, cycle)

    def _op(self, n: Node, c: int) -> str:
        e, role, kind, bits = n.node, n.role, n.op_kind, n.bits
        if isinstance(e, ir.Bin) and e.op == "mul" and role is None:
            return self._mul(n, c, _describe(n))
        a = [self.at(x, c) for x in n.operands]
        comment = _describe(n)
        if role == "guard_then":
            return self.wire(1, f"{a[0]} & {self.truth(n.operands[1], c)}", comment)
        if role == "guard_else":
            if len(a) == 1:
                return self.wire(1, f"~{self.truth(n.operands[0], c)}", comment)
            return self.wire(1, f"{a[0]} & ~{self.truth(n.operands[1], c)}", comment)
        if isinstance(role, tuple) and role[0] == "merge":
            return self.wire(bits, f"{self.truth(n.operands[0], c)} ? {a[1]} : {a[2]}", comment)
        if isinstance(role, tuple) and role[0] == "addr_mul":
            x = n.operands[0]
            v = self.sized(a[0], x.bits, bits, x.signed)
            return self.const_mul(v, role[1], bits, comment)
        if role == "addr_add":
            x, y = n.operands
            return self.wire(
                bits,
                f"{self.sized(a[0], x.bits, bits, x.signed)} + {self.sized(a[1], y.bits, bits, y.signed)}",
                comment,
            )
        if isinstance(e, ir.Cast):
            return self._cast(n.operands[0], a[0], e.dtype, comment)
        if isinstance(e, ir.Select):
            return self.wire(bits, f"{self.truth(n.operands[0], c)} ? {a[1]} : {a[2]}", comment)
        if isinstance(e, ir.Logic):
            t0, t1 = self.truth(n.operands[0], c), self.truth(n.operands[1], c)
            return self.wire(1, f"{t0} {'&' if e.op == 'land' else '|'} {t1}", comment)
        if isinstance(e, ir.Cmp):
            return self._cmp(e.op, a[0], a[1], n.operands[0], comment)
        if isinstance(e, ir.Un):
            return self._un(e, n.operands[0], a[0], comment)
        if isinstance(e, ir.Bin):
            return self._bin(n, e, a, c, comment)
        raise AssertionError(f"no Verilog for {kind} {type(e).__name__}")

    def sized(self, name: str, frm: int, to: int, signed: bool) -> str:
        """`name` (a value of `frm` bits) as `to` bits: a literal folded, else a wire."""
        if frm == to:
            return name
        if is_lit(name):
            return lit(lit_value(name, frm, signed), to)
        return self.wire(to, resize(name, frm, to, signed))

    def _cast(self, src: Node, a: str, dst: DType, comment: str) -> str:
        if dst.is_bool:
            return a if src.bits == 1 else self.wire(1, f"|{a}", comment)
        return self.sized(a, src.bits, dst.bits, src.signed)

    def _cmp(self, op: str, a: str, b: str, x: Node, comment: str) -> str:
        sym = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}[op]
        if x.signed and op not in ("eq", "ne"):
            return self.wire(1, f"$signed({a}) {sym} $signed({b})", comment)
        return self.wire(1, f"{a} {sym} {b}", comment)

    def _un(self, e: ir.Un, x: Node, a: str, comment: str) -> str:
        n = x.bits
        if e.op == "not":
            return self.wire(1, f"~{a}" if n == 1 else f"~|{a}", comment)
        if e.op == "invert":
            return self.wire(n, f"~{a}", comment)
        if e.op == "neg":
            return self.wire(n, f"-{a}" if n > 1 else a, comment)
        if e.op == "abs":
            if not x.signed:
                return a
            a = self.ident(a, n)
            neg = self.wire(n, f"-{a}")
            return self.wire(n, f"{a}[{n - 1}] ? {neg} : {a}", comment)
        raise AssertionError(e.op)

    def _bin(self, n: Node, e: ir.Bin, a: list[str], c: int, comment: str) -> str:
        op, bits, x = e.op, n.bits, n.operands[0]
        signed = x.signed
        A, B = a
        if op in ("add", "sub"):
            return self.wire(bits, f"{A} {'+' if op == 'add' else '-'} {B}", comment)
        if op in ("and", "or", "xor"):
            return self.wire(bits, f"{A} {dict(zip(('and', 'or', 'xor'), '&|^'))[op]} {B}", comment)
        if op in ("min", "max"):
            rel = "<" if op == "min" else ">"
            cmp = self.wire(1, f"$signed({B}) {rel} $signed({A})" if signed else f"{B} {rel} {A}")
            return self.wire(bits, f"{cmp} ? {B} : {A}", comment)
        if op in ("shl", "shr"):
            return self._shift(op, A, n.operands[1], B, bits, signed, comment)
        if op in ("floordiv", "mod"):
            return self._div(n, e, a, comment)
        raise AssertionError(op)

    def _shift(self, op: str, A: str, amt: Node, S: str, n: int, signed: bool, comment: str) -> str:
        k = max(1, (n - 1).bit_length())  # bits of an in-range amount
        A = self.ident(A, n)

        def fill() -> str:  # the result of an out-of-range amount
            return self.wire(n, f"{{{n}{{{A}[{n - 1}]}}}}") if (op == "shr" and signed) else lit(0, n)

        if amt.kind == "const":
            s = const_int(amt.value)
            if s < 0 or s >= n:
                return fill()
            if s == 0:
                return A
            if op == "shl":
                return self.wire(n, f"{{{A}[{n - 1 - s}:0], {lit(0, s)}}}", comment)
            hi = f"{{{s}{{{A}[{n - 1}]}}}}" if signed else lit(0, s)
            return self.wire(n, f"{{{hi}, {A}[{n - 1}:{s}]}}", comment)
        w = amt.bits
        S = self.ident(S, w)
        parts = []
        if amt.signed:
            parts.append(f"{S}[{w - 1}]")
            if w - 1 > 0 and (1 << (w - 1)) - 1 >= n:
                parts.append(f"({S}[{w - 2}:0] >= {lit(n, w - 1)})")
        elif (1 << w) - 1 >= n:
            parts.append(f"({S} >= {lit(n, w)})")
        if w == k:
            sh = S
        elif w < k:
            sh = self.sized(S, w, k, False)
        else:
            sh = self.wire(k, f"{S}[{k - 1}:0]")
        shifted = (
            self.wire(n, f"{A} << {sh}")
            if op == "shl"
            else self.wire(n, f"$signed({A}) >>> {sh}" if signed else f"{A} >> {sh}")
        )
        if not parts:
            return shifted
        oor = self.wire(1, " | ".join(parts))
        return self.wire(n, f"{oor} ? {fill()} : {shifted}", comment)

    def const_mul(self, v: str, const: int, bits: int, comment: str = "") -> str:
        """`v` (a `bits`-bit value) times a constant, modulo 2**bits: shift-and-add for a
        constant of at most three set bits, else a multiplier."""
        k = int(const) & ((1 << bits) - 1)
        if k == 0:
            return lit(0, bits)
        if is_lit(v):
            return lit(lit_value(v, bits, False) * k, bits)
        ones = [i for i in range(bits) if k >> i & 1]
        if len(ones) <= 3:
            terms = [v if i == 0 else f"{{{v}[{bits - 1 - i}:0], {lit(0, i)}}}" for i in ones]
            if len(terms) == 1 and terms[0] == v:
                return v
            return self.wire(bits, " + ".join(terms), comment)
        return self.wire(bits, f"{v} * {lit(k, bits)}", comment)

    def _mul(self, n: Node, c: int, comment: str) -> str:
        """Product modulo 2**bits; operands cast from narrower integers multiply at their
        own width (sign-extended), which is what maps a narrow product to LUTs or one DSP."""
        bits = n.bits
        for i in (0, 1):
            other = n.operands[1 - i]
            if other.kind == "const":
                x = self.at(n.operands[i], c)
                return self._unit(n, self.const_mul(x, const_int(other.value), bits, comment), comment)
        opnds = []
        for x in n.operands:
            src = _narrow_source(x)
            if src is not None:
                sx, sbits, ssigned = src
                nm = self.at(sx, c)
                if not ssigned:
                    nm, sbits = self.wire(sbits + 1, f"{{1'b0, {nm}}}"), sbits + 1
                opnds.append(nm)
            else:
                opnds.append(self.at(x, c))
        expr = f"$signed({opnds[0]}) * $signed({opnds[1]})"
        return self._unit(n, self.wire(bits, expr, comment), comment)

    def _unit(self, n: Node, comb: str, comment: str) -> str:
        """A latency-L operation: L pipeline registers after the combinational product."""
        if n.timing != "unit":
            return comb
        prev = comb
        rng = f"[{n.bits - 1}:0] " if n.bits > 1 else ""
        for k in range(1, n.latency + 1):
            name = self.fresh("p")
            self.decls.append(f"reg  {rng}{name};  // {comment}: pipeline stage {k}")
            self.regs.append(f"always @(posedge ap_clk) {name} <= {prev};")
            prev = name
        return prev

    def _div(self, n: Node, e: ir.Bin, a: list[str], comment: str) -> str:
        if n.timing != "unit":  # by a power-of-two constant: shift or mask
            p = const_int(n.operands[1].value).bit_length() - 1
            bits, A = n.bits, self.ident(a[0], n.bits)
            if e.op == "mod":
                return lit(0, bits) if p == 0 else self.sized(self.wire(p, f"{A}[{p - 1}:0]"), p, bits, False)
            if p == 0:
                return A
            hi = f"{{{p}{{{A}[{bits - 1}]}}}}" if n.signed else lit(0, p)
            return self.wire(bits, f"{{{hi}, {A}[{bits - 1}:{p}]}}", comment)
        name = self.fresh("div")
        self.decls.append(f"wire [{n.bits - 1}:0] {name}_res;  // {comment}")
        self.units.append(
            {
                "name": name,
                "bits": n.bits,
                "cw": n.bits.bit_length(),
                "signed": 1 if n.signed else 0,
                "mod": 1 if e.op == "mod" else 0,
                "start": self.active(n.region, n.issue),
                "a": a[0],
                "b": a[1],
                "comment": comment,
            }
        )
        return f"{name}_res"

    def _load(self, n: Node) -> str:
        """The loaded element in the cycle after the access (the RAM's registered output)."""
        ram = self.rams[n.array]
        if ram.banks > 1:
            return self._bank_load(n, ram)
        rdata = n.rdata  # set by the port allocator
        c = n.ready
        if ram.per_word == 1:
            bits_stored = ram.width
            if bits_stored == n.bits:
                return rdata
            return self.wire(
                n.bits, f"{rdata}[{n.bits - 1}:0]" if n.bits > 1 else f"{rdata}[0]", _describe(n)
            )
        eb = ram.elem_bits
        lb = (ram.per_word - 1).bit_length()
        flat = n.operands[0]
        fl = self.ident(
            self.sized(self.at(flat, c), flat.bits, max(flat.bits, lb), flat.signed), max(flat.bits, lb)
        )
        if max(flat.bits, lb) == 1:
            lane = fl  # a 1-bit index is the lane itself (a scalar has no bit-select)
        else:
            lane = self.wire(lb, f"{fl}[{lb - 1}:0]" if lb > 1 else f"{fl}[0]")
        shift = self.wire(lb + (eb - 1).bit_length(), f"{{{lane}, {lit(0, (eb - 1).bit_length())}}}")
        elem = self.wire(eb, f"{rdata}[{shift} +: {eb}]", _describe(n))
        return elem if n.bits == eb else self.wire(n.bits, f"{elem}[0]")

    def bank_fields(self, flat: Node, cycle: int, g: BankGeometry) -> tuple[str, str, str]:
        """(bank, word address in the bank, lane in the bank word) of element index `flat`
        in `cycle`, as Verilog (the lane "" when a bank word holds one element)."""
        total = g.lbf + g.lbq + g.aw
        fl = self.at(flat, cycle)
        wide = self.ident(
            self.sized(fl, flat.bits, max(total, flat.bits), flat.signed), max(total, flat.bits)
        )
        bank = bit_slice(wide, g.lbf - 1, 0)
        lane = bit_slice(wide, g.lbf + g.lbq - 1, g.lbf) if g.lbq else ""
        word = bit_slice(wide, total - 1, g.lbf + g.lbq)
        return bank, word, lane

    def _bank_load(self, n: Node, ram: RamInfo) -> str:
        """A load of a cyclic-partitioned array: the bank's read data (chosen by the index's
        low bits where the schedule leaves the bank open), then the element's lane."""
        g = bank_geometry(ram, self.bus_bits)
        bank, _word, lane = self.bank_fields(n.operands[0], n.ready, g)
        if n.bank_static is not None:
            word = n.bank_rdata[n.bank_static]
        else:
            sel = self.ident(self.wire(g.lbf, bank), g.lbf)
            expr = n.bank_rdata[-1]
            for b in range(g.f - 2, -1, -1):
                expr = f"({sel} == {lit(b, g.lbf)}) ? {n.bank_rdata[b]} : {expr}"
            word = self.wire(g.width, expr, f"{n.array}: the bank of the index")
        eb = ram.elem_bits
        if g.q > 1:
            shift = self.wire(g.lbq + (eb - 1).bit_length(), f"{{{lane}, {lit(0, (eb - 1).bit_length())}}}")
            word = self.wire(eb, f"{word}[{shift} +: {eb}]", _describe(n))
        elif g.width != eb:
            word = self.wire(eb, bit_slice(word, eb - 1, 0))
        if n.bits == eb:
            return word
        return self.wire(n.bits, bit_slice(word, n.bits - 1, 0), _describe(n))


def _narrow_source(x: Node) -> tuple[Node, int, bool] | None:
    """A multiplier operand that is a cast from a narrower integer: (source, bits, signed)."""
    if x.kind == "op" and isinstance(x.node, ir.Cast) and x.operands:
        src = x.operands[0]
        sdt = x.node.operand.dtype
        if (sdt.is_int or sdt.is_bool) and src.bits < x.bits:
            return src, src.bits, sdt.kind == "int"
    return None


def _describe(n: Node) -> str:
    e = n.node
    if isinstance(n.role, tuple) and n.role[0] == "merge":
        return f"if-converted {n.role[1]}"
    if isinstance(n.role, str):
        return n.role.replace("_", " ")
    if isinstance(n.role, tuple):
        return f"address * {n.role[1]}"
    where = f"cycle {n.ready}"
    if isinstance(e, ir.Load):
        return f"{e.array}[...] ({e.dtype}), {where}"
    if isinstance(e, (ir.Bin, ir.Un, ir.Cmp, ir.Logic)):
        return f"{e.op} {e.dtype if not isinstance(e, ir.Cmp) else e.lhs.dtype}, {where}"
    if isinstance(e, ir.Cast):
        return f"{e.operand.dtype} -> {e.dtype}"
    if isinstance(e, ir.Select):
        return f"select {e.dtype}, {where}"
    return n.op_kind


def word_address_bits(ram: RamInfo) -> int:
    return max(1, (max(ram.depth, 1) - 1).bit_length())
