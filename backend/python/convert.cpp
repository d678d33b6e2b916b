// Python <-> core conversions, the dtype/device objects, numpy and DLPack exchange, and the
// translation of core exceptions into Python ones.
#include "convert.h"

#include <cstring>
#include <limits>
#include <string>

#include "dlpack.h"

namespace ttpy {

// ---------------- errors ----------------
namespace {
py::object params_dict(const tt::Params& ps) {
  py::dict d;
  for (const auto& [k, v] : ps) {
    std::visit([&](const auto& x) {
      using X = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<X, std::vector<int64_t>>) d[py::str(k)] = py::tuple(py::cast(x));
      else d[py::str(k)] = py::cast(x);
    }, v);
  }
  return std::move(d);
}

// Every run-time ShapeError is worded in one place, typedtensor._runtime.errors.shape_error (the
// registry's message for this call when its rule finds the problem, else the core's own text): the
// core's structured error (op, input shapes, scalar arguments, text) goes there, and what it returns
// is raised.
void raise_shape_error(const tt::ShapeError& e) {
  try {
    py::list shapes;
    for (const auto& s : e.shapes()) shapes.append(shape_tuple(s));
    py::object shape_error = py::module_::import("typedtensor._runtime.errors").attr("shape_error");
    py::object exc = shape_error(e.op(), shapes, params_dict(e.params()), e.what());
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  } catch (py::error_already_set& err) {
    err.restore();  // the formatter itself failed: raise its error
  }
}
}  // namespace

void register_errors(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tt::ShapeError& e) {
      raise_shape_error(e);
    } catch (const tt::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const tt::ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const tt::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const tt::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    }
  });
}

// ---------------- dtype / device ----------------
namespace {
// Leaked on purpose: destroying Python objects after the interpreter is gone crashes at exit.
py::handle g_dtypes[tt::kNumDTypes];
py::handle g_cpu;
py::handle g_np_generic;
}  // namespace

py::object dtype_object(DType d) { return py::reinterpret_borrow<py::object>(g_dtypes[static_cast<int>(d)]); }

DType dtype_from_numpy(const py::dtype& dt) {
  char kind = dt.kind();
  auto size = dt.itemsize();
  if (kind == 'b') return DType::Bool;
  if (kind == 'u' && size == 1) return DType::UInt8;
  if (kind == 'i' && size == 4) return DType::Int32;
  if (kind == 'i' && size == 8) return DType::Int64;
  if (kind == 'f' && size == 2) return DType::Float16;
  if (kind == 'f' && size == 4) return DType::Float32;
  if (kind == 'f' && size == 8) return DType::Float64;
  throw tt::TypeError("unsupported numpy dtype " + std::string(py::str(dt)) +
                      " (supported: bool, uint8, int32, int64, float16, float32, float64)");
}

py::dtype numpy_dtype(DType d) {
  switch (d) {
    case DType::Bool: return py::dtype("bool");
    case DType::UInt8: return py::dtype("uint8");
    case DType::Int32: return py::dtype("int32");
    case DType::Int64: return py::dtype("int64");
    case DType::Float16: return py::dtype("float16");
    case DType::Float32: return py::dtype("float32");
    case DType::Float64: return py::dtype("float64");
    default: throw tt::TypeError("bfloat16 has no numpy dtype; convert with .float() first");
  }
}

std::optional<DType> dtype_from(py::handle h) {
  if (h.is_none()) return std::nullopt;
  for (int i = 0; i < tt::kNumDTypes; ++i)
    if (h.ptr() == g_dtypes[i].ptr()) return static_cast<DType>(i);
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return tt::kDefaultFloat;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return DType::Int64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return DType::Bool;
  if (py::isinstance<py::str>(h)) {
    std::string s = py::str(h);
    if (s.rfind("torch.", 0) == 0) s = s.substr(6);
    if (s.rfind("typedtensor.", 0) == 0) s = s.substr(12);
    static const std::pair<const char*, DType> names[] = {
        {"bool", DType::Bool},       {"uint8", DType::UInt8},      {"int32", DType::Int32},     {"int", DType::Int32},
        {"int64", DType::Int64},     {"long", DType::Int64},       {"float16", DType::Float16}, {"half", DType::Float16},
        {"bfloat16", DType::BFloat16}, {"float32", DType::Float32}, {"float", DType::Float32},  {"float64", DType::Float64},
        {"double", DType::Float64}};
    for (const auto& [n, d] : names)
      if (s == n) return d;
    throw tt::TypeError("unknown dtype '" + s + "'");
  }
  // numpy dtypes and scalar types (np.float32), torch dtypes (by name)
  if (py::hasattr(h, "is_floating_point") && py::hasattr(h, "itemsize") && !py::isinstance<py::dtype>(h)) {
    std::string s = py::str(h);
    return dtype_from(py::str(s));
  }
  try {
    return dtype_from_numpy(py::dtype::from_args(py::reinterpret_borrow<py::object>(h)));
  } catch (py::error_already_set&) {
    throw tt::TypeError("expected a dtype, got " + std::string(py::str(py::type::handle_of(h).attr("__name__"))));
  }
}

DType dtype_or(py::handle h, DType def) {
  auto d = dtype_from(h);
  return d ? *d : def;
}

tt::Device device_from(py::handle h) {
  if (h.is_none()) return {};
  if (py::isinstance<DeviceObj>(h)) return h.cast<DeviceObj&>().dev;
  if (py::isinstance<py::int_>(h) && !PyBool_Check(h.ptr())) {  // torch: a bare index is a CUDA device
    long long idx = h.cast<long long>();
    if (idx < 0 || idx > std::numeric_limits<int>::max())
      throw tt::ValueError("Device index must not be negative, got " + std::to_string(idx));
    return {tt::DeviceType::CUDA, static_cast<int>(idx)};
  }
  std::string s = py::str(h);
  if (s == "cpu") return {};
  if (s.rfind("cuda", 0) == 0) {
    int idx = 0;
    if (s.size() > 5 && s[4] == ':') idx = std::stoi(s.substr(5));
    return {tt::DeviceType::CUDA, idx};
  }
  throw tt::ValueError("unknown device '" + s + "'");
}

Tensor with_grad(Tensor t, bool requires_grad) {
  if (requires_grad) {
    if (!tt::is_floating(t.dtype())) throw tt::TypeError("only tensors of floating point dtype can require gradients");
    t.autograd_meta().requires_grad = true;
  }
  return t;
}

py::object device_object(const tt::Device& d) {
  if (d.type == tt::DeviceType::CPU) return py::reinterpret_borrow<py::object>(g_cpu);
  return py::cast(DeviceObj{d});
}

namespace {
// torch.device(spec): "cuda" names no index (repr, str, index and == say so), "cuda:0" does.
DeviceObj device_obj_from(py::handle spec) {
  if (py::isinstance<DeviceObj>(spec)) return spec.cast<DeviceObj&>();
  tt::Device d = device_from(spec);
  bool indexed = !(d.type == tt::DeviceType::CUDA && py::isinstance<py::str>(spec) &&
                   std::string(py::str(spec)).find(':') == std::string::npos);
  return DeviceObj{d, indexed};
}
}  // namespace

void bind_types(py::module_& m) {
  py::class_<DTypeObj>(m, "dtype")
      .def_property_readonly("is_floating_point", [](const DTypeObj& o) { return tt::is_floating(o.d); })
      .def_property_readonly("is_signed", [](const DTypeObj& o) { return o.d != DType::Bool && o.d != DType::UInt8; })
      .def_property_readonly("itemsize", [](const DTypeObj& o) { return tt::itemsize(o.d); })
      .def_property_readonly("name", [](const DTypeObj& o) { return std::string(tt::dtype_name(o.d)); })
      .def("__repr__", [](const DTypeObj& o) { return std::string("typedtensor.") + tt::dtype_name(o.d); })
      .def("__reduce__", [](const DTypeObj& o) {
        return py::make_tuple(py::module_::import("typedtensor._runtime").attr("_dtype_by_name"),
                              py::make_tuple(std::string(tt::dtype_name(o.d))));
      })
      .def("to_numpy", [](const DTypeObj& o) { return numpy_dtype(o.d); });
  for (int i = 0; i < tt::kNumDTypes; ++i) {
    g_dtypes[i] = py::cast(DTypeObj{static_cast<DType>(i)}, py::return_value_policy::move).release();
    m.attr(tt::dtype_name(static_cast<DType>(i))) = g_dtypes[i];
  }
  py::class_<DeviceObj>(m, "device")
      .def(py::init([](py::object spec, py::object index) {
             DeviceObj o = device_obj_from(spec);
             if (!index.is_none()) o = DeviceObj{{o.dev.type, index.cast<int>()}, true};
             return o;
           }),
           py::arg("type"), py::arg("index") = py::none())
      .def_property_readonly("type", [](const DeviceObj& o) { return o.dev.type == tt::DeviceType::CPU ? "cpu" : "cuda"; })
      .def_property_readonly("index", [](const DeviceObj& o) -> py::object {
        if (o.dev.type == tt::DeviceType::CPU || !o.indexed) return py::none();
        return py::int_(o.dev.index);
      })
      .def("__eq__", [](const DeviceObj& a, py::object b) {
        try {  // torch: device("cuda") != device("cuda:0")
          DeviceObj o = device_obj_from(b);
          return a.dev.type == o.dev.type && (a.dev.type == tt::DeviceType::CPU || (a.indexed == o.indexed && a.dev.index == o.dev.index));
        } catch (...) {
          return false;
        }
      })
      .def("__hash__", [](const DeviceObj& o) {
        return static_cast<int>(o.dev.type) * 1000 + (o.indexed ? o.dev.index : -1);
      })
      .def("__str__", [](const DeviceObj& o) {
        if (o.dev.type == tt::DeviceType::CPU) return std::string("cpu");
        return o.indexed ? "cuda:" + std::to_string(o.dev.index) : std::string("cuda");
      })
      .def("__repr__", [](const DeviceObj& o) {
        if (o.dev.type == tt::DeviceType::CPU) return std::string("device(type='cpu')");
        return o.indexed ? "device(type='cuda', index=" + std::to_string(o.dev.index) + ")" : std::string("device(type='cuda')");
      })
      .def("__reduce__", [](const DeviceObj& o) {
        std::string spec = o.dev.type == tt::DeviceType::CPU ? "cpu" : o.indexed ? "cuda:" + std::to_string(o.dev.index) : "cuda";
        return py::make_tuple(py::module_::import("typedtensor._C").attr("device"), py::make_tuple(spec));
      });
  g_cpu = py::cast(DeviceObj{tt::Device{}}, py::return_value_policy::move).release();
  g_np_generic = py::object(py::module_::import("numpy").attr("generic")).release();
}

// ---------------- scalars, shapes, dims ----------------
namespace {
PyTypeObject* g_tensor_type = nullptr;  // a new reference, leaked on purpose like the handles above
}  // namespace
void set_tensor_type(py::handle cls) { g_tensor_type = reinterpret_cast<PyTypeObject*>(cls.inc_ref().ptr()); }
PyTypeObject* tensor_type() { return g_tensor_type; }
// py::isinstance<Tensor> would look the type up in pybind11's registry on every call, which a tiny
// op (`t * 2.0`) paid for on each operand.
bool is_tensor(py::handle h) { return g_tensor_type != nullptr && PyObject_TypeCheck(h.ptr(), g_tensor_type); }

bool scalar_from(py::handle h, Scalar* out) {
  PyObject* p = h.ptr();
  if (PyBool_Check(p)) {
    *out = Scalar::from_bool(p == Py_True);
    return true;
  }
  if (PyFloat_Check(p)) {
    *out = Scalar::from_double(PyFloat_AS_DOUBLE(p));
    return true;
  }
  if (PyLong_Check(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow) throw tt::ValueError("integer value out of the int64 range");
    *out = Scalar::from_int(v);
    return true;
  }
  if (PyObject_IsInstance(p, g_np_generic.ptr()) == 1) {
    char kind = py::cast<py::dtype>(h.attr("dtype")).kind();
    if (kind == 'b') *out = Scalar::from_bool(h.cast<bool>());
    else if (kind == 'i' || kind == 'u') *out = Scalar::from_int(h.cast<int64_t>());
    else if (kind == 'f') *out = Scalar::from_double(h.cast<double>());
    else return false;
    return true;
  }
  return false;
}

Scalar scalar_arg(py::handle h, const char* what) {
  Scalar s;
  if (scalar_from(h, &s)) return s;
  if (is_tensor(h)) {
    const Tensor& t = h.cast<const Tensor&>();
    if (t.numel() == 1) {
      py::object v = item(t);
      if (scalar_from(v, &s)) return s;
    }
  }
  throw tt::TypeError(std::string(what) + ": expected a number, got " +
                      std::string(py::str(py::type::handle_of(h).attr("__name__"))));
}

static int64_t int_arg(py::handle h, const char* op) {
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) return h.cast<int64_t>();
  if (PyObject_IsInstance(h.ptr(), g_np_generic.ptr()) == 1 || py::hasattr(h, "__index__")) {
    if (is_tensor(h)) {
      const Tensor& t = h.cast<const Tensor&>();
      if (t.numel() != 1 || tt::is_floating(t.dtype())) throw tt::TypeError(std::string(op) + ": expected an int");
    }
    return py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr())).cast<int64_t>();
  }
  throw tt::TypeError(std::string(op) + ": expected a sequence of ints, got " +
                      std::string(py::str(py::type::handle_of(h).attr("__name__"))));
}

Shape shape_from(py::handle h, const char* op) {
  Shape s;
  if (PyLong_Check(h.ptr())) {
    s.push_back(int_arg(h, op));
    return s;
  }
  if (!PySequence_Check(h.ptr()) || is_tensor(h)) {
    s.push_back(int_arg(h, op));
    return s;
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  for (auto item : seq) s.push_back(int_arg(item, op));
  return s;
}

Shape shape_from_args(const py::args& args, const char* op) {
  if (args.size() == 1 && PySequence_Check(args[0].ptr()) && !is_tensor(args[0])) return shape_from(args[0], op);
  Shape s;
  for (auto a : args) s.push_back(int_arg(a, op));
  return s;
}

Shape shape_from_args_or_size(const py::args& args, const py::object& size, const char* op) {
  if (size.is_none()) return shape_from_args(args, op);
  if (args.size() != 0) throw py::type_error(std::string(op) + "() got multiple values for argument 'size'");
  return shape_from(size, op);
}

tt::Dims dims_required(py::handle h, const char* what) {
  tt::OptDims d = dims_from(h);
  if (!d) throw tt::TypeError(std::string(what) + ": expected an int or a sequence of ints, got None");
  return *d;
}

DType dtype_required(py::handle h, const char* what) {
  std::optional<DType> d = dtype_from(h);
  if (!d) throw tt::TypeError(std::string(what) + ": expected a dtype, got None");
  return *d;
}

tt::OptDims dims_from(py::handle h) {
  if (h.is_none()) return std::nullopt;
  tt::Dims d;
  if (PySequence_Check(h.ptr())) {
    for (auto x : py::reinterpret_borrow<py::sequence>(h)) d.push_back(int_arg(x, "dim"));
    return d;
  }
  d.push_back(int_arg(h, "dim"));
  return d;
}

std::optional<int64_t> opt_int(py::handle h) {
  if (h.is_none()) return std::nullopt;
  return int_arg(h, "argument");
}

std::pair<int64_t, int64_t> pair_from(py::handle h, const char* what) {
  if (PySequence_Check(h.ptr())) {
    Shape s = shape_from(h, what);
    if (s.size() == 1) return {s[0], s[0]};
    if (s.size() != 2) throw tt::ValueError(std::string(what) + " must be an int or a pair of ints");
    return {s[0], s[1]};
  }
  int64_t v = int_arg(h, what);
  return {v, v};
}

py::tuple shape_tuple(const Shape& s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i) t[i] = py::int_(s[i]);
  return t;
}

Tensor tensor_from(py::handle h, bool wrap_scalars) {
  if (is_tensor(h)) return h.cast<Tensor>();
  Scalar s;
  if (scalar_from(h, &s)) return tt::scalar_tensor(s, std::nullopt, wrap_scalars);
  return tensor_data(h, std::nullopt);
}

tt::TensorList tensors_from(py::handle seq) {
  tt::TensorList out;
  if (is_tensor(seq)) throw tt::TypeError("expected a sequence of tensors, got a tensor");
  for (auto x : py::reinterpret_borrow<py::iterable>(seq)) out.push_back(tensor_from(x, false));
  return out;
}

// ---------------- numpy ----------------
Tensor from_numpy(py::array arr) {
  DType d = dtype_from_numpy(arr.dtype());
  auto isz = static_cast<int64_t>(arr.itemsize());
  Shape shape;
  tt::Strides strides;
  for (py::ssize_t i = 0; i < arr.ndim(); ++i) {
    shape.push_back(arr.shape(i));
    int64_t st = arr.strides(i);
    if (st < 0) throw tt::ValueError("from_numpy: at least one stride in the given numpy array is negative; copy it first (arr.copy())");
    if (st % isz != 0) throw tt::ValueError("from_numpy: strides must be a multiple of the element size");
    strides.push_back(st / isz);
  }
  bool writable = arr.writeable();
  auto* keep = new py::object(arr);  // released by the deleter below (GIL taken there)
  std::shared_ptr<void> owner(keep, [](py::object* o) {
    py::gil_scoped_acquire g;
    delete o;
  });
  return tt::from_blob(const_cast<void*>(arr.data()), shape, strides, d, std::move(owner), writable);
}

py::array to_numpy(const Tensor& t) {
  if (t.device().type != tt::DeviceType::CPU)
    throw tt::TypeError("can't convert " + tt::device_str(t.device()) +
                        " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  if (t.requires_grad()) throw tt::ValueError("can't call numpy() on a tensor that requires grad; use .detach().numpy()");
  std::vector<py::ssize_t> shape, strides;
  auto isz = static_cast<py::ssize_t>(t.itemsize());
  for (int64_t i = 0; i < t.dim(); ++i) {
    shape.push_back(t.shape()[i]);
    strides.push_back(t.strides()[i] * isz);
  }
  py::object base = py::cast(t);  // keeps the storage alive
  py::array a(numpy_dtype(t.dtype()), shape, strides, t.raw(), base);
  if (!t.storage()->writable) a.attr("flags").attr("writeable") = false;
  return a;
}

// ---------------- DLPack ----------------
namespace {
struct DLCtx {
  Tensor t;
  std::vector<int64_t> shape, strides;
  DLManagedTensor m;
};

void dl_deleter(DLManagedTensor* m) { delete static_cast<DLCtx*>(m->manager_ctx); }

void capsule_destructor(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {  // never consumed
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (m && m->deleter) m->deleter(m);
  }
}

DLDataType dl_dtype(DType d) {
  switch (d) {
    case DType::Bool: return {kDLBool, 8, 1};
    case DType::UInt8: return {kDLUInt, 8, 1};
    case DType::Int32: return {kDLInt, 32, 1};
    case DType::Int64: return {kDLInt, 64, 1};
    case DType::Float16: return {kDLFloat, 16, 1};
    case DType::BFloat16: return {kDLBfloat, 16, 1};
    case DType::Float32: return {kDLFloat, 32, 1};
    default: return {kDLFloat, 64, 1};
  }
}

DType from_dl_dtype(DLDataType t) {
  if (t.lanes != 1) throw tt::TypeError("DLPack: vector dtypes are not supported");
  if (t.code == kDLBool && t.bits == 8) return DType::Bool;
  if (t.code == kDLUInt && t.bits == 8) return DType::UInt8;
  if (t.code == kDLInt && t.bits == 32) return DType::Int32;
  if (t.code == kDLInt && t.bits == 64) return DType::Int64;
  if (t.code == kDLFloat && t.bits == 16) return DType::Float16;
  if (t.code == kDLBfloat && t.bits == 16) return DType::BFloat16;
  if (t.code == kDLFloat && t.bits == 32) return DType::Float32;
  if (t.code == kDLFloat && t.bits == 64) return DType::Float64;
  throw tt::TypeError("DLPack: unsupported dtype (code " + std::to_string(t.code) + ", bits " + std::to_string(t.bits) + ")");
}
}  // namespace

py::object to_dlpack(const Tensor& t) {
  auto ctx = std::make_unique<DLCtx>();
  ctx->t = t;
  ctx->shape.assign(t.shape().begin(), t.shape().end());
  ctx->strides.assign(t.strides().begin(), t.strides().end());
  DLTensor& d = ctx->m.dl_tensor;
  d.data = t.storage()->data;
  d.byte_offset = static_cast<uint64_t>(t.offset()) * t.itemsize();
  d.device = {t.device().type == tt::DeviceType::CPU ? kDLCPU : kDLCUDA, t.device().index};
  d.ndim = static_cast<int32_t>(t.dim());
  d.dtype = dl_dtype(t.dtype());
  d.shape = ctx->shape.data();
  d.strides = ctx->strides.data();
  ctx->m.manager_ctx = ctx.get();
  ctx->m.deleter = dl_deleter;
  DLManagedTensor* m = &ctx->m;
  PyObject* cap = PyCapsule_New(m, "dltensor", capsule_destructor);
  if (!cap) throw py::error_already_set();
  ctx.release();  // owned by the capsule / consumer now
  return py::reinterpret_steal<py::object>(cap);
}

Tensor from_dlpack(py::handle obj) {
  py::object cap;
  if (py::hasattr(obj, "__dlpack__")) {
    if (py::hasattr(obj, "__dlpack_device__")) {
      py::tuple dev = obj.attr("__dlpack_device__")();
      if (dev[0].cast<int>() != kDLCPU) throw tt::TypeError("from_dlpack: only CPU tensors can be imported in this build");
    }
    cap = obj.attr("__dlpack__")();
  } else {
    cap = py::reinterpret_borrow<py::object>(obj);
  }
  if (!PyCapsule_IsValid(cap.ptr(), "dltensor"))
    throw tt::TypeError("from_dlpack: expected an object with __dlpack__ or a 'dltensor' capsule");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  const DLTensor& d = m->dl_tensor;
  if (d.device.device_type != kDLCPU && d.device.device_type != kDLCUDAHost)
    throw tt::TypeError("from_dlpack: only CPU tensors can be imported in this build");
  DType dt = from_dl_dtype(d.dtype);
  Shape shape;
  tt::Strides strides;
  for (int i = 0; i < d.ndim; ++i) shape.push_back(d.shape[i]);
  if (d.strides) {
    for (int i = 0; i < d.ndim; ++i) {
      if (d.strides[i] < 0) throw tt::ValueError("from_dlpack: negative strides are not supported");
      strides.push_back(d.strides[i]);
    }
  } else {
    strides = tt::contiguous_strides(shape);
  }
  std::shared_ptr<void> owner(m, [](DLManagedTensor* p) {
    if (p->deleter) p->deleter(p);
  });
  PyCapsule_SetName(cap.ptr(), "used_dltensor");
  return tt::from_blob(static_cast<char*>(d.data) + d.byte_offset, shape, strides, dt, std::move(owner), true);
}

// ---------------- tensor(data) ----------------
Tensor tensor_data(py::handle data, std::optional<DType> dtype) {
  if (is_tensor(data)) {
    const Tensor& t = data.cast<const Tensor&>();
    return tt::to_dtype(t, dtype ? *dtype : t.dtype(), /*copy=*/true);
  }
  Scalar s;
  bool np_scalar = PyObject_IsInstance(data.ptr(), g_np_generic.ptr()) == 1;
  if (!np_scalar && scalar_from(data, &s)) return tt::scalar_tensor(s, dtype);
  py::module_ np = py::module_::import("numpy");
  bool was_array = py::isinstance<py::array>(data) || np_scalar;
  py::array arr;
  if (was_array) {
    arr = np_scalar ? py::array(np.attr("asarray")(data)) : py::reinterpret_borrow<py::array>(data);
  } else {
    // nested sequences (possibly holding tensors or numpy scalars)
    try {
      arr = np.attr("asarray")(data);
    } catch (py::error_already_set& e) {
      throw tt::ValueError(std::string("tensor(): could not convert data: ") + e.what());
    }
    if (arr.dtype().kind() == 'O') throw tt::TypeError("tensor(): could not infer a dtype (ragged or non-numeric data)");
  }
  DType src;
  if (arr.dtype().kind() == 'U' || arr.dtype().kind() == 'S') throw tt::TypeError("tensor(): strings are not supported");
  src = dtype_from_numpy(arr.dtype());
  if (!was_array && src == DType::Float64) src = tt::kDefaultFloat;  // Python floats -> default dtype
  if (!was_array && arr.dtype().kind() == 'i' && arr.itemsize() != 8) src = DType::Int64;
  if (!(arr.flags() & py::array::c_style)) arr = arr.attr("copy")("C");  // keeps 0-d arrays 0-d
  Tensor t = from_numpy(arr);
  return tt::to_dtype(t, dtype ? *dtype : src, /*copy=*/true);
}

// ---------------- item ----------------
py::object item(const Tensor& t) {
  check_host_read(t, "item()");
  if (t.numel() != 1)
    throw tt::ValueError("a Tensor with " + std::to_string(t.numel()) + " elements cannot be converted to Scalar");
  Tensor h = tt::host(t);  // one device-to-host copy for a CUDA tensor
  return tt::visit_dtype(h.dtype(), [&](auto tag) -> py::object {
    using T = decltype(tag);
    T v = *h.data<T>();
    if constexpr (std::is_same_v<T, bool>) return py::bool_(v);
    else if constexpr (std::is_integral_v<T>) return py::int_(static_cast<int64_t>(v));
    else return py::float_(static_cast<double>(v));
  });
}

}  // namespace ttpy
