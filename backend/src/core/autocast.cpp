// tt.autocast's state, policies and cast cache (NOTE [ Autocast at the front end ] in autocast.h).
#include "typedtensor/autocast.h"

#include <unordered_map>

#include "typedtensor/generated/ops.inc"
#include "typedtensor/ops.h"
#include "typedtensor/primitive.h"

namespace tt::autocast {
namespace {
struct PolicyRow {
  std::string_view name;
  Policy cpu, cuda;
};
#define TT_AUTOCAST_ROW(name, cpu, cuda) PolicyRow{name, Policy::cpu, Policy::cuda},
constexpr PolicyRow kPolicies[] = {TT_AUTOCAST_OPS(TT_AUTOCAST_ROW)};
#undef TT_AUTOCAST_ROW

struct CacheEntry {
  Tensor source;  // held so that its address is not reused while the entry lives
  Tensor cast;
};
thread_local std::unordered_map<const TensorImpl*, CacheEntry> tls_cache;

bool is_leaf(const Tensor& t) { return !t.impl()->autograd || !t.impl()->autograd->grad_fn; }
}  // namespace

void set_enabled(bool cuda, bool on) {
  tls_state.enabled[cuda ? 1 : 0] = on;
  tls_state.active = tls_state.enabled[0] || tls_state.enabled[1];
}

Policy policy(std::string_view name, bool cuda) {
  for (const PolicyRow& r : kPolicies)
    if (r.name == name) return cuda ? r.cuda : r.cpu;
  return Policy::None;
}

void clear_cache() { tls_cache.clear(); }

Tensor cast(const Tensor& t, DType to, bool cuda) {
  const DType from = t.dtype();
  if (from == to || !is_floating(from) || from == DType::Float64 || on_cuda(t) != cuda) return t;
  const State& s = tls_state;
  const bool cacheable = s.cache_enabled && to == s.dtype[cuda ? 1 : 0] && from == DType::Float32 &&
                         t.requires_grad() && is_leaf(t) && current_tracer() == nullptr;
  if (!cacheable) return to_dtype(t, to);
  auto it = tls_cache.find(t.impl());
  if (it != tls_cache.end()) return it->second.cast;
  Tensor r = to_dtype(t, to);
  tls_cache.emplace(t.impl(), CacheEntry{t, r});
  return r;
}

Plan::Plan(std::string_view name, const std::vector<const Tensor*>& tensors) {
  for (const Tensor* t : tensors) cuda = cuda || on_cuda(*t);
  const int dev = cuda ? 1 : 0;
  if (!tls_state.enabled[dev]) return;
  const Policy pol = policy(name, cuda);
  applies = pol != Policy::None;
  switch (pol) {
    case Policy::None: return;
    case Policy::Lower: to = tls_state.dtype[dev]; casts = true; return;
    case Policy::Float32: to = DType::Float32; casts = true; return;
    case Policy::Promote: {
      // the widest floating dtype among the eligible inputs; two different half types meet in float32
      bool seen = false;
      for (const Tensor* t : tensors) {
        const DType d = t->dtype();
        if (!is_floating(d) || d == DType::Float64 || on_cuda(*t) != cuda) continue;
        if (!seen) to = d;
        else if (d != to) to = DType::Float32;
        seen = true;
      }
      casts = seen;
      return;
    }
  }
}

}  // namespace tt::autocast
