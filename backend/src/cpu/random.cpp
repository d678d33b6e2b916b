// The random generators (NOTE [ Generators ] in typedtensor/ops.h): the global one, seedable with
// tt.manual_seed, and the tt.Generator objects.
//
// NOTE [ torch's CPU streams ]
// Each generator is torch's CPU generator: a 32-bit Mersenne Twister (MT19937) seeded with the low
// 32 bits of the seed, with a cached second normal draw, and every CPU draw takes its numbers from
// it as ATen's CPU kernels do, so a seed gives torch's values: a float is the low 24 bits of one
// 32-bit draw times 2^-24, a double the low 53 bits of two draws (the first the high word) times
// 2^-53; randint is a 32-bit draw modulo the range (a 64-bit one past 2^32); randperm swaps each
// position i with i + draw % (n - i); bernoulli compares a float draw with a tensor probability and a
// double draw with a number. randn of 16 or more values is torch's normal_fill (Box-Muller over
// blocks of 16 float draws, the last block redrawn when the count is not a multiple of 16); under
// 16, torch's double Box-Muller with the cached sine draw. Where torch's float normal_fill runs
// vectorised (Sleef's logf/sinf/cosf) a value may differ from ours in the last bit.
// Draws are serial, so results are reproducible for a seed whatever the thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "kernels.h"
#include "parallel.h"

namespace tt {

constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // torch's default seed
constexpr double kPi = 3.14159265358979323846;
constexpr int kMTWords = 624;

struct Generator::State {
  std::mutex mu;
  uint64_t seed = kDefaultSeed;
  uint32_t mt[kMTWords];
  int index = kMTWords;
  bool has_normal = false;  // torch's cached second Box-Muller draw (double)
  double next_normal = 0.0;
  State() { reseed(kDefaultSeed); }
  void reseed(uint64_t s) {
    seed = s;
    mt[0] = static_cast<uint32_t>(s & 0xffffffffULL);
    for (int i = 1; i < kMTWords; ++i) mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + static_cast<uint32_t>(i);
    index = kMTWords;
    has_normal = false;
    next_normal = 0.0;
  }
  uint32_t next32() {
    if (index >= kMTWords) twist();
    uint32_t y = mt[index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
  }
  uint64_t next64() {  // torch's random64(): the first draw is the high word
    uint64_t hi = next32();
    uint64_t lo = next32();
    return (hi << 32) | lo;
  }

 private:
  static uint32_t mix(uint32_t upper, uint32_t lower, uint32_t far) {
    const uint32_t y = (upper & 0x80000000U) | (lower & 0x7fffffffU);
    return far ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
  }
  void twist() {  // the standard recurrence, its index arithmetic split at the wrap-arounds
    constexpr int kShift = 397, kSplit = kMTWords - kShift;
    for (int i = 0; i < kSplit; ++i) mt[i] = mix(mt[i], mt[i + 1], mt[i + kShift]);
    for (int i = kSplit; i < kMTWords - 1; ++i) mt[i] = mix(mt[i], mt[i + 1], mt[i - kSplit]);
    mt[kMTWords - 1] = mix(mt[kMTWords - 1], mt[0], mt[kShift - 1]);
    index = 0;
  }
};

// get_state: the seed (8 bytes), the 624 state words (4 bytes each), the position (4 bytes), the
// cached normal's flag (1 byte) and value (8 bytes), little-endian
constexpr size_t kStateBytes = 8 + 4 * kMTWords + 4 + 1 + 8;

namespace {
Generator::State g_global;
thread_local Generator::State* t_current = nullptr;  // a GeneratorScope's generator, else the global one

Generator::State& current() { return t_current != nullptr ? *t_current : g_global; }

template <class T>
void put(std::vector<uint8_t>& out, size_t& at, T v) {
  uint64_t bits = 0;
  static_assert(sizeof(T) <= 8);
  std::memcpy(&bits, &v, sizeof(T));
  for (size_t i = 0; i < sizeof(T); ++i) out[at++] = static_cast<uint8_t>(bits >> (8 * i));
}
template <class T>
T take(const std::vector<uint8_t>& in, size_t& at) {
  uint64_t bits = 0;
  for (size_t i = 0; i < sizeof(T); ++i) bits |= static_cast<uint64_t>(in[at++]) << (8 * i);
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}
}  // namespace

Generator::Generator(Device device) : state_(std::make_shared<State>()), device_(device) {}
Generator::Generator(std::shared_ptr<State> state, Device device) : state_(std::move(state)), device_(device) {}

void Generator::manual_seed(uint64_t s) {
  std::lock_guard<std::mutex> lk(state_->mu);
  state_->reseed(s);
}

uint64_t Generator::initial_seed() const { return state_->seed; }

std::vector<uint8_t> Generator::get_state() const {
  std::lock_guard<std::mutex> lk(state_->mu);
  std::vector<uint8_t> out(kStateBytes);
  size_t at = 0;
  put(out, at, state_->seed);
  for (uint32_t w : state_->mt) put(out, at, w);
  put(out, at, static_cast<int32_t>(state_->index));
  put(out, at, static_cast<uint8_t>(state_->has_normal ? 1 : 0));
  put(out, at, state_->next_normal);
  return out;
}

void Generator::set_state(const std::vector<uint8_t>& bytes) {
  if (bytes.size() != kStateBytes)
    throw ValueError("[Generator.set_state] expected the " + std::to_string(kStateBytes) +
                     " bytes get_state() returns, got " + std::to_string(bytes.size()));
  size_t at = 0;
  uint64_t seed = take<uint64_t>(bytes, at);
  uint32_t mt[kMTWords];
  for (uint32_t& w : mt) w = take<uint32_t>(bytes, at);
  int32_t index = take<int32_t>(bytes, at);
  bool has_normal = take<uint8_t>(bytes, at) != 0;
  double next_normal = take<double>(bytes, at);
  if (index < 0 || index > kMTWords)
    throw ValueError("[Generator.set_state] the state's position " + std::to_string(index) + " is not in [0, 624]");
  std::lock_guard<std::mutex> lk(state_->mu);
  state_->seed = seed;
  std::memcpy(state_->mt, mt, sizeof(mt));
  state_->index = index;
  state_->has_normal = has_normal;
  state_->next_normal = next_normal;
}

Generator default_generator() {
  // shares the global state without owning it (it lives as long as the program)
  return Generator(std::shared_ptr<Generator::State>(std::shared_ptr<Generator::State>(), &g_global), Device{});
}

GeneratorScope::GeneratorScope(const Generator* g) : previous_(t_current) {
  if (g != nullptr) t_current = g->state().get();
}
GeneratorScope::~GeneratorScope() { t_current = previous_; }
bool generator_override_active() { return t_current != nullptr; }

}  // namespace tt

namespace tt::cpu {
namespace {

using State = Generator::State;

// torch's uniform_real_distribution: the low `digits` bits of a draw times 2^-digits
inline float uniform_float(State& g) { return static_cast<float>(g.next32() & ((1U << 24) - 1)) * 0x1.0p-24f; }
inline double uniform_double(State& g) {
  return static_cast<double>(g.next64() & ((uint64_t(1) << 53) - 1)) * 0x1.0p-53;
}

// torch's normal_distribution<double>: Box-Muller on two double draws, the sine kept for the next call
double normal_double(State& g) {
  if (g.has_normal) {
    g.has_normal = false;
    return g.next_normal;
  }
  double u1 = uniform_double(g);
  double u2 = uniform_double(g);
  double r = std::sqrt(-2.0 * std::log1p(-u2));
  double theta = 2.0 * kPi * u1;
  g.has_normal = true;
  g.next_normal = r * std::sin(theta);
  return r * std::cos(theta);
}

// NOTE [ torch's float normal_fill ]
// On a CPU with AVX2, torch fills float32 normals eight lanes at a time with the Cephes logf and
// sincosf of avx_mathfun.h (log256_ps, sincos256_ps), not libm's, compiled with FMA: a product
// that feeds a sum is fused with it where the compiler fuses it there. The scalar forms below
// follow those steps one by one, with the same fused multiply-adds written out (std::fma) and
// every other operation rounded to float on its own (contraction off here), so each value is
// torch's; tests/backend/test_torch_streams.py checks thousands of them.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
inline uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
inline float bits_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

__attribute__((always_inline)) inline float cephes_logf(float x) {
  x = std::max(x, bits_float(0x00800000U));  // the smallest normal float
  uint32_t bits = float_bits(x);
  const int32_t exponent = static_cast<int32_t>(bits >> 23) - 0x7f;
  x = bits_float((bits & ~0x7f800000U) | 0x3f000000U);  // the mantissa, in [0.5, 1)
  float e = static_cast<float>(exponent);
  e = e + 1.0f;
  const bool below = x < 0.707106781186547524f;
  const float tmp = below ? x : 0.0f;
  x = x - 1.0f;
  e = below ? e - 1.0f : e;
  x = x + tmp;
  const float z = x * x;
  // the polynomial written out: a loop over its coefficients kept the caller's simd loop scalar
  float y = 7.0376836292E-2f;
  y = std::fma(y, x, -1.1514610310E-1f);
  y = std::fma(y, x, 1.1676998740E-1f);
  y = std::fma(y, x, -1.2420140846E-1f);
  y = std::fma(y, x, 1.4249322787E-1f);
  y = std::fma(y, x, -1.6668057665E-1f);
  y = std::fma(y, x, 2.0000714765E-1f);
  y = std::fma(y, x, -2.4999993993E-1f);
  y = std::fma(y, x, 3.3333331174E-1f);
  y = y * x;
  y = std::fma(y, z, e * -2.12194440e-4f);
  y = std::fma(-z, 0.5f, y);
  x = x + y;
  x = std::fma(e, 0.693359375f, x);
  return x;
}

__attribute__((always_inline)) inline void cephes_sincosf(float xin, float* s, float* c) {
  uint32_t sign_sin = float_bits(xin) & 0x80000000U;
  float x = bits_float(float_bits(xin) & 0x7fffffffU);
  float y = x * 1.27323954473516f;  // 4 / pi
  int32_t j = static_cast<int32_t>(y);  // truncation, as cvttps
  j = (j + 1) & ~1;
  y = static_cast<float>(j);
  const uint32_t swap_sign_sin = (static_cast<uint32_t>(j) & 4U) << 29;
  const bool use_sin_poly = (j & 2) == 0;  // which polynomial gives the sine in this octant pair
  x = std::fma(y, -0.78515625f, x);  // the extended-precision reduction by pi / 4
  x = std::fma(y, -2.4187564849853515625e-4f, x);
  x = std::fma(y, -3.77489497744594108e-8f, x);
  const uint32_t sign_cos = ((~static_cast<uint32_t>(j - 2)) & 4U) << 29;
  sign_sin ^= swap_sign_sin;
  const float z = x * x;
  float yc = 2.443315711809948E-005f;  // the cosine polynomial
  yc = std::fma(yc, z, -1.388731625493765E-003f);
  yc = std::fma(yc, z, 4.166664568298827E-002f);
  yc = yc * z;
  yc = std::fma(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;
  float ys = -1.9515295891E-4f;  // the sine polynomial
  ys = std::fma(ys, z, 8.3321608736E-3f);
  ys = std::fma(ys, z, -1.6666654611E-1f);
  ys = ys * z;
  ys = std::fma(ys, x, x);
  const float sin_v = use_sin_poly ? ys : yc;
  const float cos_v = use_sin_poly ? yc : ys;
  *s = bits_float(float_bits(sin_v) ^ sign_sin);
  *c = bits_float(float_bits(cos_v) ^ sign_cos);
}

// torch's normal_fill_16: values j and j + 8 of a block of 16 uniforms become one Box-Muller pair
// (float32: NOTE [ torch's float normal_fill ]; float64: libm, as torch's scalar kernel)
void normal_fill_16(float* data, float mean, float sd) {
  const float two_pi = static_cast<float>(2.0 * kPi);
#pragma omp simd
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];  // [0, 1) -> (0, 1] for the log
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * cephes_logf(u1));
    const float theta = two_pi * u2;
    float sin_t, cos_t;
    cephes_sincosf(theta, &sin_t, &cos_t);
    const float cos_pos = radius * cos_t;
    const float sin_pos = radius * sin_t;
    data[j] = std::fma(cos_pos, sd, mean);
    data[j + 8] = std::fma(sin_pos, sd, mean);
  }
}

// torch's uniform_real_distribution on [low, high) as its CPU kernel computes it (checked value for
// value against torch): the bounds are rounded to the draw's type and the width taken there, the
// scaling is done in double (a product rounded before the sum), and a float is rounded once at the end.
inline float scaled_draw(float x, double low, double high) {
  const float lo = static_cast<float>(low), width = static_cast<float>(high) - lo;
  return static_cast<float>(static_cast<double>(x) * width + lo);  // the product of two floats is exact
}
inline double scaled_draw(double x, double low, double high) { return x * (high - low) + low; }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

void normal_fill_16(double* data, double mean, double sd) {
  for (int j = 0; j < 8; ++j) {
    const double u1 = 1 - data[j];
    const double u2 = data[j + 8];
    const double radius = std::sqrt(-2 * std::log(u1));
    const double theta = 2.0f * kPi * u2;
    data[j] = std::fma(radius * std::cos(theta), sd, mean);  // torch's scalar NormalFill16
    data[j + 8] = std::fma(radius * std::sin(theta), sd, mean);
  }
}

template <class T>
T uniform_of(State& g) {
  if constexpr (std::is_same_v<T, double>) return uniform_double(g);
  else return static_cast<T>(uniform_float(g));
}

template <class F>
void fill_typed(const Tensor& out, F gen) {
  // out is contiguous (front-end allocates it)
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    int64_t n = out.numel();
    State& g = current();
    std::lock_guard<std::mutex> lk(g.mu);
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(gen(g));
  });
}
}  // namespace

void seed(uint64_t s) {
  cuda_kernels().seed(s);  // the device generator restarts from the same seed
  std::lock_guard<std::mutex> lk(g_global.mu);
  g_global.reseed(s);
}
uint64_t seed_value() { return g_global.seed; }
uint64_t next_u64() {
  State& g = current();
  std::lock_guard<std::mutex> lk(g.mu);
  return g.next64();
}
uint32_t next_u32() {
  State& g = current();
  std::lock_guard<std::mutex> lk(g.mu);
  return g.next32();
}

void rand_uniform(const Tensor& out, double lo, double hi) {
  if (on_cuda(out)) return cuda_kernels().rand_uniform(out, lo, hi);  // NOTE [ Device dispatch ]
  if (out.dtype() == DType::Float64) fill_typed(out, [lo, hi](State& g) { return scaled_draw(uniform_double(g), lo, hi); });
  else fill_typed(out, [lo, hi](State& g) { return scaled_draw(uniform_float(g), lo, hi); });
}

// NOTE [ Parallel normal draws ]
// torch's normal_fill draws every uniform first and then turns each block of 16 into normals on
// its own: the draws are taken under the generator's lock (serially: the Mersenne Twister is not
// counter-based), the lock is released, and the blocks are transformed in parallel, so the values
// do not depend on the thread count and the lock is never held across a parallel region (which may
// release the GIL while another thread waits for it). The redrawn last block follows the others.
void rand_normal(const Tensor& out, double mean, double sd) {
  if (on_cuda(out)) return cuda_kernels().rand_normal(out, mean, sd);  // NOTE [ Device dispatch ]
  const int64_t n = out.numel();
  if (n == 0) return;
  State& g = current();
  auto fill = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    const T m = static_cast<T>(mean), s = static_cast<T>(sd);
    if (n < 16) {
      std::lock_guard<std::mutex> lk(g.mu);
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(normal_double(g) * sd + mean);
      return;
    }
    T tail[16];
    {
      std::lock_guard<std::mutex> lk(g.mu);
      for (int64_t i = 0; i < n; ++i) p[i] = uniform_of<T>(g);
      if (n % 16 != 0)
        for (T& v : tail) v = uniform_of<T>(g);
    }
    parallel_for(0, n / 16, 1024, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) normal_fill_16(p + 16 * b, m, s);
    });
    if (n % 16 != 0) {  // torch's last 16 values, again, from the fresh draws
      normal_fill_16(tail, m, s);
      std::copy(tail, tail + 16, p + n - 16);
    }
  };
  if (out.dtype() == DType::Float64) return fill(out.data<double>());
  if (out.dtype() == DType::Float32) return fill(out.data<float>());
  std::vector<float> work(static_cast<size_t>(n));  // another dtype: drawn as float32, then rounded
  fill(work.data());
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(work[static_cast<size_t>(i)]);
  });
}

void rand_int(const Tensor& out, int64_t lo, int64_t hi) {
  if (on_cuda(out)) return cuda_kernels().rand_int(out, lo, hi);  // NOTE [ Device dispatch ]
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  fill_typed(out, [lo, range](State& g) {
    uint64_t draw = range >= (uint64_t(1) << 32) ? g.next64() : g.next32();
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + draw % range);
  });
}

void bernoulli(const Tensor& out, const Tensor& p) {
  if (on_cuda(out)) return cuda_kernels().bernoulli(out, p);  // NOTE [ Device dispatch ]
  // p contiguous float32/64 with out's shape; torch compares a float draw with the probability as a float
  int64_t n = out.numel();
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    State& g = current();
    std::lock_guard<std::mutex> lk(g.mu);
    for (int64_t i = 0; i < n; ++i) {
      float pv = p.dtype() == DType::Float64 ? static_cast<float>(p.data<double>()[i]) : p.data<float>()[i];
      o[i] = static_cast<T>(uniform_float(g) < pv ? 1.0f : 0.0f);
    }
  });
}

void bernoulli_scalar(const Tensor& out, double p) {
  if (on_cuda(out)) return cuda_kernels().bernoulli_scalar(out, p);  // NOTE [ Device dispatch ]
  fill_typed(out, [p](State& g) { return uniform_double(g) < p ? 1.0f : 0.0f; });
}

}  // namespace tt::cpu
