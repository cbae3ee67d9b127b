"""The runtime's pynq backend against the real pynq 3.1.2 package, off the board.

    python pynq_checks.py WORK_DIR RUNTIME_DIR

WORK_DIR holds overlay/resizer.bit (a stand-in) + overlay/resizer.hwh (PYNQ's resizer
design: an HLS IP xilinx.com:hls:resize_accel:1.0 with 32-bit registers src_rows@0x10,
src_cols@0x18, dst_rows@0x20, dst_cols@0x28) and specs written by partition:

    scalar_kernels.json    task `resize`: the IP's four registers, as partition lays them out
    buffer_kernels.json    task `vmix`: arrays and a scalar, bound to the same IP (registers by offset)
    swapped_kernels.json   task `resize` with two arguments swapped (must be refused)

Prints "ok <check>" per check, or a traceback and "FAIL <check>"; exits non-zero on failure.
"""

import io
import sys
import traceback
import warnings
from pathlib import Path

WORK = Path(sys.argv[1])
sys.path.insert(0, sys.argv[2])
sys.path.insert(0, str(Path(__file__).resolve().parent))

import mock_pynq  # noqa: E402
import numpy as np  # noqa: E402
import pynq  # noqa: E402
from partition_runtime import KernelTimeout, OverlayError, Runtime, load_spec  # noqa: E402
from partition_runtime.pynq_backend import PynqBackend, PynqPort  # noqa: E402

BIT = WORK / "overlay" / "resizer.bit"
IP_BASE = 0x43C00000
IP_RANGE = 0x10000


def resize(src_rows, src_cols, dst_rows, dst_cols):
    return None


def vmix(src, acc, n):
    acc += np.float32(n)
    return (src.astype(np.int32) * n).astype(np.int32), int(src.sum()) + n


def _load(spec: str, model: mock_pynq.KernelModel, **options):
    dev = mock_pynq.install()
    dev.add_model(IP_BASE, IP_RANGE, model)
    backend = PynqBackend(**options)
    functions = {"resize": resize} if "scalar" in spec or "swapped" in spec else {"vmix": vmix}
    rt = Runtime(backend, WORK / spec, functions=functions, log=io.StringIO())
    return dev, backend, rt


def check_overlay_binding_and_scalar_registers():
    model = mock_pynq.KernelModel()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev, backend, rt = _load("scalar_kernels.json", model)
    ol = backend.overlay
    assert isinstance(ol, pynq.Overlay) and dev.downloads == 1
    ip = ol.resize_accel_0
    assert type(ip).__name__ == "PartitionKernel_resize_accel" and isinstance(ip, pynq.DefaultIP), type(ip)
    assert ol.ip_dict["resize_accel_0"]["type"] == "xilinx.com:hls:resize_accel:1.0"
    port = backend.ports["resize"]
    assert isinstance(port, PynqPort) and port.path == "resize_accel_0"
    # registers through pynq's register array (MMIO.array), not MMIO.write/read's checked calls
    assert port.write32.__qualname__.startswith("_register_access"), port.write32
    assert port.read32.__qualname__.startswith("_register_access"), port.read32
    # the .hwh's register map and partition's agree (the backend also checks this itself)
    hwh_regs = {n: r["address_offset"] for n, r in ol.ip_dict["resize_accel_0"]["registers"].items()}
    spec_regs = {r.name: r.offset for r in rt.spec.kernel("resize").regmap.registers}
    assert spec_regs == {"src_rows": 0x10, "src_cols": 0x18, "dst_rows": 0x20, "dst_cols": 0x28}
    assert all(hwh_regs[n] == off for n, off in spec_regs.items()), hwh_regs
    assert (hwh_regs["CTRL"], hwh_regs["GIER"], hwh_regs["IP_IER"], hwh_regs["IP_ISR"]) == (0, 4, 8, 12)
    # PL clock: pynq applied the .hwh's divisors (4 x 4 of a 1000 MHz IO PLL = 62.5 MHz); the
    # runtime noticed and set the design's 100 MHz
    assert backend.info["clock_before_mhz"] == 62.5, backend.info
    assert backend.info["clock_after_mhz"] == 100.0
    d0, d1 = dev.fclk0_divisors()
    assert 1000 / (d0 * d1) == 100.0, (d0, d1)
    from pynq.ps import Clocks

    assert Clocks.fclk0_mhz == 100.0
    # a call: four argument writes at the register map's offsets, then ap_start, then polls
    dev.log.clear()
    assert rt["resize"](480, 640, 240, -320) is None
    writes = [(a - IP_BASE, v) for op, a, v in dev.log if op == "w" and IP_BASE <= a < IP_BASE + IP_RANGE]
    assert writes == [(0x10, 480), (0x18, 640), (0x20, 240), (0x28, (-320) & 0xFFFFFFFF), (0x00, 1)], writes
    reads = [(a - IP_BASE, v) for op, a, v in dev.log if op == "r" and IP_BASE <= a < IP_BASE + IP_RANGE]
    assert all(off == 0 for off, _ in reads)  # only CTRL is read
    assert reads[-1][1] & 2 and not any(v & 2 for _, v in reads[:-1])  # polled until ap_done
    assert model.read(0) & 2 == 0  # ap_done was consumed by the poll (clear on read)
    assert model.starts == 1
    st = rt.kernel("resize").stats
    assert (st.calls, st.fallbacks) == (1, 0)
    # the next call writes only the registers whose value changed, then ap_start
    dev.log.clear()
    assert rt["resize"](480, 640, 120, -320) is None
    writes = [(a - IP_BASE, v) for op, a, v in dev.log if op == "w" and IP_BASE <= a < IP_BASE + IP_RANGE]
    assert writes == [(0x20, 120), (0x00, 1)], writes
    assert model.starts == 2 and (st.calls, st.fallbacks) == (2, 0)
    # a value that does not fit the 32-bit register runs on the CPU, with no register traffic
    dev.log.clear()
    assert rt["resize"](2**40, 1, 1, 1) is None
    assert not [e for e in dev.log if IP_BASE <= e[1] < IP_BASE + IP_RANGE] and st.fallbacks == 1


def check_buffers_and_cache_maintenance():
    off = {r.name: r.offset for r in load_spec(WORK / "buffer_kernels.json").kernel("vmix").regmap.registers}

    def compute(m):
        src = dev.device_array(m.word64(off["src"]))
        acc = dev.device_array(m.word64(off["acc"]))
        out = dev.device_array(m.word64(off["out_r"]))
        n = m.regs[off["n"]]
        n = n - (1 << 32) if n >> 31 else n
        prod, total = vmix(src, acc, n)
        out[...] = prod
        m.regs[off["ap_return"]] = total & 0xFFFFFFFF
        m.regs[off["ap_return"] + 4] = (total >> 32) & 0xFFFFFFFF

    model = mock_pynq.KernelModel(compute)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev, _backend, rt = _load("buffer_kernels.json", model)
    assert list(off) == ["ap_return", "src", "acc", "out_r", "n"]
    src = np.arange(64, dtype=np.int16) - 20
    acc = np.ones((4, 4), dtype=np.float32)
    acc_ref = acc.copy()
    prod, total = rt["vmix"](src, acc, -3)
    want_prod, want_total = vmix(src, acc_ref, -3)
    assert type(prod) is np.ndarray and not isinstance(prod, pynq.buffer.PynqBuffer)
    assert prod.dtype == np.int32 and np.array_equal(prod, want_prod)
    assert type(total) is int and total == want_total, (total, want_total)
    assert np.array_equal(acc, acc_ref)  # inout: new contents back in the caller's array
    # real PynqBuffers from pynq.allocate(..., cacheable=True), at addresses above 4 GiB
    assert len(dev.allocations) == 3 and all(a.get("cacheable") is True for a in dev.allocations)
    assert model.word64(off["src"]) >= 1 << 32 and model.word64(off["src"]) in dev.by_address
    # cache maintenance: inputs flushed before ap_start, written buffers invalidated after ap_done
    bo = {
        dev.by_address[model.word64(off)]: name
        for off, name in ((off["src"], "src"), (off["acc"], "acc"), (off["out_r"], "out"))
    }
    syncs = [(op, bo[b]) for op, b in dev.syncs]
    call = [("flush", "src"), ("flush", "acc"), ("invalidate", "acc"), ("invalidate", "out")]
    first = [("flush", "src")] * 2 + [("flush", "acc")] * 2 + [("flush", "out")] + call[2:]  # + once when new
    assert syncs == first, syncs
    # prod is the out buffer itself, lent to the app: dropping it gives the buffer back, flushed
    del prod
    assert [(op, bo[b]) for op, b in dev.syncs][-1] == ("flush", "out")
    dev.syncs.clear()
    rt["vmix"](src, acc, 1)  # its result is dropped at once
    assert [(op, bo[b]) for op, b in dev.syncs] == [*call, ("flush", "out")]
    # buffers are reused across calls
    for _ in range(3):
        rt["vmix"](src, acc, 2)
    assert len(dev.allocations) == 3 and model.starts == 5
    rt.close()


def check_timeout_names_kernel():
    model = mock_pynq.KernelModel()
    model.hang = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _dev, _backend, rt = _load("scalar_kernels.json", model)
    rt.timeout = 0.05
    try:
        rt["resize"](1, 2, 3, 4)
    except KernelTimeout as e:
        assert "resize_accel" in str(e) and "0.05 s" in str(e) and "ap_idle=0" in str(e), str(e)
    else:
        raise AssertionError("no timeout")


def check_register_mismatch_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _load("swapped_kernels.json", mock_pynq.KernelModel())
        except OverlayError as e:
            assert "src_cols at 0x18" in str(e) and "0x10" in str(e), str(e)
        else:
            raise AssertionError("a register map that contradicts the .hwh was accepted")


def check_missing_overlay_files():
    mock_pynq.install()
    try:
        Runtime(PynqBackend(overlay=WORK / "overlay" / "absent.bit"), WORK / "scalar_kernels.json")
    except OverlayError as e:
        assert "absent.bit" in str(e) and "absent.hwh" in str(e) and "make bitstream" in str(e), str(e)
    else:
        raise AssertionError("missing overlay accepted")


def check_no_download_keeps_clock_alone():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev, backend, _rt = _load("scalar_kernels.json", mock_pynq.KernelModel(), download=False)
    assert dev.downloads == 0 and backend.info["clock"] == "FCLK0 100 MHz", backend.info


class FakeInterrupt:
    """Stands in for pynq.Interrupt (which needs the board's UIO device): the kernel raises its
    interrupt line a few event-loop turns after starting, or never when it hangs."""

    def __init__(self, model):
        self.model = model
        self.waits = 0

    async def wait(self):
        import asyncio

        self.waits += 1
        while self.model.hang or not self.model.running:
            await asyncio.sleep(0.001)
        for _ in range(3):
            await asyncio.sleep(0)
        self.model.running = False
        self.model.done_latch = True


def check_interrupt_wait():
    model = mock_pynq.KernelModel()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev, backend, rt = _load("scalar_kernels.json", model, interrupts=True)
    assert backend.info["completion"] == "polling (no interrupt wired)"  # the resizer's IP has none
    port = backend.ports["resize"]
    irq = FakeInterrupt(model)
    port.use_interrupt(irq, backend._loop, 0x4, 0x8)
    assert (model.regs[0x4], model.regs[0x8]) == (1, 1)  # GIE, IER ap_done
    dev.log.clear()
    assert rt["resize"](1, 2, 3, 4) is None
    ip_writes = [(a - IP_BASE, v) for op, a, v in dev.log if op == "w" and IP_BASE <= a < IP_BASE + IP_RANGE]
    assert (
        ip_writes[-1] == (0xC, 1) and (0x0, 1) in ip_writes
    )  # ap_start, then ISR cleared after the interrupt
    ctrl_reads = [v for op, a, v in dev.log if op == "r" and a == IP_BASE]
    assert len(ctrl_reads) == 1 and ctrl_reads[0] & 2  # one read, consuming ap_done
    assert irq.waits == 1
    model.hang = True
    rt.timeout = 0.05
    try:
        rt["resize"](1, 2, 3, 4)
    except KernelTimeout as e:
        assert "resize_accel" in str(e)
    else:
        raise AssertionError("no timeout while waiting for the interrupt")
    rt.close()


CHECKS = [v for k, v in sorted(globals().items()) if k.startswith("check_")]

if __name__ == "__main__":
    failed = 0
    for check in CHECKS:
        name = check.__name__[len("check_") :]
        try:
            check()
            print(f"ok {name}", flush=True)
        except Exception:
            failed += 1
            traceback.print_exc(file=sys.stdout)
            print(f"FAIL {name}", flush=True)
    print(
        f"pynq {pynq.__version__}, numpy {np.__version__}, python {sys.version.split()[0]}: "
        f"{len(CHECKS) - failed} passed, {failed} failed"
    )
    sys.exit(1 if failed else 0)
