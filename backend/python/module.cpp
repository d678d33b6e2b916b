// typedtensor._C: the pybind11 bindings of the C++ core (bindings only; no op logic here).
#include "convert.h"
#include "typedtensor/build_info.h"
#include "typedtensor/gil.h"
#include "typedtensor/op_info.h"

namespace ttpy {
void bind_graph(py::module_& m);  // bind_graph.cpp
void bind_linalg(py::module_& m);  // bind_linalg.cpp
}

PYBIND11_MODULE(_C, m) {
  m.doc() = "typedtensor C++ core";
  m.attr("__version__") = "0.1.0";
  m.def("build_info", [] {
    py::dict d;
    d["openmp"] = tt::has_openmp();
    d["blas"] = tt::blas_name();
    return d;
  });
  // long CPU kernels let other Python threads run (NOTE [ The GIL ] in typedtensor/gil.h)
  tt::set_gil_hooks({[]() -> void* { return PyGILState_Check() ? static_cast<void*>(PyEval_SaveThread()) : nullptr; },
                     [](void* token) { PyEval_RestoreThread(static_cast<PyThreadState*>(token)); }});
  // The backend's op lists (generated/ops.inc), for the tests that hold them to the op table.
  m.def("_backend_ops", [] {
    static const char* kinds[] = {"elementwise", "view", "strided_view", "reduction", "index", "other"};
    static const char* rules[] = {"same", "float", "float_only", "accumulate", "compare", "logical", "integral"};
    static const char* devices[] = {"cuda", "host_fallback", "cpu_only"};
    py::list out;
    auto add = [&](const char* family, const tt::OpInfo& i) {
      py::dict d;
      d["name"] = i.name;
      d["family"] = family;
      d["kind"] = kinds[static_cast<int>(i.kind)];
      d["dtype_rule"] = rules[static_cast<int>(i.dtype)];
      d["differentiable"] = i.differentiable;
      d["device"] = devices[static_cast<int>(i.device)];
      d["saveable"] = i.saveable;
      d["fusion"] = i.fusion;
      out.append(d);
    };
    for (const auto& i : tt::detail::kUnaryInfo) add("unary", i);
    for (const auto& i : tt::detail::kBinaryInfo) add("binary", i);
    for (const auto& i : tt::detail::kReduceInfo) add("reduce", i);
    for (const auto& i : tt::detail::kPrimitiveInfo) add("primitive", i);
    return out;
  });
  m.def("_check_output_types", &tt::set_check_output_types, py::arg("on"));
  ttpy::install_source_locator();
  ttpy::register_errors(m);
  ttpy::bind_types(m);
  ttpy::bind_tensor(m);
  ttpy::bind_functions(m);
  ttpy::bind_graph(m);
  ttpy::bind_linalg(m);
  ttpy::bind_autograd(m);
  ttpy::bind_cuda(m);
  ttpy::bind_amp(m);
}
