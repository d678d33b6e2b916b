// The LAPACK primitives (typedtensor/linalg.h) as private functions of _C, and LinAlgError; the
// public torch.linalg surface is written over them in typedtensor/linalg.py.
#include "convert.h"
#include "typedtensor/linalg.h"

namespace ttpy {
namespace {
py::tuple as_tuple(const tt::TensorList& ts) {
  py::tuple t(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) t[i] = py::cast(ts[i]);
  return t;
}
}  // namespace

void bind_linalg(py::module_& m) {
  // torch.linalg.LinAlgError is a RuntimeError; typedtensor.linalg re-exports this one
  py::register_exception<tt::LinAlgError>(m, "LinAlgError", PyExc_RuntimeError);
  m.def("_linalg_solve_ex", [](const tt::Tensor& A, const tt::Tensor& B, bool check_errors, const std::string& op) {
    return as_tuple(tt::linalg_solve_ex(A, B, check_errors, op));
  }, py::arg("A"), py::arg("B"), py::arg("check_errors"), py::arg("op"));
  m.def("_linalg_slogdet", [](const tt::Tensor& A, const std::string& op) { return as_tuple(tt::linalg_slogdet(A, op)); },
        py::arg("A"), py::arg("op"));
  m.def("_linalg_cholesky_ex", [](const tt::Tensor& A, bool check_errors, const std::string& op) {
    return as_tuple(tt::linalg_cholesky_ex(A, check_errors, op));
  }, py::arg("A"), py::arg("check_errors"), py::arg("op"));
  m.def("_linalg_solve_triangular", &tt::linalg_solve_triangular, py::arg("A"), py::arg("B"), py::arg("upper"),
        py::arg("unitriangular"));
  m.def("_linalg_eigh", [](const tt::Tensor& A, bool upper, const std::string& op) {
    return as_tuple(tt::linalg_eigh(A, upper, op));
  }, py::arg("A"), py::arg("upper"), py::arg("op"));
  m.def("_linalg_svd", [](const tt::Tensor& A, bool full_matrices, const std::string& op) {
    return as_tuple(tt::linalg_svd(A, full_matrices, op));
  }, py::arg("A"), py::arg("full_matrices"), py::arg("op"));
  m.def("_linalg_qr", [](const tt::Tensor& A, const std::string& mode) { return as_tuple(tt::linalg_qr(A, mode)); },
        py::arg("A"), py::arg("mode"));
}

}  // namespace ttpy
