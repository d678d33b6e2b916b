// Bindings of tt.autocast's thread-local state (backend/include/typedtensor/autocast.h); the
// context manager and its checks are typedtensor/amp/autocast_mode.py.
#include "convert.h"
#include "typedtensor/autocast.h"

namespace ttpy {
namespace {
bool is_cuda_type(const std::string& device_type) {
  if (device_type == "cuda") return true;
  if (device_type == "cpu") return false;
  throw tt::ValueError("autocast: device_type must be 'cpu' or 'cuda', got '" + device_type + "'");
}
}  // namespace

void bind_amp(py::module_& m) {
  namespace ac = tt::autocast;
  m.def("_autocast_is_enabled", [](const std::string& d) { return ac::tls_state.enabled[is_cuda_type(d) ? 1 : 0]; });
  m.def("_autocast_set_enabled", [](const std::string& d, bool on) { ac::set_enabled(is_cuda_type(d), on); });
  m.def("_autocast_get_dtype", [](const std::string& d) { return dtype_object(ac::tls_state.dtype[is_cuda_type(d) ? 1 : 0]); });
  m.def("_autocast_set_dtype", [](const std::string& d, py::handle dtype) {
    ac::tls_state.dtype[is_cuda_type(d) ? 1 : 0] = dtype_required(dtype, "set_autocast_dtype");
  });
  m.def("_autocast_is_cache_enabled", [] { return ac::tls_state.cache_enabled; });
  m.def("_autocast_set_cache_enabled", [](bool on) { ac::tls_state.cache_enabled = on; });
  m.def("_autocast_increment_nesting", [] { return ++ac::tls_state.nesting; });
  m.def("_autocast_decrement_nesting", [] { return --ac::tls_state.nesting; });
  m.def("_autocast_clear_cache", &ac::clear_cache);
  // For the ops written in Python: the same plan and casts as TT_AUTOCAST, then the body excluded.
  m.def("_autocast_active", &ac::active);
  m.def("_autocast_plan", [](const std::string& name, const std::vector<Tensor>& tensors) -> py::object {
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : tensors) ptrs.push_back(&t);
    const ac::Plan p(name, ptrs);
    if (!p.applies) return py::none();
    return py::make_tuple(p.casts ? dtype_object(p.to) : py::none(), p.cuda);
  });
  m.def("_autocast_cast", [](const Tensor& t, py::handle dtype, bool cuda) { return ac::cast(t, dtype_required(dtype, "autocast"), cuda); });
  m.def("_autocast_exclude", [](bool enter) {
    if (enter) ++ac::tls_state.excluded;
    else --ac::tls_state.excluded;
  });
}
}  // namespace ttpy
