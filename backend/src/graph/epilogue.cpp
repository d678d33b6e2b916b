// NOTE [ GEMM epilogues ]
// A 2-D matmul whose product only one fused elementwise kernel reads (a layer's bias add and
// activation; in the backward, an activation's derivative times the propagated gradient; a loss's
// first elementwise ops) wrote the whole product to memory, and the kernel then read it all back in
// a second pass. The `epilogue` pass (after `fuse`) merges the two into one FusedKernel whose body
// starts with the matmul: at run time the product's rows are split into blocks; a block is computed
// by one BLAS call into a scratch buffer the size of the block, and the kernel's loop runs on those
// rows right after, reading the product from cache. The product never gets a full-size buffer. A
// bias rides along as one of the loop's (broadcast) operands.
//
// A BLAS call packs B (into its own panel layout) every time, so blocks cost: at one thread on an
// Intel Xeon, [1024, 1024] x [1024, 1024] in 64- or 128-row blocks took 1.2-1.5x one call's time
// with MKL's sgemm, and OpenBLAS lost 15-20% even with 256-row blocks -- while the second pass the
// epilogue saves is 1-2% of such a GEMM. So:
// - with MKL, B is packed once per run (cblas_sgemm_pack) and every block runs cblas_sgemm_compute
//   on it; the blocks are 1 MiB of product rows (half the 2 MiB L2 of the Xeons measured), at least
//   64 rows. With the packed B, 64-row blocks took 1.0-1.13x and 128-row ones 1.0-1.07x one call.
// - without the packed API (OpenBLAS), one block per thread: at one thread the whole GEMM, then the
//   kernel (the product in a scratch buffer from the allocator's cache); with threads, the row
//   blocks the GEMM would be split into anyway (NOTE [ One thread pool ] in cpu/kernels.h).
// A product of one block (an MLP's 256-row layers) is never packed. docs/graph-mode.md ("GEMM
// epilogues") has the figures.
//
// The kernel still reads its other operands and writes its outputs at their full indices, so the
// memory planner, the in-place write-back planner (which refuses the matmul's operands as targets:
// a later block's GEMM still reads them) and the executor treat it as any fused node. Without a
// compiler the kernel is interpreted (matmul, then the ops), and on CUDA the product is
// materialised and the generated kernel runs over it.
#include <algorithm>
#include <atomic>
#include <optional>
#include <type_traits>
#include <vector>

#include "../cpu/blas_select.h"
#include "../cpu/kernels.h"
#include "../cpu/parallel.h"
#include "fusion.h"
#include "typedtensor/gil.h"
#include "typedtensor/ops.h"

namespace tt::graph {
namespace {

std::atomic<int64_t> g_block_rows{0};  // set_epilogue_block_rows: 0 = sized by gemm_block_rows
std::atomic<bool> g_packed{true};      // set_epilogue_packed: MKL's packed B where MKL is the BLAS
constexpr int64_t kBlockBytes = int64_t(1) << 20;  // product rows per block with a packed B
constexpr int64_t kMinBlockRows = 64;

template <class T>
const cpu::PackedGemm<T>& packed_fns() {
  if constexpr (std::is_same_v<T, float>) return cpu::gemm_fns().spacked;
  else return cpu::gemm_fns().dpacked;
}

// A [rows, cols] matrix as BLAS reads it without a copy (cpu::blas_readable), else a contiguous copy.
struct BlasOperand {
  Tensor keep;
  bool trans = false;
  int64_t ld = 1;
};
BlasOperand blas_operand(const Tensor& t) {
  BlasOperand r{t};
  if (cpu::blas_readable(t.size(0), t.size(1), t.stride(0), t.stride(1), &r.trans, &r.ld)) return r;
  return {contiguous(t), false, std::max<int64_t>(t.size(1), 1)};
}

}  // namespace

void set_epilogue_block_rows(int64_t rows) { g_block_rows.store(std::max<int64_t>(rows, 0)); }
void set_epilogue_packed(bool on) { g_packed.store(on); }

int64_t FusedKernel::gemm_block_rows(int64_t m, int64_t n, int64_t itemsize, int threads, bool packed) {
  m = std::max<int64_t>(m, 1);
  if (int64_t forced = g_block_rows.load()) return std::min(forced, m);
  threads = std::max(threads, 1);
  const int64_t per_thread = (m + threads - 1) / threads;
  if (!packed) return per_thread;  // GEMM, then the kernel (per thread's rows)
  int64_t rows = kBlockBytes / std::max<int64_t>(n * itemsize, 1);
  rows = std::max<int64_t>(rows / 16 * 16, kMinBlockRows);
  if (threads > 1) rows = std::min(rows, (per_thread + 15) / 16 * 16);  // a block per thread at least
  return std::min(rows, m);
}

template <class T>
void FusedKernel::run_gemm_blocks(const TensorList& in, const TensorList& out) {
  const Tensor &A = in.at(0), &B = in.at(1);
  const int64_t m = A.size(0), k = A.size(1), n = B.size(1);
  if (m == 0 || n == 0) return;
  const BlasOperand a = blas_operand(A), b = blas_operand(B);
  const T* pa = a.keep.template data<T>();
  const T* pb = b.keep.template data<T>();
  TensorList keep;
  std::vector<void*> base(1, nullptr);  // loop input 0: the block's product, set per block
  for (size_t i = 2; i < in.size(); ++i) {
    keep.push_back(in[i].is_contiguous() ? in[i] : contiguous(in[i]));
    base.push_back(keep.back().raw());
  }
  for (const Tensor& t : out) base.push_back(t.raw());
  // NOTE [ float32 matmul precision ] (cpu/gemm.cpp): "medium" rounds A and B to bfloat16 once
  std::optional<cpu::Bf16Matrices> a16, b16;
  if constexpr (std::is_same_v<T, float>)
    if (k > 0 && cpu::float32_gemm_in_bf16()) {
      a16 = cpu::round_to_bf16(pa, a.trans, a.ld, m, k);
      b16 = cpu::round_to_bf16(pb, b.trans, b.ld, k, n);
    }
  const cpu::PackedGemm<T>& pk = packed_fns<T>();
  const bool can_pack = k > 0 && g_packed.load() && pk.available() && !a16;
  const int threads = get_num_threads();
  const int64_t mb = gemm_block_rows(m, n, static_cast<int64_t>(sizeof(T)), threads, can_pack);
  const int64_t nblocks = (m + mb - 1) / mb;
  const auto fn = reinterpret_cast<RangeFn>(reinterpret_cast<void*>(fn_));
  std::optional<GilRelease> no_gil;  // NOTE [ The GIL ]
  if (m * n * std::max<int64_t>(k, 1) >= (int64_t(1) << 20)) no_gil.emplace();
  Tensor packed;  // B in MKL's packed layout, shared by the blocks
  if (can_pack && nblocks > 1) {
    const auto mi = static_cast<blasint>(m), ni = static_cast<blasint>(n), ki = static_cast<blasint>(k);
    const size_t bytes = pk.get_size(162, mi, ni, ki);
    packed = empty(Shape{static_cast<int64_t>(bytes / sizeof(T)) + 1}, A.dtype());
    pk.pack(101, 162, b.trans ? 112 : 111, mi, ni, ki, T(1), pb, static_cast<blasint>(b.ld), packed.template data<T>());
  }
  const T* pp = packed.defined() ? packed.template data<T>() : nullptr;
  cpu::parallel_for(0, nblocks, 1, [&](int64_t lo, int64_t hi) {
    Tensor scratch = empty(Shape{mb * n}, A.dtype());  // from the allocator's cache after the first run
    T* c = scratch.template data<T>();
    std::vector<void*> args = base;
    args[0] = c;
    for (int64_t blk = lo; blk < hi; ++blk) {
      const int64_t r0 = blk * mb, rows = std::min(mb, m - r0);
      const T* ablk = a.trans ? pa + r0 : pa + r0 * a.ld;
      if (k == 0) std::fill(c, c + rows * n, T(0));
      else if (a16) {
        if constexpr (std::is_same_v<T, float>)
          cpu::blas_gemm_bf16(a.trans, b.trans, rows, n, k, a16->data() + (a.trans ? r0 : r0 * a16->ld), a16->ld,
                              b16->data(), b16->ld, 0.0f, c, n);
      } else if (pp)
        pk.compute(101, a.trans ? 112 : 111, 151, static_cast<blasint>(rows), static_cast<blasint>(n), static_cast<blasint>(k),
                   ablk, static_cast<blasint>(a.ld), pp, static_cast<blasint>(b.ld), T(0), c, static_cast<blasint>(n));
      else
        cpu::blas_gemm<T>(a.trans, b.trans, rows, n, k, ablk, a.ld, pb, b.ld, T(0), c, n);
      fn(args.data(), r0 * n, (r0 + rows) * n);
    }
  });
}
template void FusedKernel::run_gemm_blocks<float>(const TensorList&, const TensorList&);
template void FusedKernel::run_gemm_blocks<double>(const TensorList&, const TensorList&);

bool epilogue(Graph& g) {
  const std::vector<int> prod = producers(g);
  std::vector<int> uses(g.values.size(), 0);
  for (const Node& n : g.nodes)
    for (int v : n.inputs)
      if (v >= 0) ++uses[v];
  for (int v : g.outputs) uses[v] += 2;
  std::vector<char> drop(g.nodes.size(), 0);
  bool changed = false;
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    Node& f = g.nodes[k];
    auto* fk = dynamic_cast<FusedKernel*>(f.prim.get());
    if (!fk || fk->has_gemm() || fk->reduces() || fk->shape().size() != 2 || shape_numel(fk->shape()) == 0) continue;
    if (fk->dtype() != DType::Float32 && fk->dtype() != DType::Float64) continue;
    for (size_t j = 0; j < f.inputs.size(); ++j) {
      const int v = f.inputs[j];
      const int p = v >= 0 ? prod[v] : -1;
      if (p < 0 || drop[p] || uses[v] != 1 || g.nodes[p].op != "matmul" || !g.nodes[p].attrs) continue;
      const Node& mm = g.nodes[p];
      if (mm.inputs.size() != 2 || mm.outputs.size() != 1 || mm.inputs[0] < 0 || mm.inputs[1] < 0) continue;
      const Value &va = g.values[mm.inputs[0]], &vb = g.values[mm.inputs[1]], &vc = g.values[v];
      if (va.shape.size() != 2 || vb.shape.size() != 2 || vc.shape != fk->shape()) continue;
      if (va.dtype != fk->dtype() || vb.dtype != fk->dtype() || vc.dtype != fk->dtype()) continue;
      std::vector<Node> body{mm};
      body.insert(body.end(), fk->body().begin(), fk->body().end());
      std::vector<int> ins{mm.inputs[0], mm.inputs[1]};
      for (size_t i = 0; i < f.inputs.size(); ++i)
        if (i != j) ins.push_back(f.inputs[i]);
      f.prim = std::make_shared<FusedKernel>(std::move(body), ins, f.outputs, g);
      f.inputs = std::move(ins);
      drop[p] = 1;
      changed = true;
      break;
    }
  }
  if (!changed) return false;
  std::vector<Node> out;
  for (size_t k = 0; k < g.nodes.size(); ++k)
    if (!drop[k]) out.push_back(std::move(g.nodes[k]));
  g.nodes = std::move(out);
  return true;
}

}  // namespace tt::graph
