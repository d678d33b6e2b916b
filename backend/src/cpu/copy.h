#pragma once
// Host copy/cast between two same-shape CPU tensors (cpu::copy does the device dispatch first).
#include "typedtensor/tensor.h"

namespace tt::cpu {

void copy_host(const Tensor& dst, const Tensor& src);

}  // namespace tt::cpu
