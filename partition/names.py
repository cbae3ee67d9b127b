"""Names the generated C++, Verilog and Vitis HLS files may not use, and the one mapping of a
Python identifier onto a name that is safe in all three.

The frontend names every kernel object through `c_name`; the C++ backend checks names read
back from edited kernel JSON against the same lists. Both read them from here so that the
two can never disagree about what is reserved.
"""

from __future__ import annotations

import re

# C++14 keywords and alternative tokens, and names the generated files define
# or include (a kernel object with one of these names would not compile, or
# would silently mean something else).
CPP_RESERVED = frozenset(
    """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t char32_t
    class compl const constexpr const_cast continue decltype default delete do double dynamic_cast
    else enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
    reinterpret_cast return short signed sizeof static static_assert static_cast struct switch
    template this thread_local throw true try typedef typeid typename union unsigned using virtual
    void volatile wchar_t while xor xor_eq
    main pt std int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t
    INT64_C UINT64_C NAN INFINITY
    """.split()  # noqa: SIM905 (a word list reads better as text)
)

# Verilog/SystemVerilog and Vitis HLS reserve these, and C++ its keywords and the names the
# generated files use (CPP_RESERVED above); a Python name that collides gets the
# suffix "_r" (as Vitis HLS does for `in` and `out`).
RESERVED = CPP_RESERVED | frozenset(
    """
    always assign automatic begin buf bufif0 bufif1 cell cmos config
    deassign defparam design disable edge end endcase endconfig endfunction endgenerate endmodule
    endprimitive endspecify endtable endtask event force forever fork function generate genvar
    highz0 highz1 ifnone incdir include initial inout input instance integer join large liblist
    library localparam macromodule medium module nand negedge nmos nor noshowcancelled notif0 notif1
    output parameter pmos posedge primitive pull0 pull1 pulldown pullup pulsestyle_onevent
    pulsestyle_ondetect rcmos real realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1
    scalared showcancelled small specify specparam strong0 strong1 supply0 supply1 table task time
    tran tranif0 tranif1 tri tri0 tri1 triand trior trireg use uwire vectored wait wand weak0 weak1
    wire wor xnor logic bit byte shortint longint string type var ref interface modport package
    program in out ap_clk ap_rst_n ap_start ap_done ap_idle ap_ready ap_return interrupt fallback
    """.split()  # noqa: SIM905
)


def c_name(name: str) -> str:
    """A Python identifier as a name safe in C++, Verilog and Vitis HLS: ASCII letters, digits
    and single underscores (C++ reserves `__` anywhere and `_X` at the start), not a reserved
    word or a port prefix; a name that had to change gets the suffix `_r`. Distinct Python
    names may meet here (`a__b`, `a_b`): the frontend numbers clashes (`unique_name`)."""
    safe = name if name.isascii() else "".join(c if c.isascii() and c.isalnum() else "_" for c in name)
    safe = re.sub(r"__+", "_", safe)
    reserved = safe in RESERVED or safe.lower() in RESERVED
    if safe.startswith("_") or reserved or safe.startswith(("ap_", "m_axi", "s_axi")):
        core = safe.lstrip("_") or "v"
        if core[0].isdigit():
            core = f"v{core}"
        safe = f"{core}r" if core.endswith("_") else f"{core}_r"
    return safe


def printable(text: str) -> str:
    """One line of printable ASCII (for comments and READMEs of generated files, and messages about them)."""
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in str(text))
