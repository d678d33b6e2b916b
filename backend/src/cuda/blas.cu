// matmul / bmm through cuBLAS, loaded at run time with dlopen: the toolkit that builds us may not
// ship cuBLAS (it is a separate wheel), and a module linked against it would not import where it
// is missing. Only the handful of entry points we call are declared here.
// Search order: $TYPEDTENSOR_CUBLAS (a file), the folders given by set_cublas_search_path (the
// Python side passes site-packages/nvidia/{cu13,cublas}/lib), then the loader's own path; each
// with libcublas.so.13 first, then libcublas.so.12.
#include <dlfcn.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "common.cuh"
#include "typedtensor/blas.h"

namespace tt::cuda {
namespace {

using cublasHandle = void*;
using Status = int;  // cublasStatus_t: 0 = success
constexpr int kOpN = 0, kOpT = 1;  // cublasOperation_t
constexpr int kDefaultMath = 0, kTf32Math = 3;  // cublasMath_t

struct Cublas {
  void* lib = nullptr;
  cublasHandle handle = nullptr;
  std::string status = "not loaded yet";
  Status (*create)(cublasHandle*) = nullptr;
  Status (*set_stream)(cublasHandle, cudaStream_t) = nullptr;
  Status (*set_math)(cublasHandle, int) = nullptr;
  Status (*sgemm)(cublasHandle, int, int, int, int, int, const float*, const float*, int, const float*, int,
                  const float*, float*, int) = nullptr;
  Status (*dgemm)(cublasHandle, int, int, int, int, int, const double*, const double*, int, const double*, int,
                  const double*, double*, int) = nullptr;
  Status (*sgemm_b)(cublasHandle, int, int, int, int, int, const float*, const float*, int, long long, const float*,
                    int, long long, const float*, float*, int, long long, int) = nullptr;
  Status (*dgemm_b)(cublasHandle, int, int, int, int, int, const double*, const double*, int, long long,
                    const double*, int, long long, const double*, double*, int, long long, int) = nullptr;
};

std::mutex g_mu;
std::string g_search;  // ':'-separated folders

template <class F>
bool sym(void* lib, const char* name, F*& out) {
  out = reinterpret_cast<F*>(dlsym(lib, name));
  return out != nullptr;
}

void try_load(Cublas& c) {
  std::vector<std::string> files;
  if (const char* env = std::getenv("TYPEDTENSOR_CUBLAS")) files.emplace_back(env);
  std::vector<std::string> dirs;
  size_t start = 0;
  while (start <= g_search.size()) {
    size_t end = g_search.find(':', start);
    if (end == std::string::npos) end = g_search.size();
    if (end > start) dirs.push_back(g_search.substr(start, end - start));
    start = end + 1;
  }
  for (const char* ver : {"13", "12"}) {
    for (const auto& d : dirs) files.push_back(d + "/libcublas.so." + ver);
    files.push_back(std::string("libcublas.so.") + ver);
  }
  std::string errors;
  for (const auto& f : files) {
    // its companion libcublasLt first, so a folder without RUNPATH still resolves
    auto slash = f.rfind('/');
    if (slash != std::string::npos) {
      std::string lt = f.substr(0, slash + 1) + "libcublasLt" + f.substr(f.find(".so", slash));
      dlopen(lt.c_str(), RTLD_NOW | RTLD_GLOBAL);
    }
    void* lib = dlopen(f.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      if (errors.size() < 2000) errors += "\n  " + f + ": " + (e ? e : "not found");
      continue;
    }
    bool ok = sym(lib, "cublasCreate_v2", c.create) && sym(lib, "cublasSetStream_v2", c.set_stream) &&
              sym(lib, "cublasSetMathMode", c.set_math) && sym(lib, "cublasSgemm_v2", c.sgemm) &&
              sym(lib, "cublasDgemm_v2", c.dgemm) && sym(lib, "cublasSgemmStridedBatched", c.sgemm_b) &&
              sym(lib, "cublasDgemmStridedBatched", c.dgemm_b);
    if (!ok) {
      errors += "\n  " + f + ": missing cuBLAS entry points";
      dlclose(lib);
      continue;
    }
    Status s = c.create(&c.handle);
    if (s != 0) {
      errors += "\n  " + f + ": cublasCreate failed with status " + std::to_string(s);
      c.handle = nullptr;
      continue;
    }
    c.set_stream(c.handle, kStream);
    c.lib = lib;
    c.status = "loaded " + f;
    return;
  }
  c.status = "cuBLAS (libcublas.so.13) was not found; install the nvidia-cublas wheel or set TYPEDTENSOR_CUBLAS "
             "to the library's path. Tried:" + errors;
}

Cublas& cublas() {
  static Cublas* c = [] {
    auto* p = new Cublas();  // leaked: the handle must outlive every tensor
    if (device_count() > 0) try_load(*p);
    else p->status = "no CUDA device";
    return p;
  }();
  return *c;
}

Cublas& require(const char* op) {
  std::lock_guard<std::mutex> lk(g_mu);
  Cublas& c = cublas();
  if (!c.handle) throw std::runtime_error(std::string("[") + op + "] " + c.status);
  return c;
}

void check_status(Status s, const char* op) {
  if (s != 0) throw std::runtime_error(std::string("[") + op + "] cuBLAS call failed with status " + std::to_string(s));
}

int to_int(int64_t v, const char* op) {
  if (v > INT_MAX) throw NotImplementedError(std::string("[") + op + "] a matrix dimension exceeds 2^31 - 1");
  return static_cast<int>(v);
}

// How a [rows, cols] strided matrix is handed to column-major cuBLAS as its transpose's operand.
struct Layout {
  bool ok = false, trans = false;
  int64_t ld = 0;
};
Layout layout_of(int64_t rows, int64_t cols, int64_t sr, int64_t sc) {
  Layout l;
  if (sc == 1 || cols == 1) {  // row-major: the buffer is X^T in column-major, ld = row stride
    int64_t ld = rows == 1 ? (cols > 1 ? cols : 1) : sr;
    if (ld >= (cols > 1 ? cols : 1)) return {true, false, ld};
  }
  if (sr == 1 || rows == 1) {  // column-major: the buffer is X, transpose it
    int64_t ld = cols == 1 ? (rows > 1 ? rows : 1) : sc;
    if (ld >= (rows > 1 ? rows : 1)) return {true, true, ld};
  }
  return l;
}

}  // namespace

bool cublas_available() {
  std::lock_guard<std::mutex> lk(g_mu);
  return cublas().handle != nullptr;
}
std::string cublas_status() {
  std::lock_guard<std::mutex> lk(g_mu);
  return cublas().status;
}
void set_cublas_search_path(const std::string& dirs) {
  std::lock_guard<std::mutex> lk(g_mu);
  g_search = dirs;
}
std::string library_search_path() {
  std::lock_guard<std::mutex> lk(g_mu);
  return g_search;
}
// torch.backends.cuda.matmul.allow_tf32 is the float32 matmul precision's "high" or "medium"
bool allow_tf32() { return tt::float32_matmul_precision() != tt::MatmulPrecision::Highest; }

// Row-major C[i] (m x n, ldc) = op(A[i]) (m x k) @ op(B[i]) (k x n), i < batch; ta/tb: the buffers
// hold A^T / B^T (column-major-stored operands). Runs as column-major C^T = op(B)^T op(A)^T.
void gemm_raw(DType dt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, int64_t sa,
              const void* b, int64_t ldb, int64_t sb, void* c, int64_t ldc, int64_t sc, int64_t batch) {
  Cublas& cb = require("matmul");
  check_status(cb.set_math(cb.handle, allow_tf32() ? kTf32Math : kDefaultMath), "matmul");
  int M = to_int(n, "matmul"), N = to_int(m, "matmul"), K = to_int(k, "matmul");
  int opa = tb ? kOpT : kOpN, opb = ta ? kOpT : kOpN;
  int la = to_int(ldb, "matmul"), lb = to_int(lda, "matmul"), lc = to_int(ldc, "matmul");
  int nb = to_int(batch, "matmul");
  if (dt == DType::Float32) {
    const float one = 1.f, zero = 0.f;
    if (batch == 1)
      check_status(cb.sgemm(cb.handle, opa, opb, M, N, K, &one, static_cast<const float*>(b), la,
                            static_cast<const float*>(a), lb, &zero, static_cast<float*>(c), lc), "matmul");
    else
      check_status(cb.sgemm_b(cb.handle, opa, opb, M, N, K, &one, static_cast<const float*>(b), la, sb,
                              static_cast<const float*>(a), lb, sa, &zero, static_cast<float*>(c), lc, sc, nb),
                   "matmul");
  } else if (dt == DType::Float64) {
    const double one = 1.0, zero = 0.0;
    if (batch == 1)
      check_status(cb.dgemm(cb.handle, opa, opb, M, N, K, &one, static_cast<const double*>(b), la,
                            static_cast<const double*>(a), lb, &zero, static_cast<double*>(c), lc), "matmul");
    else
      check_status(cb.dgemm_b(cb.handle, opa, opb, M, N, K, &one, static_cast<const double*>(b), la, sb,
                              static_cast<const double*>(a), lb, sa, &zero, static_cast<double*>(c), lc, sc, nb),
                   "matmul");
  } else {
    throw TypeError(std::string("[matmul] no CUDA kernel for dtype ") + dtype_name(dt));
  }
}

void gemm_batched(const Tensor& c, const Tensor& a0, const Tensor& b0) {
  // c: contiguous [B, m, n]; a: [B, m, k] and b: [B, k, n] strided views (batch stride may be 0)
  if (c.dtype() != DType::Float32 && c.dtype() != DType::Float64)
    throw TypeError(std::string("[matmul] no CUDA kernel for dtype ") + dtype_name(c.dtype()));
  int64_t B = c.size(0), m = c.size(1), n = c.size(2), k = a0.size(2);
  if (c.numel() == 0) return;
  if (k == 0) {
    fill(c, Scalar::from_int(0));
    return;
  }
  Tensor a = a0, b = b0;
  Layout la = layout_of(m, k, a.stride(1), a.stride(2));
  Layout lb = layout_of(k, n, b.stride(1), b.stride(2));
  if (!la.ok) {
    a = contiguous(a);
    la = layout_of(m, k, a.stride(1), a.stride(2));
  }
  if (!lb.ok) {
    b = contiguous(b);
    lb = layout_of(k, n, b.stride(1), b.stride(2));
  }
  int64_t sa = B > 1 ? a.stride(0) : 0, sb = B > 1 ? b.stride(0) : 0;
  gemm_raw(c.dtype(), la.trans, lb.trans, m, n, k, a.raw(), la.ld, sa, b.raw(), lb.ld, sb, c.raw(), n, m * n, B);
}

}  // namespace tt::cuda
