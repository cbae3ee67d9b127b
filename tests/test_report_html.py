"""report.html: unit tests of the page, and every example's page rendered in headless Chromium.

The browser check drives Debian's Chromium over the DevTools protocol on a pipe
(--remote-debugging-pipe: no port, no extra package), loads report.html from
disk with the network cut off, collects console errors, failed requests and
uncaught exceptions (none allowed), reads the rendered DOM and compares every
figure with plan.json, and saves a full-page screenshot to the test artefact
folder (build/test-artifacts/, or $PARTITION_TEST_ARTIFACTS).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import itertools
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

from partition.errors import PartitionError
from partition.report import (
    RESULT_FORMAT,
    layout_order,
    load_verification,
    regenerate,
    render_html,
    timeline,
)

ROOT = Path(__file__).resolve().parent.parent
APPS = Path(__file__).parent / "cli_apps"
ARTIFACTS = Path(os.environ.get("PARTITION_TEST_ARTIFACTS", ROOT / "build" / "test-artifacts"))
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--mute-audio",
    "--force-device-scale-factor=1",
)
WIDTH = 1280
TIMEOUT_S = 60.0


# =====================================================================================
# Headless Chromium over the DevTools protocol (pipe transport)
# =====================================================================================


def _tool_missing(message: str) -> None:
    if os.environ.get("PARTITION_REQUIRE_TOOLS") == "1":
        pytest.fail(f"{message} (PARTITION_REQUIRE_TOOLS=1 requires it)", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def chromium_exe() -> str:
    """Debian's chromium; installed with apt-get when missing and running as root."""
    exe = shutil.which("chromium")
    if exe is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        for cmd in (
            ["apt-get", "update", "-qq"],
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"],
        ):
            r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
            if r.returncode != 0:
                pytest.fail(f"{' '.join(cmd)} failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}", pytrace=False)
        exe = shutil.which("chromium")
    if exe is None:
        _tool_missing(
            "chromium not found: apt-get install chromium (Debian) for the browser check of report.html"
        )
    return exe


class Browser:
    """One headless Chromium, spoken to with DevTools protocol messages (JSON, NUL-terminated) on fds 3/4."""

    def __init__(self, exe: str, profile_dir: Path):
        # Chromium reads commands on fd 3 and writes replies on fd 4; bash moves the pipe ends there
        # (from fds >= 10, so neither end is already 3 or 4) and then becomes Chromium
        r, self._to_chrome = os.pipe()
        self._from_chrome, w = os.pipe()
        to_chrome_r, from_chrome_w = fcntl.fcntl(r, fcntl.F_DUPFD, 10), fcntl.fcntl(w, fcntl.F_DUPFD, 10)
        os.close(r)
        os.close(w)
        self.log = open(profile_dir / "chromium.log", "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [
                "bash",
                "-c",
                f'exec "$0" "$@" 3<&{to_chrome_r} 4>&{from_chrome_w} {to_chrome_r}<&- {from_chrome_w}>&-',
                exe,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile_dir / 'profile'}",
                f"--window-size={WIDTH},900",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            pass_fds=(to_chrome_r, from_chrome_w),
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next_id = 0
        self._replies: dict[int, dict] = {}
        self._events: queue.Queue = queue.Queue()
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buf = b""
        while True:
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                with self._cond:
                    self._replies[-1] = {"closed": True}
                    self._cond.notify_all()
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._cond:
                        self._replies[msg["id"]] = msg
                        self._cond.notify_all()
                else:
                    self._events.put(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        mid = self._next_id
        msg: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        with self._cond:
            ok = self._cond.wait_for(lambda: mid in self._replies or -1 in self._replies, TIMEOUT_S)
            if not ok or mid not in self._replies:
                raise RuntimeError(f"chromium did not answer {method}; see {self.log.name}")
            reply = self._replies.pop(mid)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def events(self) -> list[dict]:
        out = []
        while True:
            try:
                out.append(self._events.get_nowait())
            except queue.Empty:
                return out

    def wait_event(self, method: str, seen: list[dict]) -> None:
        """Wait for `method`; every event received meanwhile is appended to `seen`."""
        while True:
            try:
                ev = self._events.get(timeout=TIMEOUT_S)
            except queue.Empty:
                raise RuntimeError(f"no {method} from chromium within {TIMEOUT_S} s") from None
            seen.append(ev)
            if ev.get("method") == method:
                return

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.send("Browser.close")
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_chrome, self._from_chrome):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.log.close()


@pytest.fixture(scope="module")
def browser(chromium_exe):
    with tempfile.TemporaryDirectory(prefix="partition-chromium-") as d:
        b = Browser(chromium_exe, Path(d))
        try:
            yield b
        finally:
            b.close()


# What the page shows, read from the rendered DOM (computed styles included).
EXTRACT_JS = r"""
(() => {
  // null-safe, so a page that is not a report still yields its problems
  const fill = el => el ? getComputedStyle(el).fill : null;
  const bg = el => el ? getComputedStyle(el).backgroundColor : null;
  const svg = document.querySelector('#task-graph');
  const nodes = [...document.querySelectorAll('#task-graph g.node')].map(g => {
    const r = g.querySelector('rect').getBoundingClientRect();
    return {task: g.dataset.task, placement: g.dataset.placement, fill: fill(g.querySelector('rect')),
            w: r.width, h: r.height, text: g.textContent.trim()};
  });
  const edges = [...document.querySelectorAll('#task-graph path.edge')].map(p => ({
    src: p.dataset.src, dst: p.dataset.dst, bytes: Number(p.dataset.bytes),
    width: parseFloat(getComputedStyle(p).strokeWidth), len: p.getTotalLength()}));
  const swatch = cls => bg(document.querySelector('#graph .legend .swatch.' + cls));
  const bars = [...document.querySelectorAll('.bar-row')].map(row => ({
    resource: row.dataset.resource,
    barWidth: row.querySelector('.bar').getBoundingClientRect().width,
    shellWidth: row.querySelector('.seg.shell').getBoundingClientRect().width,
    kernelsWidth: row.querySelector('.seg.kernels').getBoundingClientRect().width,
    kernelsColour: bg(row.querySelector('.seg.kernels')),
    capLeft: row.querySelector('.cap').getBoundingClientRect().left - row.querySelector('.bar').getBoundingClientRect().left,
    figs: Object.fromEntries([...row.querySelectorAll('.bar-figs b')].map(b => [b.className, {
      text: b.textContent.trim(), value: b.querySelector('.num').dataset.value,
      path: b.querySelector('.num').dataset.path}])),
  }));
  const nums = [...document.querySelectorAll('.num')].map(el => ({
    path: el.dataset.path || null, derived: el.dataset.derived === 'true', from: el.dataset.from || '',
    value: el.dataset.value, text: el.textContent, visible: el.getClientRects().length > 0 || !!el.closest('details')}));
  const segs = [...document.querySelectorAll('svg#gantt rect.seg')].map(r => ({
    row: r.dataset.row, kind: r.dataset.kind, label: r.dataset.label,
    start: parseFloat(r.dataset.start), end: parseFloat(r.dataset.end),
    width: r.getBoundingClientRect().width}));
  const prediction = Object.fromEntries([...document.querySelectorAll('#prediction .num')].map(
    el => [el.dataset.path, {text: el.textContent, value: parseFloat(el.dataset.value)}]));
  const verification = [...document.querySelectorAll('table.verification tbody tr')].map(tr => ({
    kernel: tr.dataset.kernel,
    cells: Object.fromEntries([...tr.querySelectorAll('td[data-step]')].map(td => [td.dataset.step, td.dataset.status]))}));
  return {title: document.title, nodes, edges, bars, nums, segs, prediction, verification,
          fpgaColour: swatch('fpga'), cpuColour: swatch('cpu'),
          svgWidth: svg ? svg.getBoundingClientRect().width : null,
          height: document.documentElement.scrollHeight,
          external: [...document.querySelectorAll('[src],[href]')].map(e => e.getAttribute('src') || e.getAttribute('href'))
                      .filter(u => !u.startsWith('#') && !u.startsWith('data:'))};
})()
"""


def render_in_browser(browser: Browser, page: Path, screenshot: Path) -> tuple[dict, list[str]]:
    """Open `page`, return (what the DOM shows, problems: console errors, exceptions, network use)."""
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    try:
        for domain in ("Runtime", "Log", "Page", "Network"):
            browser.send(f"{domain}.enable", session=session)
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        seen = browser.events()
        browser.send("Page.navigate", {"url": page.resolve().as_uri()}, session=session)
        browser.wait_event("Page.loadEventFired", seen)
        dom = browser.send(
            "Runtime.evaluate", {"expression": EXTRACT_JS, "returnByValue": True}, session=session
        )
        if "exceptionDetails" in dom:
            raise AssertionError(f"extracting the DOM failed: {dom['exceptionDetails']}")
        data = dom["result"]["value"]
        height = int(min(data["height"], 16000))
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        shot = browser.send(
            "Page.captureScreenshot",
            {"format": "png", "clip": {"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1}},
            session=session,
        )
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        screenshot.write_bytes(base64.b64decode(shot["data"]))
        seen += browser.events()
    finally:
        browser.send("Target.closeTarget", {"targetId": target})
    problems = []
    for ev in seen:
        m, p = ev.get("method"), ev.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            problems.append(
                "console: " + " ".join(str(a.get("value", a.get("description"))) for a in p["args"])
            )
        elif m == "Runtime.exceptionThrown":
            problems.append(f"exception: {p['exceptionDetails'].get('text')} {p['exceptionDetails']}")
        elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
            problems.append(f"log: {p['entry']['text']} ({p['entry'].get('url', '')})")
        elif m == "Network.requestWillBeSent" and not p["request"]["url"].startswith(("file:", "data:")):
            problems.append(f"network: {p['request']['url']}")
        elif m == "Network.loadingFailed":
            problems.append(f"failed load: {p.get('errorText')}")
    return data, problems


# =====================================================================================
# Checking a rendered page against plan.json
# =====================================================================================


def resolve(path: str, plan_data: dict, verification: dict) -> Any:
    head, *rest = path.split(".")
    cur: Any = {"plan": plan_data, "verification": verification}[head]
    for part in rest:
        cur = cur[int(part)] if isinstance(cur, list) else cur[part]
    return cur


def check_page(data: dict, plan_data: dict, graph_json: dict, verification: dict | None = None) -> None:
    verification = verification or {}
    tasks = {t["name"]: t for t in plan_data["tasks"]}
    # the graph: one node per graph.json node (every task of plan.json and <main>), coloured by placement
    node_ids = sorted(n["id"] for n in graph_json["nodes"])
    assert sorted(n["task"] for n in data["nodes"]) == node_ids
    assert set(tasks) <= set(node_ids)
    assert data["fpgaColour"] != data["cpuColour"]
    for n in data["nodes"]:
        assert n["w"] > 20 and n["h"] > 10, n
        if n["task"] in tasks:
            assert n["placement"] == tasks[n["task"]]["placement"], n
            want = data["fpgaColour"] if n["placement"] == "fpga" else data["cpuColour"]
            assert n["fill"] == want, n
            assert n["task"][:10] in n["text"]
    assert len(data["edges"]) == len(graph_json["edges"])
    for e in data["edges"]:
        assert e["len"] > 0, e
    by_bytes = sorted(data["edges"], key=lambda e: e["bytes"])
    if by_bytes and by_bytes[0]["bytes"] < by_bytes[-1]["bytes"]:
        assert by_bytes[0]["width"] < by_bytes[-1]["width"]
    assert data["svgWidth"] <= WIDTH
    # the resource bars: the plan.json figures, drawn to scale
    res = plan_data["resources"]
    assert [b["resource"] for b in data["bars"]] == ["lut", "ff", "dsp", "bram18"]
    for b in data["bars"]:
        r = b["resource"]
        for cls, key in (
            ("kernels", "used"),
            ("shell", "shell"),
            ("budget", "budget"),
            ("available", "available"),
        ):
            fig = b["figs"][cls]
            assert fig["path"] == f"plan.resources.{key}.{r}"
            assert json.loads(fig["value"]) == res[key][r]
            assert fig["text"] == f"{res[key][r]:,.0f}"
        avail = res["available"][r]
        assert b["shellWidth"] == pytest.approx(b["barWidth"] * res["shell"][r] / avail, abs=1.5)
        assert b["kernelsWidth"] == pytest.approx(b["barWidth"] * res["used"][r] / avail, abs=1.5)
        cap = res["budget"][r] + res["shell"][r]
        assert b["capLeft"] == pytest.approx(b["barWidth"] * cap / avail, abs=2.5)
        if res["used"][r]:
            assert b["kernelsColour"] == data["fpgaColour"]
    # every figure on the page: the raw value is plan.json's (or the verification's), exactly
    paths = set()
    for f in data["nums"]:
        if f["path"]:
            paths.add(f["path"])
            assert json.loads(f["value"]) == resolve(f["path"], plan_data, verification), f
        else:
            assert f["derived"] and f["from"], f
            for src in f["from"].split():
                resolve(src, plan_data, verification)
    for i, t in enumerate(plan_data["tasks"]):
        assert f"plan.tasks.{i}.cpu_s" in paths and f"plan.tasks.{i}.reason" in paths
        if t.get("fpga"):
            assert f"plan.tasks.{i}.fpga.total_s" in paths
    # the predicted times
    p = plan_data["predicted"]
    assert data["prediction"]["plan.predicted.plan_s"]["value"] == p["plan_s"]
    assert data["prediction"]["plan.predicted.all_cpu_s"]["value"] == p["all_cpu_s"]
    if p["speedup"]:
        assert data["prediction"]["plan.predicted.speedup"]["value"] == p["speedup"]
        assert data["prediction"]["plan.predicted.speedup"]["text"] == f"{p['speedup']:,.2f}×"
    # the timeline: sequential segments that end at the plan's predicted time; AXI-Stream chains
    # are drawn unchained (each kernel through DDR), so it ends later by what they save
    segs = data["segs"]
    assert segs, "no timeline drawn"
    for a, b in itertools.pairwise(segs):
        assert b["start"] == pytest.approx(a["end"], rel=1e-12, abs=1e-15)
    assert segs[0]["start"] == 0.0
    unchained = p["plan_s"] + sum(c["saving_s"] for c in plan_data.get("chains") or [])
    assert segs[-1]["end"] == pytest.approx(unchained, rel=1e-9)
    fpga_tasks = {t["name"] for t in plan_data["tasks"] if t["placement"] == "fpga"}
    assert {s["label"] for s in segs if s["row"] == "FPGA"} == fpga_tasks
    # verification: a row per FPGA kernel, "not run" where there are no results
    kernels = {t.get("kernel", t["name"]) for t in plan_data["tasks"] if t["placement"] == "fpga"}
    assert {v["kernel"] for v in data["verification"]} >= kernels
    for v in data["verification"]:
        for step, status in v["cells"].items():
            want = (verification.get(v["kernel"]) or {}).get(step)
            assert status == (want["status"] if want else "not-run")
    assert not data["external"], data["external"]


# =====================================================================================
# Every example's report.html in the browser
# =====================================================================================


@pytest.mark.slow
def test_every_example_report_renders_in_chromium(example_builds, browser):
    for name, (tree, plan_data) in sorted(example_builds.items()):
        page = tree / "report.html"
        assert page.is_file(), f"{name}: the build tree has no report.html"
        graph_json = json.loads((tree / "graph.json").read_text())
        shot = ARTIFACTS / f"report-{name}.png"
        data, problems = render_in_browser(browser, page, shot)
        assert not problems, f"{name}: {problems}"
        assert data["title"] == f"partition plan: {plan_data['app']} on {plan_data['board']['name']}"
        check_page(data, plan_data, graph_json)
        assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 20_000


def test_small_app_report_with_verification_in_chromium(tmp_path, small_tree, browser):
    """`partition report` after results were written: their status and figures are on the page."""
    plan_data = json.loads((small_tree / "plan.json").read_text())
    kernel = next(t["kernel"] for t in plan_data["tasks"] if t["placement"] == "fpga")
    sha = __import__("hashlib").sha256((small_tree / "kernels" / f"{kernel}.json").read_bytes()).hexdigest()
    write_result(small_tree, kernel, "csim", status="pass", vectors=3, kernel_sha256=sha)
    write_result(small_tree, kernel, "rtl_sim", status="pass", vectors=3, cycles=2270, tool="verilator")
    write_result(small_tree, kernel, "yosys", status="fail", detail="synth_xilinx failed")
    regenerate(small_tree)
    verification = load_verification(small_tree)
    data, problems = render_in_browser(
        browser, small_tree / "report.html", ARTIFACTS / "report-small_app.png"
    )
    assert not problems, problems
    graph_json = json.loads((small_tree / "graph.json").read_text())
    check_page(data, plan_data, graph_json, verification)
    row = next(v for v in data["verification"] if v["kernel"] == kernel)
    assert row["cells"] == {"csim": "pass", "rtl_sim": "pass", "cosim": "not-run", "yosys": "fail"}
    cycles = [f for f in data["nums"] if f["path"] == f"verification.{kernel}.rtl_sim.cycles"]
    assert cycles and all(f["value"] == "2270" for f in cycles)
    # the CPU model: each class's ratio and range, the speedup at both ends, each decision's range
    paths = {f["path"] for f in data["nums"]}
    for c in plan_data["scaling"]["classes"]:
        assert {f"plan.scaling.classes.{c}.{k}" for k in ("ratio", "low", "high")} <= paths
    assert (
        "plan.predicted.range.fast_cpu.speedup" in paths and "plan.predicted.range.slow_cpu.speedup" in paths
    )
    for i, _ in enumerate(plan_data["sensitivity"]["cpu"]["tasks"]):
        assert {
            f"plan.sensitivity.cpu.tasks.{i}.holds_from",
            f"plan.sensitivity.cpu.tasks.{i}.holds_to",
        } <= paths
    assert "plan.sensitivity.fpga_time.stated_range.0" in paths
    assert "plan.sensitivity.resources.stated_range.1" in paths


# =====================================================================================
# Unit tests (no browser)
# =====================================================================================


@pytest.fixture(scope="module")
def small_plan(tmp_path_factory) -> tuple[Path, dict, dict, Any]:
    """The small CLI app planned once (profiled with a short argument)."""
    from partition.boards import load_board
    from partition.codegen import build_tree
    from partition.fsutil import write_tree
    from partition.plan import Options, make_plan
    from partition.profile import run_profile

    base = tmp_path_factory.mktemp("small")
    board = load_board("pynq-z2")
    profile = run_profile(APPS / "small_app.py", ["300"], samples=1, baseline=False)
    plan = make_plan(profile, APPS, board, Options())
    files, exe = build_tree(plan, profile, board, (APPS / "small_app.py").read_bytes())
    write_tree(base / "tree", files, exe)
    return base / "tree", plan.data, json.loads(files["graph.json"]), profile


@pytest.fixture
def small_tree(tmp_path, small_plan) -> Path:
    dst = tmp_path / "tree"
    shutil.copytree(small_plan[0], dst)
    return dst


def write_result(tree: Path, kernel: str, step: str, **fields: Any) -> Path:
    p = tree / "results" / kernel / f"{step}.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"format": RESULT_FORMAT, "kernel": kernel, "step": step, **fields}))
    return p


def test_the_build_tree_has_the_page_and_it_is_deterministic(small_plan):
    tree, plan_data, graph_json, _ = small_plan
    page = (tree / "report.html").read_text()
    assert page == render_html(plan_data, graph_json)
    assert page == render_html(json.loads(json.dumps(plan_data)), json.loads(json.dumps(graph_json)))
    assert str(tree) not in page and str(ROOT) not in page
    for needle in ("http://", "https://", '<link rel="stylesheet"', "<script src", "@import", "url(http"):
        if needle == "http://":
            # the only http:// is the SVG namespace name, which is never fetched
            assert page.replace('xmlns="http://www.w3.org/2000/svg"', "").count("http://") == 0
        else:
            assert needle not in page


def test_graph_layout_is_a_forward_order_despite_cycles():
    import networkx as nx

    g = nx.DiGraph()
    g.add_node("main", ancestors=[])
    for n in ("a", "b", "c"):
        g.add_node(n, ancestors=["main"])
    g.add_edges_from([("main", "a"), ("a", "b"), ("b", "main"), ("b", "c"), ("c", "c")])
    order, back = layout_order(g)
    assert order[0] == "main"
    assert back == {("b", "main"), ("c", "c")}
    pos = {n: i for i, n in enumerate(order)}
    assert all(pos[u] < pos[v] for u, v in g.edges if (u, v) not in back)


def test_latency_timeline_adds_up_to_the_plan(small_plan):
    _, plan_data, graph_json, _ = small_plan
    from partition.graph import graph_from_json

    order, _ = layout_order(graph_from_json(graph_json))
    tl = timeline(plan_data, order)
    assert tl["source"] == "latency"
    assert tl["total"] == pytest.approx(plan_data["predicted"]["plan_s"], rel=1e-12)
    kinds = {s["kind"] for s in tl["segments"]}
    assert {"main", "fpga", "overhead"} <= kinds


def test_schedule_alternatives_and_sweep_render_when_present(small_plan):
    _, plan_data, graph_json, _ = small_plan
    base = render_html(plan_data, graph_json)
    assert 'id="alternatives"' not in base and 'id="sweep"' not in base
    fpga = [t["name"] for t in plan_data["tasks"] if t["placement"] == "fpga"]
    extra = json.loads(json.dumps(plan_data))
    extra["schedule"] = [
        {"task": "<main>", "kind": "main", "resource": "cpu0", "start_s": 0.0, "end_s": 0.5},
        {"task": fpga[0], "kind": "task", "resource": "fpga", "start_s": 0.5, "end_s": 0.75},
        {"task": "describe", "kind": "task", "resource": "cpu1", "start_s": 0.5, "end_s": 0.625},
    ]
    extra["alternatives"] = [{"plan_s": 3.5, "speedup": 1.1, "fpga": [], "status": "Optimal"}]
    extra["sweep"] = {
        "parameters": ["max_util"],
        "rows": [
            {"params": {"max_util": 0.5}, "plan_s": 3.25, "speedup": 1.2, "fpga": fpga, "status": "Optimal"},
            {
                "params": {"max_util": 0.01},
                "plan_s": None,
                "speedup": None,
                "fpga": [],
                "status": "Infeasible",
            },
        ],
    }
    page = render_html(extra, graph_json)
    assert 'id="alternatives"' in page and 'id="sweep"' in page
    assert 'data-path="plan.alternatives.0.plan_s" data-value="3.5"' in page
    assert 'data-path="plan.sweep.rows.0.params.max_util" data-value="0.5"' in page
    assert "Infeasible" in page
    # the schedule is drawn as given: rows are its resources
    assert 'data-row="cpu1"' in page and 'data-row="fpga"' in page
    assert 'data-path="plan.schedule.1.end_s" data-value="0.75"' in page


def test_results_are_read_and_stale_ones_marked(small_tree):
    plan_data = json.loads((small_tree / "plan.json").read_text())
    kernel = next(t["kernel"] for t in plan_data["tasks"] if t["placement"] == "fpga")
    assert load_verification(small_tree) == {}
    write_result(small_tree, kernel, "csim", status="pass", vectors=1, kernel_sha256="0" * 64)
    write_result(small_tree, kernel, "cosim", status="skipped")
    v = load_verification(small_tree)
    assert v[kernel]["csim"]["stale"] is True and "stale" not in v[kernel]["cosim"]
    page = render_html(plan_data, json.loads((small_tree / "graph.json").read_text()), v)
    assert "stale: the kernel changed since" in page
    write_result(small_tree, kernel, "yosys", status="maybe")
    with pytest.raises(PartitionError, match=r"yosys\.json: status 'maybe'"):
        load_verification(small_tree)
    (small_tree / "results" / kernel / "yosys.json").write_text("{")
    with pytest.raises(PartitionError, match=r"yosys\.json: not a readable results file"):
        load_verification(small_tree)


def test_regenerate_keeps_the_manifest_right_and_user_edits_safe(small_tree):
    from partition.fsutil import check_user_changes

    page = small_tree / "report.html"
    before = page.read_bytes()
    regenerate(small_tree)
    assert page.read_bytes() == before
    assert check_user_changes(small_tree, force=False) == []
    plan_data = json.loads((small_tree / "plan.json").read_text())
    kernel = next(t["kernel"] for t in plan_data["tasks"] if t["placement"] == "fpga")
    write_result(small_tree, kernel, "csim", status="pass", vectors=1)
    regenerate(small_tree)
    assert page.read_bytes() != before
    assert check_user_changes(small_tree, force=False) == []  # the new page is ours, not an edit
    page.write_text("my notes")
    with pytest.raises(PartitionError, match=r"report\.html: was changed"):
        regenerate(small_tree)
    regenerate(small_tree, force=True)
    assert page.read_text() != "my notes"
    with pytest.raises(PartitionError, match="no such folder"):
        regenerate(small_tree / "nope")
    (small_tree / "graph.json").unlink()
    with pytest.raises(PartitionError, match=r"graph\.json: missing"):
        regenerate(small_tree)


def test_variants_mark_the_chosen_one_and_its_speedup(small_plan):
    _, plan_data, graph_json, _ = small_plan
    data = json.loads(json.dumps(plan_data))
    i, t = next((i, t) for i, t in enumerate(data["tasks"]) if t["placement"] == "fpga")
    fast = dict(t["fpga"]["estimate"], variant="unroll2", cycles=t["fpga"]["estimate"]["cycles"] // 2)
    t["fpga"]["variants"] = [
        {"name": "base", "total_s": t["fpga"]["total_s"], "estimate": t["fpga"]["estimate"]},
        {"name": "unroll2", "total_s": t["fpga"]["total_s"] / 2, "estimate": fast},
    ]
    t["variant"] = "unroll2"
    page = render_html(data, graph_json)
    assert f'data-path="plan.tasks.{i}.fpga.variants.1.total_s"' in page
    assert '<div class="variant chosen"><span class="vname">unroll2</span>' in page
    assert '<div class="variant"><span class="vname">base</span>' in page
    speedup = t["cpu_s"] / (t["fpga"]["total_s"] / 2)
    assert (
        f'data-derived="true" data-from="plan.tasks.{i}.cpu_s plan.tasks.{i}.fpga.variants.1.total_s" data-value="{speedup!r}"'
        in page
    )


def test_a_plan_that_keeps_everything_on_the_cpu(small_plan):
    from partition.boards import load_board
    from partition.codegen import build_tree
    from partition.graph import graph_from_json
    from partition.plan import Options, make_plan

    _, _, _, profile = small_plan
    plan = make_plan(profile, APPS, load_board("pynq-z2"), Options(pin_cpu=["scale_add"]))
    files, _ = build_tree(plan, profile, load_board("pynq-z2"), (APPS / "small_app.py").read_bytes())
    graph_json = json.loads(files["graph.json"])
    page = files["report.html"].decode()
    assert 'data-placement="fpga"' not in page
    assert "The plan has no FPGA kernels: nothing to verify." in page
    order, _ = layout_order(graph_from_json(graph_json))
    tl = timeline(plan.data, order)
    assert tl["total"] == pytest.approx(plan.data["predicted"]["plan_s"], rel=1e-12)
    assert not any(s["row"] == "FPGA" for s in tl["segments"])


def test_the_browser_check_sees_errors(tmp_path, browser):
    """The checker is not blind: a script error, a console error and a missing file are all reported."""
    page = tmp_path / "broken.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><link rel='icon' href='data:,'></head><body>"
        "<img src='missing.png'><script>console.error('bad figure'); notAFunction();</script></body></html>"
    )
    _, problems = render_in_browser(browser, page, tmp_path / "broken.png")
    text = "\n".join(problems)
    assert "console: bad figure" in text
    assert "exception:" in text and "notAFunction" in text
    assert "missing.png" in text or "failed load" in text
