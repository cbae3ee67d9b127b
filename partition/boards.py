"""Board descriptions: one TOML file per board under boards/, checked against a schema.

A board file is the single place for everything the planner needs to know about a
board: the FPGA part and its resources, what the fixed overlay infrastructure takes,
the CPU (for scaling profiled times), clocks, the cost of crossing the CPU/FPGA
boundary, and memory. Every numeric value carries a source (a document and figure,
or "derived: <how>") in a `[<section>.sources]` table, so a reader can check any
number the estimator or the ILP uses.

Values measured on the board by the generated calibration script are applied with
`load_board(name, overrides=path)`: they replace the file's values and their source
becomes "measured: <file>".
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from partition.errors import PartitionError
from partition.resources import resource_dir

FAMILIES = ("xc7", "xczu")
# The FPGA resources a kernel uses and a plan budgets, in this order everywhere (estimates,
# the ILP, reports); a board file's [resources] gives each one's count.
RESOURCES = ("lut", "ff", "dsp", "bram18")
PS_KINDS = ("ps7", "ps8")

# Value kinds: "str", "int+" (positive int), "int0" (non-negative int), "num+" (positive
# number), and ("enum", choices).
_Kind = str | tuple[str, tuple[str, ...]]

SCHEMA: dict[str, dict[str, _Kind]] = {
    "board": {
        "name": "str",
        "description": "str",
        "vendor": "str",
        "family": ("enum", FAMILIES),
        "part": "str",
        "board_part": "str",
        "ps": ("enum", PS_KINDS),
    },
    "resources": {"lut": "int+", "ff": "int+", "dsp": "int+", "bram18": "int+", "uram": "int0"},
    "shell": {"lut": "int0", "ff": "int0", "dsp": "int0", "bram18": "int0"},
    "cpu": {
        "cores": "int+",
        "core": "str",
        "mhz": "num+",
        # one figure per class of CPU work (partition.profile.bench), each with the range the
        # board's true figure lies in (the uncertainty of an estimate, or a measurement's spread)
        "bench_ns": "num+",
        "bench_ns_range": "range+",
        "numpy_compute_ns": "num+",
        "numpy_compute_ns_range": "range+",
        "numpy_memory_ns": "num+",
        "numpy_memory_ns_range": "range+",
        # board time / profiling host's time of the same loops compiled (gcc -O2): the
        # compiled-code alternative to a kernel (benchmarks/bench_roofline.py)
        "compiled_factor": "num+",
        "compiled_factor_range": "range+",
    },
    "clocks": {"ps_ref_mhz": "num+", "pl_mhz": "num+"},
    "interface": {
        "mmio_write_us": "num+",
        "mmio_read_us": "num+",
        "call_overhead_us": "num+",
        "copy_to_cma_MBps": "num+",
        "copy_from_cma_MBps": "num+",
        "sync_us": "num+",
        "kernel_axi_bits": ("enum", ("32", "64", "128")),
        "hp_axi_bits": ("enum", ("32", "64", "128")),
        "ddr_read_latency_cycles": "int+",
        "ddr_write_latency_cycles": "int+",
    },
    "memory": {"ddr_mb": "int+", "cma_mb": "int+"},
}

CPU_FIGURES = (
    "bench_ns",
    "numpy_compute_ns",
    "numpy_memory_ns",
    "compiled_factor",
)  # each has a "<key>_range"
MEASURED_SPREAD = 0.05  # the range of a figure an override measured without giving its range

_KIND_TEXT = {
    "range+": "[low, high]: two positive numbers, low <= high",
    "str": "a non-empty string",
    "int+": "a positive integer",
    "int0": "a non-negative integer",
    "num+": "a positive number",
}


@dataclass(frozen=True)
class Board:
    name: str
    description: str
    vendor: str
    family: str
    part: str
    board_part: str
    ps: str
    resources: dict[str, int]
    shell: dict[str, int]
    cpu: dict[str, Any]
    clocks: dict[str, float]
    interface: dict[str, Any]
    memory: dict[str, int]
    sources: dict[str, str]  # "section.key" -> source text
    path: str  # file name only

    @property
    def pl_mhz(self) -> float:
        return float(self.clocks["pl_mhz"])

    def source(self, section: str, key: str) -> str:
        return self.sources[f"{section}.{key}"]


# ------------------------------------------------------------------ loading


def board_dir() -> Path:
    return resource_dir("boards")


def board_names() -> list[str]:
    """Names of the boards shipped with partition, sorted."""
    return sorted(p.stem for p in board_dir().glob("*.toml"))


def list_boards() -> list[Board]:
    return [load_board(n) for n in board_names()]


def load_board(name_or_path: str, overrides: Path | None = None) -> Board:
    """Load a board by name (from the boards/ folder) or from a TOML file path.

    `overrides` is a TOML file with the same sections whose values replace the
    board's (typically measured on the board by the calibration script).
    """
    text = str(name_or_path)
    looks_like_path = text.endswith(".toml") or "/" in text or "\\" in text
    if looks_like_path:
        path = Path(text)
        if not path.is_file():
            raise PartitionError(f"{text}: board file not found")
        shown = text
        expect_name = None
    else:
        path = board_dir() / f"{text}.toml"
        if not path.is_file():
            known = ", ".join(board_names()) or "(none)"
            raise PartitionError(
                f"unknown board {text!r}; known boards: {known} (or give the path of a board .toml file)"
            )
        shown = f"boards/{path.name}"
        expect_name = text
    data = _read_toml(path, shown)
    values, sources = _check(data, shown, require_sources=True, partial=False)
    if expect_name is not None and values["board"]["name"] != expect_name:
        raise PartitionError(
            f"{shown}: [board] name {values['board']['name']!r} does not match the file name {expect_name!r}"
        )
    expected_ps = {"xc7": "ps7", "xczu": "ps8"}[values["board"]["family"]]
    if values["board"]["ps"] != expected_ps:
        raise PartitionError(
            f"{shown}: [board] ps must be {expected_ps!r} for family {values['board']['family']!r}, "
            f"got {values['board']['ps']!r}"
        )
    if overrides is not None:
        opath = Path(overrides)
        if not opath.is_file():
            raise PartitionError(f"{opath}: board override file not found")
        odata = _read_toml(opath, str(opath))
        if "board" in odata:
            raise PartitionError(
                f"{opath}: an override file may not change [board]; it only holds measured values"
            )
        ovalues, _ = _check(odata, str(opath), require_sources=False, partial=True)
        for section, entries in ovalues.items():
            for key, value in entries.items():
                values[section][key] = value
                sources[f"{section}.{key}"] = f"measured: {opath.name}"
        for key in CPU_FIGURES:  # a measured figure without its range: the measurement's spread
            measured = ovalues.get("cpu", {})
            if key in measured and f"{key}_range" not in measured:
                v = float(measured[key])
                values["cpu"][f"{key}_range"] = [v * (1 - MEASURED_SPREAD), v * (1 + MEASURED_SPREAD)]
                sources[f"cpu.{key}_range"] = f"measured: {opath.name} (+-{MEASURED_SPREAD:.0%})"
    for key in CPU_FIGURES:
        lo, hi = values["cpu"][f"{key}_range"]
        if not lo <= values["cpu"][key] <= hi:
            raise PartitionError(
                f"{shown}: [cpu] {key} = {values['cpu'][key]} lies outside {key}_range [{lo}, {hi}]"
            )
    b = values["board"]
    return Board(
        name=b["name"],
        description=b["description"],
        vendor=b["vendor"],
        family=b["family"],
        part=b["part"],
        board_part=b["board_part"],
        ps=b["ps"],
        resources=dict(values["resources"]),
        shell=dict(values["shell"]),
        cpu=dict(values["cpu"]),
        clocks=dict(values["clocks"]),
        interface=dict(values["interface"]),
        memory=dict(values["memory"]),
        sources=dict(sorted(sources.items())),
        path=path.name,
    )


def sources_keys_for(section: str) -> list[str]:
    """Keys of `section` that must carry a source (the numeric ones)."""
    return [k for k, kind in SCHEMA[section].items() if _is_numeric(kind)]


# ---------------------------------------------------------------- checking


def _read_toml(path: Path, shown: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        if m:
            reason = msg[: m.start()].strip()
            raise PartitionError(f"{shown}:{m.group(1)}: malformed TOML: {reason}; fix the file") from None
        raise PartitionError(f"{shown}: malformed TOML: {msg}; fix the file") from None
    except OSError as exc:
        raise PartitionError(f"{shown}: cannot read board file: {exc.strerror}") from None


def _is_numeric(kind: _Kind) -> bool:
    if isinstance(kind, tuple):
        return all(c.isdigit() for c in kind[1])
    return kind in ("int+", "int0", "num+", "range+")


def _check_value(value: Any, kind: _Kind, where: str, shown: str) -> Any:
    def bad(expected: str) -> PartitionError:
        return PartitionError(f"{shown}: {where} must be {expected}, got {value!r}")

    if isinstance(kind, tuple):
        choices = kind[1]
        if _is_numeric(kind):
            if isinstance(value, bool) or not isinstance(value, int) or str(value) not in choices:
                raise bad("one of " + ", ".join(choices))
            return value
        if not isinstance(value, str) or value not in choices:
            raise bad("one of " + ", ".join(repr(c) for c in choices))
        return value
    if kind == "str":
        if not isinstance(value, str) or not value.strip():
            raise bad(_KIND_TEXT[kind])
        return value
    if isinstance(value, bool):
        raise bad(_KIND_TEXT[kind])
    if kind == "int+":
        if not isinstance(value, int) or value <= 0:
            raise bad(_KIND_TEXT[kind])
        return value
    if kind == "int0":
        if not isinstance(value, int) or value < 0:
            raise bad(_KIND_TEXT[kind])
        return value
    if kind == "num+":
        if not _positive(value):
            raise bad(_KIND_TEXT[kind])
        return value
    if kind == "range+":
        if not (isinstance(value, list) and len(value) == 2 and all(_positive(v) for v in value)):
            raise bad(_KIND_TEXT[kind])
        if value[0] > value[1]:
            raise bad(_KIND_TEXT[kind])
        return [float(v) for v in value]
    raise AssertionError(kind)


def _positive(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and value > 0
        and value == value
        and value != float("inf")
    )


def _check(
    data: dict[str, Any], shown: str, require_sources: bool, partial: bool
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Validate a parsed board (or override) file; return values and sources."""
    values: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    for section in data:
        if section not in SCHEMA:
            raise PartitionError(f"{shown}: unknown section [{section}]; known sections: {', '.join(SCHEMA)}")
    for section, spec in SCHEMA.items():
        table = data.get(section)
        if table is None:
            if partial:
                continue
            raise PartitionError(f"{shown}: missing section [{section}]")
        if not isinstance(table, dict):
            raise PartitionError(f"{shown}: [{section}] must be a table")
        given_sources = table.get("sources", {})
        if not isinstance(given_sources, dict):
            raise PartitionError(f"{shown}: [{section}.sources] must be a table of strings")
        if given_sources and not require_sources:
            raise PartitionError(
                f"{shown}: [{section}.sources] is not allowed in an override file; "
                "overridden values are marked as measured automatically"
            )
        out: dict[str, Any] = {}
        for key, value in table.items():
            if key == "sources":
                continue
            if key not in spec:
                raise PartitionError(f"{shown}: unknown key [{section}] {key}; known keys: {', '.join(spec)}")
            out[key] = _check_value(value, spec[key], f"[{section}] {key}", shown)
        if not partial:
            for key in spec:
                if key not in out:
                    raise PartitionError(f"{shown}: missing key [{section}] {key}")
        for key, text in given_sources.items():
            if key not in spec:
                raise PartitionError(f"{shown}: unknown key [{section}.sources] {key}; it names no value")
            if not isinstance(text, str) or not text.strip():
                raise PartitionError(f"{shown}: [{section}.sources] {key} must be a non-empty string")
            sources[f"{section}.{key}"] = text
        if require_sources:
            for key in spec:
                if _is_numeric(spec[key]) and f"{section}.{key}" not in sources:
                    raise PartitionError(
                        f"{shown}: missing source for [{section}] {key}; add it to [{section}.sources] "
                        "(a document and figure, or 'derived: <how>')"
                    )
        values[section] = out
    return values, sources
