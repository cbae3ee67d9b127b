"""Random-restart local search over a `Problem`: a baseline for the ILP, not a solver it uses.

Why it exists: the greedy baselines take one pass in a fixed order, so an ILP
that beats them may only be beating a bad order. This search is what a
careful engineer without a solver would run: start from random feasible
choices, improve each by single moves until none helps, keep the best.

* A start gives every task (independently, from a seeded generator) the CPU
  or, with the same probability, the FPGA with a variant drawn uniformly;
  pins are honoured. While the start breaks a budget or an exclusive pair,
  a random FPGA task that is not pinned there goes back to the CPU (a start
  that stays infeasible, because of pins alone, is dropped).
* A move changes one task's option: CPU <-> FPGA, or its variant. Moves are
  tried in a random order and the first feasible one that lowers the
  objective is taken (first improvement); the scan starts again after each
  taken move and stops when no move improves.
* The value of a choice is the caller's `value(problem, x, var)`, so the
  baseline is judged by the model's own definition (`partition.plan.objective_of`).

Deterministic for a given seed and number of restarts.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from partition.solve.model import Problem, feasible

Value = Callable[[Problem, dict[str, int], dict[str, str]], float]
_REL = 1e-12  # an improvement must beat rounding


@dataclass
class SearchResult:
    """The best choice found, its value and how much searching it took."""

    assignment: dict[str, int]
    variant: dict[str, str]
    objective_s: float
    restarts: int
    evaluations: int
    moves: int


def _options(problem: Problem) -> dict[str, list[str | None]]:
    """Each task's options: None for the CPU, else a variant name (pins honoured)."""
    out: dict[str, list[str | None]] = {}
    for t in problem.tasks:
        names: list[str | None] = [v.name for v in t.options()]
        if t.pin == "cpu" or not names:
            out[t.name] = [None]
        elif t.pin == "fpga":
            out[t.name] = names
        else:
            out[t.name] = [None, *names]
    return out


def _split(choice: dict[str, str | None]) -> tuple[dict[str, int], dict[str, str]]:
    x = {n: int(v is not None) for n, v in choice.items()}
    var = {n: v for n, v in choice.items() if v is not None}
    return x, var


def _start(
    problem: Problem, opts: dict[str, list[str | None]], rng: random.Random
) -> dict[str, str | None] | None:
    choice: dict[str, str | None] = {}
    for t in problem.tasks:
        o = opts[t.name]
        fpga = [v for v in o if v is not None]
        if not fpga:
            choice[t.name] = None
        elif None not in o or rng.random() < 0.5:
            choice[t.name] = rng.choice(fpga)
        else:
            choice[t.name] = None
    while not feasible(problem, *_split(choice)):
        movable = [n for n, v in choice.items() if v is not None and None in opts[n]]
        if not movable:
            return None
        choice[rng.choice(movable)] = None
    return choice


def local_search(
    problem: Problem,
    value: Value,
    restarts: int = 20,
    seed: int = 0,
    cache: dict[tuple[str | None, ...], float] | None = None,
) -> SearchResult:
    """The best of `restarts` first-improvement descents from random feasible starts.

    `cache` (choice -> value, filled as the search goes) may be shared by searches of the same
    problem and `value`: descents revisit choices, and a makespan value is a schedule search.
    `evaluations` counts the values asked for, cached or not."""
    rng = random.Random(seed)
    opts = _options(problem)
    memo: dict[tuple[str | None, ...], float] = {} if cache is None else cache

    def val(choice: dict[str, str | None]) -> float:
        key = tuple(choice[t.name] for t in problem.tasks)
        if key not in memo:
            memo[key] = value(problem, *_split(choice))
        return memo[key]

    best: tuple[float, dict[str, str | None]] | None = None
    evaluations = moves = 0
    for _ in range(restarts):
        choice = _start(problem, opts, rng)
        if choice is None:
            continue
        current = val(choice)
        evaluations += 1
        improved = True
        while improved:
            improved = False
            candidates = [(n, o) for n in opts for o in opts[n] if o != choice[n]]
            rng.shuffle(candidates)
            for name, option in candidates:
                trial = dict(choice)
                trial[name] = option
                if not feasible(problem, *_split(trial)):
                    continue
                v = val(trial)
                evaluations += 1
                if v < current * (1 - _REL) - 1e-15:
                    choice, current, improved = trial, v, True
                    moves += 1
                    break
        if best is None or current < best[0]:
            best = (current, choice)
    if best is None:
        return SearchResult({t.name: 0 for t in problem.tasks}, {}, math.inf, restarts, evaluations, moves)
    x, var = _split(best[1])
    return SearchResult(x, var, best[0], restarts, evaluations, moves)
