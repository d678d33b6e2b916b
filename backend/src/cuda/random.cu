// The device random generator: counter-based Philox4x32-10. Key = the seed (tt.manual_seed sets
// it together with the CPU generator's), counter = (element group, call number): each call
// draws fresh numbers and a given seed replays the same sequence of calls exactly, whatever the
// launch configuration. (The streams differ from the CPU generator's, as in torch.)
#include <atomic>
#include <mutex>

#include "common.cuh"

namespace tt::cuda {
namespace {

std::mutex g_mu;
uint64_t g_seed = 67280421310721ULL;  // the CPU generator's default seed
uint64_t g_calls = 0;

struct Philox {
  uint32_t k0, k1;
  uint64_t call;
};

Philox next_key() {
  std::lock_guard<std::mutex> lk(g_mu);
  return {static_cast<uint32_t>(g_seed), static_cast<uint32_t>(g_seed >> 32), g_calls++};
}

__device__ __forceinline__ uint4 philox(uint32_t k0, uint32_t k1, uint64_t group, uint64_t call) {
  uint4 c = make_uint4(static_cast<uint32_t>(group), static_cast<uint32_t>(group >> 32), static_cast<uint32_t>(call),
                       static_cast<uint32_t>(call >> 32));
#pragma unroll
  for (int i = 0; i < 10; ++i) {
    uint32_t hi0 = __umulhi(0xD2511F53u, c.x), lo0 = 0xD2511F53u * c.x;
    uint32_t hi1 = __umulhi(0xCD9E8D57u, c.z), lo1 = 0xCD9E8D57u * c.z;
    c = make_uint4(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

__device__ __forceinline__ float u01f(uint32_t x) { return static_cast<float>(x >> 8) * 0x1.0p-24f; }
__device__ __forceinline__ double u01d(uint32_t a, uint32_t b) {
  uint64_t v = (static_cast<uint64_t>(a) << 32) | b;
  return static_cast<double>(v >> 11) * 0x1.0p-53;
}

// kind: 0 uniform [lo, hi), 1 normal(lo = mean, hi = std), 2 bernoulli(p = lo) with 1/0 outputs
template <class T>
__global__ void k_random(T* o, int64_t n, Philox key, int kind, double lo, double hi, const T* probs) {
  int64_t groups = (n + 3) / 4, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; g < groups; g += step) {
    uint4 r = philox(key.k0, key.k1, static_cast<uint64_t>(g), key.call);
    uint32_t w[4] = {r.x, r.y, r.z, r.w};
    T v[4];
    if (kind == 1) {  // Box-Muller: two normals per pair of uniforms
#pragma unroll
      for (int p = 0; p < 2; ++p) {
        if constexpr (std::is_same_v<T, double>) {
          uint4 s = philox(key.k0, key.k1, static_cast<uint64_t>(g), key.call | (uint64_t(1) << 63));
          uint32_t ex[4] = {s.x, s.y, s.z, s.w};
          double u1 = 1.0 - u01d(w[2 * p], ex[2 * p]), u2 = u01d(w[2 * p + 1], ex[2 * p + 1]);
          double rad = sqrt(-2.0 * log(u1)), th = 6.283185307179586 * u2;
          v[2 * p] = static_cast<T>(lo + hi * rad * cos(th));
          v[2 * p + 1] = static_cast<T>(lo + hi * rad * sin(th));
        } else {
          float u1 = 1.0f - u01f(w[2 * p]), u2 = u01f(w[2 * p + 1]);
          float rad = sqrtf(-2.0f * logf(u1)), th = 6.2831853f * u2;
          v[2 * p] = static_cast<T>(lo + hi * rad * cosf(th));
          v[2 * p + 1] = static_cast<T>(lo + hi * rad * sinf(th));
        }
      }
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        double u = std::is_same_v<T, double> ? u01d(w[q], w[(q + 1) & 3] ^ 0x5bd1e995u) : u01f(w[q]);
        if (kind == 0) {
          v[q] = static_cast<T>(lo + (hi - lo) * u);
        } else {
          int64_t e = 4 * g + q;
          double p = probs ? static_cast<double>(probs[e < n ? e : 0]) : lo;
          v[q] = u < p ? T(1) : T(0);
        }
      }
    }
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (4 * g + q < n) o[4 * g + q] = v[q];
  }
}

__global__ void k_randint(int64_t* o, int64_t n, Philox key, int64_t lo, uint64_t range) {
  int64_t groups = (n + 1) / 2, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; g < groups; g += step) {
    uint4 r = philox(key.k0, key.k1, static_cast<uint64_t>(g), key.call);
    uint64_t a = (static_cast<uint64_t>(r.x) << 32) | r.y, b = (static_cast<uint64_t>(r.z) << 32) | r.w;
    if (2 * g < n) o[2 * g] = lo + static_cast<int64_t>(__umul64hi(a, range));
    if (2 * g + 1 < n) o[2 * g + 1] = lo + static_cast<int64_t>(__umul64hi(b, range));
  }
}

template <class T>
void launch_random(const Tensor& out, int kind, double lo, double hi, const Tensor* probs, const char* what) {
  int64_t n = out.numel();
  if (n == 0) return;
  Philox key = next_key();
  k_random<T><<<grid_for((n + 3) / 4), kThreads, 0, kStream>>>(
      static_cast<T*>(out.raw()), n, key, kind, lo, hi, probs ? static_cast<const T*>(probs->raw()) : nullptr);
  check_launch(what);
}

}  // namespace

void seed(uint64_t s) {
  std::lock_guard<std::mutex> lk(g_mu);
  g_seed = s;
  g_calls = 0;
}
uint64_t seed_value() {
  std::lock_guard<std::mutex> lk(g_mu);
  return g_seed;
}

void rand_uniform(const Tensor& out, double lo, double hi) {
  visit_float(out.dtype(), "rand", [&](auto tag) { launch_random<decltype(tag)>(out, 0, lo, hi, nullptr, "rand"); });
}
void rand_normal(const Tensor& out, double mean, double sd) {
  visit_float(out.dtype(), "randn", [&](auto tag) { launch_random<decltype(tag)>(out, 1, mean, sd, nullptr, "randn"); });
}
void bernoulli_scalar(const Tensor& out, double p) {
  visit_float(out.dtype(), "bernoulli", [&](auto tag) { launch_random<decltype(tag)>(out, 2, p, 0, nullptr, "bernoulli"); });
}
void bernoulli(const Tensor& out, const Tensor& p) {
  if (p.dtype() != out.dtype()) throw TypeError("[bernoulli] probabilities and output must share a dtype on CUDA");
  visit_float(out.dtype(), "bernoulli", [&](auto tag) { launch_random<decltype(tag)>(out, 2, 0, 0, &p, "bernoulli"); });
}
void rand_int(const Tensor& out, int64_t lo, int64_t hi) {
  if (out.dtype() != DType::Int64) throw TypeError("[randint] the CUDA kernel writes int64");
  int64_t n = out.numel();
  if (n == 0) return;
  Philox key = next_key();
  k_randint<<<grid_for((n + 1) / 2), kThreads, 0, kStream>>>(static_cast<int64_t*>(out.raw()), n, key, lo,
                                                            static_cast<uint64_t>(hi - lo));
  check_launch("randint");
}

}  // namespace tt::cuda
