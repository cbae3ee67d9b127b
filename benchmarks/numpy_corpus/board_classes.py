"""Stateful signal-processing and control classes of embedded-board software (PYNQ, Zynq).

The software baseline a board user writes in a Jupyter notebook before moving the hot method to
the FPGA: small classes whose `__init__` stores coefficients and state as NumPy arrays or floats
on `self`, and a method (`process`, `update`, `step`, `__call__`) called once per block of
samples or per measurement. Filters keep delay lines across calls, controllers and Kalman
filters keep their estimates; matrices are 2x2, tuples are unpacked from arrays, methods call
methods, and a quantised layer requantises with an integer multiplier and shift.
"""

import numpy as np


class FirFilter:
    """Block FIR filter in float32 that carries its delay line from one block to the next."""

    def __init__(self, taps):
        self.taps = np.asarray(taps, dtype=np.float32)
        self.state = np.zeros(len(taps) - 1, dtype=np.float32)

    def process(self, samples):
        samples = np.asarray(samples, dtype=np.float32)
        buf = np.concatenate((self.state, samples))
        n = len(self.taps)
        out = np.empty(len(samples), dtype=np.float32)
        for i in range(len(samples)):
            out[i] = np.dot(buf[i : i + n], self.taps[::-1])
        self.state = buf[len(samples) :]
        return out


class FixedFir:
    """Q15 FIR with a circular delay line, one sample at a time, as on a DSP."""

    def __init__(self, taps_q15):
        self.taps = np.asarray(taps_q15, dtype=np.int16)
        self.delay = np.zeros(len(self.taps), dtype=np.int16)
        self.pos = 0

    def __call__(self, x):
        n = len(self.taps)
        out = np.zeros(len(x), dtype=np.int16)
        for k in range(len(x)):
            self.delay[self.pos] = x[k]
            acc = 0
            idx = self.pos
            for t in range(n):
                acc += int(self.taps[t]) * int(self.delay[idx])
                idx -= 1
                if idx < 0:
                    idx = n - 1
            self.pos = (self.pos + 1) % n
            acc = (acc + (1 << 14)) >> 15
            out[k] = min(max(acc, -32768), 32767)
        return out


class Biquad:
    """Second-order IIR section, transposed direct form II, coefficients normalised by a[0]."""

    def __init__(self, b, a):
        self.b = np.asarray(b, dtype=np.float64) / a[0]
        self.a = np.asarray(a, dtype=np.float64) / a[0]
        self.z = np.zeros(2)

    def process(self, x):
        y = np.empty_like(x)
        b0, b1, b2 = self.b
        _, a1, a2 = self.a
        z1, z2 = self.z
        for n in range(len(x)):
            y[n] = b0 * x[n] + z1
            z1 = b1 * x[n] - a1 * y[n] + z2
            z2 = b2 * x[n] - a2 * y[n]
        self.z[0] = z1
        self.z[1] = z2
        return y


class PID:
    """PID controller with output limits and anti-windup by undoing the integration."""

    def __init__(self, kp, ki, kd, dt, out_min=-1.0, out_max=1.0):
        self.kp = kp
        self.ki = ki
        self.kd = kd
        self.dt = dt
        self.out_min = out_min
        self.out_max = out_max
        self.integral = 0.0
        self.prev_error = 0.0

    def update(self, setpoint, measurement):
        error = setpoint - measurement
        self.integral += error * self.dt
        derivative = (error - self.prev_error) / self.dt
        self.prev_error = error
        out = self.kp * error + self.ki * self.integral + self.kd * derivative
        if out > self.out_max:
            out = self.out_max
            self.integral -= error * self.dt
        elif out < self.out_min:
            out = self.out_min
            self.integral -= error * self.dt
        return out

    def run(self, setpoints, measurements):
        out = np.zeros(len(measurements))
        for i in range(len(measurements)):
            out[i] = self.update(setpoints[i], measurements[i])
        return out


class Histogram:
    """Running histogram of sensor readings over a fixed range."""

    def __init__(self, nbins, lo, hi):
        self.bins = np.zeros(nbins, dtype=np.int64)
        self.lo = lo
        self.hi = hi
        self.scale = nbins / (hi - lo)

    def add(self, samples):
        idx = ((samples - self.lo) * self.scale).astype(np.int32)
        idx = np.clip(idx, 0, len(self.bins) - 1)
        for i in idx:
            self.bins[i] += 1

    def percentile_bin(self, q):
        c = np.cumsum(self.bins)
        return int(np.argmax(c >= q / 100.0 * c[-1]))


class MovingAverage:
    """Moving average over a ring buffer, one sample per call."""

    def __init__(self, window):
        self.buf = np.zeros(window)
        self.pos = 0
        self.count = 0
        self.total = 0.0

    def push(self, x):
        self.total += x - self.buf[self.pos]
        self.buf[self.pos] = x
        self.pos = (self.pos + 1) % len(self.buf)
        self.count = min(self.count + 1, len(self.buf))
        return self.total / self.count


class Welford:
    """Running mean and variance of a sensor stream (Welford's algorithm), fed block by block."""

    def __init__(self):
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def update_block(self, xs):
        for x in xs:
            self.n += 1
            delta = x - self.mean
            self.mean += delta / self.n
            self.m2 += delta * (x - self.mean)
        return self.mean, self.m2 / (self.n - 1) if self.n > 1 else 0.0


class KalmanFilter1D:
    """Scalar Kalman filter for a slowly varying level (random-walk model)."""

    def __init__(self, q, r, x0=0.0, p0=1.0):
        self.q = q
        self.r = r
        self.x = x0
        self.p = p0

    def update(self, z):
        self.p += self.q
        k = self.p / (self.p + self.r)
        self.x += k * (z - self.x)
        self.p *= 1 - k
        return self.x

    def filter(self, zs):
        out = np.empty_like(zs)
        for i, z in enumerate(zs):
            out[i] = self.update(z)
        return out


class ConstantVelocityKF:
    """Kalman filter of position and velocity from noisy position readings (2x2 matrices)."""

    def __init__(self, dt, q, r):
        self.F = np.array([[1.0, dt], [0.0, 1.0]])
        self.H = np.array([[1.0, 0.0]])
        self.Q = q * np.array([[dt**4 / 4, dt**3 / 2], [dt**3 / 2, dt**2]])
        self.R = np.array([[r]])
        self.x = np.zeros(2)
        self.P = np.eye(2) * 100.0

    def step(self, z):
        x = self.F @ self.x
        P = self.F @ self.P @ self.F.T + self.Q
        y = z - self.H @ x
        S = self.H @ P @ self.H.T + self.R
        K = P @ self.H.T @ np.linalg.inv(S)
        self.x = x + K @ y
        self.P = (np.eye(2) - K @ self.H) @ P
        return self.x.copy()


class PendulumEKF:
    """Extended Kalman filter of a pendulum's angle and rate from its horizontal bob position."""

    def __init__(self, length, dt, q, r):
        self.g_over_l = 9.81 / length
        self.length = length
        self.dt = dt
        self.Q = np.eye(2) * q
        self.r = r
        self.x = np.array([0.1, 0.0])
        self.P = np.eye(2)

    def step(self, z):
        theta, omega = self.x
        dt = self.dt
        x_pred = np.array([theta + omega * dt, omega - self.g_over_l * np.sin(theta) * dt])
        F = np.array([[1.0, dt], [-self.g_over_l * np.cos(theta) * dt, 1.0]])
        P = F @ self.P @ F.T + self.Q
        H = np.array([self.length * np.cos(x_pred[0]), 0.0])
        innovation = z - self.length * np.sin(x_pred[0])
        S = H @ P @ H + self.r
        K = P @ H / S
        self.x = x_pred + K * innovation
        self.P = P - np.outer(K, H @ P)
        return innovation


class QuantDense:
    """int8 fully connected layer with int32 accumulation and fixed-point requantisation."""

    def __init__(self, weights, bias, multiplier, shift, zero_point=0):
        self.w = np.asarray(weights, dtype=np.int8)
        self.bias = np.asarray(bias, dtype=np.int32)
        self.multiplier = multiplier
        self.shift = shift
        self.zero_point = zero_point

    def forward(self, x):
        acc = self.w.astype(np.int32) @ (x.astype(np.int32) - self.zero_point) + self.bias
        scaled = (acc.astype(np.int64) * self.multiplier + (1 << (self.shift - 1))) >> self.shift
        return np.clip(scaled, -128, 127).astype(np.int8)


# ---------------------------------------------------------------------------------------------


def _warm(obj, method, *args):
    getattr(obj, method)(*args)
    return obj


def _pushed(avg, values):
    for v in values:
        avg.push(float(v))
    return avg


def _lowpass(n):
    k = np.arange(n) - (n - 1) / 2
    h = np.sinc(k / 4) * np.hamming(n)
    return h / h.sum()


INPUTS = {
    "FirFilter.process": lambda rng: [
        (_warm(FirFilter(taps), "process", rng.normal(size=16)), x)
        for taps, x in (
            (_lowpass(16), rng.normal(size=128)),
            (rng.normal(size=16), rng.normal(size=128)),
            (_lowpass(16), np.ones(128)),
        )
    ],
    "FixedFir.__call__": lambda rng: [
        (
            _warm(
                FixedFir(np.round(_lowpass(n) * 32767)),
                "__call__",
                rng.integers(-32768, 32768, 8).astype(np.int16),
            ),
            x.astype(np.int16),
        )
        for n, x in (
            (8, rng.integers(-32768, 32768, 64)),
            (8, rng.integers(-1000, 1000, 64)),
            (8, np.full(64, 32767)),
        )
    ],
    "Biquad.process": lambda rng: [
        (_warm(Biquad(b, a), "process", rng.normal(size=8)), rng.normal(size=256))
        for b, a in (
            ([0.0675, 0.135, 0.0675], [1.0, -1.143, 0.4128]),
            ([0.5, 0.0, -0.5], [2.0, -0.5, 0.3]),
            ([1.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        )
    ],
    "PID.update": lambda rng: [
        (_warm(PID(2.0, 0.5, 0.1, 0.01), "update", 1.0, 0.0), 1.0, 0.2),
        (PID(20.0, 5.0, 0.0, 0.01), 1.0, -1.0),
        (PID(0.5, 100.0, 0.01, 0.1, -10.0, 10.0), float(rng.normal()), float(rng.normal())),
    ],
    "PID.run": lambda rng: [
        (PID(kp, ki, kd, 0.01), np.ones(200), np.cumsum(rng.normal(0, 0.01, 200)))
        for kp, ki, kd in ((1.0, 0.1, 0.0), (5.0, 2.0, 0.05), (50.0, 20.0, 0.5))
    ],
    "Histogram.add": lambda rng: [
        (Histogram(32, -4.0, 4.0), rng.normal(0, s, 500)) for s in (0.5, 1.0, 10.0)
    ],
    "Histogram.percentile_bin": lambda rng: [
        (_warm(Histogram(64, 0.0, 1.0), "add", rng.random(400)), q) for q in (1, 50, 99)
    ],
    "MovingAverage.push": lambda rng: [
        (_warm(MovingAverage(8), "push", 3.0), 5.0),
        (MovingAverage(8), float(rng.normal())),
        (_pushed(MovingAverage(8), rng.normal(size=11)), 7.5),  # the ring has wrapped
    ],
    "Welford.update_block": lambda rng: [
        (_warm(Welford(), "update_block", rng.normal(5, 2, 10)), rng.normal(5, 2, 100)),
        (Welford(), rng.normal(0, 1, 100)),
        (Welford(), 1e6 + np.arange(100.0) % 3),
    ],
    "KalmanFilter1D.filter": lambda rng: [
        (KalmanFilter1D(q, r), 3.0 + rng.normal(0, np.sqrt(r), 200))
        for q, r in ((1e-5, 0.01), (1e-2, 1.0), (1.0, 1e-3))
    ],
    "ConstantVelocityKF.step": lambda rng: [
        (_warm(ConstantVelocityKF(0.1, 0.5, 2.0), "step", np.array([1.0])), np.array([z]))
        for z in rng.normal(0, 3, 3)
    ],
    "PendulumEKF.step": lambda rng: [
        (_warm(PendulumEKF(1.0, 0.01, 1e-4, 1e-2), "step", 0.05), z)
        for z in (0.1, -0.2, float(rng.normal(0, 0.1)))
    ],
    "QuantDense.forward": lambda rng: [
        (
            QuantDense(rng.integers(-128, 128, (16, 64)), rng.integers(-5000, 5000, 16), mult, shift, zp),
            rng.integers(-128, 128, 64).astype(np.int8),
        )
        for mult, shift, zp in ((1 << 20, 28, 0), (1518500250, 38, -3), (1, 1, 0))
    ],
}

SCOPE = {name: "in" for name in INPUTS}

# real streams: a second of 1 MS/s ADC data per block, 1M-sample histograms
REALISTIC_SIZES = {
    "FirFilter.process": {"self.taps": (255,), "samples": (1_000_000,)},
    "FixedFir.__call__": {"self.taps": (127,), "x": (1_000_000,)},
    "Biquad.process": {"x": (1_000_000,)},
    "PID.run": {"setpoints": (1_000_000,), "measurements": (1_000_000,)},
    "Histogram.add": {"self.bins": (4096,), "samples": (1_000_000,)},
    "Welford.update_block": {"xs": (1_000_000,)},
    "KalmanFilter1D.filter": {"zs": (1_000_000,)},
    "QuantDense.forward": {"self.w": (4096, 4096), "x": (4096,)},
}


# ---------------------------------------------------------------------------------------------
# references: the same computations written out sample by sample in float64 / Python ints


def _ref_fir(f, samples):
    hist = np.concatenate((f.state.astype(np.float64), samples.astype(np.float32).astype(np.float64)))
    n = len(f.taps)
    out = np.array(
        [sum(hist[i + n - 1 - k] * float(f.taps[k]) for k in range(n)) for i in range(len(samples))]
    )
    return out.astype(np.float32), {0: {"state": hist[len(samples) :]}}


def _ref_fixed_fir(f, x):
    n = len(f.taps)
    line = [int(v) for v in f.delay]
    pos = f.pos
    out = []
    for v in x:
        line[pos] = int(v)
        acc = sum(int(f.taps[t]) * line[(pos - t) % n] for t in range(n))
        out.append(min(max((acc + 16384) >> 15, -32768), 32767))
        pos = (pos + 1) % n
    return np.array(out, dtype=np.int16), {0: {"pos": pos, "delay": np.array(line, dtype=np.int16)}}


def _ref_biquad(f, x):
    b, a = f.b, f.a
    y = np.zeros(len(x))
    # the first two outputs come out of the stored state, the rest from the difference equation
    y[0] = b[0] * x[0] + f.z[0]
    y[1] = b[0] * x[1] + b[1] * x[0] - a[1] * y[0] + f.z[1]
    for n in range(2, len(x)):
        y[n] = b[0] * x[n] + b[1] * x[n - 1] + b[2] * x[n - 2] - a[1] * y[n - 1] - a[2] * y[n - 2]
    z1 = b[1] * x[-1] - a[1] * y[-1] + b[2] * x[-2] - a[2] * y[-2]
    z2 = b[2] * x[-1] - a[2] * y[-1]
    return y, {0: {"z": np.array([z1, z2])}}


def _ref_pid_update(p, sp, meas):
    e = sp - meas
    integ = p.integral + e * p.dt
    raw = p.kp * e + p.ki * integ + p.kd * (e - p.prev_error) / p.dt
    out = min(max(raw, p.out_min), p.out_max)
    if out != raw:
        integ = p.integral
    return out, {0: {"integral": integ, "prev_error": e}}


def _ref_pid_run(p, sps, ms):
    integ, prev, out = p.integral, p.prev_error, []
    for sp, m in zip(sps, ms):
        e = sp - m
        trial = integ + e * p.dt
        raw = p.kp * e + p.ki * trial + p.kd * (e - prev) / p.dt
        o = min(max(raw, p.out_min), p.out_max)
        if o == raw:
            integ = trial
        prev = e
        out.append(o)
    return np.array(out), {0: {"integral": integ, "prev_error": prev}}


def _ref_hist_add(h, samples):
    bins = h.bins.copy()
    for s in samples:
        k = int((s - h.lo) * h.scale)
        bins[min(max(k, 0), len(bins) - 1)] += 1
    return None, {0: {"bins": bins}}


def _ref_percentile(h, q):
    total, run = int(h.bins.sum()), 0
    for i, b in enumerate(h.bins):
        run += int(b)
        if run >= q / 100.0 * total:
            return i, {}
    return 0, {}


def _ref_ma(m, x):
    window = list(m.buf)
    window[m.pos] = x
    count = min(m.count + 1, len(window))
    return sum(window) / count, {0: {"pos": (m.pos + 1) % len(window), "count": count}}


def _ref_welford(w, xs):
    # the state before this block stands for w.n samples with w.mean and w.m2
    n = w.n + len(xs)
    mean = (w.mean * w.n + sum(xs)) / n
    m2 = w.m2 + sum((x - mean) ** 2 for x in xs) + w.n * (w.mean - mean) ** 2
    return (mean, m2 / (n - 1) if n > 1 else 0.0), {0: {"n": n, "mean": mean}}


def _ref_kf1d(k, zs):
    x, p, out = k.x, k.p, []
    for z in zs:
        p = p + k.q
        g = p / (p + k.r)
        x, p = x + g * (z - x), p * (1 - g)
        out.append(x)
    return np.array(out), {0: {"x": x, "p": p}}


def _ref_cvkf(k, z):
    x = k.F @ k.x
    P = k.F @ k.P @ k.F.T + k.Q
    S = P[0, 0] + k.R[0, 0]
    K = P[:, 0] / S
    xn = x + K * (z[0] - x[0])
    Pn = P - np.outer(K, P[0, :])
    return xn, {0: {"x": xn, "P": Pn}}


def _ref_ekf(e, z):
    th, om = e.x
    xp = np.array([th + om * e.dt, om - e.g_over_l * np.sin(th) * e.dt])
    F = np.array([[1.0, e.dt], [-e.g_over_l * np.cos(th) * e.dt, 1.0]])
    P = F @ e.P @ F.T + e.Q
    h = e.length * np.cos(xp[0])
    innov = z - e.length * np.sin(xp[0])
    S = h * P[0, 0] * h + e.r
    K = P[:, 0] * h / S
    return innov, {0: {"x": xp + K * innov, "P": P - np.outer(K, h * P[0, :])}}


def _ref_qdense(layer, x):
    out = []
    for row, b in zip(layer.w.tolist(), layer.bias.tolist()):
        acc = sum(w * (int(v) - layer.zero_point) for w, v in zip(row, x.tolist())) + b
        acc = (acc + 2**31) % 2**32 - 2**31  # int32 accumulator
        q = (acc * layer.multiplier + (1 << (layer.shift - 1))) >> layer.shift
        out.append(min(max(q, -128), 127))
    return np.array(out, dtype=np.int8), {}


_REFERENCES = {
    "FirFilter.process": _ref_fir,
    "FixedFir.__call__": _ref_fixed_fir,
    "Biquad.process": _ref_biquad,
    "PID.update": _ref_pid_update,
    "PID.run": _ref_pid_run,
    "Histogram.add": _ref_hist_add,
    "Histogram.percentile_bin": _ref_percentile,
    "MovingAverage.push": _ref_ma,
    "Welford.update_block": _ref_welford,
    "KalmanFilter1D.filter": _ref_kf1d,
    "ConstantVelocityKF.step": _ref_cvkf,
    "PendulumEKF.step": _ref_ekf,
    "QuantDense.forward": _ref_qdense,
}


def _selfcheck():
    from benchmarks.numpy_corpus._check import run_cases

    # float32 filters against float64 sums: agreement to 1e-5
    return run_cases(globals(), rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    _selfcheck()
