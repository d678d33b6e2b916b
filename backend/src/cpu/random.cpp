// The random generators (NOTE [ Generators ] in typedtensor/ops.h): the global one, seedable with
// tt.manual_seed, and the tt.Generator objects, each a 64-bit splitmix stream, serial so results
// are reproducible for a seed whatever the thread count. A GeneratorScope points this thread's
// draws at a generator of its own.
#include <cmath>
#include <mutex>
#include <type_traits>

#include "kernels.h"

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
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
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

void rand_normal(const Tensor& out, double mean, double sd) {
  if (on_cuda(out)) return cuda_kernels().rand_normal(out, mean, sd);  // NOTE [ Device dispatch ]
  int64_t n = out.numel();
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    Generator::State& g = current();
    std::lock_guard<std::mutex> lk(g.mu);
    for (int64_t i = 0; i < n; i += 2) {  // Box-Muller, two values per draw
      double u1 = 1.0 - uniform01(g.position), u2 = uniform01(g.position);
      double r = std::sqrt(-2.0 * std::log(u1)), th = 6.283185307179586 * u2;
      p[i] = static_cast<T>(mean + sd * r * std::cos(th));
      if (i + 1 < n) p[i + 1] = static_cast<T>(mean + sd * r * std::sin(th));
    }
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
