#pragma once
// Host-side entry points of the CUDA backend (compiled only into typedtensor._C_cuda).
#include <string>

namespace tt::cuda {
// Number of usable CUDA devices; 0 when there is no driver, no device, or the driver is too old.
int device_count();
// Text of the last status returned by the device query ("no error" when it succeeded).
std::string last_status();
}  // namespace tt::cuda
