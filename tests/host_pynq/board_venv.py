"""A virtualenv that looks like the board's Python side: pynq 3.1.2, numpy < 2 (pynq pins it).

Made once under the repository as .venv-pynq/ (ignored by git) and reused; the
tool's own environment has numpy >= 2, hence a separate venv. It uses Python 3.10
(the PYNQ v3.1 image's) when this machine has it (on PATH or under pyenv), else this interpreter.
Creating it needs PyPI: when PyPI cannot be reached the caller skips, unless
PARTITION_REQUIRE_TOOLS=1, which turns that into a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-pynq"
REQUIREMENTS = ["pynq==3.1.2", "pycparser<3", "numpy<2"]
MARKER = VENV / "partition-requirements.txt"


class Unavailable(Exception):
    """The venv cannot be made because PyPI is unreachable."""


def _python_for_venv() -> str:
    """python3.10 (PATH, or a pyenv installation) when it can make venvs, else this interpreter."""
    candidates = [shutil.which("python3.10") or ""]
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += [str(p) for p in sorted(pyenv_root.glob("versions/3.10*/bin/python3.10"))]
    for cand in candidates:
        if not cand:
            continue
        r = subprocess.run([cand, "-c", "import venv, ensurepip"], capture_output=True, timeout=60)
        if r.returncode == 0:
            return cand
    return sys.executable


def _version(python: str) -> str:
    r = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return r.stdout.strip()


def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv() -> Path:
    """Path of the venv's python, creating the venv when needed."""
    base = _python_for_venv()
    wanted = f"python {_version(base)}\n" + "\n".join(REQUIREMENTS) + "\n"
    if venv_python().exists() and MARKER.is_file() and MARKER.read_text() == wanted:
        return venv_python()
    tmp = Path(tempfile.mkdtemp(prefix=".venv-pynq-", dir=ROOT))
    try:
        r = subprocess.run([base, "-m", "venv", str(tmp)], capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise RuntimeError(f"{base} -m venv failed:\n{r.stdout}{r.stderr}")
        py = tmp / "bin" / "python"
        env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        r = subprocess.run(
            [str(py), "-m", "pip", "install", "--quiet", *REQUIREMENTS],
            capture_output=True,
            text=True,
            timeout=1200,
            env=env,
        )
        if r.returncode != 0:
            probe = subprocess.run(
                [
                    str(py),
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--quiet",
                    "-d",
                    str(tmp / "probe"),
                    "pycparser<3",
                ],
                capture_output=True,
                text=True,
                timeout=300,
                env=env,
            )
            tail = (r.stdout + r.stderr)[-2000:]
            if probe.returncode != 0:
                raise Unavailable(f"PyPI is unreachable; cannot install {' '.join(REQUIREMENTS)}:\n{tail}")
            raise RuntimeError(f"pip install {' '.join(REQUIREMENTS)} failed:\n{tail}")
        (tmp / MARKER.name).write_text(wanted)
        if VENV.exists():
            shutil.rmtree(VENV)
        tmp.rename(VENV)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return venv_python()


def board_python_or_skip():
    """For pytest fixtures: the venv's python, or skip/fail as PARTITION_REQUIRE_TOOLS says."""
    import pytest

    try:
        return ensure_venv()
    except Unavailable as e:
        if os.environ.get("PARTITION_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{e} (PARTITION_REQUIRE_TOOLS=1 requires the pynq venv)", pytrace=False)
        pytest.skip(str(e).splitlines()[0])
