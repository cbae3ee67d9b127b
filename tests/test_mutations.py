"""Mutated options and mutated profiles: a clear error (exit 2) or a plan, never exit 70, never a
traceback.

The CLI runs in this process (`partition.cli.main`, as the console script calls it) on
tests/cli_apps/small_app.py and its saved profile. The profile mutations are systematic: every
field of a function, of an edge, of the host figures and of a recorded value, each given a value
of the wrong type, a negative, a huge number or removed; and the file cut short at several
points. `make bench` has no larger corpus for this: a random walk over 2,500 mutations of every
leaf of the profile found the holes these cases now cover.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path

import pytest

from partition.cli import main
from partition.profile import run_profile
from partition.profile.model import save_profile

APP = Path(__file__).parent / "cli_apps" / "small_app.py"
WRONG = {
    "string": "x",
    "negative": -1,
    "null": None,
    "list": [],
    "object": {},
    "huge": 10**12,
    "removed": ...,
}


@pytest.fixture(scope="module")
def profile_json(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("mut") / "small.profile.json"
    with contextlib.redirect_stdout(io.StringIO()):
        save_profile(run_profile(APP, ["300"], baseline=False), path)
    return json.loads(path.read_text())


def cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as e:  # argparse's own errors
            code = e.code
    return code, err.getvalue()


def plan_with(tmp: Path, text: str, *options: str) -> tuple[int, str]:
    p = tmp / "mutated.json"
    p.write_text(text)
    return cli(
        "plan", str(APP), "--board", "pynq-z2", "--profile", str(p), "--out", str(tmp / "out"), *options
    )


def assert_clean(code: int, err: str, what: str) -> None:
    assert code in (0, 2), (what, code, err)
    assert "internal error" not in err and "Traceback" not in err, (what, err)


def _paths(profile: dict) -> list[tuple]:
    """One path per field kind: every field of one function with samples, of one edge, the host
    figures, the top level, and each part of one recorded array."""
    fn = next(
        n
        for n, f in profile["functions"].items()
        if any(a["t"] == "ndarray" for a in f["samples"][0]["args"])
    )
    f = profile["functions"][fn]
    arg = next(i for i, a in enumerate(f["samples"][0]["args"]) if a["t"] == "ndarray")
    out = [("functions", fn, k) for k in f]
    out += [("edges", 0, k) for k in profile["edges"][0]]
    out += [("host", k) for k in ("bench_ns", "bench", "board")]
    out += [("host", "bench", "interp", "ns"), ("host", "bench", "interp")]
    out += [(k,) for k in ("app", "argv", "wall_s", "plain_wall_s", "functions", "edges", "children")]
    out += [("functions", fn, "samples", 0, "args", arg, k) for k in ("t", "dtype", "shape", "data")]
    out += [("functions", fn, "samples", 0, k) for k in ("args", "result", "outputs")]
    out += [("functions", fn, "arg_sigs", 0, k) for k in f["arg_sigs"][0]]
    out += [("functions", fn, "callers", "main"), ("functions", fn, "arg_sigs", 0, "shape", 0)]
    return out


def _mutated(profile: dict, path: tuple, value) -> dict:
    d = copy.deepcopy(profile)
    at = d
    for k in path[:-1]:
        at = at[k]
    if value is ...:
        if isinstance(at, dict):
            at.pop(path[-1], None)
        else:
            del at[path[-1]]
    else:
        at[path[-1]] = value
    return d


def test_every_field_of_a_profile_mutated(tmp_path, profile_json) -> None:
    refused = 0
    for path in _paths(profile_json):
        for name, value in WRONG.items():
            code, err = plan_with(tmp_path, json.dumps(_mutated(profile_json, path, value)))
            assert_clean(code, err, f"{'/'.join(map(str, path))} {name}")
            refused += code == 2
    assert refused > 100  # most of these are refused, with the file named


def test_a_profile_cut_short_anywhere(tmp_path, profile_json) -> None:
    text = json.dumps(profile_json)
    for cut in range(0, len(text), max(1, len(text) // 17)):
        code, err = plan_with(tmp_path, text[:cut])
        assert code == 2 and "mutated.json" in err, (cut, err)
        assert_clean(code, err, f"cut at {cut}")


BAD_VALUES = ["-1", "0", "abc", "1e999", "nan", "", "2.5"]
VALUED = ["--objective", "--cores", "--max-util", "--max-shape", "--solver", "--time-limit",
          "--int-widths", "--top-k", "--sweep", "--workers", "--samples", "--app-timeout",
          "--profile-for", "--calibrate", "--board-overrides", "--pin-cpu", "--pin-fpga"]  # fmt: skip


@pytest.mark.parametrize("option", VALUED)
def test_every_option_with_bad_values(tmp_path, profile_json, option) -> None:
    text = json.dumps(profile_json)
    for value in BAD_VALUES:
        code, err = plan_with(tmp_path, text, option, value)
        assert_clean(code, err, f"{option} {value!r}")
        if value in ("abc", "nan") and option not in ("--pin-cpu", "--pin-fpga"):
            assert code == 2, (option, value, err)  # (1e999 is infinity: no limit, for a time)
