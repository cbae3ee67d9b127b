"""Why a partitioning problem has no solution, in words a user can act on.

Every task that is not pinned can always go back to the CPU, and that never
breaks a budget or an exclusive pair (resources are non-negative). So the
smallest assignment worth checking is "pinned tasks on the FPGA, everything
else on the CPU", and a problem is infeasible exactly when that assignment is:

* a task pinned to the FPGA has no FPGA implementation;
* both tasks of an exclusive pair (a caller and a function it calls, which is
  inlined into the caller's kernel) are pinned to the FPGA;
* the tasks pinned to the FPGA need more of a resource than its budget, even
  each with its smallest variant for that resource (a negative budget — the
  static shell alone above the cap — is the case with no pinned task at all);
* each resource alone fits, but no combination of the pinned tasks' variants
  fits every budget at once.

With variants a task pinned to the FPGA may use any of them, so the first
three reasons use each task's smallest variant per resource, and the last one
is checked by trying the combinations (up to `_MAX_COMBOS`).

`explain_infeasible` names each of these. `no_kernel_fits` covers a feasible
but disappointing case: some tasks could run on the FPGA, yet none fits the
budget even alone with any of its variants, so the plan is all-CPU for a
reason the user can fix.

The budget in a Problem is already "device amount x cap - shell". Callers that
know the device amounts and the cap pass them (`available`, `max_util`, a
fraction such as 0.8) so the message can say where the budget comes from.
"""

from __future__ import annotations

import itertools
import math

from partition.boards import RESOURCES
from partition.solve.model import FEAS_ABS, Problem, TaskCost, Variant

_UNIT = {"lut": "LUT", "ff": "FF", "dsp": "DSP", "bram18": "BRAM18"}
_MAX_COMBOS = 100_000  # variant combinations of the pinned tasks tried by the last check


def _unit(resource: str) -> str:
    return _UNIT.get(resource, resource.upper())


def _num(v: float) -> str:
    """61200.0 -> '61,200'; 42560.000000000004 -> '42,560'; 12.5 -> '12.5'."""
    if abs(v - round(v)) < 1e-6 * max(1.0, abs(v)):
        return f"{round(v):,}"
    return f"{v:,.2f}".rstrip("0").rstrip(".")


def _amount(v: float, resource: str) -> str:
    return f"{_num(v)} {_unit(resource)}"


def _origin(
    problem: Problem, resource: str, available: dict[str, float] | None, max_util: float | None
) -> str:
    """' (80 % of 53,200)', with the static shell when the budget is below that; '' without context."""
    if not available or resource not in available or max_util is None:
        return ""
    capped = max_util * available[resource]
    text = f"{_num(max_util * 100)} % of {_num(available[resource])}"
    shell = capped - problem.budget[resource]
    tol = 1e-6 * max(1.0, abs(capped))
    if shell < -tol:  # budget above the cap: it does not come from these figures
        return ""
    if shell > tol:
        text += f" minus {_num(shell)} for the static shell"
    return f" ({text})"


def _budget_text(
    problem: Problem, resource: str, available: dict[str, float] | None, max_util: float | None
) -> str:
    return f"the budget is {_amount(problem.budget[resource], resource)}" + _origin(
        problem, resource, available, max_util
    )


def _names(tasks: list[TaskCost]) -> str:
    return ", ".join(t.name for t in tasks)


def _resource_order(problem: Problem) -> list[str]:
    return [r for r in RESOURCES if r in problem.budget] + sorted(
        r for r in problem.budget if r not in RESOURCES
    )


def infeasibility_reasons(
    problem: Problem, *, available: dict[str, float] | None = None, max_util: float | None = None
) -> list[str]:
    """Each reason the problem has no feasible assignment (empty when it has one)."""
    reasons: list[str] = []
    pinned = [t for t in problem.tasks if t.pin == "fpga"]
    for t in pinned:
        if not t.options():
            reasons.append(
                f"task {t.name} is pinned to the FPGA but has no FPGA implementation "
                "(it is outside the translatable subset); unpin it"
            )
    pinned_names = {t.name for t in pinned}
    seen: set[frozenset[str]] = set()
    for a, b in problem.exclusive:
        key = frozenset((a, b))
        if a in pinned_names and b in pinned_names and key not in seen:
            seen.add(key)
            if a == b:
                reasons.append(f"task {a} is pinned to the FPGA but may not be an FPGA kernel of its own")
            else:
                reasons.append(
                    f"tasks {a} and {b} are both pinned to the FPGA, but one calls the other and is "
                    "inlined into its kernel, so they cannot both be kernels; unpin one of them"
                )
    pinned = [t for t in pinned if t.options()]
    over_any = False
    for r in _resource_order(problem):
        cap = problem.budget[r]
        used = 0.0
        users = []
        for t in pinned:
            v = min(o.resources.get(r, 0.0) for o in t.options())
            used += v
            if v > 0:
                users.append(t)
        if used <= cap + FEAS_ABS:
            continue
        over_any = True
        if cap < 0 and not users:
            reasons.append(
                f"the {_unit(r)} budget is negative ({_amount(cap, r)}): the static shell alone "
                f"uses more than the utilisation cap allows; raise --max-util"
            )
            continue
        who = (
            "the task pinned to the FPGA ({}) needs"
            if len(users) == 1
            else "tasks pinned to the FPGA ({}) need"
        )
        several = any(len(t.options()) > 1 for t in users)
        reasons.append(
            f"{who.format(_names(users))} {_amount(used, r)}"
            + (" even with the smallest variants" if several else "")
            + f"; {_budget_text(problem, r, available, max_util)}; unpin some or raise --max-util"
        )
    if not over_any and not reasons and pinned and not _some_combination_fits(problem, pinned):
        reasons.append(
            f"every resource fits on its own, but no combination of the variants of the tasks pinned "
            f"to the FPGA ({_names(pinned)}) fits all budgets at once; unpin some or raise --max-util"
        )
    return reasons


def _some_combination_fits(problem: Problem, pinned: list[TaskCost]) -> bool:
    """Whether some choice of one variant per pinned task meets every budget (True when too many to try)."""
    options = [t.options() for t in pinned]
    if math.prod(len(o) for o in options) > _MAX_COMBOS:
        return True
    for combo in itertools.product(*options):
        if all(
            sum(v.resources.get(r, 0.0) for v in combo) <= cap + FEAS_ABS for r, cap in problem.budget.items()
        ):
            return True
    return False


def explain_infeasible(
    problem: Problem, *, available: dict[str, float] | None = None, max_util: float | None = None
) -> str:
    """One message naming every resource and task that makes `problem` infeasible.

    Each reason says what to do; callers put their own lead-in before it.
    Raises ValueError when the problem is feasible (there is nothing to explain).
    """
    reasons = infeasibility_reasons(problem, available=available, max_util=max_util)
    if not reasons:
        raise ValueError("the problem is feasible (all-CPU apart from the pins satisfies every constraint)")
    return "; also ".join(reasons)


def no_kernel_fits(
    problem: Problem, *, available: dict[str, float] | None = None, max_util: float | None = None
) -> str | None:
    """A message when some task could use the FPGA but none fits the budget on its own.

    A task fits if any of its variants fits. For each task it names the first
    resource (LUT, FF, DSP, BRAM18, then others) that its smallest variant
    exceeds, e.g. "fir needs 1,234 LUT, budget 532 LUT" — the smallest variant
    being the one whose largest share of a budget is least, and named when the
    task has several ("fir needs 1,234 LUT with its smallest variant, v0, budget ...").
    The caller adds the lead-in and the advice. None when there is no
    candidate or one fits.
    """
    candidates = [t for t in problem.tasks if t.options() and t.pin != "cpu"]
    if not candidates:
        return None
    order = _resource_order(problem)
    parts = []
    for t in candidates:
        if any(_first_over(problem, v, order) is None for v in t.options()):
            return None
        v = min(t.options(), key=lambda v: _largest_share(problem, v, order))
        over = _first_over(problem, v, order)
        assert over is not None
        which = f" with its smallest variant, {v.name}" if len(t.options()) > 1 else ""
        parts.append(
            f"{t.name} needs {_amount(v.resources.get(over, 0.0), over)}{which}, "
            f"budget {_amount(problem.budget[over], over)}{_origin(problem, over, available, max_util)}"
        )
    return "; ".join(parts)


def _first_over(problem: Problem, v: Variant, order: list[str]) -> str | None:
    return next((r for r in order if v.resources.get(r, 0.0) > problem.budget[r] + FEAS_ABS), None)


def _largest_share(problem: Problem, v: Variant, order: list[str]) -> float:
    """The variant's largest need relative to a budget (inf against a budget of zero or less)."""
    share = 0.0
    for r in order:
        need = v.resources.get(r, 0.0)
        cap = problem.budget[r]
        if need > 0:
            share = max(share, need / cap if cap > 0 else math.inf)
    return share
