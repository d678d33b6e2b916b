#pragma once
// Which BLAS runs float32/float64 matrix products on the CPU (NOTE [ BLAS by CPU ] in
// backend/src/cpu/blas_select.cpp): "openblas" (linked, always there) or "mkl" (Intel's, loaded at
// run time where the CPU is Intel's and the library is installed).
#include <string>
#include <vector>

namespace tt {

// The library in use ("openblas" or "mkl"); the choice is made on the first call.
std::string blas_library();
// Libraries that could be chosen on this machine, the linked OpenBLAS first.
std::vector<std::string> blas_available();
// "openblas", "mkl" or "auto" (the default choice); throws std::invalid_argument for other names
// and std::runtime_error when MKL is asked for but cannot be loaded.
void set_blas(const std::string& name);
// Whether the library in use multiplies bfloat16 matrices natively (MKL's bfloat16 GEMM; NOTE
// [ bfloat16 GEMM ] in backend/src/cpu/gemm.cpp); otherwise they are widened to float32 first.
bool blas_has_bf16_gemm();
// Where the Python side found libmkl_rt (tried before the loader's own search path).
void set_blas_mkl_path(const std::string& path);

// torch.set_float32_matmul_precision (NOTE [ float32 matmul precision ] in backend/src/cpu/gemm.cpp):
// Highest (the default) multiplies float32 in float32; High lets cuBLAS use TF32 tensor cores
// (torch.backends.cuda.matmul.allow_tf32 reads and writes this setting); Medium also rounds float32
// operands to bfloat16 on a CPU whose BLAS has a bfloat16 GEMM. One process-wide setting, as torch's.
enum class MatmulPrecision { Highest = 0, High = 1, Medium = 2 };
void set_float32_matmul_precision(MatmulPrecision p);
MatmulPrecision float32_matmul_precision();

}  // namespace tt
