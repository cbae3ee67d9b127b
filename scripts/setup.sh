#!/usr/bin/env bash
# Set up everything partition needs on a fresh Debian 12 machine: system tools
# (via apt when missing and running as root) and a virtualenv with the package.
# Usage: scripts/setup.sh [VENV_DIR] [PYTHON]
set -euo pipefail

VENV="${1:-.venv}"
PY="${2:-python3}"

need=()
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v perl >/dev/null || need+=(perl)
command -v yosys >/dev/null || need+=(yosys)
command -v iverilog >/dev/null || need+=(iverilog)
command -v ccache >/dev/null || need+=(ccache)
command -v tclsh >/dev/null || need+=(tcl)
[[ -f /usr/include/lz4.h ]] || need+=(liblz4-dev)   # Verilator FST waveforms (make sim WAVES=1)
"$PY" -c "import ensurepip, venv" 2>/dev/null || need+=(python3-venv)

if ((${#need[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "setup: installing ${need[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "setup: missing system packages: ${need[*]}" >&2
    echo "setup: install them (Debian: sudo apt-get install ${need[*]}) and run again" >&2
    exit 1
  fi
fi

if [[ ! -x "$VENV/bin/python" ]]; then
  echo "setup: creating virtualenv $VENV"
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e ".[dev]"
echo "setup: done ($("$VENV/bin/partition" --version))"
