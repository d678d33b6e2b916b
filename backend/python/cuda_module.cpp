// typedtensor._C_cuda: bindings of the CUDA backend, imported lazily by typedtensor.cuda.
#include <pybind11/pybind11.h>

#include "typedtensor/cuda_api.h"

PYBIND11_MODULE(_C_cuda, m) {
  m.doc() = "typedtensor CUDA backend";
  m.def("device_count", &tt::cuda::device_count,
        "Number of usable CUDA devices (0 without a driver or device).");
  m.def("last_status", &tt::cuda::last_status, "Status text of the last device query.");
}
