// partition_ops.h: the exact numpy/Python semantics of the kernel IR, in C++.
//
// Generated kernels call these helpers (namespace pt) for every operation whose
// C++ operator would differ from numpy: integer arithmetic wraps modulo 2**bits
// instead of being undefined on signed overflow, floor division and modulo round
// toward minus infinity, shifts by an out-of-range amount give numpy's result,
// min/max follow Python's builtins, float-to-int casts never hit undefined
// behaviour. Each helper is a template on the element type, called with the type
// spelled out (pt::add<int16_t>(a, b)), so an int16 sum is wrapped back to int16
// even though C++ promotes both operands to int.
//
// Standard C++14 only (<stdint.h>, <string.h>, <cmath>): it compiles with g++
// for C simulation and with Vitis HLS for synthesis. Kernels chained by
// AXI-Stream use hls::stream; where Vitis HLS's <hls_stream.h> is not
// installed, a FIFO with the same read/write/empty/size members stands in. Everything used by kernels is
// branch-and-shift logic that synthesises to plain wires, adders and muxes.
//
// The testbench support (file loading, tolerant comparison, reporting) at the
// end is compiled only when PARTITION_TESTBENCH is defined, i.e. in <task>_tb.cpp.

#ifndef PARTITION_OPS_H
#define PARTITION_OPS_H

#include <stdint.h>
#include <string.h>

#include <cmath>
#include <limits>

#if defined(__has_include)
#if __has_include(<hls_stream.h>)
#include <hls_stream.h>
#define PT_VITIS_STREAM 1
#endif
#endif
#ifndef PT_VITIS_STREAM
#include <stdio.h>
#include <stdlib.h>

#include <deque>
namespace hls {
// The C-simulation stand-in for Vitis HLS's hls::stream: an unbounded FIFO. Reading
// an empty stream is a broken chain (the producer wrote fewer beats than the consumer
// reads), so it stops the simulation instead of returning a made-up value.
template <class T> class stream {
 public:
  void write(const T& v) { q_.push_back(v); }
  T read() {
    if (q_.empty()) {
      fprintf(stderr, "hls::stream: read from an empty stream\n");
      abort();
    }
    T v = q_.front();
    q_.pop_front();
    return v;
  }
  bool empty() const { return q_.empty(); }
  size_t size() const { return q_.size(); }

 private:
  std::deque<T> q_;
};
}  // namespace hls
#endif

namespace pt {

// ------------------------------------------------------------------ type facts
// kind: 0 bool, 1 integer, 2 floating point. UT: the unsigned type of exactly
// T's width. U: an unsigned type at least as wide as T and as `unsigned int`, in
// which wrapping arithmetic is well defined (an unsigned type narrower than int
// would be promoted back to signed int). Derived from std::numeric_limits so
// that every spelling of an integer type (int, long, long long) is covered.

template <int Bytes> struct uint_of;
template <> struct uint_of<1> { typedef uint8_t type; };
template <> struct uint_of<2> { typedef uint16_t type; };
template <> struct uint_of<4> { typedef uint32_t type; };
template <> struct uint_of<8> { typedef uint64_t type; };

template <class T> struct traits {
  typedef typename uint_of<sizeof(T)>::type UT;
  typedef typename uint_of<(sizeof(T) < 4 ? 4 : sizeof(T))>::type U;
  static const int kind = std::numeric_limits<T>::is_integer ? 1 : 2;
  static const int bits = 8 * static_cast<int>(sizeof(T));
  static const bool is_signed = std::numeric_limits<T>::is_signed;
  static const int mant_bits = std::numeric_limits<T>::digits - 1;          // floats: stored fraction bits
  static const int exp_bias = std::numeric_limits<T>::max_exponent - 1;     // floats: 127 / 1023
  static UT max_bits() { return static_cast<UT>(std::numeric_limits<T>::max()); }  // integers only
};

template <> struct traits<bool> {
  typedef uint8_t UT;
  typedef unsigned int U;
  static const int kind = 0;
  static const int bits = 1;
  static const bool is_signed = false;
};

// x < 0 without a "comparison is always false" warning for unsigned types.
template <bool Signed> struct sign_test {
  template <class T> static bool negative(T x) { return x < T(0); }
};
template <> struct sign_test<false> {
  template <class T> static bool negative(T) { return false; }
};
template <class T> inline bool is_negative(T x) { return sign_test<traits<T>::is_signed>::negative(x); }

// The T whose two's-complement bits are the low bits of u (modulo 2**bits).
// Unsigned-to-signed conversion of an out-of-range value is implementation
// defined before C++20, so the negative case is rebuilt arithmetically.
template <class T> inline T from_bits(typename traits<T>::U u) {
  typedef typename traits<T>::UT UT;
  const UT v = static_cast<UT>(u);
  if (!traits<T>::is_signed || v <= traits<T>::max_bits()) return static_cast<T>(v);
  const UT magnitude_minus_one = static_cast<UT>(~v);  // = 2**bits - 1 - v, <= max
  return static_cast<T>(-static_cast<T>(magnitude_minus_one) - 1);
}

template <class T> inline typename traits<T>::U to_bits(T x) { return static_cast<typename traits<T>::U>(x); }

// ------------------------------------------------------- wrapping integer ops

template <class T> inline T add(T a, T b) { return from_bits<T>(to_bits<T>(a) + to_bits<T>(b)); }
template <class T> inline T sub(T a, T b) { return from_bits<T>(to_bits<T>(a) - to_bits<T>(b)); }
template <class T> inline T mul(T a, T b) { return from_bits<T>(to_bits<T>(a) * to_bits<T>(b)); }
template <class T> inline T neg(T a) { return from_bits<T>(typename traits<T>::U(0) - to_bits<T>(a)); }
// numpy: abs(MIN) wraps to MIN.
template <class T> inline T abs(T a) { return is_negative(a) ? neg<T>(a) : a; }
template <class T> inline T invert(T a) { return from_bits<T>(~to_bits<T>(a)); }

// Floor division and modulo (round toward minus infinity), numpy's integer
// rules: x // 0 == 0, x % 0 == 0, MIN // -1 == MIN (wraps), MIN % -1 == 0.
template <class T> inline T floordiv(T a, T b) {
  if (b == T(0)) return T(0);
  if (traits<T>::is_signed && is_negative(b) && b == T(~T(0))) return neg<T>(a);  // b == -1
  T q = static_cast<T>(a / b);
  if (static_cast<T>(a % b) != T(0) && (is_negative(a) != is_negative(b))) q = static_cast<T>(q - 1);
  return q;
}

template <class T> inline T mod(T a, T b) {
  if (b == T(0)) return T(0);
  if (traits<T>::is_signed && is_negative(b) && b == T(~T(0))) return T(0);  // b == -1
  T r = static_cast<T>(a % b);
  if (r != T(0) && (is_negative(r) != is_negative(b))) r = static_cast<T>(r + b);
  return r;
}

// numpy: a shift by a negative amount or by >= bits gives 0 (shl, shr of a
// non-negative value) or -1 (shr of a negative value). S is any integer type.
template <class T, class S> inline bool shift_out_of_range(S s) {
  return is_negative(s) || static_cast<uint64_t>(s) >= static_cast<uint64_t>(traits<T>::bits);
}

template <class T, class S> inline T shl(T a, S s) {
  if (shift_out_of_range<T>(s)) return T(0);
  return from_bits<T>(to_bits<T>(a) << static_cast<unsigned>(s));
}

template <class T, class S> inline T shr(T a, S s) {
  const bool neg_a = is_negative(a);
  if (shift_out_of_range<T>(s)) return neg_a ? T(~T(0)) : T(0);
  if (neg_a) {
    // Arithmetic shift of a negative value through its non-negative complement
    // (right-shifting a negative signed value is implementation defined).
    const T c = static_cast<T>(~a);
    return static_cast<T>(~(c >> static_cast<unsigned>(s)));
  }
  return static_cast<T>(a >> static_cast<unsigned>(s));
}

// Python's min/max builtins: the first operand wins ties and NaN comparisons.
template <class T> inline T min(T a, T b) { return b < a ? b : a; }
template <class T> inline T max(T a, T b) { return b > a ? b : a; }

// ----------------------------------------------------------- floating point
// +, -, *, / and negation are the C++ operators (IEEE 754, round to nearest;
// compile without floating-point contraction). These match numpy's float loops.

template <> inline float abs<float>(float a) { return std::fabs(a); }
template <> inline double abs<double>(double a) { return std::fabs(a); }

// numpy's npy_divmod (floor division and remainder of floats, Python's rules):
// the remainder comes from fmod (exact) with its sign fixed to the divisor's,
// the quotient from (a - mod) / b snapped to the nearest integer. A zero
// divisor gives a / b and fmod(a, b) (inf or nan), as numpy does.
template <class F> inline F float_floordiv(F a, F b) {
  if (b == F(0)) return a / b;
  F m = std::fmod(a, b);
  F div = (a - m) / b;
  if (m != F(0)) {
    if ((b < F(0)) != (m < F(0))) {
      m = m + b;
      div = div - F(1);
    }
  }
  F fdiv;
  if (div != F(0)) {
    fdiv = std::floor(div);
    if (div - fdiv > F(0.5)) fdiv = fdiv + F(1);
  } else {
    fdiv = std::copysign(F(0), a / b);
  }
  return fdiv;
}

template <class F> inline F float_mod(F a, F b) {
  F m = std::fmod(a, b);
  if (b == F(0)) return m;
  if (m != F(0)) {
    if ((b < F(0)) != (m < F(0))) m = m + b;
  } else {
    m = std::copysign(F(0), b);
  }
  return m;
}

template <> inline float floordiv<float>(float a, float b) { return float_floordiv<float>(a, b); }
template <> inline double floordiv<double>(double a, double b) { return float_floordiv<double>(a, b); }
template <> inline float mod<float>(float a, float b) { return float_mod<float>(a, b); }
template <> inline double mod<double>(double a, double b) { return float_mod<double>(a, b); }

// ---------------------------------------------------------------------- casts

// Bits of a float/double, through a union (supported by Vitis HLS and GCC).
template <class F> inline typename traits<F>::UT float_bits(F x) {
  union {
    F f;
    typename traits<F>::UT u;
  } v;
  v.f = x;
  return v.u;
}

// trunc(x) modulo 2**64, from the IEEE fields: a shift of the significand by the
// exponent (the same barrel shifter a float-to-int converter is built from).
// NaN and infinities give 0 (numpy leaves them undefined); finite values out of
// the destination's range wrap, like the exact integer they equal.
template <class F> inline uint64_t float_trunc_bits(F x) {
  typedef typename traits<F>::UT UT;
  const int mb = traits<F>::mant_bits;
  const int all_ones = (1 << (traits<F>::bits - 1 - mb)) - 1;
  const UT bits = float_bits<F>(x);
  const int exponent = static_cast<int>((bits >> mb) & static_cast<UT>(all_ones));
  if (exponent == all_ones) return 0;                  // inf, nan
  if (exponent < traits<F>::exp_bias) return 0;        // |x| < 1, zero, subnormal
  const uint64_t significand =
      static_cast<uint64_t>(bits & ((static_cast<UT>(1) << mb) - 1)) | (static_cast<uint64_t>(1) << mb);
  const int shift = exponent - traits<F>::exp_bias - mb;  // x = significand * 2**shift
  uint64_t magnitude;
  if (shift >= 64) {
    magnitude = 0;
  } else if (shift >= 0) {
    magnitude = significand << shift;
  } else {
    magnitude = significand >> (-shift);  // -shift <= mb < 64
  }
  const bool negative = (bits >> (traits<F>::bits - 1)) != 0;
  return negative ? static_cast<uint64_t>(0) - magnitude : magnitude;
}

// cast<D>(x): the IR's Cast. int->int wraps; float->int truncates toward zero
// (see float_trunc_bits); int->float rounds to nearest (C++ conversion);
// float->float rounds to nearest; anything->bool is x != 0.
template <class D, class S, int DK = traits<D>::kind, int SK = traits<S>::kind> struct caster;

template <class D, class S, int SK> struct caster<D, S, 0, SK> {  // -> bool
  static D run(S x) { return x != S(0); }
};
template <class D, class S> struct caster<D, S, 1, 0> {  // bool -> int
  static D run(S x) { return x ? D(1) : D(0); }
};
template <class D, class S> struct caster<D, S, 1, 1> {  // int -> int
  static D run(S x) { return from_bits<D>(static_cast<typename traits<D>::U>(x)); }
};
template <class D, class S> struct caster<D, S, 1, 2> {  // float -> int
  static D run(S x) { return from_bits<D>(static_cast<typename traits<D>::U>(float_trunc_bits<S>(x))); }
};
template <class D, class S, int SK> struct caster<D, S, 2, SK> {  // -> float
  static D run(S x) { return static_cast<D>(x); }
};

template <class D, class S> inline D cast(S x) { return caster<D, S>::run(x); }

// ---------------------------------------------------------------------- loops

// Iterations of Python's range(start, stop, step) for 64-bit bounds of one type
// B (int64_t or uint64_t), where a counter one step past the stop could
// overflow: the distance is computed modulo 2**64, which is exact because it
// lies in (0, 2**64).
template <class B> inline uint64_t range_trips(B start, B stop, int64_t step) {
  if (step > 0) {
    if (!(start < stop)) return 0;
    const uint64_t distance = static_cast<uint64_t>(stop) - static_cast<uint64_t>(start);
    return (distance - 1) / static_cast<uint64_t>(step) + 1;
  }
  if (!(start > stop)) return 0;
  const uint64_t distance = static_cast<uint64_t>(start) - static_cast<uint64_t>(stop);
  return (distance - 1) / (static_cast<uint64_t>(0) - static_cast<uint64_t>(step)) + 1;
}

// ------------------------------------------------------------- AXI-Stream beats
// An array streamed from one kernel into the next travels as 64-bit beats: the
// elements' little-endian bytes back to back (element i at byte i * sizeof(T); a
// bool is one byte, 0 or 1), ceil(n * sizeof(T) / 8) beats, the last beat's
// unused bytes zero. The same layout as the array in DDR, so a stream and a
// buffer are interchangeable.

template <class T> struct beat_layout {
  static const int bytes = traits<T>::kind == 0 ? 1 : static_cast<int>(sizeof(T));
  static const int per_beat = 8 / bytes;
};

template <class T> inline uint64_t raw_bits(T x) {
  if (traits<T>::kind == 0) return x ? 1u : 0u;
  typename traits<T>::UT u;
  memcpy(&u, &x, sizeof(T));
  return static_cast<uint64_t>(u);
}

template <class T> inline T from_raw(uint64_t w) {
  if (traits<T>::kind == 0) return (w & 0xFF) != 0;
  typename traits<T>::UT u = static_cast<typename traits<T>::UT>(w);
  T x;
  memcpy(&x, &u, sizeof(T));
  return x;
}

// Beat b of the n elements of buf.
template <class T> inline uint64_t pack_beat(const T* buf, int64_t n, int64_t b) {
  const int per = beat_layout<T>::per_beat;
  uint64_t w = 0;
  for (int j = 0; j < per; ++j) {
#pragma HLS UNROLL
    const int64_t i = b * per + j;
    if (i < n) w |= raw_bits<T>(buf[i]) << (8 * beat_layout<T>::bytes * j);
  }
  return w;
}

// Beat b into the n elements of buf (the last beat's padding is dropped).
template <class T> inline void unpack_beat(uint64_t w, T* buf, int64_t n, int64_t b) {
  const int per = beat_layout<T>::per_beat;
  for (int j = 0; j < per; ++j) {
#pragma HLS UNROLL
    const int64_t i = b * per + j;
    if (i < n) buf[i] = from_raw<T>(per == 1 ? w : w >> (8 * beat_layout<T>::bytes * j));
  }
}

}  // namespace pt

// ============================================================ testbench support
#ifdef PARTITION_TESTBENCH

#include <stdio.h>
#include <string.h>

#include <memory>
#include <string>
#include <vector>

namespace pt {
namespace tb {

// A streamed argument in C simulation: the array as the producer kernel would send it,
// and the beats a kernel sent read back into an array (exactly as many as the array
// needs: one more or fewer is a broken chain).
template <class T> void fill_stream(hls::stream<uint64_t>& s, const T* src, int64_t n) {
  const int64_t beats = (n * beat_layout<T>::bytes + 7) / 8;
  for (int64_t b = 0; b < beats; ++b) s.write(pack_beat<T>(src, n, b));
}

template <class T> std::string drain_stream(hls::stream<uint64_t>& s, T* dst, int64_t n) {
  const int64_t beats = (n * beat_layout<T>::bytes + 7) / 8;
  if (static_cast<int64_t>(s.size()) != beats) {
    char msg[120];
    snprintf(msg, sizeof msg, "the kernel streamed %lld beats, the array takes %lld",
             static_cast<long long>(s.size()), static_cast<long long>(beats));
    return msg;
  }
  for (int64_t b = 0; b < beats; ++b) unpack_beat<T>(s.read(), dst, n, b);
  return "";
}

// Reads exactly n elements of T from a raw little-endian file (bool: 1 byte,
// non-zero = true). Returns an error message, empty on success.
template <class T> std::string load(const std::string& path, T* dst, size_t n) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return "missing " + path;
  const size_t width = traits<T>::kind == 0 ? 1 : sizeof(T);
  std::vector<unsigned char> bytes(n * width + 1);
  const size_t got = fread(bytes.data(), 1, bytes.size(), f);
  fclose(f);
  if (got != n * width) {
    char msg[160];
    snprintf(msg, sizeof msg, ": expected %zu bytes, found %s%zu", n * width, got > n * width ? "more than " : "",
             got > n * width ? n * width : got);
    return path + msg;
  }
  for (size_t i = 0; i < n; ++i) {
    if (traits<T>::kind == 0) {
      const bool b = bytes[i] != 0;
      memcpy(&dst[i], &b, sizeof(bool));
      continue;
    }
    uint64_t u = 0;
    for (size_t k = 0; k < width; ++k) u |= static_cast<uint64_t>(bytes[i * width + k]) << (8 * k);
    if (width == 8) {
      memcpy(&dst[i], &u, 8);
    } else if (width == 4) {
      const uint32_t w = static_cast<uint32_t>(u);
      memcpy(&dst[i], &w, 4);
    } else if (width == 2) {
      const uint16_t w = static_cast<uint16_t>(u);
      memcpy(&dst[i], &w, 2);
    } else {
      const uint8_t w = static_cast<uint8_t>(u);
      memcpy(&dst[i], &w, 1);
    }
  }
  return std::string();
}

inline std::string format_signed(long long x) {
  char s[32];
  snprintf(s, sizeof s, "%lld", x);
  return s;
}
inline std::string format_unsigned(unsigned long long x) {
  char s[32];
  snprintf(s, sizeof s, "%llu", x);
  return s;
}
inline std::string format_float(double x, int digits) {
  char s[48];
  snprintf(s, sizeof s, "%.*g", digits, x);
  return s;
}

// A value as text that reads back exactly (floats: 9 / 17 significant digits).
template <class T> std::string format(T x) {
  if (traits<T>::kind == 0) return x ? "true" : "false";
  if (traits<T>::kind == 2) return format_float(static_cast<double>(x), traits<T>::bits == 32 ? 9 : 17);
  if (traits<T>::is_signed) return format_signed(static_cast<long long>(x));
  return format_unsigned(static_cast<unsigned long long>(x));
}

// Distance in units in the last place (0 = bit-identical, 1 between -0.0 and +0.0).
template <class F> uint64_t ulp_distance(F a, F b) {
  typedef typename traits<F>::UT UT;
  const int top = traits<F>::bits - 1;
  UT ua = float_bits<F>(a), ub = float_bits<F>(b);
  // map to an unsigned order that follows the numeric order
  ua = (ua >> top) ? static_cast<UT>(~ua) : static_cast<UT>(ua | (static_cast<UT>(1) << top));
  ub = (ub >> top) ? static_cast<UT>(~ub) : static_cast<UT>(ub | (static_cast<UT>(1) << top));
  return ua > ub ? static_cast<uint64_t>(ua - ub) : static_cast<uint64_t>(ub - ua);
}

// Outcome of comparing one output (array or return value).
struct Result {
  size_t mismatches;
  size_t first;          // flat index of the first mismatch
  std::string got, want;
  uint64_t max_ulp;      // floats: largest ulp distance over matching non-NaN elements
  bool is_float;
  Result() : mismatches(0), first(0), max_ulp(0), is_float(false) {}
};

template <class T, int K = traits<T>::kind> struct element_check {
  // integers and bool: bit-exact
  static bool same(T got, T want, double, double, uint64_t*) { return got == want; }
};
template <class T> struct element_check<T, 2> {
  // |got - want| <= atol + rtol * |want|; NaN matches NaN; infinities must be equal
  static bool same(T got, T want, double rtol, double atol, uint64_t* ulp) {
    const bool gn = std::isnan(got), wn = std::isnan(want);
    if (gn || wn) return gn && wn;
    if (got == want) {
      const uint64_t d = ulp_distance<T>(got, want);  // +0.0 vs -0.0
      if (d > *ulp) *ulp = d;
      return true;
    }
    if (std::isinf(got) || std::isinf(want)) return false;
    const double g = static_cast<double>(got), w = static_cast<double>(want);
    const bool ok = std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (ok) {
      const uint64_t d = ulp_distance<T>(got, want);
      if (d > *ulp) *ulp = d;
    }
    return ok;
  }
};

// Floats: within atol + rtol * (the largest finite |want| of the array). The kernel adds in index
// order where numpy adds pairwise or in BLAS order, which moves a sum by a few ulp of its terms:
// after cancellation that is far more than a few ulp of the (small) result, so the tolerance
// scales with the array's magnitude, as norm-wise comparisons of linear algebra do.
template <class T> Result compare(const T* got, const T* want, size_t n, double rtol, double atol) {
  Result r;
  r.is_float = traits<T>::kind == 2;
  double scale = 0.0;
  if (r.is_float) {
    for (size_t i = 0; i < n; ++i) {
      const double w = std::fabs(static_cast<double>(want[i]));
      if (std::isfinite(w) && w > scale) scale = w;
    }
  }
  const double tol = atol + rtol * scale;
  for (size_t i = 0; i < n; ++i) {
    if (!element_check<T>::same(got[i], want[i], rtol, tol, &r.max_ulp)) {
      if (r.mismatches == 0) {
        r.first = i;
        r.got = format(got[i]);
        r.want = format(want[i]);
      }
      ++r.mismatches;
    }
  }
  return r;
}

// "out[1][3]" for flat index 11 of a 4 x 8 array.
inline std::string element_name(const char* name, size_t flat, const size_t* shape, int ndim) {
  std::string s = name;
  std::vector<size_t> idx(ndim > 0 ? ndim : 1, 0);
  for (int d = ndim - 1; d >= 0; --d) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  for (int d = 0; d < ndim; ++d) s += "[" + format_unsigned(idx[d]) + "]";
  return s;
}

// vectors/<k>_<name>.<kind>.bin (kind "in" or "out"), vectors/<k>_return.bin
inline std::string vector_file(int k, const char* name, const char* kind) {
  return "vectors/" + format_signed(k) + "_" + name + "." + kind + ".bin";
}
inline std::string return_file(int k) { return "vectors/" + format_signed(k) + "_return.bin"; }

// Appends a load error (if any) to a "; "-separated list.
inline void note(std::string* errors, const std::string& error) {
  if (error.empty()) return;
  if (!errors->empty()) *errors += "; ";
  *errors += error;
}

// A zero-initialised element buffer (std::vector<bool> has no data()).
template <class T> struct Buffer {
  explicit Buffer(size_t n) : p(new T[n]()) {}
  T* data() { return p.get(); }
  std::unique_ptr<T[]> p;
};

// The verdict on one vector: every output compared, the first mismatch of each named.
struct Verdict {
  bool ok;
  bool any_float;
  uint64_t max_ulp;
  std::string detail;
  Verdict() : ok(true), any_float(false), max_ulp(0) {}

  void add(const char* name, const Result& r, size_t n, const size_t* shape, int ndim) {
    if (r.is_float) {
      any_float = true;
      if (r.max_ulp > max_ulp) max_ulp = r.max_ulp;
    }
    if (r.mismatches == 0) return;
    ok = false;
    if (!detail.empty()) detail += "; ";
    detail += element_name(name, r.first, shape, ndim) + ": got " + r.got + ", want " + r.want;
    if (n > 1) detail += " (" + format_unsigned(r.mismatches) + " of " + format_unsigned(n) + " elements differ)";
  }

  std::string text() const {
    if (!ok) return "FAIL " + detail;
    if (any_float) return "PASS (floats within " + format_unsigned(max_ulp) + " ulp)";
    return "PASS";
  }
};

}  // namespace tb
}  // namespace pt

#endif  // PARTITION_TESTBENCH

#endif  // PARTITION_OPS_H
