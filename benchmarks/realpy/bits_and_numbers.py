"""Bit manipulation, number theory and checksums: the integer routines of algorithm
collections, embedded-C-ported-to-Python utilities and protocol code (CRCs, hashes, PRNGs)."""

# ruff: noqa: RUF007  (the corpus keeps the style of the code it imitates)
import binascii
import copy
import math
import zlib

import numpy as np


def popcount_shift(number: int) -> int:
    """Count the set bits of a non-negative int one bit at a time.

    >>> popcount_shift(25)
    3
    """
    count = 0
    while number:
        count += number & 1
        number >>= 1
    return count


def popcount_kernighan(number: int) -> int:
    """Brian Kernighan's way: each step clears the lowest set bit."""
    result = 0
    while number:
        number &= number - 1
        result += 1
    return result


def popcount_array(words: np.ndarray) -> np.ndarray:
    """Set bits of every uint32 word."""
    out = np.zeros(len(words), dtype=np.uint8)
    for i in range(len(words)):
        v = int(words[i])
        c = 0
        while v:
            v &= v - 1
            c += 1
        out[i] = c
    return out


def parity(n: int) -> int:
    """1 when the 32-bit word has an odd number of set bits (xor folding)."""
    n ^= n >> 16
    n ^= n >> 8
    n ^= n >> 4
    n ^= n >> 2
    n ^= n >> 1
    return n & 1


def reverse_bits(n: int) -> int:
    """Reverse the 32 bits of an unsigned word."""
    result = 0
    for _ in range(32):
        result <<= 1
        result |= n & 1
        n >>= 1
    return result


def gray_code_sequence(bit_count: int) -> list[int]:
    """The 2**bit_count reflected Gray codes in order."""
    return [i ^ (i >> 1) for i in range(1 << bit_count)]


def gray_to_binary(gray: int) -> int:
    """Inverse of the Gray code."""
    binary = gray
    shift = gray >> 1
    while shift:
        binary ^= shift
        shift >>= 1
    return binary


def next_power_of_two(n: int) -> int:
    """Smallest power of two >= n for 1 <= n <= 2**31 (bit smearing)."""
    n -= 1
    n |= n >> 1
    n |= n >> 2
    n |= n >> 4
    n |= n >> 8
    n |= n >> 16
    return n + 1


def is_power_of_two(number: int) -> bool:
    """True for 1, 2, 4, 8, ...

    >>> is_power_of_two(6)
    False
    """
    return number > 0 and (number & (number - 1)) == 0


def greatest_common_divisor(a: int, b: int) -> int:
    """Euclid's algorithm; the result is non-negative."""
    while b:
        a, b = b, a % b
    return abs(a)


def binary_gcd(a: int, b: int) -> int:
    """Stein's algorithm for non-negative ints."""
    if a == 0:
        return b
    if b == 0:
        return a
    shift = 0
    while ((a | b) & 1) == 0:
        a >>= 1
        b >>= 1
        shift += 1
    while (a & 1) == 0:
        a >>= 1
    while b != 0:
        while (b & 1) == 0:
            b >>= 1
        if a > b:
            a, b = b, a
        b -= a
    return a << shift


def least_common_multiple(a: int, b: int) -> int:
    """lcm through the gcd helper."""
    return a // greatest_common_divisor(a, b) * b


def lcm_of_list(numbers: list[int]) -> int:
    """lcm of all the numbers."""
    result = 1
    for n in numbers:
        result = least_common_multiple(result, n)
    return result


def modular_exponential(base: int, power: int, mod: int) -> int:
    """base ** power % mod by square and multiply.

    >>> modular_exponential(5, 0, 10)
    1
    """
    result = 1
    base %= mod
    while power > 0:
        if power & 1:
            result = (result * base) % mod
        power = power >> 1
        base = (base * base) % mod
    return result


def isqrt_newton(n: int) -> int:
    """floor(sqrt(n)) by Newton's iteration on integers."""
    if n < 2:
        return n
    x = n
    y = (x + 1) // 2
    while y < x:
        x = y
        y = (x + n // x) // 2
    return x


def isqrt_binary_search(n: int) -> int:
    """floor(sqrt(n)) by bisection."""
    lo, hi = 0, n
    ans = 0
    while lo <= hi:
        mid = (lo + hi) // 2
        if mid * mid <= n:
            ans = mid
            lo = mid + 1
        else:
            hi = mid - 1
    return ans


def prime_sieve(num: int) -> list[bool]:
    """is_prime[i] for 0 <= i <= num (sieve of Eratosthenes)."""
    is_prime = [True] * (num + 1)
    is_prime[0] = False
    if num >= 1:
        is_prime[1] = False
    for i in range(2, int(math.sqrt(num)) + 1):
        if is_prime[i]:
            for j in range(i * i, num + 1, i):
                is_prime[j] = False
    return is_prime


def count_primes(n: int) -> int:
    """Number of primes <= n."""
    return sum(prime_sieve(n))


def is_prime(number: int) -> bool:
    """Trial division by 6k +- 1.

    >>> is_prime(97)
    True
    """
    if 1 < number < 4:
        return True
    elif number < 2 or number % 2 == 0 or number % 3 == 0:
        return False
    for i in range(5, int(math.sqrt(number) + 1), 6):
        if number % i == 0 or number % (i + 2) == 0:
            return False
    return True


def sum_of_digits(n: int) -> int:
    """Sum of the decimal digits of |n|.

    >>> sum_of_digits(-123)
    6
    """
    n = abs(n)
    res = 0
    while n > 0:
        n, digit = divmod(n, 10)
        res += digit
    return res


def reverse_integer(x: int) -> int:
    """Digits reversed, sign kept; 0 when the result leaves the signed 32-bit range."""
    sign = -1 if x < 0 else 1
    x = abs(x)
    rev = 0
    while x != 0:
        rev = rev * 10 + x % 10
        x //= 10
    rev *= sign
    if rev < -(2**31) or rev > 2**31 - 1:
        return 0
    return rev


def is_armstrong_number(n: int) -> bool:
    """True when n equals the sum of its digits each raised to the number of digits."""
    if n < 1:
        return False
    number_of_digits = 0
    temp = n
    while temp > 0:
        number_of_digits += 1
        temp //= 10
    total = 0
    temp = n
    while temp > 0:
        rem = temp % 10
        total += rem**number_of_digits
        temp //= 10
    return n == total


def is_perfect_number(number: int) -> bool:
    """True when number is the sum of its proper divisors."""
    if number <= 1:
        return False
    total = 1
    i = 2
    while i * i <= number:
        if number % i == 0:
            total += i
            other = number // i
            if other != i:
                total += other
        i += 1
    return total == number


def collatz_steps(n: int) -> int:
    """Steps of the 3n + 1 map until 1."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n //= 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def fib_fast_doubling(n: int) -> int:
    """F(n) by fast doubling over the bits of n, most significant first."""
    a, b = 0, 1
    for i in range(n.bit_length() - 1, -1, -1):
        c = a * (2 * b - a)
        d = a * a + b * b
        if (n >> i) & 1:
            a, b = d, c + d
        else:
            a, b = c, d
    return a


def xorshift32(state: int) -> int:
    """One step of Marsaglia's xorshift32."""
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    return state


def xorshift32_fill(seed: int, count: int) -> np.ndarray:
    """count successive xorshift32 outputs from a non-zero seed."""
    out = np.zeros(count, dtype=np.uint32)
    state = seed
    for i in range(count):
        state = xorshift32(state)
        out[i] = state
    return out


def crc8(data: list[int]) -> int:
    """CRC-8 (polynomial 0x07, init 0) over a list of bytes, MSB first."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            if crc & 0x80:
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
    return crc


def crc16_ccitt(data: np.ndarray) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over a uint8 array."""
    crc = 0xFFFF
    for byte in data:
        crc ^= int(byte) << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def crc32(data: np.ndarray) -> int:
    """The zlib/Ethernet CRC-32 (reflected, poly 0xEDB88320), bit by bit."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= int(byte)
        for _ in range(8):
            mask = -(crc & 1)
            crc = (crc >> 1) ^ (0xEDB88320 & mask)
    return crc ^ 0xFFFFFFFF


def adler32(data: np.ndarray) -> int:
    """Adler-32 checksum of a uint8 array."""
    MOD_ADLER = 65521
    a, b = 1, 0
    for byte in data:
        a = (a + int(byte)) % MOD_ADLER
        b = (b + a) % MOD_ADLER
    return (b << 16) | a


def fnv1a_32(data: list[int]) -> int:
    """32-bit FNV-1a hash of a list of bytes."""
    h = 0x811C9DC5
    for byte in data:
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def part1by1(n: int) -> int:
    """Spread the low 16 bits of n to the even bit positions."""
    n &= 0x0000FFFF
    n = (n | (n << 8)) & 0x00FF00FF
    n = (n | (n << 4)) & 0x0F0F0F0F
    n = (n | (n << 2)) & 0x33333333
    n = (n | (n << 1)) & 0x55555555
    return n


def morton_encode(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Z-order (Morton) codes of 16-bit coordinate pairs."""
    codes = np.zeros(len(xs), dtype=np.uint32)
    for i, (x, y) in enumerate(zip(xs, ys)):
        codes[i] = part1by1(int(x)) | (part1by1(int(y)) << 1)
    return codes


def hamming_distance(a: int, b: int) -> int:
    """Number of differing bits."""
    return popcount_kernighan(a ^ b)


def count_trailing_zeros(n: int) -> int:
    """Trailing zero bits of a 32-bit word (32 for 0)."""
    if n == 0:
        return 32
    count = 0
    while (n & 1) == 0:
        n >>= 1
        count += 1
    return count


def popcount_bin(number: int) -> int:
    """Set bits counted from the binary string."""
    return bin(number).count("1")


def is_palindrome_number(num: int) -> bool:
    """Palindromic decimal number, checked on its string."""
    return str(num) == str(num)[::-1]


def prime_factors(n: int) -> list[int]:
    """Prime factors of n with multiplicity.

    >>> prime_factors(100)
    [2, 2, 5, 5]
    """
    i = 2
    factors = []
    while i * i <= n:
        if n % i:
            i += 1
        else:
            n //= i
            factors.append(i)
    if n > 1:
        factors.append(n)
    return factors


def decimal_to_binary(num: int) -> str:
    """'0b...' text of an int, built digit by digit."""
    if num == 0:
        return "0b0"
    negative = num < 0
    num = abs(num)
    binary = ""
    while num > 0:
        binary = str(num % 2) + binary
        num >>= 1
    return ("-0b" if negative else "0b") + binary


def _u32(rng, n):
    return [int(v) for v in rng.integers(0, 2**32, n, dtype=np.uint64)]


def _bytes(rng, n):
    return rng.integers(0, 256, n).astype(np.uint8)


INPUTS = {
    "popcount_shift": lambda rng: [(v,) for v in _u32(rng, 3)] + [(0,)],
    "popcount_kernighan": lambda rng: [(v,) for v in _u32(rng, 3)] + [(0,)],
    "popcount_array": lambda rng: (
        [(rng.integers(0, 2**32, 300, dtype=np.uint64).astype(np.uint32),) for _ in range(3)]
        + [(np.array([0, 1, 0xFFFFFFFF] * 100, dtype=np.uint32),)]
    ),
    "parity": lambda rng: [(v,) for v in _u32(rng, 4)],
    "reverse_bits": lambda rng: [(v,) for v in _u32(rng, 3)] + [(1,)],
    "gray_code_sequence": lambda rng: [(8,) for _ in range(3)],
    "gray_to_binary": lambda rng: [(v,) for v in _u32(rng, 3)] + [(0,)],
    "next_power_of_two": lambda rng: [(int(v),) for v in rng.integers(1, 2**31, 3)] + [(1,), (1024,)],
    "is_power_of_two": lambda rng: [(v,) for v in (0, 1, 6, 64, -8, 2**30)],
    "greatest_common_divisor": lambda rng: (
        [(int(a), int(b)) for a, b in rng.integers(-(10**6), 10**6, (4, 2))] + [(0, 7)]
    ),
    "binary_gcd": lambda rng: (
        [(int(a), int(b)) for a, b in rng.integers(0, 10**6, (4, 2))] + [(0, 9), (48, 0)]
    ),
    "least_common_multiple": lambda rng: [(int(a), int(b)) for a, b in rng.integers(1, 10**4, (4, 2))],
    "lcm_of_list": lambda rng: [([int(v) for v in rng.integers(1, 30, 8)],) for _ in range(3)],
    "modular_exponential": lambda rng: [
        (int(b), int(e), int(m))
        for b, e, m in zip(rng.integers(-1000, 1000, 4), rng.integers(0, 10**6, 4), rng.integers(2, 10**5, 4))
    ],
    "isqrt_newton": lambda rng: [(int(v),) for v in rng.integers(0, 2**40, 3)] + [(0,), (1,), (99,)],
    "isqrt_binary_search": lambda rng: [(int(v),) for v in rng.integers(0, 2**31, 3)] + [(0,), (1,)],
    "prime_sieve": lambda rng: [(2000,) for _ in range(3)],
    "count_primes": lambda rng: [(3000,) for _ in range(3)],
    "is_prime": lambda rng: [(int(v),) for v in rng.integers(-5, 10**6, 5)] + [(2,), (97,), (7919,)],
    "sum_of_digits": lambda rng: [(int(v),) for v in rng.integers(-(10**9), 10**9, 4)] + [(0,)],
    "reverse_integer": lambda rng: (
        [(int(v),) for v in rng.integers(-(2**31), 2**31, 4)] + [(-120,), (1534236469,)]
    ),
    "is_armstrong_number": lambda rng: [(v,) for v in (0, 153, 370, 9474, 9475, 548834, 100)],
    "is_perfect_number": lambda rng: [(v,) for v in (6, 28, 496, 8128, 12, 1, 33550336)],
    "collatz_steps": lambda rng: [(int(v),) for v in rng.integers(1, 10**4, 4)] + [(1,), (27,)],
    "fib_fast_doubling": lambda rng: [(n,) for n in (0, 1, 10, 50, 90)],
    "xorshift32_fill": lambda rng: [(int(s), 1000) for s in rng.integers(1, 2**32, 3, dtype=np.uint64)],
    "crc8": lambda rng: [([int(v) for v in _bytes(rng, 300)],) for _ in range(3)] + [([0] * 300,)],
    "crc16_ccitt": lambda rng: [(_bytes(rng, 512),) for _ in range(3)] + [(np.full(512, 255, np.uint8),)],
    "crc32": lambda rng: [(_bytes(rng, 1024),) for _ in range(3)] + [(np.zeros(1024, np.uint8),)],
    "adler32": lambda rng: [(_bytes(rng, 4000),) for _ in range(3)] + [(np.full(4000, 255, np.uint8),)],
    "fnv1a_32": lambda rng: [([int(v) for v in _bytes(rng, 500)],) for _ in range(3)],
    "morton_encode": lambda rng: (
        [
            (rng.integers(0, 65536, 256).astype(np.uint16), rng.integers(0, 65536, 256).astype(np.uint16))
            for _ in range(3)
        ]
        + [(np.full(256, 65535, np.uint16), np.zeros(256, np.uint16))]
    ),
    "hamming_distance": lambda rng: [tuple(_u32(rng, 2)) for _ in range(4)],
    "count_trailing_zeros": lambda rng: [(v,) for v in _u32(rng, 3)] + [(0,), (2**31,), (1,)],
    "popcount_bin": lambda rng: [(v,) for v in _u32(rng, 3)],
    "is_palindrome_number": lambda rng: [(v,) for v in (121, -121, 10, 12321, 0)],
    "prime_factors": lambda rng: [(int(v),) for v in rng.integers(2, 10**6, 3)] + [(100,)],
    "decimal_to_binary": lambda rng: [(int(v),) for v in rng.integers(-1000, 1000, 3)] + [(0,)],
}

SCOPE = {name: "in" for name in INPUTS}
SCOPE.update(
    {
        "popcount_bin": "out: string processing (bin() and str.count)",
        "is_palindrome_number": "out: string processing (str() and slicing a str)",
        "prime_factors": "out: list.append with a data-dependent count",
        "decimal_to_binary": "out: string building",
    }
)


def _shape(v):
    """What must agree between the calls of one function: array dtype and shape, list structure."""
    if isinstance(v, np.ndarray):
        return ("ndarray", v.dtype.str, v.shape)
    if isinstance(v, (list, tuple)) and any(isinstance(e, (list, tuple, np.ndarray)) for e in v):
        return (type(v).__name__, tuple(_shape(e) for e in v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, len(v))
    return type(v).__name__


def _run_inputs(check=None):
    """Call every INPUTS case on copies of its arguments; check(name, args, result) when given.
    Every call of a function passes arrays and lists of the same shapes (as one app would)."""
    assert set(INPUTS) == set(SCOPE), set(INPUTS) ^ set(SCOPE)
    for k, (name, make) in enumerate(sorted(INPUTS.items())):
        calls = make(np.random.default_rng(2024 + k))
        assert len(calls) >= 3, name
        assert len({tuple(_shape(a) for a in args) for args in calls}) == 1, (
            name,
            [[_shape(a) for a in c] for c in calls],
        )
        for args in calls:
            result = globals()[name](*copy.deepcopy(args))
            if check is not None:
                check(name, args, result)


def _selfcheck():
    def primes_upto(n):
        return [k for k in range(n + 1) if k > 1 and all(k % d for d in range(2, math.isqrt(k) + 1))]

    def xs_ref(seed, n):
        out, s = [], seed
        for _ in range(n):
            s ^= (s << 13) & 0xFFFFFFFF
            s ^= s >> 17
            s ^= (s << 5) & 0xFFFFFFFF
            out.append(s)
        return out

    def interleave_ref(x, y):
        return sum(((x >> b) & 1) << (2 * b) | ((y >> b) & 1) << (2 * b + 1) for b in range(16))

    def crc8_ref(data):
        crc = 0
        for byte in data:
            for bit in range(7, -1, -1):
                top = (crc >> 7) & 1
                crc = ((crc << 1) & 0xFF) | 0
                if top ^ ((byte >> bit) & 1):
                    crc ^= 0x07
        return crc

    checks = {
        "popcount_shift": lambda a, r: r == bin(a[0]).count("1"),
        "popcount_kernighan": lambda a, r: r == bin(a[0]).count("1"),
        "popcount_array": lambda a, r: [int(v) for v in r] == [bin(int(w)).count("1") for w in a[0]],
        "parity": lambda a, r: r == bin(a[0]).count("1") % 2,
        "reverse_bits": lambda a, r: r == int(format(a[0], "032b")[::-1], 2),
        "gray_code_sequence": lambda a, r: (
            len(set(r)) == 2 ** a[0] and all(bin(x ^ y).count("1") == 1 for x, y in zip(r, r[1:]))
        ),
        "gray_to_binary": lambda a, r: r ^ (r >> 1) == a[0],
        "next_power_of_two": lambda a, r: r == 1 << (a[0] - 1).bit_length(),
        "is_power_of_two": lambda a, r: r == (a[0] > 0 and bin(a[0]).count("1") == 1),
        "greatest_common_divisor": lambda a, r: r == math.gcd(*a),
        "binary_gcd": lambda a, r: r == math.gcd(*a),
        "least_common_multiple": lambda a, r: r == math.lcm(*a),
        "lcm_of_list": lambda a, r: r == math.lcm(*a[0]),
        "modular_exponential": lambda a, r: r == pow(*a),
        "isqrt_newton": lambda a, r: r == math.isqrt(a[0]),
        "isqrt_binary_search": lambda a, r: r == math.isqrt(a[0]),
        "prime_sieve": lambda a, r: [i for i, p in enumerate(r) if p] == primes_upto(a[0]),
        "count_primes": lambda a, r: r == len(primes_upto(a[0])),
        "is_prime": lambda a, r: r == (a[0] > 1 and all(a[0] % d for d in range(2, math.isqrt(a[0]) + 1))),
        "sum_of_digits": lambda a, r: r == sum(int(c) for c in str(abs(a[0]))),
        "reverse_integer": lambda a, r: (
            r
            == (lambda v: v if -(2**31) <= v < 2**31 else 0)(
                (-1 if a[0] < 0 else 1) * int(str(abs(a[0]))[::-1])
            )
        ),
        "is_armstrong_number": lambda a, r: (
            r == (a[0] > 0 and a[0] == sum(int(c) ** len(str(a[0])) for c in str(a[0])))
        ),
        "is_perfect_number": lambda a, r: r == (a[0] in (6, 28, 496, 8128, 33550336)),
        "collatz_steps": lambda a, r: r == {1: 0, 27: 111}.get(a[0], r),
        "fib_fast_doubling": lambda a, r: r == _fib(a[0]),
        "xorshift32_fill": lambda a, r: [int(v) for v in r] == xs_ref(*a),
        "crc8": lambda a, r: r == crc8_ref(a[0]),
        "crc16_ccitt": lambda a, r: r == binascii.crc_hqx(a[0].tobytes(), 0xFFFF),
        "crc32": lambda a, r: r == zlib.crc32(a[0].tobytes()),
        "adler32": lambda a, r: r == zlib.adler32(a[0].tobytes()),
        "fnv1a_32": lambda a, r: r == _fnv_ref(a[0]),
        "morton_encode": lambda a, r: (
            [int(v) for v in r] == [interleave_ref(int(x), int(y)) for x, y in zip(*a)]
        ),
        "hamming_distance": lambda a, r: r == bin(a[0] ^ a[1]).count("1"),
        "count_trailing_zeros": lambda a, r: r == (32 if a[0] == 0 else (a[0] & -a[0]).bit_length() - 1),
        "popcount_bin": lambda a, r: r == popcount_kernighan(a[0]),
        "is_palindrome_number": lambda a, r: r == (a[0] in (121, 12321, 0)),
        "prime_factors": lambda a, r: math.prod(r) == a[0] and all(is_prime(p) for p in r) and r == sorted(r),
        "decimal_to_binary": lambda a, r: r == bin(a[0]),
    }

    def check(name, args, result):
        assert checks[name](args, result), (name, args, result)

    _run_inputs(check)
    assert crc32(np.frombuffer(b"123456789", np.uint8)) == 0xCBF43926
    assert crc16_ccitt(np.frombuffer(b"123456789", np.uint8)) == 0x29B1
    assert crc8(list(b"123456789")) == 0xF4
    print(f"bits_and_numbers: {len(INPUTS)} cases OK")


def _fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def _fnv_ref(data):
    h = 0x811C9DC5
    for byte in bytes(data):
        h = ((h ^ byte) * 16777619) % 2**32
    return h


if __name__ == "__main__":
    _selfcheck()
