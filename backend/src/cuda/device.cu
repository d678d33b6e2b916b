// Device discovery, synchronisation and host<->device copies.
#include <mutex>

#include "common.cuh"

namespace tt::cuda {
namespace {
cudaError_t g_last = cudaSuccess;
std::once_flag g_count_once;
int g_count = 0;
}  // namespace

void throw_cuda(cudaError_t e, const char* what) {
  cudaGetLastError();  // clear a non-sticky error so later calls can proceed
  throw std::runtime_error(std::string("[") + what + "] CUDA error: " + cudaGetErrorName(e) + " (" +
                           cudaGetErrorString(e) + ")");
}

int device_count() {
  std::call_once(g_count_once, [] {
    int n = 0;
    g_last = cudaGetDeviceCount(&n);
    if (g_last != cudaSuccess) {
      // cudaErrorInsufficientDriver / cudaErrorNoDevice / init errors all mean "no usable device".
      cudaGetLastError();
      n = 0;
    }
    g_count = n;
  });
  return g_count;
}

std::string last_status() {
  device_count();
  return cudaGetErrorString(g_last);
}

int sm_count() {
  static const int n = [] {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess || v <= 0) v = 80;
    return v;
  }();
  return n;
}

void memcpy_h2d(void* dst, const void* src, size_t nbytes) {
  check(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, kStream), "to cuda");
  // pageable host memory: wait so the caller may free or change `src` right away
  check(cudaStreamSynchronize(kStream), "to cuda");
}

void memcpy_d2h(void* dst, const void* src, size_t nbytes) {
  check(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, kStream), "to cpu");
  check(cudaStreamSynchronize(kStream), "to cpu");
}

void memcpy_d2d(void* dst, const void* src, size_t nbytes) {
  check(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, kStream), "copy");
}

void synchronize() {
  if (device_count() == 0) return;
  check(cudaDeviceSynchronize(), "synchronize");
}

}  // namespace tt::cuda
