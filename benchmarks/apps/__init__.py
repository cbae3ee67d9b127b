"""Benchmark apps where the CPU/FPGA decision is not obvious: each file but this one is an app.

Each is a plain script with a `main()` (`python benchmarks/apps/NAME.py`), documented at its top
with what makes its decision hard. `benchmarks/bench_baselines.py` plans them against simple
baselines and `tests/test_bench_apps.py` checks the decision each is built to provoke, both from
the profile saved in profiles/NAME.json (profiled CPU times on a shared host vary by more than
the margins these apps are tuned to, so a fresh profile is not reproducible; `python
benchmarks/bench_baselines.py --reprofile` makes new ones).
"""

from pathlib import Path

DIR = Path(__file__).resolve().parent
PROFILES = DIR / "profiles"
NAMES = tuple(sorted(p.stem for p in DIR.glob("*.py") if p.name != "__init__.py"))

# boards each app is planned for (the first is the one it is tuned for); default: pynq-z2 only
BOARDS = {
    "camera_isp": ("pynq-z2", "ultra96v2", "kv260"),
    "ecg_qrs": ("pynq-z2", "kv260", "ultra96v2"),
    "loudness": ("pynq-z2", "kv260"),
    "machine_monitor": ("pynq-z2", "kv260", "ultra96v2"),
    "seismic_trigger": ("pynq-z2", "kv260", "ultra96v2"),
    "web_inspection": ("pynq-z2", "kv260"),
}
