"""The interface shell's resources: AXI-Lite control block, burst engines and phase FSM.

One structural formula (`shell_resources`) counts the kernel's own interface logic from its
register map and arrays, with the widths and counts of its parts in `ShellParams` so that
calibration can adjust them in one place. It belongs to no operator: the estimator adds it
once per kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from partition.estimate.tables.device import log2ceil, mux_luts
from partition.regmap import RegisterMap

SHELL_SOURCE = (
    "derived (structural count of the kernel's own interface logic, to be calibrated against yosys on "
    "the built-in RTL): AXI-Lite control block = argument data words (32 FF each) + control bits "
    "(ap_start, ap_done, ap_idle, ap_ready, auto_restart, GIE, IER x2, ISR x2 = 10 FF) + address "
    "register + 32-bit read-data register + write/read handshake FSMs (2 x 3 one-hot states); read "
    "mux over the readable words (32-bit, 4:1 per LUT6) + one decode LUT per writable word + one LUT "
    "per control bit; burst engines (read and write): 64-bit address adder and register, 32-bit "
    "remaining-beat counter, 8-bit burst length with the 256-beat / 4 KB clamp (two 12-bit compares + "
    "8-bit select), 4-state one-hot FSM, bus-width data register, write strobes; per array buffer "
    "an engine/compute port mux on address and data; phase FSM one-hot over idle, load per in-array, "
    "compute, store per out-array, done"
)


#: Smallest byte-count width the burst engines accept (their burst arithmetic needs 12 word bits).
MIN_LEN_BITS = 13


def len_bits_for(max_bytes: int) -> int:
    """Byte-count width of the engines for transfers of up to `max_bytes` bytes (at least
    MIN_LEN_BITS): what their counters and a tile copy's byte arithmetic are sized by."""
    return max(MIN_LEN_BITS, max_bytes.bit_length())


@dataclass(frozen=True)
class ShellParams:
    """Widths and counts of the interface shell's parts (one place, for calibration)."""

    ctrl_bits: int = 10  # ap_start, ap_done, ap_idle, ap_ready, auto_restart, GIE, IER x2, ISR x2
    lite_fsm_states: int = 6  # AXI-Lite write and read handshake FSMs, 3 one-hot states each
    lite_rdata_bits: int = 32
    engine_addr_bits: int = 64  # m_axi_addr64
    engine_count_bits: int = 32  # remaining beats
    engine_len_bits: int = 8  # AXI4 burst length (256 beats)
    engine_clamp_compares: int = (
        2  # 256-beat and 4 KB boundary clamps, 12-bit compares (one LUT6 each per 6 bits)
    )
    engine_fsm_states: int = 4


SHELL_PARAMS = ShellParams()


def shell_resources(
    regmap: RegisterMap,
    load_arrays: int,
    store_arrays: int,
    buffer_ports: list[tuple[int, int]],
    bus_bits: int,
    params: ShellParams = SHELL_PARAMS,
) -> dict[str, int]:
    """LUT/FF of the kernel's interface shell, from its register map and arrays.

    `buffer_ports` lists (address bits, data bits) of each array buffer, which gets
    a 2:1 mux between the burst engine and the compute datapath on one port.
    """
    p = params
    data_words = sum(r.words for r in regmap.registers)
    writable_words = sum(r.words for r in regmap.registers if r.kind != "return")
    readable_words = data_words + 4  # CTRL, GIE, IER, ISR are readable too
    addr_bits = log2ceil(regmap.size)
    lite_ff = 32 * data_words + p.ctrl_bits + addr_bits + p.lite_rdata_bits + p.lite_fsm_states
    lite_lut = mux_luts(p.lite_rdata_bits, readable_words) + writable_words + p.ctrl_bits + p.lite_fsm_states
    engines = (1 if load_arrays else 0) + (1 if store_arrays else 0)
    engine_ff = p.engine_addr_bits + p.engine_count_bits + p.engine_len_bits + p.engine_fsm_states + bus_bits
    engine_lut = (
        p.engine_addr_bits  # address adder
        + p.engine_count_bits  # beat counter
        + p.engine_clamp_compares * 2  # two LUT6 per 12-bit compare
        + p.engine_len_bits  # burst-length select
        + p.engine_fsm_states
        + bus_bits // 8  # write strobes / byte lanes
    )
    phases = 1 + load_arrays + 1 + store_arrays + 1
    buf_lut = sum(a + d for a, d in buffer_ports)
    lut = lite_lut + engines * engine_lut + phases + buf_lut
    ff = lite_ff + engines * engine_ff + phases
    return {"lut": lut, "ff": ff, "dsp": 0, "bram18": 0}
