"""The `cpu` backend: the original Python functions behind the same wrapper.

Calls go through the same guards, fallback accounting, statistics and --check
path as on hardware, so an app runs identically on any machine. `implementations`
can put another function in a task's place (a model of the kernel, or a
deliberately wrong one to see --check catch it).
"""

from __future__ import annotations

from collections.abc import Callable

from .device import Backend
from .spec import KernelSpec, Spec


class CpuBackend(Backend):
    name = "cpu"
    executes_python = True

    def __init__(self, implementations: dict[str, Callable] | None = None):
        super().__init__()
        self.implementations = dict(implementations or {})

    def open(self, spec: Spec) -> None:
        unknown = sorted(set(self.implementations) - set(spec.tasks))
        if unknown:
            from .errors import BackendError

            raise BackendError(f"cpu backend: implementations for unknown task(s) {', '.join(unknown)}")
        self.info["backend"] = "cpu (the original Python functions)"

    def implementation(self, kernel: KernelSpec, function: Callable) -> Callable:
        return self.implementations.get(kernel.task, function)
