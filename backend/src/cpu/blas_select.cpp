// NOTE [ BLAS by CPU ]
// float32/float64 GEMMs run on the linked OpenBLAS (scipy-openblas32) everywhere, except on Intel
// CPUs where Intel's MKL is installed (the `mkl` wheel, `pip install typedtensor[mkl]`): there its
// GEMMs are loaded with dlopen and used instead. On an Intel Xeon (Emerald Rapids, AVX-512) MKL's
// single-threaded sgemm is 4% faster than OpenBLAS's at n >= 512 and 20-35% faster at n = 128-256,
// the sizes of attention heads; on AMD CPUs OpenBLAS stays (MKL is tuned for Intel's cores and
// OpenBLAS already matches the best peer there). Nothing is linked against MKL: where it is
// absent, or TYPEDTENSOR_BLAS=openblas, or the CPU is not Intel's, the library is never opened.
// MKL runs sequential (its threading layer set before its first call), so OpenMP's pool stays the
// only one (NOTE [ One thread pool ] in kernels.h). Where MKL is loaded its packed-operand GEMM
// (cblas_?gemm_pack / _compute) is looked up too, for the compiled graphs' GEMM epilogues (NOTE
// [ GEMM epilogues ] in graph/epilogue.cpp), and its bfloat16 GEMM (NOTE [ bfloat16 GEMM ] in
// gemm.cpp). TYPEDTENSOR_BLAS=mkl|openblas|auto (default
// auto) and typedtensor.backends.cpu.set_blas() override the choice.
#include "blas_select.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "typedtensor/blas.h"

namespace tt::cpu {
namespace {

void openblas_sgemm(CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, float alpha,
                    const float* a, blasint lda, const float* b, blasint ldb, float beta, float* c, blasint ldc) {
  scipy_cblas_sgemm(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void openblas_dgemm(CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, double alpha,
                    const double* a, blasint lda, const double* b, blasint ldb, double beta, double* c, blasint ldc) {
  scipy_cblas_dgemm(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

constexpr GemmFns kOpenBlas{openblas_sgemm, openblas_dgemm};

bool cpu_is_intel() {
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_is("intel");
#else
  return false;
#endif
}

struct Selector {
  std::mutex mu;
  std::atomic<const GemmFns*> current{nullptr};  // kOpenBlas or mkl_fns; null until chosen
  std::string name = "openblas";
  std::string mkl_path;        // from the Python side (the environment's lib/ folder), tried first
  void* mkl_handle = nullptr;  // stays open for the process
  GemmFns mkl_fns{nullptr, nullptr};
  std::string mkl_error;

  template <class T>
  static void load_packed(void* h, const std::string& p, PackedGemm<T>* out) {
    PackedGemm<T> f;
    f.get_size = reinterpret_cast<decltype(f.get_size)>(dlsym(h, ("cblas_" + p + "gemm_pack_get_size").c_str()));
    f.pack = reinterpret_cast<decltype(f.pack)>(dlsym(h, ("cblas_" + p + "gemm_pack").c_str()));
    f.compute = reinterpret_cast<decltype(f.compute)>(dlsym(h, ("cblas_" + p + "gemm_compute").c_str()));
    if (f.available()) *out = f;
  }

  // Must hold mu. Opens libmkl_rt once; false (with mkl_error) when it is not there.
  bool load_mkl() {
    if (mkl_handle) return true;
    if (!mkl_error.empty()) return false;
    std::vector<std::string> names;
    if (!mkl_path.empty()) names.push_back(mkl_path);
    names.insert(names.end(), {"libmkl_rt.so.3", "libmkl_rt.so.2", "libmkl_rt.so"});
    void* h = nullptr;
    for (const auto& n : names)
      if ((h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
    if (!h) {
      mkl_error = "libmkl_rt not found (pip install mkl)";
      return false;
    }
    // MKL_THREADING_SEQUENTIAL = 1, before any other MKL call; if MKL was already set up
    // otherwise in this process, cap its threads instead.
    auto set_layer = reinterpret_cast<int (*)(int)>(dlsym(h, "MKL_Set_Threading_Layer"));
    auto set_threads = reinterpret_cast<void (*)(int)>(dlsym(h, "MKL_Set_Num_Threads"));
    auto s = reinterpret_cast<SgemmFn>(dlsym(h, "cblas_sgemm"));
    auto d = reinterpret_cast<DgemmFn>(dlsym(h, "cblas_dgemm"));
    if (!set_layer || !s || !d) {
      mkl_error = "libmkl_rt lacks cblas_sgemm / MKL_Set_Threading_Layer";
      dlclose(h);
      return false;
    }
    if (set_layer(1) != 1 && set_threads) set_threads(1);
    mkl_handle = h;
    mkl_fns = {s, d};
    load_packed(h, "s", &mkl_fns.spacked);  // optional: a GEMM epilogue's blocks share one packed B
    load_packed(h, "d", &mkl_fns.dpacked);
    mkl_fns.bf16gemm = reinterpret_cast<Bf16GemmFn>(dlsym(h, "cblas_gemm_bf16bf16f32"));  // optional
    return true;
  }

  // Must hold mu.
  void choose(const std::string& want) {
    current.store(&kOpenBlas);
    name = "openblas";
    if (want == "openblas") return;
    if (want == "mkl") {
      if (!load_mkl()) throw std::runtime_error("set_blas: MKL cannot be loaded: " + mkl_error);
    } else if (!cpu_is_intel() || !load_mkl()) {
      return;
    }
    current.store(&mkl_fns);
    name = "mkl";
  }

  void ensure() {
    std::lock_guard<std::mutex> lock(mu);
    if (current.load()) return;
    const char* env = std::getenv("TYPEDTENSOR_BLAS");
    std::string want = env && *env ? env : "auto";
    if (want != "mkl" && want != "openblas") want = "auto";
    try {
      choose(want);
    } catch (const std::runtime_error&) {
      choose("auto");  // TYPEDTENSOR_BLAS=mkl without MKL: fall back rather than fail every GEMM
    }
  }
};

Selector& selector() {
  static Selector s;
  return s;
}

}  // namespace

const GemmFns& gemm_fns() {
  auto& s = selector();
  const GemmFns* f = s.current.load(std::memory_order_acquire);
  if (!f) {
    s.ensure();
    f = s.current.load();
  }
  return *f;
}

bool float32_gemm_in_bf16() {
  return float32_matmul_precision() == MatmulPrecision::Medium && gemm_fns().bf16gemm != nullptr;
}

}  // namespace tt::cpu

namespace tt {

std::string blas_library() {
  cpu::gemm_fns();
  auto& s = cpu::selector();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.name;
}

std::vector<std::string> blas_available() {
  auto& s = cpu::selector();
  std::lock_guard<std::mutex> lock(s.mu);
  std::vector<std::string> out{"openblas"};
  if (s.load_mkl()) out.push_back("mkl");
  return out;
}

bool blas_has_bf16_gemm() { return cpu::gemm_fns().bf16gemm != nullptr; }

namespace {
std::atomic<int> g_matmul_precision{static_cast<int>(MatmulPrecision::Highest)};
}  // namespace

void set_float32_matmul_precision(MatmulPrecision p) { g_matmul_precision.store(static_cast<int>(p)); }
MatmulPrecision float32_matmul_precision() {
  return static_cast<MatmulPrecision>(g_matmul_precision.load(std::memory_order_relaxed));
}

void set_blas(const std::string& name) {
  if (name != "openblas" && name != "mkl" && name != "auto")
    throw std::invalid_argument("set_blas: expected 'openblas', 'mkl' or 'auto', got '" + name + "'");
  auto& s = cpu::selector();
  std::lock_guard<std::mutex> lock(s.mu);
  s.choose(name);
}

void set_blas_mkl_path(const std::string& path) {
  auto& s = cpu::selector();
  std::lock_guard<std::mutex> lock(s.mu);
  s.mkl_path = path;
  if (!s.mkl_handle) s.mkl_error.clear();
}

}  // namespace tt
