"""Functions called with arrays of several lengths: frames, packets and image strips.

What arrives at a board's ARM cores is seldom of one size: a UART packet of 12 to 200 bytes,
an audio frame cut at a silence, an image strip of however many rows a sensor sent. Each
function here is called with three or more leading lengths (the other dimensions fixed), so
its kernel must be built for the longest with the length in a register, and be right for
every length up to it (the edge vectors add 1, 3, the longest and one less).
"""

import numpy as np

TAPS = np.array([3, -5, 12, 31, 12, -5, 3], dtype=np.int16)


def crc8(packet):
    """CRC-8/ATM (poly 0x07) of a byte packet, bit by bit."""
    crc = 0
    for byte in packet:
        crc ^= int(byte)
        for _ in range(8):
            if crc & 0x80:
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
    return crc


def fletcher16(data):
    s1 = 0
    s2 = 0
    for i in range(len(data)):
        s1 = (s1 + int(data[i])) % 255
        s2 = (s2 + s1) % 255
    return (s2 << 8) | s1


def frame_rms(frame):
    acc = 0
    for s in frame:
        acc += int(s) * int(s)
    return (acc / len(frame)) ** 0.5


def zero_crossings(frame):
    n = 0
    for i in range(1, len(frame)):
        if (frame[i - 1] < 0) != (frame[i] < 0):
            n += 1
    return n


def fir_valid(x):
    """Q15 FIR over a frame, 'valid' part only: len(x) - 6 outputs."""
    out = np.zeros(len(x) - 6, dtype=np.int16)
    for i in range(len(x) - 6):
        acc = 0
        for k in range(7):
            acc += int(x[i + k]) * int(TAPS[k])
        out[i] = min(max(acc >> 6, -32768), 32767)
    return out


def first_difference(x):
    return np.diff(x)


def normalise_frame(x):
    x = x.astype(np.float32)
    return (x - x.mean()) / (x.std() + np.float32(1e-6))


def running_peak(x):
    out = np.empty_like(x)
    peak = x[0]
    for i in range(len(x)):
        if x[i] > peak:
            peak = x[i]
        out[i] = peak
    return out


def count_runs(bits):
    """Number of runs of equal values (run-length coding's symbol count)."""
    runs = 1
    for i in range(1, len(bits)):
        if bits[i] != bits[i - 1]:
            runs += 1
    return runs


def strip_column_sums(strip):
    """Column sums of an image strip of any number of rows, 64 pixels wide."""
    h, w = strip.shape
    out = np.zeros(w, dtype=np.int32)
    for r in range(h):
        for c in range(w):
            out[c] += strip[r, c]
    return out


def strip_threshold(strip, level):
    return np.where(strip > level, 255, 0).astype(np.uint8)


def box_blur_rows(strip):
    """3x3 box blur of an image strip; its border rows and columns copied."""
    h, w = strip.shape
    out = strip.astype(np.int32)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            s = 0
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    s += int(strip[y + dy, x + dx])
            out[y, x] = s // 9
    return out


def insertion_sort(a):
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key


def dot_q15(a, b):
    acc = 0
    for i in range(len(a)):
        acc += int(a[i]) * int(b[i])
    return acc >> 15


def _lengths(rng, lo, hi, k=4):
    return sorted({int(n) for n in rng.integers(lo, hi, k)} | {hi})


def _frames(rng, lo, hi, dtype, vlo, vhi):
    return [(rng.integers(vlo, vhi, n).astype(dtype),) for n in _lengths(rng, lo, hi)]


INPUTS = {
    "crc8": lambda rng: _frames(rng, 12, 200, np.uint8, 0, 256),
    "fletcher16": lambda rng: _frames(rng, 12, 200, np.uint8, 0, 256),
    "frame_rms": lambda rng: _frames(rng, 64, 512, np.int16, -32768, 32767),
    "zero_crossings": lambda rng: _frames(rng, 64, 512, np.int16, -2000, 2000),
    "fir_valid": lambda rng: _frames(rng, 64, 512, np.int16, -32768, 32767),
    "first_difference": lambda rng: _frames(rng, 16, 300, np.int32, -100000, 100000),
    "normalise_frame": lambda rng: _frames(rng, 64, 400, np.int16, -3000, 3000),
    "running_peak": lambda rng: _frames(rng, 16, 300, np.int32, -1000, 1000),
    "count_runs": lambda rng: _frames(rng, 16, 300, np.uint8, 0, 2),
    "strip_column_sums": lambda rng: [
        (rng.integers(0, 256, (n, 64)).astype(np.uint8),) for n in _lengths(rng, 2, 24)
    ],
    "strip_threshold": lambda rng: [
        (rng.integers(0, 256, (n, 64)).astype(np.uint8), 128) for n in _lengths(rng, 2, 24)
    ],
    "box_blur_rows": lambda rng: [
        (rng.integers(0, 256, (n, 32)).astype(np.uint8),) for n in _lengths(rng, 3, 20)
    ],
    "insertion_sort": lambda rng: _frames(rng, 8, 64, np.int32, -1000, 1000),
    "dot_q15": lambda rng: [
        (rng.integers(-32768, 32767, n).astype(np.int16), rng.integers(-32768, 32767, n).astype(np.int16))
        for n in _lengths(rng, 16, 256)
    ],
}
SCOPE = {name: "in" for name in INPUTS}
