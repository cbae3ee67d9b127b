"""The copy_add test kernel: register map, widths and rendered sources (shared by the pytest
side, which renders and builds it, and the cocotb side, which drives it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import jinja2

from partition import regmap
from partition.rtl import shells
from partition.templating import template_env

KERNEL = "copy_add"
RAM_AW = 11  # 2048 words: room for 4100-byte arrays (at 32 bits; 8191 bytes at every width)
LEN_W = 13  # byte counts up to 8191
HERE = Path(__file__).resolve().parent


def register_map() -> regmap.RegisterMap:
    """uint32 copy_add(int32 *a, int32 *b, int32 k, int64 n): a pointer pair, a 32-bit and a
    64-bit scalar and a scalar return."""
    entries = [
        ("a", 64, "pointer", "int32"),
        ("b", 64, "pointer", "int32"),
        ("k", 32, "scalar", "int32"),
        ("n", 64, "scalar", "int64"),
    ]
    return regmap.RegisterMap(KERNEL, tuple(regmap.layout(entries, (32, "uint32"))))


def ram_address_bits(data_bits: int) -> int:
    """Buffer address bits: RAM_AW words of 32 bits, half as many words per doubling of the bus."""
    return RAM_AW + 1 - (data_bits // 32).bit_length()


def render(mutate: Callable[[str, str], str] | None = None, data_bits: int = 32) -> dict[str, str]:
    """{filename: text} of the shells and the top for a `data_bits`-wide m_axi;
    `mutate(filename, text)` edits any file."""
    rmap = register_map()
    ram_aw = ram_address_bits(data_bits)
    files = shells.render_shells(rmap, ram_addr_bits=ram_aw, len_bits=LEN_W, data_bits=data_bits)
    env = template_env()
    env.loader = jinja2.ChoiceLoader([env.loader, jinja2.FileSystemLoader(str(HERE))])
    files[f"{KERNEL}.v"] = env.get_template("copy_add.v.j2").render(
        ctrl_aw=shells.control_address_bits(rmap), ram_aw=ram_aw, len_w=LEN_W, data_bits=data_bits
    )
    if mutate is not None:
        files = {name: mutate(name, text) for name, text in files.items()}
    return files


def write_sources(
    out_dir: Path, mutate: Callable[[str, str], str] | None = None, data_bits: int = 32
) -> list[Path]:
    """Render into `out_dir` (only files whose text changed are rewritten); the source list, top last."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in sorted(render(mutate, data_bits).items(), key=lambda kv: kv[0] == f"{KERNEL}.v"):
        p = out_dir / name
        if not p.is_file() or p.read_text() != text:
            p.write_text(text)
        paths.append(p)
    return paths
