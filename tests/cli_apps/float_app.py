"""An app with a float32 kernel: the HLS C++ path takes it, the built-in RTL backend does not."""

import numpy as np


def gain(x):
    out = np.zeros(len(x), dtype=np.float32)
    for i in range(len(x)):
        out[i] = x[i] * np.float32(0.5) + np.float32(1.25)
    return out


def main():
    x = np.linspace(-4.0, 4.0, 4000, dtype=np.float32)
    y = x
    for _ in range(3):
        y = gain(x)
    print(float(y.sum()))


if __name__ == "__main__":
    main()
