// typedtensor._C: the pybind11 bindings of the C++ core (bindings only; no op logic here).
#include "convert.h"
#include "typedtensor/build_info.h"
#include "typedtensor/gil.h"

namespace ttpy {
void bind_graph(py::module_& m);  // bind_graph.cpp
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
  ttpy::register_errors(m);
  ttpy::bind_types(m);
  ttpy::bind_tensor(m);
  ttpy::bind_functions(m);
  ttpy::bind_graph(m);
  ttpy::bind_autograd(m);
  ttpy::bind_cuda(m);
}
