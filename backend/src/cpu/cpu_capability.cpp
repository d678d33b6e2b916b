// Which unary kernels run: the AVX-512 copies where the CPU has them, else the baseline build.
// Compiled for the baseline: the check itself must run on any CPU.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "typedtensor/cpu_capability.h"
#include "unary_wide.h"

namespace tt::cpu {
namespace {

bool cpu_runs_wide_kernels() {
#if defined(TT_WIDE_UNARY) && (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
  // __builtin_cpu_supports also checks that the OS saves the ZMM state (XGETBV)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

bool wanted_by_environment() {
  const char* v = std::getenv("TYPEDTENSOR_CPU_CAPABILITY");
  return v == nullptr || std::strcmp(v, "avx2") != 0;  // like torch's ATEN_CPU_CAPABILITY=avx2
}

std::atomic<bool>& wide_flag() {
  static std::atomic<bool> flag{cpu_runs_wide_kernels() && wanted_by_environment()};
  return flag;
}

}  // namespace

bool wide_unary_enabled() { return wide_flag().load(std::memory_order_relaxed); }

bool set_wide_unary(bool on) {
  bool v = on && cpu_runs_wide_kernels();
  wide_flag().store(v);
  return v;
}

const char* cpu_capability() {
  if (wide_unary_enabled()) return "avx512";
#if defined(__AVX2__)
  return "avx2";
#else
  return "default";
#endif
}

}  // namespace tt::cpu

namespace tt {

std::string cpu_capability() { return cpu::cpu_capability(); }

void set_cpu_capability(const std::string& name) {
  if (name == "avx2") {
    cpu::set_wide_unary(false);
  } else if (name == "avx512") {
    if (!cpu::set_wide_unary(true))
      throw std::runtime_error("this CPU, or this build, has no AVX-512 kernels");
  } else {
    throw std::invalid_argument("unknown CPU capability '" + name + "' (expected 'avx2' or 'avx512')");
  }
}

}  // namespace tt
