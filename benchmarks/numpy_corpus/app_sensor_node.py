"""A board user's sensor-node notebook turned into a script: the classes of board_classes.py
(filters with delay lines, a PID loop, Kalman filters, a running histogram, an int8 layer) fed
block by block from a synthetic ADC stream, as the software baseline before the FPGA."""

import numpy as np

from board_classes import (
    PID,
    Biquad,
    FirFilter,
    FixedFir,
    Histogram,
    KalmanFilter1D,
    MovingAverage,
    QuantDense,
    Welford,
)


def adc_blocks(rng, blocks, n):
    t = np.arange(blocks * n) / 8000.0
    signal = np.sin(2 * np.pi * 50 * t) + 0.3 * np.sin(2 * np.pi * 1200 * t) + rng.normal(0, 0.05, t.size)
    return signal.reshape(blocks, n)


def main():
    rng = np.random.default_rng(7)
    blocks = adc_blocks(rng, 6, 128)
    taps = np.hamming(16) / np.hamming(16).sum()
    fir = FirFilter(taps)
    q15 = FixedFir(np.round(taps * 32767))
    iir = Biquad([0.0675, 0.135, 0.0675], [1.0, -1.143, 0.4128])
    hist = Histogram(32, -2.0, 2.0)
    stats = Welford()
    level = KalmanFilter1D(1e-4, 0.05)
    ma = MovingAverage(8)
    pid = PID(2.0, 0.5, 0.05, 1 / 8000)
    layer = QuantDense(rng.integers(-128, 128, (8, 32)), rng.integers(-500, 500, 8), 1 << 20, 24)
    energy = 0.0
    for block in blocks:
        smooth = fir.process(block)
        fixed = q15(np.round(block * 8000).astype(np.int16))
        filtered = iir.process(smooth)
        hist.add(filtered)
        mean, var = stats.update_block(filtered)
        est = level.filter(filtered)
        ma.push(float(est[-1]))
        control = pid.run(np.zeros(len(block)), est)
        features = np.clip(fixed[:32] // 64, -128, 127).astype(np.int8)
        scores = layer.forward(features)
        energy += float(np.dot(filtered, filtered))
    print(f"energy {energy:.4f} mean {mean:.5f} var {var:.5f}")
    print(f"median bin {hist.percentile_bin(50)} ma {ma.total / ma.count:.5f}")
    print(f"control {control[-1]:.5f} fir state {fir.state[-1]:.5f} q15 pos {q15.pos}")
    print("scores", scores.tolist())


if __name__ == "__main__":
    main()
