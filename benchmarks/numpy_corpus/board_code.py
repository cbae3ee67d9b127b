"""Embedded-board signal processing and fixed-point code (PYNQ / Zynq software baselines).

The functions a board user profiles on the ARM cores before accelerating them: Q15/Q31
arithmetic with rounding and saturation (`np.clip`, `>>`), int8 CNN layers with int32
accumulation and requantisation shifts, bit-serial and XNOR-popcount dot products, CRC, CORDIC
with a ROM table, ADC word unpacking, spectral features with boolean masks. Written the way such
code is: parameters rebound to another dtype (`x = np.asarray(x, dtype=np.float32)`), register
variables shifted in place (`activation_word = activation_word >> 1`), keyword arguments
(`axis=0`, `dtype=`, `copy=False`, `a_min=`), and parameter names that are keywords of C++ or
Verilog (`input`, `output`, `reg`, `wire`, `default`) or carry underscores (`_fict_`, `class_`,
`__weights`).
"""

import numpy as np

CORDIC_ITERS = 16
ATAN_Q16 = np.round(np.arctan(2.0 ** -np.arange(CORDIC_ITERS)) * (1 << 16)).astype(np.int32)
CORDIC_GAIN_Q16 = round(65536 / np.prod(np.sqrt(1 + 2.0 ** (-2 * np.arange(CORDIC_ITERS)))))


def saxpy(a, x, y):
    """y := a * x + y in single precision, whatever the caller passes."""
    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y, dtype=np.float32)
    return a * x + y


def q15_mul(a, b):
    """Elementwise Q15 multiply with round-to-nearest and saturation."""
    prod = a.astype(np.int32) * b.astype(np.int32)
    prod = (prod + (1 << 14)) >> 15
    return np.clip(prod, -32768, 32767).astype(np.int16)


def q31_mul(a, b):
    """Elementwise Q31 multiply: 64-bit product, rounding, saturation to int32."""
    prod = a.astype(np.int64) * b.astype(np.int64)
    prod = (prod + (1 << 30)) >> 31
    return np.clip(prod, -(2**31), 2**31 - 1).astype(np.int32)


def q15_dot(x, h):
    """Q15 dot product with a 64-bit accumulator, rounded and saturated to int16."""
    acc = np.int64(0)
    for i in range(len(x)):
        acc += np.int64(x[i]) * np.int64(h[i])
    acc = (acc + (1 << 14)) >> 15
    return np.int16(min(max(acc, -32768), 32767))


def fir_q15(x, h):
    """Q15 FIR filter over a block ('valid' outputs only)."""
    n = len(h)
    y = np.zeros(len(x) - n + 1, dtype=np.int16)
    hr = h[::-1].astype(np.int64)
    for i in range(len(y)):
        acc = np.dot(x[i : i + n].astype(np.int64), hr)
        y[i] = np.clip((acc + (1 << 14)) >> 15, -32768, 32767)
    return y


def conv2d_int8_requant(x, w, bias, multiplier, shift):
    """int8 convolution (H x W x C input, K x K x C x M filters), int32 bias, requantised to int8."""
    H, W, _ = x.shape
    K = w.shape[0]
    M = w.shape[3]
    out = np.zeros((H - K + 1, W - K + 1, M), dtype=np.int8)
    w32 = w.astype(np.int32)
    for i in range(H - K + 1):
        for j in range(W - K + 1):
            window = x[i : i + K, j : j + K, :].astype(np.int32)
            for m in range(M):
                acc = np.sum(window * w32[:, :, :, m]) + bias[m]
                q = (int(acc) * multiplier + (1 << (shift - 1))) >> shift
                out[i, j, m] = min(max(q, -128), 127)
    return out


def dense_int8_relu(x, W, bias, shift):
    """int8 dense layer: int32 accumulation, bias, ReLU, shift back to int8."""
    acc = W.astype(np.int32, copy=False) @ x.astype(np.int32, copy=False)
    acc += bias
    acc = np.maximum(acc, 0)
    return np.minimum(acc >> shift, 127).astype(np.int8)


def bitserial_mac(weight, activation_word, bits):
    """Multiply by shift-and-add over the activation's bits, least significant first."""
    acc = 0
    for b in range(bits):
        if activation_word & 1:
            acc += weight << b
        activation_word = activation_word >> 1
    return acc


def bitserial_dot(weights, activations, bits):
    """Dot product of signed weights and unsigned `bits`-bit activations, bit-serially."""
    total = 0
    for i in range(len(weights)):
        total += bitserial_mac(int(weights[i]), int(activations[i]), bits)
    return total


def xnor_popcount_dot(a_words, w_words):
    """Binary-network dot product of +-1 vectors packed 32 per uint32 word: 2 * matches - bits."""
    matches = 0
    for k in range(len(a_words)):
        x = ~(a_words[k] ^ w_words[k])
        for _ in range(32):
            matches += int(x & 1)
            x = x >> 1
    return 2 * matches - 32 * len(a_words)


def spectral_mean_median(freqs, psd):
    """Mean and median frequency of a power spectrum (muscle-fatigue features of an EMG)."""
    total = np.sum(psd)
    mean_f = np.sum(freqs * psd) / total
    c = np.cumsum(psd)
    median_f = freqs[np.argmax(c >= total / 2)]
    return mean_f, median_f


def band_power(freqs, psd, lo, hi):
    """Power, spectral centroid and mean frequency of the band [lo, hi)."""
    mask = (freqs >= lo) & (freqs < hi)
    power = np.sum(psd[mask])
    centroid = np.sum(freqs[mask] * psd[mask]) / power
    return power, centroid, np.mean(freqs[mask])


def fdtd_1d(ez, hy, _fict_, imp0):
    """1-D FDTD in free space; the hard source at cell 0 is given per time step in _fict_."""
    for t in range(len(_fict_)):
        hy[:-1] += (ez[1:] - ez[:-1]) / imp0
        ez[1:] += (hy[1:] - hy[:-1]) * imp0
        ez[0] = _fict_[t]


def scale_signal(input, output, gain):
    """output := input * gain, clipped to the DAC's [-1, 1] range."""
    output[:] = np.clip(input * gain, -1.0, 1.0)


def lfsr_scramble(input, reg):
    """802.11-style additive scrambler (x^7 + x^4 + 1) over a bit array; returns bits and register."""
    output = np.zeros_like(input)
    for i in range(len(input)):
        fb = ((reg >> 6) ^ (reg >> 3)) & 1
        output[i] = input[i] ^ fb
        reg = ((reg << 1) | fb) & 0x7F
    return output, reg


def mux_wires(wire, reg, sel, default):
    """Three-way multiplexer: sel 0 picks wire, 1 picks reg, anything else the default value."""
    return np.where(sel == 0, wire, np.where(sel == 1, reg, default))


def sample_hold(signal, trigger, default):
    """Sample-and-hold: the output follows signal where trigger is set and holds it otherwise."""
    out = np.empty_like(signal)
    held = default
    for i in range(len(signal)):
        if trigger[i]:
            held = signal[i]
        out[i] = held
    return out


def count_by_class(class_, n_classes, __weights):
    """Total weight of the samples of each class label."""
    totals = np.zeros(n_classes)
    for c in range(n_classes):
        totals[c] = np.sum(__weights[class_ == c])
    return totals


def frame_dark_correct(frame):
    """Column sums of a sensor frame and the frame with each row's dark level removed."""
    frame16 = frame.astype(np.int16, copy=False)
    col = np.sum(frame16, axis=0, dtype=np.int32)
    dark = np.min(frame16, axis=1, keepdims=True)
    corrected = np.clip(frame16 - dark, a_min=0, a_max=255)
    return col, corrected.astype(np.uint8)


def normalize_to_q15(x):
    """Scale a signal to full scale and convert it to Q15."""
    x = np.asarray(x, dtype=np.float32)
    peak = np.max(np.abs(x))
    if peak > 0:
        x = x / peak
    return np.round(x * 32767).astype(np.int16)


def crc16_ccitt(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of a byte array, bit by bit."""
    for byte in data:
        crc ^= int(byte) << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def pack_rgb565(img):
    """Pack an RGB888 frame into RGB565 words for a display controller."""
    r = img[:, :, 0].astype(np.uint16)
    g = img[:, :, 1].astype(np.uint16)
    b = img[:, :, 2].astype(np.uint16)
    return (r >> 3) << 11 | (g >> 2) << 5 | (b >> 3)


def cordic_sincos(angle_q16):
    """cos and sin (Q16.16) of angles in Q16.16 radians within [-pi/2, pi/2] by CORDIC rotation."""
    n = len(angle_q16)
    cos_out = np.zeros(n, dtype=np.int32)
    sin_out = np.zeros(n, dtype=np.int32)
    for k in range(n):
        x = CORDIC_GAIN_Q16
        y = 0
        z = int(angle_q16[k])
        for i in range(CORDIC_ITERS):
            if z >= 0:
                x, y, z = x - (y >> i), y + (x >> i), z - int(ATAN_Q16[i])
            else:
                x, y, z = x + (y >> i), y - (x >> i), z + int(ATAN_Q16[i])
        cos_out[k] = x
        sin_out[k] = y
    return cos_out, sin_out


def decode_adc_frame(words):
    """Unpack two signed 12-bit ADC samples per 32-bit word (bits 27..16 first, then 11..0)."""
    hi = (words >> 16) & 0xFFF
    lo = words & 0xFFF
    samples = np.empty(2 * len(words), dtype=np.int16)
    samples[0::2] = np.where(hi & 0x800, hi.astype(np.int32) - 0x1000, hi)
    samples[1::2] = np.where(lo & 0x800, lo.astype(np.int32) - 0x1000, lo)
    return samples


def peak_indices(x, threshold):
    """Indices of the local maxima above threshold (R-peaks of an ECG, say)."""
    peaks = []
    for i in range(1, len(x) - 1):
        if x[i] > threshold and x[i] >= x[i - 1] and x[i] > x[i + 1]:
            peaks.append(i)
    return peaks


# ---------------------------------------------------------------------------------------------


def _i16(rng, n, lo=-32768, hi=32768):
    v = rng.integers(lo, hi, n).astype(np.int16)
    if lo == -32768 and n >= 2:
        v[:2] = (-32768, 32767)  # the edges of the range
    return v


def _words(rng, n=4):
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)


def _spectrum(rng, n=256, fs=1000.0):
    freqs = np.arange(n) * fs / (2 * n)
    psd = np.exp(-(((freqs - rng.uniform(50, 300)) / rng.uniform(10, 100)) ** 2)) + rng.uniform(0, 0.05, n)
    return freqs, psd


INPUTS = {
    "saxpy": lambda rng: [(float(a), rng.normal(size=64), rng.normal(size=64)) for a in (0.0, -1.5, 3.25)],
    "q15_mul": lambda rng: (
        [(_i16(rng, 64), _i16(rng, 64)) for _ in range(2)]
        + [(np.full(64, -32768, np.int16), np.full(64, -32768, np.int16))]
    ),
    "q31_mul": lambda rng: (
        [
            (
                rng.integers(-(2**31), 2**31, 64).astype(np.int32),
                rng.integers(-(2**31), 2**31, 64).astype(np.int32),
            )
            for _ in range(2)
        ]
        + [(np.full(64, -(2**31), np.int32), np.full(64, -(2**31), np.int32))]
    ),
    "q15_dot": lambda rng: [
        (_i16(rng, 64), _i16(rng, 64)),
        (_i16(rng, 64, -100, 100), _i16(rng, 64, -100, 100)),
        (np.full(64, 32767, np.int16), np.full(64, 32767, np.int16)),
    ],
    "fir_q15": lambda rng: [
        (_i16(rng, 128), _i16(rng, 16, -8000, 8000)),
        (_i16(rng, 128, -100, 100), _i16(rng, 16)),
        (np.full(128, 32767, np.int16), (np.arange(16) == 0).astype(np.int16) * 32767),
    ],
    "conv2d_int8_requant": lambda rng: [
        (
            rng.integers(-128, 128, (10, 10, 4)).astype(np.int8),
            rng.integers(-128, 128, (3, 3, 4, 6)).astype(np.int8),
            rng.integers(-2000, 2000, 6).astype(np.int32),
            mult,
            shift,
        )
        for mult, shift in ((1 << 16, 24), (1518500250, 40), (3, 1))
    ],
    "dense_int8_relu": lambda rng: [
        (
            rng.integers(-128, 128, 64).astype(np.int8),
            rng.integers(-128, 128, (32, 64)).astype(np.int8),
            rng.integers(-5000, 5000, 32).astype(np.int32),
            s,
        )
        for s in (0, 7, 12)
    ],
    "bitserial_mac": lambda rng: [(-77, 0b10110101, 8), (127, 255, 8), (int(rng.integers(-128, 128)), 5, 3)],
    "bitserial_dot": lambda rng: [
        (rng.integers(-128, 128, 32).astype(np.int8), rng.integers(0, 1 << b, 32).astype(np.uint8), b)
        for b in (1, 4, 8)
    ],
    "xnor_popcount_dot": lambda rng: [
        (_words(rng), _words(rng)),
        (np.full(4, 0xFFFFFFFF, np.uint32), np.full(4, 0xFFFFFFFF, np.uint32)),
        (np.full(4, 0xF0F0F0F0, np.uint32), np.full(4, 0x0F0F0F0F, np.uint32)),
    ],
    "spectral_mean_median": lambda rng: [_spectrum(rng) for _ in range(3)],
    "band_power": lambda rng: [
        (*_spectrum(rng), lo, hi) for lo, hi in ((0.0, 50.0), (20.0, 150.0), (100.0, 500.0))
    ],
    "fdtd_1d": lambda rng: [
        (np.zeros(200), np.zeros(200), a * np.exp(-(((np.arange(60) - 30.0) / w) ** 2)), 377.0)
        for a, w in ((1.0, 10.0), (-2.0, 3.0), (0.0, 1.0))
    ],
    "scale_signal": lambda rng: [(rng.normal(size=128), np.zeros(128), g) for g in (0.1, 1.0, 4.0)],
    "lfsr_scramble": lambda rng: [
        (rng.integers(0, 2, 256).astype(np.uint8), seed) for seed in (0x7F, 0x5D, 0x01)
    ],
    "mux_wires": lambda rng: [
        (
            rng.integers(-100, 100, 64).astype(np.int32),
            rng.integers(-100, 100, 64).astype(np.int32),
            rng.integers(0, 3, 64),
            d,
        )
        for d in (0, -1, 42)
    ],
    "sample_hold": lambda rng: [(rng.normal(size=100), rng.random(100) < p, 0.0) for p in (0.0, 0.1, 0.9)],
    "count_by_class": lambda rng: [(rng.integers(0, k, 200), 5, rng.random(200)) for k in (2, 5, 6)],
    "frame_dark_correct": lambda rng: [(rng.integers(0, 256, (24, 32)).astype(np.uint8),) for _ in range(3)],
    "normalize_to_q15": lambda rng: [
        (rng.normal(size=128),),
        (rng.normal(size=128) * 1e-6,),
        (np.zeros(128),),
    ],
    "crc16_ccitt": lambda rng: [
        (np.frombuffer(b"123456789", dtype=np.uint8).copy(),),
        (rng.integers(0, 256, 9).astype(np.uint8),),
        (np.zeros(9, np.uint8),),
    ],
    "pack_rgb565": lambda rng: [(rng.integers(0, 256, (24, 32, 3)).astype(np.uint8),) for _ in range(3)],
    "cordic_sincos": lambda rng: [
        (np.round(rng.uniform(-np.pi / 2, np.pi / 2, 32) * 65536).astype(np.int32),),
        (np.round(np.tile([0.0, np.pi / 2, -np.pi / 2, np.pi / 4], 8) * 65536).astype(np.int32),),
        (np.zeros(32, np.int32),),
    ],
    "decode_adc_frame": lambda rng: [
        (rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32),),
        (np.tile(np.array([0x08000FFF, 0x07FF0800, 0, 0xF0010001], dtype=np.uint32), 16),),
        (np.full(64, 0xFFFFFFFF, np.uint32),),
    ],
    "peak_indices": lambda rng: [
        (np.sin(np.arange(200) / 5.0) + rng.normal(0, s, 200), 0.5) for s in (0.0, 0.1, 0.5)
    ],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE["peak_indices"] = "out: the list of peaks grows by append a data-dependent number of times"

# real streams and frames: 1M samples, full-HD sensor frames, a ResNet layer's activations
REALISTIC_SIZES = {
    "saxpy": {"x": (1_000_000,), "y": (1_000_000,)},
    "q15_mul": {"a": (1_000_000,), "b": (1_000_000,)},
    "q31_mul": {"a": (1_000_000,), "b": (1_000_000,)},
    "fir_q15": {"x": (1_000_000,), "h": (127,)},
    "conv2d_int8_requant": {"x": (224, 224, 32), "w": (3, 3, 32, 64), "bias": (64,)},
    "dense_int8_relu": {"x": (4096,), "W": (4096, 4096), "bias": (4096,)},
    "bitserial_dot": {"weights": (1_000_000,), "activations": (1_000_000,)},
    "xnor_popcount_dot": {"a_words": (131_072,), "w_words": (131_072,)},
    "spectral_mean_median": {"freqs": (524_288,), "psd": (524_288,)},
    "band_power": {"freqs": (524_288,), "psd": (524_288,)},
    "fdtd_1d": {"ez": (1_000_000,), "hy": (1_000_000,), "_fict_": (10_000,)},
    "scale_signal": {"input": (1_000_000,), "output": (1_000_000,)},
    "lfsr_scramble": {"input": (1_000_000,)},
    "mux_wires": {"wire": (1_000_000,), "reg": (1_000_000,), "sel": (1_000_000,)},
    "sample_hold": {"signal": (1_000_000,), "trigger": (1_000_000,)},
    "count_by_class": {"class_": (1_000_000,), "__weights": (1_000_000,)},
    "frame_dark_correct": {"frame": (1080, 1920)},
    "normalize_to_q15": {"x": (1_000_000,)},
    "crc16_ccitt": {"data": (1_000_000,)},
    "pack_rgb565": {"img": (1080, 1920, 3)},
    "cordic_sincos": {"angle_q16": (1_000_000,)},
    "decode_adc_frame": {"words": (1_000_000,)},
    "peak_indices": {"x": (1_000_000,)},
}


# ---------------------------------------------------------------------------------------------
# references: Python integers, the standard library, float64 formulas


def _sat(v, lo, hi):
    return min(max(v, lo), hi)


def _ref_conv(x, w, bias, mult, shift):
    H, W, C = x.shape
    K, M = w.shape[0], w.shape[3]
    out = np.zeros((H - K + 1, W - K + 1, M), dtype=np.int8)
    xs, ws = x.tolist(), w.tolist()
    for i in range(H - K + 1):
        for j in range(W - K + 1):
            for m in range(M):
                acc = int(bias[m]) + sum(
                    xs[i + a][j + b][c] * ws[a][b][c][m] for a in range(K) for b in range(K) for c in range(C)
                )
                out[i, j, m] = _sat((acc * mult + (1 << (shift - 1))) >> shift, -128, 127)
    return out, {}


def _ref_dense(x, W, bias, s):
    acc = [sum(int(w) * int(v) for w, v in zip(row, x)) + int(b) for row, b in zip(W, bias)]
    return np.array([_sat(max(a, 0) >> s, 0, 127) for a in acc], dtype=np.int8), {}


def _ref_fir(x, h):
    n = len(h)
    out = [sum(int(x[i + k]) * int(h[n - 1 - k]) for k in range(n)) for i in range(len(x) - n + 1)]
    return np.array([_sat((a + 16384) >> 15, -32768, 32767) for a in out], dtype=np.int16), {}


def _ref_fdtd(ez, hy, src, imp0):
    n = len(ez)
    for s in src:
        for i in range(n - 1):
            hy[i] = hy[i] + (ez[i + 1] - ez[i]) / imp0
        for i in range(1, n):
            ez[i] = ez[i] + (hy[i] - hy[i - 1]) * imp0
        ez[0] = s
    return None, {0: ez, 1: hy}


def _ref_lfsr(bits, reg):
    seq = []
    for _ in bits:
        fb = ((reg >> 6) ^ (reg >> 3)) & 1
        seq.append(fb)
        reg = ((reg << 1) | fb) & 0x7F
    out = np.array([b ^ s for b, s in zip(bits.tolist(), seq)], dtype=bits.dtype)
    return (out, reg), {}


def _ref_sample_hold(signal, trigger, default):
    out, held = [], default
    for s, t in zip(signal, trigger):
        held = s if t else held
        out.append(held)
    return np.array(out), {}


def _ref_frame(frame):
    f = frame.astype(np.int64)
    corrected = np.array([[v - min(row) for v in row] for row in f.tolist()], dtype=np.uint8)
    return (f.sum(axis=0).astype(np.int32), corrected), {}


def _ref_q15(x):
    x32 = np.asarray(x, dtype=np.float32)
    peak = float(np.abs(x32).max())
    return np.array([round(float(v) / peak * 32767) if peak > 0 else 0 for v in x32], dtype=np.int16), {}


def _ref_crc(data, crc=0xFFFF):
    import binascii

    return binascii.crc_hqx(bytes(data.tolist()), crc), {}


def _ref_cordic(angle_q16):
    a = angle_q16 / 65536.0
    want_c, want_s = np.cos(a) * 65536, np.sin(a) * 65536
    # 16 iterations: an error of a few LSB of Q16.16
    return (lambda r: np.abs(r[0] - want_c).max() <= 8 and np.abs(r[1] - want_s).max() <= 8), {}


def _ref_adc(words):
    out = []
    for w in words.tolist():
        for field in ((w >> 16) & 0xFFF, w & 0xFFF):
            out.append(field - 4096 if field >= 2048 else field)
    return np.array(out, dtype=np.int16), {}


_REFERENCES = {
    "saxpy": lambda a, x, y: (np.float32(a) * x.astype(np.float32) + y.astype(np.float32), {}),
    "q15_mul": lambda a, b: (
        np.array(
            [_sat((int(p) * int(q) + 16384) >> 15, -32768, 32767) for p, q in zip(a, b)], dtype=np.int16
        ),
        {},
    ),
    "q31_mul": lambda a, b: (
        np.array(
            [_sat((int(p) * int(q) + 2**30) >> 31, -(2**31), 2**31 - 1) for p, q in zip(a, b)], dtype=np.int32
        ),
        {},
    ),
    "q15_dot": lambda x, h: (
        np.int16(_sat((sum(int(p) * int(q) for p, q in zip(x, h)) + 16384) >> 15, -32768, 32767)),
        {},
    ),
    "fir_q15": _ref_fir,
    "conv2d_int8_requant": _ref_conv,
    "dense_int8_relu": _ref_dense,
    "bitserial_mac": lambda w, a, bits: (w * (a & ((1 << bits) - 1)), {}),
    "bitserial_dot": lambda w, a, bits: (sum(int(p) * int(q) for p, q in zip(w, a)), {}),
    "xnor_popcount_dot": lambda a, w: (
        sum(32 - 2 * bin(int(p) ^ int(q)).count("1") for p, q in zip(a, w)),
        {},
    ),
    "spectral_mean_median": lambda f, p: (
        (float(f @ p / p.sum()), f[next(i for i in range(len(p)) if p[: i + 1].sum() >= p.sum() / 2)]),
        {},
    ),
    "band_power": lambda f, p, lo, hi: (
        (
            sum(v for fr, v in zip(f, p) if lo <= fr < hi),
            sum(fr * v for fr, v in zip(f, p) if lo <= fr < hi)
            / sum(v for fr, v in zip(f, p) if lo <= fr < hi),
            float(np.mean([fr for fr in f if lo <= fr < hi])),
        ),
        {},
    ),
    "fdtd_1d": _ref_fdtd,
    "scale_signal": lambda inp, out, g: (None, {1: np.array([_sat(v * g, -1.0, 1.0) for v in inp])}),
    "lfsr_scramble": _ref_lfsr,
    "mux_wires": lambda wire, reg, sel, d: (
        np.array([w if s == 0 else r if s == 1 else d for w, r, s in zip(wire, reg, sel)]),
        {},
    ),
    "sample_hold": _ref_sample_hold,
    "count_by_class": lambda cls, k, w: (
        np.array([sum(wt for c, wt in zip(cls, w) if c == j) for j in range(k)]),
        {},
    ),
    "frame_dark_correct": _ref_frame,
    "normalize_to_q15": _ref_q15,
    "crc16_ccitt": _ref_crc,
    "pack_rgb565": lambda img: (
        np.array(
            [[(r // 8) * 2048 + (g // 4) * 32 + b // 8 for r, g, b in row] for row in img.tolist()],
            dtype=np.uint16,
        ),
        {},
    ),
    "cordic_sincos": _ref_cordic,
    "decode_adc_frame": _ref_adc,
    "peak_indices": lambda x, t: (
        [i for i in range(1, len(x) - 1) if x[i] > t and x[i] >= x[i - 1] and x[i] > x[i + 1]],
        {},
    ),
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    # float32 saxpy against a float32 formula, the rest exact or float64
    return run_cases(globals(), rtol=1e-6, atol=1e-9)


if __name__ == "__main__":
    _selfcheck()
