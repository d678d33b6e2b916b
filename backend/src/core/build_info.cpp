#include "typedtensor/build_info.h"

#include <cblas.h>

namespace tt {
bool has_openmp() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

std::string blas_name() { return std::string("scipy-openblas32 ") + scipy_openblas_get_config(); }
}  // namespace tt
