// The random generators (NOTE [ Generators ] in typedtensor/ops.h): the global one, seedable with
// tt.manual_seed, and the tt.Generator objects, each a 64-bit splitmix stream whose values for a
// seed do not depend on the thread count (most fills draw serially; normal draws are computed in
// parallel from reserved positions, NOTE [ Parallel normal draws ]). A GeneratorScope points this
// thread's draws at a generator of its own.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <type_traits>

#include "kernels.h"
#include "parallel.h"
#include "vmath.h"

namespace tt {

constexpr uint64_t kDefaultSeed = 67280421310721ULL;
constexpr uint64_t kStateMix = 0x853c49e6748fea9bULL;

struct Generator::State {
  std::mutex mu;
  uint64_t seed = kDefaultSeed;
  uint64_t position = kDefaultSeed ^ kStateMix;
};

namespace {
Generator::State g_global;
thread_local Generator::State* t_current = nullptr;  // a GeneratorScope's generator, else the global one

Generator::State& current() { return t_current != nullptr ? *t_current : g_global; }
}  // namespace

Generator::Generator(Device device) : state_(std::make_shared<State>()), device_(device) {}
Generator::Generator(std::shared_ptr<State> state, Device device) : state_(std::move(state)), device_(device) {}

void Generator::manual_seed(uint64_t s) {
  std::lock_guard<std::mutex> lk(state_->mu);
  state_->seed = s;
  state_->position = s ^ kStateMix;
}

uint64_t Generator::initial_seed() const { return state_->seed; }

std::vector<uint8_t> Generator::get_state() const {
  std::lock_guard<std::mutex> lk(state_->mu);
  std::vector<uint8_t> out(16);
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(state_->seed >> (8 * i));
    out[8 + i] = static_cast<uint8_t>(state_->position >> (8 * i));
  }
  return out;
}

void Generator::set_state(const std::vector<uint8_t>& bytes) {
  if (bytes.size() != 16)
    throw ValueError("[Generator.set_state] expected the 16 bytes get_state() returns, got " +
                     std::to_string(bytes.size()));
  uint64_t seed = 0, position = 0;
  for (int i = 0; i < 8; ++i) {
    seed |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    position |= static_cast<uint64_t>(bytes[8 + i]) << (8 * i);
  }
  std::lock_guard<std::mutex> lk(state_->mu);
  state_->seed = seed;
  state_->position = position;
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

inline uint64_t splitmix(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);  // kGamma below
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline double uniform01(uint64_t& s) { return static_cast<double>(splitmix(s) >> 11) * 0x1.0p-53; }
inline float uniform01f(uint64_t& s) { return static_cast<float>(splitmix(s) >> 40) * 0x1.0p-24f; }

template <class F>
void fill_typed(const Tensor& out, F gen) {
  // out is contiguous (front-end allocates it)
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    int64_t n = out.numel();
    Generator::State& g = current();
    std::lock_guard<std::mutex> lk(g.mu);
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(gen(g.position));
  });
}
}  // namespace

void seed(uint64_t s) {
  cuda_kernels().seed(s);  // the device generator restarts from the same seed
  std::lock_guard<std::mutex> lk(g_global.mu);
  g_global.seed = s;
  g_global.position = s ^ kStateMix;
}
uint64_t seed_value() { return g_global.seed; }
uint64_t next_u64() {
  Generator::State& g = current();
  std::lock_guard<std::mutex> lk(g.mu);
  return splitmix(g.position);
}

void rand_uniform(const Tensor& out, double lo, double hi) {
  if (on_cuda(out)) return cuda_kernels().rand_uniform(out, lo, hi);  // NOTE [ Device dispatch ]
  if (out.dtype() == DType::Float32 || is_half(out.dtype()))
    fill_typed(out, [lo, hi](uint64_t& s) { return static_cast<float>(lo + (hi - lo) * uniform01f(s)); });
  else
    fill_typed(out, [lo, hi](uint64_t& s) { return lo + (hi - lo) * uniform01(s); });
}

// NOTE [ Parallel normal draws ]
// splitmix64 is counter-based: the k-th draw after a position p mixes p + k * gamma. So rand_normal
// reserves its draws under the generator's lock (the position moves past all of them at once) and
// computes them after releasing it, in blocks of pairs that threads may share: pair j is
// Box-Muller on draws 2j + 1 and 2j + 2, whichever thread computes it, so the values do not depend
// on the thread count and the lock is never held across a parallel region (which may release the
// GIL while another thread waits for the lock). Each block computes its uniforms first, then
// log, sqrt and sin / cos in double over the block with the branch-free kernels of vmath_f64.h
// (within 1 ulp of the correctly rounded result; libm's scalar calls were 3-4x slower than torch's
// whole draw), and rounds once to the output dtype.
namespace {
constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ULL;
constexpr int64_t kNormalBlock = 256;  // pairs per block: the block's arrays stay in L1

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

template <class T>
void normal_pairs(T* p, int64_t n, uint64_t base, int64_t j0, int64_t j1, double mean, double sd) {
  alignas(64) double r[kNormalBlock], th[kNormalBlock], c[kNormalBlock], s[kNormalBlock];
  for (int64_t b = j0; b < j1; b += kNormalBlock) {
    const int64_t m = std::min(kNormalBlock, j1 - b);
    for (int64_t i = 0; i < m; ++i) {
      const uint64_t k = 2 * static_cast<uint64_t>(b + i);  // draws k + 1 and k + 2 after base
      r[i] = 1.0 - static_cast<double>(mix64(base + (k + 1) * kGamma) >> 11) * 0x1.0p-53;
      th[i] = 6.283185307179586 * (static_cast<double>(mix64(base + (k + 2) * kGamma) >> 11) * 0x1.0p-53);
    }
#pragma omp simd
    for (int64_t i = 0; i < m; ++i) {
      r[i] = std::sqrt(-2.0 * vlog(r[i]));
      c[i] = vcos_reduced(th[i]);
      s[i] = vsin_reduced(th[i]);
    }
    for (int64_t i = 0; i < m; ++i) {
      const int64_t o = 2 * (b + i);
      p[o] = static_cast<T>(mean + sd * r[i] * c[i]);
      if (o + 1 < n) p[o + 1] = static_cast<T>(mean + sd * r[i] * s[i]);
    }
  }
}
}  // namespace

void rand_normal(const Tensor& out, double mean, double sd) {
  if (on_cuda(out)) return cuda_kernels().rand_normal(out, mean, sd);  // NOTE [ Device dispatch ]
  const int64_t n = out.numel();
  if (n == 0) return;
  const int64_t pairs = (n + 1) / 2;  // an odd count still draws its last pair whole
  uint64_t base;
  {
    Generator::State& g = current();
    std::lock_guard<std::mutex> lk(g.mu);
    base = g.position;
    g.position += 2 * static_cast<uint64_t>(pairs) * kGamma;  // wraps modulo 2^64, as splitmix's adds
  }
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    parallel_for(0, pairs, 8 * kNormalBlock,
                 [&](int64_t j0, int64_t j1) { normal_pairs<T>(p, n, base, j0, j1, mean, sd); });
  });
}

void rand_int(const Tensor& out, int64_t lo, int64_t hi) {
  if (on_cuda(out)) return cuda_kernels().rand_int(out, lo, hi);  // NOTE [ Device dispatch ]
  uint64_t range = static_cast<uint64_t>(hi - lo);
  fill_typed(out, [lo, range](uint64_t& s) {
    // Lemire-style rejection-free enough for ranges << 2^64
    unsigned __int128 m = static_cast<unsigned __int128>(splitmix(s)) * range;
    return lo + static_cast<int64_t>(m >> 64);
  });
}

void bernoulli(const Tensor& out, const Tensor& p) {
  if (on_cuda(out)) return cuda_kernels().bernoulli(out, p);  // NOTE [ Device dispatch ]
  // p contiguous float32/64 with out's shape
  int64_t n = out.numel();
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    Generator::State& g = current();
    std::lock_guard<std::mutex> lk(g.mu);
    for (int64_t i = 0; i < n; ++i) {
      double pv = p.dtype() == DType::Float64 ? p.data<double>()[i] : p.data<float>()[i];
      o[i] = static_cast<T>(uniform01(g.position) < pv ? 1.0f : 0.0f);
    }
  });
}

void bernoulli_scalar(const Tensor& out, double p) {
  if (on_cuda(out)) return cuda_kernels().bernoulli_scalar(out, p);  // NOTE [ Device dispatch ]
  fill_typed(out, [p](uint64_t& s) { return uniform01(s) < p ? 1.0f : 0.0f; });
}

}  // namespace tt::cpu
