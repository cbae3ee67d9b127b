"""Vivado side of the build tree: the TCL that turns the FPGA kernels into a PYNQ overlay.

    vivado/build_overlay.tcl       project on the board's part, IP repository, block design,
                                   output products, wrapper, synthesis, implementation, bitstream,
                                   timing check, host/overlay/<app>.bit + .hwh
    vivado/block_design.tcl        the block design (sourced by build_overlay.tcl)
    vivado/package_builtin_ip.tcl  the built-in RTL of every kernel packaged as an IP (RTL=builtin)

The block design is written out connection by connection (no IP-integrator automation
except the board preset of the PS, and that only when the board files are installed), so a
reader and the Vivado stand-in of the tests can follow every net and address:

    PS  M_AXI_GP0 / M_AXI_HPM0_FPD -> axi_ctrl (AXI Interconnect) -> <kernel>_0/s_axi_control
                                                                  -> axi_intc_0/s_axi (2+ kernels)
    <kernel>_0/m_axi_gmem -> axi_mem (SmartConnect) -> PS S_AXI_HP0 / S_AXI_HP0_FPD -> DDR
        (only the kernels with an m_axi_gmem; with none there is no axi_mem and the PS's HP0
        slave port is disabled)
    <producer>_0/<out> -> <consumer>_0/<in>    one AXI-Stream net per chain (`chains`)
    PS FCLK_CLK0 / pl_clk0 clocks everything; rst_pl_clk0 (proc_sys_reset) resets it
    <kernel>_0/interrupt -> IRQ_F2P / pl_ps_irq0 (one kernel) or via axi_intc_0 (several)

A chain joins a producer's streamed out array to its consumer's streamed in array directly:
both kernels run from pl_clk0, so no clock converter or FIFO sits between them, and the host
runtime starts the consumer before the producer. Vitis HLS names the AXI-Stream interface of
an `hls::stream` argument with `INTERFACE mode=axis` after the C++ argument, with the ports
<arg>_TDATA, <arg>_TVALID and <arg>_TREADY: UG1399 ("How AXI4-Stream is Implemented") gives a
plain stream type exactly those three signals, and its interface examples name ports after the
argument (`out` becoming `out_r`, hence the frontend's own `_r` renaming), as do public designs
that instantiate HLS IP by <arg>_TDATA. So a stream port here is the kernel IR's parameter
name (not yet checked against an export of this Vitis release). The built-in RTL has the same
ports (partition.rtl.kernel), and package_builtin_ip.tcl declares them as AXI-Stream
interfaces named after the argument, so RTL=builtin connects a chain by the same nets.

PYNQ finds each kernel as `overlay.<kernel>_0` (the cell name), binds drivers by VLNV
(`hls_vlnv`, `builtin_vlnv`) and programs the PL clock from the .hwh, which is why the PS clocks are
always set explicitly here (reference/pynq_flow.md §1.9: a PS7 left at its 33.333 MHz default
makes PYNQ program the wrong FCLK0 on a PYNQ-Z1/Z2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from partition.boards import Board
from partition.codegen.cexpr import check_identifier
from partition.codegen.hls import hls_ip_dir
from partition.errors import PartitionError
from partition.regmap import RegisterMap
from partition.templating import render, template_env

#: The Vivado release the TCL is written for: the one PYNQ 3.1 overlays are built with. Kept in
#: templates/vivado/version.j2, which the Makefile fragment reads too.
VIVADO_VERSION: str = template_env().get_template("vivado/version.j2").module.vivado_version  # type: ignore[attr-defined]

PROJECT = "overlay"  # vivado/prj/overlay.xpr
BLOCK_DESIGN = "overlay"  # its wrapper is overlay_wrapper
PROJECT_DIR = "vivado/prj"
IP_REPO = "vivado/ip_repo"  # where package_builtin_ip.tcl puts the built-in RTL IPs
OVERLAY_DIR = "host/overlay"

#: VLNV parts of the packaged built-in RTL (Vitis HLS exports xilinx.com:hls:<top>:1.0).
BUILTIN_VENDOR = "partition"
BUILTIN_LIBRARY = "builtin"
IP_VERSION = "1.0"

#: Address window each AXI4-Lite slave gets in the PS's map (one 64 KiB segment each).
CONTROL_SEGMENT = 0x10000

#: Names of the infrastructure cells; a kernel cell (<kernel>_0) may not take one of them.
INFRASTRUCTURE_CELLS = ("axi_ctrl", "axi_mem", "rst_pl_clk0", "irq_concat", "axi_intc_0")

# The two processing systems. Pin, interface and segment names are those Vivado gives the
# processing_system7 and zynq_ultra_ps_e IPs (as in PYNQ's base.tcl, FINN's
# custom_zynq_shell_template and write_bd_tcl output of many designs); the PS configuration
# names are the IPs' CONFIG.PCW_* / CONFIG.PSU__* parameters.
_PS: dict[str, dict[str, Any]] = {
    "ps7": {
        "cell": "processing_system7_0",
        "vlnv": "xilinx.com:ip:processing_system7",
        "automation_rule": "xilinx.com:bd_rule:processing_system7",
        "master": "M_AXI_GP0",
        "master_clk": "M_AXI_GP0_ACLK",
        "slave": "S_AXI_HP0",
        "slave_clk": "S_AXI_HP0_ACLK",
        "pl_clk": "FCLK_CLK0",
        "pl_resetn": "FCLK_RESET0_N",
        "irq": "IRQ_F2P",
        # M_AXI_GP0 decodes 0x4000_0000-0x7FFF_FFFF (Zynq-7000 TRM UG585 Table 4-1);
        # Vivado places HLS control slaves from 0x43C0_0000.
        "control_base": 0x43C00000,
    },
    "ps8": {
        "cell": "zynq_ultra_ps_e_0",
        "vlnv": "xilinx.com:ip:zynq_ultra_ps_e",
        "automation_rule": "xilinx.com:bd_rule:zynq_ultra_ps_e",
        "master": "M_AXI_HPM0_FPD",
        "master_clk": "maxihpm0_fpd_aclk",
        "slave": "S_AXI_HP0_FPD",
        "slave_clk": "saxihp0_fpd_aclk",
        "pl_clk": "pl_clk0",
        "pl_resetn": "pl_resetn0",
        "irq": "pl_ps_irq0",
        # PL peripheral window of M_AXI_HPM0_FPD (reference/pynq_flow.md §3.1, §4.3).
        "control_base": 0xA0000000,
    },
}

_APP_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\Z")
_PART_NAME = re.compile(r"[A-Za-z0-9_.\-]+\Z")
_BOARD_PART = re.compile(r"[A-Za-z0-9_.\-]+(:[A-Za-z0-9_.\-]+){3}\Z")
_RTL_FILE = re.compile(r"[A-Za-z0-9_./\-]+\.s?v\Z")


@dataclass
class VivadoKernel:
    """One FPGA kernel as the Vivado flow sees it.

    `regmap` sizes its s_axi_control address block; `rtl_files` are the built-in RTL
    backend's Verilog sources of the kernel (paths relative to the build tree root,
    top module `name`), empty when that backend cannot build the kernel. `streams` are its
    AXI-Stream ports (streamed array parameters, port -> "in" or "out"), each of which must be
    one end of a chain; `gmem` says whether it has an m_axi_gmem master (some array is not
    streamed).
    """

    name: str
    regmap: RegisterMap
    rtl_files: list[str]
    streams: dict[str, str] = field(default_factory=dict)  # AXI-Stream port -> "in" or "out"
    gmem: bool = True  # whether the kernel has m_axi_gmem (some array not streamed)


#: One AXI-Stream chain: (producer kernel, its out port, consumer kernel, its in port).
Chain = tuple[str, str, str, str]

#: Interface pins every kernel IP has besides its streams; a stream port may not take one.
KERNEL_INTERFACES = ("s_axi_control", "m_axi_gmem", "ap_clk", "ap_rst_n", "interrupt")


# ------------------------------------------------------------------ names other stages use


def kernel_cell(name: str) -> str:
    """The block-design cell of a kernel: PYNQ's `overlay.<cell>` and the .hwh IP name."""
    return f"{name}_0"


def hls_vlnv(name: str) -> str:
    """VLNV of a kernel exported by Vitis HLS (`export_design -format ip_catalog`)."""
    return f"xilinx.com:hls:{name}:{IP_VERSION}"


def builtin_vlnv(name: str) -> str:
    """VLNV of a kernel packaged from the built-in RTL by package_builtin_ip.tcl."""
    return f"{BUILTIN_VENDOR}:{BUILTIN_LIBRARY}:{name}:{IP_VERSION}"


def overlay_name(app: str) -> str:
    """Base name of the overlay files: the app file's name without .py ("fir.py" -> "fir")."""
    name = PurePosixPath(str(app)).name
    return name[: -len(".py")] if name.endswith(".py") else name


def overlay_files(app: str) -> tuple[str, str]:
    """The .bit and .hwh the flow leaves for PYNQ (relative to the build tree root)."""
    name = overlay_name(app)
    return f"{OVERLAY_DIR}/{name}.bit", f"{OVERLAY_DIR}/{name}.hwh"


def control_addresses(kernels: list[VivadoKernel], board: Board) -> dict[str, int]:
    """Physical base address of every kernel's s_axi_control in the PS's address map."""
    base = _ps(board)["control_base"]
    return {k.name: base + i * CONTROL_SEGMENT for i, k in enumerate(_ordered(kernels))}


# ---------------------------------------------------------------------------- generation


def generate_vivado(
    app: str, kernels: list[VivadoKernel], board: Board, chains: Iterable[Chain] = ()
) -> dict[str, bytes]:
    """The files of vivado/ (paths relative to the build tree root) for `kernels` on `board`.

    `app` is the app's file name (or its name without .py); the overlay becomes
    host/overlay/<name>.bit and .hwh, the names the host code loads. Kernels get control
    addresses in name order, so the result does not depend on the order of `kernels`.
    `chains` are (producer kernel, its out port, consumer kernel, its in port) tuples: each
    becomes a direct AXI-Stream connection, and every streamed port must be in exactly one.
    """
    if not isinstance(app, str) or not _APP_NAME.fullmatch(overlay_name(app)):
        raise PartitionError(
            f"app name {app!r} cannot name the overlay files: use letters, digits, '_', '.', '-'"
        )
    app = overlay_name(app)
    ps = _ps(board)
    if not kernels:
        raise PartitionError(
            "the plan has no FPGA kernels: there is no overlay to build (everything stays on the CPU)"
        )
    ordered = _ordered(kernels)
    _check_kernels(ordered)
    chain_list = _check_chains(ordered, chains)

    n = len(ordered)
    addresses = control_addresses(ordered, board)
    mem_slots = {k.name: f"{i:02d}" for i, k in enumerate(k for k in ordered if k.gmem)}
    ctx_kernels = []
    for i, k in enumerate(ordered):
        ctx_kernels.append(
            {
                "name": k.name,
                "cell": kernel_cell(k.name),
                "hls_vlnv": hls_vlnv(k.name),
                "builtin_vlnv": builtin_vlnv(k.name),
                "hls_repo": f"hls/{k.name}/{hls_ip_dir()}",
                "control_offset": _hex(addresses[k.name]),
                "regmap_size": k.regmap.size,
                "rtl_files": list(k.rtl_files),
                "slot": f"{i:02d}",
                "gmem": k.gmem,
                "mem_slot": mem_slots.get(k.name),
                "streams": sorted(k.streams.items()),
                "registers": [
                    {"name": r.name, "offset": f"0x{r.offset:02X}", "bits": r.bits, "kind": r.kind}
                    for r in k.regmap.registers
                ],
            }
        )
    intc = None
    if n > 1:
        intc = {"slot": f"{n:02d}", "offset": _hex(ps["control_base"] + n * CONTROL_SEGMENT)}
    ctx = {
        "app": app,
        "board": _board_context(board),
        "ps": ps,
        "kernels": ctx_kernels,
        "gmem_kernels": [k for k in ctx_kernels if k["gmem"]],
        "chains": [
            {"producer": kernel_cell(p), "out": o, "consumer": kernel_cell(c), "in": i}
            for p, o, c, i in chain_list
        ],
        "intc": intc,
        "control_slaves": n + (1 if intc else 0),
        "control_range": _size(CONTROL_SEGMENT),
        "ddr": _ddr_segments(board),
        "excluded": _excluded_segments(board),
        "vivado_version": VIVADO_VERSION,
        "project": PROJECT,
        "bd": BLOCK_DESIGN,
        "ip_repo": IP_REPO,
        "hls_ip_dir": hls_ip_dir(),
        "overlay_dir": OVERLAY_DIR,
        "builtin_vendor": BUILTIN_VENDOR,
        "builtin_library": BUILTIN_LIBRARY,
        "ip_version": IP_VERSION,
    }
    files = {
        "vivado/build_overlay.tcl": render("vivado/build_overlay.tcl.j2", **ctx),
        "vivado/block_design.tcl": render("vivado/block_design.tcl.j2", **ctx),
        "vivado/package_builtin_ip.tcl": render("vivado/package_builtin_ip.tcl.j2", **ctx),
    }
    return {path: text.encode() for path, text in sorted(files.items())}


# ------------------------------------------------------------------------------- helpers


def _ordered(kernels: list[VivadoKernel]) -> list[VivadoKernel]:
    return sorted(kernels, key=lambda k: k.name)


def _ps(board: Board) -> dict[str, Any]:
    if board.ps not in _PS:
        raise PartitionError(
            f"board {board.name}: processing system {board.ps!r} has no Vivado flow; known: {', '.join(_PS)}"
        )
    expected = {"xc7": "ps7", "xczu": "ps8"}.get(board.family)
    if expected != board.ps:
        raise PartitionError(f"board {board.name}: family {board.family!r} does not go with ps {board.ps!r}")
    return _PS[board.ps]


def _check_kernels(kernels: list[VivadoKernel]) -> None:
    seen: set[str] = set()
    for k in kernels:
        check_identifier(k.name, "FPGA kernel name")
        if k.name in seen:
            raise PartitionError(f"FPGA kernel {k.name} appears twice; kernel names must be unique")
        seen.add(k.name)
        if kernel_cell(k.name) in INFRASTRUCTURE_CELLS or kernel_cell(k.name) in (
            _PS["ps7"]["cell"],
            _PS["ps8"]["cell"],
        ):
            raise PartitionError(
                f"FPGA kernel {k.name}: its block-design cell {kernel_cell(k.name)} clashes with an "
                "infrastructure cell of the overlay; rename the function"
            )
        if not isinstance(k.regmap, RegisterMap) or k.regmap.kernel != k.name:
            raise PartitionError(f"FPGA kernel {k.name}: its register map belongs to another kernel")
        for f in k.rtl_files:
            p = PurePosixPath(f)
            if not _RTL_FILE.fullmatch(f) or p.is_absolute() or ".." in p.parts:
                raise PartitionError(
                    f"FPGA kernel {k.name}: RTL file {f!r} must be a .v/.sv path relative to the build "
                    "tree root, without spaces or '..'"
                )


def _check_chains(kernels: list[VivadoKernel], chains: Iterable[Chain]) -> list[Chain]:
    """The chains in a fixed order, after checking them against the kernels' stream ports."""
    by_name = {k.name: k for k in kernels}
    for k in kernels:
        for port, direction in k.streams.items():
            check_identifier(port, f"FPGA kernel {k.name}: AXI-Stream port")
            if port in KERNEL_INTERFACES:
                raise PartitionError(
                    f"FPGA kernel {k.name}: AXI-Stream port {port} clashes with the kernel's "
                    f"{port} interface; rename the parameter"
                )
            if direction not in ("in", "out"):
                raise PartitionError(
                    f"FPGA kernel {k.name}: AXI-Stream port {port} has direction {direction!r}; "
                    "it must be 'in' or 'out'"
                )
    used: dict[tuple[str, str], Chain] = {}
    out: list[Chain] = []
    for chain in chains:
        if not (
            isinstance(chain, tuple | list) and len(chain) == 4 and all(isinstance(x, str) for x in chain)
        ):
            raise PartitionError(
                f"AXI-Stream chain {chain!r} is not (producer kernel, out port, consumer kernel, in port)"
            )
        producer, out_port, consumer, in_port = chain
        what = f"AXI-Stream chain {producer}.{out_port} -> {consumer}.{in_port}"
        for kernel in (producer, consumer):
            if kernel not in by_name:
                raise PartitionError(f"{what}: there is no FPGA kernel {kernel} in the plan")
        if producer == consumer:
            raise PartitionError(f"{what}: a kernel cannot be chained to itself")
        for kernel, port, want in ((producer, out_port, "out"), (consumer, in_port, "in")):
            streams = by_name[kernel].streams
            if port not in streams:
                have = ", ".join(f"{p} ({d})" for p, d in sorted(streams.items())) or "none"
                raise PartitionError(
                    f"{what}: kernel {kernel} has no AXI-Stream port {port} (its stream ports: {have})"
                )
            if streams[port] != want:
                role = "producer" if want == "out" else "consumer"
                raise PartitionError(
                    f"{what}: port {port} of kernel {kernel} is an '{streams[port]}' stream, but the "
                    f"{role} end of a chain must be an '{want}' stream"
                )
            if (kernel, port) in used:
                p, o, c, i = used[(kernel, port)]
                raise PartitionError(
                    f"{what}: port {port} of kernel {kernel} is already in the chain {p}.{o} -> {c}.{i}; "
                    "an AXI-Stream port connects exactly once"
                )
            used[(kernel, port)] = (producer, out_port, consumer, in_port)
        out.append((producer, out_port, consumer, in_port))
    for k in kernels:
        for port, direction in sorted(k.streams.items()):
            if (k.name, port) not in used:
                raise PartitionError(
                    f"FPGA kernel {k.name}: AXI-Stream port {port} ({direction}) is in no chain; "
                    "every streamed array must be chained to another FPGA kernel"
                )
    return sorted(out)


def _board_context(board: Board) -> dict[str, Any]:
    if not _PART_NAME.fullmatch(board.part):
        raise PartitionError(f"board {board.name}: part {board.part!r} is not a Xilinx part name")
    if not _BOARD_PART.fullmatch(board.board_part):
        raise PartitionError(
            f"board {board.name}: board_part {board.board_part!r} is not vendor:board:component:version"
        )
    vendor, name, component, _version = board.board_part.split(":")
    return {
        "name": board.name,
        "part": board.part,
        "board_part": board.board_part,
        # the same board with any file version, for installs that carry another revision
        "board_part_any": f"{vendor}:{name}:{component}:*",
        "ps_ref_mhz": _mhz(board, "ps_ref_mhz"),
        "pl_mhz": _mhz(board, "pl_mhz"),
        "ddr_mb": int(board.memory["ddr_mb"]),
        "hp_axi_bits": int(board.interface["hp_axi_bits"]),  # the widest kernel m_axi (a variant's)
    }


def _mhz(board: Board, key: str) -> str:
    value = float(board.clocks[key])
    if not value > 0:
        raise PartitionError(f"board {board.name}: [clocks] {key} must be positive")
    return f"{value:g}"


def _ddr_segments(board: Board) -> list[dict[str, str]]:
    """PS DDR segments every kernel master is assigned, with their fixed offset and range."""
    ps = board.ps
    if ps == "ps7":
        # HP ports see DDR at 0x0000_0000-0x3FFF_FFFF (UG585 Table 4-1); the segment spans the board's DDR.
        ddr = int(board.memory["ddr_mb"]) * 2**20
        if ddr > 2**30 or ddr & (ddr - 1):
            raise PartitionError(
                f"board {board.name}: [memory] ddr_mb {board.memory['ddr_mb']} is not a power of two up to "
                "1024, which a Zynq-7000 HP port can address"
            )
        return [{"seg": "S_AXI_HP0/HP0_DDR_LOWOCM", "offset": _hex(0), "range": _size(ddr)}]
    # ZU+ DDR low 0x0 (2 GB) and high 0x8_0000_0000 (UG1137 "Configurable memory regions"); the
    # high segment's window is 32 GB, as Vivado assigns it.
    return [
        {"seg": "SAXIGP2/HP0_DDR_LOW", "offset": _hex(0), "range": _size(2**31)},
        {"seg": "SAXIGP2/HP0_DDR_HIGH", "offset": "0x000800000000", "range": _size(2**35)},
    ]


def _excluded_segments(board: Board) -> list[str]:
    """Non-DDR segments behind the PS slave port that kernels must not see."""
    if board.ps == "ps7":
        return []  # S_AXI_HP0 only has HP0_HIGH_OCM when PCW_USE_HIGH_OCM is on (it is not)
    return ["SAXIGP2/HP0_LPS_OCM", "SAXIGP2/HP0_QSPI", "SAXIGP2/HP0_PCIE_LOW"]


def _hex(value: int) -> str:
    return f"0x{value:08X}"


def _size(nbytes: int) -> str:
    """A power-of-two size as Vivado writes ranges: 64K, 512M, 2G, 32G."""
    for unit, scale in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale}{unit}"
    return str(nbytes)
