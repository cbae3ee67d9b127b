"""The reusable hardware shells of the built-in RTL backend, rendered from templates/rtl/.

Every kernel IP is the same frame around a generated datapath: an AXI4-Lite control slave
laid out by the kernel's RegisterMap, one AXI4 burst read engine and one burst write engine
sharing the `m_axi_gmem` bundle, and dual-port RAMs for the array buffers. The shells are
verified once (tests/test_rtl_shells.py) and rendered per kernel with the kernel's name as
module prefix, so two IPs in one Vivado project never share a module name.

Port lists the per-kernel top must connect (names are exact; see each template's header
for the cycle behaviour the estimator models):

`<prefix>_control_s_axi`
    ap_clk, ap_rst_n, s_axi_control_* (Vitis names, AW = control_address_bits(regmap)),
    interrupt, ap_start (out, level), ap_done / ap_ready (in, one-cycle pulses),
    ap_idle (in), arg_<name> (out, `bits` wide, one per argument register, pointers 64),
    ap_return (in, only when the map has a return register; sampled while ap_done).
`<prefix>_axi_read_engine` #(RAM_AW, LEN_W)
    ap_clk, ap_rst_n, start (pulse), base[63:0], nbytes[LEN_W-1:0], busy, done (pulse),
    ram_we, ram_addr[RAM_AW-1:0], ram_wdata[D-1:0], m_axi_AR* / m_axi_R* (Vitis suffixes).
`<prefix>_axi_write_engine` #(RAM_AW, LEN_W)
    ap_clk, ap_rst_n, start (pulse), base[63:0], nbytes[LEN_W-1:0], busy, done (pulse),
    ram_re, ram_addr[RAM_AW-1:0], ram_rdata[D-1:0] (1-cycle latency, held while !ram_re),
    m_axi_AW* / m_axi_W* / m_axi_B* (WSTRB D/8 bits).
`<prefix>_axis_read_engine` #(BW, LAST) / `<prefix>_axis_write_engine` #(BW, LAST, LAST_MASK)
    ap_clk, ap_rst_n, start (pulse), busy, done (pulse), ram_we / ram_re, ram_addr[BW-1:0]
    (a 64-bit beat's index), ram_wdata / ram_rdata[63:0], s_T* / m_T* (TDATA, TVALID, TREADY):
    a streamed array of an AXI-Stream chain, in place of the burst engines.

The engines' data width D (m_axi RDATA/WDATA, one bus word a beat) is fixed when they are
rendered: 32 (the board's kernel_axi_bits), or 64 / 128 for the wide burst variants.
`<prefix>_ram_tdp` #(WIDTH, DEPTH, AW)
    ap_clk, a_en, a_we, a_addr, a_wdata, a_rdata, b_en, b_we, b_addr, b_wdata, b_rdata.
`<prefix>_ram_sdp` #(WIDTH, DEPTH, AW)
    ap_clk, w_en, w_addr, w_data, r_en, r_addr, r_data.

templates/rtl/macros.j2 holds the kernel-level port declarations and the engine/control
connections, so a top template only writes the core between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from partition.errors import PartitionError
from partition.estimate.tables.shell import MIN_LEN_BITS
from partition.regmap import RegisterMap
from partition.templating import template_env

#: Default width of the m_axi data bus and of the words the engines move (DESIGN.md §4, v1).
DATA_BITS = 32
#: Data widths the burst engines are rendered for (wider variants: partition.estimate.variants).
ENGINE_DATA_BITS = (32, 64, 128)
#: All shells a kernel needs, in the order they are written.
SHELL_NAMES = ("control_s_axi", "axi_read_engine", "axi_write_engine", "ram_tdp", "ram_sdp")

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Shell:
    """One rendered Verilog module; `filename` is `<module>.v` (Verilator's DECLFILENAME rule)."""

    module: str
    text: str

    @property
    def filename(self) -> str:
        return f"{self.module}.v"


def check_ident(what: str, name: str) -> str:
    """`name`, when it is a Verilog identifier; else a PartitionError naming `what` it is."""
    if not _IDENT.match(name):
        raise PartitionError(
            f"{what} {name!r} is not a Verilog identifier (letters, digits and '_', not starting "
            "with a digit); rename it"
        )
    return name


def bits_for(count: int) -> int:
    """Address bits needed to index `count` items (at least 1)."""
    return max(1, (max(count, 1) - 1).bit_length())


def control_address_bits(regmap: RegisterMap) -> int:
    """Width of s_axi_control_AWADDR/ARADDR: log2 of the decoded range (Vitis: 6 for 64 B)."""
    return (regmap.size - 1).bit_length()


def _word_read_expr(reg: str, bits: int, word: int) -> str:
    lo = 32 * word
    hi = min(bits, lo + 32) - 1
    width = hi - lo + 1
    sel = f"{reg}[{hi}:{lo}]"
    return sel if width == 32 else f"{{{32 - width}'d0, {sel}}}"


def _control_context(regmap: RegisterMap, module: str) -> dict:
    aw = control_address_bits(regmap)
    args, words, lanes, labels = [], [], [], []
    ret = status = None
    wdata_bits = {0, 1, 7}  # CTRL ap_start / auto_restart, GIE, IER/ISR bit 1
    strb_lanes = {0}
    for r in regmap.registers:
        check_ident("argument", r.name)
        if r.bits % 8 and r.bits > 8:
            raise PartitionError(
                f"register {r.name!r}: {r.bits} bits is neither a whole number of bytes nor 1 bit"
            )
        reg = "int_ap_return" if r.kind == "return" else f"int_{r.name}"
        offsets = []
        for i in range(r.words):
            const = f"W_{r.name}_{i}"
            off = r.offset + 4 * i
            offsets.append(off)
            words.append(
                {
                    "const": const,
                    "index": off // 4,
                    "offset": off,
                    "read_expr": _word_read_expr(reg, r.bits, i),
                }
            )
            if r.kind in ("return", "status"):
                continue
            # a register narrower than a byte (a bool: 1 bit, as Vitis declares it) keeps
            # only its low bits of byte lane 0
            for lane in range(max(1, min(4, (r.bits - 32 * i) // 8))):
                lo = 32 * i + 8 * lane
                width = min(8, r.bits - lo)
                lanes.append({"reg": reg, "const": const, "strb": lane, "lo": lo, "hi": lo + width - 1})
                strb_lanes.add(lane)
                wdata_bits.update(range(8 * lane, 8 * lane + width))
        where = ", ".join(f"0x{o:02X}" for o in offsets)
        label = f"{r.name}: {r.kind} ({r.dtype}), {r.bits} bits at {where}"
        ctrl = r.offset + 4 * r.words
        if r.kind == "status":
            label += f"; 0x{ctrl:02X} bit 0 {r.name}_ap_vld (clear on read)"
            const = f"W_{r.name}_ctrl"
            words.append(
                {"const": const, "index": ctrl // 4, "offset": ctrl, "read_expr": f"{{31'd0, {reg}_ap_vld}}"}
            )
            status = {"name": r.name, "reg": reg, "bits": r.bits, "ctrl": const}
        else:
            label += f"; 0x{ctrl:02X} reserved"
        labels.append({"offset": r.offset, "label": label})
        if r.kind == "return":
            ret = {"bits": r.bits}
        elif r.kind != "status":
            args.append({"name": r.name, "port": f"arg_{r.name}", "bits": r.bits})
    return {
        "module": module,
        "kernel": regmap.kernel,
        "aw": aw,
        "registers": labels,
        "registers_args": bool(args),
        "arg_ports": args,
        "words": words,
        "lanes": lanes,
        "ret": ret,
        "status": status,
        "wdata_all_used": len(wdata_bits) == 32,
        "wdata_used_bits": max(wdata_bits) + 1,
        "wstrb_all_used": len(strb_lanes) == 4,
        "wstrb_used_lanes": max(strb_lanes) + 1,
    }


def render_control(regmap: RegisterMap, prefix: str | None = None) -> Shell:
    """The AXI4-Lite control slave for `regmap` (module `<prefix>_control_s_axi`)."""
    prefix = check_ident("module prefix", prefix or regmap.kernel)
    module = f"{prefix}_control_s_axi"
    text = template_env().get_template("rtl/control_s_axi.v.j2").render(**_control_context(regmap, module))
    return Shell(module, text)


def _engine(kind: str, prefix: str, ram_addr_bits: int, len_bits: int, data_bits: int) -> Shell:
    check_ident("module prefix", prefix)
    if data_bits not in ENGINE_DATA_BITS:
        raise PartitionError(f"{kind}: data width {data_bits} bits; the engines move {ENGINE_DATA_BITS} bits")
    if len_bits < MIN_LEN_BITS:
        raise PartitionError(f"{kind}: byte-count width {len_bits} < {MIN_LEN_BITS}; use len_bits_for()")
    if ram_addr_bits < 1:
        raise PartitionError(f"{kind}: RAM address width must be at least 1, got {ram_addr_bits}")
    module = f"{prefix}_{kind}"
    text = (
        template_env()
        .get_template(f"rtl/{kind}.v.j2")
        .render(module=module, ram_aw=ram_addr_bits, len_w=len_bits, data_bits=data_bits)
    )
    return Shell(module, text)


def render_read_engine(
    prefix: str, ram_addr_bits: int, len_bits: int = MIN_LEN_BITS, data_bits: int = DATA_BITS
) -> Shell:
    """The AXI4 burst read engine; the widths are the parameters' defaults, `data_bits` the
    m_axi data width (32, 64 or 128)."""
    return _engine("axi_read_engine", prefix, ram_addr_bits, len_bits, data_bits)


def render_write_engine(
    prefix: str, ram_addr_bits: int, len_bits: int = MIN_LEN_BITS, data_bits: int = DATA_BITS
) -> Shell:
    """The AXI4 burst write engine; the widths are the parameters' defaults, `data_bits` the
    m_axi data width (32, 64 or 128)."""
    return _engine("axi_write_engine", prefix, ram_addr_bits, len_bits, data_bits)


def render_axis_engine(direction: str, prefix: str) -> Shell:
    """The AXI-Stream engine of a chain's streamed arrays: `<prefix>_axis_read_engine` (an
    "in" array: the slave filling its buffer) or `<prefix>_axis_write_engine` ("out": the
    master draining it); each instance sets the beat count as parameters."""
    check_ident("module prefix", prefix)
    kind = {"in": "axis_read_engine", "out": "axis_write_engine"}[direction]
    module = f"{prefix}_{kind}"
    return Shell(module, template_env().get_template(f"rtl/{kind}.v.j2").render(module=module))


def _ram(kind: str, prefix: str, width: int, depth: int) -> Shell:
    check_ident("module prefix", prefix)
    if width < 1 or depth < 1:
        raise PartitionError(f"{kind}: width and depth must be positive, got {width} x {depth}")
    module = f"{prefix}_{kind}"
    text = (
        template_env()
        .get_template(f"rtl/{kind}.v.j2")
        .render(module=module, width=width, depth=depth, aw=bits_for(depth))
    )
    return Shell(module, text)


def render_ram_tdp(prefix: str, width: int = DATA_BITS, depth: int = 1024) -> Shell:
    """True dual-port RAM with synchronous read; width/depth are parameter defaults."""
    return _ram("ram_tdp", prefix, width, depth)


def render_ram_sdp(prefix: str, width: int = DATA_BITS, depth: int = 1024) -> Shell:
    """Simple dual-port RAM with synchronous read; width/depth are parameter defaults."""
    return _ram("ram_sdp", prefix, width, depth)


def render_shells(
    regmap: RegisterMap,
    *,
    ram_addr_bits: int,
    len_bits: int = MIN_LEN_BITS,
    prefix: str | None = None,
    data_bits: int = DATA_BITS,
) -> dict[str, str]:
    """Every shell of one kernel as {filename: Verilog text}, deterministic; the engines and
    RAMs `data_bits` wide."""
    prefix = prefix or regmap.kernel
    shells = [
        render_control(regmap, prefix),
        render_read_engine(prefix, ram_addr_bits, len_bits, data_bits),
        render_write_engine(prefix, ram_addr_bits, len_bits, data_bits),
        render_ram_tdp(prefix, data_bits, 1 << ram_addr_bits),
        render_ram_sdp(prefix, data_bits, 1 << ram_addr_bits),
    ]
    return {s.filename: s.text for s in shells}
