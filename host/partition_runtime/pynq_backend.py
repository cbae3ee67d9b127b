"""The `pynq` backend: the overlay on the board, driven through pynq 3.1 (PYNQ images v3.x).

Zynq HLS IP has no `.call()` in pynq 3.1, so the runtime writes the argument
registers and polls ap_done itself. This module only adapts pynq:

* one `DefaultIP` subclass per kernel, bound to its VLNV, defined before the
  `Overlay` is constructed (pynq assigns drivers in `Overlay.__init__`);
* the IP found by VLNV in `ip_dict`, its address range and (when the .hwh
  lists them) its argument register offsets checked against the spec;
* the PL clock: pynq programs the FCLK divisors recorded in the .hwh, which are
  wrong when the block design assumed another PS reference clock; the design
  clock is read back and set when it is off by more than the spec's tolerance;
* buffers from `pynq.allocate(shape, dtype, cacheable=True)` with explicit
  flush/invalidate (non-cacheable buffers make every numpy access slow);
* optionally (`interrupts=True`) GIE/IER and `pynq.Interrupt.wait()` instead of
  polling, when the kernel's interrupt pin is wired in the overlay.
"""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from .device import AP_DONE, AP_IDLE, CTRL, Backend, DeviceBuffer, KernelPort
from .errors import BackendError, KernelTimeout, OverlayError
from .spec import KernelSpec, Spec

BOARD_HINT = (
    "on a PYNQ board run as root with the PYNQ environment, e.g. "
    "sudo bash -lc 'source /etc/profile.d/pynq_venv.sh; source /etc/profile.d/xrt_setup.sh; "
    "python3 host/run_app.py'; elsewhere use --backend cpu"
)


def import_pynq() -> Any:
    try:
        import pynq
    except ImportError as e:
        raise BackendError(f"the pynq backend needs the pynq package ({e}); {BOARD_HINT}") from None
    return pynq


class PynqBuffer(DeviceBuffer):
    def __init__(self, buf: Any):
        self.buffer = buf
        self.array = buf
        self.device_address = int(buf.device_address)
        self.flush = buf.flush  # type: ignore[method-assign]
        self.invalidate = buf.invalidate  # type: ignore[method-assign]

    def free(self) -> None:
        self.buffer.freebuffer()


def _register_access(regs: Any) -> tuple[Any, Any]:
    """write32/read32 on a 32-bit register array (offsets in bytes, word-aligned: the register map's)."""

    def write32(offset: int, value: int) -> None:
        regs[offset >> 2] = value

    def read32(offset: int) -> int:
        return int(regs[offset >> 2])

    return write32, read32


class PynqPort(KernelPort):
    def __init__(self, kernel: KernelSpec, ip: Any, path: str):
        self.name = kernel.name
        self.ip = ip
        self.path = path
        mmio = getattr(ip, "mmio", None)
        regs = getattr(mmio, "array", None)
        if regs is not None:
            # pynq's own view of the register page (numpy over the mmap, or its hooked array on
            # a register-access device): MMIO.write/read index the same array after argument
            # checks and a call layer, which cost about ten times the access itself on a CPU
            # core (0.71 against 0.07 us on x86), tens of microseconds on the board
            self.write32, self.read32 = _register_access(regs)  # type: ignore[method-assign]
        elif mmio is not None:  # MMIO.write/read are what ip.write/ip.read call
            self.write32, self.read32 = mmio.write, mmio.read  # type: ignore[method-assign]
        else:
            self.write32, self.read32 = ip.write, ip.read  # type: ignore[method-assign]
        self.interrupt: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._isr = kernel.regmap.isr

    def use_interrupt(self, interrupt: Any, loop: asyncio.AbstractEventLoop, gie: int, ier: int) -> None:
        self.interrupt = interrupt
        self._loop = loop
        self.write32(gie, 1)
        self.write32(ier, 1)  # ap_done

    def wait_done(self, timeout: float) -> int:
        if self.interrupt is None or self._loop is None:
            return super().wait_done(timeout)
        try:
            self._loop.run_until_complete(asyncio.wait_for(self.interrupt.wait(), timeout))
        except asyncio.TimeoutError:  # not the builtin TimeoutError before Python 3.11
            raise KernelTimeout(self.name, timeout, self.read32(CTRL)) from None
        self.write32(self._isr, 1)  # toggle-on-write: clear the ap_done interrupt status
        ctrl = self.read32(CTRL)  # consume ap_done
        if not ctrl & (AP_DONE | AP_IDLE):
            raise KernelTimeout(self.name, timeout, ctrl)
        return 1


class PynqBackend(Backend):
    """Options: overlay (.bit path; default from the spec), download (program the PL, default True),
    interrupts (wait on the kernel's interrupt when wired), set_clock (default True),
    device (a pynq Device; default the active one)."""

    name = "pynq"

    def __init__(
        self,
        overlay: str | Path | None = None,
        download: bool = True,
        interrupts: bool = False,
        set_clock: bool = True,
        device: Any = None,
    ):
        super().__init__()
        self.overlay_path = Path(overlay) if overlay is not None else None
        self.download = download
        self.interrupts = interrupts
        self.set_clock = set_clock
        self.device = device
        self.overlay: Any = None
        self.ports: dict[str, PynqPort] = {}
        self.drivers: dict[str, type] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    # ---------------------------------------------------------------- open

    def open(self, spec: Spec) -> None:
        pynq = import_pynq()
        bit = self.overlay_path if self.overlay_path is not None else spec.overlay_path()
        hwh = bit.with_suffix(".hwh")
        missing = [str(p) for p in (bit, hwh) if not p.is_file()]
        if missing:
            raise OverlayError(
                f"overlay file(s) not found: {', '.join(missing)}. `make bitstream` in the build tree "
                f"builds them with Vivado and copies {bit.stem}.bit and {bit.stem}.hwh into host/overlay/; "
                "put both files there (the .hwh must sit next to the .bit, same name), or give --overlay PATH.bit"
            )
        self.drivers = {k.task: self._driver_class(pynq, k) for k in spec.kernels}
        try:
            self.overlay = pynq.Overlay(str(bit), download=self.download, device=self.device)
        except Exception as e:
            raise OverlayError(
                f"{bit}: pynq could not load the overlay: {type(e).__name__}: {e}; {BOARD_HINT}"
            ) from None
        self.info["overlay"] = bit.name
        for k in spec.kernels:
            self.ports[k.task] = self._find_ip(k, bit.name)
        if self.set_clock:
            self._check_clock(spec)
        if self.interrupts:
            self._setup_interrupts(spec)

    @staticmethod
    def _driver_class(pynq: Any, k: KernelSpec) -> type:
        """A DefaultIP subclass bound to the kernel's VLNV (registered by pynq's metaclass)."""
        return type(f"PartitionKernel_{k.name}", (pynq.DefaultIP,), {"bindto": list(k.vlnvs)})

    def _find_ip(self, k: KernelSpec, bitname: str) -> PynqPort:
        ip_dict = self.overlay.ip_dict
        keys = sorted(key for key, d in ip_dict.items() if d.get("type") in k.vlnvs)
        if not keys:
            base = k.vlnv.rpartition(":")[0]
            keys = sorted(
                key for key, d in ip_dict.items() if str(d.get("type", "")).rpartition(":")[0] == base
            )
            if keys:
                warnings.warn(
                    f"kernel {k.name}: {keys[0]} is {ip_dict[keys[0]]['type']}, the spec expects {k.vlnv}",
                    RuntimeWarning,
                    stacklevel=3,
                )
        if not keys:
            hls = sorted(
                f"{key} ({d.get('type')})" for key, d in ip_dict.items() if ":hls:" in str(d.get("type"))
            )
            raise OverlayError(
                f"{bitname}: no IP of type {k.vlnv} for kernel {k.name} (HLS IP in this overlay: "
                f"{', '.join(hls) or 'none'}); the bitstream was built from another plan: rebuild it "
                "from this build tree (make bitstream)"
            )
        key = keys[0]
        desc = ip_dict[key]
        addr_range = int(desc.get("addr_range", 0) or 0)
        if addr_range and addr_range < k.regmap.size:
            raise OverlayError(
                f"{bitname}: {key} decodes {addr_range} bytes, kernel {k.name} needs {k.regmap.size}; "
                "the bitstream was built from another plan"
            )
        self._check_registers(k, key, desc.get("registers") or {}, bitname)
        ip = self.overlay
        for part in key.split("/"):
            ip = getattr(ip, part)
        return PynqPort(k, ip, key)

    @staticmethod
    def _check_registers(k: KernelSpec, key: str, registers: dict[str, Any], bitname: str) -> None:
        """Argument offsets named in the .hwh must be where the spec writes them."""
        for reg in k.regmap.registers:
            for name in (reg.name, f"{reg.name}_1"):
                entry = registers.get(name)
                if entry is None:
                    continue
                off = int(entry.get("address_offset", -1))
                if off != reg.offset:
                    raise OverlayError(
                        f"{bitname}: {key} has register {name} at 0x{off:x}, kernel {k.name} writes "
                        f"{reg.name} at 0x{reg.offset:x}; the bitstream was built from another plan"
                    )
                break

    def _check_clock(self, spec: Spec) -> None:
        attr = f"fclk{spec.fclk}_mhz"
        want = spec.pl_mhz
        try:
            from pynq.ps import Clocks

            before = float(getattr(Clocks, attr))
        except Exception as e:
            self.info["clock"] = f"not checked ({type(e).__name__}: {e})"
            warnings.warn(f"PL clock not checked: {e}", RuntimeWarning, stacklevel=3)
            return
        if abs(before - want) <= spec.clock_tolerance * want:
            self.info["clock"] = f"FCLK{spec.fclk} {before:g} MHz"
            return
        setattr(Clocks, attr, want)
        after = float(getattr(Clocks, attr))
        self.info["clock"] = f"FCLK{spec.fclk} {after:g} MHz (set from {before:g} MHz; design {want:g} MHz)"
        self.info["clock_before_mhz"] = before
        self.info["clock_after_mhz"] = after
        if abs(after - want) > spec.clock_tolerance * want:
            warnings.warn(
                f"FCLK{spec.fclk} is {after:g} MHz, the design was built for {want:g} MHz",
                RuntimeWarning,
                stacklevel=3,
            )

    def _setup_interrupts(self, spec: Spec) -> None:
        self._loop = asyncio.new_event_loop()
        wired = []
        for k in spec.kernels:
            port = self.ports[k.task]
            irq = getattr(port.ip, "interrupt", None)
            if irq is not None:
                port.use_interrupt(irq, self._loop, k.regmap.gie, k.regmap.ier)
                wired.append(k.name)
        self.info["completion"] = (
            f"interrupts: {', '.join(wired)}" if wired else "polling (no interrupt wired)"
        )

    # ---------------------------------------------------------------- use

    def port(self, kernel: KernelSpec) -> KernelPort:
        return self.ports[kernel.task]

    def allocate(self, shape: tuple[int, ...], dtype: np.dtype) -> DeviceBuffer:
        pynq = import_pynq()
        target = self.overlay.device if self.overlay is not None else None
        return PynqBuffer(pynq.allocate(shape, dtype=dtype, target=target, cacheable=True))

    def close(self) -> None:
        if self._loop is not None:
            self._loop.close()
            self._loop = None
