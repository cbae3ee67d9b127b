"""The build trees of the bundled examples, planned from saved profiles, are fixed byte for byte.

Each case plans one example from its profile in tests/golden/ (saved once with `partition
profile`, so no run of the app and no machine figure enters) and compares the SHA-256 of every
file of the tree with tests/golden/<case>.tree.json. A restructuring of the code must leave
these unchanged; a change that means to alter the output regenerates them with

    PARTITION_UPDATE_GOLDEN=1 pytest tests/test_golden_trees.py

and says in its commit which files changed and why.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"

# case name -> (example, plan options)
CASES = {
    "fir_pipeline": ("fir_pipeline", {}),
    "image_pipeline": ("image_pipeline", {}),
    "matmul_layer": ("matmul_layer", {}),
    "fir_pipeline-throughput": ("fir_pipeline", {"objective": "throughput"}),
}


def tree_digest(example: str, options: dict) -> dict[str, str]:
    """{relative path: sha256} of the build tree of `example` planned from its saved profile."""
    from partition.boards import load_board
    from partition.codegen.tree import build_tree
    from partition.plan import Options, make_plan
    from partition.profile.model import Profile

    data = json.loads(gzip.decompress((GOLDEN / f"{example}.profile.json.gz").read_bytes()))
    profile = Profile.from_json(data, source=f"{example}.profile.json")
    app = ROOT / "examples" / f"{example}.py"
    board = load_board("pynq-z2")
    plan = make_plan(profile, app.parent, board, Options(**options))
    files, executable = build_tree(plan, profile, board, app.read_bytes())
    digest = {rel: hashlib.sha256(data).hexdigest() for rel, data in sorted(files.items())}
    digest.update({f"{rel} (executable)": "" for rel in sorted(executable)})
    return digest


@pytest.mark.parametrize("case", sorted(CASES))
def test_example_tree_is_unchanged(case):
    example, options = CASES[case]
    got = tree_digest(example, options)
    path = GOLDEN / f"{case}.tree.json"
    if os.environ.get("PARTITION_UPDATE_GOLDEN") == "1":
        path.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    want = json.loads(path.read_text())
    changed = sorted(k for k in set(got) & set(want) if got[k] != want[k])
    added = sorted(set(got) - set(want))
    removed = sorted(set(want) - set(got))
    assert not (changed or added or removed), (
        f"{case}: build tree differs from tests/golden/{case}.tree.json: "
        f"changed {changed}, added {added}, removed {removed}"
    )
