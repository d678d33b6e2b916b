#pragma once
// One element converted between any two dtypes, with the semantics every copy, fill and clamp
// shares: bool is "!= 0", halves go through float, float -> int saturates (NaN -> INT_MIN, as torch
// gives on x86) because an out-of-range float -> int conversion is undefined behaviour in C++.
#include <limits>
#include <type_traits>

#include "typedtensor/dtype.h"

namespace tt::cpu {

template <class To, class From>
inline To cast_value(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    // compared in the source type (a float64 subnormal rounds to 0.0f but is not zero)
    if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) return static_cast<float>(v) != 0.0f;
    else return v != From(0);
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return static_cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (!(v == v)) return std::numeric_limits<To>::min();
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    if (v <= static_cast<From>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace tt::cpu
