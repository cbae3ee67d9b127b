"""The RAMs of a kernel and what drives their ports: compute accesses and the phases.

Every array buffer, local array and ROM is a dual-port RAM, or F bank RAMs when a variant
cyclic-partitions it (`bank_geometry`: bank b holds the elements i with i mod F == b). The
schedule bound every access to a port (and, for banks, a bank frame); `RamPorts.allocate`
gives the recorded accesses those ports, `access_sources` drives them from the compute
datapath, and the load/store/initialisation phases add their own sources (a beat scattered
into the banks, gathered from them, two elements a cycle). `instances` turns each port's
sources into the RAM instance records the Verilog template prints.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from partition import ir
from partition.dtypes import DType
from partition.estimate.schedule import BankGeometry, RamInfo, bank_geometry
from partition.rtl.datapath import Netlist, word_address_bits
from partition.rtl.fsm import Registers
from partition.rtl.literals import bit_slice, lit
from partition.rtl.recorder import Access, Region, dtype_bits


@dataclass
class Port:
    """Everything that drives one RAM port: (active, address, write lanes, write data)."""

    sources: list[tuple[str, str, str, str]] = field(default_factory=list)


class RamPorts:
    """The RAM ports of one kernel: per (array or bank, port) the sources that drive it."""

    def __init__(self, kernel: ir.Kernel, rams: dict[str, RamInfo], net: Netlist, bus: int, regs: Registers):
        self.k = kernel
        self.rams = rams
        self.net = net
        self.bus = bus
        self.regs = regs
        self.ports: dict[tuple[str, str], Port] = {}

    def allocate(self, regions: Iterable[Region]) -> None:
        """Give every access a RAM port: at most two share a cycle (a pipeline slot)."""
        groups: dict[tuple, list] = {}
        for region in regions:
            for acc in region.accesses:
                slot = acc.cycle % region.ii if region.role == "body" else acc.cycle
                groups.setdefault((acc.array, id(region), slot), []).append(acc)
        for key in sorted(groups, key=lambda k: (k[0], k[1], k[2])):
            if self.rams[key[0]].banks > 1:
                self.bank_ports(groups[key])
                continue
            accs = sorted(groups[key], key=lambda a: a.kind != "store")
            if len(accs) > 2:
                raise AssertionError(f"more than two accesses to {key[0]} in one cycle")
            for acc, port in zip(accs, "ab"):
                acc.port = port
                if acc.kind == "load":
                    acc.node.rdata = f"{self.ram_sig(acc.array)}_{port}_rdata"

    def bank_ports(self, accs: list[Access]) -> None:
        """The accesses of one cycle (pipeline slot) to a partitioned array take the ports the
        schedule gave them: port p of the bank the index selects. The schedule put on one
        port only accesses of one bank frame with different residues, so they never meet
        on a bank; an access whose bank is static drives that bank's port only."""
        seen: dict[int, tuple] = {}
        for acc in accs:
            frame = "any" if acc.bank is None else acc.bank[0]
            res = set(range(self.rams[acc.array].banks)) if acc.bank is None else {acc.bank[1]}
            fr, taken = seen.get(acc.plane, (frame, set()))
            if fr != frame or taken & res:
                raise AssertionError(f"two accesses to {acc.array} may meet on a bank's port {acc.plane}")
            seen[acc.plane] = (fr, taken | res)
            acc.port = "ab"[acc.plane]
            if acc.kind == "load":
                g = bank_geometry(self.rams[acc.array], self.bus)
                acc.node.bank_rdata = [f"{self.ram_sig(acc.array, b)}_{acc.port}_rdata" for b in range(g.f)]
                acc.node.bank_static = _static_bank(acc)

    def ram_sig(self, array: str, bank: int | None = None) -> str:
        base = f"{array}_buf" if self.rams[array].kind == "buffer" else f"loc_{array}"
        return base if bank is None else f"{base}_b{bank}"

    def port(self, array: str, p: str, bank: int | None = None) -> Port:
        return self.ports.setdefault((_key(array, bank), p), Port())

    def bank_access(self, acc: Access, act: str) -> None:
        """Drive port acc.port of the bank(s) an access to a partitioned array may reach
        (in the cycle the FSM makes `act` true)."""
        ram = self.rams[acc.array]
        g = bank_geometry(ram, self.bus)
        bank, word, lane = self.net.bank_fields(acc.addr, acc.cycle, g)
        addr = self.net.wire(g.aw, word) if word[-1] == "]" else word
        static = _static_bank(acc)
        if acc.kind == "load":
            we, wdata, we_on = lit(0, g.nb), lit(0, g.width), None
        else:
            val = self._store_value(acc, ram.elem_bits)
            we_on = act if acc.guard is None else f"{act} && {self.net.truth(acc.guard, acc.cycle)}"
            if g.q > 1:
                wdata = self.net.wire(g.width, f"{{{g.q}{{{val}}}}}")
                per = ram.elem_bits // 8
                sh = (
                    lane
                    if per == 1
                    else self.net.wire(
                        g.lbq + (per - 1).bit_length(), f"{{{lane}, {lit(0, (per - 1).bit_length())}}}"
                    )
                )
                we = f"({lit((1 << per) - 1, g.nb)} << {sh})"
            else:
                wdata, we = val, lit((1 << g.nb) - 1, g.nb)
        for b in range(g.f) if static is None else (static,):
            hit = act if static is not None else self.net.wire(1, f"{act} && ({bank} == {lit(b, g.lbf)})")
            if we_on is None:
                we_b = lit(0, g.nb)
            else:
                on = we_on if static is not None else f"({we_on}) && ({bank} == {lit(b, g.lbf)})"
                we_b = self.net.wire(g.nb, f"({on}) ? {we} : {lit(0, g.nb)}")
            self.port(acc.array, acc.port, b).sources.append((hit, addr, we_b, wdata))

    def _store_value(self, acc: Access, eb: int) -> str:
        """The stored element as the `eb` bits the RAM keeps of it."""
        data = self.net.at(acc.data, acc.cycle)
        dt = acc.elem_dtype
        val = self.net.sized(data, acc.data.bits, dtype_bits(dt), acc.data.signed)
        if dt.is_bool and acc.data.bits > 1:
            val = self.net.wire(1, f"|{data}")
        if eb != dtype_bits(dt):
            val = self.net.sized(val, dtype_bits(dt), eb, False)
        return val

    # ---- partitioned arrays: the phases' ports and the bank RAMs
    def engine_address_bits(self, array: str) -> int:
        """Address bits of the engines' beat counter for `array`'s transfer."""
        ram = self.rams[array]
        if ram.banks == 1:
            return word_address_bits(ram) + (ram.width // self.bus - 1)
        g = bank_geometry(ram, self.bus)
        shift, _split = self._beat_split(g)
        beats = math.ceil(ram.elems * ram.elem_bits / self.bus)
        return max(shift + g.aw, (beats - 1).bit_length(), 1)

    def _beat_split(self, g: BankGeometry) -> tuple[int, str]:
        """How a bus beat t maps onto the banks: (low bits of t below the bank word address,
        kind): "half" (an element is two beats, low half first: bank (t / 2) mod F), "all"
        (a beat is one word of every bank), "group" (a beat holds P < F elements: the banks
        (t mod F/P) P .. + P - 1)."""
        if g.elem_bits > self.bus:
            return g.lbf + 1, "half"
        per = self.bus // g.elem_bits
        if per >= g.f:
            return 0, "all"
        return (g.f // per).bit_length() - 1, "group"

    def _beats(self, array: str, beat: str) -> tuple:
        """(bank geometry, `_beat_split`, the banks' word address from engine beat `beat`)."""
        g = bank_geometry(self.rams[array], self.bus)
        shift, kind = self._beat_split(g)
        return g, shift, kind, bit_slice(beat, shift + g.aw - 1, shift)

    def bank_load_port(
        self, array: str, act: str, beat: str = "rd_addr", we: str = "rd_we", wdata: str = "rd_wdata"
    ) -> None:
        """The load phase scatters each beat into the banks (port a): bank b takes the
        elements i with i mod F == b. `beat`, `we`, `wdata`: the engine's beat index, write
        strobe and bus word (the burst read engine's, or an AXI-Stream slave's)."""
        net, bus = self.net, self.bus
        g, shift, kind, addr = self._beats(array, beat)
        eb = g.elem_bits
        en = f"{act} && {we}"
        full = lit((1 << g.nb) - 1, g.nb)
        for b in range(g.f):
            if kind == "half":
                hit = net.wire(1, f"{en} && ({bit_slice(beat, g.lbf, 1)} == {lit(b, g.lbf)})")
                lanes = net.wire(8, f"{beat}[0] ? 8'hf0 : 8'h0f")
                data = net.wire(64, f"{{2{{{wdata}}}}}")
            elif kind == "all":
                hit, lanes = en, full
                parts = [
                    bit_slice(wdata, (b + g.f * q) * eb + eb - 1, (b + g.f * q) * eb) for q in range(g.q)
                ]
                data = net.wire(g.width, parts[0] if g.q == 1 else "{" + ", ".join(reversed(parts)) + "}")
            else:
                per = bus // eb
                hit = net.wire(1, f"{en} && ({bit_slice(beat, shift - 1, 0)} == {lit(b // per, shift)})")
                lanes = full
                data = net.wire(eb, bit_slice(wdata, (b % per) * eb + eb - 1, (b % per) * eb))
            we = net.wire(g.nb, f"({hit}) ? {lanes} : {lit(0, g.nb)}")
            self.port(array, "a", b).sources.append((hit, addr, we, data))

    def bank_store_port(
        self, array: str, act: str, beat: str = "wr_addr", re: str = "wr_re"
    ) -> tuple[str, int]:
        """The store phase reads every bank at the beat's word (port a) and gathers the beat
        from them: (its read data, beats per RAM word as `sub`). `beat`, `re`: the engine's
        beat index and read strobe (the burst write engine's, or an AXI-Stream master's)."""
        net, bus = self.net, self.bus
        g, shift, kind, addr = self._beats(array, beat)
        eb = g.elem_bits
        en = f"{act} && {re}"
        for b in range(g.f):
            self.port(array, "a", b).sources.append((en, addr, lit(0, g.nb), lit(0, g.width)))
        rd = [f"{self.ram_sig(array, b)}_a_rdata" for b in range(g.f)]
        if kind == "all":
            per = bus // eb
            parts = [bit_slice(rd[j % g.f], (j // g.f) * eb + eb - 1, (j // g.f) * eb) for j in range(per)]
            return net.wire(bus, "{" + ", ".join(reversed(parts)) + "}", f"{array}: a beat from the banks"), 1
        # the bank group of the beat being read, for the read data of the next cycle
        sel_bits = g.lbf if kind == "half" else shift
        sel = self.regs.reg(f"wsel_{array}", sel_bits)
        self.regs.write(
            sel, en, bit_slice(beat, g.lbf, 1) if kind == "half" else bit_slice(beat, shift - 1, 0)
        )
        if kind == "half":
            options = rd
        else:
            per = bus // eb
            options = [
                "{" + ", ".join(bit_slice(rd[grp * per + j], eb - 1, 0) for j in reversed(range(per))) + "}"
                for grp in range(g.f // per)
            ]
        expr = options[-1]
        for i in range(len(options) - 2, -1, -1):
            expr = f"({sel} == {lit(i, sel_bits)}) ? {options[i]} : {expr}"
        width = 64 if kind == "half" else bus
        return net.wire(width, expr, f"{array}: a beat from the banks"), 2 if kind == "half" else 1

    def bank_init_port(self, array: str, port: str, off: int, cb: int, ok: str, data: str) -> None:
        """Initialisation of a partitioned local array: element 2 init_i + off (port a: even,
        b: odd) is in bank (2 init_i + off) mod F, word init_i / (F / 2)."""
        net = self.net
        g = bank_geometry(self.rams[array], self.bus)
        lo = g.lbf - 1  # bits of init_i that pick the bank among the even (odd) ones
        if cb > lo:
            word = net.sized(net.wire(cb - lo, bit_slice("init_i", cb - 1, lo)), cb - lo, g.aw, False)
        else:
            word = lit(0, g.aw)
        if lo:
            sel = net.sized("init_i", cb, lo, False) if cb <= lo else bit_slice("init_i", lo - 1, 0)
        for b in range(off, g.f, 2):
            hit = ok if lo == 0 else net.wire(1, f"{ok} && ({sel} == {lit(b >> 1, lo)})")
            self.port(array, port, b).sources.append((hit, word, hit, data))

    def instances(self, array: str) -> tuple[list[dict], list[dict]]:
        """The RAMs (or ROMs) of `array`, one a bank when it is partitioned: instance and ROM
        module records."""
        ram = self.rams[array]
        if ram.banks == 1:
            parts = [(None, ram.width, lanes(ram), ram.depth, word_address_bits(ram))]
        else:
            g = bank_geometry(ram, self.bus)
            parts = [(b, g.width, g.nb, g.depth, g.aw) for b in range(g.f)]
        insts, roms = [], []
        for b, width, nb, depth, aw in parts:
            inst = {
                "sig": self.ram_sig(array, b),
                "width": width,
                "nb": nb,
                "depth": depth,
                "aw": aw,
                "ports": {},
            }
            for p in "ab":
                srcs = self.ports.get((_key(array, b), p), Port()).sources
                inst["ports"][p] = port_exprs(srcs, aw, nb, width)
            inst["rom"] = ram.kind == "rom"
            if inst["rom"]:
                local = next(a for a in self.k.locals if a.name == array)
                inst["module"] = f"{self.k.name}_rom_{array}" + ("" if b is None else f"_b{b}")
                roms.append(
                    {
                        "module": inst["module"],
                        "array": array
                        if b is None
                        else f"{array} (bank {b} of {g.f}: elements {b}, {b + g.f}, ...)",
                        "dtype": local.dtype.name,
                        "shape": " x ".join(str(d) for d in local.shape),
                        "width": width,
                        "depth": depth,
                        "aw": aw,
                        "words": [
                            lit(const_word(x, local.dtype), width)
                            for x in (local.init if b is None else local.init[b :: g.f])
                        ],
                    }
                )
            else:
                inst["module"] = f"{self.k.name}_ram_be"
            inst["kind"] = (
                ram.kind
                if b is None
                else f"{ram.kind}, bank {b} of {g.f} (elements i with i mod {g.f} == {b})"
            )
            inst["impl"] = ram.cost.impl
            insts.append(inst)
        return insts, roms

    def access_sources(self, accesses: list[Access], active: Callable[[Region, int], str]) -> None:
        """Drive the ports of the compute datapath's accesses, each in the cycle `active`
        (the FSM's condition for a region's cycle) says."""
        for acc in accesses:
            ram = self.rams[acc.array]
            act = active(acc.region, acc.cycle)
            if ram.banks > 1:
                self.bank_access(acc, act)
                continue
            aw = word_address_bits(ram)
            nb = lanes(ram)
            flat = acc.addr
            fl = self.net.at(flat, acc.cycle)
            if ram.per_word > 1:
                lb = (ram.per_word - 1).bit_length()
                wide = self.net.ident(self.net.sized(fl, flat.bits, lb + aw, flat.signed), lb + aw)
                addr = self.net.wire(aw, f"{wide}[{lb + aw - 1}:{lb}]" if aw > 1 else f"{wide}[{lb}]")
            else:
                lb = 0
                addr = self.net.sized(fl, flat.bits, aw, flat.signed)
            if acc.kind == "load":
                self.port(acc.array, acc.port).sources.append((act, addr, lit(0, nb), lit(0, ram.width)))
                continue
            eb = ram.elem_bits
            val = self._store_value(acc, eb)
            we_on = act if acc.guard is None else f"{act} && {self.net.truth(acc.guard, acc.cycle)}"
            if ram.per_word > 1:
                wdata = self.net.wire(ram.width, f"{{{ram.per_word}{{{val}}}}}")
                lanes_per = eb // 8
                base = lit((1 << lanes_per) - 1, nb)
                lane = self.net.ident(
                    self.net.sized(fl, flat.bits, max(flat.bits, lb), flat.signed), max(flat.bits, lb)
                )
                if max(flat.bits, lb) > 1:  # a 1-bit index is the lane itself (no bit-select of a scalar)
                    lane = self.net.wire(lb, f"{lane}[{lb - 1}:0]" if lb > 1 else f"{lane}[0]")
                sh = (
                    lane
                    if lanes_per == 1
                    else self.net.wire(
                        lb + (lanes_per - 1).bit_length(),
                        f"{{{lane}, {lit(0, (lanes_per - 1).bit_length())}}}",
                    )
                )
                we = self.net.wire(nb, f"({we_on}) ? ({base} << {sh}) : {lit(0, nb)}")
            else:
                wdata = val
                we = self.net.wire(nb, f"({we_on}) ? {lit((1 << nb) - 1, nb)} : {lit(0, nb)}")
            self.port(acc.array, acc.port).sources.append((act, addr, we, wdata))


def _key(array: str, bank: int | None) -> str:
    """The `ports` key of `array` (of one of its banks)."""
    return array if bank is None else f"{array}#{bank}"


def _static_bank(acc: Access) -> int | None:
    """The bank an access always reaches (the schedule's static frame), else None."""
    return acc.bank[1] if acc.bank is not None and acc.bank[0] == () else None


def lanes(ram: RamInfo) -> int:
    """Write lanes (bytes) of a RAM word: a buffer's bytes, one for a local array."""
    return ram.width // 8 if ram.kind == "buffer" else 1


def const_word(x: object, dt: DType) -> int:
    """An element of an initial value as the unsigned bits of its RAM word."""
    v = int(bool(x)) if dt.is_bool else int(x)
    return v & ((1 << dtype_bits(dt)) - 1)


def port_exprs(srcs: list[tuple[str, str, str, str]], aw: int, nb: int, width: int) -> dict:
    """A RAM port's enable, write lanes, address and write data: the OR of its sources'
    (each gated by its own condition)."""
    if not srcs:
        return {"en": "1'b0", "we": lit(0, nb), "addr": lit(0, aw), "wdata": lit(0, width), "used": False}
    en = " | ".join(f"({a})" for a, *_ in srcs)
    we = " | ".join(w for _a, _ad, w, _d in srcs if not w.endswith("'h0") and w != "1'b0") or lit(0, nb)
    if len(srcs) == 1:
        addr = srcs[0][1]
    else:
        addr = " | ".join(f"({{{aw}{{{a}}}}} & {ad})" for a, ad, _w, _d in srcs)
    writers = [(a, d) for a, _ad, w, d in srcs if not (w.endswith("'h0") or w == "1'b0")]
    if not writers:
        wdata = lit(0, width)
    elif len(writers) == 1:
        wdata = writers[0][1]
    else:
        wdata = " | ".join(f"({{{width}{{{a}}}}} & {d})" for a, d in writers)
    return {"en": en, "we": we, "addr": addr, "wdata": wdata, "used": True}
