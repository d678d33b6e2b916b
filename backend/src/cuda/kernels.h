#pragma once
// Host entry points of the CUDA kernels (one .cu file per family). Same contracts as the CPU
// kernels in src/cpu/kernels.h; backend.cu puts them in the DeviceKernels table.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "typedtensor/device.h"
#include "typedtensor/ops.h"

namespace tt::cuda {

// the kernels of NOTE [ One kernel list ] (typedtensor/kernel_list.h), one .cu file per family:
// elementwise.cu, copy.cu, reduce.cu, rowwise.cu, blas.cu, conv.cu, conv_backward.cu, index.cu, random.cu
#define TT_CUDA_KERNEL_DECL(ret, name, params, args) ret name params;
TT_DEVICE_KERNELS(TT_CUDA_KERNEL_DECL)
#undef TT_CUDA_KERNEL_DECL

// ---- device.cu / allocator.cu ----
int device_count();
std::string last_status();
std::shared_ptr<Storage> allocate(size_t nbytes, Device d);
void memcpy_h2d(void* dst, const void* src, size_t nbytes);
void memcpy_d2h(void* dst, const void* src, size_t nbytes);
void memcpy_d2d(void* dst, const void* src, size_t nbytes);
void synchronize();
size_t memory_allocated();
size_t max_memory_allocated();
size_t memory_reserved();
void reset_peak_memory_stats();
void empty_cache();

// ---- blas.cu (cuBLAS, loaded at run time) ----
// C[i] = op(A[i]) @ op(B[i]) on raw row-major device buffers (used by conv2d).
void gemm_raw(DType dt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, int64_t sa,
              const void* b, int64_t ldb, int64_t sb, void* c, int64_t ldc, int64_t sc, int64_t batch);
bool cublas_available();
std::string cublas_status();  // where it was loaded from, or why it was not
void set_cublas_search_path(const std::string& dirs);  // ':'-separated folders tried before the default
std::string library_search_path();  // those folders (NVRTC is looked for there too)

// ---- nvrtc.cu (graph mode's generated kernels; NVRTC loaded at run time) ----
void* load_generated(const std::string& source, const std::string& cache_dir, std::string* why);
void launch_generated(void* kernel, std::vector<void*>& args, int64_t grid, int block);
std::string nvrtc_status();  // where NVRTC was loaded from, or why it was not
bool allow_tf32();

// ---- random.cu (Philox4x32-10): the generator ----
void seed(uint64_t s);
uint64_t seed_value();

// ---- backend.cu ----
void register_backend();  // fills tt::cuda_kernels(); called when typedtensor._C is imported

}  // namespace tt::cuda
