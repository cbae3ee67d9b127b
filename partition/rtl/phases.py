"""The call's phases around compute: the phase FSM, the engines' buffer ports, initialisation.

One call: IDLE -> START (1) -> per in/inout array a load phase (1 + its bursts) ->
re-initialisation of written local arrays with an initial value (ceil(depth / 2)) ->
compute -> POST (1, starts the first store) -> per out/inout array a store phase (1 + its
bursts) -> DONE (1), which is `control_cycles` + load + init + compute + store. Each
transfer phase waits for its engine's done pulse; a burst engine's beat is one RAM word
(two for elements wider than the bus), a streamed array has an AXI-Stream engine of its own
(partition.rtl.streams), and the initialisation writes two words a cycle through both
ports. The compute FSM between them is the schedule's (partition.rtl.fsm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from partition import ir
from partition.estimate import tables
from partition.rtl.datapath import word_address_bits
from partition.rtl.design import Design
from partition.rtl.fsm import State
from partition.rtl.literals import bit_slice, lit
from partition.rtl.rams import const_word, lanes
from partition.rtl.streams import stream_in, stream_out
from partition.rtl.support import RtlVariantUnsupported


@dataclass
class Phases:
    """The phase FSM's states, and what the templates print of the engines."""

    idle: State
    start: State
    loads: list[State]
    inits: list[State]
    compute: State  # the first state of compute (the schedule's FSM)
    post: State
    stores: list[State]
    done: State
    engine: dict = field(default_factory=dict)  # the burst engines: widths, per array when and where
    streams: list[dict] = field(default_factory=list)  # the AXI-Stream engines
    inits_info: list[dict] = field(default_factory=list)  # initial values of the re-initialised locals

    @property
    def after_loads(self) -> State:
        return self.inits[0] if self.inits else self.compute


def build_phases(d: Design) -> Phases:
    """The phase FSM around the compute FSM of `d`, with its engines' ports on the RAMs."""
    k, rams = d.k, d.rams
    loads = [p for p in k.arrays if p.direction in ("in", "inout") and not p.tiled]
    stores = [p for p in k.arrays if p.direction in ("out", "inout") and not p.tiled]
    inits = [a for a in k.locals if a.init is not None and rams[a.name].kind == "local"]

    idle = d.fsm.state("idle: wait for ap_start")
    start = d.fsm.state("start: sample the arguments")
    done = d.fsm.state("done: ap_done, ap_ready")
    post = d.fsm.state("post: start the first store")
    idle.branch = ("ap_start", start, idle)
    done.next = idle
    ld_states = [d.fsm.state(f"{'stream in' if p.stream else 'load'} {p.name}") for p in loads]
    st_states = [d.fsm.state(f"{'stream out' if p.stream else 'store'} {p.name}") for p in stores]
    init_states = [d.fsm.state(f"initialise {a.name}") for a in inits]
    compute = d.fsm.block(d.sched.body, post, None)
    ph = Phases(idle, start, ld_states, init_states, compute, post, st_states, done)
    # phase chain: each transfer phase waits for its engine's done pulse
    ld_done = [f"si_{p.name}_done" if p.stream else "rd_done" for p in loads]
    st_done = [f"so_{p.name}_done" if p.stream else "wr_done" for p in stores]
    start.next = ld_states[0] if ld_states else ph.after_loads
    for i, st in enumerate(ld_states):
        st.branch = (ld_done[i], ld_states[i + 1] if i + 1 < len(ld_states) else ph.after_loads, st)
    for i, st in enumerate(init_states):
        st.branch = ("init_last", init_states[i + 1] if i + 1 < len(init_states) else compute, st)
    post.next = st_states[0] if st_states else done
    for i, st in enumerate(st_states):
        st.branch = (st_done[i], st_states[i + 1] if i + 1 < len(st_states) else done, st)
    for name_ in sorted(d.fsm.written & set(d.fsm.params)):
        p = d.fsm.params[name_]
        src = f"|arg_{name_}" if p.dtype.is_bool else f"arg_{name_}"
        d.regs.write(d.fsm.vreg(name_), start.ref, src)

    d.mem.access_sources(d.fsm.accesses, d.fsm.active)
    _engines(d, ph, loads, ld_done, stores, st_done)
    if inits:
        _initialisation(d, ph, inits)
    return ph


def _engines(
    d: Design,
    ph: Phases,
    loads: list[ir.Param],
    ld_done: list[str],
    stores: list[ir.Param],
    st_done: list[str],
) -> None:
    """The engines' ports on the buffers during the load and store phases.

    One engine word (bus beat) is one RAM word, except for elements wider than the bus
    (int64 on the 32-bit bus): `sub` = 2 beats a word, the low half first. A streamed
    array moves through an AXI-Stream engine of its own instead (`stream_in`/`stream_out`)."""
    net, rams, bus = d.net, d.rams, d.bus
    mem = [p for p in d.k.arrays if not p.stream]
    len_w = tables.len_bits_for(max([p.nbytes for p in mem] or [1]))
    engine_rams = [p.name for p in mem if not p.tiled] + [a.name for a in d.k.locals if a.tile_of]
    eng_aw = max([d.mem.engine_address_bits(name) for name in engine_rams] or [1])
    engine = ph.engine = {"aw": eng_aw, "len_w": len_w, "loads": [], "stores": []}
    for i, p in enumerate(loads):
        ram = rams[p.name]
        prev = ph.start if i == 0 else ph.loads[i - 1]
        when = prev.ref if i == 0 else f"({prev.ref} && {ld_done[i - 1]})"
        if p.stream:
            ph.streams.append(stream_in(d.mem, p, when, ph.loads[i].ref))
            continue
        if ram.banks > 1:
            d.mem.bank_load_port(p.name, ph.loads[i].ref)
            engine["loads"].append({"when": when, "base": f"arg_{p.name}", "nbytes": _nbytes(d, p, len_w)})
            continue
        sub = ram.width // bus
        assert ram.width % bus == 0 and sub in (1, 2) and (sub == 1 or bus == 32), (p.name, ram.width, bus)
        aw = word_address_bits(ram)
        act = ph.loads[i].ref
        addr = bit_slice("rd_addr", aw + sub - 2, sub - 1)
        strobes = (
            lit((1 << (bus // 8)) - 1, bus // 8) if sub == 1 else net.wire(8, "rd_addr[0] ? 8'hf0 : 8'h0f")
        )
        we = net.wire(lanes(ram), f"({act} && rd_we) ? {strobes} : {lit(0, lanes(ram))}")
        wdata = "rd_wdata" if sub == 1 else net.wire(64, "{2{rd_wdata}}")
        d.mem.port(p.name, "a").sources.append((f"{act} && rd_we", addr, we, wdata))
        engine["loads"].append({"when": when, "base": f"arg_{p.name}", "nbytes": _nbytes(d, p, len_w)})
    for i, p in enumerate(stores):
        ram = rams[p.name]
        sub = ram.width // bus
        aw = word_address_bits(ram)
        prev = ph.post if i == 0 else ph.stores[i - 1]
        when = prev.ref if i == 0 else f"({prev.ref} && {st_done[i - 1]})"
        act = f"({ph.stores[i].ref} || {when})"
        if p.stream:
            ph.streams.append(stream_out(d.mem, p, when, act))
            continue
        if ram.banks > 1:
            rdata, sub = d.mem.bank_store_port(p.name, act)
        else:
            addr = bit_slice("wr_addr", aw + sub - 2, sub - 1)
            d.mem.port(p.name, "a").sources.append(
                (f"{act} && wr_re", addr, lit(0, lanes(ram)), lit(0, ram.width))
            )
            rdata = f"{d.mem.ram_sig(p.name)}_a_rdata"
        engine["stores"].append(
            {
                "when": when,
                "base": f"arg_{p.name}",
                "nbytes": _nbytes(d, p, len_w),
                "sel": ph.stores[i].ref,
                "rdata": rdata,
                "sub": sub,
            }
        )
    for c in d.fsm.copies:
        _copy_engine(d, c, len_w, engine)


def _copy_engine(d: Design, c: dict, len_w: int, engine: dict) -> None:
    """A tile's copy on the burst engines: started in the copy's last computing state with
    the array's address plus its first row's bytes and its rows' bytes, the tile buffer on
    the engine's RAM port while the copy waits (as a load or store phase's buffer)."""
    s: ir.Copy = c["stmt"]
    net, ram = d.net, d.rams[s.buffer]
    p = d.k.param(s.array)
    row_bytes = p.nbytes // p.shape[0]
    if ram.banks > 1:
        raise RtlVariantUnsupported(f"kernel {d.k.name}: tile buffer {s.buffer} is partitioned")
    sub = ram.width // d.bus
    assert ram.width % d.bus == 0 and sub in (1, 2) and (sub == 1 or d.bus == 32), (s.buffer, ram.width)
    row, rbits = c["row"]
    count, cbits = c["count"]
    # a row and a row count are at most the array's rows, so their bytes fit the engines'
    # byte-count width: the products are that wide, not the address's 64 bits
    offset = net.const_mul(net.sized(row, rbits, len_w, True), row_bytes, len_w, f"{s.buffer}: first byte")
    base = net.wire(
        64, f"arg_{s.array} + {net.sized(offset, len_w, 64, False)}", f"{s.buffer}: address of its first row"
    )
    nbytes = net.const_mul(net.sized(count, cbits, len_w, True), row_bytes, len_w, f"{s.buffer}: bytes")
    aw = word_address_bits(ram)
    if s.direction == "in":
        act = c["wait"]
        addr = bit_slice("rd_addr", aw + sub - 2, sub - 1)
        strobes = (
            lit((1 << (d.bus // 8)) - 1, d.bus // 8)
            if sub == 1
            else net.wire(8, "rd_addr[0] ? 8'hf0 : 8'h0f")
        )
        we = net.wire(lanes(ram), f"({act} && rd_we) ? {strobes} : {lit(0, lanes(ram))}")
        wdata = "rd_wdata" if sub == 1 else net.wire(64, "{2{rd_wdata}}")
        d.mem.port(s.buffer, "a").sources.append((f"{act} && rd_we", addr, we, wdata))
        engine["loads"].append({"when": c["start"], "base": base, "nbytes": nbytes})
        return
    act = f"({c['wait']} || {c['start']})"
    addr = bit_slice("wr_addr", aw + sub - 2, sub - 1)
    d.mem.port(s.buffer, "a").sources.append((f"{act} && wr_re", addr, lit(0, lanes(ram)), lit(0, ram.width)))
    engine["stores"].append(
        {
            "when": c["start"],
            "base": base,
            "nbytes": nbytes,
            "sel": c["wait"],
            "rdata": f"{d.mem.ram_sig(s.buffer)}_a_rdata",
            "sub": sub,
        }
    )


def _nbytes(d: Design, p: ir.Param, len_w: int) -> str:
    """The bytes a call moves of array `p`: all of its buffer, or for a run-time length
    (`ir.Param.dyn`) that many rows, from the length's argument register."""
    if not p.dyn:
        return lit(p.nbytes, len_w)
    bits = d.k.param(p.dyn).dtype.bits
    reg = f"arg_{p.dyn}"
    if p.dyn_offset:  # max(length + offset, 0) rows (the host passes a length of at least 1)
        k = lit(-p.dyn_offset, bits)
        reg = d.net.wire(bits, f"({reg} > {k}) ? {reg} - {k} : {lit(0, bits)}", f"rows of {p.name}")
    rows = bit_slice(reg, len_w - 1, 0) if len_w <= bits else f"{{{lit(0, len_w - bits)}, {reg}}}"
    return d.net.wire(len_w, f"{rows} * {lit(p.nbytes // p.shape[0], len_w)}", f"bytes of {p.name}")


def _initialisation(d: Design, ph: Phases, inits: list[ir.LocalArray]) -> None:
    """Re-initialisation of the written locals with an initial value: both ports, two words
    per cycle."""
    net, rams = d.net, d.rams
    cb = max(1, max((math.ceil(rams[a.name].depth / 2) - 1).bit_length() for a in inits))
    d.regs.reg("init_i", cb)
    lasts = []
    for a, st in zip(inits, ph.inits):
        ram = rams[a.name]
        aw = word_address_bits(ram)
        n2 = math.ceil(ram.depth / 2)
        lasts.append(f"({st.ref} && init_i == {lit(n2 - 1, cb)})")
        words = [const_word(x, a.dtype) for x in a.init]
        fn = f"init_{a.name}"
        if any(words):
            ph.inits_info.append(
                {"fn": fn, "aw": aw, "width": ram.width, "words": [lit(w, ram.width) for w in words]}
            )
        for port, off in (("a", 0), ("b", 1)):
            idx = net.wire(cb + 1, f"{{init_i, 1'b{off}}}")
            addr = net.sized(idx, cb + 1, aw, False)
            ok = net.wire(1, f"{st.ref} && ({{1'b0, {idx}}} < {lit(ram.depth, cb + 2)})")
            data = f"{fn}({addr})" if any(words) else lit(0, ram.width)
            if ram.banks > 1:
                d.mem.bank_init_port(a.name, port, off, cb, ok, data)
            else:
                d.mem.port(a.name, port).sources.append((ok, addr, ok, data))
    net.assigns.append("assign init_last = " + " | ".join(lasts) + ";")
    net.decls.append("wire init_last;")
    d.regs.write("init_i", ph.start.ref, lit(0, cb))
    for st in ph.inits:
        d.regs.write("init_i", st.ref, f"init_last ? {lit(0, cb)} : init_i + {lit(1, cb)}")
