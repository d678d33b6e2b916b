#pragma once
// NOTE [ Host passes for kernels without a CUDA version ]
// A CPU kernel that has no CUDA version can still accept CUDA operands by running on host copies:
// the inputs are downloaded, the CPU kernel writes a host output, and that is uploaded into the
// device output (correct, slow). No kernel needs it at the moment: every entry of the
// DeviceKernels table has a CUDA kernel (backend/src/cuda); new CPU kernels can start here.
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
