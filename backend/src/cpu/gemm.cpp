// Matrix products: float32/float64 through the BLAS chosen at run time (NOTE [ BLAS by CPU ] in
// blas_select.cpp: OpenBLAS, or MKL on Intel CPUs where it is installed); bfloat16 through MKL's
// bfloat16 GEMM where MKL is the one chosen; integer types through a plain loop (BLAS has none).
#include "blas_select.h"

#include <type_traits>

#include "half_run.h"
#include "kernels.h"
#include "parallel.h"

namespace tt::cpu {
namespace {

struct MatLayout {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};

bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, MatLayout* l) {
  bool trans = false;
  if (!blas_readable(rows, cols, rs, cs, &trans, &l->ld)) return false;
  l->trans = trans ? CblasTrans : CblasNoTrans;
  return true;
}

template <class T>
void blas_call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
               T beta, T* c, int64_t ldc) {
  auto A = ta ? CblasTrans : CblasNoTrans, B = tb ? CblasTrans : CblasNoTrans;
  const GemmFns& f = gemm_fns();
  if constexpr (std::is_same_v<T, float>)
    f.sgemm(CblasRowMajor, A, B, (blasint)m, (blasint)n, (blasint)k, 1.0f, a, (blasint)lda, b, (blasint)ldb,
                      beta, c, (blasint)ldc);
  else
    f.dgemm(CblasRowMajor, A, B, (blasint)m, (blasint)n, (blasint)k, 1.0, a, (blasint)lda, b, (blasint)ldb,
                      beta, c, (blasint)ldc);
}

}  // namespace

bool blas_readable(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* trans, int64_t* ld) {
  if (cols <= 1 && rows <= 1) { *trans = false; *ld = std::max<int64_t>(cols, 1); return true; }
  if ((cs == 1 || cols == 1) && rs >= std::max<int64_t>(cols, 1)) { *trans = false; *ld = rs; return true; }
  if ((rs == 1 || rows == 1) && cs >= std::max<int64_t>(rows, 1)) { *trans = true; *ld = cs; return true; }
  return false;
}

namespace {

// Splits C = op(A) op(B) [m, n] (inner size k) over OpenMP's pool: call(r0, rows, c0, cols) computes
// one block of C, serially (NOTE [ One thread pool ] in kernels.h). Row blocks of C (and of op(A))
// or column blocks (and of op(B)), multiples of 16; one call inside a parallel region or when the
// product is too small to share. A large product lets other Python threads run (NOTE [ The GIL ]).
template <class Call>
void split_gemm(int64_t m, int64_t n, int64_t k, const Call& call) {
  int nt = num_threads();
  constexpr int64_t kMinFlopsPerThread = int64_t(1) << 20;
  int64_t work = m * n * k;
  std::optional<GilRelease> no_gil;
  if (work >= kMinFlopsPerThread) no_gil.emplace();
  int parts = static_cast<int>(std::min<int64_t>(nt, work / kMinFlopsPerThread));
#ifdef _OPENMP
  bool nested = omp_in_parallel();
#else
  bool nested = true;
#endif
  if (parts < 2 || nested) return call(int64_t(0), m, int64_t(0), n);
  if (m >= n || m >= 64 * parts) {
    int64_t per = ((m + parts - 1) / parts + 15) / 16 * 16;
    parallel_for(0, (m + per - 1) / per, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t blk = lo; blk < hi; ++blk) call(blk * per, std::min(per, m - blk * per), int64_t(0), n);
    });
  } else {
    int64_t per = ((n + parts - 1) / parts + 15) / 16 * 16;
    parallel_for(0, (n + per - 1) / per, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t blk = lo; blk < hi; ++blk) call(int64_t(0), m, blk * per, std::min(per, n - blk * per));
    });
  }
}

}  // namespace

template <class T>
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
               T beta, T* c, int64_t ldc) {
  split_gemm(m, n, k, [&](int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
    blas_call<T>(ta, tb, rows, cols, k, ta ? a + r0 : a + r0 * lda, lda, tb ? b + c0 * ldb : b + c0, ldb, beta,
                 c + r0 * ldc + c0, ldc);
  });
}
template void blas_gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                               float, float*, int64_t);
template void blas_gemm<double>(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t, const double*, int64_t,
                                double, double*, int64_t);

namespace {

// a [batch, m, k] and b [batch, k, n] as BLAS reads them: each as it is where its strides allow
// (blas_readable), else a contiguous copy
struct BlasOperands {
  Tensor a, b;
  MatLayout la, lb;
  bool ta() const { return la.trans == CblasTrans; }
  bool tb() const { return lb.trans == CblasTrans; }
};

BlasOperands blas_operands(const Tensor& a, const Tensor& b) {
  int64_t m = a.size(1), k = a.size(2), n = b.size(2);
  BlasOperands o{a, b, {}, {}};
  if (!blas_layout(m, k, a.stride(1), a.stride(2), &o.la)) {
    o.a = empty(a.shape(), a.dtype());
    copy(o.a, a);
    blas_layout(m, k, o.a.stride(1), o.a.stride(2), &o.la);
  }
  if (!blas_layout(k, n, b.stride(1), b.stride(2), &o.lb)) {
    o.b = empty(b.shape(), b.dtype());
    copy(o.b, b);
    blas_layout(k, n, o.b.stride(1), o.b.stride(2), &o.lb);
  }
  return o;
}

// A batch of at least one matrix per thread, with work enough to share: each thread takes whole
// matrices (the attention heads' case) rather than every product being split.
bool one_matrix_per_thread(int64_t batch, int64_t m, int64_t n, int64_t k) {
  return batch >= num_threads() && batch > 1 && m * n * k * batch >= (int64_t(1) << 20);
}

// product(i) for each of a batch of [m, n] products (inner size k): whole matrices per thread where
// one_matrix_per_thread, each product then serial (split_gemm makes one call inside a parallel
// region); otherwise one after another, each split over the threads by split_gemm.
template <class Product>
void each_matrix(int64_t batch, int64_t m, int64_t n, int64_t k, const Product& product) {
  if (one_matrix_per_thread(batch, m, n, k)) {
    parallel_for(0, batch, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) product(i);
    });
    return;
  }
  for (int64_t i = 0; i < batch; ++i) product(i);
}

void gemm_float32_on_bf16(const Tensor& c, const BlasOperands& o, float beta);

// c = a @ b + beta * c over [batch, m, n] (beta 0 or 1: 1 accumulates into what c holds)
template <class T>
void gemm_blas(const Tensor& c, const Tensor& a, const Tensor& b, T beta) {
  int64_t batch = c.size(0), m = c.size(1), n = c.size(2), k = a.size(2);
  const BlasOperands o = blas_operands(a, b);
  if constexpr (std::is_same_v<T, float>)
    if (float32_gemm_in_bf16()) return gemm_float32_on_bf16(c, o, beta);
  const T* pa = o.a.data<T>();
  const T* pb = o.b.data<T>();
  T* pc = c.data<T>();
  int64_t sa = o.a.stride(0), sb = o.b.stride(0), sc = m * n;
  each_matrix(batch, m, n, k, [&](int64_t i) {
    blas_gemm<T>(o.ta(), o.tb(), m, n, k, pa + i * sa, o.la.ld, pb + i * sb, o.lb.ld, beta, pc + i * sc, n);
  });
}

// NOTE [ bfloat16 GEMM ]
// A bfloat16 product runs on MKL's cblas_gemm_bf16bf16f32 where MKL is the chosen BLAS (Intel CPUs,
// NOTE [ BLAS by CPU ] in blas_select.cpp): bfloat16 operands, float32 accumulation -- AMX tiles on
// Sapphire Rapids and later, where it is several times float32's throughput. Each block's float32
// result is rounded to bfloat16 (nearest even) while it is still in cache. The sum is the float32
// one that torch's oneDNN path rounds too, so results match torch to bfloat16's rounding; what
// differs is only the order of the float32 additions. A linear layer's bias goes into the float32
// block before the product (gemm_accumulate), so bias + product is rounded once, as torch's addmm.
// Without that GEMM (OpenBLAS: AMD, or TYPEDTENSOR_BLAS=openblas) matmul widens bfloat16 to float32
// first (ops_linalg.cpp).

// c = a @ b, or c += a @ b (accumulate: c's bfloat16 values widened into the float32 block first,
// so the sum is rounded once, as torch's addmm rounds its bias + product)
void gemm_bf16(const Tensor& c, const Tensor& a, const Tensor& b, bool accumulate) {
  int64_t batch = c.size(0), m = c.size(1), n = c.size(2), k = a.size(2);
  Bf16GemmFn gemm = gemm_fns().bf16gemm;
  const BlasOperands o = blas_operands(a, b);
  const MatLayout &la = o.la, &lb = o.lb;
  const uint16_t* pa = &o.a.data<BFloat16>()->bits;
  const uint16_t* pb = &o.b.data<BFloat16>()->bits;
  BFloat16* pc = c.data<BFloat16>();
  Tensor acc = empty(Shape{batch, m, n}, DType::Float32);  // from the allocator's cache after the first call
  float* pf = acc.data<float>();
  int64_t sa = o.a.stride(0), sb = o.b.stride(0), sc = m * n;
  bool ta = o.ta(), tb = o.tb();
  auto block = [&](int64_t i, int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
    const uint16_t* ai = pa + i * sa + (ta ? r0 : r0 * la.ld);
    const uint16_t* bi = pb + i * sb + (tb ? c0 * lb.ld : c0);
    float* fi = pf + i * sc + r0 * n + c0;
    BFloat16* ci = pc + i * sc + r0 * n + c0;
    if (accumulate)
      for (int64_t r = 0; r < rows; ++r) widen_run(ci + r * n, fi + r * n, cols);
    gemm(CblasRowMajor, la.trans, lb.trans, (blasint)rows, (blasint)cols, (blasint)k, 1.0f, ai, (blasint)la.ld, bi,
         (blasint)lb.ld, accumulate ? 1.0f : 0.0f, fi, (blasint)n);
    for (int64_t r = 0; r < rows; ++r) narrow_run(fi + r * n, ci + r * n, cols);
  };
  each_matrix(batch, m, n, k, [&](int64_t i) {
    split_gemm(m, n, k, [&](int64_t r0, int64_t rows, int64_t c0, int64_t cols) { block(i, r0, rows, c0, cols); });
  });
}

// NOTE [ float32 matmul precision ]
// torch.set_float32_matmul_precision("medium") makes torch 2.13's CPU matmuls (mm, bmm, matmul,
// addmm, linear, and its flash attention) round their float32 operands to bfloat16 and multiply
// them on oneDNN's bfloat16 GEMM, with float32 accumulation and a float32 result; convolutions keep
// float32. Here the same holds where MKL is the BLAS: each operand is rounded once into a compact
// bfloat16 copy laid out as BLAS reads it (round_to_bf16), and cblas_gemm_bf16bf16f32 writes the
// float32 product -- AMX on CPUs that have it, several times float32's throughput. The graph's GEMM
// epilogues do the same (graph/epilogue.cpp), so a compiled step agrees with eager. The fused
// attention kernel keeps float32, more exact than torch's under "medium"; so do convolutions and the
// recurrent layers. "high" changes nothing on a CPU (TF32 is a GPU format), as in torch, and neither
// setting does with OpenBLAS, which has no bfloat16 GEMM. The default, "highest", is float32 throughout.
void gemm_float32_on_bf16(const Tensor& c, const BlasOperands& o, float beta) {
  const int64_t batch = c.size(0), m = c.size(1), n = c.size(2), k = o.a.size(2);
  const Bf16Matrices a = round_to_bf16(o.a.data<float>(), o.ta(), o.la.ld, m, k, batch, o.a.stride(0));
  const Bf16Matrices b = round_to_bf16(o.b.data<float>(), o.tb(), o.lb.ld, k, n, batch, o.b.stride(0));
  float* pc = c.data<float>();
  each_matrix(batch, m, n, k, [&](int64_t i) {
    blas_gemm_bf16(o.ta(), o.tb(), m, n, k, a.data() + i * a.batch_stride, a.ld, b.data() + i * b.batch_stride, b.ld,
                   beta, pc + i * m * n, n);
  });
}

template <class T>
void gemm_loop(const Tensor& c, const Tensor& a, const Tensor& b) {
  int64_t batch = c.size(0), m = c.size(1), n = c.size(2), k = a.size(2);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pc = c.data<T>();
  int64_t a0 = a.stride(0), a1 = a.stride(1), a2 = a.stride(2);
  int64_t b0 = b.stride(0), b1 = b.stride(1), b2 = b.stride(2);
  parallel_for(0, batch * m, std::max<int64_t>(1, kGrain / std::max<int64_t>(n * k, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t bi = r / m, i = r % m;
      T* crow = pc + bi * m * n + i * n;
      for (int64_t j = 0; j < n; ++j) crow[j] = T(0);
      for (int64_t p = 0; p < k; ++p) {
        T av = pa[bi * a0 + i * a1 + p * a2];
        const T* brow = pb + bi * b0 + p * b1;
        if constexpr (std::is_same_v<T, bool>) {
          if (av) for (int64_t j = 0; j < n; ++j) crow[j] = crow[j] || brow[j * b2];
        } else {
          for (int64_t j = 0; j < n; ++j) crow[j] = static_cast<T>(crow[j] + av * brow[j * b2]);
        }
      }
    }
  });
}

}  // namespace

void blas_gemm_bf16(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const BFloat16* a, int64_t lda,
                    const BFloat16* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  Bf16GemmFn gemm = gemm_fns().bf16gemm;
  if (!gemm) throw TypeError("[matmul] the BLAS in use has no bfloat16 GEMM (see blas_has_bf16_gemm())");
  split_gemm(m, n, k, [&](int64_t r0, int64_t rows, int64_t c0, int64_t cols) {
    const BFloat16* ab = ta ? a + r0 : a + r0 * lda;
    const BFloat16* bb = tb ? b + c0 * ldb : b + c0;
    gemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)rows, (blasint)cols,
         (blasint)k, 1.0f, &ab->bits, (blasint)lda, &bb->bits, (blasint)ldb, beta, c + r0 * ldc + c0, (blasint)ldc);
  });
}

Bf16Matrices round_to_bf16(const float* p, bool trans, int64_t ld, int64_t rows, int64_t cols, int64_t batch,
                           int64_t batch_stride) {
  const int64_t lines = trans ? cols : rows, len = trans ? rows : cols;  // as stored
  const int64_t copies = batch_stride == 0 ? 1 : batch;
  // copies * lines * len is at most the operand's own element count
  Bf16Matrices r{empty(Shape{copies * lines * len}, DType::BFloat16), std::max<int64_t>(len, 1),
                 copies == 1 ? 0 : lines * len};
  BFloat16* out = r.keep.data<BFloat16>();
  parallel_for(0, copies * lines, std::max<int64_t>(1, kGrain / std::max<int64_t>(len, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) narrow_run(p + (i / lines) * batch_stride + (i % lines) * ld, out + i * len, len);
  });
  return r;
}

void gemm_batched(const Tensor& c, const Tensor& a, const Tensor& b) {
  if (on_cuda(c)) return cuda_kernels().gemm_batched(c, a, b);  // NOTE [ Device dispatch ]
  if (c.numel() == 0) return;
  if (a.size(2) == 0) {
    fill(c, Scalar::from_int(0));
    return;
  }
  switch (c.dtype()) {
    case DType::Float32: return gemm_blas<float>(c, a, b, 0.0f);
    case DType::Float64: return gemm_blas<double>(c, a, b, 0.0);
    case DType::BFloat16: {
      if (gemm_fns().bf16gemm) return gemm_bf16(c, a, b, false);
      // a graph traced while MKL was the BLAS, run after set_blas("openblas"): widen here
      return run_widened(c, {a, b}, [](const Tensor& o, const std::vector<Tensor>& in) {
        gemm_blas<float>(o, in[0], in[1], 0.0f);
      });
    }
    case DType::Int64: return gemm_loop<int64_t>(c, a, b);
    case DType::Int32: return gemm_loop<int32_t>(c, a, b);
    case DType::UInt8: return gemm_loop<uint8_t>(c, a, b);
    case DType::Bool: return gemm_loop<bool>(c, a, b);
    default: break;
  }
  throw TypeError(std::string("[matmul] no CPU kernel for dtype ") + dtype_name(c.dtype()));
}



void gemm_accumulate(const Tensor& c, const Tensor& a, const Tensor& b) {
  if (c.numel() == 0 || a.size(2) == 0) return;  // an empty sum adds nothing (torch's addmm with k = 0)
  switch (c.dtype()) {
    case DType::Float32: return gemm_blas<float>(c, a, b, 1.0f);
    case DType::Float64: return gemm_blas<double>(c, a, b, 1.0);
    case DType::BFloat16:
      if (gemm_fns().bf16gemm) return gemm_bf16(c, a, b, true);
      [[fallthrough]];
    default: throw TypeError(std::string("[matmul] no accumulating CPU kernel for dtype ") + dtype_name(c.dtype()));
  }
}

}  // namespace tt::cpu
