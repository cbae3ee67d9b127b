"""Calibration of the recorder's timing wrapper: what a wrapped call costs that the wrapper's
own clock reads cannot see (`_K0 + _K1 * parameters`) and the part of a clock read that falls
inside the timed window (`_E`), measured at start-up on this machine (see the recorder's
"Timing"). Separate from the recorder: it only drives it, through its public functions.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from partition.profile import recorder

_now = time.perf_counter_ns


def _noop0() -> None:
    return None


def _noop3(a: Any, b: Any, c: Any) -> Any:
    return a


def _measure(fn: Any, args: tuple, n: int) -> tuple[float, float, float, float]:
    """Per call: (bare cost, wrapped cost, recorded span, recorded window) of `fn(*args)`."""
    recorder.reset(0)
    recorder.register("calibrate", "calibrate", "", 0, "function")
    w = recorder.wrap("calibrate")(fn)
    rng = range(n)
    recorder.start()
    root = recorder.main_root()
    t = _now()
    for _ in rng:
        pass
    t_empty = _now() - t
    t = _now()
    for _ in rng:
        fn(*args)
    t_bare = _now() - t
    t = _now()
    for _ in rng:
        w(*args)
    t_wrapped = _now() - t
    recorder.stop()
    span, window = root[1] / n, (root[1] - root[2]) / n
    return (t_bare - t_empty) / n, (t_wrapped - t_empty) / n, span, window


def calibrate(n: int = 500, reps: int = 25) -> dict[str, int]:
    """Measure the wrapper's cost that its own clock reads cannot see; sets the recorder's `_K0`, `_K1`, `_E`.

    With the constants at zero, a wrapped call's recorded window minus the bare
    call gives `_E`, and the wrapped call's cost minus its recorded span the
    unseen cost (from functions of 0 and 3 parameters). Each is the median over
    `reps` short repetitions, so that other processes interrupting a few of
    them on a busy machine do not skew it.
    """
    recorder.set_costs(0, 0, 0)
    arr = np.zeros(4, dtype=np.int32)
    saved = recorder.samples_kept()
    m0 = [_measure(_noop0, (), n) for _ in range(reps)]
    m3 = [_measure(_noop3, (1000, 2.5, arr), n) for _ in range(reps)]
    recorder.reset(saved)

    def med(xs: list[float]) -> float:
        return sorted(xs)[len(xs) // 2]

    e = med([m[3] - m[0] for m in m0 + m3])
    k0 = med([m[1] - m[2] for m in m0])
    k3 = med([m[1] - m[2] for m in m3])
    k0_ns, k1_ns, e_ns = max(0, round(k0)), max(0, round((k3 - k0) / 3)), max(0, round(e))
    recorder.set_costs(k0_ns, k1_ns, e_ns)
    return {"k0_ns": k0_ns, "k1_ns": k1_ns, "e_ns": e_ns}
