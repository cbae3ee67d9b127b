"""Sensor fusion the way a microcontroller port does it: a simulated IMU (gyro rate and
accelerometer tilt, int16 counts) is decimated with a CIC filter, fused by a fixed-point
complementary filter with saturation, smoothed, and framed into packets with a CRC-16."""

# ruff: noqa: RUF046  (the corpus keeps the style of the code it imitates)
import math

import numpy as np

GYRO_LSB_PER_DPS = 131  # counts per degree/second
ACC_LSB_PER_G = 16384
DT_Q16 = 65536 // 100  # 10 ms in Q16
ALPHA_Q15 = 32112  # 0.98 in Q15
GYRO_BIAS = 40  # counts, from the factory calibration


def xorshift32(state: int) -> int:
    """One xorshift32 step (sensor noise source)."""
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    return state


def simulate_imu(
    rng: np.random.Generator, n: int, oversample: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gyro rate and accelerometer x/z (int16 counts) for a slow rocking motion, and the true
    angle in degrees at the output rate."""
    t = np.arange(n * oversample) / (100.0 * oversample)
    angle = 20 * np.sin(2 * np.pi * 0.3 * t)
    rate = 20 * 2 * np.pi * 0.3 * np.cos(2 * np.pi * 0.3 * t)
    gyro = np.clip(rate * GYRO_LSB_PER_DPS + GYRO_BIAS + rng.normal(0, 30, len(t)), -32768, 32767).astype(
        np.int16
    )
    acc = np.zeros((len(t), 2), dtype=np.int16)
    state = int(rng.integers(1, 2**32 - 1))
    for i in range(len(t)):
        state = xorshift32(state)
        noise = (state & 0x3FF) - 512
        acc[i, 0] = int(ACC_LSB_PER_G * math.sin(math.radians(angle[i]))) + noise
        acc[i, 1] = int(ACC_LSB_PER_G * math.cos(math.radians(angle[i]))) + noise // 2
    return gyro, acc, angle[oversample - 1 :: oversample]


def cic_decimate(x: np.ndarray, r: int, stages: int) -> np.ndarray:
    """CIC decimator, output normalised by its gain r ** stages."""
    integ = [0] * stages
    comb = [0] * stages
    out = np.zeros(len(x) // r, dtype=np.int16)
    shift = int(math.log2(r)) * stages
    k = 0
    for n in range(len(x)):
        v = int(x[n])
        for s in range(stages):
            integ[s] += v
            v = integ[s]
        if (n + 1) % r == 0:
            for s in range(stages):
                v, comb[s] = v - comb[s], v
            out[k] = v >> shift
            k += 1
    return out


def atan2_deg_q8(y: int, x: int) -> int:
    """Angle in 1/256 degree from a polynomial atan approximation (octant folding)."""
    if x == 0 and y == 0:
        return 0
    ax, ay = abs(x), abs(y)
    swap = ay > ax
    if swap:
        ax, ay = ay, ax
    r = ay / ax
    deg = 45.0 * r - r * (r - 1) * (14.02 + 3.79 * r)
    if swap:
        deg = 90.0 - deg
    if x < 0:
        deg = 180.0 - deg
    if y < 0:
        deg = -deg
    return int(round(deg * 256))


def saturate16(v: int) -> int:
    """Clamp to int16."""
    return -32768 if v < -32768 else 32767 if v > 32767 else v


def complementary_filter(gyro: np.ndarray, acc_x: np.ndarray, acc_z: np.ndarray, bias: int) -> np.ndarray:
    """angle = alpha (angle + rate dt) + (1 - alpha) acc_angle, all in Q8 degrees."""
    out = np.zeros(len(gyro), dtype=np.int16)
    angle = 0
    for i in range(len(gyro)):
        rate_q8 = ((int(gyro[i]) - bias) * 256) // GYRO_LSB_PER_DPS
        predicted = angle + ((rate_q8 * DT_Q16) >> 16)
        measured = atan2_deg_q8(int(acc_x[i]), int(acc_z[i]))
        angle = (ALPHA_Q15 * predicted + (32768 - ALPHA_Q15) * measured) >> 15
        out[i] = saturate16(angle)
    return out


def moving_average_int(x: np.ndarray, window: int) -> np.ndarray:
    """Integer running mean with a circular buffer."""
    buf = [0] * window
    total = 0
    out = np.zeros(len(x), dtype=np.int16)
    for i, v in enumerate(x):
        total += int(v) - buf[i % window]
        buf[i % window] = int(v)
        out[i] = total // min(i + 1, window)
    return out


def crc16_ccitt(data: np.ndarray) -> int:
    """CRC-16/CCITT-FALSE."""
    crc = 0xFFFF
    for byte in data:
        crc ^= int(byte) << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def main() -> None:
    rng = np.random.default_rng(21)
    gyro_raw, acc_raw, truth = simulate_imu(rng, 600, 8)
    gyro = cic_decimate(gyro_raw, 8, 2)
    acc_x = cic_decimate(acc_raw[:, 0].copy(), 8, 2)
    acc_z = cic_decimate(acc_raw[:, 1].copy(), 8, 2)
    angle_q8 = complementary_filter(gyro, acc_x, acc_z, GYRO_BIAS)
    smooth = moving_average_int(angle_q8, 8)
    packets = smooth.astype("<i2").view(np.uint8).reshape(-1, 40)
    crcs = [crc16_ccitt(p) for p in packets]
    err = angle_q8[100:] / 256.0 - truth[100:]
    print(
        f"{len(gyro)} fused samples, rms error after settling {float(np.sqrt(np.mean(err**2))):.2f} degrees"
    )
    print(f"angle range {smooth.min() / 256:.1f} .. {smooth.max() / 256:.1f} degrees")
    print(f"{len(packets)} packets, first CRCs {' '.join(f'{c:04X}' for c in crcs[:4])}")


if __name__ == "__main__":
    main()
