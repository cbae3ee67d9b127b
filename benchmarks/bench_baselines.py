"""The ILP's plan against simple baselines on the bundled examples and the benchmark apps.

    python benchmarks/bench_baselines.py                 # what `make bench` runs
    python benchmarks/bench_baselines.py --examples fir_pipeline --apps --objectives latency
    python benchmarks/bench_baselines.py --reprofile     # new saved profiles of the apps, then run

Each example in examples/ is profiled once (here, scaled to the PYNQ-Z2 as
`partition plan` does); each app in benchmarks/apps/ (built so that the
decision is not obvious) is read from its saved profile
(benchmarks/apps/profiles/, see benchmarks/apps/__init__.py for why) and
planned for the boards `benchmarks.apps.BOARDS` names. Each is translated
and estimated with every implementation variant; then, per objective
(latency; makespan and throughput with the board's two cores), the same
`Problem` is solved by the ILP and evaluated
(`partition.plan.objective_of`, the model's own definition) for:

* all-CPU: every task on the CPU;
* all-FPGA-that-fits: every FPGA-capable task on the FPGA with its fastest
  variant, hottest (most CPU time) first, skipping a task whose variants
  no longer fit the budget (or whose caller/callee is already a kernel);
* greedy hot-first: hottest first, a task moves to the FPGA (its fastest
  variant that fits) only when that lowers the objective;
* local search: `partition.solve.local_search`, first-improvement single
  moves (a task CPU <-> FPGA, or its variant) from LS_RESTARTS random
  feasible starts, seed LS_SEED.

Under the model the ILP is never worse than any of them when it proves
optimality — the benchmark fails otherwise. Each objective of an example runs
at the default 80 % cap (where every kernel of the examples fits and the
baselines mostly tie) and at a 12 % cap, where they do not and the choice
matters; the apps run at the default cap, which they are built for. Writes
benchmarks/results/baselines.json and baselines.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a source checkout without installing
    sys.path.insert(0, str(ROOT))

from benchmarks.apps import BOARDS as APP_BOARDS  # noqa: E402
from benchmarks.apps import DIR as APPS_DIR  # noqa: E402
from benchmarks.apps import NAMES as APPS  # noqa: E402
from benchmarks.apps import PROFILES  # noqa: E402
from benchmarks.result_files import write_results  # noqa: E402
from examples import NAMES as EXAMPLES  # noqa: E402
from partition.boards import load_board  # noqa: E402
from partition.plan import Options, objective_of, prepare, solve_prepared, translate_all  # noqa: E402
from partition.profile import run_profile  # noqa: E402
from partition.profile.model import Profile, load_profile  # noqa: E402
from partition.solve import Problem, feasible  # noqa: E402
from partition.solve.local_search import local_search  # noqa: E402

OBJECTIVES = ("latency", "makespan", "throughput")
UTILS = (0.8, 0.12)  # the default cap, and one where not every kernel fits (the choice matters)
BOARD = "pynq-z2"
APP_UTIL = 0.8
LS_RESTARTS = 20
LS_SEED = 0
LS_SEEDS = 5  # how often local search reaches the ILP's value, over this many seeds
NAMES = ["all-CPU", "all-FPGA-that-fits", "greedy hot-first", "local search"]
_REL = 1e-9


def _fits(problem: Problem, x: dict[str, int], var: dict[str, str]) -> bool:
    return feasible(problem, x, var)


def _hot_first(problem: Problem, keep) -> tuple[dict[str, int], dict[str, str]]:
    """Tasks hottest first, each on its fastest variant that fits and that `keep(x, var)` accepts."""
    x = {t.name: 0 for t in problem.tasks}
    var: dict[str, str] = {}
    for t in sorted(problem.tasks, key=lambda t: (-t.cpu_s, t.name)):
        if t.pin == "cpu":
            continue
        for v in sorted(t.options(), key=lambda v: (v.fpga_s, v.name)):
            x[t.name], var[t.name] = 1, v.name
            if _fits(problem, x, var) and keep(x, var):
                break
            x[t.name] = 0
            del var[t.name]
    return x, var


def all_fpga_that_fits(problem: Problem) -> tuple[dict[str, int], dict[str, str]]:
    return _hot_first(problem, lambda x, var: True)


def greedy_hot_first(problem: Problem) -> tuple[dict[str, int], dict[str, str]]:
    """A task moves to the FPGA only when that lowers the objective."""
    best = [objective_of(problem, {t.name: 0 for t in problem.tasks}, {})]

    def lowers(x: dict[str, int], var: dict[str, str]) -> bool:
        val = objective_of(problem, x, var)
        if val < best[0]:
            best[0] = val
            return True
        return False

    return _hot_first(problem, lowers)


PROFILE_RUNS = 5  # a saved app profile takes each time as its minimum over this many runs


def app_profile(name: str, reprofile: bool = False) -> Profile:
    """An app's saved profile; made first when missing or when `reprofile`.

    Made of PROFILE_RUNS runs: the one with the shortest wall time, with every function's
    inclusive and exclusive times replaced by their minimum over the runs. On a shared host a
    short function's time varies several-fold from run to run (other processes and cold caches
    only ever add time), more than the margins these apps are built around."""
    path = PROFILES / f"{name}.json"
    if reprofile or not path.exists():
        runs = [
            run_profile(APPS_DIR / f"{name}.py", [], samples=1, echo=False).to_json()
            for _ in range(PROFILE_RUNS)
        ]
        data = min(runs, key=lambda r: r["wall_s"])
        for fn, f in data["functions"].items():
            for key in ("total_s", "self_s"):
                f[key] = min(r["functions"][fn][key] for r in runs if fn in r["functions"])
        walls = ", ".join(f"{r['wall_s']:.3f}" for r in runs)
        print(f"  profiled {name}: wall {walls} s; each time the minimum of the {PROFILE_RUNS} runs")
        PROFILES.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
    return load_profile(path)


def cases(
    examples: list[str], apps: list[str], reprofile: bool
) -> list[tuple[str, str, Path, Profile, list[str]]]:
    """(kind, name, app file, profile, boards) of every example and app to plan."""
    out = []
    for ex in examples:
        app = ROOT / "examples" / f"{ex}.py"
        t0 = time.perf_counter()
        prof = run_profile(app, [], samples=1, echo=False)
        print(f"  profiled {ex} in {time.perf_counter() - t0:.1f} s", flush=True)
        out.append(("example", ex, app, prof, [BOARD]))
    for name in apps:
        out.append(
            (
                "app",
                name,
                APPS_DIR / f"{name}.py",
                app_profile(name, reprofile),
                list(APP_BOARDS.get(name, (BOARD,))),
            )
        )
    return out


def baselines(p: Problem, cache: dict | None = None) -> dict[str, tuple[dict[str, int], dict[str, str]]]:
    """Every baseline's choice for problem `p` (`cache`: local search's, see `local_search`)."""
    ls = local_search(p, objective_of, restarts=LS_RESTARTS, seed=LS_SEED, cache=cache)
    return {
        "all-CPU": ({t.name: 0 for t in p.tasks}, {}),
        "all-FPGA-that-fits": all_fpga_that_fits(p),
        "greedy hot-first": greedy_hot_first(p),
        "local search": (ls.assignment, ls.variant),
    }


def bench(
    examples: list[str],
    apps: list[str],
    objectives: list[str],
    utils: list[float],
    solver: str,
    reprofile: bool = False,
) -> list[dict]:
    rows = []
    for kind, name, app, prof, boards in cases(examples, apps, reprofile):
        translated = translate_all(prof, app.parent)
        for board_name in boards:
            board = load_board(board_name)
            for objective, util in [
                (o, u) for u in (utils if kind == "example" else [APP_UTIL]) for o in objectives
            ]:
                rows.append(_row(kind, name, app, prof, translated, board, objective, util, solver))
    return rows


def _row(kind, name, app, prof, translated, board, objective, util, solver) -> dict:
    opts = Options(objective=objective, solver=solver, max_util=util)
    prep = prepare(prof, app.parent, board, opts, translated)
    p = prep.problem
    t1 = time.perf_counter()
    sol = solve_prepared(prep, opts, 1)[0]
    solve_s = time.perf_counter() - t1
    cache: dict = {}
    t2 = time.perf_counter()
    base = baselines(p, cache)
    baselines_s = time.perf_counter() - t2  # local search's time, nearly all of it
    values = {k: objective_of(p, x, v) for k, (x, v) in base.items()}
    fpga = {k: sorted(f"{n} ({v[n]})" for n, on in x.items() if on) for k, (x, v) in base.items()}
    ilp = sol.objective_s
    if sol.status == "Optimal":
        for k, val in values.items():
            if ilp > val * (1 + _REL) + 1e-12:
                raise AssertionError(f"{name} {objective} at {util}: ILP {ilp!r} s worse than {k} {val!r} s")
    best = min(values.values())
    ls_hits = sum(
        local_search(p, objective_of, restarts=LS_RESTARTS, seed=seed, cache=cache).objective_s
        <= ilp * (1 + _REL) + 1e-12
        for seed in range(LS_SEEDS)
    )
    row = {
        "kind": kind,
        "example": name,
        "board": board.name,
        "objective": objective,
        "max_util": util,
        "cores": p.cpu_cores,
        "tasks": len(p.tasks),
        "variants": sum(len(t.options()) for t in p.tasks),
        "ilp_s": ilp,
        "status": sol.status,
        "solver": sol.solver,
        "solve_s": solve_s,
        "baselines_s": baselines_s,
        "ilp_fpga": sorted(f"{n} ({sol.variant[n]})" for n, on in sol.assignment.items() if on),
        "baselines": values,
        "baseline_fpga": fpga,
        "ilp_beats_best": ilp < best * (1 - _REL),
        "ls_seeds_reaching_ilp": ls_hits,
        "ls_seeds": LS_SEEDS,
    }
    print(
        f"  {name} {board.name} {objective} {util}: ILP {ilp:.6g} s ({sol.status}); "
        + ", ".join(f"{k} {v:.6g} s" for k, v in values.items()),
        flush=True,
    )
    return row


def _s(v: float) -> str:
    if v >= 1:
        return f"{v:.3f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.3f} ms"
    return f"{v * 1e6:.1f} µs"


def _why_no_win(r: dict) -> str:
    """Why the ILP does not strictly beat the best baseline on row `r` (it never loses)."""
    ties = [n for n in NAMES if r["baselines"][n] <= r["ilp_s"] * (1 + _REL) + 1e-12]
    if "all-CPU" in ties and not r["ilp_fpga"]:
        return "nothing is worth moving: the optimum is all-CPU, which is a baseline"
    if r["status"] != "Optimal":
        return f"the ILP stopped at {r['status']}"
    return "the optimum is also reached by " + ", ".join(ties)


def _hard(app: str) -> str:
    """The paragraph of an app's docstring that says what makes its decision hard."""
    doc = (APPS_DIR / f"{app}.py").read_text().split('"""')[1]
    for para in doc.split("\n\n"):
        if para.startswith("What makes the decision hard"):
            return " ".join(para.split()).removeprefix("What makes the decision hard: ")
    return ""


def _table(rows: list[dict], apps: bool) -> list[str]:
    out = [
        "| "
        + ("app | board" if apps else "example")
        + " | objective | max-util | cores | tasks | variants | ILP | "
        "status | "
        + " | ".join(NAMES)
        + " | ILP saves vs best baseline | LS seeds at the ILP's value | ILP / baselines time | ILP's FPGA tasks |"
        + (" why not strictly better |" if apps else ""),
        "|---|"
        + ("---|" if apps else "")
        + "---|---:|---:|---:|---:|---:|---|"
        + "---:|" * len(NAMES)
        + "---:|---:|---:|---|"
        + ("---|" if apps else ""),
    ]
    for r in rows:
        best = min(r["baselines"][n] for n in NAMES)
        saved = max(0.0, best - r["ilp_s"])  # equal plans differ by rounding only
        out.append(
            f"| {r['example']} | "
            + (f"{r['board']} | " if apps else "")
            + f"{r['objective']} | {r['max_util']:g} | "
            f"{r['cores']} | {r['tasks']} | {r['variants']} | {_s(r['ilp_s'])} | {r['status']} | "
            + " | ".join(_s(r["baselines"][n]) for n in NAMES)
            + f" | {_s(saved)} ({saved / best:.3%}) | {r.get('ls_seeds_reaching_ilp', '?')}/{r.get('ls_seeds', '?')} | "
            f"{r['solve_s']:.2f} s / {r.get('baselines_s', float('nan')):.2f} s | {', '.join(r['ilp_fpga']) or '—'} |"
            + ((" — |" if r["ilp_beats_best"] else f" {_why_no_win(r)} |") if apps else "")
        )
    return out


def _lost(rows: list[dict], name: str) -> list[str]:
    """The rows (app board objective) where baseline `name` is strictly worse than the ILP."""
    return [
        f"{r['example']} {r['board']} {r['objective']}"
        for r in rows
        if r["baselines"][name] > r["ilp_s"] * (1 + _REL) + 1e-12
    ]


SMALL_TASKS = 8  # the analysis tells apps of at most this many tasks from larger ones


def _ls_reach(rows: list[dict]) -> str:
    """How often local search reaches the ILP's value on `rows`: seed LS_SEED, and all seeds."""
    reached = len(rows) - len(_lost(rows, "local search"))
    hits = sum(r.get("ls_seeds_reaching_ilp", 0) for r in rows)
    seeds = sum(r.get("ls_seeds", 0) for r in rows)
    return f"{reached} of {len(rows)} rows ({hits} of {seeds} (row, seed) runs over all seeds)"


def _analysis(apps: list[dict]) -> list[str]:
    """Where and why the ILP's plan does not beat every baseline on the apps, with the run's own figures."""
    if not apps:
        return []
    small = [r for r in apps if r["tasks"] <= SMALL_TASKS]
    large = [r for r in apps if r["tasks"] > SMALL_TASKS]
    slow = max(apps, key=lambda r: r.get("baselines_s", 0.0))
    all_cpu = sum(not r["ilp_fpga"] for r in apps)
    ls = f"* Local search with seed {LS_SEED} reaches the ILP's value on {_ls_reach(apps)}."
    if small:
        ls += (
            f" On the apps of at most {SMALL_TASKS} tasks ({max(r['tasks'] for r in small)} tasks and "
            f"{max(r['variants'] for r in small)} variants at most) on {_ls_reach(small)}: {LS_RESTARTS} random "
            "starts land in the optimum's basin even where single moves cannot leave a worse packing."
        )
    if large:
        ls += (
            f" On the apps of {min(r['tasks'] for r in large)} to {max(r['tasks'] for r in large)} tasks "
            f"(up to {max(r['variants'] for r in large)} variants) on {_ls_reach(large)}: among the many "
            "packings a few percent apart, first-improvement single moves end in one that only a trade of "
            "several kernels at once would improve."
        )
    ls += (
        " Local search gives no proof that nothing better exists; and where a value is expensive it is slow: "
        f"its slowest row took {slow.get('baselines_s', 0.0):.1f} s for all baselines ({slow['example']} "
        f"{slow['board']} {slow['objective']}) against {slow['solve_s']:.2f} s for the ILP's proven optimum (a "
        "makespan value is a schedule search; latency values are sums, and there local search is as quick as the ILP)."
    )
    return [
        "Where the ILP is not strictly better, and why:",
        "",
        f"* {all_cpu} of {len(apps)} rows have the all-CPU plan as their optimum (the apps built to keep code on "
        "the CPU, and throughput rows whose period is the main thread's own code, which no placement "
        "shortens): all-CPU is a baseline, so these rows can only tie.",
        "* The fixed-order baselines lose where an app is built against a fixed order: greedy hot-first on "
        + (", ".join(_lost(apps, "greedy hot-first")) or "no row")
        + "; all-FPGA-that-fits on "
        + (", ".join(_lost(apps, "all-FPGA-that-fits")) or "no row")
        + ". Elsewhere their order happens to be right.",
        ls,
    ]


def _missing(apps: list[dict]) -> list[str]:
    """A line naming the (app, board, objective) rows of the apps in `apps` that the table lacks
    (a run cut short: makespan baselines of the largest apps take long), and how to make them."""
    have = {(r["example"], r["board"], r["objective"]) for r in apps}
    gone = [
        (a, b, o)
        for a in dict.fromkeys(r["example"] for r in apps)
        for b in APP_BOARDS.get(a, (BOARD,))
        for o in OBJECTIVES
        if (a, b, o) not in have
    ]
    if not gone:
        return []
    by_app = sorted({(a, o) for a, _b, o in gone})
    return [
        "**Not in this table:** "
        + ", ".join(f"{a} {b} {o}" for a, b, o in gone)
        + " (the run was stopped before their local-search baselines finished: a makespan value is a "
        "schedule search, and these apps have the most tasks). Make them with "
        + "; ".join(
            f"`python benchmarks/bench_baselines.py --examples --apps {a} --objectives {o}`"
            for a, o in by_app
        )
        + ".",
        "",
    ]


def _examples_summary(ex: list[dict]) -> str:
    """What the examples' rows show, from their figures."""
    if not ex:
        return ""
    gain = [r["baselines"]["all-CPU"] / r["ilp_s"] for r in ex if r["ilp_s"] > 0]
    fixed = [r for r in ex if any(r["baselines"][n] > r["ilp_s"] * (1 + _REL) + 1e-12 for n in NAMES[1:3])]
    wins = sum(r["ilp_beats_best"] for r in ex)
    return (
        f"The plans are {min(gain):.1f}-{max(gain):.0f}x faster than all-CPU. The fixed-order baselines "
        f"(all-FPGA-that-fits, greedy hot-first) are worse than the ILP on {len(fixed)} of {len(ex)} rows ("
        + (", ".join(sorted({f"{r['example']} at {r['max_util']:g}" for r in fixed})) or "none")
        + f"), local search reaches its value on {_ls_reach(ex)}; the ILP is strictly better than every baseline "
        f"on {wins}."
    )


def markdown(rows: list[dict]) -> str:
    ex = [r for r in rows if r.get("kind", "example") == "example"]
    apps = [r for r in rows if r.get("kind") == "app"]
    wins = sum(r["ilp_beats_best"] for r in apps)
    beaten = {n: sum(r["baselines"][n] > r["ilp_s"] * (1 + _REL) + 1e-12 for r in apps) for n in NAMES}
    out = [
        "# The ILP's plan against baselines",
        "",
        "Predicted times under the model of each objective (`partition.solve.model`): latency = one run, "
        "blocking calls; makespan = one run, CPU/FPGA overlap, 2 cores; throughput = period per frame, 2 cores. "
        "Every FPGA-capable task with all its implementation variants (`partition.estimate.variants`). "
        "Baselines: all-CPU; all-FPGA-that-fits (hottest first, fastest variant that fits); greedy hot-first "
        "(hottest first, moved only when that lowers the objective); local search (`partition.solve.local_search`: "
        f"first-improvement single moves, a task CPU <-> FPGA or its variant, from {LS_RESTARTS} random feasible "
        f"starts, seed {LS_SEED}; *LS seeds at the ILP's value*: for how many of seeds 0-{LS_SEEDS - 1} it reaches the ILP's "
        "value, i.e. how much the column's result owes to the seed). Every choice is valued by `partition.plan.objective_of`. "
        "The ILP column is solved as `partition plan` solves it by default (`--solver auto`: CBC, and CP-SAT for "
        "makespan where installed, which proves makespan plans of many tasks that CBC does not; the solver of "
        "each row is in baselines.json). *ILP saves*: how much "
        "lower the ILP's prediction is than the best baseline's. Produced by `benchmarks/bench_baselines.py`; "
        "it fails if a proven-optimal plan is worse than a baseline.",
        "",
        "## Benchmark apps (benchmarks/apps/)",
        "",
        f"Built so that the decision is not obvious; planned from their saved profiles at the default "
        f"{APP_UTIL:.0%} cap. **The ILP strictly beats the best baseline on {wins} of {len(apps)} (app, board, "
        f"objective) rows and is never worse.** Rows where each baseline is strictly worse than the ILP: "
        + ", ".join(f"{n} {beaten[n]}" for n in NAMES)
        + f" of {len(apps)}.",
        "",
        *_missing(apps),
        *_table(apps, True),
        "",
        *_analysis(apps),
        "",
        "What each app is built to provoke (from its docstring):",
        "",
        *[f"* **{a}**: {_hard(a)}" for a in dict.fromkeys(r["example"] for r in apps)],
        "",
        "## Bundled examples (examples/)",
        "",
        f"Each profiled on this machine and scaled to the {BOARD} CPU, as `partition plan` does, at the default "
        "80 % cap and at a 12 % cap where not every kernel fits. " + _examples_summary(ex),
        "",
        *_table(ex, False),
        "",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", nargs="*", default=list(EXAMPLES))
    ap.add_argument("--apps", nargs="*", default=list(APPS), help="benchmark apps (default: all)")
    ap.add_argument("--reprofile", action="store_true", help="profile the apps anew and save the profiles")
    ap.add_argument("--objectives", nargs="+", default=list(OBJECTIVES), choices=OBJECTIVES)
    ap.add_argument("--max-util", type=float, nargs="+", default=list(UTILS))
    ap.add_argument(
        "--solver",
        default="auto",
        choices=["auto", "cbc", "highs"],
        help="auto (default): what `partition plan` uses, CP-SAT for makespan where installed, else CBC",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args(argv)
    rows = bench(args.examples, args.apps, args.objectives, args.max_util, args.solver, args.reprofile)
    write_results(args.out, "baselines", rows, markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
