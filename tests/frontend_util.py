"""Building a FunctionProfile from direct calls, for frontend tests that bypass the profiler."""

from __future__ import annotations

import copy
import inspect
import sys
from pathlib import Path

import numpy as np

from partition.profile.model import FunctionProfile, Sample, encode_value
from partition.profile.signature import SigAcc


def _sig(values: list) -> dict:
    v0 = values[0]
    if isinstance(v0, np.ndarray):
        shapes = {tuple(v.shape) for v in values}
        sig = {"type": "ndarray", "dtype": "bool" if v0.dtype == np.bool_ else v0.dtype.name}
        if len(shapes) == 1:
            sig["shape"] = list(v0.shape)
        else:
            sig["shape"] = None
            sig["shapes"] = sorted(list(s) for s in shapes)
        if v0.size:
            sig["min"] = min(v.min().item() for v in values)
            sig["max"] = max(v.max().item() for v in values)
        return sig
    if isinstance(v0, (bool, np.bool_)) and not isinstance(v0, np.bool_):
        return {"type": "bool"}
    if isinstance(v0, np.generic):
        return {
            "type": "npscalar",
            "dtype": v0.dtype.name,
            "min": min(values).item(),
            "max": max(values).item(),
        }
    if isinstance(v0, int):
        return {"type": "int", "min": min(values), "max": max(values)}
    if isinstance(v0, float):
        return {"type": "float", "min": min(values), "max": max(values)}
    if isinstance(v0, list):
        lens = {len(v) for v in values}
        items = [x for v in values for x in v]
        return {"type": "list", "elem": _sig(items), "len": len(v0) if len(lens) == 1 else None}
    acc = SigAcc()  # tuples, namedtuples, dataclasses and anything else: as the profiler records them
    for v in values:
        acc.observe(v, True)
    return acc.to_sig()


def _trace_locals(fn, args, ranges: dict) -> None:
    """Local ranges as the profiler records them: an instrumented copy of `fn` (while-loop
    iteration counts included), or a line tracer where no copy can be made."""
    from partition.profile.ranges import _Recorder, instrumented

    rec = _Recorder(10**7)
    copy_fn = instrumented(fn, rec.rec)
    if copy_fn is not None:
        with np.errstate(all="ignore"):
            copy_fn(*args)
        for k, r in rec.result(None).items():
            if r.get("kind") != "int" or "min" not in r:
                continue
            have = ranges.setdefault(k, {"kind": "int", "min": r["min"], "max": r["max"]})
            have["min"], have["max"] = min(have["min"], r["min"]), max(have["max"], r["max"])
        return
    code = fn.__code__

    def tracer(frame, event, arg):
        if frame.f_code is not code:
            return None

        def local(frame, event, arg):
            for k, v in frame.f_locals.items():
                if isinstance(v, (bool, np.bool_)):
                    continue
                if isinstance(v, (int, np.integer)):
                    r = ranges.setdefault(k, {"kind": "int", "min": int(v), "max": int(v)})
                    r["min"] = min(r["min"], int(v))
                    r["max"] = max(r["max"], int(v))
            return local

        return local

    sys.settrace(tracer)
    try:
        with np.errstate(all="ignore"):
            fn(*args)
    finally:
        sys.settrace(None)


def profile_calls(fn, calls: list[tuple], app_dir: Path) -> FunctionProfile:
    file = Path(inspect.getsourcefile(fn)).resolve()
    line = fn.__code__.co_firstlineno
    params = list(inspect.signature(fn).parameters)
    samples = []
    results = []
    for args in calls:
        before = copy.deepcopy(args)
        work = copy.deepcopy(args)
        with np.errstate(all="ignore"):
            res = fn(*work)
        results.append(res)
        outputs = {}
        for i, (a, b) in enumerate(zip(before, work)):
            if isinstance(a, np.ndarray) and not np.array_equal(a, b):
                outputs[str(i)] = encode_value(b)
        samples.append(
            Sample(args=[encode_value(a) for a in before], result=encode_value(res), outputs=outputs)
        )
    ranges: dict = {}
    for args in calls:
        _trace_locals(fn, copy.deepcopy(args), ranges)
    globals_ = {}
    for name in fn.__code__.co_names:
        v = fn.__globals__.get(name)
        if isinstance(v, (np.ndarray, np.generic, int, float, tuple, list)) and not isinstance(v, bool):
            globals_[name] = encode_value(v)
    return FunctionProfile(
        name=fn.__name__,
        qualname=fn.__qualname__,
        file=file.relative_to(app_dir.resolve()).as_posix(),
        line=line,
        calls=len(calls),
        params=params,
        arg_sigs=[_sig([c[i] for c in calls]) for i in range(len(params))],
        return_sig=_sig(results) if results[0] is not None else {"type": "none"},
        samples=samples,
        local_ranges=ranges,
        globals=globals_,
    )


def check_close(fn, calls, app_dir: Path | None = None):
    """Like test_frontend.check, floats within a tolerance: the kernel adds dot products in
    index order, numpy in BLAS order."""
    from test_frontend import run_ir, run_python

    from partition.frontend import Rejected, translate

    app_dir = app_dir or Path(__file__).parent
    fp = profile_calls(fn, calls, app_dir)
    k = translate(fp, app_dir)
    assert not isinstance(k, Rejected), k.reason
    for args in calls:
        want, want_args = run_python(fn, args)
        got, got_args = run_ir(k, args)
        for a, b in zip([got, *got_args], [want, *want_args]):
            if isinstance(b, np.ndarray) and b.dtype.kind == "f":
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
            elif isinstance(b, np.ndarray):
                assert np.array_equal(a, b), fn.__name__
    return k


def case_kernel(cases: dict, name: str, app_dir: Path, calls: int = 2):
    """(kernel, vectors) of `cases[name]` = (function, a maker of its arguments), profiled over
    `calls` calls of fresh arguments; the kernel is named `name`."""
    from partition.frontend import Rejected, translate
    from partition.vectors import kernel_vectors

    fn, make = cases[name]
    fp = profile_calls(fn, [make() for _ in range(calls)], app_dir)
    k = translate(fp, app_dir)
    assert not isinstance(k, Rejected), k.reason
    k.name = name
    return k, kernel_vectors(k, fp)


def variant_csim(tmp_path: Path, kernel, vectors, d, board) -> str:
    """The HLS C++ of `kernel` built as variant `d` (a Directives) on `board`, compiled and run
    in C simulation under tmp_path/<kernel>_<variant> (hls_headers first): every vector must
    pass. Returns the kernel's C++ for further checks."""
    from test_frontend_numpy import _build_and_run

    from partition.codegen import generate_hls

    files = generate_hls(
        kernel, vectors, part=board.part, clock_mhz=100.0, directives=d.to_json(), bus_bits=d.bus(board)
    )
    build, run = _build_and_run(write_files(tmp_path / f"{kernel.name}_{d.name}", files), kernel.name)
    assert build.returncode == 0 and run is not None and run.returncode == 0, (
        kernel.name,
        d.name,
        build.stderr[-2000:],
    )
    return files[f"{kernel.name}.cpp"].decode()


def hls_headers(tmp_path: Path) -> None:
    """partition_ops.h and partition_math.h in tmp_path/include, where generated task folders
    under tmp_path find them ("../include")."""
    import shutil

    from partition.resources import resource_dir

    (tmp_path / "include").mkdir(exist_ok=True)
    for header in ("partition_ops.h", "partition_math.h"):
        shutil.copy(resource_dir("hls") / header, tmp_path / "include" / header)


def write_files(folder: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return folder


def csim_pass(tmp_path: Path, cases: dict) -> None:
    """Each (function, calls) of `cases` translated, its Vitis HLS C++ compiled (UBSan on,
    warnings as errors) and run against Python's results: every vector must pass."""
    from concurrent.futures import ThreadPoolExecutor

    from test_frontend_numpy import _build_and_run

    from partition.codegen import generate_hls
    from partition.frontend import Rejected, translate
    from partition.vectors import kernel_vectors

    app_dir = Path(__file__).parent
    hls_headers(tmp_path)
    for name, (fn, calls) in cases.items():
        fp = profile_calls(fn, calls, app_dir)
        k = translate(fp, app_dir)
        assert not isinstance(k, Rejected), k.reason
        k.name = name
        write_files(
            tmp_path / name, generate_hls(k, kernel_vectors(k, fp), part="xc7z020clg400-1", clock_mhz=100.0)
        )
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(cases, pool.map(lambda t: _build_and_run(tmp_path / t, t), cases)))
    for name, (build, run) in results.items():
        assert build.returncode == 0 and not build.stderr.strip(), (name, build.stderr[-3000:])
        assert run is not None and run.returncode == 0, (name, run.stdout[-3000:])
