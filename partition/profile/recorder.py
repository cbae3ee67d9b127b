"""The timing wrapper around the app's functions, and everything it records.

This module runs inside the profiled process. `wrap(name)` is what the
instrumented source calls (as `__partition_wrap__`) for every function. The
wrapper's common path is kept small, because it runs on every call: two clock
reads around the call, the call site, argument kinds/shapes/ranges and the
data-flow lookups, mostly inlined. The first `nsamples` calls of each
function take the full path instead: copies of the inputs (sample vectors,
in-place modification), value ranges of arrays and list elements, globals read.

Timing. A call's inclusive window `w` is read just before and just after the
real call (minus `_E`, the part of a clock read that falls inside the window).
What the wrapper costs outside that window is charged to nobody: it is
removed from the parent's self time and from every enclosing inclusive time.
That cost is measured on every call (clock reads at wrapper entry and exit:
it depends on the arguments, and on how loaded the machine is), plus a part
no clock read inside the wrapper can see (entering it with packed arguments,
leaving it), calibrated at start-up as `_K0 + _K1 * parameters`. Recursive
calls add their self time but not their inclusive time (the outermost call
counts it).

Call sites (`partition.profile.tasks`). A call costs one dict lookup for its
site; `callers` and `ancestors` come from the sites at the end.
"""

from __future__ import annotations

import functools
import inspect
import threading
import time
import types
import weakref
from typing import Any

import numpy as np

from partition.profile.dataflow import DataFlow, nbytes_fast, root_array
from partition.profile.model import MAIN, FunctionProfile, Sample, encode_value
from partition.profile.signature import SigAcc
from partition.profile.tasks import CallSite, Context, Task
from partition.profile.values import globals_read, is_numeric_value, same_value, snapshot

SAMPLE_LIMIT = 16 * 1024 * 1024  # bytes of encoded sample data per stored sample

_now = time.perf_counter_ns
_ndarray = np.ndarray
_ref = weakref.ref

# ------------------------------------------------------------------ state
# Module globals, read by the wrapper through fast global lookups.

_on = False  # recording enabled (off before/after the run, during replay and our own work)
_stopped = True  # the run is over (or not started): our own work must not turn recording back on
_nsamples = 3
_K0 = 0  # calibrated wrapper cost its own clock reads cannot see (ns)
_K1 = 0  # ... and per parameter (ns)
_E = 0  # calibrated excess inside the timed window (ns)
_flow = DataFlow()
_tls = threading.local()
_tasks: dict[str, Task] = {}
_MAIN_CTX = Context(MAIN, frozenset(), False)
_ROOT_SITE = CallSite(None, None, _MAIN_CTX)
_interned: dict[tuple[str, frozenset[str], bool], Context] = {}
_sites: list[CallSite] = []


def _new_site(pctx: Context, task: Task) -> CallSite:
    rec = task.name in pctx.tasks
    key = (task.name, pctx.tasks | {task.name}, rec)
    ctx = _interned.get(key)
    if ctx is None:
        ctx = _interned[key] = Context(task.name, key[1], rec)
    site = CallSite(task, pctx, ctx)
    pctx.sites[task] = site
    _sites.append(site)
    return site


def _new_stack() -> list[list[Any]]:
    stack: list[list[Any]] = [[_ROOT_SITE, 0, 0]]
    _tls.stack = stack
    return stack


# ------------------------------------------------------------------ tasks


def register(name: str, qualname: str, file: str, line: int, kind: str) -> None:
    if name not in _tasks:
        _tasks[name] = Task(name, qualname, file, line, kind)


# ---------------------------------------------------------------- wrapper


def wrap(name: str) -> Any:
    """The decorator the instrumented source applies to function `name`."""
    task = _tasks[name]

    def deco(fn: types.FunctionType) -> Any:
        if task.fn is None:
            task.set_function(fn)
        from partition.profile import resumable  # (which uses this module)

        if inspect.isgeneratorfunction(fn):
            return resumable.generator_wrapper(task, fn)
        if inspect.iscoroutinefunction(fn):
            return resumable.coroutine_wrapper(task, fn)
        if inspect.isasyncgenfunction(fn):
            return resumable.counting_wrapper(task, fn)
        return _make_wrapper(task, fn)

    return deco


# ------------------------------------- what `partition.profile.resumable` uses of the above

now = _now


def recording() -> bool:
    return _on


def thread_stack() -> list[list[Any]]:
    try:
        return _tls.stack
    except AttributeError:
        return _new_stack()


def new_site(pctx: Context, task: Task) -> CallSite:
    return _new_site(pctx, task)


def close_step(
    task: Task, site: CallSite, parent: list, stack: list, frame: list, start: int, t0: int, ku: int
) -> None:
    """The times of one step of a generator or coroutine that began at `start` (clock read at `t0`)."""
    w = _now() - start - _E
    if stack[-1] is frame:
        stack.pop()
    _close_call(task, site, parent, frame, w, t0, ku)


def _make_wrapper(task: Task, fn: Any) -> Any:
    tname = task.name
    params = task.params
    nparams = task.nparams
    ret = task.ret_acc
    ndarray = _ndarray
    ku = _K0 + _K1 * len(params)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not _on:
            return fn(*args, **kwargs)
        t0 = _now()
        try:
            stack = _tls.stack
        except AttributeError:
            stack = _new_stack()
        parent = stack[-1]
        site = parent[0].sites.get(task)
        if site is None:
            site = _new_site(parent[0].ctx, task)
        site.calls += 1
        n = task.calls
        task.calls = n + 1
        if n < _nsamples:
            sample = _sample_inputs(task, fn, args, kwargs, site)
        else:
            sample = None
            flow = _flow
            others = flow.others
            values = args
            try:
                if kwargs or len(args) != nparams:
                    values = task.bind(args, kwargs)
                # Inlined: SigAcc.observe and DataFlow.lookup for the common kinds of argument;
                # an argument no task produced was made by the caller (counted on the slot).
                for v, p in zip(values, site.slots):
                    tp = type(v)
                    if tp is int:
                        if v < p.ilo:
                            p.ilo = v
                        if v > p.ihi:
                            p.ihi = v
                        if -5 <= v <= 256:
                            p.ns += 1
                            continue
                        rec = others.get(id(v))
                        if rec is None or rec[0] is not v:
                            p.ns += 1
                            continue
                        nb = 8
                    elif tp is float:
                        if v < p.flo:
                            p.flo = v
                        if v > p.fhi:
                            p.fhi = v
                        if v != v:
                            p.fkind = True
                        rec = others.get(id(v))
                        if rec is None or rec[0] is not v:
                            p.ns += 1
                            continue
                        nb = 8
                    elif tp is ndarray:
                        a = p.arrays.get(v.dtype)
                        if a is None:
                            p.observe(v, False)
                        else:
                            a.shapes.add(v.shape)
                        nb = v.nbytes
                        root = v if v.base is None else root_array(v)
                        rec = flow.arrays.get(id(root))
                        if rec is not None and rec[0]() is not root:
                            rec = flow.lookup(v)  # stale entry: forget it
                        if rec is None:
                            p.nbytes += nb
                            p.n += 1
                            continue
                    else:
                        p.observe(v, False)
                        nb = nbytes_fast(v)
                        if not nb:
                            continue
                        rec = flow.lookup(v)
                        if rec is None:
                            if tp is tuple:
                                nb = _consume_tuple(flow, v, nb, tname, p.label)
                            if nb:
                                p.nbytes += nb
                                p.n += 1
                            continue
                    flow.consume_produced(rec, tname, p.label, nb, v)
            except Exception:
                task.errors += 1
        frame = [site, 0, 0]
        stack.append(frame)
        start = _now()
        try:
            res = fn(*args, **kwargs)
        except BaseException:
            w = _now() - start - _E
            if stack[-1] is frame:
                stack.pop()
            _close_call(task, site, parent, frame, w, t0, ku)
            raise
        w = _now() - start - _E
        stack.pop()
        if w < 0:
            w = 0
        task.self_ns += w - frame[1]
        total = w - frame[2]
        if total < 0:  # calibration error must not run up the call chain
            total = 0
        if not site.rec:
            task.total_ns += total
        if sample is not None:
            _sample_outputs(task, site, res, sample)
        else:
            try:
                tp = type(res)
                if res is None:
                    ret.none = True
                elif tp is int:
                    if res < ret.ilo:
                        ret.ilo = res
                    if res > ret.ihi:
                        ret.ihi = res
                    if not -5 <= res <= 256:
                        flow.produce(res, tname, site.caller, "return")
                elif tp is float:
                    if res < ret.flo:
                        ret.flo = res
                    if res > ret.fhi:
                        ret.fhi = res
                    if res != res:
                        ret.fkind = True
                    flow.produce(res, tname, site.caller, "return")
                elif tp is ndarray:  # inlined: SigAcc.observe and DataFlow.produce
                    a = ret.arrays.get(res.dtype)
                    if a is None:
                        ret.observe(res, False)
                    else:
                        a.shapes.add(res.shape)
                    root = res if res.base is None else root_array(res)
                    key = id(root)
                    arrays = flow.arrays
                    old = arrays.get(key)
                    if old is not None and not old[5]:
                        flow.edge(old[1], old[2], old[4], old[3])
                    arrays[key] = [_ref(root), tname, site.caller, res.nbytes, "return", False]
                    if len(arrays) > flow.sweep_at:
                        flow.sweep()
                else:
                    ret.observe(res, False)
                    flow.produce(res, tname, site.caller, "return")
                if task.mutates:
                    for i in task.mutates:
                        flow.produce(values[i], tname, site.caller, params[i] + " (in place)")
            except Exception:
                task.errors += 1
        span = _now() - t0 + ku
        parent[1] += span
        parent[2] += span - total
        return res

    return wrapper


def _consume_tuple(flow: DataFlow, v: tuple, nb: int, dst: str, label: str) -> int:
    """Consume the produced elements of a tuple the caller built (`f((a, b))`); returns the bytes left."""
    for x in v:
        xr = flow.lookup(x)
        if xr is not None:
            xb = nbytes_fast(x)
            nb -= xb
            flow.consume_produced(xr, dst, label, xb, x)
    return nb


# ------------------------------------------------------------ sampled calls


def record_globals(task: Task, fn: Any) -> None:
    """The numeric module globals `fn` reads, encoded (when not over `SAMPLE_LIMIT`), on `task`."""
    g = getattr(fn, "__globals__", None)
    code = getattr(fn, "__code__", None)
    if g is None or code is None:
        return
    task.glob_dict = g
    for name in sorted(globals_read(code)):
        if name.startswith("__partition") or name not in g:
            continue
        v = g[name]
        if is_numeric_value(v) and nbytes_fast(v) * 4 // 3 <= SAMPLE_LIMIT:
            task.glob_values[name] = encode_value(v)


def _consume_full(task: Task, site: CallSite, values: Any) -> None:
    """Signatures with value ranges, and data-flow lookups, for every argument of a sampled call."""
    flow = _flow
    for v, p in zip(values, site.slots):
        p.observe(v, True)
        nb = nbytes_fast(v)
        if not nb:
            continue
        rec = flow.lookup(v)
        if rec is None and type(v) is tuple:
            nb = _consume_tuple(flow, v, nb, task.name, p.label)
        if rec is not None:
            flow.consume_produced(rec, task.name, p.label, nb, v)
        elif nb:
            if type(v) is int or type(v) is float:
                p.ns += 1
            else:
                p.nbytes += nb
                p.n += 1


def _sample_inputs(task: Task, fn: Any, args: tuple, kwargs: dict, site: CallSite) -> tuple[Any, list, Any]:
    """Before a sampled call: full signatures and data-flow lookups of its arguments, copies of
    what it could modify in place, and the encoded arguments (None when over `SAMPLE_LIMIT`)."""
    global _on
    _on = False  # copies and encodings may call the app's own methods: do not record them
    values: Any = args
    snaps: list[Any] = []
    enc_args: list[dict[str, Any]] | None = None
    try:
        values = task.bind(args, kwargs)
        if task.calls == 1:
            record_globals(task, fn)
        _consume_full(task, site, values)
        snaps = [snapshot(v) for v in values]
        in_bytes = sum(nbytes_fast(v) for v in values)
        if in_bytes * 4 // 3 <= SAMPLE_LIMIT:
            enc_args = [encode_value(v) for v in values]
    except Exception:
        task.errors += 1
    finally:
        _on = not _stopped
    return values, snaps, enc_args


def _sample_outputs(task: Task, site: CallSite, res: Any, sample: tuple[Any, list, Any]) -> None:
    """After a sampled call: the return value's full signature, the arguments it modified,
    the data it produced, and the stored sample."""
    global _on
    values, snaps, enc_args = sample
    tname = task.name
    params = task.params
    _on = False
    try:
        task.ret_acc.observe(res, True)
        changed = [i for i, (v, s) in enumerate(zip(values, snaps)) if s is not None and not same_value(v, s)]
        task.mutates.update(changed)
        _flow.produce(res, tname, site.caller, "return")
        for i in sorted(task.mutates):
            if i < len(values):
                _flow.produce(
                    values[i], tname, site.caller, f"{params[i] if i < len(params) else i} (in place)"
                )
        if enc_args is not None:
            out_bytes = nbytes_fast(res) + sum(nbytes_fast(values[i]) for i in changed)
            if (sum(nbytes_fast(v) for v in values) + out_bytes) * 4 // 3 <= SAMPLE_LIMIT:
                task.samples.append(
                    Sample(
                        args=enc_args,
                        result=encode_value(res),
                        outputs={str(i): encode_value(values[i]) for i in changed},
                    )
                )
    except Exception:
        task.errors += 1
    finally:
        _on = not _stopped


def _close_call(task: Task, site: CallSite, parent: list, frame: list, w: int, t0: int, ku: int) -> None:
    """The times of a call that raised (the wrapper does the same inline for one that returned)."""
    w = max(w, 0)
    task.self_ns += w - frame[1]
    total = max(w - frame[2], 0)
    if not site.rec:
        task.total_ns += total
    span = _now() - t0 + ku
    parent[1] += span
    parent[2] += span - total


# ------------------------------------------------------------ run control


def reset(nsamples: int = 3) -> None:
    """Forget everything recorded (tasks, contexts, data flow)."""
    global _flow, _nsamples, _tls
    _tasks.clear()
    _interned.clear()
    _sites.clear()
    _MAIN_CTX.sites.clear()
    _flow = DataFlow()
    _tls = threading.local()
    _nsamples = nsamples


def rebase() -> None:
    """In a forked child: start the counts from zero, so that what the child reports is its own
    work (the signatures observed before the fork stay: ranges only ever widen). A child takes
    no samples: its functions are not kernel candidates, and copying every worker's first calls
    would cost more than the work itself."""
    global _flow, _nsamples
    _nsamples = 0
    for t in _tasks.values():
        t.calls = t.self_ns = t.total_ns = t.errors = 0
        t.samples = []
        t.glob_dict, t.glob_values = None, {}  # (the main process records the globals)
    for site in _sites:
        site.calls = 0
        for slot in site.slots:
            slot.n = slot.nbytes = slot.ns = 0
    _flow = DataFlow()


def start() -> None:
    global _on, _stopped
    _stopped = False
    _on = True


def stop() -> None:
    global _on, _stopped
    _stopped = True
    _on = False


def main_root() -> list[Any]:
    """The calling thread's root frame: [site, time in tasks (ns), overhead (ns)]."""
    try:
        return _tls.stack[0]
    except AttributeError:
        return _new_stack()[0]


def set_costs(k0: int, k1: int, e: int) -> None:
    """The wrapper's calibrated costs in ns (`_K0`, `_K1`, `_E`; see `partition.profile.calibration`)."""
    global _K0, _K1, _E
    _K0, _K1, _E = k0, k1, e


def samples_kept() -> int:
    """How many calls of each function take the full (sampled) path."""
    return _nsamples


# ---------------------------------------------------------------- results


def _encode_safe(v: Any) -> dict[str, Any] | None:
    try:
        return encode_value(v)
    except Exception:
        return None


def collect() -> dict[str, FunctionProfile]:
    """FunctionProfile of every function that ran, by task name (sorted)."""
    stop()
    by_task: dict[str, list[CallSite]] = {}
    for site in _sites:
        assert site.task is not None
        by_task.setdefault(site.task.name, []).append(site)
    out: dict[str, FunctionProfile] = {}
    for name in sorted(_tasks):
        t = _tasks[name]
        if t.calls == 0:
            continue
        callers: dict[str, int] = {}
        ancestors: set[str] = set()
        accs = [SigAcc() for _ in t.params]
        for site in by_task.get(name, []):
            if site.calls:  # (a generator's steps may run at sites that never called it)
                callers[site.caller] = callers.get(site.caller, 0) + site.calls
            assert site.pctx is not None
            ancestors |= site.pctx.tasks
            for acc, slot in zip(accs, site.slots):
                acc.merge(slot)
        ancestors.discard(name)
        changed = []
        if t.glob_dict is not None:
            for g, enc in t.glob_values.items():
                if g not in t.glob_dict or _encode_safe(t.glob_dict[g]) != enc:
                    changed.append(g)
        mutates = sorted(t.mutates)
        for s in t.samples:
            for i in mutates:
                if str(i) not in s.outputs and i < len(s.args):
                    s.outputs[str(i)] = s.args[i]  # unchanged by this call
        out[name] = FunctionProfile(
            name=name,
            qualname=t.qualname,
            file=t.file,
            line=t.line,
            calls=t.calls,
            total_s=max(0, t.total_ns) / 1e9,
            self_s=max(0, t.self_ns) / 1e9,
            params=list(t.params),
            arg_sigs=[a.to_sig() for a in accs],
            return_sig=t.ret_acc.to_sig(),
            mutates=mutates,
            callers=dict(sorted(callers.items())),
            ancestors=sorted(ancestors),
            samples=list(t.samples),
            globals=dict(sorted(t.glob_values.items())),
            globals_changed=sorted(changed),
            kind=t.kind,
        )
    return out


def edges() -> list:
    """The data edges, sorted: produced values (from the data-flow table) and values callers made."""
    for site in _sites:
        assert site.task is not None
        for slot in site.slots:
            nb, count = slot.passed
            if count:
                _flow.edge(site.caller, site.task.name, slot.label, nb, count)
    return _flow.finish()


def tasks() -> dict[str, Task]:
    return _tasks
