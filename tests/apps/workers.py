"""Checksums of data blocks computed in worker processes, as a batch job would.

A multiprocessing Pool (ended by its `with` block, which terminates the workers), a
ProcessPoolExecutor, two bare forks (one child ends with os._exit, the other with
sys.exit) and a Pool never closed, so every way a forked child ends is exercised.
"""

import concurrent.futures
import os
import sys
from multiprocessing import Pool


def adler32(block):
    a, b = 1, 0
    for byte in block:
        a = (a + byte) % 65521
        b = (b + a) % 65521
    return (b << 16) | a


def checksum_job(seed):
    block = bytes((seed * 31 + i * 7) & 0xFF for i in range(4000))
    return adler32(block)


def in_child(seed, how):
    pid = os.fork()
    if pid == 0:
        checksum_job(seed)
        if how == "exit":
            sys.exit(0)
        os._exit(0)
    os.waitpid(pid, 0)


def main():
    with Pool(2) as pool:
        sums = pool.map(checksum_job, range(6))
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as ex:
        sums += list(ex.map(checksum_job, range(6, 10)))
    in_child(10, "_exit")
    in_child(11, "exit")
    left_open = Pool(2)  # never closed: its workers end with the interpreter
    sums += left_open.map(checksum_job, range(12, 14))
    print(len(sums), sums[0])


if __name__ == "__main__":
    main()
