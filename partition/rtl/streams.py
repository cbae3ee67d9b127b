"""The AXI-Stream engines' RAM ports: a chain's streamed arrays moving beat by beat.

A streamed array (`ir.Param.stream`) has no pointer register and moves through an
AXI-Stream engine of its own instead of the burst engines: an input through a slave that
writes each 64-bit beat into the buffer as it is taken, an output through a master that
reads the buffer beat by beat after compute. The beat layout is the HLS C++'s
(`partition_ops.h` pack_beat: the array's DDR bytes, little-endian): a beat is two words of
a 32-bit buffer (ports a and b), one of a 64-bit one, half of a 128-bit one; a partitioned
array's beats are scattered into (gathered from) its banks as the burst engines do, when
its m_axi is 64 bits wide.
"""

from __future__ import annotations

from partition import ir
from partition.estimate.schedule import STREAM_BITS, stream_beats
from partition.rtl.datapath import word_address_bits
from partition.rtl.literals import bit_slice, lit
from partition.rtl.rams import RamPorts, lanes
from partition.rtl.support import RtlVariantUnsupported

STREAM_BYTES = STREAM_BITS // 8  # bytes of an AXI-Stream beat (TDATA)


def _stream_geometry(mem: RamPorts, p: ir.Param) -> dict:
    """The engine parameters of streamed array `p`: beats, beat-index bits, the bytes of
    the last beat that belong to the array, and its buffer RAM's word width."""
    ram = mem.rams[p.name]
    if ram.banks > 1 and mem.bus != STREAM_BITS:
        raise RtlVariantUnsupported(
            f"kernel {mem.k.name}: array {p.name} is an AXI-Stream port of a chain; the built-in RTL "
            f"scatters a {STREAM_BITS}-bit beat into the banks of a cyclic partition only with a "
            f"{STREAM_BITS}-bit m_axi (where a beat is a bus word), not {mem.bus}"
        )
    if ram.width not in (32, 64, 128):
        raise AssertionError((p.name, ram.width))
    beats = stream_beats(p.nbytes)
    bw = max(1, (beats - 1).bit_length())
    if ram.banks > 1:  # the banks' word address is sliced from the beat index
        bw = max(bw, mem.engine_address_bits(p.name))
    tail = p.nbytes - STREAM_BYTES * (beats - 1)
    return {
        "name": p.name,
        "bw": bw,
        "last": lit(beats - 1, bw),
        "mask": lit((1 << (8 * tail)) - 1, 64),
        "beats": beats,
        "width": ram.width,
    }


def _beat_ports(mem: RamPorts, p: ir.Param, g: dict, beat: str, en: str) -> list[tuple[str, str, str, str]]:
    """The RAM ports that hold beat `beat` (a beat index) of `p`'s buffer while `en`:
    (port, word address, write lanes of the beat's bytes) for each; a 32-bit RAM holds a
    beat in two words (ports a and b, the second past the buffer for an odd word count's
    last beat), a 64-bit one in one word, a 128-bit one in half a word."""
    ram, net = mem.rams[p.name], mem.net
    aw, bw, w = word_address_bits(ram), g["bw"], g["width"]
    if w == 64:
        return [("a", net.sized(beat, bw, aw, False), en, lit(0xFF, 8))]
    if w == 32:
        out = []
        for port, half in (("a", 0), ("b", 1)):
            addr = net.sized(net.wire(bw + 1, f"{{{beat}, 1'b{half}}}"), bw + 1, aw, False)
            on = en
            if half and ram.depth % 2:
                on = net.wire(1, f"{en} && ({beat} != {g['last']})")
            out.append((port, addr, on, lit(0xF, 4)))
        return out
    addr = net.sized(bit_slice(beat, bw - 1, 1), bw - 1, aw, False) if bw > 1 else lit(0, aw)
    strobes = net.wire(16, f"{bit_slice(beat, 0, 0)} ? 16'hff00 : 16'h00ff")
    return [("a", addr, en, strobes)]


def stream_in(mem: RamPorts, p: ir.Param, when: str, act: str) -> dict:
    """The AXI-Stream slave of streamed input `p`: started by `when`, it writes each
    beat into the buffer as it arrives during its phase `act` (the load phase of an m_axi
    array); into the banks as the load phase does, when the array is partitioned."""
    g = _stream_geometry(mem, p)
    n = p.name
    if mem.rams[n].banks > 1:
        mem.bank_load_port(n, act, f"si_{n}_addr", f"si_{n}_we", f"si_{n}_wdata")
        return {**g, "dir": "in", "when": when}
    nb = lanes(mem.rams[p.name])
    for port, addr, on, strobes in _beat_ports(mem, p, g, f"si_{n}_addr", f"si_{n}_we"):
        if g["width"] == 32:
            data = bit_slice(f"si_{n}_wdata", 31 + 32 * (port == "b"), 32 * (port == "b"))
        elif g["width"] == 64:
            data = f"si_{n}_wdata"
        else:
            data = mem.net.wire(128, f"{{2{{si_{n}_wdata}}}}")
        we = mem.net.wire(nb, f"{on} ? {strobes} : {lit(0, nb)}")
        mem.port(n, port).sources.append((on, addr, we, data))
    return {**g, "dir": "in", "when": when}


def stream_out(mem: RamPorts, p: ir.Param, when: str, act: str) -> dict:
    """The AXI-Stream master of streamed output `p`: started by `when` (after compute),
    it reads the buffer beat by beat during `act` (the store phase of an m_axi array);
    from the banks as the store phase does, when the array is partitioned."""
    g = _stream_geometry(mem, p)
    n, ram = p.name, mem.rams[p.name]
    sig = mem.ram_sig(n)
    if ram.banks > 1:
        rdata, sub = mem.bank_store_port(n, act, f"so_{n}_addr", f"so_{n}_re")
        assert sub == 1 and mem.bus == STREAM_BITS, (n, sub)
        return {**g, "dir": "out", "when": when, "rdata": rdata}
    for port, addr, on, _wl in _beat_ports(mem, p, g, f"so_{n}_addr", f"so_{n}_re"):
        mem.port(n, port).sources.append((on, addr, lit(0, lanes(ram)), lit(0, ram.width)))
    if g["width"] == 32:
        rdata = f"{{{sig}_b_rdata, {sig}_a_rdata}}"
    elif g["width"] == 64:
        rdata = f"{sig}_a_rdata"
    else:  # the half of the word read with the beat: its index's low bit, registered
        half = mem.regs.reg(f"so_{n}_half", 1)
        mem.regs.write(half, f"so_{n}_re", bit_slice(f"so_{n}_addr", 0, 0))
        rdata = f"({half} ? {sig}_a_rdata[127:64] : {sig}_a_rdata[63:0])"
    return {**g, "dir": "out", "when": when, "rdata": rdata}
