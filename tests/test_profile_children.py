"""Work an app does in child processes: forked workers are profiled, the rest is measured and said.

tests/apps/workers.py computes checksums in a multiprocessing Pool, a
ProcessPoolExecutor and two bare forks; tests/apps/spawned.py uses spawned
workers, which run a fresh interpreter the profiler cannot follow.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
from pathlib import Path

import pytest

from partition.boards import load_board
from partition.errors import PartitionError
from partition.plan import Options, make_plan
from partition.profile import run_profile
from partition.profile.model import Profile

APPS = Path(__file__).resolve().parent / "apps"


def _profile(app: str) -> Profile:
    with contextlib.redirect_stdout(io.StringIO()):
        return run_profile(APPS / app, [], baseline=False)


@pytest.fixture(scope="module")
def workers() -> Profile:
    return _profile("workers.py")


def test_forked_workers_are_profiled_apart_from_the_main_process(workers: Profile) -> None:
    c = workers.children
    assert c is not None and c["forked"] == 8 and c["reported"] == 8  # 2 + 2 + 2 workers, 2 forks
    job, adler = workers.functions["checksum_job"], workers.functions["adler32"]
    assert (job.calls, job.child_calls) == (0, 14)  # 6 + 4 + 2 pool jobs, 2 forked children
    assert (adler.calls, adler.child_calls) == (0, 14)
    assert job.callers == {"main": 12, "in_child": 2} and not job.samples and not job.globals
    assert adler.child_s > 0 and job.child_s >= adler.child_s
    assert workers.functions["main"].calls == 1 and workers.functions["main"].child_calls == 0
    assert job.arg_sigs[0]["type"] == "int"
    again = Profile.from_json(workers.to_json())
    assert again.children == c and again.functions["adler32"].child_calls == 14


def test_the_plan_keeps_worker_functions_on_the_cpu_and_says_why(workers: Profile) -> None:
    plan = make_plan(workers, APPS, load_board("pynq-z2"), Options(pin_fpga=["adler32"]))
    tasks = {t["name"]: t for t in plan.data["tasks"]}
    assert tasks["adler32"]["placement"] == "cpu"
    assert "runs in child processes (14 call(s)" in tasks["adler32"]["reason"]
    warnings = "\n".join(plan.data["warnings"])
    assert "--pin-fpga adler32: it cannot become a kernel" in warnings
    assert "8 forked child process(es)" in warnings and "adler32 (14 call(s)" in warnings
    assert "wrote no profile" not in warnings


def test_children_the_profiler_cannot_follow_are_measured_and_said() -> None:
    prof = _profile("spawned.py")
    c = prof.children
    assert c is not None and c["forked"] == 0 and c["reported"] == 0 and c["cpu_s"] > 0.01
    assert "busy" not in prof.functions
    plan = make_plan(prof, APPS, load_board("pynq-z2"), Options())
    (line,) = plan.data["warnings"]
    assert "of CPU time ran in child processes" in line and "spawn or forkserver" in line


@pytest.mark.parametrize(
    "bad", [[], {"forked": -1, "reported": 0, "cpu_s": 0, "profiled_s": 0}, {"forked": 1}]
)
def test_a_malformed_children_record_is_a_clear_error(workers: Profile, bad) -> None:
    data = workers.to_json()
    data["children"] = bad
    with pytest.raises(PartitionError, match="malformed profile"):
        Profile.from_json(data)


def test_a_sigterm_during_the_childs_write_waits_for_it(tmp_path: Path) -> None:
    """Pool.terminate can signal a worker that is already ending on its own and writing its
    record; the handler, due at the next bytecode inside the write, must let it finish."""
    from partition.profile import children, recorder

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            children._dir = tmp_path
            children._after_fork_in_child()

            def collect_with_a_signal_due() -> dict:
                signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)  # as Python runs it
                return {}

            recorder.collect = collect_with_a_signal_due
            os._exit(0)  # the wrapped exit: writes the record
        finally:
            os.kill(os.getpid(), signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
    (record,) = tmp_path.glob("child-*.json")
    assert json.loads(record.read_text())["pid"] == pid
