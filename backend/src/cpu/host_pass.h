#pragma once
// NOTE [ Host passes for kernels without a CUDA version ]
// A few kernels (the conv/pool/activation backward kernels, index_add) have no CUDA version yet.
// For CUDA operands they run on host copies: the inputs are downloaded, the CPU kernel writes a
// host output, and that is uploaded into the device output. Every VJP therefore works on the
// device (slowly) instead of failing; docs/backend.md lists these kernels.
#include "kernels.h"
#include "typedtensor/device.h"

namespace tt::cpu {

template <class F>
void host_pass(const Tensor& out, F&& kernel) {
  Tensor h = empty(out.shape(), out.dtype(), Device{});
  kernel(h);
  copy(out, h);
}

}  // namespace tt::cpu
