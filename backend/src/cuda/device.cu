// Device discovery for the CUDA backend. Kernels are added beside this file (one .cu per family).
#include <cuda_runtime.h>

#include <string>

#include "typedtensor/cuda_api.h"

namespace tt::cuda {
namespace {
cudaError_t g_last = cudaSuccess;
}

int device_count() {
  int n = 0;
  g_last = cudaGetDeviceCount(&n);
  if (g_last != cudaSuccess) {
    // cudaErrorInsufficientDriver / cudaErrorNoDevice / init errors all mean "no usable device".
    cudaGetLastError();  // clear the sticky-free error state
    return 0;
  }
  return n;
}

std::string last_status() { return cudaGetErrorString(g_last); }
}  // namespace tt::cuda
