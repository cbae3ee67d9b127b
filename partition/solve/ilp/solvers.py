"""Which solvers exist here, and running one on a built model: status, values, objective, bound.

Separate from the formulation: CBC (PuLP's bundle, its log captured for the
bound after a time limit) and HiGHS (through PuLP, with the warm start handed
over by `setSolution`) are driven the same way for every objective, and
`--solver auto` picks among them and CP-SAT (`partition.solve.cpsat`).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass

import pulp

from partition.errors import PartitionError
from partition.solve import cpsat
from partition.solve.ilp.builder import Lp

SOLVERS = ("cbc", "highs", "cpsat")

_VALID_ABS = 1e-3  # a solver's point must meet every row within this (solver units, objective ~1e6)


def _cbc_cmd() -> type | None:
    """PuLP's bundled CBC; a system CBC (COIN_CMD) when the bundle is gone (PuLP >= 4)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cls = getattr(pulp, "PULP_CBC_CMD", None)
        if cls is not None and cls(msg=False).available():
            return cls
        cls = getattr(pulp, "COIN_CMD", None)
        if cls is not None and cls(msg=False).available():
            return cls
    return None


def available_solvers() -> list[str]:
    """Solvers usable here, in preference order."""
    out = []
    if _cbc_cmd() is not None:
        out.append("cbc")
    if pulp.HiGHS(msg=False).available():
        out.append("highs")
    if cpsat.available():
        out.append("cpsat")
    return out


CPSAT_MAX_TASKS = 300  # beyond this CP-SAT found no better schedule than the greedy one in 40 s


def default_solver(objective: str, k: int = 1, tasks: int = 0) -> str:
    """The solver `--solver auto` picks: CP-SAT for one makespan plan where installed, else CBC.

    CP-SAT proves makespan plans the MILP cannot (benchmarks/results/solve.md); on
    graphs of a thousand tasks the MILP's relaxation and list schedule do better.
    """
    if objective == "makespan" and k == 1 and tasks <= CPSAT_MAX_TASKS and "cpsat" in available_solvers():
        return "cpsat"
    return "cbc"


def check_solver(solver: str) -> None:
    avail = available_solvers()
    if solver not in SOLVERS:
        raise PartitionError(
            f"unknown solver {solver!r}; available here: {', '.join(avail) or 'none'} "
            f"(supported: {', '.join(SOLVERS)})"
        )
    if solver not in avail:
        hint = {
            "highs": " (install the `highs` extra: pip install highspy)",
            "cpsat": " (install the `cpsat` extra: pip install ortools)",
        }.get(solver, "")
        raise PartitionError(
            f"solver {solver!r} is not available{hint}; available here: {', '.join(avail) or 'none'}"
        )


@dataclass
class Run:
    status: str  # Optimal, Time limit, Infeasible, Not Solved
    values: dict | None  # variable -> value
    solver_obj_s: float | None
    bound_s: float | None
    slack_s: float = 0.0  # how much the solver's objective may move when its values are rounded


class _HighsWarm(pulp.HiGHS):  # type: ignore[misc,valid-type]
    """PuLP's HiGHS interface, handing the variables' initial values to HiGHS as a start."""

    def callSolver(self, lp):
        import highspy

        if getattr(self, "warm", False):
            sol = highspy.HighsSolution()
            sol.col_value = [float(v.varValue or 0.0) for v in lp.variables()]
            lp.solverModel.setSolution(sol)
        lp.solverModel.run()


def run_solver(lp: Lp, solver: str, time_limit_s: float | None, msg: bool, warm: bool) -> Run:
    """Solve `lp` with `solver` (its variables' initial values as the start when `warm`)."""
    prob = lp.prob
    log = ""
    try:
        if solver == "cbc":
            log = _run_cbc(prob, time_limit_s, msg, warm)
            if prob.status == pulp.LpStatusOptimal and not prob.valid(_VALID_ABS):
                # CBC's preprocessing can return a point its postsolve found infeasible
                # ("possible tolerance issue - try without preprocessing"): do just that
                log = _run_cbc(prob, time_limit_s, msg, False, ["preprocess off"])
        else:
            if not msg:
                _quiet_highs_banner()
            cmd = _HighsWarm(msg=msg, timeLimit=time_limit_s, gapRel=0.0, threads=1)
            cmd.warm = warm
            prob.solve(cmd)
    except pulp.PulpSolverError as exc:
        if time_limit_s is not None:  # CBC stopped by the limit before it wrote a solution
            return Run("Not Solved", None, None, None)
        raise PartitionError(
            f"the {solver} solver failed: {exc}; run again with the solver log shown, or try the other solver"
        ) from exc

    st, sol = prob.status, prob.sol_status
    if st == pulp.LpStatusInfeasible or sol == pulp.LpSolutionInfeasible:
        return Run("Infeasible", None, None, None)
    if st != pulp.LpStatusOptimal or sol not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        return Run("Not Solved", None, None, None)
    values = {v: (v.varValue or 0.0) for v in prob.variables()}
    solver_obj_s = pulp.value(prob.objective) / lp.scale
    slack_s = sum(
        abs(c) * abs(values.get(v, 0.0) - round(values.get(v, 0.0))) for v, c in prob.objective.items()
    )
    slack_s /= lp.scale
    if sol == pulp.LpSolutionOptimal:
        return Run("Optimal", values, solver_obj_s, solver_obj_s, slack_s)
    return Run("Time limit", values, solver_obj_s, _bound(prob, solver, log, lp.scale), slack_s)


def _run_cbc(
    prob: pulp.LpProblem, time_limit_s: float | None, msg: bool, warm: bool, options: list[str] | None = None
) -> str:
    """Run CBC with its log captured (the bound after a time limit is only in the log)."""
    cls = _cbc_cmd()
    assert cls is not None
    fd, log_path = tempfile.mkstemp(prefix="partition-cbc-", suffix=".log")
    os.close(fd)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            cmd = cls(
                msg=False,
                timeLimit=time_limit_s,
                gapRel=0.0,
                threads=1,
                logPath=log_path,
                warmStart=warm,
                options=options or [],
            )
        prob.solve(cmd)
        with open(log_path, encoding="utf-8", errors="replace") as f:
            log = f.read()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(log_path)
    if msg:
        sys.stdout.write(log)
    return log


_highs_banner_done = False


def _quiet_highs_banner() -> None:
    """HiGHS prints a copyright banner on stdout (from C++) the first time a model is made.

    `msg=False` promises a quiet solve, so the first instance is created with
    file descriptor 1 pointed at /dev/null.
    """
    global _highs_banner_done
    if _highs_banner_done:
        return
    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    _highs_banner_done = True


def _bound(prob: pulp.LpProblem, solver: str, log: str, scale: float) -> float | None:
    """Best proven lower bound (seconds) when the solver stopped early."""
    if solver == "highs":
        info = prob.solverModel.getInfo()
        b = info.mip_dual_bound
        return b / scale if math.isfinite(b) else None
    for pat in (r"Lower bound:\s*(-?[0-9.eE+-]+)", r"best possible\s*(-?[0-9.eE+-]+)"):
        found = re.findall(pat, log)
        if found:
            try:
                return float(found[-1]) / scale
            except ValueError:
                continue
    return None
