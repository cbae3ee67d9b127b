"""The runtime's exceptions: each names what went wrong and what to do about it."""

from __future__ import annotations


class RuntimeFailure(Exception):
    """Base of every error the runtime raises on purpose."""


class SpecError(RuntimeFailure):
    """The kernel spec (<app>_kernels.json) is missing, malformed or from another version."""


class BackendError(RuntimeFailure):
    """A backend cannot be used here (unknown name, pynq not installed, no device)."""


class OverlayError(RuntimeFailure):
    """The overlay cannot be loaded or does not match the spec."""


class KernelTimeout(RuntimeFailure):
    """A kernel did not report ap_done in time."""

    def __init__(self, kernel: str, timeout: float, ctrl: int | None):
        self.kernel = kernel
        self.timeout = timeout
        self.ctrl = ctrl
        if ctrl is None:
            state = "no CTRL value was read"
        else:
            bits = ", ".join(
                f"{name}={(ctrl >> bit) & 1}"
                for name, bit in (("ap_start", 0), ("ap_done", 1), ("ap_idle", 2), ("ap_ready", 3))
            )
            state = f"last CTRL 0x{ctrl:08x} ({bits})"
        super().__init__(
            f"kernel {kernel}: no ap_done within {timeout:g} s; {state}. "
            "A kernel that never starts (ap_start stays 1) is not clocked or not the one this spec was "
            "built for; one that never finishes is waiting on memory. Check that the overlay's .bit/.hwh "
            "come from this build tree, or allow more time (--timeout)."
        )


class KernelBusy(RuntimeFailure):
    """A kernel is still running a call the runtime gave up on."""


class CallError(RuntimeFailure):
    """A call cannot be made (no CPU function registered for a fallback, bad handle use)."""
