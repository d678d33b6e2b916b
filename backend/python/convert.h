#pragma once
// Conversions between Python objects and core types, shared by the binding files.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <optional>

#include "typedtensor/device.h"
#include "typedtensor/ops.h"

namespace py = pybind11;

namespace ttpy {
using tt::DType;
using tt::Scalar;
using tt::Shape;
using tt::Tensor;

// dtype and device objects (singletons created at module init)
struct DTypeObj {
  DType d;
};
struct DeviceObj {
  tt::Device dev;
  bool indexed = true;  // false for torch.device("cuda"): no index given (repr, str, index, ==)
};
py::object dtype_object(DType d);
std::optional<DType> dtype_from(py::handle h);  // None -> nullopt; dtype, numpy dtype, type, str
DType dtype_required(py::handle h, const char* what);  // as dtype_from, None raising TypeError
DType dtype_or(py::handle h, DType def);
DType dtype_from_numpy(const py::dtype& dt);
py::dtype numpy_dtype(DType d);
tt::Device device_from(py::handle h);
py::object device_object(const tt::Device& d);
// device= of a creation function: allocations inside the call go there (a DeviceScope), and
// results built on the host (arange, eye, ...) are moved there by placed().
inline tt::Device device_arg(py::handle device, tt::Device dflt = {}) { return device.is_none() ? dflt : device_from(device); }
inline Tensor placed(Tensor t, tt::Device d) { return t.device() == d ? t : tt::to_device(t, d); }
Tensor with_grad(Tensor t, bool requires_grad);  // requires_grad= of a creation function

// typedtensor._C.Tensor's type object, recorded once by bind_tensor (nullptr before that), so
// type checks on the hot paths compare against it instead of asking pybind11's registry.
void set_tensor_type(py::handle cls);
PyTypeObject* tensor_type();
bool is_tensor(py::handle h);
bool scalar_from(py::handle h, Scalar* out);  // Python/numpy bool/int/float
Scalar scalar_arg(py::handle h, const char* what);
Shape shape_from_args(const py::args& args, const char* op);  // f(2, 3) or f((2, 3))
// f(2, 3), f((2, 3)) or f(size=(2, 3)), as torch's factories take them
Shape shape_from_args_or_size(const py::args& args, const py::object& size, const char* op);
Shape shape_from(py::handle h, const char* op);
tt::OptDims dims_from(py::handle h);
// The same where the argument is required: None raises TypeError naming `what` (dereferencing the
// empty optional that dims_from / dtype_from give for None was undefined behaviour: a crash).
tt::Dims dims_required(py::handle h, const char* what);
std::optional<int64_t> opt_int(py::handle h);
std::pair<int64_t, int64_t> pair_from(py::handle h, const char* what);
// A Tensor from a tensor, scalar (wrapped), numpy array or nested list.
Tensor tensor_from(py::handle h, bool wrap_scalars = true);
tt::TensorList tensors_from(py::handle seq);
py::tuple shape_tuple(const Shape& s);

// numpy / DLPack
Tensor from_numpy(py::array arr);
py::array to_numpy(const Tensor& t);
py::object to_dlpack(const Tensor& t);
Tensor from_dlpack(py::handle obj);
Tensor tensor_data(py::handle data, std::optional<DType> dtype);

// graph capture (trace_hooks.cpp): the user's source line in refusals, and tensors made from host
// data (tt.tensor, from_numpy ...) while a function is traced: `make()` builds the tensor, untraced
// when `data` is the user's host data, which the tracer then refuses to freeze into the graph
void install_source_locator();
Tensor host_tensor(py::handle data, const char* what, const std::function<Tensor()>& make);
// item(), tolist(), numpy() ... of a traced input or a value computed from one: refused while tracing
void check_host_read(const Tensor& t, const char* what);

// indexing
py::object getitem(const Tensor& t, py::handle key);
void setitem(Tensor& t, py::handle key, py::handle value);

py::object item(const Tensor& t);

void register_errors(py::module_& m);
void bind_tensor(py::module_& m);
void bind_functions(py::module_& m);
void bind_autograd(py::module_& m);  // after bind_tensor
void bind_cuda(py::module_& m);
void bind_amp(py::module_& m);  // bind_amp.cpp: tt.autocast's state
void bind_types(py::module_& m);

}  // namespace ttpy
