"""The profiler: end-to-end on small apps (tests/apps/), and its parts in process.

Each app is profiled once per module (a profile run is two short child
processes); the expected figures (calls, bytes, ranges) follow from the apps'
source by hand.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from partition.errors import AppFailed, PartitionError
from partition.profile import Task, edge_vectors, local_ranges, run_profile
from partition.profile.bench import bench_ns
from partition.profile.dataflow import DataFlow
from partition.profile.instrument import NameRegistry, instrument_source
from partition.profile.model import MAIN, Profile, decode_value, dump_json
from partition.profile.signature import SigAcc

APPS = Path(__file__).resolve().parent / "apps"


def profile_quietly(app: Path, argv: list[str] | None = None, **kw) -> tuple[Profile, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        prof = run_profile(app, argv or [], **kw)
    return prof, out.getvalue()


def edges_of(prof: Profile) -> list[tuple[str, str, int, int]]:
    return [(e.src, e.dst, e.bytes, e.count) for e in prof.edges]


def def_line(app: Path, text: str) -> int:
    return next(i for i, line in enumerate(app.read_text().splitlines(), 1) if line.lstrip().startswith(text))


# ------------------------------------------------------------------ pipeline


@pytest.fixture(scope="module")
def pipeline() -> Profile:
    prof, out = profile_quietly(APPS / "pipeline.py", baseline=True, echo=True)
    assert out == "8448\n" * 4  # echo passes the app's stdout through
    return prof


def test_pipeline_calls_files_and_host(pipeline: Profile) -> None:
    assert pipeline.app == "pipeline.py"
    assert sorted(pipeline.functions) == ["make", "scale", "total"]
    for name, fp in pipeline.functions.items():
        assert fp.calls == 4
        assert fp.file == "pipeline.py"
        assert fp.line == def_line(APPS / "pipeline.py", f"def {name}(")
        assert fp.callers == {MAIN: 4}
        assert fp.ancestors == []
        assert fp.total_s >= fp.self_s >= 0
    assert set(pipeline.host) == {"machine", "system", "python", "numpy", "bench_ns", "bench", "board"}
    assert pipeline.host["bench_ns"] > 0 and pipeline.host["board"] is None
    bench = pipeline.host["bench"]
    assert set(bench) == {"interp", "numpy_compute", "numpy_memory"}
    assert bench["interp"]["ns"] == pipeline.host["bench_ns"]
    assert all(f["ns"] > 0 and f["spread"] >= 0 and f["repeats"] >= 7 for f in bench.values())
    assert pipeline.wall_s > 0 and pipeline.plain_wall_s is not None and pipeline.plain_wall_s > 0


def test_pipeline_edges(pipeline: Profile) -> None:
    # make returns 64 int16 (128 B) -> scale; scale's result is passed as the view b[::2] (64 B);
    # n and k are Python ints from <main> (8 B); total's int results go back to <main>.
    assert edges_of(pipeline) == [
        (MAIN, "make", 32, 4),
        (MAIN, "scale", 32, 4),
        ("make", "scale", 512, 4),
        ("scale", "total", 256, 4),
        ("total", MAIN, 32, 4),
    ]
    assert [e.what for e in pipeline.edges] == ["n", "k", "a", "a", "return"]
    # make's array reaches scale as the object make returned (on the board: its device buffer,
    # handed over without a copy); scale's reaches total as a view, which the runtime copies
    assert [e.direct_bytes for e in pipeline.edges] == [0, 0, 512, 0, 0]


def test_pipeline_signatures(pipeline: Profile) -> None:
    f = pipeline.functions
    assert f["make"].params == ["n"]
    assert f["make"].arg_sigs == [{"type": "int", "min": 64, "max": 64}]
    assert f["make"].return_sig == {"type": "ndarray", "dtype": "int16", "shape": [64], "min": -5, "max": 184}
    assert f["scale"].arg_sigs == [
        {"type": "ndarray", "dtype": "int16", "shape": [64], "min": -5, "max": 184},
        {"type": "int", "min": 3, "max": 3},
    ]
    assert f["total"].arg_sigs == [
        {"type": "ndarray", "dtype": "int16", "shape": [32], "min": -15, "max": 543}
    ]
    assert f["total"].return_sig == {"type": "int", "min": 8448, "max": 8448}
    assert all(fp.mutates == [] for fp in f.values())


def test_pipeline_samples_decode(pipeline: Profile) -> None:
    a = np.arange(64, dtype=np.int16) * 3 - 5
    observed = [s for s in pipeline.functions["total"].samples if not s.edge]
    assert len(observed) == 3  # the first three of four calls
    for s in observed:
        arg = decode_value(s.args[0])
        assert arg.dtype == np.int16 and np.array_equal(arg, (a * 3)[::2])
        assert decode_value(s.result) == 8448
    make = [s for s in pipeline.functions["make"].samples if not s.edge]
    assert all(np.array_equal(decode_value(s.result), a) for s in make)


def test_pipeline_local_ranges(pipeline: Profile) -> None:
    r = pipeline.functions["total"].local_ranges
    assert r["s"] == {"kind": "int", "min": -15, "max": 8448, "pytypes": ["int"]}
    assert r["x"] == {"kind": "int", "min": -15, "max": 543, "pytypes": ["int16"]}
    assert "a" not in r  # arrays are not scalars


def test_pipeline_edge_vectors(pipeline: Profile) -> None:
    edge = [s for s in pipeline.functions["total"].samples if s.edge]
    assert len(edge) == 2
    extremes, rand = (decode_value(s.args[0]) for s in edge)
    for arr, s in ((extremes, edge[0]), (rand, edge[1])):
        assert arr.dtype == np.int16 and arr.shape == (32,)
        assert decode_value(s.result) == sum(int(x) for x in arr)  # a valid vector: the function's own result
    cycle = [-32768, 32767, -1, 0, 1, -32767, 32766]
    assert extremes.tolist() == [cycle[i % len(cycle)] for i in range(32)]
    # make(n) only ever saw n == 64: nothing new to try
    assert not [s for s in pipeline.functions["make"].samples if s.edge]


def test_profile_json_round_trip(pipeline: Profile) -> None:
    text = dump_json(pipeline.to_json())
    again = Profile.from_json(json.loads(text))
    assert dump_json(again.to_json()) == text
    assert "/" not in pipeline.app and not any(
        Path(f.file).is_absolute() for f in pipeline.functions.values()
    )


# ------------------------------------------------------------------ recursion and exceptions


@pytest.fixture(scope="module")
def recursion() -> Profile:
    return profile_quietly(APPS / "recursion.py", baseline=False)[0]


def test_recursion_counts_callers_and_ancestors(recursion: Profile) -> None:
    f = recursion.functions
    assert f["fib"].calls == 177  # fib(10)
    assert f["fib"].callers == {"fib": 176, "run": 1}
    assert f["fib"].ancestors == ["run"]
    assert f["check"].calls == 4 and f["check"].callers == {"run": 4}  # two of them raised
    assert f["check"].return_sig == {"type": "int", "min": 1, "max": 2}
    assert f["run"].callers == {MAIN: 1} and f["run"].ancestors == []
    assert recursion.plain_wall_s is None
    # inclusive times nest; a recursive function's inclusive time is counted once
    assert f["run"].total_s >= f["fib"].total_s >= 0
    assert f["run"].total_s <= recursion.wall_s


def test_recursion_edges(recursion: Profile) -> None:
    # arguments a task makes for its callees come from that task
    assert edges_of(recursion) == [
        ("fib", "fib", 176 * 8, 176),
        ("run", "check", 32, 4),
        ("run", "fib", 8, 1),
    ]


# ------------------------------------------------------------------ in-place modification


@pytest.fixture(scope="module")
def mutate() -> Profile:
    return profile_quietly(APPS / "mutate.py", baseline=False)[0]


def test_mutates_detected(mutate: Profile) -> None:
    f = mutate.functions
    assert f["fill"].mutates == [0]
    assert f["push"].mutates == [0]
    assert f["total"].mutates == [] and f["peek"].mutates == []
    s = f["fill"].samples[0]
    assert np.array_equal(decode_value(s.args[0]), np.zeros(16, dtype=np.float32))
    assert np.array_equal(decode_value(s.outputs["0"]), np.full(16, 2.5, dtype=np.float32))
    s = f["push"].samples[0]
    assert decode_value(s.args[0]) == [1.5, 2.5] and decode_value(s.outputs["0"]) == [1.5, 2.5, 3.5]


def test_modified_argument_is_produced_by_the_modifier(mutate: Profile) -> None:
    assert ("fill", "total", 64, 1) in edges_of(mutate)
    # the caller's own array, modified in place: on the board it is copied into a device buffer
    assert next(e for e in mutate.edges if (e.src, e.dst) == ("fill", "total")).direct_bytes == 0
    assert ("push", "peek", 24, 1) in edges_of(mutate)
    assert (MAIN, "fill", 64 + 8, 2) in edges_of(mutate)  # buf and v


# ------------------------------------------------------------------ classes, nesting, threads


@pytest.fixture(scope="module")
def objects() -> Profile:
    return profile_quietly(APPS / "objects.py", baseline=False)[0]


def test_methods_nested_and_generators(objects: Profile) -> None:
    f = objects.functions
    app = APPS / "objects.py"
    assert sorted(f) == [
        "Acc.__init__",
        "Acc.add",
        "Acc.twice",
        "numbers",
        "outer",
        "outer.<locals>.inner",
        "weighted",
        "worker",
    ]
    assert f["numbers"].kind == "generator" and f["numbers"].calls == 1  # its steps timed
    assert f["Acc.add"].kind == "method" and f["Acc.add"].calls == 5
    assert f["Acc.add"].params == ["self", "x"]
    # a method's self: recorded by its attributes (they become the kernel's arguments)
    assert f["Acc.add"].arg_sigs[0] == {
        "type": "instance",
        "pytype": "Acc",
        "fields": ["value"],
        "items": [{"type": "int", "min": 0, "max": 6}],
    }
    assert f["Acc.add"].return_sig == {"type": "int", "min": 0, "max": 10}
    inner = f["outer.<locals>.inner"]
    assert inner.kind == "nested" and inner.calls == 3 and inner.ancestors == ["outer"]
    assert inner.line == def_line(app, "def inner(")
    assert f["Acc.twice"].callers == {"worker": 1}  # called in a thread
    assert f["worker"].mutates == [0]


def test_keyword_and_default_arguments(objects: Profile) -> None:
    w = objects.functions["weighted"]
    assert w.calls == 3 and w.params == ["a", "b", "scale"]
    assert w.arg_sigs == [
        {"type": "float", "min": 1.0, "max": 2.0},
        {"type": "float", "min": 2.0, "max": 3.0},  # the default 2.0 counts
        {"type": "float", "min": 0.5, "max": 1.0},
    ]
    assert [decode_value(s.result) for s in w.samples if not s.edge] == [3.0, 4.0, 2.0]


# ------------------------------------------------------------------ local modules, globals


@pytest.fixture(scope="module")
def localmod() -> Profile:
    prof, out = profile_quietly(APPS / "localmod" / "main_app.py", baseline=False, echo=True)
    assert out == "64 2\n"
    return prof


def test_local_modules_are_profiled(localmod: Profile) -> None:
    f = localmod.functions
    assert sorted(f) == ["helpers.bump", "helpers.double", "pkg.ops.inc"]
    assert f["helpers.double"].file == "helpers.py" and f["helpers.double"].qualname == "double"
    assert f["pkg.ops.inc"].file == "pkg/ops.py"
    assert f["pkg.ops.inc"].line == def_line(APPS / "localmod" / "pkg" / "ops.py", "def inc(")
    assert edges_of(localmod) == [
        (MAIN, "helpers.double", 32, 1),
        ("helpers.double", "pkg.ops.inc", 32, 1),
        ("pkg.ops.inc", MAIN, 32, 1),
    ]


def test_globals_read_and_changed(localmod: Profile) -> None:
    g = localmod.functions["helpers.double"].globals
    assert sorted(g) == ["OFFSET", "TABLE"]  # numeric module-level names it reads (not np, not int)
    assert decode_value(g["OFFSET"]) == 7
    table = decode_value(g["TABLE"])
    assert table.dtype == np.int16 and table.tolist() == [1, 2, 3]
    assert localmod.functions["helpers.double"].globals_changed == []
    bump = localmod.functions["helpers.bump"]
    assert bump.globals == {"COUNTER": {"t": "int", "v": 0}}  # NAME is a string: not numeric
    assert bump.globals_changed == ["COUNTER"]


# ------------------------------------------------------------------ exits and errors


def test_sys_exit_zero_is_success() -> None:
    prof, _ = profile_quietly(APPS / "exits.py", baseline=False)
    assert prof.functions["work"].calls == 1 and prof.functions["finish"].calls == 1


def test_nonzero_exit_fails(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AppFailed, match=r"exits\.py.*exit status 3"):
        run_profile(APPS / "exits.py", ["3"], baseline=False)


def test_uncaught_exception_shows_the_apps_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AppFailed, match=r"fails\.py.*exit status 1") as e:
        run_profile(APPS / "fails.py", [], baseline=False)
    assert e.value.exit_code == 3
    err = capsys.readouterr().err
    assert "ZeroDivisionError: division by zero" in err
    assert 'fails.py", line 5, in ratio' in err
    assert "partition" not in err  # no profiler frames in the app's traceback


def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    app = tmp_path / "broken.py"
    app.write_text("x = 1\n\ndef f(:\n    pass\n")
    with pytest.raises(PartitionError, match="^" + re.escape(f"{app}:3: syntax error: ")):
        run_profile(app, [])


def test_missing_app(tmp_path: Path) -> None:
    with pytest.raises(PartitionError, match=re.escape("nothere.py: no such file")):
        run_profile(tmp_path / "nothere.py", [])


def test_board_from_environment_and_no_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARTITION_BOARD", "pynq-z2")
    prof, _ = profile_quietly(APPS / "pipeline.py", baseline=False, replay=False)
    assert prof.host["board"] == "pynq-z2"
    total = prof.functions["total"]
    assert len(total.samples) == 3 and not any(s.edge for s in total.samples)
    assert total.local_ranges == {}


def test_no_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    prof, _ = profile_quietly(APPS / "exits.py", baseline=False, samples=0)
    assert prof.functions["work"].calls == 1
    assert all(not f.samples and not f.local_ranges for f in prof.functions.values())
    assert prof.functions["work"].arg_sigs == [{"type": "int", "min": 21, "max": 21}]


# ------------------------------------------------------------------ parts, in process


def test_instrument_names_kinds_and_lines() -> None:
    src = (
        "import asyncio\n"
        "def f(x):\n"
        "    def g(y):\n"
        "        return y\n"
        "    class C:\n"
        "        def m(self):\n"
        "            return 1\n"
        "    return g(x)\n"
        "def gen():\n"
        "    yield 1\n"
        "async def co():\n"
        "    def inner():\n"
        "        return 2\n"
        "    return inner()\n"
        "if True:\n"
        "    def f(x):\n"
        "        return x\n"
        "sq = lambda v: v * v\n"
    )
    reg = NameRegistry()
    _, found = instrument_source(src, "m.py", "mod", "m.py", reg.claim)
    got = {(f.name, f.qualname, f.line, f.kind) for f in found}
    assert got == {
        ("mod.f", "f", 2, "function"),
        ("mod.f.<locals>.g", "f.<locals>.g", 3, "nested"),
        ("mod.f.<locals>.C.m", "f.<locals>.C.m", 6, "nested"),
        ("mod.co.<locals>.inner", "co.<locals>.inner", 12, "nested"),
        ("mod.f@16", "f", 16, "function"),  # a second def of the same name gets its line
        ("mod.gen", "gen", 9, "generator"),
        ("mod.co", "co", 11, "async"),
        ("mod.sq", "sq", 18, "lambda"),
    }


def run_in_process(source: str, monkeypatch: pytest.MonkeyPatch, samples: int = 3) -> dict:
    """Instrument and run `source` here (no child process); returns the recorder's function profiles."""
    import builtins

    from partition.profile import recorder
    from partition.profile.instrument import WRAP_NAME

    monkeypatch.setattr(builtins, WRAP_NAME, recorder.wrap, raising=False)
    recorder.reset(samples)
    tree, found = instrument_source(source, "mem.py", "", "mem.py", NameRegistry().claim)
    for f in found:
        recorder.register(f.name, f.qualname, f.file, f.line, f.kind)
    recorder.start()
    try:
        exec(compile(tree, "mem.py", "exec"), {"__name__": "mem"})
    finally:
        recorder.stop()
    return recorder.collect()


def test_oversized_samples_are_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from partition.profile import recorder

    monkeypatch.setattr(recorder, "SAMPLE_LIMIT", 1000)
    src = "import numpy as np\ndef f(a):\n    return a.sum()\nfor n in (10, 1000, 20):\n    f(np.ones(n))\n"
    f = run_in_process(src, monkeypatch)["f"]
    assert f.calls == 3
    assert [decode_value(s.args[0]).shape for s in f.samples] == [(10,), (20,)]  # 8000 B > limit: not kept
    assert f.arg_sigs[0]["shapes"] == [[10], [20], [1000]]  # still observed


def test_calls_after_the_samples_still_count(monkeypatch: pytest.MonkeyPatch) -> None:
    src = (
        "def g(x, scale=2):\n    return x * scale\n"
        "def h(xs):\n    return [g(x) for x in xs]\n"
        "h(list(range(1000, 1010)))\ng(5, scale=7)\n"
    )
    f = run_in_process(src, monkeypatch, samples=2)
    assert f["g"].calls == 11 and f["g"].callers == {"<main>": 1, "h": 10}
    assert f["g"].arg_sigs == [{"type": "int", "min": 5, "max": 1009}, {"type": "int", "min": 2, "max": 7}]
    assert f["g"].return_sig == {"type": "int", "min": 35, "max": 2018}
    assert len(f["g"].samples) == 2 and f["g"].ancestors == ["h"]


def test_dataflow_views_tuples_and_dead_objects() -> None:
    flow = DataFlow(others_max=4)
    a = np.zeros(100, dtype=np.int32)
    flow.produce(a, "A", MAIN, "return")
    rec = flow.lookup(a[10:20])  # a view counts as its base
    assert rec is not None and rec[1] == "A"
    flow.consume_produced(rec, "B", "x", a[10:20].nbytes)
    b, c = np.ones(3), np.ones(5)
    flow.produce((b, c), "T", MAIN, "return")  # each element of a returned tuple
    assert flow.lookup(c)[4] == "return[1]"
    del b  # dies unconsumed: back to T's caller
    floats = [float(i) + 0.5 for i in range(6)]
    for x in floats:  # more than the table holds: the oldest are forgotten (returned to the caller)
        flow.produce(x, "F", "G", "return")
    assert flow.lookup(floats[-1]) is not None and flow.lookup(floats[0]) is None
    d = np.zeros(10)
    flow.produce((d[:2], d[2:]), "S", MAIN, "return")  # two views of one array: one value
    for part in (d[:2], d[2:]):
        flow.consume_produced(flow.lookup(part), "U", "p", part.nbytes)
    edges = {(e.src, e.dst): (e.bytes, e.count) for e in flow.finish()}
    assert edges == {("A", "B"): (40, 1), ("T", MAIN): (24 + 40, 2), ("F", "G"): (48, 6), ("S", "U"): (80, 2)}


def test_signature_accumulation() -> None:
    acc = SigAcc()
    for v in (np.zeros((2, 3), np.uint8), np.full((4, 3), 7, np.uint8)):
        acc.observe(v, True)
    acc.observe(np.zeros((5, 3), np.uint8), False)  # cheap path: shape only
    assert acc.to_sig() == {"type": "ndarray", "dtype": "uint8", "shape": None,
                            "shapes": [[2, 3], [4, 3], [5, 3]], "min": 0, "max": 7}  # fmt: skip
    acc = SigAcc()
    for v in (1.5, float("nan"), -2.0):
        acc.observe(v, False)
    assert acc.to_sig() == {"type": "float", "min": -2.0, "max": 1.5}
    acc.observe(3, False)
    assert acc.to_sig() == {"type": "mixed", "types": ["float", "int"]}
    acc = SigAcc()
    acc.observe([1, 5, -3], True)
    acc.observe([2, 2, 2, 2], False)
    assert acc.to_sig() == {
        "type": "list",
        "elem": {"type": "int", "min": -3, "max": 5},
        "len": None,
        "lens": [3, 4],
    }
    acc = SigAcc()
    acc.observe((np.int16(4), 2.0), True)
    assert acc.to_sig() == {
        "type": "tuple",
        "items": [
            {"type": "npscalar", "dtype": "int16", "min": 4, "max": 4},
            {"type": "float", "min": 2.0, "max": 2.0},
        ],
    }


def _task(fn) -> Task:
    t = Task(fn.__name__, fn.__qualname__, "t.py", 1, "function")
    t.set_function(fn)
    return t


def _accumulate(a, k):
    acc = 0
    flag = False
    for x in a:
        acc += int(x) * k
        flag = acc > 100
    return acc, flag


def test_local_ranges_partial_and_errors() -> None:
    t = _task(_accumulate)
    a = np.array([3, 255, 250], dtype=np.uint8)
    r = local_ranges(t, [[a, 2]])
    assert r["acc"] == {"kind": "int", "min": 0, "max": 1016, "pytypes": ["int"]}
    assert r["x"] == {"kind": "int", "min": 3, "max": 255, "pytypes": ["uint8"]}
    assert r["flag"] == {"kind": "bool", "min": 0, "max": 1, "pytypes": ["bool"]}
    cut = local_ranges(t, [[a, 2]], cap=4)
    assert cut["acc"]["partial"] is True and cut["acc"]["max"] < 1016
    bad = local_ranges(t, [[a, None]])
    assert "TypeError" in bad["acc"]["error"]


def _halve(a, lo):
    if lo < 0:
        raise ValueError("negative")
    return a // 2 + lo


def test_edge_vectors_cover_extremes_and_drop_failures() -> None:
    from partition.profile.model import FunctionProfile

    t = _task(_halve)
    fp = FunctionProfile(name="_halve", qualname="_halve", file="t.py", line=1, calls=1, params=["a", "lo"],
                         arg_sigs=[{"type": "ndarray", "dtype": "uint8", "shape": [9], "min": 0, "max": 9},
                                   {"type": "int", "min": 0, "max": 3}])  # fmt: skip
    first = [np.arange(9, dtype=np.uint8), 1]
    vecs = edge_vectors(t, fp, first, 2.0)
    assert [decode_value(v.args[1]) for v in vecs] == [0, 3]  # observed min, then max
    ext = decode_value(vecs[0].args[0])
    assert ext.tolist() == [0, 255, 1, 254, 0, 255, 1, 254, 0]  # -1 does not fit uint8
    assert np.array_equal(decode_value(vecs[1].result), decode_value(vecs[1].args[0]) // 2 + 3)
    assert [v.args for v in edge_vectors(t, fp, first, 2.0)] == [v.args for v in vecs]  # seeded
    fp.arg_sigs[1] = {"type": "int", "min": -2, "max": 3}
    assert len(edge_vectors(t, fp, first, 2.0)) == 1  # lo = -2 raises: that vector is dropped
    fp.arg_sigs[0] = {"type": "ndarray", "dtype": "float32", "shape": [9], "min": -1.5, "max": 2.0}
    fp.arg_sigs[1] = {"type": "int", "min": 0, "max": 3}
    vals = decode_value(edge_vectors(t, fp, [np.zeros(9, np.float32), 1], 2.0)[0].args[0])
    assert vals[:4].tolist() == [-1.5, 2.0, 0.0, 0.0] and math.copysign(1, vals[3]) == -1
    assert np.all(np.isfinite(vals))


def _normalise_inplace(x):
    s = 0.0
    for v in x:
        s += v * v
    if s > 0:
        x /= np.sqrt(s)


def test_edge_vectors_read_back_arguments_the_profiled_calls_left_alone() -> None:
    """The profiled calls sat at a fixed point (a unit vector stays itself), so the profile saw
    no argument change; an edge call that changes its argument still expects its new value."""
    from partition.profile.model import FunctionProfile

    t = _task(_normalise_inplace)
    fp = FunctionProfile(name="_normalise_inplace", qualname="_normalise_inplace", file="t.py", line=1, calls=1,
                         params=["x"],
                         arg_sigs=[{"type": "ndarray", "dtype": "float64", "shape": [4], "min": 0.0, "max": 1.0}])  # fmt: skip
    assert fp.mutates == []
    first = [np.array([1.0, 0.0, 0.0, 0.0])]
    vecs = edge_vectors(t, fp, first, 2.0)
    assert any("0" in v.outputs for v in vecs)
    for v in vecs:  # an argument missing from outputs is one the call left as it was
        x = decode_value(v.args[0]).copy()
        _normalise_inplace(x)
        assert np.array_equal(decode_value(v.outputs.get("0", v.args[0])), x)


def test_the_fastest_figures_seen_on_this_machine_are_kept(tmp_path: Path) -> None:
    """A figure measured while other work slows the machine is replaced by the fastest this
    machine was seen at (the measurement kept beside it); a faster one updates the cache."""
    from partition.profile.bench import Figure, best_seen

    cache = tmp_path / "c" / "bench.json"
    first = best_seen({"interp": Figure(100.0, 0.01, 7), "numpy_memory": Figure(1.0, 0.0, 7)}, cache)
    assert first["interp"].ns == 100.0 and first["interp"].measured is None
    loaded = best_seen({"interp": Figure(180.0, 2.0, 40), "numpy_memory": Figure(0.8, 0.0, 7)}, cache)
    assert loaded["interp"].ns == 100.0 and loaded["interp"].measured == 180.0
    assert loaded["interp"].to_json() == {"ns": 100.0, "spread": 2.0, "repeats": 40, "measured": 180.0}
    assert loaded["numpy_memory"].ns == 0.8  # faster: kept, and remembered
    assert json.loads(cache.read_text()) == {"interp": 100.0, "numpy_memory": 0.8}
    cache.write_text("not json")
    assert (
        best_seen({"interp": Figure(150.0, 0.0, 7)}, cache)["interp"].ns == 150.0
    )  # a broken cache is ignored
    assert best_seen({"interp": Figure(150.0, 0.0, 7)}, None)["interp"].ns == 150.0


def test_bench_figures_are_minimums_of_agreeing_repetitions(monkeypatch) -> None:
    """A figure is the fastest repetition once the three fastest agree within STABLE; a slow
    outlier (a loaded machine) does not move it."""
    from partition.profile import bench

    times = iter([1.0, 5.0, 1.01, 3.0, 1.005, 9.0, 1.002, 7.0, 7.0])
    f = bench._stable_min(lambda: next(times), 1_000_000_000)
    assert f.ns == 1.0 and f.repeats == 7 and f.spread == pytest.approx(0.01)  # median 1.01
    wobbly = iter([1.0 + 0.1 * k for k in range(60)])  # the fastest never agree
    g = bench._stable_min(lambda: next(wobbly), 1_000_000_000)
    assert g.repeats == bench.MAX_REPEATS and g.ns == 1.0
    assert bench_ns() > 0


def test_runs_like_python_app_py(tmp_path: Path) -> None:
    """__main__, sys.argv, sys.path[0], the working directory, and no environment of ours."""
    app_dir = tmp_path / "app"
    run_dir = tmp_path / "run"
    app_dir.mkdir()
    run_dir.mkdir()
    (app_dir / "where.py").write_text(
        "import os, sys\n"
        "print(__name__, sys.argv, sys.path[0] == os.path.dirname(__file__))\n"
        "print(os.path.basename(os.getcwd()))\n"
        "print(sorted(k for k in os.environ if k.startswith(('PARTITION_RUNNER', 'PYTHONSAFEPATH'))))\n"
    )
    _, out = profile_quietly(app_dir / "where.py", ["--n", "5"], baseline=False, echo=True, cwd=run_dir)
    assert out.splitlines() == ["__main__ ['../app/where.py', '--n', '5'] True", "run", "[]"]
    assert not list(app_dir.glob("__pycache__"))
