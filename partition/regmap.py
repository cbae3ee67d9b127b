"""The AXI4-Lite register map of a kernel: the one place its offsets are computed.

Vitis HLS lays out `s_axi_control` for a top function whose control is
`s_axilite port=return`, its pointers `m_axi offset=slave` and its scalars
`s_axilite`:

    0x00 CTRL   bit0 ap_start, bit1 ap_done (clear on read), bit2 ap_idle,
                bit3 ap_ready (clear on read), bit7 auto_restart, bit9 interrupt
    0x04 GIE    global interrupt enable
    0x08 IER    bit0 ap_done, bit1 ap_ready interrupt enable
    0x0C ISR    bit0 ap_done, bit1 ap_ready status (toggle on write, as Vitis HLS
                2023.1 and later; 2022.1 cleared it on read)
    0x10        the scalar return value, when the function returns one
    then        every argument in declaration order

Each value takes ceil(bits/32) data words, low word first, plus one reserved
word: an 8/16/32-bit scalar takes 8 bytes, a 64-bit scalar or a pointer
(m_axi_addr64 is on by default) 12 bytes.

A kernel with a fallback status (`ir.Kernel.status`) has one more argument, last:
the output scalar `fallback` (a `uint8_t*` in s_axilite), which Vitis HLS lays out
as its data word, then a control word whose bit 0 is `fallback_ap_vld` (clear on
read), with no reserved word (headers Vitis HLS generated show an output scalar at
0x18 with its control word at 0x1c and the next argument at 0x20). Being last, only
its own two words matter. The host reads it after ap_done: nonzero means the call
must run on the CPU.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from partition import ir
from partition.dtypes import UINT8

CTRL = 0x00
GIE = 0x04
IER = 0x08
ISR = 0x0C
FIRST = 0x10

AP_START = 1 << 0
AP_DONE = 1 << 1
AP_IDLE = 1 << 2
AP_READY = 1 << 3
AUTO_RESTART = 1 << 7
INTERRUPT = 1 << 9

CTRL_BITS = {
    "ap_start": AP_START,
    "ap_done": AP_DONE,
    "ap_idle": AP_IDLE,
    "ap_ready": AP_READY,
    "auto_restart": AUTO_RESTART,
    "interrupt": INTERRUPT,
}
IER_DONE = 1 << 0  # IER and ISR: the ap_done interrupt
IER_READY = 1 << 1  # IER and ISR: the ap_ready interrupt

POINTER_BITS = 64
STATUS = "fallback"  # the output scalar of a kernel with a fallback status (ir.Kernel.status)
STATUS_DTYPE = UINT8


@dataclass(frozen=True)
class Register:
    name: str  # argument name, "ap_return", or "fallback"
    offset: int
    bits: int  # data bits (64 for pointers)
    kind: str  # "pointer", "scalar", "return", "status" (the fallback output scalar)
    dtype: str  # element dtype (pointers: of the array), scalar dtype otherwise

    @property
    def words(self) -> int:
        return max(1, (self.bits + 31) // 32)

    @property
    def span(self) -> int:
        """Bytes this entry occupies: its data words and a reserved word (for the output
        scalar, its ap_vld control word)."""
        return 4 * (self.words + 1)


@dataclass(frozen=True)
class RegisterMap:
    kernel: str
    registers: tuple[Register, ...]

    @property
    def size(self) -> int:
        """Address range the control slave decodes: the next power of two covering the last
        register, as Vitis sizes C_S_AXI_ADDR_WIDTH (a map ending at 0x18 decodes 32 B)."""
        end = FIRST
        for r in self.registers:
            end = max(end, r.offset + r.span)
        size = 16
        while size < end:
            size *= 2
        return size

    def by_name(self, name: str) -> Register:
        for r in self.registers:
            if r.name == name:
                return r
        raise KeyError(name)

    @property
    def argument_words(self) -> int:
        """32-bit writes the host makes to pass all arguments."""
        return sum(r.words for r in self.registers if r.kind not in ("return", "status"))

    def to_json(self) -> dict:
        return {
            "kernel": self.kernel,
            "control": {"CTRL": CTRL, "GIE": GIE, "IER": IER, "ISR": ISR},
            "ctrl_bits": {name: mask.bit_length() - 1 for name, mask in CTRL_BITS.items()},
            "registers": [asdict(r) | {"words": r.words} for r in self.registers],
            "size": self.size,
        }


def layout(entries: list[tuple[str, int, str, str]], has_return: tuple[int, str] | None) -> list[Register]:
    """Offsets for (name, bits, kind, dtype) entries, after an optional (bits, dtype) return."""
    regs = []
    off = FIRST
    if has_return is not None:
        bits, dt = has_return
        r = Register("ap_return", off, bits, "return", dt)
        regs.append(r)
        off += r.span
    for name, bits, kind, dt in entries:
        r = Register(name, off, bits, kind, dt)
        regs.append(r)
        off += r.span
    return regs


def data_bits(dt) -> int:
    """Declared width of a scalar register: a bool is 1 bit, other types their width
    (each still takes a whole 32-bit word and a reserved word)."""
    return 1 if dt.is_bool else dt.bits


def register_map(kernel: ir.Kernel) -> RegisterMap:
    """The register map Vitis HLS generates for this kernel's top function."""
    entries = []
    for p in kernel.params:
        if p.stream:
            continue  # an AXI-Stream port has no register
        if p.kind == "array":
            entries.append((p.name, POINTER_BITS, "pointer", p.dtype.name))
        else:
            entries.append((p.name, data_bits(p.dtype), "scalar", p.dtype.name))
    if kernel.status is not None:
        entries.append((STATUS, data_bits(STATUS_DTYPE), "status", STATUS_DTYPE.name))
    ret = (data_bits(kernel.ret), kernel.ret.name) if kernel.ret is not None else None
    return RegisterMap(kernel.name, tuple(layout(entries, ret)))
