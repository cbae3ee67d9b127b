"""One FPGA task's accelerated calls: guards, marshalling, the call itself, statistics.

`Runtime(backend, spec_path, functions=...)` (core.py) gives, per FPGA task, a
callable that behaves like the original function (an `AcceleratedKernel`). Each call

1. binds the arguments to the Python parameters and checks the guards
   (marshal.py); a miss runs the original function instead, counted and
   reported once;
2. copies every array argument into a device buffer from a pool (one per
   argument, reused across calls) and flushes it; writes buffer addresses and
   scalars into the argument registers (64-bit values low word first) and
   ap_start. An argument that is an array a kernel returned earlier (the very
   object) already is a device buffer: it is flushed and passed as it is, so
   data going from one kernel to the next stays in DDR;
3. waits for ap_done (the backend's `wait_done`), invalidates the buffers the
   kernel wrote, copies in-place results back into the caller's arrays, reads
   ap_return. A returned numpy array is the kernel's output buffer itself
   (a plain ndarray view of it, "lent" to the app): no copy. The buffer goes
   back to the pool, flushed, when the app drops the array; at most
   `lend_bytes` are lent at a time, beyond that results are copied out;
4. returns what the function would have returned: the same tuple shape, numpy
   scalars or Python int/float/bool as the function produced them, and the
   caller's own array objects where the function returned an argument.

AXI-Stream chains (spec "chains"): a producer kernel streams its returned array
straight into its consumer kernel, so it can only run while the consumer runs.
Calling the producer therefore does steps 1-2 without the register writes (its
inputs are copied into its own buffers at once: the app may change them
afterwards) and returns a `StreamedResult` in place of the array; the plan only
chains where the app's source passes that result to the consumer and nowhere
else (partition.frontend.chains). Calling the consumer with it starts the
consumer, then the producer, and waits for both. A consumer called with
anything else runs on the CPU; a StreamedResult that must become an array (the
consumer falls back to the CPU) is computed by the producer's Python function
from the inputs it captured.

`start(*args)` does steps 1-2 and returns a handle; `handle.wait()` does step 3,
so the CPU can work while the kernel runs. With `check=True` every accelerated
call is also run through the original function on copies of its arguments and
the two results are compared (integers exactly, floats within the spec's
tolerance); a mismatch is recorded and the CPU's result is used.
"""

from __future__ import annotations

import inspect
import re
import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from . import marshal
from .check import CallCheck
from .device import Backend, BufferPool, DeviceBuffer, KernelPort
from .errors import CallError, KernelBusy, KernelTimeout
from .handles import CallHandle, StreamedResult, materialised
from .spec import KernelSpec, Spec
from .stats import KernelStats

_DIGITS = re.compile(r"\d+")


class Host(Protocol):
    """What a kernel uses of the runtime that owns it (`partition_runtime.core.Runtime`)."""

    spec: Spec
    backend: Backend
    pool: BufferPool
    check: bool
    timeout: float

    def say(self, text: str) -> None: ...

    def can_lend(self, buf: DeviceBuffer) -> bool: ...

    def lend(self, buf: DeviceBuffer) -> np.ndarray: ...

    def lent_buffer(self, value: Any, shape: tuple[int, ...], dtype: np.dtype) -> DeviceBuffer | None: ...

    def quarantine(self, bufs: list[DeviceBuffer], borrowed: list[bool]) -> None: ...


FALLBACK_REASON = (
    "the kernel handed the call back (a Python int needed more than 64 bits, or a loop ran past the "
    "bound the kernel was built with)"
)


class AcceleratedKernel:
    """One task: guards, marshalling, the call itself, statistics."""

    def __init__(self, runtime: Host, spec: KernelSpec):
        self.runtime = runtime
        self.spec = spec
        self.stats = KernelStats()
        self.function: Callable | None = None
        self._impl: Callable | None = None
        self._signature: inspect.Signature | None = None
        self._reported: set[Any] = set()
        self._pending: CallHandle | None = None
        self._suspect = False
        self._nparams = len(spec.py_params)
        self._method = spec.method
        self._guards = marshal.kernel_guards(spec)
        streamed_in = {p.position: p for p in spec.params if p.stream and p.origin == "arg"}
        if streamed_in and not runtime.backend.executes_python:  # the argument must be a StreamedResult
            self._guards = [(pos, g) for pos, g in self._guards if pos not in streamed_in]
            self._guards += [(pos, self._chain_guard(p)) for pos, p in sorted(streamed_in.items())]
        self._overlap = marshal.overlap_guard(spec)
        self._lengths = marshal.lengths_guard(spec)
        self._check = CallCheck(spec, self.stats, runtime.spec.float_tolerance, runtime.say)
        self.port: KernelPort = None  # type: ignore[assignment]
        if not runtime.backend.executes_python:
            self._compile_device_path()

    # ------------------------------------------------------------ set-up

    def bind(self, function: Callable) -> None:
        self.function = function
        try:
            self._signature = inspect.signature(function)
        except (TypeError, ValueError):
            self._signature = None
        if self.runtime.backend.executes_python:
            self._impl = self.runtime.backend.implementation(self.spec, function)

    def _compile_device_path(self) -> None:
        k = self.spec
        rm = k.regmap
        self._ctrl = rm.ctrl
        # arrays: (param, low-word offset, argument position or -1, copy in, written by the kernel)
        self._arrays = []
        for p in (q for q in k.arrays if not q.stream):
            reg = rm.by_name(p.name)
            pos = p.position if p.origin == "arg" else -1
            self._arrays.append(
                (p, reg.offset, pos, p.origin == "arg" and p.direction != "out", p.direction != "in")
            )
        # scalars: (argument position, field reader or None, register offsets, encoder)
        self._scalars = []
        for p in k.scalars:
            reg = rm.by_name(p.name)
            offsets = [reg.offset + 4 * i for i in range(reg.words)]
            read = k.structs[k.py_params[p.position]].reader(p.field) if p.field is not None else None
            if p.origin == "dim":  # a run-time length: the leading length of that array argument
                read = _leading_length
            self._scalars.append((p.position, read, offsets, marshal.encoder(p.dtype)))
        self._stream_positions = [p.position for p in k.params if p.stream and p.origin == "arg"]
        # the output scalar a kernel raises when a call leaves what it was built for (a Python int
        # beyond 64 bits, a loop past its bound): the call then runs on the CPU
        status = next((r for r in rm.registers if r.kind == "status"), None)
        self._status_offset = status.offset if status is not None else None
        self._ret_offsets: list[int] = []
        if k.ret_dtype is not None:
            reg = rm.by_name("ap_return")
            self._ret_offsets = [reg.offset + 4 * i for i in range(reg.words)]
            self._ret_decode = marshal.decoder(k.ret_dtype)

    def open_port(self) -> None:
        self.port = self.runtime.backend.port(self.spec)
        self._registers: dict[int, int] = {}  # what each argument register holds (written by us)
        if not self.port.is_idle():
            raise KernelBusy(
                f"kernel {self.spec.name} is busy before its first call (CTRL shows ap_idle=0): another "
                "program is driving it, or it was left running; reload the overlay and try again"
            )

    def _chain_guard(self, p: Any) -> Callable[[Any], str | None]:
        producer = self.spec.stream_from.get(p.name, "?")

        def guard(value: Any) -> str | None:
            if isinstance(value, StreamedResult) and value.kernel.spec.task == producer and not value.used:
                return None
            return f"argument {p.name} did not come streaming from {producer} (AXI-Stream chain)"

        return guard

    # -------------------------------------------------------------- calls

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.start(*args, **kwargs).wait()

    def wait_pending(self) -> None:
        """Finish the call in flight, if any (a kernel runs one call at a time)."""
        if self._pending is not None:
            self._pending.wait()

    def start(self, *args: Any, **kwargs: Any) -> CallHandle:
        t0 = time.perf_counter()
        handle = CallHandle(self)
        if self._method is not None:  # the object's attributes, then the method's arguments
            expanded = self._method.expand(self._signature, args, kwargs)
            if isinstance(expanded, str):
                return self._fallback(handle, args, kwargs, "self", expanded, t0)
            handle._self, call_args = expanded
            handle._orig = (args, kwargs)
        elif kwargs or len(args) != self._nparams:
            bound = self._bind_arguments(args, kwargs)
            if bound is None:
                return self._fallback(
                    handle, args, kwargs, "call-shape", "the call does not match the signature", t0
                )
            call_args = bound
        else:
            call_args = args
        for pos, guard in self._guards:
            reason = guard(call_args[pos])
            if reason is not None:
                return self._fallback(handle, args, kwargs, pos, reason, t0)
        if self._overlap is not None:
            reason = self._overlap(call_args)
            if reason is not None:
                return self._fallback(handle, args, kwargs, "overlap", reason, t0)
        if self._lengths is not None:
            reason = self._lengths(call_args)
            if reason is not None:
                return self._fallback(handle, args, kwargs, "lengths", reason, t0)
        rt = self.runtime
        ref = None
        if rt.check and self._method is not None:
            self._say_once(
                "check", "--check does not compare a method's calls (the object changes); they run unchecked"
            )
        elif rt.check:
            ref = tuple(
                np.array(a, copy=True)
                if isinstance(a, np.ndarray)
                else (a.reference() if isinstance(a, StreamedResult) and self.spec.stream_to is None else a)
                for a in call_args
            )
        if rt.backend.executes_python:
            if self._impl is None:
                raise CallError(
                    f"task {self.spec.task}: no Python function bound; call Runtime.accelerate first"
                )
            result = self._impl(*args, **kwargs) if self._method is not None else self._impl(*call_args)
            t1 = time.perf_counter()
            st = self.stats
            st.calls += 1
            st.total_s += t1 - t0
            if ref is not None:
                result = self._check(self.function, call_args, result, ref)
            return handle._complete(result)
        return self._start_device(handle, call_args, ref, t0)

    def _bind_arguments(self, args: tuple, kwargs: dict) -> tuple | None:
        if self._signature is None:
            return None
        try:
            b = self._signature.bind(*args, **kwargs)
        except TypeError:
            return None
        b.apply_defaults()
        try:
            out = tuple(b.arguments[name] for name in self.spec.py_params)
        except KeyError:
            return None
        return out if len(b.arguments) == self._nparams else None

    def _say_once(self, key: str, text: str) -> None:
        if key not in self._reported:
            self._reported.add(key)
            self.runtime.say(f"{self.spec.task}: {text}")

    def _fallback(
        self, handle: CallHandle, args: tuple, kwargs: dict, key: Any, reason: str, t0: float
    ) -> CallHandle:
        st = self.stats
        st.fallbacks += 1
        st.fallback_reasons[reason] = st.fallback_reasons.get(reason, 0) + 1
        once = (key, _DIGITS.sub("#", reason))  # once per argument and kind of miss
        if once not in self._reported:
            self._reported.add(once)
            self.runtime.say(f"{self.spec.task}: running on the CPU: {reason} (reported once)")
        if self.function is None:
            raise CallError(
                f"task {self.spec.task}: the call cannot use the kernel ({reason}) and no CPU function is bound"
            )
        args = materialised(args)
        kwargs = dict(zip(kwargs, materialised(tuple(kwargs.values()))))
        result = self.function(*args, **kwargs)
        st.fallback_s += time.perf_counter() - t0
        return handle._complete(result)

    def _start_device(self, handle: CallHandle, args: tuple, ref: tuple | None, t0: float) -> CallHandle:
        producer = self.spec.stream_to is not None
        if self._pending is not None and not producer:
            self._pending.wait()  # one call at a time per kernel: finish the earlier one first
        if self._suspect:
            if not self.port.is_idle():
                raise KernelBusy(
                    f"kernel {self.spec.name} is still running the call that timed out; reload the overlay"
                )
            self._suspect = False
        tg = time.perf_counter()
        rt = self.runtime
        pool = rt.pool
        bufs = []
        borrowed = []
        addresses = []
        try:
            for p, _off, pos, copy_in, _written in self._arrays:
                # a producer runs later: it copies even a lent result, which the app may change meanwhile;
                # a kernel that may hand the call back to the CPU must not write into the caller's array
                lend = pos >= 0 and not producer and not (self._status_offset is not None and _written)
                lend = lend and not p.dyn  # a run-time length: copied into the longest buffer
                b = rt.lent_buffer(args[pos], p.shape, p.np) if lend else None
                borrowed.append(b is not None)
                if b is not None:  # a result of an earlier call: already in device memory
                    b.flush()
                    self.stats.handoffs += 1
                else:
                    b = pool.acquire(p.shape, p.np)
                    if copy_in:
                        np.copyto(b.array[: len(args[pos])] if p.dyn else b.array, args[pos])
                        b.flush()
                bufs.append(b)
                addresses.append(int(b.device_address))
        except BaseException:
            pool.release([b for b, lent in zip(bufs, borrowed[: len(bufs)]) if not lent])
            raise
        t1 = time.perf_counter()
        if producer:  # started by the consumer's call (StreamedResult.launch)
            self.stats.in_s += t1 - tg
            self.stats.guard_s += tg - t0
            self.stats.total_s += t1 - t0
            return handle._complete(StreamedResult(self, args, bufs, ref))
        self._write_arguments(args, addresses)
        for pos in self._stream_positions:
            handle._upstream += args[pos].launch()
        t2 = time.perf_counter()
        st = self.stats
        st.guard_s += tg - t0
        st.in_s += t1 - tg
        st.regs_s += t2 - t1
        st.total_s += t2 - t0
        handle._args = args  # also keeps borrowed results alive until the call ends
        handle._bufs = bufs
        handle._borrowed = borrowed
        handle._ref = ref
        handle._t_started = t2
        self._pending = handle
        return handle

    def _write_arguments(self, args: tuple, addresses: list[int]) -> None:
        """Buffer addresses (low word first) and scalars into their registers, then ap_start.

        An argument register keeps its value from call to call (the kernel only reads it), so
        only those whose value changed are written: each MMIO write from Python costs tens of
        microseconds on the board, and a loop calling a kernel on the same buffers with the
        same scalars then pays for ap_start alone."""
        seen = self._registers
        port = self.port

        def write(off: int, value: int) -> None:
            if seen.get(off) != value:
                port.write32(off, value)
                seen[off] = value

        for (_p, off, _pos, _ci, _w), addr in zip(self._arrays, addresses):
            write(off, addr & 0xFFFFFFFF)
            write(off + 4, addr >> 32)
        for pos, read, offsets, enc in self._scalars:
            v = args[pos] if read is None else read(args[pos])
            for off, word in zip(offsets, enc(v)):
                write(off, word)
        port.write32(self._ctrl, 1)  # ap_start

    def _launch_streamed(self, token: StreamedResult) -> list[CallHandle]:
        """Start this producer on a StreamedResult's buffers, then what streams into it."""
        self.wait_pending()
        h = CallHandle(self)
        h._args, h._bufs, h._borrowed = token.args, token.bufs, [False] * len(token.bufs)
        h._token = token
        self._write_arguments(token.args, [int(b.device_address) for b in token.bufs])
        h._t_started = time.perf_counter()
        self._pending = h
        upstream: list[CallHandle] = []
        for pos in self._stream_positions:
            upstream += token.args[pos].launch()
        return [*upstream, h]

    def _finish_streamed(self, h: CallHandle, timeout: float | None) -> None:
        """Wait for a producer of a chain; its result went into the stream. Its buffers stay
        with the handle until the consumer's call ends: if some kernel of the chain hands its
        call back, the chain is computed on the CPU from the inputs they captured."""
        t2 = time.perf_counter()
        limit = self.runtime.timeout if timeout is None else timeout
        try:
            polls = 0 if h._done_seen else self.port.wait_done(limit)
        except KernelTimeout:
            self.stats.timeouts += 1
            self._suspect = True
            self._registers = {}  # the kernel may be reloaded: write every register again
            self._pending = None
            self.runtime.quarantine(h._bufs, h._borrowed)
            h._finished = True
            raise
        h._fell_back = self._status_offset is not None and bool(self.port.read32(self._status_offset))
        h._finished = True
        self._pending = None
        st = self.stats
        st.calls += 1
        st.streamed += 1
        st.polls += polls
        st.wait_s += time.perf_counter() - t2

    def _materialise(self, token: StreamedResult) -> Any:
        """A StreamedResult on the CPU: the Python function on the inputs captured in its buffers."""
        args = list(materialised(token.args))
        for (p, _off, pos, copy_in, _w), b in zip(self._arrays, token.bufs):
            if pos >= 0 and copy_in:
                args[pos] = marshal.as_python(np.array(b.array, copy=True), p.pytype)
        self.runtime.pool.release(token.bufs)
        st = self.stats
        st.fallbacks += 1
        reason = "its consumer ran on the CPU, so the streamed result was computed here"
        st.fallback_reasons[reason] = st.fallback_reasons.get(reason, 0) + 1
        if self.function is None:
            raise CallError(f"task {self.spec.task}: {reason}, but no CPU function is bound")
        return self.function(*args)

    def _recompute(self, token: StreamedResult) -> Any:
        """A launched producer's result on the CPU: its Python function on the inputs its
        buffers captured, with what streamed into it recomputed the same way."""
        args = list(token.args)
        for pos in self._stream_positions:
            up = args[pos]
            args[pos] = up.kernel._recompute(up)
        for (p, _off, pos, copy_in, _w), b in zip(self._arrays, token.bufs):
            if pos >= 0 and copy_in:
                args[pos] = marshal.as_python(np.array(b.array, copy=True), p.pytype)
        st = self.stats
        st.fallbacks += 1
        reason = "a kernel of its chain handed its call back, so the chain ran on the CPU"
        st.fallback_reasons[reason] = st.fallback_reasons.get(reason, 0) + 1
        if self.function is None:
            raise CallError(f"task {self.spec.task}: {reason}, but no CPU function is bound")
        return self.function(*args)

    def _chain_fallback(self, handle: CallHandle, t0: float) -> None:
        """Some kernel of the chain ending in this call handed its call back: the producers'
        results come from their Python functions on the inputs they captured, then this call
        runs on the CPU (a producer's stream carried what its kernel computed, which Python
        would not have)."""
        args = list(handle._args)
        for pos in self._stream_positions:
            up = args[pos]
            args[pos] = up.kernel._recompute(up)
        self._release_chain(handle)
        self.runtime.pool.release([b for b, lent in zip(handle._bufs, handle._borrowed) if not lent])
        handle._bufs, handle._borrowed, self._pending = [], [], None
        self._fallback(handle, tuple(args), {}, "fallback", FALLBACK_REASON, t0)

    def _release_chain(self, handle: CallHandle) -> None:
        for up in handle._upstream:
            self.runtime.pool.release(up._bufs)
            up._bufs = []

    def _finish(self, handle: CallHandle, timeout: float | None) -> None:
        if handle._finished:
            return
        try:
            for up in handle._upstream:
                if not up._finished:
                    up._kernel._finish_streamed(up, timeout)
        except KernelTimeout:
            self._release_chain(handle)
            raise
        t2 = time.perf_counter()
        st = self.stats
        limit = self.runtime.timeout if timeout is None else timeout
        try:
            polls = 0 if handle._done_seen else self.port.wait_done(limit)
        except KernelTimeout as e:
            st.timeouts += 1
            self._suspect = True
            self._registers = {}  # the kernel may be reloaded: write every register again
            self._pending = None
            self.runtime.quarantine(handle._bufs, handle._borrowed)
            handle._finished = True
            handle._error = e
            raise
        t3 = time.perf_counter()
        args = handle._args
        rt = self.runtime
        if any(up._fell_back for up in handle._upstream) or (
            self._status_offset is not None
            and self._stream_positions
            and self.port.read32(self._status_offset)
        ):
            st.polls += polls
            st.wait_s += t3 - t2
            self._chain_fallback(handle, t2)
            return
        self._release_chain(handle)
        if self._status_offset is not None and self.port.read32(self._status_offset):
            rt.pool.release([b for b, lent in zip(handle._bufs, handle._borrowed) if not lent])
            handle._bufs, handle._borrowed, self._pending = [], [], None
            st.polls += polls
            st.wait_s += t3 - t2
            fargs, fkwargs = handle._orig if handle._orig is not None else (args, {})
            self._fallback(handle, fargs, fkwargs, "fallback", FALLBACK_REASON, t2)
            return
        produced: dict[str, np.ndarray] = {}
        keep = list(handle._borrowed)  # buffers that stay out of the pool
        lengths = self._run_time_lengths(args)
        for k, ((p, _off, pos, _ci, written), b) in enumerate(zip(self._arrays, handle._bufs)):
            if not written:
                continue
            b.invalidate()
            if p.dyn:  # the first rows of the longest buffer: the app gets them as their own array
                rows = np.array(b.array[: max(lengths[p.dyn] + p.dyn_offset, 0)], copy=True)
                if pos < 0:
                    produced[p.name] = marshal.as_python(rows, p.pytype)
                else:
                    marshal.copy_into(args[pos], rows)
            elif pos < 0:
                if p.pytype == "ndarray" and rt.can_lend(b):
                    produced[p.name] = rt.lend(b)
                    keep[k] = True
                    st.lent += 1
                else:
                    produced[p.name] = marshal.as_python(np.array(b.array, copy=True), p.pytype)
            elif not handle._borrowed[k]:  # a borrowed buffer is the caller's array itself
                marshal.copy_into(args[pos], b.array)
        ret = None
        if self._ret_offsets:
            read = self.port.read32
            ret = self._ret_decode([read(off) for off in self._ret_offsets])
        t4 = time.perf_counter()
        rt.pool.release([b for b, kept in zip(handle._bufs, keep) if not kept])
        handle._bufs = []
        handle._borrowed = []
        self._pending = None
        result = self._assemble(args, produced, ret)
        if self._method is not None:
            result = self._method.finish(handle._self, result)
        st.calls += 1
        st.polls += polls
        st.wait_s += t3 - t2
        st.out_s += t4 - t3
        t4 = time.perf_counter()
        st.total_s += t4 - t2
        if handle._ref is not None:
            result = self._check(self.function, args, result, handle._ref)
        handle._complete(result)

    def _run_time_lengths(self, args: tuple) -> dict[str, int]:
        """The run-time length registers' values for this call's arguments."""
        return {p.name: _leading_length(args[p.position]) for p in self.spec.scalars if p.origin == "dim"}

    def _assemble(self, args: tuple, produced: dict[str, np.ndarray], ret: Any) -> Any:
        k = self.spec
        items = []
        for kind, what in k.returns:
            if kind == "scalar":
                items.append(marshal.to_pytype(ret, k.ret_pytype or "int", k.ret_dtype or "int64"))
            else:
                p = next(q for q in k.params if q.name == what)
                items.append(args[p.position] if p.origin == "arg" else produced[p.name])
        if k.return_tuple:
            return tuple(items)
        return items[0] if items else None


def _leading_length(value: Any) -> int:
    """The leading length of an array argument (a run-time length register's value)."""
    return int(value.shape[0])
