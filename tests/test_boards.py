"""Board files: the shipped boards load, carry sources, and malformed copies are rejected
with a message naming the file and the exact key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from partition import boards
from partition.boards import SCHEMA, board_names, list_boards, load_board
from partition.errors import PartitionError

SHIPPED = ["kv260", "pynq-z1", "pynq-z2", "ultra96v2", "zcu104"]


def test_shipped_boards_load_sorted():
    assert board_names() == SHIPPED
    loaded = list_boards()
    assert [b.name for b in loaded] == SHIPPED
    for b in loaded:
        assert b.path == f"{b.name}.toml"
        assert b.family in ("xc7", "xczu")
        assert (b.ps == "ps7") == (b.family == "xc7")


def test_pynq_z2_figures():
    b = load_board("pynq-z2")
    assert b.part == "xc7z020clg400-1"
    assert b.resources == {"lut": 53200, "ff": 106400, "dsp": 220, "bram18": 280, "uram": 0}
    assert b.cpu["cores"] == 2 and b.cpu["mhz"] == 650 and b.cpu["core"] == "Cortex-A9"
    assert b.clocks == {"ps_ref_mhz": 50, "pl_mhz": 100}
    assert b.pl_mhz == 100.0
    assert b.interface["kernel_axi_bits"] == 32
    assert b.memory["cma_mb"] == 128


def test_every_numeric_value_has_a_source():
    for b in list_boards():
        for section, spec in SCHEMA.items():
            if section != "board":
                assert set(getattr(b, section)) == set(spec), f"{b.name}: [{section}]"
            for key in boards.sources_keys_for(section):
                assert b.source(section, key).strip(), f"{b.name}: {section}.{key}"


def _copy(tmp_path: Path, text_edit=None, name: str = "x.toml") -> Path:
    src = Path(boards.board_dir()) / "pynq-z2.toml"
    dst = tmp_path / name
    text = src.read_text()
    if text_edit is not None:
        text = text_edit(text)
    dst.write_text(text)
    return dst


def test_unknown_board_lists_known_names():
    with pytest.raises(PartitionError) as exc:
        load_board("pynq-z9")
    msg = exc.value.message
    assert "pynq-z9" in msg
    for n in SHIPPED:
        assert n in msg


def test_missing_file_path():
    with pytest.raises(PartitionError, match="board file not found"):
        load_board("/nonexistent/board.toml")


def test_malformed_toml_names_file_and_line(tmp_path):
    p = _copy(tmp_path, lambda t: t.replace("lut = 53200", "lut = = 53200"))
    line = next(i for i, ln in enumerate(p.read_text().splitlines(), 1) if "lut = = 53200" in ln)
    with pytest.raises(PartitionError) as exc:
        load_board(str(p))
    assert exc.value.message.startswith(f"{p}:{line}: malformed TOML")


def test_negative_value_names_key(tmp_path):
    p = _copy(tmp_path, lambda t: t.replace("lut = 53200", "lut = -5"))
    with pytest.raises(PartitionError) as exc:
        load_board(str(p))
    assert exc.value.message == f"{p}: [resources] lut must be a positive integer, got -5"


def test_unknown_key(tmp_path):
    p = _copy(tmp_path, lambda t: t.replace("mhz = 650\n", "mhz = 650\nspeed = 3\n"))
    with pytest.raises(PartitionError) as exc:
        load_board(str(p))
    assert f"{p}: unknown key [cpu] speed" in exc.value.message


def test_missing_source(tmp_path):
    def drop(t: str) -> str:
        return "\n".join(ln for ln in t.splitlines() if not ln.startswith('mmio_write_us = "')) + "\n"

    p = _copy(tmp_path, drop)
    with pytest.raises(PartitionError) as exc:
        load_board(str(p))
    assert f"{p}: missing source for [interface] mmio_write_us" in exc.value.message


def test_missing_key_and_section(tmp_path):
    p = _copy(tmp_path, lambda t: t.replace("cma_mb = 128\n", ""))
    with pytest.raises(PartitionError, match=r"missing key \[memory\] cma_mb"):
        load_board(str(p))
    p = _copy(tmp_path, lambda t: t.replace("[clocks]", "[clockz]"), name="y.toml")
    with pytest.raises(PartitionError, match=r"unknown section \[clockz\]"):
        load_board(str(p))


def test_bad_enum_and_types(tmp_path):
    p = _copy(tmp_path, lambda t: t.replace('family = "xc7"', 'family = "xc9"'))
    with pytest.raises(PartitionError, match=r"\[board\] family must be one of 'xc7', 'xczu', got 'xc9'"):
        load_board(str(p))
    p = _copy(tmp_path, lambda t: t.replace("cores = 2", "cores = true"), name="y.toml")
    with pytest.raises(PartitionError, match=r"\[cpu\] cores must be a positive integer, got True"):
        load_board(str(p))
    p = _copy(tmp_path, lambda t: t.replace("kernel_axi_bits = 32", "kernel_axi_bits = 48"), name="z.toml")
    with pytest.raises(PartitionError, match=r"\[interface\] kernel_axi_bits must be one of 32, 64, 128"):
        load_board(str(p))
    p = _copy(tmp_path, lambda t: t.replace("pl_mhz = 100", 'pl_mhz = "fast"'), name="w.toml")
    with pytest.raises(PartitionError, match=r"\[clocks\] pl_mhz must be a positive number"):
        load_board(str(p))


def test_source_for_unknown_key(tmp_path):
    p = _copy(tmp_path, lambda t: t.replace("[memory.sources]\n", '[memory.sources]\nswap_mb = "x"\n'))
    with pytest.raises(PartitionError, match=r"unknown key \[memory.sources\] swap_mb"):
        load_board(str(p))


def test_name_must_match_file_in_board_folder(tmp_path, monkeypatch):
    folder = tmp_path / "boards"
    folder.mkdir()
    shutil.copy(Path(boards.board_dir()) / "pynq-z2.toml", folder / "foo.toml")
    monkeypatch.setattr(boards, "board_dir", lambda: folder)
    assert board_names() == ["foo"]
    with pytest.raises(PartitionError, match=r"boards/foo.toml: \[board\] name 'pynq-z2' does not match"):
        load_board("foo")
    with pytest.raises(PartitionError, match="known boards: foo"):
        load_board("bar")


def test_overrides_replace_values_and_mark_measured(tmp_path):
    cal = tmp_path / "cal.toml"
    cal.write_text("[interface]\nmmio_write_us = 12.5\n\n[cpu]\nbench_ns = 40000\n")
    b = load_board("pynq-z2", overrides=cal)
    assert b.interface["mmio_write_us"] == 12.5
    assert b.cpu["bench_ns"] == 40000
    assert b.source("interface", "mmio_write_us") == "measured: cal.toml"
    assert b.source("cpu", "bench_ns") == "measured: cal.toml"
    assert b.source("interface", "mmio_read_us").startswith("derived")
    base = load_board("pynq-z2")
    assert base.interface["mmio_write_us"] == 4.0


def test_overrides_are_checked(tmp_path):
    cal = tmp_path / "cal.toml"
    cal.write_text("[interface]\nmmio_write_us = -1\n")
    with pytest.raises(
        PartitionError, match=rf"{cal}: \[interface\] mmio_write_us must be a positive number"
    ):
        load_board("pynq-z2", overrides=cal)
    cal.write_text("[interface]\nmmio_speed = 1\n")
    with pytest.raises(PartitionError, match=r"unknown key \[interface\] mmio_speed"):
        load_board("pynq-z2", overrides=cal)
    cal.write_text('[interface]\nsync_us = 3\n\n[interface.sources]\nsync_us = "me"\n')
    with pytest.raises(PartitionError, match="not allowed in an override file"):
        load_board("pynq-z2", overrides=cal)
    with pytest.raises(PartitionError, match="override file not found"):
        load_board("pynq-z2", overrides=tmp_path / "none.toml")


def test_family_and_ps_must_agree(tmp_path):
    p = _copy(tmp_path, lambda t: t.replace('ps = "ps7"', 'ps = "ps8"'))
    with pytest.raises(PartitionError, match=r"\[board\] ps must be 'ps7' for family 'xc7', got 'ps8'"):
        load_board(str(p))


def test_overrides_may_not_change_identity(tmp_path):
    cal = tmp_path / "cal.toml"
    cal.write_text('[board]\npart = "xc7z010clg400-1"\n')
    with pytest.raises(PartitionError, match=r"may not change \[board\]"):
        load_board("pynq-z2", overrides=cal)
