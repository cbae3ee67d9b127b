"""Run a script (the generated calibration) with the mock pynq device: run_with_mock.py SCRIPT ARGS...

The device's kernel at the resizer overlay's address finishes every started call
after two CTRL reads, so the script can make real accelerated calls.
"""

import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mock_pynq

dev = mock_pynq.install()
dev.add_model(0x43C00000, 0x10000, mock_pynq.KernelModel())
script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
