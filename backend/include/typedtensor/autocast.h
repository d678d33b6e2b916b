#pragma once
// Mixed precision at the front end (tt.autocast). NOTE [ Autocast at the front end ]:
// an op with an autocast policy (the op table's `autocast` field, generated into TT_AUTOCAST_OPS)
// starts with TT_AUTOCAST(...). With autocast off that is one read of a thread-local flag and a
// branch. With it on, the op's floating tensor arguments are cast once, by the ordinary
// differentiable cast (to_dtype: gradients come back in each input's own dtype), and the op runs
// again on them with autocast excluded, so the ops it is built from are not cast a second time
// (torch excludes its autocast key the same way). An op without a policy on the call's device type
// runs as it is, and the ops it is built from apply theirs (CPU tensordot lowers through matmul). Casts of float32 leaves that require grad (the
// weights) are cached for the outermost autocast region, as torch's cast cache; not while a
// graph tracer records, so a traced function holds its casts.
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "typedtensor/device.h"
#include "typedtensor/dtype.h"
#include "typedtensor/tensor.h"

namespace tt::autocast {

enum class Policy : unsigned char { None, Lower, Float32, Promote };

struct State {
  bool enabled[2] = {false, false};  // [0] CPU, [1] CUDA
  DType dtype[2] = {DType::BFloat16, DType::Float16};
  bool cache_enabled = true;
  int nesting = 0;   // autocast regions entered and not left (the cache lives for the outermost)
  int excluded = 0;  // > 0 while an op runs on inputs autocast already cast
  bool active = false;  // enabled[0] || enabled[1], kept with them: the one flag the front ends read
};

inline thread_local State tls_state;

inline bool active() { return tls_state.active && tls_state.excluded == 0; }
void set_enabled(bool cuda, bool on);

// The policy of op `name` on CPU (cuda false) or CUDA, from TT_AUTOCAST_OPS.
Policy policy(std::string_view name, bool cuda);
// `t` cast to `to` where autocast casts it: a floating tensor of the call's device type that is not
// float64 and not `to` already (through the cast cache where it applies).
Tensor cast(const Tensor& t, DType to, bool cuda);
void clear_cache();

// What autocast does to one call: `applies` when the op has a policy on the call's device type
// (CUDA when a tensor argument is on CUDA) and autocast is on there; then its floating inputs are
// cast to `to` where `casts`, and the op runs with autocast excluded.
class Plan {
 public:
  Plan(std::string_view name, const std::vector<const Tensor*>& tensors);
  bool applies = false;
  bool cuda = false;
  bool casts = false;
  DType to = DType::Float32;
};

class Excluded {  // the op's own body: autocast off
 public:
  Excluded() { ++tls_state.excluded; }
  ~Excluded() { --tls_state.excluded; }
  Excluded(const Excluded&) = delete;
  Excluded& operator=(const Excluded&) = delete;
};

namespace detail {
inline void collect(std::vector<const Tensor*>& out, const Tensor& t) { out.push_back(&t); }
inline void collect(std::vector<const Tensor*>& out, const Tensor* t) {
  if (t) out.push_back(t);
}
inline void collect(std::vector<const Tensor*>& out, const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) out.push_back(&t);
}
template <class T>
void collect(std::vector<const Tensor*>&, const T&) {}

// An optional tensor argument (`const Tensor* bias`) cast: it keeps the cast tensor alive for the call.
struct OptionalCast {
  Tensor held;
  bool present = false;
  operator const Tensor*() const { return present ? &held : nullptr; }  // NOLINT: converts on purpose
};

inline Tensor cast_arg(const Plan& p, const Tensor& t) { return p.casts ? cast(t, p.to, p.cuda) : t; }
inline OptionalCast cast_arg(const Plan& p, const Tensor* t) {
  if (!t) return {};
  return {cast_arg(p, *t), true};
}
inline std::vector<Tensor> cast_arg(const Plan& p, const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(cast_arg(p, t));
  return out;
}
template <class T, class = std::enable_if_t<!std::is_convertible_v<const T&, const Tensor&> &&
                                            !std::is_same_v<T, const Tensor*> && !std::is_same_v<T, std::vector<Tensor>>>>
const T& cast_arg(const Plan&, const T& v) {
  return v;
}
}  // namespace detail

template <class... Args>
Plan plan(std::string_view name, const Args&... args) {
  std::vector<const Tensor*> tensors;
  (detail::collect(tensors, args), ...);
  return Plan(name, tensors);
}

// `fn(args...)` with the tensor arguments cast as `p` says and autocast excluded.
template <class Fn, class... Args>
auto call(const Plan& p, Fn&& fn, const Args&... args) {
  Excluded scope;
  return fn(detail::cast_arg(p, args)...);
}

}  // namespace tt::autocast

// The first statement of an op's front-end function with an autocast policy (NOTE [ Autocast at the
// front end ]): `TT_AUTOCAST("matmul", matmul, a, b);`.
#define TT_AUTOCAST(name, fn, ...)                                                                   \
  if (::tt::autocast::active())                                                                      \
    if (const ::tt::autocast::Plan tt_autocast_plan = ::tt::autocast::plan(name, __VA_ARGS__);        \
        tt_autocast_plan.applies)                                                                    \
  return ::tt::autocast::call(                                                                       \
      tt_autocast_plan, [&](const auto&... tt_autocast_args) { return fn(tt_autocast_args...); }, \
      __VA_ARGS__)
