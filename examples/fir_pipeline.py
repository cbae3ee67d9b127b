"""Fixed-point receiver chain: an int16 FIR, decimation, a band-pass and a burst detector.

A 48 kHz int16 signal carries short bursts of a 1.5 kHz tone buried in noise, mains hum and an
out-of-band interferer. The chain low-passes it (Q15 taps designed from the config), decimates
to 12 kHz, band-passes around the tone (fixed Q15 taps), measures the energy of each frame and
marks the frames that hold a burst. Every filter accumulates in int32 and rounds, shifts and
saturates back to int16, the way a DSP datapath does.

What `partition` sees: the loop kernels (`fir_q15`, `decimate`, `bandpass_q15`, `frame_energy`,
`detect_frames`) are streaming integer work, and the FIRs are where the time goes; parsing the
config, designing the taps, estimating the noise floor and turning frame flags into a list of
bursts is Python-object work that belongs on the CPU. The low-pass output goes straight into the
decimator (`decimate(fir_q15(x, taps), ...)`) and nowhere else, so on the FPGA the two kernels
can run as one AXI-Stream chain, with no full-rate buffer in DDR between them.

Run it with no arguments; the output is deterministic.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import zlib

import numpy as np

DEFAULT_CONFIG = """\
# receiver chain configuration (key = value, '#' starts a comment)
sample_rate    = 48000            # Hz
samples        = 16384
seed           = 2024
tone           = 1500:9000        # burst tone, Hz : amplitude
bursts         = 30-70, 120-135, 200-250   # ms, when the tone is on
hum            = 300:4000         # Hz : amplitude
interferer     = 7000:6000        # Hz : amplitude (would alias to 5 kHz without the low-pass)
noise          = 1500             # rms
lowpass_taps   = 63
lowpass_cutoff = 4000             # Hz
decimate       = 4
frame          = 64               # samples per energy frame, after decimation
detect_ratio   = 16               # threshold = ratio x median frame energy
"""

# Band-pass channel filter for the decimated 12 kHz stream: 31 taps, Q15, centred on fs/8
# (1.5 kHz), about 1 kHz wide, unit gain at the centre. Hamming-windowed cosine-modulated sinc;
# the sum of |taps| is below 2**16, so an int16 input cannot overflow the int32 accumulator.
BANDPASS_TAPS = np.array(
    [
        -60, 0, 38, 0, -86, 0, 494, 1189, 1282, 0, -2349, -4100, -3396, 0, 4047, 5847,
        4047, 0, -3396, -4100, -2349, 0, 1282, 1189, 494, 0, -86, 0, 38, 0, -60,
    ],
    dtype=np.int16,
)  # fmt: skip

INT16_MIN = -32768
INT16_MAX = 32767


# ------------------------------------------------------------------------------ FPGA candidates


def fir_q15(x: np.ndarray, taps: np.ndarray) -> np.ndarray:
    """Direct-form FIR with Q15 taps: y[n] = sat16(round(sum_k x[n-k] * taps[k] / 2**15)).

    Samples before the start of the signal are zero.
    """
    y = np.zeros(len(x), dtype=np.int16)
    for n in range(len(x)):
        acc = np.int32(1 << 14)  # rounding constant for the >> 15 below
        for k in range(len(taps)):
            if n - k >= 0:
                acc += np.int32(x[n - k]) * np.int32(taps[k])
        y[n] = min(max(acc >> 15, INT16_MIN), INT16_MAX)
    return y


def decimate(y: np.ndarray, factor: int) -> np.ndarray:
    """Keep every `factor`-th sample (the input is already band-limited)."""
    out = np.zeros(len(y) // factor, dtype=np.int16)
    for i in range(len(y) // factor):
        out[i] = y[i * factor]
    return out


def bandpass_q15(x: np.ndarray) -> np.ndarray:
    """The channel filter: `fir_q15` with the fixed BANDPASS_TAPS held in an on-chip ROM."""
    y = np.zeros(len(x), dtype=np.int16)
    for n in range(len(x)):
        acc = np.int32(1 << 14)
        for k in range(31):
            if n - k >= 0:
                acc += np.int32(x[n - k]) * np.int32(BANDPASS_TAPS[k])
        y[n] = min(max(acc >> 15, INT16_MIN), INT16_MAX)
    return y


def frame_energy(x: np.ndarray, frame: int, shift: int) -> np.ndarray:
    """Energy of each frame of `frame` samples: sum of (x*x >> shift) in int32.

    Each square is at most 2**30; with shift = log2(frame) the frame sum stays below 2**31.
    """
    energy = np.zeros(len(x) // frame, dtype=np.int32)
    for f in range(len(x) // frame):
        acc = np.int32(0)
        for i in range(frame):
            v = np.int32(x[f * frame + i])
            acc += (v * v) >> shift
        energy[f] = acc
    return energy


def detect_frames(energy: np.ndarray, threshold: int, flags: np.ndarray) -> int:
    """Hysteresis detector: a frame switches on above `threshold` and off below half of it.

    Writes 1/0 per frame into `flags` and returns how many frames are on.
    """
    active = 0
    count = np.int32(0)
    for i in range(len(energy)):
        if energy[i] > threshold:
            active = 1
        elif energy[i] < threshold // 2:
            active = 0
        flags[i] = active
        count += active
    return count


# ------------------------------------------------------------------------------ CPU side


@dataclasses.dataclass(frozen=True)
class Tone:
    freq: float
    amplitude: float


@dataclasses.dataclass(frozen=True)
class Config:
    sample_rate: int
    samples: int
    seed: int
    tone: Tone
    bursts: tuple[tuple[int, int], ...]
    hum: Tone
    interferer: Tone
    noise: float
    lowpass_taps: int
    lowpass_cutoff: float
    decimate: int
    frame: int
    detect_ratio: int


@dataclasses.dataclass(frozen=True)
class Burst:
    start_ms: float
    end_ms: float
    peak_energy: int


def _parse_tone(text: str) -> Tone:
    freq, sep, amplitude = text.partition(":")
    if not sep:
        raise ValueError(f"expected 'freq:amplitude', got {text!r}")
    return Tone(float(freq), float(amplitude))


def _parse_bursts(text: str) -> tuple[tuple[int, int], ...]:
    bursts = []
    for item in text.split(","):
        start, sep, end = item.strip().partition("-")
        if not sep or int(end) <= int(start):
            raise ValueError(f"expected 'start-end' in ms, got {item.strip()!r}")
        bursts.append((int(start), int(end)))
    return tuple(bursts)


_FIELD_PARSERS = {
    "sample_rate": int,
    "samples": int,
    "seed": int,
    "tone": _parse_tone,
    "bursts": _parse_bursts,
    "hum": _parse_tone,
    "interferer": _parse_tone,
    "noise": float,
    "lowpass_taps": int,
    "lowpass_cutoff": float,
    "decimate": int,
    "frame": int,
    "detect_ratio": int,
}


def parse_config(text: str) -> Config:
    """Read `key = value` lines; every field of `Config` must be given exactly once."""
    fields: dict[str, object] = {}
    for line_no, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = (part.strip() for part in line.partition("="))
        if not sep or key not in _FIELD_PARSERS:
            raise ValueError(
                f"config line {line_no}: expected 'key = value' with a key of {sorted(_FIELD_PARSERS)}"
            )
        if key in fields:
            raise ValueError(f"config line {line_no}: {key!r} given twice")
        try:
            fields[key] = _FIELD_PARSERS[key](value)
        except ValueError as e:
            raise ValueError(f"config line {line_no}: bad value for {key!r}: {e}") from None
    missing = sorted(_FIELD_PARSERS.keys() - fields.keys())
    if missing:
        raise ValueError(f"config: missing keys {missing}")
    cfg = Config(**fields)

    nyquist = cfg.sample_rate / (2 * max(cfg.decimate, 1))
    checks = [
        (cfg.sample_rate > 0, f"sample_rate must be positive, got {cfg.sample_rate}"),
        (64 <= cfg.samples <= 32768, f"samples must be in 64..32768 (64 KiB of int16), got {cfg.samples}"),
        (cfg.lowpass_taps % 2 == 1 and 3 <= cfg.lowpass_taps <= 127, "lowpass_taps must be odd, in 3..127"),
        (1 <= cfg.decimate <= 16, f"decimate must be in 1..16, got {cfg.decimate}"),
        (
            0 < cfg.lowpass_cutoff < nyquist,
            f"lowpass_cutoff must be in 0..{nyquist:g} Hz (decimated Nyquist)",
        ),
        (
            cfg.frame >= 2 and cfg.frame & (cfg.frame - 1) == 0,
            f"frame must be a power of two, got {cfg.frame}",
        ),
        (cfg.detect_ratio >= 1, f"detect_ratio must be >= 1, got {cfg.detect_ratio}"),
    ]
    for ok, message in checks:
        if not ok:
            raise ValueError(f"config: {message}")
    return cfg


def design_lowpass(num_taps: int, cutoff: float, sample_rate: float) -> np.ndarray:
    """Hamming-windowed sinc low-pass, quantised to Q15 with the DC gain forced to exactly 1.0."""
    fc = cutoff / sample_rate
    mid = (num_taps - 1) / 2
    ideal = []
    for n in range(num_taps):
        t = n - mid
        sinc = 2 * fc if t == 0 else math.sin(2 * math.pi * fc * t) / (math.pi * t)
        window = 0.54 - 0.46 * math.cos(2 * math.pi * n / (num_taps - 1))
        ideal.append(sinc * window)
    scale = 32768 / sum(ideal)
    taps = [round(h * scale) for h in ideal]
    taps[num_taps // 2] += 32768 - sum(taps)  # put the rounding error on the centre tap
    return np.array(taps, dtype=np.int16)


def synthesize_signal(cfg: Config) -> np.ndarray:
    """The test signal: keyed tone bursts + hum + interferer + Gaussian noise, as int16."""
    rng = np.random.RandomState(cfg.seed)
    t = np.arange(cfg.samples) / cfg.sample_rate
    keyed = np.zeros(cfg.samples)
    for start_ms, end_ms in cfg.bursts:
        keyed[(t >= start_ms / 1000) & (t < end_ms / 1000)] = 1.0
    signal = (
        keyed * cfg.tone.amplitude * np.sin(2 * np.pi * cfg.tone.freq * t)
        + cfg.hum.amplitude * np.sin(2 * np.pi * cfg.hum.freq * t + 0.3)
        + cfg.interferer.amplitude * np.sin(2 * np.pi * cfg.interferer.freq * t + 1.1)
        + rng.normal(0.0, cfg.noise, cfg.samples)
    )
    return np.clip(np.round(signal), INT16_MIN, INT16_MAX).astype(np.int16)


def noise_threshold(energy: np.ndarray, ratio: int) -> int:
    """Threshold = ratio x the median frame energy (the bursts cover less than half the frames)."""
    ordered = sorted(int(e) for e in energy)
    median = ordered[len(ordered) // 2]
    return max(1, ratio * median)


def bursts_from_flags(flags: np.ndarray, energy: np.ndarray, frame_ms: float) -> list[Burst]:
    """Group consecutive active frames into bursts with their time span and peak energy."""
    bursts: list[Burst] = []
    start = None
    for i, flag in enumerate([*flags.tolist(), 0]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            peak = max(int(e) for e in energy[start:i])
            bursts.append(Burst(start * frame_ms, i * frame_ms, peak))
            start = None
    return bursts


def checksum(a: np.ndarray) -> str:
    return f"crc32={zlib.crc32(a.tobytes()):08x} sum={int(a.sum(dtype=np.int64))}"


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="configuration file (default: the built-in one)")
    parser.add_argument("--seed", type=int, help="override the config's noise seed")
    args = parser.parse_args(argv)

    text = DEFAULT_CONFIG
    if args.config:
        with open(args.config, encoding="utf-8") as f:
            text = f.read()
    try:
        cfg = parse_config(text)
    except ValueError as e:
        parser.error(str(e))
    if args.seed is not None:
        cfg = dataclasses.replace(cfg, seed=args.seed)

    taps = design_lowpass(cfg.lowpass_taps, cfg.lowpass_cutoff, cfg.sample_rate)
    x = synthesize_signal(cfg)

    decimated = decimate(fir_q15(x, taps), cfg.decimate)
    channel = bandpass_q15(decimated)
    energy = frame_energy(channel, cfg.frame, cfg.frame.bit_length() - 1)
    threshold = noise_threshold(energy, cfg.detect_ratio)
    flags = np.zeros(len(energy), dtype=np.uint8)
    active = detect_frames(energy, threshold, flags)

    frame_ms = 1000 * cfg.frame * cfg.decimate / cfg.sample_rate
    bursts = bursts_from_flags(flags, energy, frame_ms)
    results = {
        "taps": taps,
        "decimated": decimated,
        "channel": channel,
        "energy": energy,
        "threshold": threshold,
        "active_frames": int(active),
        "bursts": bursts,
    }

    rate = cfg.sample_rate // cfg.decimate
    print(f"fir_pipeline: {cfg.samples} samples at {cfg.sample_rate} Hz, seed {cfg.seed}")
    print(f"  low-pass   {cfg.lowpass_taps} taps Q15, cutoff {cfg.lowpass_cutoff:g} Hz, {checksum(taps)}")
    print(f"  input      {checksum(x)}")
    print(f"  decimated  {checksum(decimated)} ({len(decimated)} samples at {rate} Hz)")
    print(f"  channel    {checksum(channel)}")
    print(f"  energy     {checksum(energy)} ({len(energy)} frames of {frame_ms:.2f} ms)")
    print(f"  threshold  {threshold}")
    print(f"  active     {int(active)} frames")
    print("  frames     " + "".join("#" if f else "." for f in flags.tolist()))
    print("  bursts     start_ms    end_ms   peak_energy   configured_ms")
    for i, b in enumerate(bursts):
        planned = cfg.bursts[i] if i < len(cfg.bursts) else None
        planned_text = f"{planned[0]}-{planned[1]}" if planned else "-"
        print(f"  {i:>9}  {b.start_ms:8.2f}  {b.end_ms:8.2f}  {b.peak_energy:12d}   {planned_text}")
    return results


if __name__ == "__main__":
    main()
