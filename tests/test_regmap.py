"""partition.regmap against register maps that Vitis HLS / Vivado HLS generated.

The expected values are never typed in by hand: they are parsed from the `#define` lines and
CTRL comment lines quoted verbatim in tests/regmap_fixtures.py (with their repository, path,
commit and tool version). Each fixture is rebuilt as a partition `ir.Kernel` with the same
argument order and widths, and `register_map` must reproduce every offset and data width.
"""

from __future__ import annotations

import json
import re

import pytest
from regmap_fixtures import HEADERS, SLAVE_WIDTHS, HeaderFixture, header

from partition import ir, regmap
from partition.dtypes import DTYPES


def build_kernel(fx: HeaderFixture) -> ir.Kernel:
    """The fixture's top function as partition IR (no body: a register map needs only the signature)."""
    params = []
    for pos, (name, kind, dt) in enumerate(fx.params):
        dtype = DTYPES[dt]
        if kind == "array":
            params.append(ir.Param(name, "array", dtype, (16,), "inout", "ndarray", ("arg", pos)))
        else:
            pytype = "float" if dtype.is_float else "bool" if dtype.is_bool else "int"
            params.append(ir.Param(name, "scalar", dtype, (), "in", pytype, ("arg", pos)))
    scalars = {p.name: p.dtype for p in params if p.kind == "scalar"}
    ret = DTYPES[fx.ret] if fx.ret is not None else None
    return ir.Kernel(fx.name, params, scalars, [], [], ret=ret)


def parse_defines(fx: HeaderFixture) -> tuple[dict[str, int], dict[str, int]]:
    """{REGISTER: address}, {REGISTER: bits} from the quoted `#define <prefix>_ADDR_/_BITS_` lines."""
    addr: dict[str, int] = {}
    bits: dict[str, int] = {}
    pattern = re.compile(rf"^#define\s+{re.escape(fx.prefix)}_(ADDR|BITS)_(\w+)\s+(0x[0-9a-fA-F]+|\d+)\s*$")
    for line in fx.defines.splitlines():
        m = pattern.match(line)
        assert m, f"{fx.name}: unparsed define line {line!r}"
        kind, reg, value = m.groups()
        (addr if kind == "ADDR" else bits)[reg] = int(value, 0)
    return addr, bits


def vitis_data_registers(fx: HeaderFixture) -> list[tuple[str, int, int]]:
    """(name, offset, bits) of ap_return and every <ARG>_DATA register, in address order."""
    addr, bits = parse_defines(fx)
    regs = []
    for reg, off in addr.items():
        if reg == "AP_RETURN":
            regs.append(("AP_RETURN", off, bits[reg]))
        elif reg.endswith("_DATA"):
            regs.append((reg.removesuffix("_DATA"), off, bits[reg]))
    return sorted(regs, key=lambda r: r[1])


def partition_data_registers(rm: regmap.RegisterMap) -> list[tuple[str, int, int]]:
    return [("AP_RETURN" if r.kind == "return" else r.name.upper(), r.offset, r.bits) for r in rm.registers]


def relayout_addr32(rm: regmap.RegisterMap) -> list[regmap.Register]:
    """`rm`'s entries laid out again with 32-bit pointers (what m_axi_addr64=0 would give)."""
    entries = [
        (r.name, 32 if r.kind == "pointer" else r.bits, r.kind, r.dtype)
        for r in rm.registers
        if r.kind != "return"
    ]
    ret = next(((r.bits, r.dtype) for r in rm.registers if r.kind == "return"), None)
    return regmap.layout(entries, ret)


ADDR64 = [fx for fx in HEADERS if fx.m_axi_addr64]
ADDR32 = [fx for fx in HEADERS if not fx.m_axi_addr64]
WITH_CONTROL = [fx for fx in HEADERS if fx.has_control]


def _ids(fxs: list[HeaderFixture]) -> list[str]:
    return [fx.name for fx in fxs]


# ------------------------------------------------------------------ the fixture set itself


def test_fixture_set_covers_the_brief():
    """At least 8 maps from at least 4 repositories; every kind of entry partition generates."""
    assert len(ADDR64) >= 8
    assert len({fx.repo for fx in ADDR64}) >= 4
    kinds = {(kind, dt) for fx in ADDR64 for _, kind, dt in fx.params}
    scalar_bits = {DTYPES[dt].bits for kind, dt in kinds if kind == "scalar"}
    assert {1, 8, 16, 32, 64} <= scalar_bits | {DTYPES[fx.ret].bits for fx in ADDR64 if fx.ret}
    assert any(kind == "array" for kind, _ in kinds)
    assert {DTYPES[fx.ret].bits for fx in ADDR64 if fx.ret} >= {16, 32, 64}
    for fx in HEADERS:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", fx.repo), fx.repo
        assert fx.commit == "" or re.fullmatch(r"[0-9a-f]{40}", fx.commit), fx.commit
        assert fx.tool.startswith(("Vitis HLS 20", "Vivado HLS 20")), fx.tool


@pytest.mark.parametrize("fx", HEADERS, ids=_ids(HEADERS))
def test_fixture_defines_parse_and_name_every_argument(fx):
    """Every quoted define parses, and the header's data registers are exactly the fixture's arguments."""
    names = [name for name, _, _ in vitis_data_registers(fx)]
    expected = (["AP_RETURN"] if fx.ret else []) + [p[0].upper() for p in fx.params]
    assert sorted(names) == sorted(expected)


# ------------------------------------------------------------------ control registers


@pytest.mark.parametrize("fx", WITH_CONTROL, ids=_ids(WITH_CONTROL))
def test_control_register_offsets(fx):
    addr, _ = parse_defines(fx)
    assert addr["AP_CTRL"] == regmap.CTRL == 0x00
    assert addr["GIE"] == regmap.GIE == 0x04
    assert addr["IER"] == regmap.IER == 0x08
    assert addr["ISR"] == regmap.ISR == 0x0C


# header bit name -> name of the regmap constant (looked up when the test runs)
_CTRL_CONSTANTS = {
    "ap_start": "AP_START",
    "ap_done": "AP_DONE",
    "ap_idle": "AP_IDLE",
    "ap_ready": "AP_READY",
    "auto_restart": "AUTO_RESTART",
    "interrupt": "INTERRUPT",
}


@pytest.mark.parametrize("fx", WITH_CONTROL, ids=_ids(WITH_CONTROL))
def test_ctrl_bit_positions(fx):
    """ap_start/ap_done/ap_idle/ap_ready/auto_restart (and interrupt where listed) sit where Vitis puts them."""
    found = {}
    for line in fx.ctrl_bits.splitlines():
        m = re.match(r"^//\s+bit (\d+)\s+- (\w+) \(", line)
        assert m, f"{fx.name}: unparsed CTRL line {line!r}"
        found[m.group(2)] = int(m.group(1))
    assert set(found) <= set(_CTRL_CONSTANTS), (
        f"{fx.name}: ap_ctrl_chain-only bits {set(found) - set(_CTRL_CONSTANTS)}"
    )
    assert {"ap_start", "ap_done", "ap_idle", "ap_ready", "auto_restart"} <= set(found)
    json_bits = regmap.register_map(build_kernel(fx)).to_json()["ctrl_bits"]
    for name, bit in found.items():
        assert getattr(regmap, _CTRL_CONSTANTS[name]) == 1 << bit, name
        assert json_bits[name] == bit, name


# ------------------------------------------------------------------ argument offsets and widths


@pytest.mark.parametrize("fx", ADDR64, ids=_ids(ADDR64))
def test_offsets_match_vitis(fx):
    """ap_return at 0x10 when present, then every argument in order, at the tool's offsets."""
    rm = regmap.register_map(build_kernel(fx))
    got = [(name, off) for name, off, _ in partition_data_registers(rm)]
    want = [(name, off) for name, off, _ in vitis_data_registers(fx)]
    assert got == want


@pytest.mark.parametrize("fx", ADDR64, ids=_ids(ADDR64))
def test_data_widths_match_vitis(fx):
    rm = regmap.register_map(build_kernel(fx))
    vitis = {name: bits for name, _, bits in vitis_data_registers(fx)}
    for r in rm.registers:
        name = "AP_RETURN" if r.kind == "return" else r.name.upper()
        assert r.bits == vitis[name], f"{fx.name}.{r.name}: regmap {r.bits} bits, Vitis {vitis[name]}"


_BOOL = [fx for fx in HEADERS if "bool" in {fx.ret, *(dt for _, _, dt in fx.params)}]


@pytest.mark.parametrize("fx", _BOOL, ids=_ids(_BOOL))
def test_bool_data_width_is_one_bit(fx):
    rm = regmap.register_map(build_kernel(fx))
    vitis = {name: bits for name, _, bits in vitis_data_registers(fx)}
    bools = [r for r in rm.registers if r.dtype == "bool"]
    assert bools
    for r in bools:
        name = "AP_RETURN" if r.kind == "return" else r.name.upper()
        assert vitis[name] == 1
        assert r.bits == vitis[name]


def test_bool_slot_and_words_match_vitis():
    """Whatever the declared width, a bool takes one data word and one reserved word, as in Vitis."""
    fx = header("pulse_gen")
    rm = regmap.register_map(build_kernel(fx))
    (ret,) = rm.registers
    assert (ret.kind, ret.offset, ret.words, ret.span) == ("return", 0x10, 1, 8)
    fx = header("loss_derivative_bool")
    regs = relayout_addr32(regmap.register_map(build_kernel(fx)))
    offsets = {r.name: r.offset for r in regs}
    assert (offsets["writetoddr"], offsets["ddrtobram"]) == (0x38, 0x40)


def test_stride_rule_per_width():
    """Data words + one reserved word: 8 bytes up to 32 bits, 12 bytes for 64-bit values and pointers."""
    seen = {}
    for fx in ADDR64:
        rm = regmap.register_map(build_kernel(fx))
        want = vitis_data_registers(fx)
        for r, nxt in zip(rm.registers, want[1:]):
            seen[(r.kind, r.bits)] = nxt[1] - r.offset
            assert r.offset + r.span == nxt[1]
    assert seen[("pointer", 64)] == 12
    assert seen[("scalar", 64)] == 12
    assert seen[("return", 64)] == 12
    assert seen[("scalar", 32)] == seen[("scalar", 16)] == seen[("scalar", 8)] == 8
    assert seen[("return", 32)] == seen[("return", 16)] == 8


# ------------------------------------------------------------------ 32-bit addresses: the difference


@pytest.mark.parametrize("fx", ADDR32, ids=_ids(ADDR32))
def test_addr32_maps_follow_the_same_rule_with_32_bit_pointers(fx):
    """With pointers re-laid out as 32-bit values, the same words+reserved rule gives the tool's map."""
    regs = relayout_addr32(regmap.register_map(build_kernel(fx)))
    got = [("AP_RETURN" if r.kind == "return" else r.name.upper(), r.offset) for r in regs]
    assert got == [(name, off) for name, off, _ in vitis_data_registers(fx)]
    vitis_bits = {name: bits for name, _, bits in vitis_data_registers(fx)}
    for r in regs:
        if r.kind == "pointer":
            assert vitis_bits[r.name.upper()] == 32


@pytest.mark.parametrize("fx", ADDR32, ids=_ids(ADDR32))
def test_addr32_maps_differ_from_partition_exactly_after_the_first_pointer(fx):
    """partition keeps Vitis's default (m_axi_addr64 on): every entry after a pointer moves by 4 bytes per pointer."""
    rm = regmap.register_map(build_kernel(fx))
    vitis = {name: off for name, off, _ in vitis_data_registers(fx)}
    pointers_before = 0
    for r in rm.registers:
        name = "AP_RETURN" if r.kind == "return" else r.name.upper()
        assert r.offset - vitis[name] == 4 * pointers_before, name
        if r.kind == "pointer":
            assert r.bits == 64
            pointers_before += 1
    assert pointers_before > 0


def test_same_function_with_addr64_on_matches_partition():
    """The loss_derivative pair: one project, one tool version, only m_axi_addr64 differs."""
    on, off = header("loss_derivative"), header("loss_derivative_addr32")
    assert on.params == off.params and on.ret == off.ret
    rm = regmap.register_map(build_kernel(off))
    assert [(n, o) for n, o, _ in partition_data_registers(rm)] == [
        (n, o) for n, o, _ in vitis_data_registers(on)
    ]


# ------------------------------------------------------------------ size, argument_words, to_json


@pytest.mark.parametrize(
    "sw", [s for s in SLAVE_WIDTHS if s.header == "compute_public"], ids=["compute_public"]
)
def test_size_matches_generated_slave_address_width(sw):
    m = re.search(r"C_S_AXI_ADDR_WIDTH = (\d+),", sw.quote)
    assert m and int(m.group(1)) == sw.addr_width
    rm = regmap.register_map(build_kernel(header(sw.header)))
    assert rm.size == 2**sw.addr_width
    assert (rm.size - 1).bit_length() == sw.addr_width


def test_size_of_a_small_map_matches_generated_slave():
    sw = next(s for s in SLAVE_WIDTHS if s.header == "pulse_gen")
    rm = regmap.register_map(build_kernel(header(sw.header)))
    assert rm.size == 2**sw.addr_width


@pytest.mark.parametrize("fx", HEADERS, ids=_ids(HEADERS))
def test_size_covers_every_register_and_is_a_power_of_two(fx):
    rm = regmap.register_map(build_kernel(fx))
    end = max(r.offset + r.span for r in rm.registers)
    assert rm.size & (rm.size - 1) == 0
    assert rm.size >= end
    assert rm.size < 2 * max(end, 16)


def test_size_grows_with_the_map():
    fx = header("vect_mult")  # last register ends at 0x3c
    k = build_kernel(fx)
    assert regmap.register_map(k).size == 64
    k.params.append(ir.Param("d", "array", DTYPES["int32"], (4,), "out", "ndarray", ("arg", 4)))
    assert regmap.register_map(k).size == 128  # d at 0x3c..0x48


@pytest.mark.parametrize("fx", HEADERS, ids=_ids(HEADERS))
def test_argument_words_match_the_header(fx):
    """32-bit writes the host makes: the data words of every argument (the return is only read)."""
    want = sum(max(1, -(-bits // 32)) for name, _, bits in vitis_data_registers(fx) if name != "AP_RETURN")
    if not fx.m_axi_addr64:
        want += sum(1 for _, kind, _ in fx.params if kind == "array")  # partition's pointers are 2 words
    assert regmap.register_map(build_kernel(fx)).argument_words == want


def test_argument_words_examples():
    assert regmap.register_map(build_kernel(header("compute_public"))).argument_words == 2 + 2 + 2 + 1 + 2
    assert regmap.register_map(build_kernel(header("filter"))).argument_words == 6 * 2
    assert regmap.register_map(build_kernel(header("hls_divider"))).argument_words == 2
    assert regmap.register_map(build_kernel(header("pulse_gen"))).argument_words == 0


@pytest.mark.parametrize("fx", HEADERS, ids=_ids(HEADERS))
def test_to_json_is_serialisable_and_deterministic(fx):
    a = regmap.register_map(build_kernel(fx)).to_json()
    b = regmap.register_map(build_kernel(fx)).to_json()
    text = json.dumps(a, sort_keys=True)
    assert text == json.dumps(b, sort_keys=True)
    assert json.loads(text) == a
    rm = regmap.register_map(build_kernel(fx))
    assert a["kernel"] == fx.name
    assert a["size"] == rm.size
    assert a["control"] == {"CTRL": 0x00, "GIE": 0x04, "IER": 0x08, "ISR": 0x0C}
    assert [
        (r["name"], r["offset"], r["bits"], r["kind"], r["dtype"], r["words"]) for r in a["registers"]
    ] == [(r.name, r.offset, r.bits, r.kind, r.dtype, r.words) for r in rm.registers]


def test_to_json_register_entries_for_a_real_map():
    a = regmap.register_map(build_kernel(header("compute_public"))).to_json()
    assert a["registers"][0] == {
        "name": "ap_return",
        "offset": 0x10,
        "bits": 32,
        "kind": "return",
        "dtype": "int32",
        "words": 1,
    }
    assert a["registers"][1] == {
        "name": "h",
        "offset": 0x18,
        "bits": 64,
        "kind": "pointer",
        "dtype": "uint16",
        "words": 2,
    }
    assert a["registers"][4]["name"] == "logn" and a["registers"][4]["offset"] == 0x3C
    assert a["size"] == 128


def test_by_name():
    rm = regmap.register_map(build_kernel(header("aximm_test1")))
    assert rm.by_name("pDstPxl").offset == 0x24
    assert rm.by_name("nHeight").offset == 0x40
    with pytest.raises(KeyError):
        rm.by_name("missing")
