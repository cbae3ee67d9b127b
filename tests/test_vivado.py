"""The Vivado side of the build tree, checked without Vivado.

The generated TCL runs under tests/vivado_standin/standin.tcl (tclsh): a recording
stand-in for every Vivado command the scripts use, which models the IP types, their pins,
interfaces, address spaces and segments, the nets and the address map, and fails on what
Vivado would refuse or what would make a broken overlay. Every board and 1-3 kernels must
pass, from Vitis HLS IP and from the packaged built-in RTL, and so must kernels chained by
AXI-Stream (with and without m_axi_gmem, from Vitis HLS IP only); deliberately broken scripts
must fail with the message that names the fault; `make bitstream` without Vivado must stop with
exit status 2 and say which tool is missing, and with stand-ins for vivado and vitis_hls on
PATH it must leave host/overlay/<app>.bit and .hwh.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from partition.boards import Board, board_names, load_board
from partition.codegen import (
    VIVADO_VERSION,
    VivadoKernel,
    builtin_vlnv,
    control_addresses,
    generate_vivado,
    hls_vlnv,
    kernel_cell,
    overlay_files,
)
from partition.errors import PartitionError
from partition.regmap import RegisterMap, layout
from partition.rtl import control_address_bits
from partition.templating import render, template_env

STANDIN = Path(__file__).parent / "vivado_standin" / "standin.tcl"
BOARDS = ["pynq-z1", "pynq-z2", "ultra96v2", "kv260", "zcu104"]
APP = "demo_app"


@pytest.fixture(scope="module", autouse=True)
def _tclsh():
    if shutil.which("tclsh") is None:
        message = "tclsh is missing (Debian: apt-get install tcl)"
        if os.environ.get("PARTITION_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{message} (PARTITION_REQUIRE_TOOLS=1 requires it)", pytrace=False)
        pytest.skip(message)


# ------------------------------------------------------------------------------ kernels


def regmap(
    name: str, entries: list[tuple[str, int, str, str]], ret: tuple[int, str] | None = None
) -> RegisterMap:
    return RegisterMap(name, tuple(layout(entries, ret)))


# Register maps of different sizes: 32 B (control only + one pointer), 64 B, 128 B.
KERNEL_MAPS = {
    "fir": [("x", 64, "pointer", "int16")],
    "scale": [("a", 64, "pointer", "int32"), ("b", 64, "pointer", "int32"), ("n", 32, "scalar", "int32")],
    "vadd": [(f"p{i}", 64, "pointer", "int32") for i in range(5)] + [("n", 32, "scalar", "uint32")],
}


def make_kernels(n: int) -> list[VivadoKernel]:
    out = []
    for name in list(KERNEL_MAPS)[:n]:
        rmap = regmap(name, KERNEL_MAPS[name])
        out.append(VivadoKernel(name, rmap, [f"rtl/{name}/{name}_core.v", f"rtl/{name}/{name}.v"]))
    return out


def kernel_verilog(k: VivadoKernel) -> dict[str, str]:
    """A top with exactly the kernel ports of the RTL backend (templates/rtl/macros.j2) and a core file."""
    top = template_env().from_string(
        '{% import "rtl/macros.j2" as rtl %}`default_nettype none\n'
        "module {{ name }} ({{ rtl.kernel_ports(aw) }}\n);\n"
        "    {{ name }}_core u_core (.clk(ap_clk));\nendmodule\n"
    )
    core = f"module {k.name}_core (input wire clk);\nendmodule\n"
    return {
        f"rtl/{k.name}/{k.name}_core.v": core,
        f"rtl/{k.name}/{k.name}.v": top.render(name=k.name, aw=control_address_bits(k.regmap)),
    }


def write_tree(
    root: Path,
    kernels: list[VivadoKernel],
    board: Board,
    *,
    hls: bool = True,
    rtl: bool = True,
    app: str = APP,
    chains: tuple[tuple[str, str, str, str], ...] = (),
) -> Path:
    """A build tree with the vivado/ scripts, the kernels' Verilog and their exported HLS IP."""
    for rel, data in generate_vivado(app, kernels, board, chains).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    for k in kernels:
        if rtl and k.rtl_files:
            for rel, text in kernel_verilog(k).items():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)
        if hls:
            export_hls_ip(root, k)
    return root


def export_hls_ip(root: Path, k: VivadoKernel) -> None:
    ip_dir = root / "hls" / k.name / "prj" / "sol1" / "impl" / "ip"
    extra = ([] if k.gmem else ["-no-gmem"]) + [f"{port}:{d}" for port, d in sorted(k.streams.items())]
    subprocess.run(
        ["tclsh", str(STANDIN), "-export-hls-ip", str(ip_dir), k.name, str(k.regmap.size), *extra], check=True
    )


def standin_args(board: Board) -> list[str]:
    return [
        "-expect-ps-ref-mhz",
        f"{float(board.clocks['ps_ref_mhz']):g}",
        "-expect-pl-mhz",
        f"{float(board.clocks['pl_mhz']):g}",
    ]


def run_standin(
    root: Path, script: str, *options: str, tclargs: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    argv = ["tclsh", str(STANDIN), *options, "-report", "standin_report.txt", script]
    if tclargs:
        argv += ["-tclargs", *tclargs]
    return subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=120)


def build(root: Path, board: Board, *options: str, builtin: bool = False) -> subprocess.CompletedProcess:
    bit, hwh = overlay_files(APP)
    args = [*standin_args(board), "-expect-file", bit, "-expect-file", hwh, *options]
    return run_standin(root, "vivado/build_overlay.tcl", *args, tclargs=("builtin",) if builtin else ())


def ok(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 0, result.stdout + result.stderr
    assert "STANDIN OK" in result.stdout


def failed(result: subprocess.CompletedProcess, pattern: str) -> str:
    out = result.stdout + result.stderr
    assert result.returncode != 0, out
    assert re.search(pattern, out), f"expected /{pattern}/ in:\n{out}"
    return out


def report(root: Path) -> list[list[str]]:
    return [line.split() for line in (root / "standin_report.txt").read_text().splitlines() if line]


def mutate(root: Path, rel: str, old: str, new: str, count: int = 1) -> None:
    p = root / rel
    text = p.read_text()
    assert text.count(old) >= count, f"{old!r} not in {rel}"
    p.write_text(text.replace(old, new, count))


def drop_lines(root: Path, rel: str, pattern: str) -> None:
    p = root / rel
    lines = p.read_text().splitlines(keepends=True)
    kept = [line for line in lines if not re.search(pattern, line)]
    assert len(kept) < len(lines), f"/{pattern}/ matches no line of {rel}"
    p.write_text("".join(kept))


# ------------------------------------------------------------------------------ passing flows


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("board_name", BOARDS)
def test_hls_flow_passes(tmp_path, board_name, n):
    board = load_board(board_name)
    kernels = make_kernels(n)
    root = write_tree(tmp_path, kernels, board, rtl=False)
    ok(build(root, board))
    rows = report(root)
    cells = {r[1]: r[2] for r in rows if r[0] == "cell"}
    for k in kernels:
        assert cells[kernel_cell(k.name)] == hls_vlnv(k.name)
    ps = "processing_system7_0" if board.ps == "ps7" else "zynq_ultra_ps_e_0"
    addrs = {(r[1], r[2]): (int(r[3], 16), int(r[4])) for r in rows if r[0] == "addr"}
    for name, base in control_addresses(kernels, board).items():
        assert addrs[(f"/{ps}/Data", f"/{kernel_cell(name)}/s_axi_control/Reg")] == (base, 0x10000)
    first = 0x43C00000 if board.ps == "ps7" else 0xA0000000
    assert sorted(control_addresses(kernels, board).values()) == [first + i * 0x10000 for i in range(n)]
    # every kernel master reaches the PS DDR
    for k in kernels:
        ddr = [seg for (space, seg) in addrs if space == f"/{kernel_cell(k.name)}/Data_m_axi_gmem"]
        assert ddr and all("DDR" in seg for seg in ddr)
    # interrupts: one kernel straight to the PS, several through the AXI interrupt controller
    irq_pin = f"/{ps}/IRQ_F2P" if board.ps == "ps7" else f"/{ps}/pl_ps_irq0"
    irq_net = next(r for r in rows if r[0] == "net" and irq_pin in r)
    if n == 1:
        assert f"/{kernel_cell(kernels[0].name)}/interrupt" in irq_net
        assert "axi_intc_0" not in cells
    else:
        assert "/axi_intc_0/irq" in irq_net
        assert cells["axi_intc_0"].startswith("xilinx.com:ip:axi_intc:")
    # the overlay files are what the flow produced
    copied = {r[2]: r[1] for r in rows if r[0] == "copied"}
    bit, hwh = overlay_files(APP)
    assert copied[bit] == "vivado/prj/overlay.runs/impl_1/overlay_wrapper.bit"
    assert copied[hwh] == "vivado/prj/overlay.gen/sources_1/bd/overlay/hw_handoff/overlay.hwh"


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("board_name", BOARDS)
def test_builtin_flow_passes(tmp_path, board_name, n):
    board = load_board(board_name)
    kernels = make_kernels(n)
    root = write_tree(tmp_path, kernels, board, hls=False)
    ok(run_standin(root, "vivado/package_builtin_ip.tcl"))
    for k in kernels:
        xml = (root / "vivado" / "ip_repo" / k.name / "component.xml").read_text()
        assert f"<spirit:name>{k.name}</spirit:name>" in xml
        # the register block is the register map's size, the reset active low, the interrupt level high
        assert re.search(
            rf"<spirit:name>Reg</spirit:name>\s*<spirit:baseAddress>0</spirit:baseAddress>\s*"
            rf"<spirit:range>{k.regmap.size}</spirit:range>",
            xml,
        )
        assert "<spirit:value>ACTIVE_LOW</spirit:value>" in xml
        assert "<spirit:value>LEVEL_HIGH</spirit:value>" in xml
        assert "<spirit:value>s_axi_control:m_axi_gmem</spirit:value>" in xml
        assert (root / "vivado" / "ip_repo" / k.name / "src" / f"{k.name}.v").is_file()
    ok(build(root, board, builtin=True))
    cells = {r[1]: r[2] for r in report(root) if r[0] == "cell"}
    for k in kernels:
        assert cells[kernel_cell(k.name)] == builtin_vlnv(k.name)


@pytest.mark.parametrize("board_name", BOARDS)
def test_board_files_installed(tmp_path, board_name):
    """With the board part installed the PS gets its preset first; the overlay's clocks still hold."""
    board = load_board(board_name)
    root = write_tree(tmp_path, make_kernels(2), board, rtl=False)
    # a newer file version of the same board is found too
    vendor, name, component, _ = board.board_part.split(":")
    ok(build(root, board, "-board-parts", f"{vendor}:{name}:{component}:9.9"))
    rows = report(root)
    assert ["board_part", f"{vendor}:{name}:{component}:9.9"] in rows
    if board.ps == "ps7":
        assert ["port", "/DDR", "Master"] in rows and ["port", "/FIXED_IO", "Master"] in rows


def test_pynq_z2_ps7_clock_settings(tmp_path):
    board = load_board("pynq-z2")
    root = write_tree(tmp_path, make_kernels(1), board, rtl=False)
    ok(build(root, board, "-log", "commands.txt"))
    commands = (root / "commands.txt").read_text().splitlines()
    assert not [c for c in commands if c.startswith("apply_bd_automation")]  # every connection written out
    assert commands.index("validate_bd_design") < next(
        i for i, c in enumerate(commands) if c.startswith("generate_target")
    )
    props = {(r[1], r[2]): r[3] for r in report(root) if r[0] == "prop"}
    assert props[("processing_system7_0", "PCW_CRYSTAL_PERIPHERAL_FREQMHZ")] == "50"
    assert props[("processing_system7_0", "PCW_FPGA0_PERIPHERAL_FREQMHZ")] == "100"
    # the HP port as wide as the widest kernel m_axi a variant may have (the board's hp_axi_bits)
    assert props[("processing_system7_0", "PCW_S_AXI_HP0_DATA_WIDTH")] == str(board.interface["hp_axi_bits"])
    hwh = (root / "host" / "overlay" / f"{APP}.hwh").read_text()
    assert 'NAME="PCW_CRYSTAL_PERIPHERAL_FREQMHZ" VALUE="50"' in hwh


def test_hwh_found_under_srcs_before_2020_2(tmp_path):
    board = load_board("pynq-z1")
    root = write_tree(tmp_path, make_kernels(1), board, rtl=False)
    ok(build(root, board, "-vivado-version", "2019.2"))
    copied = {r[2]: r[1] for r in report(root) if r[0] == "copied"}
    assert (
        copied[overlay_files(APP)[1]] == "vivado/prj/overlay.srcs/sources_1/bd/overlay/hw_handoff/overlay.hwh"
    )


# ------------------------------------------------------------------------------ broken scripts

BD = "vivado/block_design.tcl"
PKG = "vivado/package_builtin_ip.tcl"


@pytest.fixture
def z2_tree(tmp_path):
    board = load_board("pynq-z2")
    return write_tree(tmp_path, make_kernels(2), board), board


@pytest.fixture
def zu_tree(tmp_path):
    board = load_board("ultra96v2")
    return write_tree(tmp_path, make_kernels(2), board), board


def test_missing_connect_line_fails(z2_tree):
    root, board = z2_tree
    drop_lines(root, BD, r"connect_bd_intf_net .*scale_0/s_axi_control")
    failed(
        build(root, board), r"/scale_0/s_axi_control/Reg cannot be reached from /processing_system7_0/Data"
    )


def test_misspelled_pin_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "[get_bd_pins fir_0/ap_clk]", "[get_bd_pins fir_0/ap_clkk]")
    failed(build(root, board), r"no pin /fir_0/ap_clkk \(cell fir_0 has pins: ap_clk, ap_rst_n, interrupt\)")


def test_misspelled_interface_pin_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "axi_ctrl/M01_AXI", "axi_ctrl/M1_AXI")
    failed(build(root, board), r"no interface pin /axi_ctrl/M1_AXI")


def test_missing_cell_fails(z2_tree):
    root, board = z2_tree
    drop_lines(root, BD, r"create_bd_cell .*proc_sys_reset")
    failed(build(root, board), r"no pin /rst_pl_clk0/slowest_sync_clk \(there is no cell rst_pl_clk0\)")


def drop_assignment(root: Path, segment: str) -> None:
    """Remove the first assign_bd_address of `segment` (a two-line command) from the block design."""
    text = (root / BD).read_text()
    pattern = r"    assign_bd_address [^\n]*\\\n\s*\[get_bd_addr_segs [^\]]*" + re.escape(segment) + r"\]\n"
    new, n = re.subn(pattern, "", text, count=1)
    assert n == 1, f"no assignment of {segment}"
    (root / BD).write_text(new)


def test_misspelled_segment_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "S_AXI_HP0/HP0_DDR_LOWOCM]", "S_AXI_HP0/HP0_DDR_LOW]")
    failed(build(root, board), r"no address segment /processing_system7_0/S_AXI_HP0/HP0_DDR_LOW\b")


def test_dropped_address_assignment_fails(z2_tree):
    root, board = z2_tree
    drop_assignment(root, "scale_0/s_axi_control/Reg")
    out = failed(build(root, board), r"slave segment /scale_0/s_axi_control/Reg has no address")
    assert "reachable from /processing_system7_0/Data but has no address there" in out


def test_zu_hp_port_is_as_wide_as_a_wide_variant(zu_tree):
    root, board = zu_tree
    ok(build(root, board))
    props = {(r[1], r[2]): r[3] for r in report(root) if r[0] == "prop"}
    assert (
        props[("zynq_ultra_ps_e_0", "PSU__SAXIGP2__DATA_WIDTH")]
        == "128"
        == str(board.interface["hp_axi_bits"])
    )


def test_dropped_ddr_assignment_fails(zu_tree):
    root, board = zu_tree
    drop_assignment(root, "SAXIGP2/HP0_DDR_LOW")
    failed(
        build(root, board), r"HP0_DDR_LOW is reachable from /fir_0/Data_m_axi_gmem but has no address there"
    )


def test_dropped_exclusion_fails(zu_tree):
    root, board = zu_tree
    mutate(root, BD, " zynq_ultra_ps_e_0/SAXIGP2/HP0_QSPI", "", count=2)
    failed(build(root, board), r"HP0_QSPI is reachable from /fir_0/Data_m_axi_gmem but has no address there")


def test_all_ddr_dropped_fails(z2_tree):
    root, board = z2_tree
    drop_assignment(root, "S_AXI_HP0/HP0_DDR_LOWOCM")
    out = failed(build(root, board), r"master /fir_0/Data_m_axi_gmem has no PS DDR segment assigned")
    assert "HP0_DDR_LOWOCM is reachable from /fir_0/Data_m_axi_gmem but has no address there" in out


def test_unconnected_clock_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "        [get_bd_pins scale_0/ap_clk]", "       ")
    out = failed(build(root, board), r"clk input /scale_0/ap_clk is not connected")
    assert "the clock of /scale_0" in out


def test_unconnected_reset_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "        [get_bd_pins axi_mem/aresetn] \\\n", "")
    failed(build(root, board), r"rst input /axi_mem/aresetn is not connected")


def test_pynq_crystal_left_at_33_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "PCW_CRYSTAL_PERIPHERAL_FREQMHZ {50}", "PCW_CRYSTAL_PERIPHERAL_FREQMHZ {33.333333}")
    failed(
        build(root, board),
        r"PCW_CRYSTAL_PERIPHERAL_FREQMHZ \(PS reference clock\) is 33.333333 MHz but the board's is 50 MHz: "
        r"PYNQ would program FCLK0 with divisors computed for the wrong crystal",
    )


def test_pynq_crystal_not_set_fails(z2_tree):
    """Leaving the crystal out keeps the PS7 default, 33.333 MHz."""
    root, board = z2_tree
    drop_lines(root, BD, r"PCW_CRYSTAL_PERIPHERAL_FREQMHZ")
    failed(build(root, board), r"PCW_CRYSTAL_PERIPHERAL_FREQMHZ \(PS reference clock\) is 33.333333 MHz")


def test_crystal_from_preset_only_fails(tmp_path):
    """With board files the preset alone does not count: the crystal must be set after it."""
    board = load_board("pynq-z2")
    root = write_tree(tmp_path, make_kernels(1), board, rtl=False)
    drop_lines(root, BD, r"PCW_CRYSTAL_PERIPHERAL_FREQMHZ")
    failed(build(root, board, "-board-parts", board.board_part), r"comes from the board preset")


def test_wrong_pl_clock_fails(zu_tree):
    root, board = zu_tree
    mutate(root, BD, "PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ {100}", "PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ {150}")
    failed(build(root, board), r"PL0_REF_CTRL__FREQMHZ \(PL clock\) is 150 MHz but the board's is 100 MHz")


def test_master_to_master_fails(z2_tree):
    root, board = z2_tree
    mutate(
        root,
        BD,
        "[get_bd_intf_pins processing_system7_0/M_AXI_GP0] [get_bd_intf_pins axi_ctrl/S00_AXI]",
        "[get_bd_intf_pins processing_system7_0/M_AXI_GP0] [get_bd_intf_pins axi_ctrl/M00_AXI]",
    )
    failed(
        build(root, board),
        r"/processing_system7_0/M_AXI_GP0 and /axi_ctrl/M00_AXI are both Master interfaces; "
        r"connect a Master to a Slave",
    )


def test_port_of_wrong_mode_fails(z2_tree):
    root, board = z2_tree
    mutate(
        root,
        BD,
        "create_bd_intf_port -mode Master -vlnv xilinx.com:interface:ddrx_rtl:1.0 DDR",
        "create_bd_intf_port -mode Slave -vlnv xilinx.com:interface:ddrx_rtl:1.0 DDR",
    )
    failed(build(root, board), r"port and pin modes differ")


def test_interfaces_of_different_types_fail(z2_tree):
    root, board = z2_tree
    mutate(
        root,
        BD,
        "connect_bd_intf_net [get_bd_intf_ports DDR] [get_bd_intf_pins processing_system7_0/DDR]",
        "connect_bd_intf_net [get_bd_intf_ports DDR] [get_bd_intf_pins processing_system7_0/FIXED_IO]",
    )
    failed(build(root, board), r"are different interface types")


def test_clock_to_reset_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "[get_bd_pins rst_pl_clk0/ext_reset_in]", "[get_bd_pins rst_pl_clk0/slowest_sync_clk]")
    failed(
        build(root, board),
        r"connects pins of different types: /processing_system7_0/FCLK_RESET0_N \(rst\), "
        r"/rst_pl_clk0/slowest_sync_clk \(clk\)",
    )


def test_two_drivers_fail(z2_tree):
    root, board = z2_tree
    mutate(
        root,
        BD,
        "        [get_bd_pins axi_ctrl/ARESETN]",
        "        [get_bd_pins axi_ctrl/ARESETN] [get_bd_pins rst_pl_clk0/peripheral_aresetn]",
    )
    failed(
        build(root, board),
        r"net interconnect_aresetn has several drivers: /rst_pl_clk0/interconnect_aresetn, "
        r"/rst_pl_clk0/peripheral_aresetn",
    )


def test_interface_connected_twice_fails(z2_tree):
    root, board = z2_tree
    mutate(
        root,
        BD,
        "[get_bd_intf_pins scale_0/m_axi_gmem] [get_bd_intf_pins axi_mem/S01_AXI]",
        "[get_bd_intf_pins scale_0/m_axi_gmem] [get_bd_intf_pins axi_mem/S00_AXI]",
    )
    failed(build(root, board), r"/axi_mem/S00_AXI is already connected \(to /fir_0/m_axi_gmem\)")


def test_unknown_property_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "CONFIG.NUM_MI {3}", "CONFIG.NUM_MII {3}")
    failed(
        build(root, board),
        r"axi_interconnect \(cell axi_ctrl\) has no parameter CONFIG.NUM_MII; known: .*NUM_MI",
    )


def test_unknown_ps_property_fails(zu_tree):
    root, board = zu_tree
    mutate(root, BD, "CONFIG.PSU__USE__IRQ0 {1}", "CONFIG.PSU__USE_IRQ0 {1}")
    failed(
        build(root, board),
        r"zynq_ultra_ps_e \(cell zynq_ultra_ps_e_0\) has no parameter CONFIG.PSU__USE_IRQ0",
    )


def test_too_few_interconnect_ports_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "CONFIG.NUM_MI {3}", "CONFIG.NUM_MI {2}")
    failed(build(root, board), r"no interface pin /axi_ctrl/M02_AXI")


def test_enabled_ps_port_with_open_clock_fails(zu_tree):
    """A ZU+ PS leaves HPM1_FPD enabled unless told otherwise; its clock must then be connected."""
    root, board = zu_tree
    mutate(root, BD, "CONFIG.PSU__USE__M_AXI_GP1 {0}", "CONFIG.PSU__USE__M_AXI_GP1 {1}")
    out = failed(build(root, board), r"clk input /zynq_ultra_ps_e_0/maxihpm1_fpd_aclk is not connected")
    assert "interface /zynq_ultra_ps_e_0/M_AXI_HPM1_FPD (Master aximm) is not connected" in out


def test_overlapping_addresses_fail(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "-offset 0x43C10000", "-offset 0x43C00000")
    failed(build(root, board), r"overlaps /fir_0/s_axi_control/Reg at 0x43C00000")


def test_address_outside_window_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "-offset 0x43C10000", "-offset 0x83C10000")
    failed(build(root, board), r"outside the window 0x40000000\.\.0x7FFFFFFF")


def test_connection_automation_is_not_trusted(z2_tree):
    root, board = z2_tree
    mutate(
        root,
        BD,
        "    connect_bd_intf_net [get_bd_intf_pins axi_ctrl/M00_AXI] [get_bd_intf_pins fir_0/s_axi_control]",
        "    apply_bd_automation -rule xilinx.com:bd_rule:axi4 -config {Master {/processing_system7_0/M_AXI_GP0}} "
        "[get_bd_intf_pins fir_0/s_axi_control]",
    )
    failed(build(root, board), r"apply_bd_automation -rule xilinx.com:bd_rule:axi4 is not modelled")


def test_misspelled_command_fails(z2_tree):
    root, board = z2_tree
    mutate(root, BD, "    connect_bd_net -net pl_resetn0", "    conect_bd_net -net pl_resetn0")
    failed(build(root, board), r"command 'conect_bd_net' is not modelled")


def test_copy_of_a_path_the_flow_does_not_produce_fails(z2_tree):
    root, board = z2_tree
    drop_lines(root, "vivado/build_overlay.tcl", r'fail "no bitstream at')
    mutate(
        root,
        "vivado/build_overlay.tcl",
        "set bit [file join $run_dir overlay_wrapper.bit]",
        "set bit [file join $run_dir overlay.bit]",
    )
    failed(
        build(root, board),
        r"file copy: vivado/prj/overlay.runs/impl_1/overlay.bit does not exist; "
        r"the flow produced: .*overlay_wrapper.bit",
    )


def test_hwh_only_under_gen_fails_on_old_vivado(z2_tree):
    """Why the copy step looks under .srcs/ too: Vivado before 2020.2 writes the handoff there."""
    root, board = z2_tree
    mutate(root, "vivado/build_overlay.tcl", "foreach sources {gen srcs}", "foreach sources {gen}")
    ok(build(root, board))
    failed(build(root, board, "-vivado-version", "2020.1"), r"no hardware handoff overlay.hwh under")


def test_missing_overlay_copy_fails(z2_tree):
    root, board = z2_tree
    drop_lines(root, "vivado/build_overlay.tcl", r"file copy -force \$hwh")
    failed(build(root, board), rf"the script did not leave host/overlay/{APP}.hwh")


def test_timing_violation_fails_the_build(z2_tree):
    root, board = z2_tree
    out = failed(build(root, board, "-timing", "violated"), r"timing constraints are not met at 100 MHz")
    assert "STANDIN EXIT 1" in out
    assert not (root / "host" / "overlay" / f"{APP}.bit").exists()


def test_failed_implementation_stops(z2_tree):
    root, board = z2_tree
    failed(build(root, board, "-fail-run", "impl_1"), r"implementation failed: see .*impl_1/runme.log")


def test_missing_hls_ip_says_run_make_hls(tmp_path):
    board = load_board("pynq-z2")
    root = write_tree(tmp_path, make_kernels(1), board, hls=False, rtl=False)
    failed(
        build(root, board), r"no Vitis HLS IP for kernel fir at .*hls/fir/prj/sol1/impl/ip: run `make hls`"
    )


def test_validate_before_generate(z2_tree):
    root, board = z2_tree
    drop_lines(root, "vivado/build_overlay.tcl", r"^validate_bd_design")
    failed(build(root, board), r"generate_target: the block design changed after the last validate_bd_design")


# ------------------------------------------------------------------------------ broken packaging


@pytest.fixture
def pkg_tree(tmp_path):
    board = load_board("pynq-z2")
    return write_tree(tmp_path, make_kernels(1), board, hls=False), board


def test_package_wrong_physical_port_fails(pkg_tree):
    root, _ = pkg_tree
    mutate(root, PKG, "map_port $clk CLK ap_clk", "map_port $clk CLK ap_clock")
    failed(run_standin(root, PKG), r"ap_clock is not a port of module fir")


def test_package_wrong_register_range_fails(pkg_tree):
    root, _ = pkg_tree
    mutate(
        root,
        PKG,
        "package_kernel fir [list rtl/fir/fir_core.v rtl/fir/fir.v] 32",
        "package_kernel fir [list rtl/fir/fir_core.v rtl/fir/fir.v] 128",
    )
    failed(
        run_standin(root, PKG),
        r"address block s_axi_control/Reg: range 128 bytes, but s_axi_control decodes 32",
    )


def test_package_unclocked_interface_fails(pkg_tree):
    root, _ = pkg_tree
    mutate(root, PKG, "        lappend clocked m_axi_gmem\n", "")
    failed(run_standin(root, PKG), r"AXI interface m_axi_gmem is associated with no clock")


def test_package_master_declared_slave_fails(pkg_tree):
    root, _ = pkg_tree
    mutate(root, PKG, "xilinx.com:interface:aximm:1.0 master]", "xilinx.com:interface:aximm:1.0 slave]")
    failed(
        run_standin(root, PKG),
        r"bus interface m_axi_gmem \(slave\): AWVALID maps m_axi_gmem_AWVALID, an output",
    )


def test_package_keeping_inferred_interfaces_fails(pkg_tree):
    root, _ = pkg_tree
    drop_lines(root, PKG, r"ipx::remove_all_bus_interface")
    failed(
        run_standin(root, PKG),
        r"bus interface s_axi_control already exists \(remove the inferred one first\)",
    )


def test_package_missing_rtl_file_fails(pkg_tree):
    root, _ = pkg_tree
    (root / "rtl" / "fir" / "fir.v").unlink()
    failed(run_standin(root, PKG), r"RTL source rtl/fir/fir.v of kernel fir is missing")


def test_package_kernel_without_rtl_says_use_hls(tmp_path):
    board = load_board("pynq-z2")
    k = VivadoKernel("fir", regmap("fir", KERNEL_MAPS["fir"]), [])
    root = write_tree(tmp_path, [k], board, hls=False, rtl=False)
    failed(run_standin(root, PKG), r"kernel fir has no built-in RTL .* `make bitstream`")


def test_builtin_flow_needs_packaged_ip(tmp_path):
    board = load_board("pynq-z2")
    root = write_tree(tmp_path, make_kernels(1), board, hls=False)
    failed(build(root, board, builtin=True), r"run vivado/package_builtin_ip.tcl first")


def test_builtin_flow_with_rtl_backend_output(tmp_path):
    """The built-in RTL backend's own Verilog packages and builds (ports read from the files)."""
    import numpy as np
    from ir_kernels import k_dot, k_int_scalars, k_recur

    from partition.rtl import generate_rtl

    board = load_board("pynq-z2")
    kernels = []
    for make in (k_dot, k_int_scalars, k_recur):
        ir_kernel, _ = make(np.random.default_rng(0))
        rtl = generate_rtl(ir_kernel, board)
        for rel, data in rtl.files.items():
            path = tmp_path / "rtl" / rtl.task / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data if isinstance(data, bytes) else data.encode())
        files = [f"rtl/{rtl.task}/{f}" for f in rtl.sources]
        kernels.append(VivadoKernel(rtl.task, rtl.regmap, files, rtl.streams, rtl.gmem))
    assert [k.gmem for k in kernels] == [True, False, True]  # int_scalars: no array, no m_axi_gmem
    root = write_tree(tmp_path, kernels, board, hls=False, rtl=False)
    ok(run_standin(root, PKG))
    ok(build(root, board, builtin=True))
    # an IP declaring an m_axi_gmem its Verilog does not have fails to package
    mutate(root, PKG, "/int_scalars.v] 64 0 [list]", "/int_scalars.v] 64 1 [list]")
    failed(run_standin(root, PKG), r"m_axi_gmem_AWVALID is not a port of module int_scalars")


# ------------------------------------------------------------------------------ generator


def test_generation_is_deterministic_and_order_free():
    board = load_board("kv260")
    kernels = make_kernels(3)
    a = generate_vivado(APP, kernels, board)
    b = generate_vivado(APP, list(reversed(make_kernels(3))), board)
    assert a == b
    assert sorted(a) == [
        "vivado/block_design.tcl",
        "vivado/build_overlay.tcl",
        "vivado/package_builtin_ip.tcl",
    ]
    text = b"".join(a.values()).decode()
    assert "/tmp" not in text and "/work" not in text and VIVADO_VERSION in text


def test_overlay_named_after_the_app_file():
    assert overlay_files("fir_pipeline.py") == (
        "host/overlay/fir_pipeline.bit",
        "host/overlay/fir_pipeline.hwh",
    )
    assert overlay_files("fir_pipeline") == overlay_files("fir_pipeline.py")
    board = load_board("pynq-z2")
    assert generate_vivado("demo_app.py", make_kernels(1), board) == generate_vivado(
        "demo_app", make_kernels(1), board
    )


def test_every_board_is_covered():
    assert sorted(BOARDS) == sorted(board_names())


@pytest.mark.parametrize(
    ("app", "kernels", "message"),
    [
        ("demo", [], r"no FPGA kernels"),
        ("my app", make_kernels(1), r"cannot name the overlay files"),
        ("demo", make_kernels(1) * 2, r"appears twice"),
        (
            "demo",
            [VivadoKernel("axi_intc", regmap("axi_intc", []), [])],
            r"clashes with an infrastructure cell",
        ),
        ("demo", [VivadoKernel("k", regmap("k", []), ["../k.v"])], r"relative to the build tree root"),
        (
            "demo",
            [VivadoKernel("k", regmap("k", []), ["rtl/k/my file.v"])],
            r"relative to the build tree root",
        ),
        ("demo", [VivadoKernel("k", regmap("other", []), [])], r"belongs to another kernel"),
        ("demo", [VivadoKernel("2k", regmap("2k", []), [])], r"not a usable C\+\+ identifier"),
    ],
)
def test_bad_input_is_a_partition_error(app, kernels, message):
    with pytest.raises(PartitionError, match=message):
        generate_vivado(app, kernels, load_board("pynq-z2"))


# ------------------------------------------------------------------------------ AXI-Stream chains


def chained_kernels() -> tuple[list[VivadoKernel], tuple[tuple[str, str, str, str], ...]]:
    """src -> mid -> dst chained (mid streams both arrays: no m_axi_gmem), plus an ordinary fir."""
    kernels = [
        VivadoKernel("src", regmap("src", [("a", 64, "pointer", "int32")]), [], {"y": "out"}),
        VivadoKernel(
            "mid", regmap("mid", [("n", 32, "scalar", "int32")]), [], {"x": "in", "out_r": "out"}, False
        ),
        VivadoKernel("dst", regmap("dst", [("z", 64, "pointer", "int32")]), [], {"x": "in"}),
        *make_kernels(1),
    ]
    return kernels, (("src", "y", "mid", "x"), ("mid", "out_r", "dst", "x"))


def all_streamed_kernels() -> tuple[list[VivadoKernel], tuple[tuple[str, str, str, str], ...]]:
    """Two kernels whose only arrays are the stream between them: no m_axi_gmem anywhere."""
    kernels = [
        VivadoKernel("src", regmap("src", [("n", 32, "scalar", "int32")]), [], {"y": "out"}, False),
        VivadoKernel("dst", regmap("dst", []), [], {"x": "in"}, False),
    ]
    return kernels, (("src", "y", "dst", "x"),)


def build_chained(tmp_path: Path, board: Board, plan) -> tuple[Path, list[VivadoKernel], list[list[str]]]:
    """The stand-in's report of building `plan()` (kernels, chains) from Vitis HLS IP on `board`."""
    kernels, chains = plan()
    root = write_tree(tmp_path, kernels, board, rtl=False, chains=chains)
    ok(build(root, board))
    return root, kernels, report(root)


@pytest.mark.parametrize("board_name", ["pynq-z2", "kv260"])
def test_chained_kernels_build(tmp_path, board_name):
    board = load_board(board_name)
    root, kernels, rows = build_chained(tmp_path, board, chained_kernels)
    intf = {(r[1], r[2]) for r in rows if r[0] == "intf"}  # each pair in string order
    assert {("/dst_0/x", "/mid_0/out_r"), ("/mid_0/x", "/src_0/y")} <= intf
    # the SmartConnect has one slave per kernel with m_axi_gmem, in their own numbering
    assert ["prop", "axi_mem", "NUM_SI", "3"] in rows
    assert {(a, b) for a, b in intf if "axi_mem/S" in a + b} == {
        ("/axi_mem/S00_AXI", "/dst_0/m_axi_gmem"),
        ("/axi_mem/S01_AXI", "/fir_0/m_axi_gmem"),
        ("/axi_mem/S02_AXI", "/src_0/m_axi_gmem"),
    }
    # DDR addresses for exactly the kernels with m_axi_gmem; control addresses for all four
    spaces = {r[1] for r in rows if r[0] == "addr"}
    ps = "processing_system7_0" if board.ps == "ps7" else "zynq_ultra_ps_e_0"
    assert spaces == {f"/{ps}/Data"} | {f"/{kernel_cell(k)}/Data_m_axi_gmem" for k in ("dst", "fir", "src")}
    segs = {r[2] for r in rows if r[0] == "addr" and r[1] == f"/{ps}/Data"}
    assert {f"/{kernel_cell(k.name)}/s_axi_control/Reg" for k in kernels} <= segs
    text = (root / BD).read_text()
    assert "mid_0/out_r -> dst_0/x" in text and "no clock converter" in text


@pytest.mark.parametrize("board_name", ["pynq-z2", "kv260"])
def test_all_streamed_design_builds_without_smartconnect(tmp_path, board_name):
    board = load_board(board_name)
    _, _, rows = build_chained(tmp_path, board, all_streamed_kernels)
    assert ["intf", "/dst_0/x", "/src_0/y"] in rows
    cells = {r[1] for r in rows if r[0] == "cell"}
    assert "axi_mem" not in cells
    assert not [r for r in rows if r[0] == "addr" and "m_axi_gmem" in r[1]]
    props = {(r[1], r[2]): r[3] for r in rows if r[0] == "prop"}
    if board.ps == "ps7":
        assert props[("processing_system7_0", "PCW_USE_S_AXI_HP0")] == "0"
    else:
        assert props[("zynq_ultra_ps_e_0", "PSU__USE__S_AXI_GP2")] == "0"


def test_all_streamed_design_with_hp_port_left_on_fails(tmp_path):
    """Why HP0 is disabled without kernel masters: an enabled, open PS slave fails validation."""
    board = load_board("pynq-z2")
    kernels, chains = all_streamed_kernels()
    root = write_tree(tmp_path, kernels, board, rtl=False, chains=chains)
    mutate(root, BD, "CONFIG.PCW_USE_S_AXI_HP0 {0}", "CONFIG.PCW_USE_S_AXI_HP0 {1}")
    out = failed(build(root, board), r"clk input /processing_system7_0/S_AXI_HP0_ACLK is not connected")
    assert "interface /processing_system7_0/S_AXI_HP0 (Slave aximm) is not connected" in out


def test_open_axis_port_fails(tmp_path):
    board = load_board("pynq-z2")
    kernels, chains = chained_kernels()
    root = write_tree(tmp_path, kernels, board, rtl=False, chains=chains)
    drop_lines(root, BD, r"connect_bd_intf_net .*mid_0/out_r")
    out = failed(
        build(root, board),
        r"AXI-Stream interface /dst_0/x \(Slave axis\) is not connected: Vivado would tie its TVALID",
    )
    assert "AXI-Stream interface /mid_0/out_r (Master axis) is not connected" in out


def test_axis_to_aximm_fails(tmp_path):
    board = load_board("kv260")
    kernels, chains = chained_kernels()
    root = write_tree(tmp_path, kernels, board, rtl=False, chains=chains)
    mutate(root, BD, "[get_bd_intf_pins dst_0/x]", "[get_bd_intf_pins axi_mem/S03_AXI]")
    mutate(root, BD, "CONFIG.NUM_SI {3}", "CONFIG.NUM_SI {4}")
    failed(
        build(root, board),
        r"/mid_0/out_r \(axis\) and /axi_mem/S03_AXI \(aximm\) are different interface types",
    )


def test_axis_master_to_master_fails(tmp_path):
    board = load_board("pynq-z2")
    kernels, chains = chained_kernels()
    root = write_tree(tmp_path, kernels, board, rtl=False, chains=chains)
    mutate(
        root,
        BD,
        "[get_bd_intf_pins mid_0/out_r] [get_bd_intf_pins dst_0/x]",
        "[get_bd_intf_pins mid_0/out_r] [get_bd_intf_pins src_0/y]",
    )
    failed(build(root, board), r"/mid_0/out_r and /src_0/y are both Master interfaces")


def test_exported_axis_ports(tmp_path):
    kernels, _ = chained_kernels()
    export_hls_ip(tmp_path, kernels[1])
    xml = (tmp_path / "hls" / "mid" / "prj" / "sol1" / "impl" / "ip" / "component.xml").read_text()
    assert "m_axi_gmem" not in xml and 'spirit:name="axis_rtl"' in xml
    assert "<spirit:value>s_axi_control:out_r:x</spirit:value>" in xml
    for port in ("x_TDATA", "x_TVALID", "x_TREADY", "out_r_TDATA", "out_r_TVALID", "out_r_TREADY"):
        assert f"<spirit:name>{port}</spirit:name>" in xml
    assert re.search(r"<spirit:name>x_TDATA</spirit:name>\s*<spirit:wire>\s*<spirit:direction>in</spirit:direction>\s*"
                     r"<spirit:vector>\s*<spirit:left spirit:format=\"long\">63</spirit:left>", xml)  # fmt: skip
    assert re.search(r"<spirit:name>out_r_TREADY</spirit:name>\s*<spirit:wire>\s*<spirit:direction>in<", xml)


def test_chained_kernels_without_builtin_rtl_stop_the_builtin_flow(tmp_path):
    """Chained kernels package with their AXI-Stream interfaces (tests/test_plan_chains.py, from
    the real RTL); a kernel with no built-in RTL stops the packaging, naming it."""
    board = load_board("pynq-z2")
    kernels, chains = chained_kernels()
    root = write_tree(tmp_path, kernels, board, hls=False, chains=chains)
    pkg = (root / PKG).read_text()
    assert "package_kernel mid [list] 32 0 [list {out_r master} {x slave}]" in pkg
    assert "package_kernel src [list] 32 1 [list {y master}]" in pkg
    failed(run_standin(root, PKG), r"kernel dst has no built-in RTL .*`make bitstream`")


def test_chain_output_is_deterministic():
    board = load_board("kv260")
    kernels, chains = chained_kernels()
    a = generate_vivado(APP, kernels, board, chains)
    b = generate_vivado(APP, list(reversed(chained_kernels()[0])), board, tuple(reversed(chains)))
    assert a == b


def _chain_error(kernels, chains):
    with pytest.raises(PartitionError) as e:
        generate_vivado(APP, kernels, load_board("pynq-z2"), chains)
    return str(e.value)


def _k(name, streams, gmem=True):
    return VivadoKernel(name, regmap(name, []), [], streams, gmem)


@pytest.mark.parametrize(
    ("kernels", "chains", "message"),
    [
        ([_k("a", {"y": "out"}), _k("b", {"x": "in"})], [("a", "y", "c", "x")], r"a\.y -> c\.x: there is no FPGA kernel c"),
        ([_k("a", {"y": "out"}), _k("b", {"x": "in"})], [("a", "w", "b", "x")],
         r"kernel a has no AXI-Stream port w \(its stream ports: y \(out\)\)"),
        ([_k("a", {"y": "out"}), _k("b", {"x": "out"})], [("a", "y", "b", "x")],
         r"port x of kernel b is an 'out' stream, but the consumer end of a chain must be an 'in' stream"),
        ([_k("a", {"y": "in"}), _k("b", {"x": "in"})], [("a", "y", "b", "x")],
         r"port y of kernel a is an 'in' stream, but the producer end of a chain must be an 'out' stream"),
        ([_k("a", {"y": "out"}), _k("b", {"x": "in"}), _k("c", {"x": "in"})], [("a", "y", "b", "x"), ("a", "y", "c", "x")],
         r"a\.y -> c\.x: port y of kernel a is already in the chain a\.y -> b\.x"),
        ([_k("a", {"y": "out"}), _k("b", {"x": "in", "w": "in"})], [("a", "y", "b", "x")],
         r"FPGA kernel b: AXI-Stream port w \(in\) is in no chain"),
        ([_k("a", {"y": "out", "x": "in"})], [("a", "y", "a", "x")], r"a kernel cannot be chained to itself"),
        ([_k("a", {"y": "sideways"}), _k("b", {"x": "in"})], [("a", "y", "b", "x")], r"direction 'sideways'"),
        ([_k("a", {"m_axi_gmem": "out"}), _k("b", {"x": "in"})], [], r"clashes with the kernel's m_axi_gmem"),
        ([_k("a", {"y": "out"}), _k("b", {"x": "in"})], [("a", "y", "b")], r"is not \(producer kernel"),
    ],
)  # fmt: skip
def test_bad_chains_are_partition_errors(kernels, chains, message):
    assert re.search(message, _chain_error(kernels, chains))


# ------------------------------------------------------------------------------ make bitstream


def makefile(app: str, kernels: list[VivadoKernel]) -> str:
    return render(
        "make/Makefile.j2",
        app=app,
        board="pynq-z2",
        kernels=[{"task": k.name, "name": k.name, "csim": "true", "vectors": 1} for k in kernels],
        csim_binary="csim",
        hls_project="prj",
    )


def executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)


def tool_dir(tmp_path: Path, *names: str) -> Path:
    """A PATH folder holding make, a shell and the basic tools, plus `names` (stand-in scripts)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("make", "bash", "sh", "rm", "echo", "tclsh", "env", "dirname", "basename", "cat", "true"):
        found = shutil.which(tool)
        if found and not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(found)
    return bin_dir


def run_make(root: Path, bin_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "RTL")}
    env["PATH"] = str(bin_dir)
    return subprocess.run(["make", *args], cwd=root, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def make_tree(tmp_path):
    board = load_board("pynq-z2")
    kernels = make_kernels(2)
    # as the build tree does it: the plan's app is the file name
    root = write_tree(tmp_path / "tree", kernels, board, hls=False, app=f"{APP}.py")
    (root / "Makefile").write_text(makefile(f"{APP}.py", kernels))
    return root, board, kernels


@pytest.mark.parametrize("rtl", [None, "builtin"])
def test_make_bitstream_without_vivado_exits_2(tmp_path, make_tree, rtl):
    root, _, _ = make_tree
    result = run_make(root, tool_dir(tmp_path), "bitstream", *([f"RTL={rtl}"] if rtl else []))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Vivado not found (vivado is not on PATH)" in result.stderr
    assert "settings64.sh" in result.stderr and VIVADO_VERSION in result.stderr


def test_make_bitstream_without_vitis_exits_2(tmp_path, make_tree):
    root, _, _ = make_tree
    bin_dir = tool_dir(tmp_path)
    executable(bin_dir / "vivado", "#!/bin/sh\necho vivado must not run >&2\nexit 3\n")
    result = run_make(root, bin_dir, "bitstream")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Vitis HLS not found (neither vitis_hls nor vitis-run is on PATH)" in result.stderr
    assert "settings64.sh" in result.stderr and "make bitstream RTL=builtin" in result.stderr


def test_make_bitstream_unknown_rtl_exits_2(tmp_path, make_tree):
    root, _, _ = make_tree
    result = run_make(root, tool_dir(tmp_path), "bitstream", "RTL=verilog")
    assert result.returncode == 2
    assert "RTL=verilog is not a kernel source" in result.stderr


def standin_tools(tmp_path: Path, board: Board, kernels: list[VivadoKernel]) -> Path:
    """vivado and vitis_hls on PATH that run the stand-in (the HLS one exports each kernel's IP)."""
    bin_dir = tool_dir(tmp_path)
    opts = " ".join(standin_args(board))
    executable(
        bin_dir / "vivado",
        "#!/bin/sh\n"
        'src=""\n'
        'while [ $# -gt 0 ]; do case "$1" in\n'
        '  -source) src="$2"; shift 2;;\n'
        "  -tclargs) shift; break;;\n"
        "  *) shift;;\n"
        "esac; done\n"
        f'exec tclsh {STANDIN} {opts} "$src" -tclargs "$@"\n',
    )
    cases = "".join(f"  {k.name}) range={k.regmap.size};;\n" for k in kernels)
    executable(
        bin_dir / "vitis_hls",
        "#!/bin/sh\n"
        '[ "$1" = -f ] && [ -f "$2" ] || exit 4\n'
        'top=$(basename "$PWD")\n'
        f'case "$top" in\n{cases}  *) exit 5;;\nesac\n'
        f'exec tclsh {STANDIN} -export-hls-ip prj/sol1/impl/ip "$top" "$range"\n',
    )
    return bin_dir


@pytest.mark.parametrize("rtl", [None, "builtin"])
def test_make_bitstream_with_standin_tools(tmp_path, make_tree, rtl):
    root, board, kernels = make_tree
    for k in kernels:  # what `make hls` needs to find per kernel
        (root / "hls" / k.name).mkdir(parents=True, exist_ok=True)
        (root / "hls" / k.name / "run_hls.tcl").write_text("# stand-in\n")
    bin_dir = standin_tools(tmp_path, board, kernels)
    result = run_make(root, bin_dir, "bitstream", *([f"RTL={rtl}"] if rtl else []))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("STANDIN OK") == (2 if rtl else 1)
    for rel in overlay_files(APP):
        assert (root / rel).is_file()
    if rtl:
        assert (root / "vivado" / "ip_repo" / kernels[0].name / "component.xml").is_file()
        assert not (root / "hls" / kernels[0].name / "prj").exists()
    else:
        assert (root / "hls" / kernels[0].name / "prj" / "sol1" / "impl" / "ip" / "component.xml").is_file()
    clean = run_make(root, bin_dir, "clean-bitstream")
    assert clean.returncode == 0, clean.stderr
    assert not (root / "vivado" / "prj").exists() and not (root / overlay_files(APP)[0]).exists()
