// NOTE [ Fused attention ]
// softmax(q k^T * scale + mask) v without the [L, S] score matrix: flash attention's tiling on the
// CPU. Forward: one task per (batch element, block of kBlockQ query rows); the task walks the keys
// in blocks of kBlockK, computing a [kBlockQ, kBlockK] score tile with one GEMM, masking it, and
// folding it into the rows' running max, exp-sum and output accumulator (online softmax: the
// accumulator is rescaled when the max grows), then one GEMM adds tile @ v. Every buffer a task
// touches (tile, q rows, k and v blocks, accumulator) stays within L2; the GEMMs are the chosen
// BLAS's (NOTE [ BLAS by CPU ] in blas_select.cpp), single-threaded inside the task. With
// is_causal, key blocks past a query block's last row are never computed (half the work).
// It saves out and the rows' log-sum-exp (lse); backward recomputes each tile's probabilities
// p = exp(s - lse) instead of keeping them, and per tile adds dv += p^T do, dp = do v^T,
// ds = p (dp - rowsum(do * out)), dq += ds k * scale, dk += ds^T q * scale -- one task per batch
// element (dk and dv are accumulated over all query blocks by that task alone).
// A row that may attend nothing (every key masked) gives 0 and a zero gradient, as torch's.
// out, dq, dk and dv may have strided rows and batch elements: for [B, H, L, E] inputs whose heads
// were split out of one projection (the sequence stride larger than the head stride), the primitives
// in ops_attention.cpp lay them out as [B, L, H, E] (torch's flash kernel does so for out), so the
// usual out.transpose(1, 2).reshape(B, L, H * E) and the gradients' way back through the heads'
// transpose and reshape are views instead of copies.
#include "attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "blas_select.h"
#include "parallel.h"
#include "unary_span.h"
#include "unary_wide.h"

namespace tt::cpu {
namespace {

constexpr int64_t kBlockQ = 64, kBlockK = 256;

template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  const GemmFns& f = gemm_fns();
  auto A = ta ? CblasTrans : CblasNoTrans, B = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    f.sgemm(CblasRowMajor, A, B, (blasint)m, (blasint)n, (blasint)k, alpha, a, (blasint)lda, b, (blasint)ldb, beta,
            c, (blasint)ldc);
  else
    f.dgemm(CblasRowMajor, A, B, (blasint)m, (blasint)n, (blasint)k, alpha, a, (blasint)lda, b, (blasint)ldb, beta,
            c, (blasint)ldc);
}

// x = exp(x - shift). Arguments are clamped at kFloor (exp(kFloor) is still a normal number) and
// results at or below exp(kFloor) become 0: a masked score (-inf), or any score far below its row's
// max, would otherwise make the exp kernel produce a subnormal, which costs a microcode assist per
// element (an exp of -inf ran 12x slower than of 0) and again in every GEMM that reads it.
template <class T>
struct ExpLimits;
template <>
struct ExpLimits<float> {
  static constexpr float kFloor = -87.0f, kFlush = 1.7e-38f;  // exp(-87) = 1.65e-38
};
template <>
struct ExpLimits<double> {
  static constexpr double kFloor = -700.0, kFlush = 1e-304;  // exp(-700) = 9.86e-305
};

template <class T>
void shifted_exp(T* x, int64_t n, T shift) {
  constexpr T lo = ExpLimits<T>::kFloor;
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const T d = x[j] - shift;
    x[j] = d < lo ? lo : d;
  }
  if (wide_unary_enabled()) unary_span_wide(UnaryOp::Exp, x, x, n);
  else unary_span<T>(UnaryOp::Exp, x, x, n);
  constexpr T flush = ExpLimits<T>::kFlush;
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) x[j] = x[j] <= flush ? T(0) : x[j];
}

// The element offset of each batch element (dims [0, nb) of t, row-major order over them).
std::vector<int64_t> batch_offsets(const Tensor& t, int64_t nb) {
  int64_t count = 1;
  for (int64_t d = 0; d < nb; ++d) count *= t.size(d);
  std::vector<int64_t> off(static_cast<size_t>(count), 0), idx(static_cast<size_t>(nb), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t o = 0;
    for (int64_t d = 0; d < nb; ++d) o += idx[d] * t.stride(d);
    off[i] = o;
    for (int64_t d = nb - 1; d >= 0; --d) {
      if (++idx[d] < t.size(d)) break;
      idx[d] = 0;
    }
  }
  return off;
}

// Where each operand's rows are: per batch element offsets and the row stride.
struct Operand {
  std::vector<int64_t> off;
  int64_t rs = 0;
};
// The mask's rows: a row stride of 0 repeats its one row (a mask broadcast along the queries).
Operand mask_operand(const Tensor& t, int64_t nb) { return {batch_offsets(t, nb), t.size(-2) > 1 ? t.stride(-2) : 0}; }
// The rows of a GEMM operand or output (q, k, v, out, dout, dq, dk, dv; any batch and row strides, a
// unit last stride): the row stride is the GEMM's leading dimension, which BLAS rejects below the
// row width even where one row is read (a call with lda = 0 is refused, its output left unwritten),
// so a single row gets its width. Rows of more than one share no stride below the width
// (gemm_rows in ops_attention.cpp copies such an operand out).
Operand rows_operand(const Tensor& t, int64_t nb) {
  return {batch_offsets(t, nb), t.size(-2) > 1 ? t.stride(-2) : std::max<int64_t>(t.size(-1), 1)};
}

template <class T>
struct Geometry {
  int64_t batch, L, S, E, Ev;
  Operand q, k, v, m;
  AttentionMask kind;
  bool causal;
  T scale;
  const T* Q;
  const T* K;
  const T* V;
  const void* M;

  Geometry(const Tensor& tq, const Tensor& tk, const Tensor& tv, const Tensor* mask, AttentionMask kd, bool c,
           double sc)
      : kind(mask ? kd : AttentionMask::None), causal(c), scale(static_cast<T>(sc)) {
    int64_t nb = tq.dim() - 2;
    batch = 1;
    for (int64_t d = 0; d < nb; ++d) batch *= tq.size(d);
    L = tq.size(-2), S = tk.size(-2), E = tq.size(-1), Ev = tv.size(-1);
    q = rows_operand(tq, nb), k = rows_operand(tk, nb), v = rows_operand(tv, nb);
    Q = tq.data<T>(), K = tk.data<T>(), V = tv.data<T>(), M = nullptr;
    if (kind != AttentionMask::None) {
      m = mask_operand(*mask, nb);
      M = mask->raw();
    }
  }

  // True when a bool mask lets no row of the block see any key of it (padding): the block is skipped.
  bool block_masked(int64_t bi, int64_t q0, int64_t nq, int64_t k0, int64_t nk) const {
    if (kind != AttentionMask::Bool) return false;
    const auto* base = static_cast<const uint8_t*>(M) + m.off[bi] + q0 * m.rs + k0;
    for (int64_t i = 0; i < (m.rs == 0 ? 1 : nq); ++i) {
      const uint8_t* mr = base + i * m.rs;
      uint8_t any = 0;
#pragma omp simd reduction(| : any)
      for (int64_t j = 0; j < nk; ++j) any |= mr[j];
      if (any) return false;
    }
    return true;
  }

  // Keys a query block [q0, q0 + nq) may see: all, or with is_causal those j <= the last row.
  int64_t key_end(int64_t q0, int64_t nq) const { return causal ? std::min(S, q0 + nq) : S; }

  // s = scale * q[q0 : q0 + nq] k[k0 : k0 + nk]^T, then the mask: [nq, nk] with row stride kBlockK
  void scores(T* s, int64_t bi, int64_t q0, int64_t nq, int64_t k0, int64_t nk) const {
    gemm<T>(false, true, nq, nk, E, scale, Q + q.off[bi] + q0 * q.rs, q.rs, K + k.off[bi] + k0 * k.rs, k.rs, T(0), s,
            kBlockK);
    constexpr T kNegInf = -std::numeric_limits<T>::infinity();
    if (causal && k0 + nk - 1 > q0)  // some keys of this block lie after some rows
      for (int64_t i = 0; i < nq; ++i)
        for (int64_t j = std::max<int64_t>(0, q0 + i + 1 - k0); j < nk; ++j) s[i * kBlockK + j] = kNegInf;
    if (kind == AttentionMask::Bool) {
      const auto* base = static_cast<const uint8_t*>(M) + m.off[bi] + q0 * m.rs + k0;
      for (int64_t i = 0; i < nq; ++i) {
        const uint8_t* mr = base + i * m.rs;
        T* row = s + i * kBlockK;
#pragma omp simd
        for (int64_t j = 0; j < nk; ++j) row[j] = mr[j] != 0 ? row[j] : kNegInf;
      }
    } else if (kind == AttentionMask::Additive) {
      const T* base = static_cast<const T*>(M) + m.off[bi] + q0 * m.rs + k0;
      for (int64_t i = 0; i < nq; ++i) {
        const T* mr = base + i * m.rs;
        T* row = s + i * kBlockK;
        for (int64_t j = 0; j < nk; ++j) row[j] += mr[j];
      }
    }
  }
};

// rows [0, n) of width w, row stride rs, set to 0
template <class T>
void zero_rows(T* p, int64_t n, int64_t w, int64_t rs) {
  if (rs == w) return std::fill(p, p + n * w, T(0));
  for (int64_t i = 0; i < n; ++i) std::fill(p + i * rs, p + i * rs + w, T(0));
}

template <class T>
T row_max(const T* x, int64_t n) {
  T m = -std::numeric_limits<T>::infinity();
#pragma omp simd reduction(max : m)
  for (int64_t j = 0; j < n; ++j) m = x[j] > m ? x[j] : m;
  return m;
}

template <class T>
T row_sum(const T* x, int64_t n) {
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < n; ++j) s += x[j];
  return s;
}

template <class T>
T row_dot(const T* x, const T* y, int64_t n) {
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < n; ++j) s += x[j] * y[j];
  return s;
}

// shifted_exp, and the sum of the results: one pass of AVX-512 lanes for float where the CPU has
// them (the clamp, exp, flush and sum in registers), else shifted_exp and row_sum.
template <class T>
T shifted_exp_sum(T* x, int64_t n, T shift) {
  if constexpr (std::is_same_v<T, float>)
    if (wide_unary_enabled()) return shifted_exp_sum_wide(x, n, shift, ExpLimits<T>::kFloor, ExpLimits<T>::kFlush);
  shifted_exp(x, n, shift);
  return row_sum(x, n);
}

template <class T>
void forward_typed(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                   const Tensor* mask, AttentionMask kind, bool causal, double scale) {
  const Geometry<T> g(q, k, v, mask, kind, causal, scale);
  const Operand o = rows_operand(out, q.dim() - 2);  // rows of out may be strided (NOTE above)
  T* O = out.data<T>();
  T* LSE = lse.data<T>();
  const int64_t qblocks = (g.L + kBlockQ - 1) / kBlockQ;
  parallel_for(0, g.batch * qblocks, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> s(kBlockQ * kBlockK), acc(kBlockQ * g.Ev), mx(kBlockQ), sum(kBlockQ);
    for (int64_t task = lo; task < hi; ++task) {
      const int64_t bi = task / qblocks, q0 = (task % qblocks) * kBlockQ, nq = std::min(kBlockQ, g.L - q0);
      std::fill(mx.begin(), mx.end(), -std::numeric_limits<T>::infinity());
      std::fill(sum.begin(), sum.end(), T(0));
      std::fill(acc.begin(), acc.begin() + nq * g.Ev, T(0));
      const int64_t s_end = g.key_end(q0, nq);
      for (int64_t k0 = 0; k0 < s_end; k0 += kBlockK) {
        const int64_t nk = std::min(kBlockK, s_end - k0);
        if (g.block_masked(bi, q0, nq, k0, nk)) continue;
        g.scores(s.data(), bi, q0, nq, k0, nk);
        for (int64_t i = 0; i < nq; ++i) {
          T* row = s.data() + i * kBlockK;
          const T m_new = std::max(mx[i], row_max(row, nk));
          if (m_new == -std::numeric_limits<T>::infinity()) {  // nothing to attend to yet
            std::fill(row, row + nk, T(0));
            continue;
          }
          const T part = shifted_exp_sum(row, nk, m_new);
          if (m_new != mx[i]) {  // the max grew: rescale what was summed so far
            const T alpha = std::exp(mx[i] - m_new);
            sum[i] *= alpha;
            T* a = acc.data() + i * g.Ev;
            for (int64_t e = 0; e < g.Ev; ++e) a[e] *= alpha;
            mx[i] = m_new;
          }
          sum[i] += part;
        }
        gemm<T>(false, false, nq, g.Ev, nk, T(1), s.data(), kBlockK, g.V + g.v.off[bi] + k0 * g.v.rs, g.v.rs, T(1),
                acc.data(), g.Ev);
      }
      T* orow = O + o.off[bi] + q0 * o.rs;
      T* lrow = LSE + bi * g.L + q0;
      for (int64_t i = 0; i < nq; ++i) {
        const bool any = sum[i] > T(0);
        const T inv = any ? T(1) / sum[i] : T(0);
        const T* a = acc.data() + i * g.Ev;
        for (int64_t e = 0; e < g.Ev; ++e) orow[i * o.rs + e] = a[e] * inv;
        lrow[i] = any ? mx[i] + std::log(sum[i]) : -std::numeric_limits<T>::infinity();
      }
    }
  });
}

template <class T>
void backward_typed(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& q, const Tensor& k,
                    const Tensor& v, const Tensor* mask, AttentionMask kind, bool causal, double scale,
                    const Tensor& out, const Tensor& lse, const Tensor& dout) {
  const Geometry<T> g(q, k, v, mask, kind, causal, scale);
  const int64_t nb = q.dim() - 2;
  const Operand d = rows_operand(dout, nb), o = rows_operand(out, nb), gq = rows_operand(dq, nb),
                gk = rows_operand(dk, nb), gv = rows_operand(dv, nb);
  const T* DO = dout.data<T>();
  const T* O = out.data<T>();
  const T* LSE = lse.data<T>();
  T* DQ = dq.data<T>();
  T* DK = dk.data<T>();
  T* DV = dv.data<T>();
  const int64_t kblocks = (g.S + kBlockK - 1) / kBlockK;
  parallel_for(0, g.batch, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> p(kBlockQ * kBlockK), dp(kBlockQ * kBlockK), delta(kBlockQ);
    // Gradients are not zero-filled first: the first GEMM into a row block writes it (beta = 0),
    // later ones add. kdone[j]: how many rows of key block j's dk and dv are written so far (a
    // causal block is first reached by fewer query rows, so fewer keys); rows nothing reached
    // (skipped, masked blocks) are zeroed at the end.
    std::vector<int64_t> kdone(static_cast<size_t>(kblocks));
    for (int64_t bi = lo; bi < hi; ++bi) {
      T* dqb = DQ + gq.off[bi];
      T* dkb = DK + gk.off[bi];
      T* dvb = DV + gv.off[bi];
      std::fill(kdone.begin(), kdone.end(), 0);
      const T* qb = g.Q + g.q.off[bi];
      const T* kb = g.K + g.k.off[bi];
      const T* vb = g.V + g.v.off[bi];
      for (int64_t q0 = 0; q0 < g.L; q0 += kBlockQ) {
        const int64_t nq = std::min(kBlockQ, g.L - q0), s_end = g.key_end(q0, nq);
        const T* dob = DO + d.off[bi] + q0 * d.rs;
        const T* lrow = LSE + bi * g.L + q0;
        for (int64_t i = 0; i < nq; ++i) {  // rowsum(do * out)
          delta[i] = row_dot(dob + i * d.rs, O + o.off[bi] + (q0 + i) * o.rs, g.Ev);
        }
        bool qdone = false;  // rows [q0, q0 + nq) of dq written
        for (int64_t k0 = 0; k0 < s_end; k0 += kBlockK) {
          const int64_t nk = std::min(kBlockK, s_end - k0);
          if (g.block_masked(bi, q0, nq, k0, nk)) continue;
          int64_t& done = kdone[k0 / kBlockK];
          if (done > 0 && done < nk) {  // rows [done, nk) are new to this block: zero them, then add
            zero_rows(dkb + (k0 + done) * gk.rs, nk - done, g.E, gk.rs);
            zero_rows(dvb + (k0 + done) * gv.rs, nk - done, g.Ev, gv.rs);
          }
          const T beta_k = done == 0 ? T(0) : T(1), beta_q = qdone ? T(1) : T(0);
          done = std::max(done, nk);
          qdone = true;
          g.scores(p.data(), bi, q0, nq, k0, nk);
          for (int64_t i = 0; i < nq; ++i) {
            T* row = p.data() + i * kBlockK;
            if (lrow[i] == -std::numeric_limits<T>::infinity()) {
              std::fill(row, row + nk, T(0));
              continue;
            }
            shifted_exp_sum(row, nk, lrow[i]);  // p = exp(s - lse); the sum is not needed
          }
          gemm<T>(true, false, nk, g.Ev, nq, T(1), p.data(), kBlockK, dob, d.rs, beta_k, dvb + k0 * gv.rs, gv.rs);
          gemm<T>(false, true, nq, nk, g.Ev, T(1), dob, d.rs, vb + k0 * g.v.rs, g.v.rs, T(0), dp.data(), kBlockK);
          for (int64_t i = 0; i < nq; ++i) {
            const T* pr = p.data() + i * kBlockK;
            T* r = dp.data() + i * kBlockK;
            const T di = delta[i];
            for (int64_t j = 0; j < nk; ++j) r[j] = pr[j] * (r[j] - di);
          }
          gemm<T>(false, false, nq, g.E, nk, g.scale, dp.data(), kBlockK, kb + k0 * g.k.rs, g.k.rs, beta_q,
                  dqb + q0 * gq.rs, gq.rs);
          gemm<T>(true, false, nk, g.E, nq, g.scale, dp.data(), kBlockK, qb + q0 * g.q.rs, g.q.rs, beta_k,
                  dkb + k0 * gk.rs, gk.rs);
        }
        if (!qdone) zero_rows(dqb + q0 * gq.rs, nq, g.E, gq.rs);
      }
      for (int64_t j = 0; j < kblocks; ++j) {
        const int64_t k0 = j * kBlockK, rows = std::min(kBlockK, g.S - k0);
        if (kdone[j] >= rows) continue;
        zero_rows(dkb + (k0 + kdone[j]) * gk.rs, rows - kdone[j], g.E, gk.rs);
        zero_rows(dvb + (k0 + kdone[j]) * gv.rs, rows - kdone[j], g.Ev, gv.rs);
      }
    }
  });
}

}  // namespace

void attention_forward(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                       const Tensor* mask, AttentionMask kind, bool causal, double scale) {
  if (q.dtype() == DType::Float32) return forward_typed<float>(out, lse, q, k, v, mask, kind, causal, scale);
  if (q.dtype() == DType::Float64) return forward_typed<double>(out, lse, q, k, v, mask, kind, causal, scale);
  throw TypeError("[scaled_dot_product_attention] the fused CPU kernel needs float32 or float64");
}

void attention_backward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& q, const Tensor& k,
                        const Tensor& v, const Tensor* mask, AttentionMask kind, bool causal, double scale,
                        const Tensor& out, const Tensor& lse, const Tensor& dout) {
  if (q.dtype() == DType::Float32)
    return backward_typed<float>(dq, dk, dv, q, k, v, mask, kind, causal, scale, out, lse, dout);
  if (q.dtype() == DType::Float64)
    return backward_typed<double>(dq, dk, dv, q, k, v, mask, kind, causal, scale, out, lse, dout);
  throw TypeError("[scaled_dot_product_attention] the fused CPU kernel needs float32 or float64");
}

}  // namespace tt::cpu
