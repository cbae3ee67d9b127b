"""Measurement jobs on the executor (`partition.executor`: Dask distributed), with a cache.

Tool runs take seconds (yosys, Verilator) to hours (Vivado); a sweep of every variant of
every kernel is many of them, independent. A job is submitted under its content hash: a
result found in the cache folder is not submitted at all, and only records whose tools all
passed are cached (a failure is worth retrying after a fix).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from partition.errors import PartitionError
from partition.executor import map_tasks
from partition.measure.jobs import Job, passed, run_job


def default_cache() -> Path:
    """$PARTITION_MEASURE_CACHE, or partition/measure under the user's cache folder."""
    env = os.environ.get("PARTITION_MEASURE_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "partition" / "measure"


def check_cache(folder: Path) -> Path:
    """`folder` made if missing, and writable; else a PartitionError saying so."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise PartitionError(
            f"--cache {folder}: not a writable folder ({e.strerror or e}); give another with --cache DIR"
        ) from None
    return folder


def _cached(cache: Path | None, key: str) -> dict[str, Any] | None:
    if cache is None:
        return None
    try:
        data = json.loads((cache / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("key") == key else None


def _store(cache: Path | None, record: dict[str, Any]) -> None:
    if cache is None or not passed(record):
        return
    path = cache / f"{record['key']}.json"
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        tmp.write_text(json.dumps(record, sort_keys=True) + "\n")
        os.replace(tmp, path)


class Progress:
    """One line per finished job: done / running / failed, elapsed, an estimate of what is left."""

    def __init__(self, total: int, cached: int, out: TextIO | None):
        self.total, self.done, self.failed = total, cached, 0
        self.t0 = time.monotonic()
        self.out = out
        self.fresh = 0  # jobs run (not cache hits): the rate of what is left

    def update(self, job: Job, record: dict[str, Any], running: int) -> None:
        self.done += 1
        self.fresh += 1
        ok = passed(record)
        self.failed += not ok
        if self.out is None:
            return
        elapsed = time.monotonic() - self.t0
        left = (self.total - self.done) * elapsed / self.fresh
        print(
            f"measure [{self.done}/{self.total}] {job.kernel} {job.variant}: {'pass' if ok else 'FAIL'} "
            f"({running} running, {self.failed} failed, {_t(elapsed)} elapsed, ~{_t(left)} left)",
            file=self.out,
            flush=True,
        )


def _t(s: float) -> str:
    return f"{int(s // 60)}m{int(s % 60):02d}s" if s >= 60 else f"{s:.0f}s"


def _failed(job: Job, e: BaseException) -> dict[str, Any]:
    return {"kernel": job.kernel, "variant": job.variant, "key": job.key, "error": f"{type(e).__name__}: {e}"}


def run_jobs(
    jobs: Sequence[Job],
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    cache: Path | None = None,
    progress: TextIO | None = sys.stderr,
    fn: Callable[[Job], dict[str, Any]] = run_job,
) -> tuple[list[dict[str, Any]], int]:
    """Every job's record, in the order of `jobs`, and how many came from the cache.

    With `workers=1` and no scheduler the jobs run here, one after another (no cluster).
    `fn` runs one job (`run_job`; the tests give one that kills its worker). A job that
    raises (a bug, or a worker lost more often than Dask allows) gets an "error" record."""
    records: list[dict[str, Any] | None] = [_cached(cache, j.key) for j in jobs]
    hits = sum(r is not None for r in records)
    todo = [i for i, r in enumerate(records) if r is None]
    bar = Progress(len(jobs), hits, progress)

    def done(k: int, result: Any, running: int) -> None:
        i = todo[k]
        record = _failed(jobs[i], result) if isinstance(result, BaseException) else result
        records[i] = record
        _store(cache, record)
        bar.update(jobs[i], record, running)

    if todo:
        map_tasks(
            fn,
            [jobs[i] for i in todo],
            keys=[f"measure-{jobs[i].key}" for i in todo],
            scheduler=scheduler,
            workers=workers,
            done=done,
        )
    return [r for r in records if r is not None], hits
