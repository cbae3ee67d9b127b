"""Ends through sys.exit with the status given on the command line (profiler tests)."""

import sys


def finish(code):
    sys.exit(code)


def work(n):
    return n * 2


if __name__ == "__main__":
    work(21)
    finish(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print("not reached")
