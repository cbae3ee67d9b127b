"""Independent long jobs on Dask distributed: a LocalCluster by default, or a running scheduler.

Tool runs (`partition measure`: Verilator, yosys) and the solves of `partition plan --sweep` /
`--board all` are independent of each other. They go to Dask (`dask.distributed`), never to a
home-made queue: by default a LocalCluster of one single-threaded worker process per core of
this machine; with a scheduler address ("tcp://host:8786"), the workers a user started
elsewhere (dask-jobqueue on Slurm or PBS, dask-kubernetes), which need partition (and for
measurements the tools) installed. The scheduler reruns a task whose worker died, up to its
allowed failures.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from partition.errors import PartitionError
from partition.procs import end_descendants

CONNECT_TIMEOUT_S = 10


@contextlib.contextmanager
def client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A Dask client: on `scheduler` (an address), or on a new LocalCluster of `workers`
    single-threaded processes (default: this machine's cores)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise PartitionError(
            "partition measure runs its jobs on Dask distributed, which is not installed: "
            "pip install 'distributed>=2024.1' (make setup installs it)"
        ) from None
    if scheduler:
        try:
            c = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as e:
            raise PartitionError(
                f"--scheduler {scheduler}: cannot reach a Dask scheduler there ({type(e).__name__}: {e}); "
                "start one (dask scheduler, or dask-jobqueue's cluster) or leave --scheduler out for a "
                "LocalCluster"
            ) from None
        try:
            yield c
        finally:
            c.close()
        return
    n = workers or os.cpu_count() or 1
    with _sigint_ignored():  # (the workers inherit it)
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0")
    with cluster, Client(cluster) as c:
        try:
            yield c
        except BaseException as e:
            if not isinstance(e, Exception):  # Ctrl-C, SIGTERM: the workers end now, not gracefully
                logging.getLogger("distributed").setLevel(logging.CRITICAL)
                end_descendants(at_once=True)
            raise


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Start worker processes with Ctrl-C ignored: it reaches the whole foreground process group,
    and workers dying of it print their tracebacks; partition alone handles it and ends them."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def map_tasks(
    fn: Callable[[Any], Any],
    items: Sequence[Any],
    *,
    keys: Sequence[str],
    scheduler: str | None = None,
    workers: int | None = None,
    done: Callable[[int, Any, int], None] | None = None,
) -> list[Any]:
    """`fn(item)` of every item, in order, on Dask (or here, one after another, with `workers=1`
    or a single item, and no scheduler). `keys` name the tasks (unique). `done(i, result, running)` sees each
    result as it arrives; a task that raised (a bug, or a worker lost more often than Dask
    allows) gives its exception object as its result."""
    out: list[Any] = [None] * len(items)
    if scheduler is None and (workers == 1 or len(items) <= 1):
        for i, item in enumerate(items):
            try:
                out[i] = fn(item)
            except Exception as e:  # reported to the caller as this task's result
                out[i] = e
            if done is not None:
                done(i, out[i], 0)
        return out
    from distributed import as_completed

    with client(scheduler, workers) as c:
        futures = {
            c.submit(fn, item, key=key, pure=False): i for i, (item, key) in enumerate(zip(items, keys))
        }
        slots = max(1, sum(c.nthreads().values()))
        left = len(futures)
        for fut in as_completed(list(futures)):
            i = futures[fut]
            left -= 1
            try:
                out[i] = fut.result()
            except Exception as e:  # a worker lost too often, or a bug: the caller reports it
                out[i] = e
            if done is not None:
                done(i, out[i], min(slots, left))  # the others wait for a worker
    return out
