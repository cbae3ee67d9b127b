"""Runtime scenarios over the fake device: run by pytest (tests/test_host_runtime.py) and,
unchanged, by selftest.py under the board-like interpreter (Python 3.10, numpy < 2).

The test kernels and their Python originals are in kernel_models.py. Each `scenario_*`
takes the spec path and asserts.
"""

from __future__ import annotations

import contextlib
import gc
import io
from pathlib import Path
from typing import Any

import numpy as np
from fake_device import decode_register
from kernel_models import (
    DTYPES,
    FUNCTIONS,
    Box,
    Point,
    Rect,
    Vec,
    axpy,
    chain_a,
    chain_b,
    chain_c,
    fill,
    hist_list,
    mix,
    rect_score,
    runtime,
    scale_add,
    scale_k,
    stats2,
)
from partition_runtime import CallError, KernelTimeout, Runtime, SpecError, StreamedResult, load_spec
from partition_runtime.cpu_backend import CpuBackend


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()
    if isinstance(a, float) and a != a:
        return b != b
    return a == b


# ================================================================ scenarios


def scenario_arrays_in_out(spec: Path) -> None:
    rt, be = runtime(spec)
    rng = np.random.default_rng(1)
    x = rng.integers(-1000, 1000, 16).astype(np.int16)
    y = rng.integers(-1000, 1000, 16).astype(np.int16)
    got = rt["scale_add"](x, y)
    want = scale_add(x, y)
    assert type(got) is np.ndarray and _same(got, want), (got, want)
    port = be.ports["scale_add"]
    regs = {r.name: r for r in port.spec.regmap.registers}
    # pointers: low word at the register, high word 4 bytes above, and they name device buffers
    for name in ("x", "y", "out_r"):
        lo, hi = port.regs[regs[name].offset], port.regs[regs[name].offset + 4]
        assert hi == (lo | hi << 32) >> 32 and (lo | hi << 32) in be.device.buffers
        assert hi != 0  # the fake device's addresses are above 4 GiB
    assert port.writes[-1] == (0, 1)  # ap_start last, after every argument
    assert port.starts == 1
    # non-contiguous views are accepted and copied
    x2 = np.repeat(x, 2)[::2]
    assert not x2.flags.c_contiguous
    assert _same(rt["scale_add"](x2, y), want)
    # buffers: one per array argument, reused across calls; inputs flushed, outputs invalidated.
    # `got` is still lent (it is the first call's output buffer), so the later calls take a
    # fourth buffer, which each dropped result gives back (flushed)
    for _ in range(3):
        rt["scale_add"](x, y)
    assert rt.pool.allocated == 4, rt.pool.allocated
    bufs = list(be.device.buffers.values())
    assert sorted(b.flushes for b in bufs) == [1, 5, 6, 6], [b.flushes for b in bufs]  # once when new
    assert sorted(b.invalidates for b in bufs) == [0, 0, 1, 4]
    st = rt.kernel("scale_add").stats
    assert st.calls == 5 and st.fallbacks == 0 and st.total_s > 0 and st.polls >= 5
    assert st.lent == 5 and st.handoffs == 0
    rt.close()
    assert be.closed and sum(not b.freed for b in bufs) == 1  # the buffer `got` still uses
    assert _same(got, want)
    del got
    gc.collect()
    assert all(b.freed for b in bufs)


def scenario_results_stay_in_device_memory(spec: Path) -> None:
    """A kernel's returned array passed to the next kernel goes as its device buffer, no copy."""
    rt, be = runtime(spec)
    f = rt["scale_k"]
    x = np.arange(8, dtype=np.int32) - 3
    a = f(x, 3)
    assert type(a) is np.ndarray and _same(a, scale_k(x, 3))
    buf_a = rt.lent_buffer(a, (8,), np.dtype(np.int32))
    assert buf_a is not None
    b = f(a, 3)  # a is the device buffer already: flushed, its address written, nothing copied
    assert _same(b, scale_k(scale_k(x, 3), 3))
    port = be.ports["scale_k"]
    reg = next(r for r in port.spec.regmap.registers if r.name == "x")
    assert port.regs[reg.offset] | port.regs[reg.offset + 4] << 32 == buf_a.device_address
    a[0] = 100  # the app writes into the lent result: the flush before the next call carries it
    c = f(a, 3)
    assert c[0] == 300 and _same(c, scale_k(a, 3))
    st = rt.kernel("scale_k").stats
    assert (st.calls, st.lent, st.handoffs) == (3, 3, 2)
    assert rt.lent_now == 3 * 32
    del a, b, c
    gc.collect()
    assert rt.lent_now == 0, rt.lent_now
    # x's buffer went back to the pool after the first call and held the second result
    assert rt.pool.allocated == 3, rt.pool.allocated
    rt.close()
    # without room to lend, results are copied out and nothing is handed over
    rt, be = runtime(spec, lend_bytes=0)
    f = rt["scale_k"]
    a = f(x, 3)
    b = f(a, 3)
    assert _same(b, scale_k(scale_k(x, 3), 3))
    st = rt.kernel("scale_k").stats
    assert (st.lent, st.handoffs) == (0, 0) and rt.lent_buffer(a, (8,), np.dtype(np.int32)) is None
    rt.close()


def scenario_lists(spec: Path) -> None:
    """Python lists in, lists (of Python ints or of numpy scalars) out, an in-place list updated in place."""
    rt, _be = runtime(spec)
    xs, grid = [3, -7, 12, 0, 5, 3000], [[1, -2, 3], [4, 5, -6]]
    ref_xs = list(xs)
    inner = grid[0]
    got = rt["hist_list"](xs, grid)
    want = hist_list(ref_xs, [list(r) for r in grid])
    assert xs == ref_xs and all(type(v) is int for v in xs), (xs, ref_xs)
    assert got[0] == want[0] and all(type(v) is int for v in got[0]), (got, want)
    assert [int(v) for v in got[1]] == [int(v) for v in want[1]]
    assert all(type(v) is np.int16 for v in got[1])
    assert grid[0] is inner  # the caller's lists are left as they are
    # a list holding a bool runs on the CPU (reported once)
    rt["hist_list"]([True, 2, 3, 4, 5, 6], grid)
    assert rt.kernel("hist_list").stats.fallbacks == 1
    from partition_runtime import marshal

    p = next(q for q in rt.kernel("hist_list").spec.params if q.name == "xs")
    assert "beyond the kernel's int16" in marshal.list_guard(p)([1, 2, 3, 4, 5, 40000])
    rt.close()


def scenario_inout_tuple_scalars(spec: Path) -> None:
    rt, _ = runtime(spec)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    a_ref = a.copy()
    s = np.uint64(2**64 - 5)
    got = rt["mix"](a, -7, 0.25, True, s)
    want = mix(a_ref, -7, 0.25, True, s)
    assert isinstance(got, tuple) and len(got) == 2
    assert got[0] is a  # the function returned its argument: the caller's own array
    assert _same(a, a_ref), (a, a_ref)
    assert type(got[1]) is int and got[1] == want[1], (got[1], want[1])
    # a 2-D non-contiguous inout argument gets its new contents back in place
    big = np.zeros((3, 8), dtype=np.float32)
    view = big[:, ::2]
    got = rt["mix"](view, 5, -1.5, False, np.uint64(7))
    assert got[0] is view and np.all(big[:, ::2] == -1.5) and np.all(big[:, 1::2] == 0)
    # keyword arguments bind like the function's own
    a3 = np.ones((3, 4), dtype=np.float32)
    got = rt["mix"](a3, f=1.0, flag=False, s=np.uint64(3), n=2)
    assert got[1] == 9 and np.all(a3 == 3.0)
    assert rt.kernel("mix").stats.calls == 3 and rt.kernel("mix").stats.fallbacks == 0
    # several produced arrays and a float return, in the function's order
    m = np.array([[1.0, -2.0, 3.5], [0.5, 4.0, -1.0]])
    got = rt["stats2"](m)
    want = stats2(m)
    assert len(got) == 3 and all(_same(g, w) for g, w in zip(got, want)), (got, want)
    # an out argument (filled by the function, which returns None)
    dst = np.full(8, 9, dtype=np.int32)
    assert rt["fill"](dst, -123456) is None and np.all(dst == -123456)


def scenario_every_dtype(spec: Path) -> None:
    rt, be = runtime(spec)
    for dt in DTYPES:
        npdt = np.dtype(np.bool_) if dt == "bool" else np.dtype(dt)
        if dt == "bool":
            values = [np.bool_(True), np.bool_(False)]
        elif npdt.kind in "iu":
            info = np.iinfo(npdt)
            values = [npdt.type(v) for v in (info.min, info.max, 0, 1, info.max // 3)]
            if npdt.kind == "i":
                values.append(npdt.type(-1))
        else:
            values = [npdt.type(v) for v in (0.0, -0.0, 1.5, -3.25e-3, np.inf, -np.inf, np.nan)]
            values.append(np.finfo(npdt).tiny)
            values.append(np.finfo(npdt).max)
        fn = rt[f"ident_{dt}"]
        port = be.ports[f"ident_{dt}"]
        reg = port.spec.regmap.by_name("v")
        for v in values:
            got = fn(v)
            assert _same(got, v), (dt, v, got)
            # the register holds the value's bits: two's complement / IEEE, low word first
            words = [port.regs.get(reg.offset + 4 * i, 0) for i in range(reg.words)]
            assert _same(decode_register(words, dt), v), (dt, v, words)
            assert reg.words == (2 if npdt.itemsize == 8 else 1)
        assert rt.kernel(f"ident_{dt}").stats.fallbacks == 0
    for task, values in (
        ("ident_pyint", [0, -1, 2**63 - 1, -(2**63), 12345]),
        ("ident_pyfloat", [0.1, -2.5e300, float("inf"), float("nan")]),
        ("ident_pybool", [True, False]),
    ):
        for v in values:
            got = rt[task](v)
            assert _same(got, v), (task, v, got)
        assert rt.kernel(task).stats.fallbacks == 0


def scenario_guards(spec: Path) -> None:
    log = io.StringIO()
    rt, be = runtime(spec, log=log)
    f = rt["scale_add"]
    x = np.arange(16, dtype=np.int16)
    misses = [
        (x.astype(np.int32), x),  # dtype
        (x[:8], x[:8]),  # shape
        (list(range(16)), x),  # not an array
        (np.ma.masked_array(x), x),  # an ndarray subclass
    ]
    for args in misses:
        got = f(*args)
        assert _same(np.asarray(got), scale_add(*args)), args
    st = rt.kernel("scale_add").stats
    assert st.fallbacks == 4 and st.calls == 0 and be.ports["scale_add"].starts == 0
    assert len(st.fallback_reasons) == 4
    text = log.getvalue()
    assert "dtype int32" in text and "shape (8,)" in text
    # reported once per argument position: the same miss again adds no line
    f(x.astype(np.int32), x)
    assert log.getvalue() == text and st.fallbacks == 5
    # scalars: type and range of the register
    a = np.ones((3, 4), dtype=np.float32)
    mixf = rt["mix"]
    for bad in [(40000, 0.5, True), (np.int16(3), 0.5, True), (True, 0.5, True), (3, 1, True), (3, 0.5, 1)]:
        mixf(a.copy(), bad[0], bad[1], bad[2], np.uint64(1))
    mixf(a.copy(), 3, 0.5, True, 1)  # s must be a numpy uint64
    mixf(a.copy(), 3, 0.5, True, np.uint32(1))
    assert rt.kernel("mix").stats.fallbacks == 7 and rt.kernel("mix").stats.calls == 0
    assert any("outside int16" in r for r in rt.kernel("mix").stats.fallback_reasons)
    # an array the kernel writes must be writable and must not overlap another argument
    ro = np.ones((3, 4), dtype=np.float32)
    ro.flags.writeable = False
    with contextlib.suppress(ValueError):  # the CPU function itself refuses, as without the runtime
        mixf(ro, 1, 0.5, True, np.uint64(1))
    assert any("read-only" in r for r in rt.kernel("mix").stats.fallback_reasons)
    # specialised constant: equal value and same Python type only
    sk = rt["scale_k"]
    xi = np.arange(8, dtype=np.int32)
    assert _same(sk(xi, 3), xi * 3)
    assert (
        _same(sk(xi, 4), xi * 4)
        and _same(sk(xi, 3.0), xi * 3.0)
        and _same(sk(xi, np.int32(3)), xi * np.int32(3))
    )
    st = rt.kernel("scale_k").stats
    assert st.calls == 1 and st.fallbacks == 3
    assert any("3 compiled in" in r for r in st.fallback_reasons)
    # a call that does not fit the signature fails exactly like the function
    try:
        rt["fill"](np.zeros(8, dtype=np.int32))
    except TypeError:
        pass
    else:
        raise AssertionError("missing argument accepted")
    # without the CPU function a miss is an error, not a silent wrong answer
    rt2, _ = runtime(spec)
    raw = rt2.kernel("scale_add")
    raw.function = None
    try:
        raw(x.astype(np.int32), x)
    except CallError as e:
        assert "no CPU function" in str(e)
    else:
        raise AssertionError("fallback without a function")


def scenario_overlap(spec: Path) -> None:
    rt, _ = runtime(spec)
    x = np.arange(16, dtype=np.int16)
    assert _same(rt["scale_add"](x, x), scale_add(x, x))  # sharing between inputs is fine
    assert rt.kernel("scale_add").stats.fallbacks == 0
    v = np.arange(8, dtype=np.float64)
    w = v.copy()
    rt["axpy"](v, v, 2.0)  # the kernel writes y, which is also x: the CPU must do it
    axpy(w, w, 2.0)
    assert _same(v, w)
    st = rt.kernel("axpy").stats
    assert st.fallbacks == 1 and any("share memory" in r for r in st.fallback_reasons)
    big = np.arange(16, dtype=np.float64)
    rt["axpy"](big[:8], big[8:], 1.0)  # disjoint halves of one array: accelerated
    assert st.calls == 1 and np.all(big[:8] == np.arange(8) + np.arange(8, 16))


def scenario_nonblocking(spec: Path) -> None:
    rt, be = runtime(spec, latency=5)
    x = np.arange(16, dtype=np.int16)
    y = np.ones(16, dtype=np.int16)
    h = rt["scale_add"].start(x, y)
    port = be.ports["scale_add"]
    assert port.starts == 1 and port.ctrl_reads == 1  # only the idle check at start-up
    looks = 0
    while not h.done():
        looks += 1
        assert looks < 50
    assert looks >= 3
    assert _same(h.wait(), scale_add(x, y))
    assert _same(h.wait(), scale_add(x, y))  # a handle keeps its result
    # a second call on a busy kernel first completes the earlier one
    h1 = rt.start("scale_add", x, y)
    h2 = rt.start("scale_add", y, x)
    assert h1.done()
    assert _same(h2.wait(), scale_add(y, x)) and _same(h1.wait(), scale_add(x, y))
    # a guard miss completes at once on the CPU
    h3 = rt["scale_add"].start(x.astype(np.int64), y)
    assert h3.done() and _same(h3.wait(), scale_add(x.astype(np.int64), y))
    # overlapping two kernels
    a = np.ones((3, 4), dtype=np.float32)
    ha = rt["mix"].start(a, 1, 0.0, False, np.uint64(0))
    hb = rt["scale_add"].start(x, y)
    assert _same(hb.wait(), scale_add(x, y))
    assert ha.wait()[1] == 3 and np.all(a == 2.0)
    assert rt.kernel("scale_add").stats.calls == 4


def scenario_timeout(spec: Path) -> None:
    rt, be = runtime(spec, timeout=0.05)
    be.ports["scale_add"].hang = True
    x = np.arange(16, dtype=np.int16)
    try:
        rt["scale_add"](x, x)
    except KernelTimeout as e:
        msg = str(e)
        assert "scale_add" in msg and "0.05 s" in msg and "CTRL 0x00000000" in msg, msg
        assert e.kernel == "scale_add" and e.ctrl == 0
    else:
        raise AssertionError("no timeout")
    st = rt.kernel("scale_add").stats
    assert st.timeouts == 1 and rt.pool.quarantined == 3
    # the kernel is still busy: the next call says so instead of racing it
    from partition_runtime import KernelBusy

    try:
        rt["scale_add"](x, x)
    except KernelBusy as e:
        assert "timed out" in str(e)
    else:
        raise AssertionError("busy kernel restarted")
    # once it finishes (here: stops hanging), calls work again on fresh buffers
    port = be.ports["scale_add"]
    port.hang = False
    port.running = False
    assert _same(rt["scale_add"](x, x), scale_add(x, x))
    assert rt.pool.allocated == 6


def scenario_check(spec: Path) -> None:
    def wrong_scale_add(x, y):
        out = scale_add(x, y)
        out[3] += 1
        return out

    log = io.StringIO()
    rt, _ = runtime(spec, models={"scale_add": wrong_scale_add}, check=True, log=log)
    x = np.arange(16, dtype=np.int16)
    got = rt["scale_add"](x, x)
    assert _same(got, scale_add(x, x))  # the CPU's answer is used after a mismatch
    st = rt.kernel("scale_add").stats
    assert st.checks == 1 and st.mismatches == 1 and rt.mismatches == 1
    assert "first at (3,)" in st.mismatch_messages[0] and "CHECK MISMATCH" in log.getvalue()

    # inout arguments are compared too, and restored to the CPU's contents
    def wrong_mix(a, n, f, flag, s):
        a += np.float32(1e-3)
        return mix(a, n, f, flag, s)

    rt, _ = runtime(spec, models={"mix": wrong_mix}, check=True)
    a = np.ones((3, 4), dtype=np.float32)
    r = rt["mix"](a, 1, 0.0, False, np.uint64(0))
    assert r[0] is a and np.all(a == 2.0) and rt.mismatches == 1

    # within tolerance is a match
    def close_stats2(m):
        lo, total, hi = stats2(m)
        return lo, total * (1 + 1e-14), hi

    rt, _ = runtime(spec, models={"stats2": close_stats2}, check=True)
    rt["stats2"](np.ones((2, 3)))
    assert rt.mismatches == 0 and rt.kernel("stats2").stats.checks == 1
    # the report names the figures
    text = rt.report()
    assert "stats2" in text and "all match" in text


def scenario_chains(spec: Path) -> None:
    """An AXI-Stream chain of three: the producers run when the last consumer is called."""
    rt, be = runtime(spec)
    a, b, c = rt["chain_a"], rt["chain_b"], rt["chain_c"]
    x = np.arange(8, dtype=np.int32) - 3
    want = chain_c(chain_b(chain_a(x, 3), 5))
    t = a(x, 3)
    assert isinstance(t, StreamedResult) and "streaming into chain_b" in repr(t)
    assert be.ports["chain_a"].starts == 0  # nothing runs yet
    x[0] = 100  # the app may change the input afterwards: the producer took a copy
    got = c(b(t, 5))
    assert _same(got, want), (got, want)
    assert [be.ports[n].starts for n in ("chain_a", "chain_b", "chain_c")] == [1, 1, 1]
    # consumer first, then its producers: every kernel is running before any is waited for
    sa, sb, sc = (rt.kernel(n).stats for n in ("chain_a", "chain_b", "chain_c"))
    assert (sa.calls, sa.streamed, sb.calls, sb.streamed, sc.calls, sc.streamed) == (1, 1, 1, 1, 1, 0)
    assert sa.fallbacks == sb.fallbacks == sc.fallbacks == 0
    assert "chain_a: 1 call(s) streamed their result into chain_b (AXI-Stream chain)" in rt.report()
    assert not be.device.streams.get(("chain_b", "y")) and not be.device.streams.get(("chain_c", "y"))
    for n in ("chain_b", "chain_c"):  # a streamed argument has no register
        assert all(r.name != "y" for r in be.ports[n].spec.regmap.registers)
    # twice more, so buffers are reused
    for k in (1, 2):
        assert _same(c(b(a(x, k), k)), chain_c(chain_b(chain_a(x, k), k)))
    assert [be.ports[n].starts for n in ("chain_a", "chain_b", "chain_c")] == [3, 3, 3]
    # a consumer given a plain array cannot use its kernel (its port is a stream): the CPU runs it
    y = np.arange(8, dtype=np.int32)
    assert _same(c(y), chain_c(y)) and sc.fallbacks == 1
    # a consumer that falls back turns its streamed argument into an array on the CPU
    t = a(x, 2)
    got = b(t, 2.5)  # k must be an int: chain_b runs on the CPU, so chain_a's result is computed there
    assert _same(got, chain_b(chain_a(x, 2), 2.5)) and sa.fallbacks == 1 and sb.fallbacks == 1
    assert any("streamed result was computed here" in r for r in sa.fallback_reasons)
    try:
        c(t)
    except CallError as e:
        assert "used already" in str(e)
    else:
        raise AssertionError("a StreamedResult fed two calls")
    # an unused streamed result gives its buffers back when dropped
    free_before = sum(len(v) for v in rt.pool.free.values())
    t = a(x, 1)
    del t
    gc.collect()
    assert sum(len(v) for v in rt.pool.free.values()) == free_before
    rt.close()
    # --check compares the whole chain with the Python functions
    rt, be = runtime(spec, check=True)
    assert _same(rt["chain_c"](rt["chain_b"](rt["chain_a"](x, 3), 5)), chain_c(chain_b(chain_a(x, 3), 5)))
    assert rt.mismatches == 0 and rt.kernel("chain_c").stats.checks == 1
    rt.close()
    rt, be = runtime(spec, check=True, models={"chain_b": lambda y, k: y + k + 1})
    got = rt["chain_c"](rt["chain_b"](rt["chain_a"](x, 3), 5))
    assert rt.mismatches == 1 and _same(got, chain_c(chain_b(chain_a(x, 3), 5)))
    rt.close()
    # on the CPU backend nothing streams
    rt = Runtime(CpuBackend(), spec, functions=FUNCTIONS, log=io.StringIO())
    got = rt["chain_c"](rt["chain_b"](rt["chain_a"](x, 3), 5))
    assert type(got) is np.ndarray and _same(got, chain_c(chain_b(chain_a(x, 3), 5)))
    assert rt.kernel("chain_b").stats.fallbacks == 0


def scenario_records(spec: Path) -> None:
    """Record arguments: each field the kernel reads goes to its own register; a record of another
    kind, class or length, a field of another type or beyond its register, or a compiled-in field
    with another value runs the call on the CPU."""
    rt, be = runtime(spec)
    f = rt["rect_score"]
    port = be.ports["rect_score"]
    pts = [(1, 2), (-3, 4), (5, -6)]
    args = (Rect(-300, 99, 7, 4), Point(1.5, -0.25), (3, np.uint8(200)), pts)
    got = f(*args)
    assert _same(got, rect_score(*args)), (got, rect_score(*args))
    regs = {
        n: decode_register(port.words(n), d)
        for n, d in (("r_x", "int16"), ("r_w", "int8"), ("size_1", "uint8"))
    }
    assert regs == {"r_x": -300, "r_w": 7, "size_1": 200}, regs
    assert decode_register(port.words("p_y"), "float64") == -0.25
    assert rt.kernel("rect_score").stats.calls == 1 and rt.kernel("rect_score").stats.fallbacks == 0
    # y is not read by the kernel: any value, any type
    got = f(Rect(1, "anything", 2, 4), Point(0.5, 0.5), (3, np.uint8(1)), pts)
    assert got == rect_score(Rect(1, "anything", 2, 4), Point(0.5, 0.5), (3, np.uint8(1)), pts)
    misses = [
        ((Rect(1.0, 0, 2, 4), *args[1:]), "argument r.x is float, the kernel takes a Python int"),
        ((Rect(1, 0, 200, 4), *args[1:]), "argument r.w = 200 is outside int8"),
        ((Rect(1, 0, 2, 5), *args[1:]), "argument r.h = 5; the kernel has 4 compiled in"),
        ((Box(1, 0, 2, 4), *args[1:]), "the kernel takes a Rect dataclass"),
        ((args[0], Vec(1.5, -0.25), *args[2:]), "the kernel takes a Point namedtuple"),
        ((args[0], Point(1, -0.25), *args[2:]), "argument p.x is int, the kernel takes a Python float"),
        ((*args[:2], (3, np.uint8(2), 0), pts), "the kernel takes a tuple of 2"),
        ((*args[:2], [3, np.uint8(2)], pts), "the kernel takes a tuple of 2"),
        ((*args[:2], (3, 2), pts), "argument size.1 is int, the kernel takes a numpy uint8 scalar"),
        ((*args[:2], (4, np.uint8(2)), pts), "argument size.0 = 4; the kernel has 3 compiled in"),
        ((*args[:3], [(1, 2), [3, 4], (5, 6)]), "not a list of tuples of shape (3, 2)"),
        ((*args[:3], [(1, 2), (3, 4), (5, 6), (7, 8)]), "not a list of tuples of shape (3, 2)"),
        ((*args[:3], [(1, 2), (3, 400), (5, 6)]), "holds 400, beyond the kernel's int8"),
    ]
    for call, reason in misses:
        assert _same(f(*call), rect_score(*call)), call
        reasons = rt.kernel("rect_score").stats.fallback_reasons
        assert any(reason in r for r in reasons), (reason, reasons)
    st = rt.kernel("rect_score").stats
    assert st.calls == 2 and st.fallbacks == len(misses) and port.starts == 2
    # the same guards with the cpu backend
    cpu = Runtime(CpuBackend(), spec, functions=FUNCTIONS, log=io.StringIO())
    assert cpu["rect_score"](*args) == rect_score(*args)
    assert cpu["rect_score"](Rect(1, 0, 2, 5), *args[1:]) == rect_score(Rect(1, 0, 2, 5), *args[1:])
    st = cpu.kernel("rect_score").stats
    assert st.calls == 1 and st.fallbacks == 1
    rt.close()


def scenario_cpu_backend(spec: Path) -> None:
    rt = Runtime(CpuBackend(), spec, functions=FUNCTIONS, log=io.StringIO())
    x = np.arange(16, dtype=np.int16)
    assert _same(rt["scale_add"](x, x), scale_add(x, x))
    assert _same(rt["scale_add"](x[:4], x[:4]), scale_add(x[:4], x[:4]))
    st = rt.kernel("scale_add").stats
    assert st.calls == 1 and st.fallbacks == 1
    h = rt["scale_add"].start(x, x)
    assert h.done() and _same(h.wait(), scale_add(x, x))
    rt = Runtime(
        CpuBackend({"scale_add": lambda x, y: scale_add(x, y) + 1}),
        spec,
        functions=FUNCTIONS,
        check=True,
        log=io.StringIO(),
    )
    rt["scale_add"](x, x)
    assert rt.mismatches == 1
    by_name = Runtime("cpu", spec, functions={"fill": fill})
    dst = np.zeros(8, dtype=np.int32)
    by_name["fill"](dst, 4)
    assert np.all(dst == 4)
    try:
        by_name["scale_add"]
    except CallError:
        pass
    else:
        raise AssertionError("unbound task handed out")


def _kernel(spec_data: dict, task: str) -> dict:
    return next(k for k in spec_data["kernels"] if k["task"] == task)


def scenario_spec_errors(spec: Path) -> None:
    import json
    import tempfile

    data = json.loads(Path(spec).read_text())
    with tempfile.TemporaryDirectory() as d:
        bad = Path(d) / "bad.json"
        for mutate, words in (
            (lambda s: s.update(format="partition-host/0"), "format"),
            (lambda s: s["kernels"][0]["params"][0].update(pytype="dict"), "Python type"),
            (lambda s: s["kernels"][0]["regmap"]["registers"].pop(), "no register"),
            (lambda s: s["kernels"][0].pop("vlnv"), "malformed"),
            (lambda s: _kernel(s, "rect_score").pop("structs"), "of no record argument"),
            (lambda s: _kernel(s, "rect_score")["params"][0].update(field="z"), "of no record argument"),
            (
                lambda s: _kernel(s, "rect_score")["params"][5].update(direction="inout"),
                "list of tuples the kernel writes",
            ),
        ):
            d2 = json.loads(json.dumps(data))
            mutate(d2)
            bad.write_text(json.dumps(d2))
            try:
                load_spec(bad)
            except SpecError as e:
                assert words in str(e), (words, str(e))
            else:
                raise AssertionError(f"accepted a spec with a broken {words}")
        try:
            load_spec(Path(d) / "missing.json")
        except SpecError as e:
            assert "partition plan" in str(e)
        else:
            raise AssertionError("missing spec accepted")


SCENARIOS = {
    name[len("scenario_") :]: fn for name, fn in sorted(globals().items()) if name.startswith("scenario_")
}
