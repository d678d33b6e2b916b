#pragma once
#include <string>

namespace tt {
// Facts about how the core was compiled (reported by typedtensor._C.build_info()).
bool has_openmp();
std::string blas_name();
}  // namespace tt
