"""Where the non-Python parts of the tool live (templates, C++ support, boards, host runtime).

In a source checkout they sit at the repository root (DESIGN layout); in an
installed wheel they are packaged under `partition/_data/`.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """Folder `name` (templates, hls, boards, host) of this installation."""
    for base in (_PKG.parent, _PKG / "_data"):
        p = base / name
        if p.is_dir():
            return p
    raise FileNotFoundError(f"partition installation is missing its {name}/ folder")
