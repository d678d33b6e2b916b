#pragma once
// Which instruction set the CPU unary math kernels run on (torch.backends.cpu's
// get_cpu_capability): "avx512" where the CPU has it and the wide kernels were built, else "avx2"
// (the baseline build) or "default" off x86.
#include <string>

namespace tt {

std::string cpu_capability();
// "avx512" or "avx2"; throws std::invalid_argument for other names and std::runtime_error when
// this CPU (or this build) has no AVX-512 kernels.
void set_cpu_capability(const std::string& name);

}  // namespace tt
