"""partition_runtime: run a partitioned app's FPGA tasks from Python (pynq on the board, or the CPU).

Pure Python for the board's interpreter (PYNQ images: Python 3.10, numpy < 2);
it needs numpy, and pynq for the `pynq` backend.

    from partition_runtime import Runtime
    rt = Runtime("pynq", "host/app_kernels.json", functions={"scale_add": scale_add})
    out = rt["scale_add"](x, y)           # same signature and results as scale_add
    h = rt["scale_add"].start(x, y)       # non-blocking; ... CPU work ...; out = h.wait()
"""

from .core import Runtime, make_backend
from .device import Backend, BufferPool, DeviceBuffer, KernelPort
from .errors import (
    BackendError,
    CallError,
    KernelBusy,
    KernelTimeout,
    OverlayError,
    RuntimeFailure,
    SpecError,
)
from .kernel import AcceleratedKernel, CallHandle, StreamedResult
from .spec import FORMAT, KernelSpec, Spec, load_spec
from .stats import KernelStats

__version__ = "0.1.0"

__all__ = [
    "FORMAT",
    "AcceleratedKernel",
    "Backend",
    "BackendError",
    "BufferPool",
    "CallError",
    "CallHandle",
    "DeviceBuffer",
    "KernelBusy",
    "KernelPort",
    "KernelSpec",
    "KernelStats",
    "KernelTimeout",
    "OverlayError",
    "Runtime",
    "RuntimeFailure",
    "Spec",
    "SpecError",
    "StreamedResult",
    "load_spec",
    "make_backend",
]
