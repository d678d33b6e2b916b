// Dense linear algebra through LAPACK (typedtensor/linalg.h): one primitive per factorization or
// solver, batched over the leading dims, float32 and float64, CPU only. NOTE [ Linear algebra ]
// Each primitive copies its operands into dense row-major buffers and runs the routine once per
// matrix (cpu/lapack.h); torch.linalg's other functions are compositions of these and of the
// matmul family (typedtensor/linalg.py). The VJPs are torch's formulas written with front-end
// ops, so they are themselves differentiable:
//   solve      X = A^-1 B:    gB = A^-T g,  gA = -gB X^T
//   slogdet    logabsdet:     gA = g A^-T
//   cholesky   A = L L^T:     gA = sym(L^-T Phi(L^T gL) L^-1), Phi: the lower triangle, diagonal halved
//   triangular X = A^-1 B:    gB = A^-T g,  gA = -(gB X^T) restricted to A's triangle
//   eigh       A = V L V^T:   gA = V (diag(gL) + skew(V^T gV) / E) V^T,  E_ij = L_j - L_i
//   svd        A = U S Vh:    torch's svd_backward (distinct singular values), wide via the transpose
//   qr         A = Q R:       gA = (gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T  (m >= n)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <limits>
#include <string>
#include <vector>

#include "../cpu/kernels.h"
#include "../cpu/lapack.h"
#include "../cpu/parallel.h"
#include "internal.h"
#include "typedtensor/device.h"
#include "typedtensor/linalg.h"

namespace tt {
using detail::shape_error;

namespace {
namespace lp = cpu::lapack;
using lint = lp::lint;

Tensor mT(const Tensor& t) { return transpose(t, -1, -2); }
Tensor neg(const Tensor& t) { return unary(UnaryOp::Neg, t); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Mul, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Sub, a, b); }
Tensor addt(const Tensor& a, const Tensor& b) { return binary(BinaryOp::Add, a, b); }
Tensor scale(const Tensor& a, double s) { return binary(BinaryOp::Mul, a, Scalar::from_double(s)); }
int64_t rows(const Tensor& t) { return t.shape()[t.dim() - 2]; }
int64_t cols(const Tensor& t) { return t.shape()[t.dim() - 1]; }
Tensor eye_like(int64_t n, DType dt) { return eye(n, n, dt); }
// x [*, n] as diagonal matrices [*, n, n]
Tensor diag_embed(const Tensor& x) { return mul(unsqueeze(x, -1), eye_like(cols(x), x.dtype())); }

Shape batch_of(const Shape& s, size_t core = 2) { return Shape(s.begin(), s.end() - static_cast<std::ptrdiff_t>(core)); }
int64_t count(const Shape& batch) {
  int64_t n = 1;
  for (int64_t v : batch) n *= v;
  return n;
}
Shape with(Shape s, std::initializer_list<int64_t> tail) {
  for (int64_t v : tail) s.push_back(v);
  return s;
}

lint lapack_int(int64_t v, const std::string& op) {
  if (v > std::numeric_limits<lint>::max())
    throw ValueError(op + ": a matrix dimension of " + std::to_string(v) + " is too large for LAPACK's 32-bit sizes");
  return static_cast<lint>(v);
}

// A dense row-major copy of t (LAPACK overwrites its operands).
Tensor dense(const Tensor& t) {
  Tensor c = empty(t.shape(), t.dtype());
  if (t.numel() > 0) cpu::copy(c, t);
  return c;
}

std::string batch_prefix(const Tensor& a, int64_t b) {
  return a.dim() > 2 ? "(Batch element " + std::to_string(b) + "): " : "";
}

void check_input(const std::string& op, const Tensor& a, bool square, const char* what = "A") {
  if (a.dim() < 2)
    shape_error(op, {a.shape()}, {}, op + ": The input tensor " + what + " must have at least 2 dimensions.");
  if (square && rows(a) != cols(a))
    shape_error(op, {a.shape()}, {}, op + ": " + what + " must be batches of square matrices, but they are " +
                                         std::to_string(rows(a)) + " by " + std::to_string(cols(a)) + " matrices");
  if (a.dtype() != DType::Float32 && a.dtype() != DType::Float64)
    throw TypeError(op + ": Expected a float32 or float64 tensor as input. Got " + dtype_name(a.dtype()));
  if (on_cuda(a))
    throw NotImplementedError(op + ": no CUDA kernel; typedtensor's linear algebra runs on the CPU (LAPACK)");
}

// The matrices of a batch in parallel: a chunk of them per thread, each chunk at least ~32k
// multiply-adds of work (an n x n factorization is ~n^3).
template <class F>
void over_batch(int64_t nb, int64_t n, F&& f) {
  const int64_t work = std::max<int64_t>(n * n * std::max<int64_t>(n, 1), 1);
  cpu::parallel_for(0, nb, std::max<int64_t>(cpu::kGrain / work, 1), std::forward<F>(f));
}

// The first failure of a batch as LinAlgError (info > 0), after the whole batch ran.
void throw_first(const std::string& op, const Tensor& a, const int32_t* info, int64_t nb,
                 std::string (*why)(const std::string& op, int32_t info)) {
  for (int64_t b = 0; b < nb; ++b)
    if (info[b] > 0) throw LinAlgError(op + ": " + batch_prefix(a, b) + why(op, info[b]));
}

template <class F>
void by_dtype(DType dt, F&& f) {
  if (dt == DType::Float64) f(double{});
  else f(float{});
}

// The primitives' common slot: LAPACK runs on the host only.
class LapackPrimitive : public Primitive {
 public:
  TensorList eval_cuda(const TensorList&) override {
    throw NotImplementedError(std::string("[") + name() + "] no CUDA kernel: typedtensor's linear algebra runs on the CPU");
  }
};

// ---------------- solve (getrf + getrs) ----------------
class Solve : public LapackPrimitive {
 public:
  Solve(bool check, std::string op) : check_(check), op_(std::move(op)) {}
  const char* name() const override { return "linalg_solve"; }
  TypeList output_types(const TypeList& in) const override {  // A [*, n, n], B [*, n, k] -> X [*, n, k], info [*]
    detail::TypeCheck c(name(), in);
    c.count(2);
    c.same_dtype(0, 1);
    const Shape &a = in[0].shape, &b = in[1].shape;
    if (a.size() < 2 || b.size() != a.size() || a[a.size() - 1] != a[a.size() - 2] || b[b.size() - 2] != a[a.size() - 1] ||
        batch_of(a) != batch_of(b))
      c.fail("expects A [*, n, n] and B [*, n, k] with one batch shape");
    return {{b, in[0].dtype}, {batch_of(a), DType::Int32}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    TensorList out = detail::alloc_outputs(*this, in);
    const Tensor &A = in[0], &B = in[1];
    Tensor& X = out[0];
    const lint n = lapack_int(rows(A), op_), k = lapack_int(cols(B), op_);
    const int64_t nb = count(batch_of(A.shape()));
    int32_t* info = out[1].data<int32_t>();
    for (int64_t b = 0; b < nb; ++b) info[b] = 0;
    if (n == 0 || nb == 0) return out;
    Tensor a = dense(A);
    if (X.numel() > 0) cpu::copy(X, B);
    by_dtype(A.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* ap = a.data<T>();
      T* xp = X.data<T>();
      over_batch(nb, n, [&](int64_t lo, int64_t hi) {
        std::vector<lint> ipiv(static_cast<size_t>(n));
        for (int64_t b = lo; b < hi; ++b) {
          T* ab = ap + b * n * n;
          info[b] = lp::getrf(n, ab, ipiv.data());
          if (info[b] == 0 && k > 0) lp::getrs(n, k, ab, ipiv.data(), xp + b * n * k);
        }
      });
    });
    if (check_)
      throw_first(op_, A, info, nb, [](const std::string& op, int32_t i) -> std::string {
        if (op == "linalg.solve") return "The solver failed because the input matrix is singular.";
        return "The diagonal element " + std::to_string(i) +
               " is zero, the inversion could not be completed because the input matrix is singular.";
      });
    return out;
  }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList& outs) override {
    const Tensor& g = ct[0];
    Tensor gB = g.defined() ? linalg_solve_ex(mT(x[0]), g, true, "linalg.solve")[0] : zeros(x[1].shape(), x[1].dtype());
    TensorList r;
    for (int i : argnums) r.push_back(i == 0 ? neg(matmul(gB, mT(outs[0]))) : gB);
    return r;
  }

 private:
  bool check_;
  std::string op_;
};

// ---------------- slogdet (getrf) ----------------
class Slogdet : public LapackPrimitive {
 public:
  const char* name() const override { return "linalg_slogdet"; }
  TypeList output_types(const TypeList& in) const override {  // A [*, n, n] -> sign [*], logabsdet [*]
    detail::TypeCheck c(name(), in);
    c.count(1);
    const Shape& a = in[0].shape;
    if (a.size() < 2 || a[a.size() - 1] != a[a.size() - 2]) c.fail("expects A [*, n, n]");
    return {{batch_of(a), in[0].dtype}, {batch_of(a), in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    TensorList out = detail::alloc_outputs(*this, in);
    const Tensor& A = in[0];
    const lint n = lapack_int(rows(A), "linalg.slogdet");
    const int64_t nb = count(batch_of(A.shape()));
    Tensor a = dense(A);
    by_dtype(A.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* sp = out[0].data<T>();
      T* lp_ = out[1].data<T>();
      over_batch(nb, n, [&](int64_t lo, int64_t hi) {
      std::vector<lint> ipiv(static_cast<size_t>(n));
      for (int64_t b = lo; b < hi; ++b) {
        T* ab = a.data<T>() + b * n * n;
        if (n > 0 && lp::getrf(n, ab, ipiv.data()) > 0) {  // a zero pivot: singular
          sp[b] = T(0);
          lp_[b] = -std::numeric_limits<T>::infinity();
          continue;
        }
        T sign = 1, logabs = 0;
        for (lint i = 0; i < n; ++i) {
          T d = ab[i * n + i];
          if (d < 0) sign = -sign;
          if (ipiv[static_cast<size_t>(i)] != i + 1) sign = -sign;
          logabs += std::log(std::fabs(d));
        }
        sp[b] = sign;
        lp_[b] = logabs;
      }
      });
    });
    return out;
  }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList&) override {
    const Tensor& A = x[0];
    const Tensor& g = ct[1];  // sign is piecewise constant: no gradient
    if (!g.defined()) return {zeros(A.shape(), A.dtype())};
    // A^-T; for a singular matrix no error: det's cotangent of logabsdet is then 0 (sign 0 times
    // exp(-inf)), so det's gradient there is 0, as torch's, whatever the failed solve left
    Tensor inv_t = linalg_solve_ex(mT(A), eye_like(rows(A), A.dtype()), false, "linalg.inv")[0];
    return {mul(unsqueeze(unsqueeze(g, -1), -1), inv_t)};
  }
};

// ---------------- cholesky (potrf) ----------------
class Cholesky : public LapackPrimitive {
 public:
  Cholesky(bool check, std::string op) : check_(check), op_(std::move(op)) {}
  const char* name() const override { return "linalg_cholesky"; }
  TypeList output_types(const TypeList& in) const override {  // A [*, n, n] -> L [*, n, n], info [*]
    detail::TypeCheck c(name(), in);
    c.count(1);
    const Shape& a = in[0].shape;
    if (a.size() < 2 || a[a.size() - 1] != a[a.size() - 2]) c.fail("expects A [*, n, n]");
    return {{a, in[0].dtype}, {batch_of(a), DType::Int32}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    TensorList out = detail::alloc_outputs(*this, in);
    const Tensor& A = in[0];
    Tensor& L = out[0];
    const lint n = lapack_int(rows(A), op_);
    const int64_t nb = count(batch_of(A.shape()));
    int32_t* info = out[1].data<int32_t>();
    if (L.numel() > 0) cpu::copy(L, A);
    by_dtype(A.dtype(), [&](auto zero) {
      using T = decltype(zero);
      over_batch(nb, n, [&](int64_t lo, int64_t hi) {
        for (int64_t b = lo; b < hi; ++b) {
          T* lb = L.data<T>() + b * n * n;
          info[b] = n > 0 ? lp::potrf(n, lb) : 0;
          for (lint i = 0; i < n; ++i)
            for (lint j = i + 1; j < n; ++j) lb[i * n + j] = T(0);  // the upper triangle is A's: clear it
        }
      });
    });
    if (check_)
      throw_first(op_, A, info, nb, [](const std::string&, int32_t i) -> std::string {
        return "The factorization could not be completed because the input is not positive-definite "
               "(the leading minor of order " + std::to_string(i) + " is not positive-definite).";
      });
    return out;
  }
  bool vjp_needs_inputs() const override { return false; }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>&, const TensorList& outs) override {
    const Tensor& L = outs[0];
    const Tensor& gL = ct[0];
    const int64_t n = rows(L);
    Tensor P = matmul(mT(L), gL);
    Tensor phi = scale(addt(tril(P, 0), tril(P, -1)), 0.5);  // the lower triangle, diagonal halved
    Tensor linv = linalg_solve_triangular(L, eye_like(n, L.dtype()), false, false);
    Tensor gA = matmul(matmul(mT(linv), phi), linv);
    return {scale(addt(gA, mT(gA)), 0.5)};
  }

 private:
  bool check_;
  std::string op_;
};

// ---------------- triangular solve (trsm) ----------------
class SolveTriangular : public LapackPrimitive {
 public:
  SolveTriangular(bool upper, bool unit) : upper_(upper), unit_(unit) {}
  const char* name() const override { return "linalg_solve_triangular"; }
  TypeList output_types(const TypeList& in) const override {  // A [*, n, n], B [*, n, k] -> X [*, n, k]
    detail::TypeCheck c(name(), in);
    c.count(2);
    c.same_dtype(0, 1);
    const Shape &a = in[0].shape, &b = in[1].shape;
    if (a.size() < 2 || b.size() != a.size() || a[a.size() - 1] != a[a.size() - 2] || b[b.size() - 2] != a[a.size() - 1] ||
        batch_of(a) != batch_of(b))
      c.fail("expects A [*, n, n] and B [*, n, k] with one batch shape");
    return {{b, in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    Tensor X = detail::alloc_output(*this, in);
    const Tensor &A = in[0], &B = in[1];
    const lint n = lapack_int(rows(A), "linalg.solve_triangular"), k = lapack_int(cols(B), "linalg.solve_triangular");
    const int64_t nb = count(batch_of(A.shape()));
    if (X.numel() == 0) return {X};
    cpu::copy(X, B);
    Tensor a = dense(A);
    by_dtype(A.dtype(), [&](auto zero) {
      using T = decltype(zero);
      over_batch(nb, n, [&](int64_t lo, int64_t hi) {
        for (int64_t b = lo; b < hi; ++b) lp::trsm(upper_, unit_, n, k, a.data<T>() + b * n * n, X.data<T>() + b * n * k);
      });
    });
    return {X};
  }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList& x, const TensorList& ct, const std::vector<int>& argnums, const TensorList& outs) override {
    Tensor gB = linalg_solve_triangular(mT(x[0]), ct[0], !upper_, unit_);
    TensorList r;
    for (int i : argnums) {
      if (i == 1) {
        r.push_back(gB);
        continue;
      }
      Tensor gA = neg(matmul(gB, mT(outs[0])));
      r.push_back(upper_ ? triu(gA, unit_ ? 1 : 0) : tril(gA, unit_ ? -1 : 0));
    }
    return r;
  }
  std::optional<Params> attrs() const override { return Params{{"upper", upper_}, {"unitriangular", unit_}}; }

 private:
  bool upper_, unit_;
};

// ---------------- eigh (syevd) ----------------
class Eigh : public LapackPrimitive {
 public:
  Eigh(bool upper, std::string op) : upper_(upper), op_(std::move(op)) {}
  const char* name() const override { return "linalg_eigh"; }
  TypeList output_types(const TypeList& in) const override {  // A [*, n, n] -> L [*, n], V [*, n, n]
    detail::TypeCheck c(name(), in);
    c.count(1);
    const Shape& a = in[0].shape;
    if (a.size() < 2 || a[a.size() - 1] != a[a.size() - 2]) c.fail("expects A [*, n, n]");
    return {{batch_of(a, 1), in[0].dtype}, {a, in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    TensorList out = detail::alloc_outputs(*this, in);
    const Tensor& A = in[0];
    Tensor& V = out[1];
    const lint n = lapack_int(rows(A), op_);
    const int64_t nb = count(batch_of(A.shape()));
    if (V.numel() == 0) return out;
    cpu::copy(V, A);
    std::vector<int32_t> info(static_cast<size_t>(nb));
    by_dtype(A.dtype(), [&](auto zero) {
      using T = decltype(zero);
      over_batch(nb, n, [&](int64_t lo, int64_t hi) {
        for (int64_t b = lo; b < hi; ++b)
          info[static_cast<size_t>(b)] = lp::syevd(true, upper_ ? 'U' : 'L', n, V.data<T>() + b * n * n, out[0].data<T>() + b * n);
      });
    });
    throw_first(op_, A, info.data(), nb, [](const std::string&, int32_t i) -> std::string {
      return "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
             "eigenvalues (error code: " + std::to_string(i) + ").";
    });
    return out;
  }
  bool vjp_needs_inputs() const override { return false; }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>&, const TensorList& outs) override {
    const Tensor &L = outs[0], &V = outs[1];
    const Tensor &gL = ct[0], &gV = ct[1];
    const int64_t n = rows(V);
    Tensor M;
    if (gV.defined()) {
      Tensor VtgV = matmul(mT(V), gV);
      VtgV = scale(sub(VtgV, mT(VtgV)), 0.5);
      Tensor E = addt(sub(unsqueeze(L, -2), unsqueeze(L, -1)), eye_like(n, L.dtype()));  // E_ij = L_j - L_i, 1 on the diagonal
      M = binary(BinaryOp::Div, VtgV, E);
      if (gL.defined()) M = addt(M, diag_embed(gL));
    } else {
      M = diag_embed(gL);
    }
    return {matmul(V, matmul(M, mT(V)))};
  }
  std::optional<Params> attrs() const override { return Params{{"upper", upper_}}; }

 private:
  bool upper_;
  std::string op_;
};

// torch's svd_backward for a tall or square A (m >= n) and reduced factors; the wide case through
// the transpose (A^T = V S U^T).
Tensor svd_vjp(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U, const Tensor& S, const Tensor& Vh) {
  const int64_t m = rows(U), n = cols(Vh);
  if (!gU.defined() && !gVh.defined()) {
    if (!gS.defined()) return zeros(with(batch_of(U.shape()), {m, n}), U.dtype());
    return m >= n ? matmul(U, mul(unsqueeze(gS, -1), Vh)) : matmul(mul(U, unsqueeze(gS, -2)), Vh);
  }
  if (m < n) {
    return mT(svd_vjp(gVh.defined() ? mT(gVh) : Tensor(), gS, gU.defined() ? mT(gU) : Tensor(), mT(Vh), S, mT(U)));
  }
  const Tensor V = mT(Vh);
  const Tensor gV = gVh.defined() ? mT(gVh) : Tensor();
  auto skew = [](const Tensor& a) { return sub(a, mT(a)); };
  const int64_t k = cols(S);
  Tensor S2 = mul(S, S);
  Tensor E = addt(sub(unsqueeze(S2, -2), unsqueeze(S2, -1)), eye_like(k, S.dtype()));  // S_j^2 - S_i^2, 1 on the diagonal
  Tensor gA;
  if (gU.defined() && gV.defined()) {
    Tensor UtgU = skew(matmul(mT(U), gU)), VtgV = skew(matmul(mT(V), gV));
    gA = binary(BinaryOp::Div, addt(mul(UtgU, unsqueeze(S, -2)), mul(unsqueeze(S, -1), VtgV)), E);
  } else if (gU.defined()) {
    gA = mul(binary(BinaryOp::Div, skew(matmul(mT(U), gU)), E), unsqueeze(S, -2));
  } else {
    gA = mul(unsqueeze(S, -1), binary(BinaryOp::Div, skew(matmul(mT(V), gV)), E));
  }
  if (gS.defined()) gA = addt(gA, diag_embed(gS));
  if (m > n && gU.defined()) {
    // [U gA + (I - U U^T) gU S^-1] Vh
    gA = matmul(U, gA);
    Tensor gUSinv = binary(BinaryOp::Div, gU, unsqueeze(S, -2));
    gA = addt(gA, sub(gUSinv, matmul(U, matmul(mT(U), gUSinv))));
    return matmul(gA, Vh);
  }
  return matmul(U, matmul(gA, Vh));
}

// ---------------- svd (gesdd) ----------------
class Svd : public LapackPrimitive {
 public:
  Svd(bool full, std::string op) : full_(full), op_(std::move(op)) {}
  const char* name() const override { return "linalg_svd"; }
  TypeList output_types(const TypeList& in) const override {  // A [*, m, n] -> U, S [*, k], Vh
    detail::TypeCheck c(name(), in);
    c.count(1);
    const Shape& a = in[0].shape;
    if (a.size() < 2) c.fail("expects A [*, m, n]");
    const int64_t m = a[a.size() - 2], n = a[a.size() - 1], k = std::min(m, n);
    Shape bt = batch_of(a);
    return {{with(bt, {m, full_ ? m : k}), in[0].dtype}, {with(bt, {k}), in[0].dtype}, {with(bt, {full_ ? n : k, n}), in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    TensorList out = detail::alloc_outputs(*this, in);
    const Tensor& A = in[0];
    const lint m = lapack_int(rows(A), op_), n = lapack_int(cols(A), op_), k = std::min(m, n);
    const int64_t nb = count(batch_of(A.shape()));
    if (nb == 0) return out;
    if (k == 0) {  // no singular values: the (full) singular vectors are the identity
      if (out[0].numel() > 0) copy_(out[0], eye(m, cols(out[0]), A.dtype()));
      if (out[2].numel() > 0) copy_(out[2], eye(rows(out[2]), n, A.dtype()));
      return out;
    }
    Tensor a = dense(A);
    const int64_t ucols = cols(out[0]), vrows = rows(out[2]);
    std::vector<int32_t> info(static_cast<size_t>(nb));
    by_dtype(A.dtype(), [&](auto zero) {
      using T = decltype(zero);
      over_batch(nb, std::max(m, n), [&](int64_t lo, int64_t hi) {
        for (int64_t b = lo; b < hi; ++b)
          info[static_cast<size_t>(b)] = lp::gesdd(full_ ? 'A' : 'S', m, n, a.data<T>() + b * m * n, out[1].data<T>() + b * k,
                                                   out[0].data<T>() + b * m * ucols, out[2].data<T>() + b * vrows * n);
      });
    });
    throw_first(op_, A, info.data(), nb, [](const std::string&, int32_t i) -> std::string {
      return "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
             "singular values (error code: " + std::to_string(i) + ").";
    });
    return out;
  }
  bool vjp_needs_inputs() const override { return false; }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>&, const TensorList& outs) override {
    const int64_t k = cols(outs[1]);
    auto cut_cols = [&](const Tensor& t) { return t.defined() && full_ ? narrow(t, -1, 0, k) : t; };
    auto cut_rows = [&](const Tensor& t) { return t.defined() && full_ ? narrow(t, -2, 0, k) : t; };
    return {svd_vjp(cut_cols(ct[0]), ct[1], cut_rows(ct[2]), cut_cols(outs[0]), outs[1], cut_rows(outs[2]))};
  }
  std::optional<Params> attrs() const override { return Params{{"full_matrices", full_}}; }

 private:
  bool full_;
  std::string op_;
};

// ---------------- qr (geqrf + orgqr) ----------------
class Qr : public LapackPrimitive {
 public:
  explicit Qr(std::string mode) : mode_(std::move(mode)) {}
  const char* name() const override { return "linalg_qr"; }
  TypeList output_types(const TypeList& in) const override {  // A [*, m, n] -> Q, R
    detail::TypeCheck c(name(), in);
    c.count(1);
    const Shape& a = in[0].shape;
    if (a.size() < 2) c.fail("expects A [*, m, n]");
    if (mode_ != "reduced" && mode_ != "complete" && mode_ != "r") c.fail("mode must be reduced, complete or r");
    const int64_t m = a[a.size() - 2], n = a[a.size() - 1], k = std::min(m, n);
    Shape bt = batch_of(a);
    const bool complete = mode_ == "complete";
    Shape q = mode_ == "r" ? Shape{0} : with(bt, {m, complete ? m : k});
    return {{q, in[0].dtype}, {with(bt, {complete ? m : k, n}), in[0].dtype}};
  }
  TensorList eval_cpu(const TensorList& in) override {
    TensorList out = detail::alloc_outputs(*this, in);
    const Tensor& A = in[0];
    Tensor &Q = out[0], &R = out[1];
    const lint m = lapack_int(rows(A), "linalg.qr"), n = lapack_int(cols(A), "linalg.qr"), k = std::min(m, n);
    const int64_t nb = count(batch_of(A.shape()));
    const bool want_q = mode_ != "r";
    const lint qcols = want_q ? static_cast<lint>(cols(Q)) : k, rrows = static_cast<lint>(rows(R));
    const lint lda = std::max<lint>(std::max(n, qcols), 1);
    Tensor a = dense(A);
    by_dtype(A.dtype(), [&](auto zero) {
      using T = decltype(zero);
      over_batch(nb, std::max(m, n), [&](int64_t lo, int64_t hi) {
      std::vector<T> w(static_cast<size_t>(m) * static_cast<size_t>(lda)), tau(static_cast<size_t>(std::max<lint>(k, 1)));
      for (int64_t b = lo; b < hi; ++b) {
        const T* ab = a.data<T>() + b * m * n;
        std::fill(w.begin(), w.end(), T(0));
        for (lint i = 0; i < m; ++i)
          for (lint j = 0; j < n; ++j) w[static_cast<size_t>(i * lda + j)] = ab[i * n + j];
        if (k > 0) lp::geqrf(m, n, lda, w.data(), tau.data());
        T* rb = R.data<T>() + b * rrows * n;
        for (lint i = 0; i < rrows; ++i)
          for (lint j = 0; j < n; ++j) rb[i * n + j] = j >= i ? w[static_cast<size_t>(i * lda + j)] : T(0);
        if (!want_q || qcols == 0) continue;
        T* qb = Q.data<T>() + b * m * qcols;
        if (k > 0) {
          lp::orgqr(m, qcols, k, lda, w.data(), tau.data());
          for (lint i = 0; i < m; ++i)
            for (lint j = 0; j < qcols; ++j) qb[i * qcols + j] = w[static_cast<size_t>(i * lda + j)];
        } else {
          for (lint i = 0; i < m; ++i)
            for (lint j = 0; j < qcols; ++j) qb[i * qcols + j] = i == j ? T(1) : T(0);
        }
      }
      });
    });
    return out;
  }
  bool vjp_needs_inputs() const override { return false; }
  bool vjp_needs_outputs() const override { return true; }
  TensorList vjp(const TensorList&, const TensorList& ct, const std::vector<int>&, const TensorList& outs) override {
    if (mode_ == "r")
      throw std::runtime_error("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                       "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
    const Tensor &Q = outs[0], &R = outs[1];
    const Tensor &gQ = ct[0], &gR = ct[1];
    const int64_t m = rows(Q), n = cols(R);
    if (mode_ == "complete" && m > n)
      throw std::runtime_error("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
    if (m < n)
      throw NotImplementedError("linalg.qr: the gradient of the QR decomposition of a wide matrix (nrows < ncols) is "
                                "not implemented in typedtensor");
    Tensor M;  // R gR^T - gQ^T Q
    if (gR.defined()) M = matmul(R, mT(gR));
    if (gQ.defined()) M = M.defined() ? sub(M, matmul(mT(gQ), Q)) : neg(matmul(mT(gQ), Q));
    Tensor sym = addt(tril(M, 0), mT(tril(M, -1)));  // copyltu(M): the lower triangle mirrored
    Tensor B = matmul(Q, sym);
    if (gQ.defined()) B = addt(B, gQ);
    // gA = B R^-T: R gA^T = B^T
    return {mT(linalg_solve_triangular(R, mT(B), true, false))};
  }
  std::optional<Params> attrs() const override { return Params{{"mode", mode_}}; }

 private:
  std::string mode_;
};

// Broadcast the batch dims of A [*, n, n] and B [*, n, k] against each other.
std::pair<Tensor, Tensor> broadcast_batch(const std::string& op, const std::string& rule, const Tensor& A, const Tensor& B) {
  Shape ba = batch_of(A.shape()), bb = batch_of(B.shape());
  Shape bt;
  try {
    bt = broadcast_shapes(ba, bb, op.c_str());
  } catch (const ShapeError&) {
    shape_error(rule, {A.shape(), B.shape()}, {},
                op + ": the batch dimensions " + shape_str(ba) + " and " + shape_str(bb) + " do not broadcast");
  }
  Tensor a = ba == bt ? A : expand(A, with(bt, {rows(A), cols(A)}));
  Tensor b = bb == bt ? B : expand(B, with(bt, {rows(B), cols(B)}));
  return {a, b};
}

void check_pair(const std::string& op, const std::string& rule, const Tensor& A, const Tensor& B) {
  check_input(op, A, true);
  if (B.dim() < 2) shape_error(rule, {A.shape(), B.shape()}, {}, op + ": The input tensor B must have at least 2 dimensions.");
  if (B.dtype() != A.dtype())
    throw TypeError(op + ": Expected A and B to have the same dtype, but found A of type " + dtype_name(A.dtype()) +
                    " and B of type " + dtype_name(B.dtype()) + " instead");
  if (rows(B) != rows(A))
    shape_error(rule, {A.shape(), B.shape()}, {},
                op + ": Incompatible shapes of A and B for the equation AX = B (" + shape_str(A.shape()) + " and " +
                    shape_str(B.shape()) + ")");
}
}  // namespace

TensorList linalg_solve_ex(const Tensor& A, const Tensor& B, bool check_errors, const std::string& op) {
  check_pair(op, "linalg_solve", A, B);
  auto [a, b] = broadcast_batch(op, "linalg_solve", A, B);
  return apply(std::make_shared<Solve>(check_errors, op), {a, b});
}

TensorList linalg_slogdet(const Tensor& A, const std::string& op) {
  check_input(op, A, true);
  return apply(std::make_shared<Slogdet>(), {A});
}

TensorList linalg_cholesky_ex(const Tensor& A, bool check_errors, const std::string& op) {
  check_input(op, A, true);
  return apply(std::make_shared<Cholesky>(check_errors, op), {A});
}

Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool unitriangular) {
  check_pair("linalg.solve_triangular", "linalg_solve_triangular", A, B);
  auto [a, b] = broadcast_batch("linalg.solve_triangular", "linalg_solve_triangular", A, B);
  return apply1(std::make_shared<SolveTriangular>(upper, unitriangular), {a, b});
}

TensorList linalg_eigh(const Tensor& A, bool upper, const std::string& op) {
  check_input(op, A, true);
  return apply(std::make_shared<Eigh>(upper, op), {A});
}

TensorList linalg_svd(const Tensor& A, bool full_matrices, const std::string& op) {
  check_input(op, A, false);
  return apply(std::make_shared<Svd>(full_matrices, op), {A});
}

TensorList linalg_qr(const Tensor& A, const std::string& mode) {
  check_input("linalg.qr", A, false);
  if (mode != "reduced" && mode != "complete" && mode != "r")
    throw ValueError("qr received unrecognized mode '" + mode + "' but expected one of 'reduced' (default), 'r', or 'complete'");
  return apply(std::make_shared<Qr>(mode), {A});
}

}  // namespace tt
