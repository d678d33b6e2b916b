// NOTE [ GEMM epilogues ]
// A 2-D matmul whose product only one fused elementwise kernel reads (a layer's bias add and
// activation; in the backward, the activation's mask times the propagated gradient; an optimizer's
// update of a weight from its gradient's GEMM) wrote the whole product to memory, and the kernel
// then read it all back in a second pass. The `epilogue` pass (after `fuse`) merges the two into
// one FusedKernel whose body starts with the matmul: at run time the product's rows are split into
// blocks; a block is computed by one BLAS call into a per-thread scratch buffer the size of the
// block (sized to stay in L2: gemm_block_rows), and the kernel's loop runs on those rows right
// after, reading the product from cache. The product never gets a full-size buffer. A bias rides
// along as one of the loop's (broadcast) operands.
//
// Each block's GEMM packs B again (the BLAS packs it per call). That costs: at one thread on an
// Intel Xeon (MKL and OpenBLAS alike), [256, 1024] x [1024, 1024] in 64-row blocks took 1.2-1.6x
// the time of one call, in 128-row blocks 1.1-1.6x (a loaded machine: the spread is noise), while
// the second pass the epilogue saves is 1-2% of such a GEMM. So blocks are large: half an L2
// (1 MiB of product rows, at least 64 rows), which makes the 256-row layers of an MLP one block
// (the GEMM into a scratch buffer that stays in cache, the kernel right after), and only products
// larger than that are split. MKL's packed-B API (cblas_sgemm_pack / cblas_sgemm_compute) would
// remove the repacking; it is not used yet.
//
// The kernel still reads its other operands and writes its outputs at their full indices, so the
// memory planner, the in-place write-back planner (which refuses the matmul's operands as targets:
// a later block's GEMM still reads them) and the executor treat it as any fused node. Without a
// compiler the kernel is interpreted (matmul, then the ops), and on CUDA the product is
// materialised and the generated kernel runs over it.
#include <algorithm>
#include <atomic>
#include <vector>

#include "../cpu/kernels.h"
#include "../cpu/parallel.h"
#include "fusion.h"
#include "typedtensor/ops.h"

namespace tt::graph {
namespace {

std::atomic<int64_t> g_block_rows{0};  // set_epilogue_block_rows: 0 = sized by gemm_block_rows
// A block of the product: half the L2 of the Xeons measured (2 MiB per core), and at least 64 rows
// (each block's GEMM packs B again: NOTE above)
constexpr int64_t kBlockBytes = int64_t(1) << 20;
constexpr int64_t kMinBlockRows = 64;

// A [rows, cols] matrix as BLAS reads it without a copy (gemm.cpp's rule), else a contiguous copy.
struct BlasOperand {
  Tensor keep;
  bool trans = false;
  int64_t ld = 1;
};
BlasOperand blas_operand(const Tensor& t) {
  const int64_t rows = t.size(0), cols = t.size(1), rs = t.stride(0), cs = t.stride(1);
  if (cols <= 1 && rows <= 1) return {t, false, std::max<int64_t>(cols, 1)};
  if ((cs == 1 || cols == 1) && rs >= std::max<int64_t>(cols, 1)) return {t, false, rs};
  if ((rs == 1 || rows == 1) && cs >= std::max<int64_t>(rows, 1)) return {t, true, cs};
  return {contiguous(t), false, std::max<int64_t>(cols, 1)};
}

// The per-thread scratch block (kept between calls: no allocation or page faults per run).
template <class T>
T* scratch(size_t elems) {
  thread_local std::vector<T> buf;
  if (buf.size() < elems) buf.resize(elems);
  return buf.data();
}

}  // namespace

void set_epilogue_block_rows(int64_t rows) { g_block_rows.store(std::max<int64_t>(rows, 0)); }

int64_t FusedKernel::gemm_block_rows(int64_t m, int64_t n, int64_t itemsize, int threads) {
  if (int64_t forced = g_block_rows.load()) return std::min(forced, std::max<int64_t>(m, 1));
  int64_t rows = kBlockBytes / std::max<int64_t>(n * itemsize, 1);
  rows = std::max<int64_t>(rows / 16 * 16, kMinBlockRows);
  if (threads > 1) {  // at least a block per thread when the rows allow
    const int64_t per = ((m + threads - 1) / threads + 15) / 16 * 16;
    rows = std::min(rows, std::max<int64_t>(per, 16));
  }
  return std::min(rows, std::max<int64_t>(m, 1));
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
  const int threads = get_num_threads();
  const int64_t mb = gemm_block_rows(m, n, static_cast<int64_t>(sizeof(T)), threads);
  const int64_t nblocks = (m + mb - 1) / mb;
  const auto fn = reinterpret_cast<RangeFn>(reinterpret_cast<void*>(fn_));
  std::optional<GilRelease> no_gil;  // NOTE [ The GIL ]
  if (m * n * std::max<int64_t>(k, 1) >= (int64_t(1) << 20)) no_gil.emplace();
  cpu::parallel_for(0, nblocks, 1, [&](int64_t lo, int64_t hi) {
    T* c = scratch<T>(static_cast<size_t>(mb * n));
    std::vector<void*> args = base;
    args[0] = c;
    for (int64_t blk = lo; blk < hi; ++blk) {
      const int64_t r0 = blk * mb, rows = std::min(mb, m - r0);
      if (k == 0) std::fill(c, c + rows * n, T(0));
      else
        cpu::blas_gemm<T>(a.trans, b.trans, rows, n, k, a.trans ? pa + r0 : pa + r0 * a.ld, a.ld, pb, b.ld, T(0), c, n);
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
