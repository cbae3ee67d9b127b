"""Every function the app defines is in the profile: lambdas bound to names, generators,
coroutines, async generators, decorated functions; the plan says why each stays on the CPU.

tests/apps/kinds.py drives its generators with send/throw/close and `yield from`, and runs
coroutines together on an event loop: its output must be the same profiled as plain.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from partition.boards import load_board
from partition.plan import Options, make_plan
from partition.profile import run_profile
from partition.profile.model import Profile

APP = Path(__file__).resolve().parent / "apps" / "kinds.py"


@pytest.fixture(scope="module")
def profiled() -> tuple[Profile, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        prof = run_profile(APP, [], baseline=False, echo=True)
    return prof, out.getvalue()


def test_the_wrappers_change_nothing_the_app_sees(profiled: tuple[Profile, str]) -> None:
    plain = subprocess.run([sys.executable, str(APP)], capture_output=True, text=True, check=True).stdout
    assert profiled[1] == plain
    assert "returned 2" in plain and "windows [-79, -32, 15] 147" in plain


def test_every_kind_of_function_is_profiled(profiled: tuple[Profile, str]) -> None:
    f = profiled[0].functions
    kinds = {n: (fp.kind, fp.calls) for n, fp in f.items()}
    assert kinds == {
        "main": ("function", 1),
        "square": ("lambda", 401),
        "running_mean": ("generator", 1),
        "windows": ("generator", 2),
        "counted": ("generator", 1),
        "all_windows": ("generator", 1),
        "chunk_energy": ("async", 2),
        "gather_all": ("async", 1),
        "agen": ("async generator", 1),
        "binomial": ("function", 255),  # lru_cache above the profiler's wrapper: misses only
    }
    assert f["windows"].callers == {"all_windows": 1, "main": 1}  # where each generator was made
    assert f["square"].callers == {"chunk_energy": 400, "main": 1}
    # a generator's steps are timed inside whatever resumes it: nested generators nest
    assert f["all_windows"].total_s >= f["counted"].total_s > 0
    assert f["chunk_energy"].total_s >= f["square"].total_s * 400 / 401


def test_the_plan_names_the_reason_each_stays_on_the_cpu(profiled: tuple[Profile, str]) -> None:
    plan = make_plan(profiled[0], APP.parent, load_board("pynq-z2"), Options(pin_fpga=["square", "windows"]))
    why = {t["name"]: t["reason"] for t in plan.data["tasks"]}
    assert "lambda (write it as a def" in why["square"]
    assert "generator function" in why["windows"]
    assert "async def" in why["chunk_energy"]
    assert "async generator" in why["agen"]
    warnings = "\n".join(plan.data["warnings"])
    assert "--pin-fpga square: it cannot become a kernel" in warnings and "lambda" in warnings


def _accumulator():
    total = 0
    while True:
        try:
            x = yield total
        except ValueError:
            yield "reset"
            total = 0
            continue
        total += x


@pytest.mark.parametrize("recording", [True, False])
def test_a_wrapped_generator_keeps_every_protocol_while_recording_or_not(recording: bool) -> None:
    """send/throw pass through whether or not the recorder records at that moment (it pauses
    during every sampled call), and a generator stays a generator (not awaitable)."""
    import inspect

    from partition.profile import recorder, resumable

    recorder.reset(0)
    recorder.register("acc", "acc", "t.py", 1, "generator")
    wrapped = resumable.generator_wrapper(recorder.tasks()["acc"], _accumulator)
    recorder.start()
    try:
        g = wrapped()
        assert next(g) == 0
        if not recording:
            recorder.stop()
        assert (g.send(7), g.send(3), g.throw(ValueError), next(g), g.send(2)) == (7, 10, "reset", 0, 2)
        assert not inspect.isawaitable(g) and g.__name__ == "_accumulator"
        g.close()
    finally:
        recorder.stop()
