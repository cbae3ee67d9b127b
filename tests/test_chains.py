"""Which producer -> consumer pairs the app's source lets run as one AXI-Stream chain."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from partition.frontend import chain_sites, chainable
from partition.profile import run_profile

PARAMS = ["y", "k"]


def verdict(body: str):
    src = "def caller(x, n):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    fn = ast.parse(src).body[0]
    return chain_sites(fn, "u", "v", PARAMS, "app.py")


@pytest.mark.parametrize(
    "body, param, form",
    [
        ("return v(u(x), 3)\n", "y", "nested"),
        ("return v(k=u(x), y=x)\n", "k", "nested"),
        ("t = u(x)\nprint(n)\nreturn v(t, 1)\n", "y", "named"),
        ("for i in range(n):\n    t = u(x)\n    s = v(x, t)\n", "k", "named"),
        ("t = u(x)\nif n:\n    v(t, 1)\n", "y", "named"),
        ("total = 0\nfor r in range(4):\n    total += int(v(u(x), r).sum())\n", "y", "nested"),
        ("return [v(u(a), 1) for a in x]\n", "y", "nested"),
    ],
)
def test_chain_sites_the_app_allows(body, param, form):
    v = verdict(body)
    assert v.ok, v.reason
    assert [(s.param, s.form) for s in v.sites] == [(param, form)]


@pytest.mark.parametrize(
    "body, why",
    [
        ("t = u(x)\nprint(t)\nreturn v(t, 1)\n", "used 2 times"),
        ("t = u(x)\nreturn t\n", "other than as an argument"),
        ("t = u(x)\nfor i in range(n):\n    v(t, i)\n", "inside a loop"),
        ("t = u(x)\nreturn [v(t, i) for i in range(n)]\n", "inside a loop or a nested scope"),
        ("t = u(x)\nf = lambda: v(t, 1)\n", "inside a loop or a nested scope"),
        ("t = u(x)\nt = 0\nreturn v(t, 1)\n", "assigned or deleted elsewhere"),
        ("global t\nt = u(x)\nreturn v(t, 1)\n", "global or nonlocal"),
        ("if n:\n    t = u(x)\nelse:\n    t = x\nreturn v(t, 1)\n", "assigned or deleted elsewhere"),
        ("if n:\n    t = u(x)\n    z = 1\nif not n:\n    v(t, 1)\n", "not later in the same block"),
        ("return w(u(x))\n", "neither passed straight"),
        ("a, b = u(x), 1\nreturn v(a, b)\n", "neither passed straight"),
        ("return v(*[u(x)], 1)\n", "neither passed straight"),
        ("t = u(x)\nreturn v(*[t], 1)\n", "other than as an argument"),
        ("t = u(x)\nreturn v(1, *x, t)\n", "through *args"),
        ("u = max\nreturn v(u(x), 1)\n", "local name of the caller"),
        ("return v(1, 2)\n", "not called there"),
        ("a = v(u(x), 1)\nb = v(1, u(x))\n", "different parameters"),
        ("t = u(x)\nreturn v(t, u(x).sum())\n", "neither passed straight"),
        ("t = u(x)\ndef f():\n    return t\nv(t, 1)\nreturn f()\n", "used 2 times"),  # a closure reads it
        ("t = u(x)\nv(t, 1)\nreturn locals()\n", "calls locals"),
        ("return v(u(x), eval('1'))\n", "calls eval"),
    ],
)
def test_chain_sites_the_app_forbids(body, why):
    v = verdict(body)
    assert not v.ok
    assert why in v.reason, v.reason


def test_a_module_level_result_read_by_a_function_is_not_a_chain():
    mod = ast.parse("t = u(x)\ndef peek():\n    return t\nr = v(t, 1)\n")
    assert "used 2 times" in chain_sites(mod, "u", "v", PARAMS, "app.py").reason


def test_a_module_level_rebinding_of_the_consumer_is_not_a_chain():
    mod = ast.parse("import numpy as np\nv = np.add\nr = v(u(x), 1)\n")
    v = chain_sites(mod, "u", "v", PARAMS, "app.py")
    assert "local name" in v.reason


APP = """
import numpy as np


def scale(x: np.ndarray) -> np.ndarray:
    out = np.zeros(x.shape[0], dtype=np.int32)
    for i in range(x.shape[0]):
        out[i] = x[i] * 3
    return out


def offset(y: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros(y.shape[0], dtype=np.int32)
    for i in range(y.shape[0]):
        out[i] = y[i] + k
    return out


def main() -> None:
    x = np.arange(64, dtype=np.int32)
    total = 0
    for r in range(3):
        s = scale(x)
        total += int(offset(s, r).sum())
    kept = scale(x)
    print(total, int(offset(kept, 1)[0]), int(kept[1]) if MODE else 0)


MODE = {mode}
main()
"""


def test_chainable_needs_every_call_of_the_producer_to_be_a_chain_site(tmp_path: Path):
    # `kept` is read twice in the source, even if the second read never runs (MODE = 0)
    app = tmp_path / "app.py"
    app.write_text(APP.format(mode=0))
    prof = run_profile(app, [], cwd=tmp_path, baseline=False, replay=False)
    v = chainable(prof, tmp_path, "scale", "offset")
    assert not v.ok
    assert "kept" in v.reason and "used 2 times" in v.reason


def test_chainable_accepts_a_pipeline_whose_intermediate_only_feeds_the_consumer(tmp_path: Path):
    app = tmp_path / "app.py"
    app.write_text(
        APP.replace("    kept = scale(x)\n", "")
        .replace("int(offset(kept, 1)[0]), int(kept[1]) if MODE else 0", "0")
        .format(mode=0)
    )
    prof = run_profile(app, [], cwd=tmp_path, baseline=False, replay=False)
    v = chainable(prof, tmp_path, "scale", "offset")
    assert v.ok, v.reason
    assert [(s.line, s.param, s.form) for s in v.sites] == [(23, "y", "named")]
    assert not chainable(prof, tmp_path, "offset", "scale").ok
