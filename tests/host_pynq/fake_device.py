"""An in-memory stand-in for a board: a register file, device memory and a behavioural kernel.

It implements the runtime's backend interface (partition_runtime.device) the way the
hardware behaves, independently of the runtime's own conversions:

* each buffer has a host array and a separate device copy; only flush() moves host
  data to the device and only invalidate() moves device data back, so a missing
  cache operation shows up as wrong results;
* buffer addresses lie above 4 GiB, so a lost high pointer word is caught;
* the kernel's CTRL register: writing ap_start starts it, ap_idle drops, and after
  `latency` reads of CTRL it computes and latches ap_done, which the next read
  returns and clears (clear on read);
* computing means decoding the argument registers with numpy (pointers to device
  arrays, scalars from their bits, record arguments rebuilt from their fields'
  registers and compiled-in constants), running the reference Python function on
  device memory, and encoding its scalar return into ap_return.
* an AXI-Stream chain (spec "chains") is a FIFO of bytes per consumer argument: a
  producer's streamed result goes into it, and a consumer that finds it empty keeps
  running (not done) until the producer has computed.

Only numpy and partition_runtime are needed (it also runs in the board-like venv).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from partition_runtime.device import Backend, DeviceBuffer, KernelPort
from partition_runtime.spec import KernelSpec, Spec, np_dtype

BASE_ADDRESS = 0x8_0000_1000  # above 4 GiB: both pointer words matter


def _uint(dtype: np.dtype) -> np.dtype:
    return np.dtype(f"<u{dtype.itemsize}")


def decode_register(words: list[int], dtype_name: str) -> Any:
    """Register words (low first) -> numpy scalar of dtype, by reinterpreting bytes."""
    dt = np_dtype(dtype_name)
    raw = np.array(words, dtype="<u4").tobytes()[: dt.itemsize]
    return np.frombuffer(raw, dtype=dt)[0]


def encode_register(value: Any, dtype_name: str) -> list[int]:
    dt = np_dtype(dtype_name)
    raw = np.array([value], dtype=dt).tobytes()
    raw += b"\0" * (-len(raw) % 4)
    return [int(w) for w in np.frombuffer(raw, dtype="<u4")]


class FakeBuffer(DeviceBuffer):
    def __init__(self, device: FakeDevice, shape: tuple[int, ...], dtype: np.dtype, address: int):
        self.device = device
        self.array = np.zeros(shape, dtype=dtype)
        self.array.fill(0x5A if dtype.kind in "iu" else 0)  # stale contents
        self.device_copy = np.zeros(shape, dtype=dtype)
        self.device_address = address
        self.flushes = 0
        self.invalidates = 0
        self.freed = False

    def flush(self) -> None:
        self.flushes += 1
        self.device_copy[...] = self.array

    def invalidate(self) -> None:
        self.invalidates += 1
        self.array[...] = self.device_copy

    def free(self) -> None:
        self.freed = True


class FakeDevice:
    def __init__(self) -> None:
        self.buffers: dict[int, FakeBuffer] = {}
        self.next_address = BASE_ADDRESS
        self.streams: dict[tuple[str, str], list[bytes]] = {}  # (consumer task, param) -> arrays in flight
        self.ports: dict[str, FakePort] = {}

    def allocate(self, shape: tuple[int, ...], dtype: np.dtype) -> FakeBuffer:
        b = FakeBuffer(self, shape, dtype, self.next_address)
        self.buffers[b.device_address] = b
        size = max(int(b.array.nbytes), 1)
        self.next_address += (size + 0xFFF) & ~0xFFF
        return b


class HandBack(Exception):
    """Raised by a fake kernel's model: the kernel hands this call back to the CPU (it sets its
    fallback status and leaves zeros where it would have written)."""


class FakePort(KernelPort):
    def __init__(self, spec: KernelSpec, device: FakeDevice, model: Callable, latency: int = 3):
        self.name = spec.name
        self.spec = spec
        self.device = device
        self.model = model
        self.latency = latency
        self.regs: dict[int, int] = {}
        self.writes: list[tuple[int, int]] = []
        self.ctrl_reads = 0
        self.running = False
        self.remaining = 0
        self.done_latch = False
        self.start_pending = False
        self.hang = False  # never finish (for timeouts)
        self.starts = 0
        device.ports[spec.task] = self

    def write32(self, offset: int, value: int) -> None:
        assert offset % 4 == 0, offset
        assert isinstance(value, int) and 0 <= value <= 0xFFFFFFFF, value
        self.writes.append((offset, value))
        if offset == self.spec.regmap.ctrl:
            if value & 1:
                assert not self.running, "ap_start while running"
                self.running = True
                self.start_pending = True
                self.remaining = self.latency
                self.starts += 1
            return
        self.regs[offset] = value

    def read32(self, offset: int) -> int:
        if offset != self.spec.regmap.ctrl:
            return self.regs.get(offset, 0)
        self.ctrl_reads += 1
        value = 0
        if self.running:
            if self.start_pending:
                value |= 1  # ap_start still set until the core takes it
                self.start_pending = False
            elif not self.hang:
                self.remaining -= 1
                if self.remaining <= 0:
                    self.try_finish()
        if not self.running:
            value |= 4  # ap_idle
        if self.done_latch:
            value |= 2
            self.done_latch = False  # clear on read
        return value

    def try_finish(self) -> None:
        """Compute if every input stream holds its array (else keep running); producers stream first."""
        for name, producer in self.spec.stream_from.items():
            if not self.device.streams.get((self.spec.task, name)):
                other = self.device.ports[producer]
                if other.running and not other.start_pending and not other.hang:
                    other.try_finish()
                if not self.device.streams.get((self.spec.task, name)):
                    return
        self._compute()
        self.running = False
        self.done_latch = True

    def words(self, name: str) -> list[int]:
        reg = self.spec.regmap.by_name(name)
        return [self.regs.get(reg.offset + 4 * i, 0) for i in range(reg.words)]

    def _compute(self) -> None:
        k = self.spec
        args: list[Any] = [None] * len(k.py_params)
        fields: dict[int, dict[str, Any]] = {}
        produced = {}
        for p in k.params:
            if p.stream:
                if p.direction == "in":
                    data = self.device.streams[(k.task, p.name)].pop(0)
                    args[p.position] = np.frombuffer(data, dtype=p.np).reshape(p.shape).copy()
                else:
                    produced[p.name] = None
                continue
            w = self.words(p.name)
            if p.kind == "array":
                address = w[0] | (w[1] << 32)
                buf = self.device.buffers[address]  # KeyError: a pointer to nowhere
                assert buf.device_copy.shape == p.shape and buf.device_copy.dtype == p.np
                if p.origin == "arg":
                    args[p.position] = buf.device_copy
                else:
                    produced[p.name] = buf
            else:
                v = decode_register(w, p.dtype)
                if p.pytype == "int":
                    v = int(v)
                elif p.pytype == "float":
                    v = float(v)
                elif p.pytype == "bool":
                    v = bool(v)
                if p.field is not None:
                    fields.setdefault(p.position, {})[p.field] = v
                else:
                    args[p.position] = v
        for pos, name in enumerate(k.py_params):
            if name in k.specialised:
                e = k.specialised[name]
                v = e["value"]
                args[pos] = np_dtype(e["dtype"]).type(v) if e["pytype"] == "npscalar" else v
            st = k.structs.get(name)
            if st is not None:
                values = fields.get(pos, {})
                for f, e in st.constants.items():
                    values[f] = (
                        np_dtype(e["dtype"]).type(e["value"]) if e["pytype"] == "npscalar" else e["value"]
                    )
                args[pos] = st.build(values)
        status = (
            k.regmap.by_name("fallback") if any(r.name == "fallback" for r in k.regmap.registers) else None
        )
        try:
            result = self.model(*args)
        except HandBack:
            if status is None:
                raise AssertionError(f"{k.task} has no fallback register to hand a call back with") from None
            self.regs[status.offset] = 1
            for p in k.params:  # what a kernel that stopped leaves: zeros
                if p.name in produced and produced[p.name] is None:
                    self.device.streams.setdefault(k.stream_to, []).append(np.zeros(p.shape, p.np).tobytes())
                elif p.name in produced:
                    produced[p.name].device_copy[...] = 0
            return
        if status is not None:
            self.regs[status.offset] = 0
        items = list(result) if k.return_tuple else ([result] if k.returns else [])
        for (kind, what), item in zip(k.returns, items):
            if kind == "scalar":
                reg = k.regmap.by_name("ap_return")
                for i, word in enumerate(encode_register(item, k.ret_dtype)):
                    self.regs[reg.offset + 4 * i] = word
            elif what in produced and produced[what] is None:  # streams into the consumer
                item = np.asarray(item, dtype=next(p.np for p in k.params if p.name == what))
                self.device.streams.setdefault(k.stream_to, []).append(item.tobytes())
            elif what in produced:
                produced[what].device_copy[...] = item


class FakeBackend(Backend):
    """Backend over FakeDevice; `models` maps task -> the function the 'hardware' computes."""

    name = "fake"

    def __init__(self, models: dict[str, Callable], latency: int = 3):
        super().__init__()
        self.models = models
        self.latency = latency
        self.device = FakeDevice()
        self.ports: dict[str, FakePort] = {}
        self.closed = False

    def open(self, spec: Spec) -> None:
        for k in spec.kernels:
            self.ports[k.task] = FakePort(k, self.device, self.models[k.task], self.latency)

    def port(self, kernel: KernelSpec) -> KernelPort:
        return self.ports[kernel.task]

    def allocate(self, shape: tuple[int, ...], dtype: np.dtype) -> DeviceBuffer:
        return self.device.allocate(shape, dtype)

    def close(self) -> None:
        self.closed = True
