"""Timing wrappers for functions that suspend: generators, `async def`, async generators.

A generator's or coroutine's work happens in steps, each time its consumer (a
`for` loop, `next`, the event loop) resumes it, not during the call that creates
it. A call is counted when the object is created; each step is timed as a call
of the function made by whatever code resumes it, so its time leaves the
consumer's own time as any call's does. Waiting (an `await` on I/O or a sleep)
is not a step and is not counted. Values, `send`, `throw`, `close` and the
return value pass through unchanged.

Async generators are counted but not timed (their steps are awaitables of the
event loop's making): they stay on the CPU in any case.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Generator
from typing import Any

from partition.profile import recorder
from partition.profile.tasks import Task


def _count(task: Task) -> None:
    """One call of `task`, at the calling code's site."""
    parent = recorder.thread_stack()[-1]
    site = parent[0].sites.get(task) or recorder.new_site(parent[0].ctx, task)
    site.calls += 1
    task.calls += 1


def _steps(task: Task, it: Any) -> Generator[Any, Any, Any]:
    """Run generator or coroutine `it` to its end, one timed step per resume (PEP 380's
    `yield from`, with a clock around each step while the recorder records)."""
    # the invisible cost of a step (resuming through this frame) is not a call's: nothing is
    # charged for it, rather than a call's calibrated cost, which would be taken off the consumer
    ku = 0
    send: Any = None
    throw: BaseException | None = None
    while True:
        timed = recorder.recording()
        if timed:
            t0 = recorder.now()
            stack = recorder.thread_stack()
            parent = stack[-1]
            site = parent[0].sites.get(task) or recorder.new_site(parent[0].ctx, task)
            frame = [site, 0, 0]
            stack.append(frame)
            start = recorder.now()
        try:
            value = it.throw(throw) if throw is not None else it.send(send)
        except StopIteration as stop:
            if timed:
                recorder.close_step(task, site, parent, stack, frame, start, t0, ku)
            return stop.value
        except BaseException:
            if timed:
                recorder.close_step(task, site, parent, stack, frame, start, t0, ku)
            raise
        if timed:
            recorder.close_step(task, site, parent, stack, frame, start, t0, ku)
        send, throw = None, None
        try:
            send = yield value
        except GeneratorExit:
            it.close()
            raise
        except BaseException as e:  # thrown into the wrapper: into the generator it goes
            throw = e


# the same steps as an awaitable (a generator-based coroutine) for `async def`: made from a copy,
# since types.coroutine marks the function it is given, and `_steps` must stay a plain generator
_awaitable_steps = types.coroutine(
    types.FunctionType(_steps.__code__, _steps.__globals__, "_awaitable_steps", _steps.__defaults__)
)


def generator_wrapper(task: Task, fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        it = fn(*args, **kwargs)
        if not recorder.recording():
            return it
        _count(task)
        steps = _steps(task, it)
        steps.__name__, steps.__qualname__ = it.__name__, it.__qualname__  # (as the app's repr shows)
        return steps

    return wrapper


def coroutine_wrapper(task: Task, fn: Any) -> Any:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        coro = fn(*args, **kwargs)
        if not recorder.recording():
            return await coro
        _count(task)
        return await _awaitable_steps(task, coro)

    return wrapper


def counting_wrapper(task: Task, fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if recorder.recording():
            _count(task)
        return fn(*args, **kwargs)

    return wrapper
