"""Random partitioning problems, shared by the solver tests and the solver benchmark.

Three generators:

* `random_problem` — small adversarial instances (1–12 tasks) for checking the
  ILP against exhaustive enumeration: tasks without an FPGA implementation,
  pins (including impossible ones), tight and impossible budgets, exclusive
  pairs, parallel edges, edges to and from `<main>` with junk in the
  coefficients that must be ignored, edges whose both-on-FPGA cost exceeds the
  crossing costs (the other side of the AND linearisation), and, in some
  instances, costs on a coarse grid so that exact ties occur.
* `random_variant_problem` — the same kind of small instances (1–14 tasks)
  for a given objective, with 1–4 FPGA variants per task (some with an
  initiation interval below their latency, as a pipelined loop has), a DAG of
  data edges, extra precedence pairs, one or two cores; the number of
  variants shrinks as the task count grows, so that exhaustive enumeration
  (prod_i (1 + variants_i) choices, an exact schedule search each for
  makespan) stays fast. Latency and throughput instances also get AXI-Stream
  chains (`random_chains`), each with savings that are positive for some
  variant pairs and negative for others.
* `layered_problem` — large instances shaped like a real application on a
  PYNQ-Z2 (a layered DAG of producer/consumer tasks) for timing the solver;
  `with_variants` and `with_chains` add variants and AXI-Stream chains to them.

Both are pure functions of their seed (`random.Random`), so every test and
benchmark run sees the same instances.

Where the "realistic" magnitudes come from (they only shape the benchmark
instances; the tool itself reads these constants from the board file):

* xc7z020 fabric: 53,200 LUT, 106,400 FF, 220 DSP48E1, 280 BRAM18 (140 RAMB36)
  — AMD DS190 "Zynq-7000 SoC Data Sheet: Overview", Table 3 (XC7Z020 column).
* kernel call overhead through PYNQ MMIO: ~120–130 µs measured for four
  register writes plus start on a PYNQ-Z2
  (https://github.com/KastnerRG/Read_the_docs/issues/25).
* copies in/out of uncached CMA buffers: ~64 MB/s versus ~256 MB/s for an
  ordinary memcpy on a Zynq-7020 board
  (https://github.com/bmartini/zynq-xdma/issues/10).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable

from partition.boards import RESOURCES
from partition.solve.model import ChainCost, EdgeCost, Problem, TaskCost, Variant

MAIN = "<main>"

# xc7z020 fabric (DS190; FINN platforms.py) and the default 80 % utilisation cap.
XC7Z020 = {"lut": 53_200.0, "ff": 106_400.0, "dsp": 220.0, "bram18": 280.0}
DEFAULT_CAP = 0.8

CALL_OVERHEAD_S = 125e-6  # PYNQ MMIO start + poll (KastnerRG/Read_the_docs#25)
CMA_BYTES_PER_S = 64e6  # uncached CMA copy (bmartini/zynq-xdma#10)
COPY_SETUP_S = 20e-6  # per-buffer allocate/sync, same order as one MMIO access


def _rng(seed: int | random.Random) -> random.Random:
    return seed if isinstance(seed, random.Random) else random.Random(seed)


def _loguniform(r: random.Random, lo: float, hi: float) -> float:
    return math.exp(r.uniform(math.log(lo), math.log(hi)))


def board_budget(cap: float = DEFAULT_CAP) -> dict[str, float]:
    """The xc7z020 budget under a utilisation cap."""
    return {k: v * cap for k, v in XC7Z020.items()}


def _kernel_resources(r: random.Random) -> dict[str, float]:
    """Resources of one kernel, in the range HLS reports for small loop kernels."""
    res = {
        "lut": float(r.randint(300, 18_000)),
        "ff": float(r.randint(300, 25_000)),
        "dsp": float(r.choice([0, 0, 1, 2, 3, 5, 8, 16, 32, 64])),
        "bram18": float(r.choice([0, 0, 1, 2, 4, 8, 16, 32, 64])),
    }
    return res


def _transfer_s(nbytes: float) -> float:
    return COPY_SETUP_S + nbytes / CMA_BYTES_PER_S


# --------------------------------------------------------------------------- small, adversarial


def _small_tasks(
    r: random.Random, min_tasks: int, max_tasks: int
) -> tuple[list[str], bool, Callable[[float, float], float]]:
    """Task names of a small instance, whether its costs are on a coarse grid, and its cost draw."""
    n = r.randint(min_tasks, max_tasks)
    names = [f"t{i}" for i in range(n)]
    grid = r.random() < 0.3  # coarse costs: exact ties between assignments

    def t(lo: float, hi: float) -> float:
        v = _loguniform(r, lo, hi)
        return round(v * 1e3) / 1e3 if grid else v

    return names, grid, t


def _random_pin(r: random.Random) -> str | None:
    """No pin mostly; pinned to the CPU 7 % and to the FPGA 5 % of the time."""
    u = r.random()
    if u < 0.07:
        return "cpu"
    if u < 0.12:
        return "fpga"
    return None


def random_problem(seed: int | random.Random, *, min_tasks: int = 1, max_tasks: int = 12) -> Problem:
    """A small random instance; see the module docstring for what it exercises."""
    r = _rng(seed)
    names, grid, t = _small_tasks(r, min_tasks, max_tasks)
    tasks: list[TaskCost] = []
    for name in names:
        cpu = t(1e-4, 1.0)
        fpga: float | None
        if r.random() < 0.25:
            fpga = None
        else:
            fpga = t(1e-4, 1.0) if grid else cpu * _loguniform(r, 0.01, 3.0) + CALL_OVERHEAD_S
        res = _kernel_resources(r)
        if r.random() < 0.2:  # some estimates carry only a subset of resources
            res = {k: v for k, v in res.items() if r.random() < 0.5}
        pin = _random_pin(r)
        tasks.append(TaskCost(name=name, cpu_s=cpu, fpga_s=fpga, resources=res, pin=pin))

    budget = _random_budget(r, tasks)

    edges = _random_edges(r, names, grid, r.uniform(0.0, 0.6), 0.35, t)

    exclusive, base = _exclusive_and_base(r, names, t)
    return Problem(tasks=tasks, edges=edges, budget=budget, base_s=base, exclusive=exclusive)


def _exclusive_and_base(
    r: random.Random, names: list[str], t: Callable[[float, float], float]
) -> tuple[list[tuple[str, str]], float]:
    """Up to three exclusive pairs of tasks (never both on the FPGA) and the app's own time
    (zero in three instances of ten)."""
    exclusive: list[tuple[str, str]] = []
    if len(names) >= 2:
        for _ in range(r.choice([0, 0, 1, 1, 2, 3])):
            a, b = r.sample(names, 2)
            exclusive.append((a, b))
    return exclusive, (t(1e-4, 0.1) if r.random() < 0.7 else 0.0)


def _random_edges(
    r: random.Random, names: list[str], grid: bool, p_edge: float, p_main: float, t
) -> list[EdgeCost]:
    """Edges between tasks (i -> j for i < j, sometimes two), to and from <main>, rarely a self-loop."""
    n = len(names)
    edges: list[EdgeCost] = []
    for i in range(n):
        for j in range(i + 1, n):
            if r.random() < p_edge:
                edges.append(_random_edge(r, names[i], names[j], grid))
                if r.random() < 0.1:  # parallel edge (two values flowing i -> j)
                    edges.append(_random_edge(r, names[i], names[j], grid))
    for name in names:
        if r.random() < p_main:
            e = _random_edge(r, MAIN, name, grid)
            # x_src is always 0 for <main>: c10/c11 must be ignored
            e.c10, e.c11 = r.uniform(0, 5), r.uniform(0, 5)
            edges.append(e)
        if r.random() < p_main:
            e = _random_edge(r, name, MAIN, grid)
            e.c01, e.c11 = r.uniform(0, 5), r.uniform(0, 5)
            edges.append(e)
    if r.random() < 0.05:
        edges.append(EdgeCost(MAIN, MAIN, c00=t(1e-4, 1e-2)))
    if r.random() < 0.05 and n:  # a self-loop (a task feeding itself across calls)
        edges.append(_random_edge(r, names[0], names[0], grid))
    r.shuffle(edges)
    return edges


def _random_budget(r: random.Random, tasks: list[TaskCost]) -> dict[str, float]:
    mode = r.choices(["board", "tight", "tiny", "partial", "negative"], weights=[3, 5, 1, 1, 0.2])[0]
    if mode == "board":
        return board_budget(r.choice([0.5, 0.8, 1.0]))
    if mode == "negative":  # static shell larger than the cap: nothing fits, not even all-CPU
        b = board_budget()
        b["lut"] = -100.0
        return b
    if mode == "tiny":
        return {k: float(r.randint(0, 300)) for k in RESOURCES}
    # "tight": exactly the usage of a random subset (boundary cases), per resource
    budget: dict[str, float] = {}
    for k in RESOURCES:
        subset = [tk for tk in tasks if r.random() < 0.4]
        used = 0.0
        for tk in subset:
            used += tk.resources.get(k, 0.0)
        budget[k] = used if r.random() < 0.7 else used + r.choice([-1.0, 1.0, 0.5])
    if mode == "partial":
        keep = r.sample(list(RESOURCES), r.randint(0, 2))
        budget = {k: v for k, v in budget.items() if k in keep}
    return budget


def _random_edge(r: random.Random, src: str, dst: str, grid: bool) -> EdgeCost:
    nbytes = _loguniform(r, 16, 4e6)
    x = _transfer_s(nbytes)
    if grid:
        x = round(x * 1e3) / 1e3
    if r.random() < 0.15:
        # arbitrary coefficients: c00 > 0 and/or c11 above c01 + c10 (positive AND term)
        return EdgeCost(
            src,
            dst,
            c00=r.uniform(0, x),
            c01=r.uniform(0, 2 * x),
            c10=r.uniform(0, 2 * x),
            c11=r.uniform(0, 4 * x),
        )
    # realistic: crossing the boundary costs a copy in one direction; FPGA -> FPGA
    # still goes through DDR but needs no cache maintenance from Python
    c01 = x
    c10 = x * r.uniform(0.8, 1.2)
    c11 = x * r.choice([0.0, 0.05, 0.1])
    return EdgeCost(src, dst, c00=0.0, c01=c01, c10=c10, c11=c11)


# --------------------------------------------------------------------------- small, with variants

# brute force visits at most this many choices per objective (makespan: each an exact schedule search)
CHOICE_LIMIT = {"latency": 4000, "throughput": 3000, "makespan": 128}
EDGE_LIMIT = {"latency": 40, "throughput": 40, "makespan": 6}


def random_variant_problem(
    seed: int | random.Random, objective: str, *, min_tasks: int = 1, max_tasks: int = 14
) -> Problem:
    """A small random instance with variants for `objective`; see the module docstring."""
    r = _rng(seed)
    names, grid, t = _small_tasks(r, min_tasks, max_tasks)
    n = len(names)
    tasks: list[TaskCost] = []
    for name in names:
        cpu = t(1e-4, 1.0)
        variants: list[Variant] = []
        if r.random() >= 0.25:
            for k in range(r.randint(1, 4)):
                fpga = t(1e-4, 1.0) if grid else cpu * _loguniform(r, 0.01, 3.0) + CALL_OVERHEAD_S
                res = _kernel_resources(r)
                if r.random() < 0.2:
                    res = {key: v for key, v in res.items() if r.random() < 0.5}
                ii = None
                if r.random() < 0.4:  # a pipelined variant: a new frame before the last one is done
                    ii = fpga * r.choice([0.05, 0.25, 0.5, 1.0])
                variants.append(Variant(f"v{k}", fpga, res, ii))
        pin = _random_pin(r)
        if r.random() < 0.03:
            cpu = 0.0  # a task with nothing to do (zero-length jobs)
        tasks.append(TaskCost(name=name, cpu_s=cpu, pin=pin, variants=variants))
    # fewer variants while the enumeration is too large
    while math.prod(1 + len(tk.variants) for tk in tasks) > CHOICE_LIMIT[objective]:
        most = max(len(tk.variants) for tk in tasks)
        victim = r.choice([tk for tk in tasks if len(tk.variants) == most])
        victim.variants.pop(r.randrange(len(victim.variants)))
        if not victim.variants and victim.pin == "fpga":
            victim.pin = None

    budget = _random_budget(r, [_as_single(tk, r) for tk in tasks])

    edges: list[EdgeCost] = []
    edges = _random_edges(r, names, grid, r.uniform(0.0, 0.5 if objective != "makespan" else 0.3), 0.25, t)
    edges = edges[: EDGE_LIMIT[objective]]

    precedence = []
    if objective == "makespan" and n > 6:
        # layers of one to three tasks, each after the whole previous layer: an exact schedule
        # search over many independent jobs would be too slow for a test (it is exponential)
        width = r.choice([1, 2, 2, 3])
        layers = [list(range(i, min(n, i + width))) for i in range(0, n, width)]
        for prev, layer in itertools.pairwise(layers):
            precedence += [(names[i], names[j]) for i in prev for j in layer]
    elif n >= 2 and r.random() < 0.3:
        for _ in range(r.randint(1, 3)):
            i, j = sorted(r.sample(range(n), 2))
            precedence.append((names[i], names[j]))

    exclusive, base = _exclusive_and_base(r, names, t)
    return Problem(
        tasks=tasks,
        edges=edges,
        budget=budget,
        base_s=base,
        exclusive=exclusive,
        objective=objective,
        cpu_cores=r.choice([1, 2]),
        precedence=precedence,
        chains=random_chains(r, tasks, objective) if objective != "makespan" else [],
    )


def random_chains(r: random.Random, tasks: list[TaskCost], objective: str = "latency") -> list[ChainCost]:
    """AXI-Stream chains between tasks with variants: each task the src of at most one.

    Each end's share is up to a third of its variant's FPGA time and the stream
    costs up to about as much as the two shares, so that some variant pairs
    gain and others would lose (and must not be chained). For throughput a chain
    goes to a later task (no cycle) that ends at most two chains (its shares stay
    within its time), and some pairs are joined in a path (a -> b -> c)."""
    able = [t for t in tasks if t.variants]
    out: list[ChainCost] = []
    ends: dict[str, int] = {}
    for src in able:
        if r.random() >= (0.4 if objective == "latency" else 0.5):
            continue
        if objective == "latency":
            dst = r.choice(able)
        else:
            later = [t for t in able[able.index(src) + 1 :] if ends.get(t.name, 0) < 2]
            if not later:
                continue
            dst = later[0] if r.random() < 0.5 else r.choice(later)
            ends[dst.name] = ends.get(dst.name, 0) + 1
        if dst is src:
            continue
        out.append(_random_chain(r, src, dst))
    return out


def _random_chain(r: random.Random, src: TaskCost, dst: TaskCost) -> ChainCost:
    """Shares up to a third of each variant's time; the stream 0.2 to 1.2 times the typical shares."""
    src_s = {v.name: v.fpga_s * r.uniform(0.0, 0.33) for v in src.options()}
    dst_s = {v.name: v.fpga_s * r.uniform(0.0, 0.33) for v in dst.options()}
    typical = (sum(src_s.values()) / len(src_s)) + (sum(dst_s.values()) / len(dst_s))
    return ChainCost(src.name, dst.name, src_s, dst_s, typical * r.uniform(0.2, 1.2))


def with_chains(problem: Problem, seed: int | random.Random = 0, p_chain: float = 0.5) -> Problem:
    """`problem` with AXI-Stream chains along its task -> task edges (the problem is changed).

    A chain goes along an edge whose ends both have variants, with probability
    `p_chain` per task (its first such edge): each task the src of at most one and the
    dst of at most two, so on a DAG they form no cycle and each end's shares, up to a
    third of its variant's time each, stay within that time. The stream costs 0.2 to
    1.2 times the typical shares: some variant pairs gain, others lose.
    """
    r = _rng(seed)
    tasks = {t.name: t for t in problem.tasks}
    ends: dict[str, int] = {}
    srcs: set[str] = set()
    problem.chains = []
    for e in problem.edges:
        src, dst = tasks.get(e.src), tasks.get(e.dst)
        if src is None or dst is None or src is dst or not src.options() or not dst.options():
            continue
        if src.name in srcs or ends.get(dst.name, 0) >= 2 or r.random() >= p_chain:
            continue
        srcs.add(src.name)
        ends[dst.name] = ends.get(dst.name, 0) + 1
        problem.chains.append(_random_chain(r, src, dst))
    return problem


def _as_single(task: TaskCost, r: random.Random) -> TaskCost:
    """The task with one of its variants, for drawing a budget around real usages."""
    if not task.variants:
        return TaskCost(task.name, task.cpu_s, None)
    v = r.choice(task.variants)
    return TaskCost(task.name, task.cpu_s, v.fpga_s, dict(v.resources))


# --------------------------------------------------------------------------- large, realistic


def layered_problem(
    n_tasks: int, seed: int | random.Random = 0, *, width: int | None = None, resource_scale: float = 1.0
) -> Problem:
    """A layered producer/consumer DAG of `n_tasks` tasks with PYNQ-Z2-like costs.

    Layers of about sqrt(n) tasks; each task consumes one to three values from
    the previous two layers; the first layer reads from `<main>` and the last
    writes back to it. About a third of the tasks have no FPGA implementation
    (outside the accepted subset); kernels are 2–50x faster than Python plus
    the call overhead; a task and one of its producers are sometimes exclusive
    (caller/callee). The budget is the xc7z020 under the default 80 % cap, so
    only a handful of kernels fit at once; `resource_scale` < 1 shrinks every
    kernel (rounded to whole units) so that many compete for the budget.
    """
    r = _rng(seed)
    width = width or max(1, round(math.sqrt(n_tasks)))
    names = [f"f{i:05d}" for i in range(n_tasks)]
    layers = [names[i : i + width] for i in range(0, n_tasks, width)]

    tasks = []
    for name in names:
        cpu = _loguniform(r, 1e-5, 0.5)
        fpga = None if r.random() < 0.33 else cpu / _loguniform(r, 2.0, 50.0) + CALL_OVERHEAD_S
        res = {k: float(round(v * resource_scale)) for k, v in _kernel_resources(r).items()}
        tasks.append(TaskCost(name=name, cpu_s=cpu, fpga_s=fpga, resources=res))

    edges: list[EdgeCost] = []
    exclusive: list[tuple[str, str]] = []
    for li, layer in enumerate(layers):
        prev = [n for lj in (li - 1, li - 2) if lj >= 0 for n in layers[lj]]
        for name in layer:
            if not prev:
                edges.append(_layered_edge(r, MAIN, name))
                continue
            for src in r.sample(prev, min(len(prev), r.randint(1, 3))):
                edges.append(_layered_edge(r, src, name))
                if r.random() < 0.02:
                    exclusive.append((src, name))
        if li == len(layers) - 1:
            for name in layer:
                edges.append(_layered_edge(r, name, MAIN))
    return Problem(tasks=tasks, edges=edges, budget=board_budget(), base_s=0.01, exclusive=exclusive)


def _layered_edge(r: random.Random, src: str, dst: str) -> EdgeCost:
    x = _transfer_s(_loguniform(r, 64, 4e6))
    return EdgeCost(src, dst, c00=0.0, c01=x, c10=x, c11=0.1 * x)


# HLS-style variants of one kernel: (name, time factor, resource factor, ii as a fraction of the time)
_VARIANT_STYLES = (
    ("base", 1.0, 1.0, None),
    ("pipeline", 0.45, 1.3, 0.12),
    ("unroll4", 0.3, 2.6, 0.3),
    ("partition_burst", 0.2, 4.0, 0.08),
)


def with_variants(problem: Problem, seed: int | random.Random = 0, max_variants: int = 4) -> Problem:
    """`problem` with 1 to `max_variants` implementation variants per FPGA-capable task.

    The first variant is the task's own (fpga_s, resources); the others are
    faster and larger, the way pipelining, unrolling, array partitioning and
    wider bursts trade area for cycles, each by a random factor around the
    style's (the call overhead is not scaled).
    """
    r = _rng(seed)
    tasks = []
    for t in problem.tasks:
        if t.fpga_s is None:
            tasks.append(TaskCost(t.name, t.cpu_s, pin=t.pin))
            continue
        compute = max(t.fpga_s - CALL_OVERHEAD_S, 0.0)
        variants = []
        for name, tf, rf, ii in _VARIANT_STYLES[: r.randint(1, max_variants)]:
            f = tf * r.uniform(0.8, 1.25) if tf != 1.0 else 1.0
            g = rf * r.uniform(0.8, 1.25) if rf != 1.0 else 1.0
            time_s = compute * f + CALL_OVERHEAD_S
            res = {k: float(round(v * g)) for k, v in t.resources.items()}
            variants.append(Variant(name, time_s, res, None if ii is None else time_s * ii))
        tasks.append(TaskCost(t.name, t.cpu_s, pin=t.pin, variants=variants))
    return Problem(
        tasks=tasks,
        edges=problem.edges,
        budget=problem.budget,
        base_s=problem.base_s,
        exclusive=problem.exclusive,
        objective=problem.objective,
        cpu_cores=problem.cpu_cores,
        precedence=problem.precedence,
    )
