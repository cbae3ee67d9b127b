"""AXI4-Lite register maps that Vitis HLS / Vivado HLS generated, quoted from public repositories.

Each fixture is one top function's `s_axilite` map as the tool wrote it into the driver header
(`x<top>_hw.h`): the `#define <PREFIX>_ADDR_*` / `<PREFIX>_BITS_*` lines are quoted verbatim
(only those lines), together with the CTRL bit lines of the header's comment block. The C
signature comes from the project's own source where the code index holds it; otherwise the
widths are read off the `_BITS_` defines and the note says so. Element dtypes of pointers
do not enter a register map (an m_axi pointer is a 64-bit address whatever it points to);
they are given only to build a well-formed `ir.Kernel`.

`m_axi_addr64=False` marks maps whose pointers have 32-bit address registers (old Vivado HLS
default, or Vitis HLS with `config_interface -m_axi_addr64=0`): partition never generates
those, and the tests use them to show exactly where the difference lies.

`commit` is "" where the index stores several versions of the path and did not say which one
the quoted text belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HeaderFixture:
    name: str  # top function
    repo: str  # owner/name on GitHub
    path: str
    commit: str
    tool: str
    signature: str
    signature_from: str
    prefix: str  # the header's define prefix, e.g. XFOO_CONTROL
    params: tuple[tuple[str, str, str], ...]  # (port name as in the header, "array"|"scalar", dtype)
    ret: str | None
    defines: str  # verbatim #define lines
    ctrl_bits: str = ""  # verbatim CTRL bit lines of the comment block ("" without ap_ctrl on the bus)
    m_axi_addr64: bool = True
    notes: str = ""

    @property
    def has_control(self) -> bool:
        return bool(self.ctrl_bits)


@dataclass(frozen=True)
class SlaveWidthFixture:
    """The address width of a generated `<top>_control_s_axi.v`, for RegisterMap.size."""

    header: str  # name of the HeaderFixture whose map this slave decodes
    repo: str
    path: str
    commit: str
    tool: str
    quote: str  # verbatim lines
    addr_width: int


# Comment lines of the CTRL register, as each tool generation writes them.
_CTRL_VITIS_2022 = """\
//        bit 0  - ap_start (Read/Write/COH)
//        bit 1  - ap_done (Read/COR)
//        bit 2  - ap_idle (Read)
//        bit 3  - ap_ready (Read/COR)
//        bit 7  - auto_restart (Read/Write)
//        bit 9  - interrupt (Read)"""

_CTRL_VITIS_2021 = """\
//        bit 0  - ap_start (Read/Write/COH)
//        bit 1  - ap_done (Read/COR)
//        bit 2  - ap_idle (Read)
//        bit 3  - ap_ready (Read/COR)
//        bit 7  - auto_restart (Read/Write)"""

_CTRL_VITIS_2020 = """\
//        bit 0  - ap_start (Read/Write/COH)
//        bit 1  - ap_done (Read/COR)
//        bit 2  - ap_idle (Read)
//        bit 3  - ap_ready (Read)
//        bit 7  - auto_restart (Read/Write)"""

_CTRL_VIVADO_2019 = _CTRL_VITIS_2020  # Vivado HLS 2019.x writes the same five lines


HEADERS: tuple[HeaderFixture, ...] = (
    HeaderFixture(
        name="compute_public",
        repo="vic9112/PQC_Falcon",
        path="ip_compute_pk/ip/drivers/compute_public_v1_0/src/xcompute_public_hw.h",
        commit="2e73b30fec42d722b51340ed90fd0d49295665e9",
        tool="Vitis HLS 2022.1",
        signature="int compute_public(uint16_t *h, const int8_t *f, const int8_t *g, unsigned logn, uint8_t *tmp)",
        signature_from="project source (m_axi offset=slave for h/f/g/tmp, s_axilite for logn and return)",
        prefix="XCOMPUTE_PUBLIC_CONTROL",
        params=(
            ("h", "array", "uint16"),
            ("f", "array", "int8"),
            ("g", "array", "int8"),
            ("logn", "scalar", "uint32"),
            ("tmp", "array", "uint8"),
        ),
        ret="int32",
        defines="""\
#define XCOMPUTE_PUBLIC_CONTROL_ADDR_AP_CTRL   0x00
#define XCOMPUTE_PUBLIC_CONTROL_ADDR_GIE       0x04
#define XCOMPUTE_PUBLIC_CONTROL_ADDR_IER       0x08
#define XCOMPUTE_PUBLIC_CONTROL_ADDR_ISR       0x0c
#define XCOMPUTE_PUBLIC_CONTROL_ADDR_AP_RETURN 0x10
#define XCOMPUTE_PUBLIC_CONTROL_BITS_AP_RETURN 32
#define XCOMPUTE_PUBLIC_CONTROL_ADDR_H_DATA    0x18
#define XCOMPUTE_PUBLIC_CONTROL_BITS_H_DATA    64
#define XCOMPUTE_PUBLIC_CONTROL_ADDR_F_DATA    0x24
#define XCOMPUTE_PUBLIC_CONTROL_BITS_F_DATA    64
#define XCOMPUTE_PUBLIC_CONTROL_ADDR_G_DATA    0x30
#define XCOMPUTE_PUBLIC_CONTROL_BITS_G_DATA    64
#define XCOMPUTE_PUBLIC_CONTROL_ADDR_LOGN_DATA 0x3c
#define XCOMPUTE_PUBLIC_CONTROL_BITS_LOGN_DATA 32
#define XCOMPUTE_PUBLIC_CONTROL_ADDR_TMP_DATA  0x44
#define XCOMPUTE_PUBLIC_CONTROL_BITS_TMP_DATA  64""",
        ctrl_bits=_CTRL_VITIS_2022,
        notes="scalar return at 0x10, then pointers and a 32-bit scalar interleaved",
    ),
    HeaderFixture(
        name="aximm_test0",
        repo="zzlee/qvio-mods",
        path="modules/vitis/aximm_test0_v1_0/src/xaximm_test0_hw.h",
        commit="ccb1d16f654c69db18ef442a50374147338a52f4",
        tool="Vitis HLS 2024.2",
        signature="void aximm_test0(dst_pixel_t* pDstPxl, ap_uint<32> nSize, ap_uint<32> nTimes)",
        signature_from="project source (dst_pixel_t = ap_uint<128>; m_axi offset=slave, s_axilite return)",
        prefix="XAXIMM_TEST0_CONTROL",
        params=(
            ("pDstPxl", "array", "uint8"),
            ("nSize", "scalar", "uint32"),
            ("nTimes", "scalar", "uint32"),
        ),
        ret=None,
        defines="""\
#define XAXIMM_TEST0_CONTROL_ADDR_AP_CTRL      0x00
#define XAXIMM_TEST0_CONTROL_ADDR_GIE          0x04
#define XAXIMM_TEST0_CONTROL_ADDR_IER          0x08
#define XAXIMM_TEST0_CONTROL_ADDR_ISR          0x0c
#define XAXIMM_TEST0_CONTROL_ADDR_PDSTPXL_DATA 0x10
#define XAXIMM_TEST0_CONTROL_BITS_PDSTPXL_DATA 64
#define XAXIMM_TEST0_CONTROL_ADDR_NSIZE_DATA   0x1c
#define XAXIMM_TEST0_CONTROL_BITS_NSIZE_DATA   32
#define XAXIMM_TEST0_CONTROL_ADDR_NTIMES_DATA  0x24
#define XAXIMM_TEST0_CONTROL_BITS_NTIMES_DATA  32""",
        ctrl_bits=_CTRL_VITIS_2022,
        notes="pointer first, then 32-bit scalars (12-byte pointer stride, 8-byte scalar stride)",
    ),
    HeaderFixture(
        name="aximm_test1",
        repo="zzlee/qvio-mods",
        path="modules/vitis/aximm_test1_v1_0/src/xaximm_test1_hw.h",
        commit="bea02b563f6b1ee081078be51db2e0fff1fd15c3",
        tool="Vitis HLS 2024.2",
        signature=(
            "void aximm_test1(hls::burst_maxi<desc_item_t> pDescItem, ap_uint<32> nDescItemCount, "
            "hls::burst_maxi<dst_pixel_t> pDstPxl, ap_uint<32> nDstPxlStride, ap_uint<32> nWidth, "
            "ap_uint<32> nHeight)"
        ),
        signature_from="project source (both pointers m_axi offset=slave; burst_maxi is still one m_axi address)",
        prefix="XAXIMM_TEST1_CONTROL",
        params=(
            ("pDescItem", "array", "uint32"),
            ("nDescItemCount", "scalar", "uint32"),
            ("pDstPxl", "array", "uint8"),
            ("nDstPxlStride", "scalar", "uint32"),
            ("nWidth", "scalar", "uint32"),
            ("nHeight", "scalar", "uint32"),
        ),
        ret=None,
        defines="""\
#define XAXIMM_TEST1_CONTROL_ADDR_AP_CTRL             0x00
#define XAXIMM_TEST1_CONTROL_ADDR_GIE                 0x04
#define XAXIMM_TEST1_CONTROL_ADDR_IER                 0x08
#define XAXIMM_TEST1_CONTROL_ADDR_ISR                 0x0c
#define XAXIMM_TEST1_CONTROL_ADDR_PDESCITEM_DATA      0x10
#define XAXIMM_TEST1_CONTROL_BITS_PDESCITEM_DATA      64
#define XAXIMM_TEST1_CONTROL_ADDR_NDESCITEMCOUNT_DATA 0x1c
#define XAXIMM_TEST1_CONTROL_BITS_NDESCITEMCOUNT_DATA 32
#define XAXIMM_TEST1_CONTROL_ADDR_PDSTPXL_DATA        0x24
#define XAXIMM_TEST1_CONTROL_BITS_PDSTPXL_DATA        64
#define XAXIMM_TEST1_CONTROL_ADDR_NDSTPXLSTRIDE_DATA  0x30
#define XAXIMM_TEST1_CONTROL_BITS_NDSTPXLSTRIDE_DATA  32
#define XAXIMM_TEST1_CONTROL_ADDR_NWIDTH_DATA         0x38
#define XAXIMM_TEST1_CONTROL_BITS_NWIDTH_DATA         32
#define XAXIMM_TEST1_CONTROL_ADDR_NHEIGHT_DATA        0x40
#define XAXIMM_TEST1_CONTROL_BITS_NHEIGHT_DATA        32""",
        ctrl_bits=_CTRL_VITIS_2022,
        notes="pointer, scalar, pointer, scalars: alternating strides",
    ),
    HeaderFixture(
        name="vect_mult",
        repo="CTSRD-CHERI/cheri-hls",
        path="examples/vect_mult/vect_mult_prj/solution1/impl/misc/drivers/vect_mult_v1_0/src/xvect_mult_hw.h",
        commit="d6eb3bc5a4da73aedc5da0bb3dc0cafc60f9cf07",
        tool="Vitis HLS 2023.1",
        signature="void vect_mult(int size, int a[N], int b[N], int c[N])",
        signature_from="project source examples/vect_mult/vect_mult.cpp (m_axi a/b/c, s_axilite size and return)",
        prefix="XVECT_MULT_CONTROL",
        params=(
            ("size", "scalar", "int32"),
            ("a", "array", "int32"),
            ("b", "array", "int32"),
            ("c", "array", "int32"),
        ),
        ret=None,
        defines="""\
#define XVECT_MULT_CONTROL_ADDR_AP_CTRL   0x00
#define XVECT_MULT_CONTROL_ADDR_GIE       0x04
#define XVECT_MULT_CONTROL_ADDR_IER       0x08
#define XVECT_MULT_CONTROL_ADDR_ISR       0x0c
#define XVECT_MULT_CONTROL_ADDR_SIZE_DATA 0x10
#define XVECT_MULT_CONTROL_BITS_SIZE_DATA 32
#define XVECT_MULT_CONTROL_ADDR_A_DATA    0x18
#define XVECT_MULT_CONTROL_BITS_A_DATA    64
#define XVECT_MULT_CONTROL_ADDR_B_DATA    0x24
#define XVECT_MULT_CONTROL_BITS_B_DATA    64
#define XVECT_MULT_CONTROL_ADDR_C_DATA    0x30
#define XVECT_MULT_CONTROL_BITS_C_DATA    64""",
        ctrl_bits=_CTRL_VITIS_2022,
        notes="scalar before the pointers",
    ),
    HeaderFixture(
        name="hls_divider",
        repo="yihuajack/ECE4810J_FA2021",
        path="Lab2/hls_divider/solution1/impl/ip/drivers/hls_divider_v1_0/src/xhls_divider_hw.h",
        commit="dfcd7e835f29e30657e974a6dfd8d1d2093adaea",
        tool="Vitis HLS 2021.1.1",
        signature="unsigned int hls_divider(unsigned short int a, unsigned short int b)",
        signature_from="project source Lab2/hls_divider.cpp (s_axilite a, b and return, bundle CRTLS)",
        prefix="XHLS_DIVIDER_CRTLS",
        params=(("a", "scalar", "uint16"), ("b", "scalar", "uint16")),
        ret="uint32",
        defines="""\
#define XHLS_DIVIDER_CRTLS_ADDR_AP_CTRL   0x00
#define XHLS_DIVIDER_CRTLS_ADDR_GIE       0x04
#define XHLS_DIVIDER_CRTLS_ADDR_IER       0x08
#define XHLS_DIVIDER_CRTLS_ADDR_ISR       0x0c
#define XHLS_DIVIDER_CRTLS_ADDR_AP_RETURN 0x10
#define XHLS_DIVIDER_CRTLS_BITS_AP_RETURN 32
#define XHLS_DIVIDER_CRTLS_ADDR_A_DATA    0x18
#define XHLS_DIVIDER_CRTLS_BITS_A_DATA    16
#define XHLS_DIVIDER_CRTLS_ADDR_B_DATA    0x20
#define XHLS_DIVIDER_CRTLS_BITS_B_DATA    16""",
        ctrl_bits=_CTRL_VITIS_2021,
        notes="16-bit scalars after a 32-bit return; the bundle name (CRTLS) does not change offsets",
    ),
    HeaderFixture(
        name="loss_derivative",
        repo="Anubhav2017/xilinx_projects",
        path="ip_repo/lossfun/solution1/.autopilot/db/driver/src/xloss_derivative_hw.h",
        commit="a2897664c36bbc782d614ad0e48ed86d96d0595f",
        tool="Vitis HLS 2020.2",
        signature="fixed loss_derivative(fixed* x, fixed* dx, int y, int x_size, int N)  // fixed = ap_fixed<16,9>",
        signature_from="project source ip_repo/lossfun/main.cpp at the same commit (m_axi offset=slave x/dx)",
        prefix="XLOSS_DERIVATIVE_CTRL",
        params=(
            ("x", "array", "int16"),
            ("dx", "array", "int16"),
            ("y", "scalar", "int32"),
            ("x_size", "scalar", "int32"),
            ("N", "scalar", "int32"),
        ),
        ret="int16",
        defines="""\
#define XLOSS_DERIVATIVE_CTRL_ADDR_AP_CTRL     0x00
#define XLOSS_DERIVATIVE_CTRL_ADDR_GIE         0x04
#define XLOSS_DERIVATIVE_CTRL_ADDR_IER         0x08
#define XLOSS_DERIVATIVE_CTRL_ADDR_ISR         0x0c
#define XLOSS_DERIVATIVE_CTRL_ADDR_AP_RETURN   0x10
#define XLOSS_DERIVATIVE_CTRL_BITS_AP_RETURN   16
#define XLOSS_DERIVATIVE_CTRL_ADDR_X_DATA      0x18
#define XLOSS_DERIVATIVE_CTRL_BITS_X_DATA      64
#define XLOSS_DERIVATIVE_CTRL_ADDR_DX_DATA     0x24
#define XLOSS_DERIVATIVE_CTRL_BITS_DX_DATA     64
#define XLOSS_DERIVATIVE_CTRL_ADDR_Y_DATA      0x30
#define XLOSS_DERIVATIVE_CTRL_BITS_Y_DATA      32
#define XLOSS_DERIVATIVE_CTRL_ADDR_X_SIZE_DATA 0x38
#define XLOSS_DERIVATIVE_CTRL_BITS_X_SIZE_DATA 32
#define XLOSS_DERIVATIVE_CTRL_ADDR_N_DATA      0x40
#define XLOSS_DERIVATIVE_CTRL_BITS_N_DATA      32""",
        ctrl_bits=_CTRL_VITIS_2020,
        notes="16-bit return (ap_fixed<16,9>, modelled as int16: same width) before two pointers",
    ),
    HeaderFixture(
        name="VecAdd_1",
        repo="UCLA-VAST/TAPA-CS",
        path="apps/vadd/VecAdd_1/.autopilot/db/driver/src/xvecadd_1_hw.h",
        commit="22bb2b2b0a5996271c1afe8f6cfdfbd7bb5ca494",
        tool="Vitis HLS 2022.1",
        signature="VecAdd_1(a, b, c, n)  // widths from the _BITS_ defines: three 64-bit m_axi addresses, 64-bit n",
        signature_from="inferred from the header (TAPA vadd: float buffers, 64-bit element count)",
        prefix="XVECADD_1_CONTROL",
        params=(
            ("a", "array", "float32"),
            ("b", "array", "float32"),
            ("c", "array", "float32"),
            ("n", "scalar", "uint64"),
        ),
        ret=None,
        defines="""\
#define XVECADD_1_CONTROL_ADDR_AP_CTRL 0x00
#define XVECADD_1_CONTROL_ADDR_GIE     0x04
#define XVECADD_1_CONTROL_ADDR_IER     0x08
#define XVECADD_1_CONTROL_ADDR_ISR     0x0c
#define XVECADD_1_CONTROL_ADDR_A_DATA  0x10
#define XVECADD_1_CONTROL_BITS_A_DATA  64
#define XVECADD_1_CONTROL_ADDR_B_DATA  0x1c
#define XVECADD_1_CONTROL_BITS_B_DATA  64
#define XVECADD_1_CONTROL_ADDR_C_DATA  0x28
#define XVECADD_1_CONTROL_BITS_C_DATA  64
#define XVECADD_1_CONTROL_ADDR_N_DATA  0x34
#define XVECADD_1_CONTROL_BITS_N_DATA  64""",
        ctrl_bits="""\
//        bit 0  - ap_start (Read/Write/SC)
//        bit 1  - ap_done (Read/COR)
//        bit 2  - ap_idle (Read)
//        bit 3  - ap_ready (Read/COR)
//        bit 7  - auto_restart (Read/Write)
//        bit 9  - interrupt (Read)""",
        notes="64-bit scalar after pointers (12-byte stride); this kernel's IER/ISR only have the ap_done channel",
    ),
    HeaderFixture(
        name="saxpy",
        repo="wbjeon2k/EE32601",
        path="Lab4/submit/lab4_saxpy/solution1/impl/misc/drivers/saxpy_v1_0/src/xsaxpy_hw.h",
        commit="415aac6e0e56548e2e5c38e31a9b35e599cbe229",
        tool="Vitis HLS 2020.1.1",
        signature="void saxpy(float* x, float* y, float a)",
        signature_from="project source (preprocessed saxpy.cpp in the same commit; s_axilite x, y, a and return)",
        prefix="XSAXPY_CONTROL",
        params=(("x", "array", "float32"), ("y", "array", "float32"), ("a", "scalar", "float32")),
        ret=None,
        defines="""\
#define XSAXPY_CONTROL_ADDR_AP_CTRL 0x00
#define XSAXPY_CONTROL_ADDR_GIE     0x04
#define XSAXPY_CONTROL_ADDR_IER     0x08
#define XSAXPY_CONTROL_ADDR_ISR     0x0c
#define XSAXPY_CONTROL_ADDR_X_DATA  0x10
#define XSAXPY_CONTROL_BITS_X_DATA  64
#define XSAXPY_CONTROL_ADDR_Y_DATA  0x1c
#define XSAXPY_CONTROL_BITS_Y_DATA  64
#define XSAXPY_CONTROL_ADDR_A_DATA  0x28
#define XSAXPY_CONTROL_BITS_A_DATA  32""",
        ctrl_bits=_CTRL_VITIS_2020,
        notes="float scalar: one 32-bit data word",
    ),
    HeaderFixture(
        name="filter",
        repo="delilah-csp/delilah",
        path="files/include/hw/xfilter/xfilter_hw.h",
        commit="5b79589a577f249b2a89b6e11e0b4256e04402ad",
        tool="Vivado HLS 2019.1.3 (64-bit m_axi addresses)",
        signature=(
            "uint64_t filter(uint64_t *in_value, uint64_t *out, uint64_t num, uint64_t op, "
            "uint64_t comp1, uint64_t comp2)"
        ),
        signature_from=(
            "inferred: widths from the _BITS_ defines; files/src/hw/filter.c writes physical buffer "
            "addresses to in_value/out_r and uint64 values to the rest, reads a u64 return"
        ),
        prefix="XFILTER_CONTROL",
        params=(
            ("in_value", "array", "uint64"),
            ("out_r", "array", "uint64"),
            ("num", "scalar", "uint64"),
            ("op", "scalar", "uint64"),
            ("comp1", "scalar", "uint64"),
            ("comp2", "scalar", "uint64"),
        ),
        ret="uint64",
        defines="""\
#define XFILTER_CONTROL_ADDR_AP_CTRL 0x00
#define XFILTER_CONTROL_ADDR_GIE 0x04
#define XFILTER_CONTROL_ADDR_IER 0x08
#define XFILTER_CONTROL_ADDR_ISR 0x0c
#define XFILTER_CONTROL_ADDR_AP_RETURN 0x10
#define XFILTER_CONTROL_BITS_AP_RETURN 64
#define XFILTER_CONTROL_ADDR_IN_VALUE_DATA 0x1c
#define XFILTER_CONTROL_BITS_IN_VALUE_DATA 64
#define XFILTER_CONTROL_ADDR_OUT_R_DATA 0x28
#define XFILTER_CONTROL_BITS_OUT_R_DATA 64
#define XFILTER_CONTROL_ADDR_NUM_DATA 0x34
#define XFILTER_CONTROL_BITS_NUM_DATA 64
#define XFILTER_CONTROL_ADDR_OP_DATA 0x40
#define XFILTER_CONTROL_BITS_OP_DATA 64
#define XFILTER_CONTROL_ADDR_COMP1_DATA 0x4c
#define XFILTER_CONTROL_BITS_COMP1_DATA 64
#define XFILTER_CONTROL_ADDR_COMP2_DATA 0x58
#define XFILTER_CONTROL_BITS_COMP2_DATA 64""",
        ctrl_bits=_CTRL_VIVADO_2019,
        notes="64-bit return (0x10/0x14, next at 0x1c) and four 64-bit scalars; out -> out_r is the tool's rename",
    ),
    HeaderFixture(
        name="filter_v1",
        repo="delilah-csp/delilah",
        path="files/include/hw/xfilter/xfilter_hw.h",
        commit="",
        tool="Vivado HLS 2019.1.3 (64-bit m_axi addresses)",
        signature="int filter(T *in, T *out, unsigned num, uint8_t op, int comp1, int comp2)  // T unknown",
        signature_from="inferred from the _BITS_ defines of an earlier version of the same header",
        prefix="XFILTER_CONTROL",
        params=(
            ("in_r", "array", "int32"),
            ("out_r", "array", "int32"),
            ("num", "scalar", "uint32"),
            ("op", "scalar", "uint8"),
            ("comp1", "scalar", "int32"),
            ("comp2", "scalar", "int32"),
        ),
        ret="int32",
        defines="""\
#define XFILTER_CONTROL_ADDR_AP_CTRL 0x00
#define XFILTER_CONTROL_ADDR_GIE 0x04
#define XFILTER_CONTROL_ADDR_IER 0x08
#define XFILTER_CONTROL_ADDR_ISR 0x0c
#define XFILTER_CONTROL_ADDR_AP_RETURN 0x10
#define XFILTER_CONTROL_BITS_AP_RETURN 32
#define XFILTER_CONTROL_ADDR_IN_R_DATA 0x18
#define XFILTER_CONTROL_BITS_IN_R_DATA 64
#define XFILTER_CONTROL_ADDR_OUT_R_DATA 0x24
#define XFILTER_CONTROL_BITS_OUT_R_DATA 64
#define XFILTER_CONTROL_ADDR_NUM_DATA 0x30
#define XFILTER_CONTROL_BITS_NUM_DATA 32
#define XFILTER_CONTROL_ADDR_OP_DATA 0x38
#define XFILTER_CONTROL_BITS_OP_DATA 8
#define XFILTER_CONTROL_ADDR_COMP1_DATA 0x40
#define XFILTER_CONTROL_BITS_COMP1_DATA 32
#define XFILTER_CONTROL_ADDR_COMP2_DATA 0x48
#define XFILTER_CONTROL_BITS_COMP2_DATA 32""",
        ctrl_bits=_CTRL_VIVADO_2019,
        notes="8-bit scalar between 32-bit scalars; signedness is not recoverable from the header",
    ),
    HeaderFixture(
        name="pulse_gen",
        repo="dwf23/GIM-2024-2025",
        path="spi_directio/hls_daw/pulse_gen/pulse_gen/hls/.autopilot/db/driver/src/xpulse_gen_hw.h",
        commit="eff86c84863e0fb96c2ac9e8c90ae7f885ca2092",
        tool="Vitis HLS 2024.1",
        signature="bool pulse_gen()  // s_axilite port=return, ap_ctrl_none",
        signature_from="project source (one of its stored versions)",
        prefix="XPULSE_GEN_CONTROL",
        params=(),
        ret="bool",
        defines="""\
#define XPULSE_GEN_CONTROL_ADDR_AP_RETURN 0x10
#define XPULSE_GEN_CONTROL_BITS_AP_RETURN 1""",
        notes="bool return; ap_ctrl_none, so 0x00-0x0c are reserved (no CTRL/GIE/IER/ISR to compare)",
    ),
    # --------------------------------------------------- 32-bit m_axi addresses (not generated)
    HeaderFixture(
        name="loss_derivative_addr32",
        repo="Anubhav2017/xilinx_projects",
        path="ip_repo/lossfun/solution1/impl/ip/drivers/loss_derivative_v1_0/src/xloss_derivative_hw.h",
        commit="605c734fbd7c50a4d0ecfc05445e80ce06b6d13f",
        tool="Vitis HLS 2020.2 with config_interface m_axi_addr64=0",
        signature="fixed loss_derivative(fixed* x, fixed* dx, int y, int x_size, int N)  // fixed = ap_fixed<16,9>",
        signature_from=(
            "same top as `loss_derivative`; ip_repo/lossfun/solution1/solution1.aps "
            '(commit 0b720c25) sets <config_interface m_axi_addr64="0"/>'
        ),
        prefix="XLOSS_DERIVATIVE_CTRL",
        params=(
            ("x", "array", "int16"),
            ("dx", "array", "int16"),
            ("y", "scalar", "int32"),
            ("x_size", "scalar", "int32"),
            ("N", "scalar", "int32"),
        ),
        ret="int16",
        defines="""\
#define XLOSS_DERIVATIVE_CTRL_ADDR_AP_CTRL     0x00
#define XLOSS_DERIVATIVE_CTRL_ADDR_GIE         0x04
#define XLOSS_DERIVATIVE_CTRL_ADDR_IER         0x08
#define XLOSS_DERIVATIVE_CTRL_ADDR_ISR         0x0c
#define XLOSS_DERIVATIVE_CTRL_ADDR_AP_RETURN   0x10
#define XLOSS_DERIVATIVE_CTRL_BITS_AP_RETURN   16
#define XLOSS_DERIVATIVE_CTRL_ADDR_X_DATA      0x18
#define XLOSS_DERIVATIVE_CTRL_BITS_X_DATA      32
#define XLOSS_DERIVATIVE_CTRL_ADDR_DX_DATA     0x20
#define XLOSS_DERIVATIVE_CTRL_BITS_DX_DATA     32
#define XLOSS_DERIVATIVE_CTRL_ADDR_Y_DATA      0x28
#define XLOSS_DERIVATIVE_CTRL_BITS_Y_DATA      32
#define XLOSS_DERIVATIVE_CTRL_ADDR_X_SIZE_DATA 0x30
#define XLOSS_DERIVATIVE_CTRL_BITS_X_SIZE_DATA 32
#define XLOSS_DERIVATIVE_CTRL_ADDR_N_DATA      0x38
#define XLOSS_DERIVATIVE_CTRL_BITS_N_DATA      32""",
        ctrl_bits=_CTRL_VITIS_2020,
        m_axi_addr64=False,
        notes="the same function as `loss_derivative` with 64-bit addressing turned off: 8-byte pointer stride",
    ),
    HeaderFixture(
        name="loss_derivative_bool",
        repo="Anubhav2017/xilinx_projects",
        path="ip_repo/lossfun/solution1/impl/ip/drivers/loss_derivative_v1_0/src/xloss_derivative_hw.h",
        commit="",
        tool="Vitis HLS 2020.2 with config_interface m_axi_addr64=0",
        signature=(
            "fixed_t loss_derivative(fixed_t x[MAX_SIZE], fixed_t dx[MAX_SIZE], fixed_t* x_ddr, "
            "fixed_t* dx_ddr, int y, int dim, bool writetoddr, bool ddrtobram)  // fixed_t = ap_fixed<16,3>"
        ),
        signature_from="project source ip_repo/lossfun/main.cpp at commit 7d482641 (x, dx are BRAM ports, not on the bus)",
        prefix="XLOSS_DERIVATIVE_CONTROL",
        params=(
            ("x_ddr", "array", "int16"),
            ("dx_ddr", "array", "int16"),
            ("y", "scalar", "int32"),
            ("dim", "scalar", "int32"),
            ("writetoddr", "scalar", "bool"),
            ("ddrtobram", "scalar", "bool"),
        ),
        ret="int16",
        defines="""\
#define XLOSS_DERIVATIVE_CONTROL_ADDR_AP_CTRL         0x00
#define XLOSS_DERIVATIVE_CONTROL_ADDR_GIE             0x04
#define XLOSS_DERIVATIVE_CONTROL_ADDR_IER             0x08
#define XLOSS_DERIVATIVE_CONTROL_ADDR_ISR             0x0c
#define XLOSS_DERIVATIVE_CONTROL_ADDR_AP_RETURN       0x10
#define XLOSS_DERIVATIVE_CONTROL_BITS_AP_RETURN       16
#define XLOSS_DERIVATIVE_CONTROL_ADDR_X_DDR_DATA      0x18
#define XLOSS_DERIVATIVE_CONTROL_BITS_X_DDR_DATA      32
#define XLOSS_DERIVATIVE_CONTROL_ADDR_DX_DDR_DATA     0x20
#define XLOSS_DERIVATIVE_CONTROL_BITS_DX_DDR_DATA     32
#define XLOSS_DERIVATIVE_CONTROL_ADDR_Y_DATA          0x28
#define XLOSS_DERIVATIVE_CONTROL_BITS_Y_DATA          32
#define XLOSS_DERIVATIVE_CONTROL_ADDR_DIM_DATA        0x30
#define XLOSS_DERIVATIVE_CONTROL_BITS_DIM_DATA        32
#define XLOSS_DERIVATIVE_CONTROL_ADDR_WRITETODDR_DATA 0x38
#define XLOSS_DERIVATIVE_CONTROL_BITS_WRITETODDR_DATA 1
#define XLOSS_DERIVATIVE_CONTROL_ADDR_DDRTOBRAM_DATA  0x40
#define XLOSS_DERIVATIVE_CONTROL_BITS_DDRTOBRAM_DATA  1""",
        ctrl_bits=_CTRL_VITIS_2020,
        m_axi_addr64=False,
        notes="bool scalars: one 8-byte slot each, 1 data bit",
    ),
    HeaderFixture(
        name="kernel0",
        repo="whbldhwj/ppcg",
        path="hls_tests/gemm/hls_prj/prj/solution1/.autopilot/db/driver/src/xkernel0_hw.h",
        commit="7a1c6cc44cf282ae9db37a681478564ee833e816",
        tool="Vivado HLS 2019.2 (default 32-bit m_axi addresses)",
        signature="void kernel0(A_t16 *A, B_t16 *B, C_t4 *C)  // m_axi offset=slave; ap_uint ports get the _V suffix",
        signature_from="the project's top generator (prints this signature with m_axi offset=slave pragmas)",
        prefix="XKERNEL0_CONTROL",
        params=(("A_V", "array", "float32"), ("B_V", "array", "float32"), ("C_V", "array", "float32")),
        ret=None,
        defines="""\
#define XKERNEL0_CONTROL_ADDR_AP_CTRL  0x00
#define XKERNEL0_CONTROL_ADDR_GIE      0x04
#define XKERNEL0_CONTROL_ADDR_IER      0x08
#define XKERNEL0_CONTROL_ADDR_ISR      0x0c
#define XKERNEL0_CONTROL_ADDR_A_V_DATA 0x10
#define XKERNEL0_CONTROL_BITS_A_V_DATA 32
#define XKERNEL0_CONTROL_ADDR_B_V_DATA 0x18
#define XKERNEL0_CONTROL_BITS_B_V_DATA 32
#define XKERNEL0_CONTROL_ADDR_C_V_DATA 0x20
#define XKERNEL0_CONTROL_BITS_C_V_DATA 32""",
        ctrl_bits=_CTRL_VIVADO_2019,
        m_axi_addr64=False,
        notes="old Vivado HLS default: pointers are one 32-bit word plus reserved (8-byte stride)",
    ),
)


SLAVE_WIDTHS: tuple[SlaveWidthFixture, ...] = (
    SlaveWidthFixture(
        header="compute_public",
        repo="vic9112/PQC_Falcon",
        path="Compute_pk_IP/ip/hdl/verilog/compute_public_control_s_axi.v",
        commit="4ae07d095e595f90d32df5434703dcf9ba838294",
        tool="Vitis HLS 2022.1",
        quote="""\
    C_S_AXI_ADDR_WIDTH = 7,
// 0x44 : Data signal of tmp
// 0x48 : Data signal of tmp
// 0x4c : reserved""",
        addr_width=7,
    ),
    SlaveWidthFixture(
        header="pulse_gen",
        repo="dwf23/GIM-2024-2025",
        path="spi_directio/hls_daw/pulse_gen/pulse_gen/hls/syn/verilog/pulse_gen_control_s_axi.v",
        commit="eff86c84863e0fb96c2ac9e8c90ae7f885ca2092",
        tool="Vitis HLS 2024.1",
        quote="""\
    C_S_AXI_ADDR_WIDTH = 5,
// 0x10 : Data signal of ap_return
//        bit 0  - ap_return[0] (Read)""",
        addr_width=5,
    ),
)


def header(name: str) -> HeaderFixture:
    for h in HEADERS:
        if h.name == name:
            return h
    raise KeyError(name)
