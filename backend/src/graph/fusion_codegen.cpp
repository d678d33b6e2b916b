// Code generation for fused elementwise groups: the C++ source of the CPU kernel (compiled by the
// system compiler) and the CUDA source (compiled by NVRTC), over one shared math prelude.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

#include "../cpu/vmath_poly.h"
#include "fusion.h"
#include "typedtensor/ops.h"

namespace tt::graph {
namespace {

std::string lit(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s == "inf") return "TT_INF";
  if (s == "-inf") return "(-TT_INF)";
  if (s == "nan" || s == "-nan") return "TT_NAN";
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return "T(" + s + ")";
}

}  // namespace

// C++ expression of a fusible node over operand names a, b, c: its op's fusion expression from
// the op table (typedtensor/op_info.h) with the operands A, B, C and the attributes @name filled
// in; empty when the op is not fused or the node's operand count differs from the expression's.
std::string expr(const Node& n, const std::string& a, const std::string& b, const std::string& c) {
  const OpInfo* info = primitive_info(n.op);
  if (!info || info->kind != OpKind::Elementwise || !*info->fusion) return "";
  const std::string operand[] = {a, b, c};
  std::string text = info->fusion, out;
  size_t arity = 0;
  auto ident = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '@') {  // an attribute: its literal, TT_NAN when the node has none
      size_t j = i + 1;
      while (j < text.size() && ident(text[j])) ++j;
      const double* v = attr<double>(n, text.substr(i + 1, j - i - 1).c_str());
      out += v ? lit(*v) : "TT_NAN";
      i = j;
    } else if (ident(text[i])) {  // an identifier: A, B and C are the operands
      size_t j = i;
      while (j < text.size() && ident(text[j])) ++j;
      std::string word = text.substr(i, j - i);
      if (word.size() == 1 && word[0] >= 'A' && word[0] <= 'C') {
        size_t k = static_cast<size_t>(word[0] - 'A');
        arity = std::max(arity, k + 1);
        out += operand[k];
      } else {
        out += word;
      }
      i = j;
    } else {
      out += text[i++];
    }
  }
  return arity == n.inputs.size() ? out : "";
}

namespace {

// A float constant as C++ source: the shortest text that reads back as the same float.
std::string flit(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s + "f";
}

// `var = c[0]; var = fma(var, x, c[k]); ...`: a polynomial of backend/src/cpu/vmath_poly.h, as
// vmath.h's horner() evaluates it.
template <size_t N>
std::string horner_text(const char* var, const char* x, const float (&c)[N]) {
  std::string s = std::string("  float ") + var + " = " + flit(c[0]) + ";\n";
  for (size_t k = 1; k < N; ++k) s += std::string("  ") + var + " = fma(" + var + ", " + x + ", " + flit(c[k]) + ");\n";
  return s;
}

// The fused kernels' math, shared by the C++ (CPU) and the CUDA source: written once over a few
// macros that each prelude defines (TT_FN, tt_f2i / tt_i2f bit casts, TT_INF / TT_NAN) and calls
// the math library unqualified (the host prelude brings std::'s float overloads into scope; CUDA
// has them built in). Float exp / erf / log are eager mode's vmath.h functions and tanh the rational
// fit, their polynomials printed from vmath_poly.h (vectorised on the CPU); double calls the library.
std::string math_source() {
  namespace poly = cpu::poly;
  std::string s;
  // exp: vmath.h vexp
  s += "TT_FN float tt_exp(float x) {\n";
  s += "  float xc = x < " + flit(poly::kExpLo) + " ? " + flit(poly::kExpLo) + " : x;\n";
  s += "  xc = xc > " + flit(poly::kExpHi) + " ? " + flit(poly::kExpHi) + " : xc;\n";
  s += "  float n = nearbyint(xc * " + flit(poly::kLog2e) + ");\n";
  s += "  float r = fma(n, " + flit(-poly::kLn2Hi) + ", xc);\n";
  s += "  r = fma(n, " + flit(-poly::kLn2Lo) + ", r);\n";
  s += horner_text("p", "r", poly::kExp);
  s += "  float y = fma(p * r, r, r) + 1.0f;\n"
       "  tt_i32 ni = static_cast<tt_i32>(n);\n"
       "  tt_i32 n1 = ni / 2, n2 = ni - n1;\n"
       "  float s1 = tt_i2f((n1 + 127) << 23), s2 = tt_i2f((n2 + 127) << 23);\n"
       "  float res = y * s1 * s2;\n"
       "  return x != x ? x : res;\n"
       "}\n"
       "TT_FN double tt_exp(double x) { return exp(x); }\n";
  // tanh: the rational fit of vmath_poly.h (one division, no exp); NaN passes the clamps
  s += "TT_FN float tt_tanh(float x) {\n";
  s += "  float xc = x < " + flit(-poly::kTanhRationalMax) + " ? " + flit(-poly::kTanhRationalMax) + " : x;\n";
  s += "  xc = xc > " + flit(poly::kTanhRationalMax) + " ? " + flit(poly::kTanhRationalMax) + " : xc;\n";
  s += "  float x2 = xc * xc;\n";
  s += horner_text("p", "x2", poly::kTanhRationalP);
  s += horner_text("q", "x2", poly::kTanhRationalQ);
  s += "  float r = xc * p / q;\n"
       "  return fabs(x) < " + flit(poly::kTanhRationalTiny) + " ? x : r;\n"
       "}\n"
       "TT_FN double tt_tanh(double x) { return tanh(x); }\n";
  // erf: vmath.h verf
  s += "TT_FN float tt_erf(float x) {\n";
  s += "  x = x < " + flit(-poly::kErfMax) + " ? " + flit(-poly::kErfMax) + " : x;\n";
  s += "  x = x > " + flit(poly::kErfMax) + " ? " + flit(poly::kErfMax) + " : x;\n";
  s += "  float x2 = x * x;\n";
  s += horner_text("p", "x2", poly::kErfP);
  s += horner_text("q", "x2", poly::kErfQ);
  s += "  return x * p / q;\n"
       "}\n"
       "TT_FN double tt_erf(double x) { return erf(x); }\n";
  // log: vmath.h vlog (mantissa in [sqrt(1/2), sqrt 2), subnormals scaled by 2^23 first);
  // log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN passes
  s += "TT_FN float tt_log(float x) {\n"
       "  const bool sub = x < 1.17549435e-38f;\n"
       "  float xs = sub ? x * 8388608.0f : x;\n"
       "  tt_i32 bits = tt_f2i(xs);\n"
       "  float fe = static_cast<float>(((bits >> 23) & 0xff) - 126) - (sub ? 23.0f : 0.0f);\n"
       "  float m = tt_i2f((bits & 0x007fffff) | 0x3f000000);\n"
       "  const bool lo = m < 0.707106781186547524f;\n"
       "  fe = lo ? fe - 1.0f : fe;\n"
       "  float t = lo ? m + m - 1.0f : m - 1.0f;\n"
       "  float z = t * t;\n";
  s += horner_text("y", "t", poly::kLog);
  s += "  y = y * t * z;\n"
       "  y = fma(fe, " + flit(poly::kLn2Lo) + ", y);\n"
       "  y = fma(z, -0.5f, y);\n"
       "  float r = fma(fe, " + flit(poly::kLn2Hi) + ", t + y);\n"
       "  r = x > 0.0f ? r : (x == 0.0f ? -TT_INF : TT_NAN);\n"
       "  return x == TT_INF ? x : r;\n"
       "}\n"
       "TT_FN double tt_log(double x) { return log(x); }\n";
  s += R"(// as eager (vmath.h vsigmoid): e / (1 + e) with e = exp(x) below 0, so very negative x keeps its
// subnormal result instead of exp(-x) clamping
template <class T> TT_FN T tt_sigmoid(T x) {
  T e = tt_exp(-fabs(x)), s = T(1) / (T(1) + e);
  return x < T(0) ? e * s : s;
}
template <class T> TT_FN T tt_gelu(T x) { return T(0.5) * x * (T(1) + tt_erf(x * T(0.70710678118654752440))); }
// max(0, x) in one vector max (the operand order keeps NaN); + 0 turns -0 into +0 like eager relu
template <class T> TT_FN T tt_relu(T x) { return (x < T(0) ? T(0) : x) + T(0); }
template <class T> TT_FN T tt_max(T x, T y) { return (x != x || x > y) ? x : y; }
template <class T> TT_FN T tt_min(T x, T y) { return (x != x || x < y) ? x : y; }
template <class T> TT_FN T tt_clamp_lo(T x, T lo) { return x < lo ? lo : x; }
template <class T> TT_FN T tt_clamp_hi(T x, T hi) { return x > hi ? hi : x; }
// a NaN bound (an absent one) compares false: no bound
template <class T> TT_FN T tt_clamp(T x, T lo, T hi) { return tt_clamp_hi(tt_clamp_lo(x, lo), hi); }
)";
  return s;
}
const std::string& kMath() {
  static const std::string s = math_source();
  return s;
}

const char* kHostPrelude = R"(#include <cmath>
#include <cstdint>
#include <cstring>
// generated by typedtensor graph mode: one fused elementwise kernel
#define TT_FN static inline
#define TT_INF INFINITY
#define TT_NAN NAN
using std::abs; using std::erf; using std::erfc; using std::exp; using std::exp2; using std::expm1; using std::fabs;
using std::fma; using std::log; using std::log10; using std::log1p; using std::log2; using std::nearbyint;
using std::pow; using std::sin; using std::cos; using std::sqrt; using std::tanh;
typedef int32_t tt_i32;
TT_FN float tt_i2f(tt_i32 i) { float f; std::memcpy(&f, &i, 4); return f; }
TT_FN tt_i32 tt_f2i(float f) { tt_i32 i; std::memcpy(&i, &f, 4); return i; }
)";

// NVRTC has no standard headers: only the built-in CUDA math API and intrinsics.
const char* kCudaPrelude = R"(// generated by typedtensor graph mode: one fused elementwise kernel (CUDA, NVRTC)
#define TT_FN static __device__ __forceinline__
#define TT_INF __int_as_float(0x7f800000)
#define TT_NAN __int_as_float(0x7fffffff)
typedef int tt_i32;
TT_FN float tt_i2f(int i) { return __int_as_float(i); }
TT_FN int tt_f2i(float f) { return __float_as_int(f); }
)";

const char* ctype(DType d) { return d == DType::Bool ? "bool" : "T"; }

}  // namespace


// Per input k, how the loop body reads it at flat element i (row o = i / INNER, column j0 + j):
// full inputs index with i, broadcast ones with a base computed from the row o (plus the column
// when they vary along the last dim). `idx` is the element index expression of the target.
std::vector<FusedKernel::Load> FusedKernel::loads() const {
  const size_t R = shape_.size();
  std::vector<Load> out(in_ids_.size());
  for (size_t k = 0; k < in_ids_.size(); ++k) {
    if (!in_broadcast_[k]) continue;
    const Shape& s = in_shapes_[k];
    Shape ps(R, 1);
    for (size_t d = 0; d < s.size(); ++d) ps[R - s.size() + d] = s[d];
    Strides st = contiguous_strides(ps);
    std::string base = "0";
    int64_t P = 1;  // product of the outer dims after d (the row index o spans dims 0..R-2)
    for (size_t d = R - 1; d-- > 0;) {
      if (ps[d] == shape_[d] && shape_[d] != 1) {
        std::string term = "o";
        if (P != 1) term = "(" + term + " / " + std::to_string(P) + ")";
        if (d != 0) term = "(" + term + " % " + std::to_string(shape_[d]) + ")";
        base += " + " + term + " * " + std::to_string(st[d]);
      }
      P *= shape_[d];
    }
    out[k].broadcast = true;
    out[k].base = base;
    out[k].column = R > 0 && ps[R - 1] == shape_[R - 1] && shape_[R - 1] != 1;
  }
  return out;
}

// The loop body over already-loaded operands x0, x1, ...: one const temporary per node. Returns the
// local holding each graph value (the outputs, or the reduction's operand).
std::map<int, std::string> FusedKernel::emit_body(std::ostream& os, const std::string& indent) const {
  const bool red = !reduce_.empty();
  std::map<int, std::string> name;  // graph value id -> local
  for (size_t k = 0; k < in_ids_.size(); ++k) name[in_ids_[k]] = "x" + std::to_string(k);
  int tmp = 0;
  for (size_t bi = 0; bi < body_.size(); ++bi) {
    const Node& n = body_[bi];
    if (red && bi + 1 == body_.size()) break;  // the reduction tail: the caller accumulates
    if (n.op == "expand") {  // a broadcast load of its source
      name[n.outputs[0]] = name.at(n.inputs[0]);
      continue;
    }
    if (gemm_ && bi == 0) continue;  // the GEMM: its product is input 0
    std::string a = name.at(n.inputs[0]);
    std::string b = n.inputs.size() > 1 ? name.at(n.inputs[1]) : "";
    std::string c = n.inputs.size() > 2 ? name.at(n.inputs[2]) : "";
    std::string v = "t" + std::to_string(tmp++);
    os << indent << "const auto " << v << " = " << expr(n, a, b, c) << ";\n";
    name[n.outputs[0]] = v;
  }
  return name;
}

// The accumulation of the reduction tail's operand into `acc`.
std::string FusedKernel::accumulate(const std::map<int, std::string>& name) const {
  const std::string& v = name.at(body_.back().inputs[0]);
  if (reduce_ == "amax") return "acc = tt_max(acc, " + v + ");";
  if (reduce_ == "amin") return "acc = tt_min(acc, " + v + ");";
  return "acc += " + v + ";";
}

std::string FusedKernel::generate() const {
  const size_t R = shape_.size();
  const int64_t N = shape_numel(shape_);
  const bool red = !reduce_.empty();
  bool any_bc = std::find(in_broadcast_.begin(), in_broadcast_.end(), true) != in_broadcast_.end();
  const int64_t inner = R == 0 ? 1 : (any_bc ? shape_[R - 1] : N);
  std::ostringstream os;
  os << kHostPrelude << kMath() << "#include <vector>\nusing T = " << (dtype_ == DType::Float64 ? "double" : "float") << ";\n";
  // a GEMM epilogue's loop runs on one block of the product's rows, [lo, hi) in elements, serially
  // (its caller spreads the blocks over the threads); input 0 is that block alone (the GEMM's scratch)
  if (gemm_) os << "extern \"C\" void tt_kernel(void* const* args, int64_t lo, int64_t hi) {\n";
  else os << "extern \"C\" void tt_kernel(void* const* args, int64_t nthreads) {\n";
  // bool data is read and written as bytes: GCC does not vectorise a loop that loads `bool` next to
  // floats ("no vectype"), and a fused relu backward (where(mask, g, 0)) ran 10x slower for it
  auto mem = [](DType d) { return d == DType::Bool ? "unsigned char" : "T"; };
  for (size_t k = 0; k < in_ids_.size(); ++k)
    os << "  const " << mem(in_dtypes_[k]) << (aliasing_ ? "* in" : "* __restrict in") << k << " = static_cast<const " << mem(in_dtypes_[k])
       << "*>(args[" << k << "]);\n";
  for (size_t k = 0; k < out_ids_.size(); ++k)
    os << "  " << mem(out_dtypes_[k]) << (aliasing_ ? "* out" : "* __restrict out") << k << " = static_cast<" << mem(out_dtypes_[k]) << "*>(args["
       << in_ids_.size() + k << "]);\n";
  os << "  constexpr int64_t N = " << N << ", INNER = " << std::max<int64_t>(inner, 1) << ";\n";
  if (red) {
    // rows of RLEN reduced elements, each split in chunks of at most CH: one task per (row, chunk),
    // chunk results combined in double in a fixed order (deterministic for a thread count)
    const int64_t rlen = std::max<int64_t>(reduce_len_, 1);
    const int64_t ch = std::min<int64_t>(rlen, 16384);
    os << "  constexpr int64_t RLEN = " << rlen << ", NOUT = N / RLEN, CH = " << ch << ";\n";
    os << "  constexpr int64_t CPR = (RLEN + CH - 1) / CH, NTASK = NOUT * CPR;\n";
    os << "  std::vector<double> part(NTASK);\n";
    os << "#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1) if (NTASK > 1 && N > 32768)\n";
    os << "  for (int64_t task = 0; task < NTASK; ++task) {\n";
    os << "    const int64_t ro = task / CPR, rc = task - ro * CPR;\n";
    os << "    int64_t i = ro * RLEN + rc * CH;\n";
    os << "    const int64_t end = i + CH < (ro + 1) * RLEN ? i + CH : (ro + 1) * RLEN;\n";
    bool is_max = reduce_ == "amax", is_min = reduce_ == "amin";
    os << "    T acc = " << (is_max ? "-TT_INF" : is_min ? "TT_INF" : "T(0)") << ";\n";
  } else if (gemm_) {
    os << "  {\n    int64_t i = lo;\n    const int64_t end = hi;\n";
  } else {
    // NOTE [ Dynamic blocks ]: blocks are handed out one at a time (schedule(dynamic, 1)), not in
    // one static half per thread: on a shared machine a thread that loses its core (to another
    // process, or to another library's pool still spinning after its own work) made the whole call
    // wait for its half -- with a busy loop pinned to the second core, a static split took 76-105 ms
    // where the dynamic one took 40-92 ms. An atomic per 8192 elements costs nothing measurable.
    os << "  constexpr int64_t BS = 8192;\n  const int64_t nblocks = (N + BS - 1) / BS;\n";
    os << "#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1) if (nblocks > 1)\n";
    os << "  for (int64_t blk = 0; blk < nblocks; ++blk) {\n";
    os << "    int64_t i = blk * BS;\n    const int64_t end = i + BS < N ? i + BS : N;\n";
  }
  os << "    while (i < end) {\n";
  os << "      const int64_t o = i / INNER, j0 = i - o * INNER;\n";
  os << "      const int64_t len = (INNER - j0) < (end - i) ? (INNER - j0) : (end - i);\n";
  os << "      (void)o;\n";
  std::vector<Load> ld = loads();
  std::vector<std::string> load(in_ids_.size());
  for (size_t k = 0; k < in_ids_.size(); ++k) {
    std::string ks = std::to_string(k);
    if (!ld[k].broadcast) {
      load[k] = "in" + ks + (gemm_ && k == 0 ? "[i - lo + j]" : "[i + j]");
      continue;
    }
    os << "      const int64_t b" << k << " = " << ld[k].base << ";\n";
    load[k] = "in" + ks + "[b" + ks + (ld[k].column ? " + j0 + j]" : "]");
  }
  if (!red || reduce_ == "sum" || reduce_ == "mean") {
    os << (red ? "#pragma omp simd reduction(+ : acc)\n" : "#pragma omp simd\n");
  }
  os << "      for (int64_t j = 0; j < len; ++j) {\n";
  for (size_t k = 0; k < in_ids_.size(); ++k)
    os << "        const " << ctype(in_dtypes_[k]) << " x" << k << " = " << load[k]
       << (in_dtypes_[k] == DType::Bool ? " != 0" : "") << ";\n";
  auto name = emit_body(os, "        ");
  if (red) os << "        " << accumulate(name) << "\n";
  else
    for (size_t k = 0; k < out_ids_.size(); ++k)
      os << "        out" << k << "[i + j] = " << (out_dtypes_[k] == DType::Bool ? "static_cast<unsigned char>(" : "(")
         << name.at(out_ids_[k]) << ");\n";
  os << "      }\n      i += len;\n    }\n";
  if (red) {
    os << "    part[task] = static_cast<double>(acc);\n  }\n";
    os << "  for (int64_t ro = 0; ro < NOUT; ++ro) {\n    double r = part[ro * CPR];\n";
    os << "    for (int64_t c = 1; c < CPR; ++c) r = ";
    if (reduce_ == "amax") os << "tt_max(r, part[ro * CPR + c]);\n";
    else if (reduce_ == "amin") os << "tt_min(r, part[ro * CPR + c]);\n";
    else os << "r + part[ro * CPR + c];\n";
    os << "    out0[ro] = static_cast<T>(" << (reduce_ == "mean" ? "r / double(RLEN)" : "r") << ");\n  }\n}\n";
  } else {
    os << "  }\n}\n";
  }
  return os.str();
}

// The same group as a CUDA kernel (compiled by NVRTC): `tt_kernel(in0, ..., out0, ...)`, the
// operands as typed pointers. Elementwise: a grid-stride loop, one element per thread. With a
// reduction tail: one block of kCudaBlock threads per output row (grid-stride over the rows), each
// thread accumulating a strided slice of the row, then a tree in shared memory, in double.
std::string FusedKernel::generate_cuda() const {
  const size_t R = shape_.size();
  const int64_t N = shape_numel(shape_);
  const bool red = !reduce_.empty();
  bool any_bc = std::find(in_broadcast_.begin(), in_broadcast_.end(), true) != in_broadcast_.end();
  const int64_t inner = R == 0 ? 1 : (any_bc ? shape_[R - 1] : N);
  std::ostringstream os;
  os << kCudaPrelude << kMath() << "typedef " << (dtype_ == DType::Float64 ? "double" : "float") << " T;\n";
  os << "extern \"C\" __global__ void __launch_bounds__(" << kCudaBlock << ") tt_kernel(";
  for (size_t k = 0; k < in_ids_.size(); ++k)
    os << (k ? ", " : "") << "const " << ctype(in_dtypes_[k]) << (aliasing_ ? "* in" : "* __restrict__ in") << k;
  for (size_t k = 0; k < out_ids_.size(); ++k)
    os << (k + in_ids_.size() ? ", " : "") << ctype(out_dtypes_[k]) << (aliasing_ ? "* out" : "* __restrict__ out") << k;
  os << ") {\n";
  os << "  const long long N = " << N << "LL, INNER = " << std::max<int64_t>(inner, 1) << "LL;\n";
  std::vector<Load> ld = loads();
  auto emit_loads = [&](const std::string& ind) {
    os << ind << "const long long o = i / INNER, j0 = i - o * INNER;\n" << ind << "(void)o; (void)j0;\n";
    for (size_t k = 0; k < in_ids_.size(); ++k) {
      std::string ks = std::to_string(k);
      std::string at = !ld[k].broadcast ? "i" : "(" + ld[k].base + (ld[k].column ? ") + j0" : ")");
      os << ind << "const " << ctype(in_dtypes_[k]) << " x" << k << " = in" << ks << "[" << at << "];\n";
    }
  };
  if (!red) {
    os << "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < N;"
          " i += (long long)gridDim.x * blockDim.x) {\n";
    emit_loads("    ");
    auto name = emit_body(os, "    ");
    for (size_t k = 0; k < out_ids_.size(); ++k) os << "    out" << k << "[i] = " << name.at(out_ids_[k]) << ";\n";
    os << "  }\n}\n";
    return os.str();
  }
  const int64_t rlen = std::max<int64_t>(reduce_len_, 1);
  bool is_max = reduce_ == "amax", is_min = reduce_ == "amin";
  std::string combine = is_max ? "tt_max(a, b)" : is_min ? "tt_min(a, b)" : "a + b";
  os << "  const long long RLEN = " << rlen << "LL, NOUT = N / RLEN;\n";
  os << "  __shared__ double part[" << kCudaBlock << "];\n";
  os << "  for (long long ro = blockIdx.x; ro < NOUT; ro += gridDim.x) {\n";
  os << "    T acc = " << (is_max ? "-TT_INF" : is_min ? "TT_INF" : "T(0)") << ";\n";
  os << "    for (long long i = ro * RLEN + threadIdx.x; i < (ro + 1) * RLEN; i += blockDim.x) {\n";
  emit_loads("      ");
  auto name = emit_body(os, "      ");
  os << "      " << accumulate(name) << "\n    }\n";
  os << "    part[threadIdx.x] = (double)acc;\n    __syncthreads();\n";
  os << "    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n";
  os << "      if (threadIdx.x < s) {\n        const double a = part[threadIdx.x], b = part[threadIdx.x + s];\n";
  os << "        part[threadIdx.x] = " << combine << ";\n      }\n      __syncthreads();\n    }\n";
  os << "    if (threadIdx.x == 0) out0[ro] = (T)(" << (reduce_ == "mean" ? "part[0] / (double)RLEN" : "part[0]") << ");\n";
  os << "    __syncthreads();\n  }\n}\n";
  return os.str();
}

}  // namespace tt::graph
