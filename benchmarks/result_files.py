"""Where a benchmark's figures go: `NAME.json` (the data) and `NAME.md` (the table) in one folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_results(out: Path, name: str, data: Any, markdown: str) -> Path:
    """Write `out`/NAME.json (sorted keys, so re-runs diff cleanly) and `out`/NAME.md; say so."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    md = out / f"{name}.md"
    md.write_text(markdown)
    print(f"wrote {md}")
    return md
