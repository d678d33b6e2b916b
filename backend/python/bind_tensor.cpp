// typedtensor._C.Tensor: the runtime tensor class. Operators and hot methods are bound here
// directly (no Python layer in between) to keep per-op latency low.
#include "convert.h"

namespace ttpy {
using tt::BinaryOp;
using tt::ReduceOp;
using tt::UnaryOp;

namespace {

py::handle g_values_indices;

// The C++ Tensor inside an instance of exactly typedtensor.Tensor, read from pybind11's simple
// instance layout (one value pointer) without the type caster's registry lookups; nullptr for
// anything else, including subclasses and an instance whose __init__ has not run.
inline const Tensor* exact_tensor_ptr(PyObject* o) {
  if (Py_TYPE(o) != tensor_type()) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  if (!inst->simple_layout || !inst->simple_holder_constructed) return nullptr;
  return static_cast<const Tensor*>(inst->simple_value_holder[0]);
}

inline const Tensor* as_tensor_ptr(py::handle h) {
  if (const Tensor* t = exact_tensor_ptr(h.ptr())) return t;
  if (is_tensor(h)) return &h.cast<const Tensor&>();
  return nullptr;
}

// self OP other, with Python scalars / arrays / lists converted; NotImplemented for other types.
template <BinaryOp OP>
py::object binop(const Tensor& a, py::handle b) {
  if (const Tensor* t = as_tensor_ptr(b)) return py::cast(tt::binary(OP, a, *t));
  Scalar s;
  if (scalar_from(b, &s)) return py::cast(tt::binary(OP, a, s));
  if (py::isinstance<py::array>(b) || PyList_Check(b.ptr()) || PyTuple_Check(b.ptr()))
    return py::cast(tt::binary(OP, a, tensor_data(b, std::nullopt)));
  return py::reinterpret_borrow<py::object>(Py_NotImplemented);
}

template <BinaryOp OP>
py::object rbinop(const Tensor& a, py::handle b) {
  Scalar s;
  if (scalar_from(b, &s)) return py::cast(tt::binary(OP, s, a));
  if (py::isinstance<py::array>(b) || PyList_Check(b.ptr()) || PyTuple_Check(b.ptr()))
    return py::cast(tt::binary(OP, tensor_data(b, std::nullopt), a));
  return py::reinterpret_borrow<py::object>(Py_NotImplemented);
}

Tensor& ibinary(BinaryOp op, Tensor& a, py::handle b) {
  if (const Tensor* t = as_tensor_ptr(b)) return tt::binary_(op, a, *t);
  Scalar s;
  if (scalar_from(b, &s)) return tt::binary_(op, a, s);
  return tt::binary_(op, a, tensor_data(b, std::nullopt));
}

template <BinaryOp OP>
Tensor& ibinop(Tensor& a, py::handle b) {
  return ibinary(OP, a, b);
}

Tensor fn_binary(BinaryOp op, py::handle a, py::handle b) {
  if (is_tensor(a)) {
    const Tensor& ta = a.cast<const Tensor&>();
    Scalar s;
    if (!is_tensor(b) && scalar_from(b, &s)) return tt::binary(op, ta, s);
    return tt::binary(op, ta, tensor_from(b));
  }
  Scalar s;
  if (scalar_from(a, &s) && is_tensor(b)) return tt::binary(op, s, b.cast<const Tensor&>());
  return tt::binary(op, tensor_from(a), tensor_from(b));
}

Tensor div_mode(const Tensor& a, py::handle b, py::object mode) {
  Tensor tb = tensor_from(b);
  if (mode.is_none()) return tt::binary(BinaryOp::Div, a, tb);
  std::string m = py::str(mode);
  if (m == "floor") return tt::binary(BinaryOp::FloorDiv, a, tb);
  if (m == "trunc") {
    Tensor q = tt::binary(BinaryOp::Div, a, tb);
    q = tt::unary(UnaryOp::Trunc, q);
    DType rt = tt::result_type(a, tb);
    return tt::is_floating(rt) ? q : tt::to_dtype(q, rt);
  }
  throw tt::ValueError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '" + m + "'");
}

py::object values_indices(std::pair<Tensor, Tensor> r) { return g_values_indices(py::cast(r.first), py::cast(r.second)); }

py::object max_min(bool is_max, const Tensor& a, py::object dim, py::object keepdim) {
  if (dim.is_none()) return py::cast(tt::reduce(is_max ? ReduceOp::Max : ReduceOp::Min, a, std::nullopt, false, std::nullopt));
  if (is_tensor(dim)) return py::cast(tt::binary(is_max ? BinaryOp::Maximum : BinaryOp::Minimum, a, dim.cast<const Tensor&>()));
  int64_t d = dim.cast<int64_t>();
  bool kd = keepdim.is_none() ? false : keepdim.cast<bool>();
  return values_indices(is_max ? tt::max_dim(a, d, kd) : tt::min_dim(a, d, kd));
}

double correction_of(py::object unbiased, py::object correction) {
  if (!correction.is_none()) return correction.cast<double>();
  if (!unbiased.is_none()) return unbiased.cast<bool>() ? 1.0 : 0.0;
  return 1.0;
}

py::list tolist_rec(const Tensor& t) {
  py::list out;
  if (t.dim() == 1) {
    for (int64_t i = 0; i < t.shape()[0]; ++i) out.append(item(tt::select(t, 0, i)));
    return out;
  }
  for (int64_t i = 0; i < t.shape()[0]; ++i) out.append(tolist_rec(tt::select(t, 0, i)));
  return out;
}

Tensor to_impl(const Tensor& a, py::args args, py::kwargs kw) {
  std::optional<DType> dt;
  std::optional<tt::Device> dev;
  bool copy = false;
  for (auto x : args) {
    if (is_tensor(x)) {  // to(other): other's dtype and device
      dt = x.cast<const Tensor&>().dtype();
      dev = x.cast<const Tensor&>().device();
      continue;
    }
    if (x.is_none()) continue;
    if (PyBool_Check(x.ptr())) continue;  // non_blocking
    // a device: a name, a device object, or (torch's `model.to(local_rank)`) a bare CUDA index
    if (py::isinstance<py::str>(x) || py::isinstance<DeviceObj>(x) || py::isinstance<py::int_>(x)) {
      dev = device_from(x);
      continue;
    }
    dt = dtype_from(x);
  }
  if (kw.contains("dtype")) dt = dtype_from(kw["dtype"]);
  if (kw.contains("device") && !kw["device"].is_none()) dev = device_from(kw["device"]);
  if (kw.contains("copy")) copy = kw["copy"].cast<bool>();
  bool moves = dev && *dev != a.device();
  Tensor r = tt::to_dtype(a, dt ? *dt : a.dtype(), copy && !moves);
  return moves ? tt::to_device(r, *dev) : r;
}

Tensor detach(const Tensor& a) { return tt::make_view(a, a.shape(), a.strides(), a.offset()); }

// NOTE [ Arithmetic number slots ]
// `a + b` on two tensors is the most common tiny op. Through a pybind11-bound __add__, CPython's
// generic slot looks the method up, builds a bound method and enters pybind11's overload
// dispatcher, which loads `self` through the type registry: about a quarter of the op's latency.
// For + - * / the type's number slots call binop / rbinop directly instead. A number slot serves
// both operand orders: CPython calls it as slot(a, b) when `a` is exactly a Tensor, and also after
// a's own slot declined (`2.0 + t`: float's nb_add returned NotImplemented) with `b` exactly a
// Tensor -- then it is b.__radd__(a). Subclasses (nn.Parameter) get CPython's generic slot, which
// calls the bound __add__ / __radd__ as before; assigning Tensor.__add__ from Python resets the
// slot to that generic one, as for any type.
template <BinaryOp OP>
PyObject* number_slot(PyObject* a, PyObject* b) {
  try {
    if (const Tensor* ta = exact_tensor_ptr(a)) return binop<OP>(*ta, b).release().ptr();
    if (const Tensor* tb = exact_tensor_ptr(b)) return rbinop<OP>(*tb, a).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
  Py_RETURN_NOTIMPLEMENTED;
}

void install_number_slots(py::handle cls) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  PyNumberMethods* num = type->tp_as_number;
  if (num == nullptr) throw std::runtime_error("typedtensor: the Tensor type has no number slots");
  num->nb_add = &number_slot<BinaryOp::Add>;
  num->nb_subtract = &number_slot<BinaryOp::Sub>;
  num->nb_multiply = &number_slot<BinaryOp::Mul>;
  num->nb_true_divide = &number_slot<BinaryOp::Div>;
  PyType_Modified(type);
}

}  // namespace

// Binds `name` once in both of torch's forms: the Tensor method (the tensor as self) and the function
// (the tensor as `input`), with the same callable and the same further arguments.
template <class F, class... Extra>
void def_op(py::class_<Tensor>& cls, py::module_& m, const char* name, F&& f, const Extra&... extra) {
  cls.def(name, f, extra...);
  m.def(name, std::forward<F>(f), py::arg("input"), extra...);
}

// An elementwise op of the op table's lists: x.op(), tt.op(x) and the in-place x.op_().
void def_unary_inplace(py::class_<Tensor>& cls, const char* name, UnaryOp op) {
  cls.def((std::string(name) + "_").c_str(), [op](Tensor& a) -> Tensor& { return tt::unary_(op, a); },
          py::return_value_policy::reference_internal);
}
void def_unary(py::class_<Tensor>& cls, py::module_& m, const char* name, UnaryOp op, bool inplace = true) {
  def_op(cls, m, name, [op](const Tensor& a) { return tt::unary(op, a); });
  if (inplace) def_unary_inplace(cls, name, op);
}
bool has_inplace_form(BinaryOp op) {
#define TT_IS(E) op == BinaryOp::E ||
  return TT_BINARY_INPLACE_OPS(TT_IS) false;
#undef TT_IS
}
// The ops bound below by their own code: torch gives them more parameters (add's and sub's alpha,
// div's rounding_mode, round's decimals, gelu's approximate) or another name (pow's exponent).
bool bound_by_hand(BinaryOp op) {
  return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Div || op == BinaryOp::Pow;
}
bool bound_by_hand(UnaryOp op) { return op == UnaryOp::Round || op == UnaryOp::Gelu || op == UnaryOp::GeluTanh; }
// torch.special's ops that torch has neither as torch.X nor as Tensor.X (the table's expose=""): only
// _C.X, which typedtensor/special.py binds
bool unexposed(UnaryOp op) {
#define TT_IS(E) op == UnaryOp::E ||
  return TT_UNEXPOSED_UNARY_OPS(TT_IS) false;
#undef TT_IS
}
bool unexposed(BinaryOp op) {
#define TT_IS(E) op == BinaryOp::E ||
  return TT_UNEXPOSED_BINARY_OPS(TT_IS) false;
#undef TT_IS
}
void def_binary(py::class_<Tensor>& cls, py::module_& m, const char* name, BinaryOp op, bool inplace) {
  def_op(cls, m, name, [op](py::handle a, py::handle b) { return fn_binary(op, a, b); }, py::arg("other"));
  if (!inplace) return;  // the table's exposure (torch has no fmax_)
  cls.def((std::string(name) + "_").c_str(), [op](Tensor& a, py::handle b) -> Tensor& { return ibinary(op, a, b); },
          py::arg("other"), py::return_value_policy::reference_internal);
}

// The ops whose table entries hold their C++ function (NOTE [ C++ functions from the table ] in
// typedtensor/shapes/registry.py): bind_table_ops
#include "generated/bindings.inc"

#define TT_NEW_KW py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), \
                  py::arg("requires_grad") = false

void bind_tensor(py::module_& m) {
  py::class_<Tensor> cls(m, "Tensor", py::buffer_protocol());
  set_tensor_type(cls);
  // Tensor(data): a detached alias of `data` (same storage, no autograd history). It exists so that
  // Python subclasses (nn.Parameter) can be constructed; pybind11 needs a C++ __init__ for that.
  cls.def(py::init([](const Tensor& data) { return detach(data); }), py::arg("data"));
  g_values_indices = py::module_::import("collections").attr("namedtuple")("values_indices", py::make_tuple("values", "indices")).release();
  m.attr("_values_indices") = py::reinterpret_borrow<py::object>(g_values_indices);

  // ---- geometry ----
  cls.def_property_readonly("shape", [](const Tensor& t) { return shape_tuple(t.shape()); })
      .def("size", [](const Tensor& t, py::object dim) -> py::object {
        if (dim.is_none()) return shape_tuple(t.shape());
        return py::int_(t.size(dim.cast<int64_t>()));
      }, py::arg("dim") = py::none())
      .def("stride", [](const Tensor& t, py::object dim) -> py::object {
        if (dim.is_none()) return shape_tuple(t.strides());
        return py::int_(t.stride(dim.cast<int64_t>()));
      }, py::arg("dim") = py::none())
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_property_readonly("device", [](const Tensor& t) { return device_object(t.device()); })
      .def_property_readonly("ndim", &Tensor::dim)
      .def_property_readonly("is_cuda", [](const Tensor& t) { return t.device().type == tt::DeviceType::CUDA; })
      .def_property_readonly("is_cpu", [](const Tensor& t) { return t.device().type == tt::DeviceType::CPU; })
      .def_property_readonly("itemsize", [](const Tensor& t) { return t.itemsize(); })
      .def_property_readonly("nbytes", [](const Tensor& t) { return t.numel() * static_cast<int64_t>(t.itemsize()); })
      .def_property_readonly("_version", &Tensor::version)
      .def("dim", &Tensor::dim)
      .def("ndimension", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("nelement", &Tensor::numel)
      .def("element_size", [](const Tensor& t) { return t.itemsize(); })
      .def("is_contiguous", [](const Tensor& t, py::kwargs) { return t.is_contiguous(); })
      .def("is_floating_point", [](const Tensor& t) { return tt::is_floating(t.dtype()); })
      .def("storage_offset", &Tensor::offset)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw()); })
      .def("untyped_storage_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.storage()->data); })
      .def("is_set_to", [](const Tensor& a, const Tensor& b) {
        return a.storage() == b.storage() && a.offset() == b.offset() && a.shape() == b.shape() && a.strides() == b.strides();
      })
      .def("_shares_storage", [](const Tensor& a, const Tensor& b) { return a.storage() == b.storage(); });

  // ---- autograd: requires_grad, grad, backward, ... are bound in bind_autograd.cpp ----

  // ---- Python protocol ----
  cls.def("__len__", [](const Tensor& t) {
        if (t.dim() == 0) throw tt::TypeError("len() of a 0-d tensor");
        return t.shape()[0];
      })
      .def("__iter__", [](const Tensor& t) {
        if (t.dim() == 0) throw tt::TypeError("iteration over a 0-d tensor");
        return py::iter(py::cast(tt::unbind(t, 0)));
      })
      .def("__getitem__", &getitem)
      .def("__setitem__", &setitem)
      .def("__bool__", [](const Tensor& t) {
        if (t.numel() != 1)
          throw tt::ValueError("Boolean value of Tensor with " + std::string(t.numel() == 0 ? "no values" : "more than one value") + " is ambiguous");
        return item(t).cast<bool>();
      })
      .def("__float__", [](const Tensor& t) { return item(t).cast<double>(); })
      .def("__int__", [](const Tensor& t) { return py::int_(item(t)); })
      .def("__index__", [](const Tensor& t) {
        if (tt::is_floating(t.dtype()) || t.numel() != 1) throw tt::TypeError("only integer tensors of a single element can be converted to an index");
        return item(t).cast<int64_t>();
      })
      .def("__hash__", [](py::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); })
      .def("item", &item)
      .def("tolist", [](const Tensor& t) -> py::object {
        check_host_read(t, "tolist()");
        if (t.dim() == 0) return item(t);
        Tensor h = tt::host(detach(t));
        if (h.dtype() != DType::BFloat16) return to_numpy(tt::contiguous(h)).attr("tolist")();
        return tolist_rec(h);
      })
      .def("numpy", [](const Tensor& t, bool force) {
        check_host_read(t, "numpy()");
        if (force) return to_numpy(tt::clone(detach(t)));
        return to_numpy(t);
      }, py::arg("force") = false)
      .def("__array__", [](const Tensor& t, py::object dtype, py::object copy) -> py::object {
        check_host_read(t, "__array__()");
        py::array a = to_numpy(detach(t));
        if (!dtype.is_none()) return a.attr("astype")(dtype);
        if (!copy.is_none() && copy.cast<bool>()) return a.attr("copy")();
        return std::move(a);
      }, py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack__", [](const Tensor& t, py::kwargs) {
        if (t.requires_grad()) throw tt::ValueError("can't export a tensor that requires grad; use .detach()");
        return to_dlpack(t);
      })
      .def("__dlpack_device__", [](const Tensor& t) {
        return py::make_tuple(t.device().type == tt::DeviceType::CPU ? 1 : 2, t.device().index);
      })
      .def_buffer([](const Tensor& t) -> py::buffer_info {
        if (t.dtype() == DType::BFloat16) throw tt::TypeError("bfloat16 tensors do not support the buffer protocol");
        std::vector<py::ssize_t> shape, strides;
        for (int64_t i = 0; i < t.dim(); ++i) {
          shape.push_back(t.shape()[i]);
          strides.push_back(t.strides()[i] * static_cast<py::ssize_t>(t.itemsize()));
        }
        static const char* fmt[] = {"?", "B", "i", "q", "e", "", "f", "d"};
        return py::buffer_info(t.raw(), static_cast<py::ssize_t>(t.itemsize()), fmt[static_cast<int>(t.dtype())],
                               t.dim(), shape, strides, !t.storage()->writable);
      });

  // ---- operators ----
  cls.def("__add__", &binop<BinaryOp::Add>)
      .def("__radd__", &rbinop<BinaryOp::Add>)
      .def("__iadd__", &ibinop<BinaryOp::Add>, py::return_value_policy::reference_internal)
      .def("__sub__", &binop<BinaryOp::Sub>)
      .def("__rsub__", &rbinop<BinaryOp::Sub>)
      .def("__isub__", &ibinop<BinaryOp::Sub>, py::return_value_policy::reference_internal)
      .def("__mul__", &binop<BinaryOp::Mul>)
      .def("__rmul__", &rbinop<BinaryOp::Mul>)
      .def("__imul__", &ibinop<BinaryOp::Mul>, py::return_value_policy::reference_internal)
      .def("__truediv__", &binop<BinaryOp::Div>)
      .def("__rtruediv__", &rbinop<BinaryOp::Div>)
      .def("__itruediv__", &ibinop<BinaryOp::Div>, py::return_value_policy::reference_internal)
      .def("__floordiv__", &binop<BinaryOp::FloorDiv>)
      .def("__rfloordiv__", &rbinop<BinaryOp::FloorDiv>)
      .def("__ifloordiv__", &ibinop<BinaryOp::FloorDiv>, py::return_value_policy::reference_internal)
      .def("__mod__", &binop<BinaryOp::Remainder>)
      .def("__rmod__", &rbinop<BinaryOp::Remainder>)
      .def("__imod__", &ibinop<BinaryOp::Remainder>, py::return_value_policy::reference_internal)
      .def("__pow__", [](const Tensor& a, py::handle b, py::object) { return binop<BinaryOp::Pow>(a, b); },
           py::arg("other"), py::arg("mod") = py::none())
      .def("__rpow__", [](const Tensor& a, py::handle b, py::object) { return rbinop<BinaryOp::Pow>(a, b); },
           py::arg("other"), py::arg("mod") = py::none())
      .def("__ipow__", &ibinop<BinaryOp::Pow>, py::return_value_policy::reference_internal)
      .def("__and__", &binop<BinaryOp::BitAnd>)
      .def("__rand__", &rbinop<BinaryOp::BitAnd>)
      .def("__iand__", &ibinop<BinaryOp::BitAnd>, py::return_value_policy::reference_internal)
      .def("__or__", &binop<BinaryOp::BitOr>)
      .def("__ror__", &rbinop<BinaryOp::BitOr>)
      .def("__ior__", &ibinop<BinaryOp::BitOr>, py::return_value_policy::reference_internal)
      .def("__xor__", &binop<BinaryOp::BitXor>)
      .def("__rxor__", &rbinop<BinaryOp::BitXor>)
      .def("__ixor__", &ibinop<BinaryOp::BitXor>, py::return_value_policy::reference_internal)
      .def("__eq__", &binop<BinaryOp::Eq>)
      .def("__ne__", &binop<BinaryOp::Ne>)
      .def("__lt__", &binop<BinaryOp::Lt>)
      .def("__le__", &binop<BinaryOp::Le>)
      .def("__gt__", &binop<BinaryOp::Gt>)
      .def("__ge__", &binop<BinaryOp::Ge>)
      .def("__neg__", [](const Tensor& a) { return tt::unary(UnaryOp::Neg, a); })
      .def("__pos__", [](const Tensor& a) { return a; })
      .def("__abs__", [](const Tensor& a) { return tt::unary(UnaryOp::Abs, a); })
      .def("__invert__", [](const Tensor& a) { return tt::unary(a.dtype() == DType::Bool ? UnaryOp::LogicalNot : UnaryOp::BitNot, a); })
      .def("__matmul__", [](const Tensor& a, py::handle b) -> py::object {
        if (const Tensor* t = as_tensor_ptr(b)) return py::cast(tt::matmul(a, *t));
        if (py::isinstance<py::array>(b) || PyList_Check(b.ptr())) return py::cast(tt::matmul(a, tensor_data(b, std::nullopt)));
        return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      })
      .def("__rmatmul__", [](const Tensor& a, py::handle b) -> py::object {
        if (py::isinstance<py::array>(b) || PyList_Check(b.ptr())) return py::cast(tt::matmul(tensor_data(b, std::nullopt), a));
        return py::reinterpret_borrow<py::object>(Py_NotImplemented);
      });
  install_number_slots(cls);

  // ---- elementwise methods + functions ----
  // every op of the op table's elementwise lists, under its registry name (the ones whose signature
  // has more, like add's and sub's alpha, gelu's approximate or round's decimals, or other names, like
  // pow's exponent, are bound below)
#define TT_BIND_BINARY(E, name, ...) \
  if (bound_by_hand(BinaryOp::E)) {                                                                       \
  } else if (unexposed(BinaryOp::E)) {                                                                    \
    m.def(name, [](py::handle a, py::handle b) { return fn_binary(BinaryOp::E, a, b); }, py::arg("input"), \
          py::arg("other"));                                                                              \
  } else {                                                                                                \
    def_binary(cls, m, name, BinaryOp::E, has_inplace_form(BinaryOp::E));                                 \
  }
  TT_BINARY_OPS(TT_BIND_BINARY)
#undef TT_BIND_BINARY
// (one whose table entry holds its C++ function, with torch's further parameters, is bound by
// bind_table_ops; its in-place form, with the defaults, here)
#define TT_BIND_UNARY(E, name, ...)                                                                      \
  if (bound_by_table(name)) def_unary_inplace(cls, name, UnaryOp::E);                                    \
  else if (bound_by_hand(UnaryOp::E)) {                                                                  \
  } else if (unexposed(UnaryOp::E)) {                                                                    \
    m.def(name, [](const Tensor& a) { return tt::unary(UnaryOp::E, a); }, py::arg("input"));           \
  } else {                                                                                               \
    def_unary(cls, m, name, UnaryOp::E);                                                                 \
  }
  TT_UNARY_OPS(TT_BIND_UNARY)
#undef TT_BIND_UNARY
  // torch's other names for them, from the table's aliases= (those of the ops bound by hand are
  // bound with them: subtract, divide)
#define TT_UNARY_ALIAS(E, alias, inplace) \
  if (!bound_by_hand(UnaryOp::E)) def_unary(cls, m, alias, UnaryOp::E, inplace);
#define TT_BINARY_ALIAS(E, alias, inplace) \
  if (!bound_by_hand(BinaryOp::E)) def_binary(cls, m, alias, BinaryOp::E, inplace);
  TT_UNARY_ALIASES(TT_UNARY_ALIAS)
  TT_BINARY_ALIASES(TT_BINARY_ALIAS)
#undef TT_UNARY_ALIAS
#undef TT_BINARY_ALIAS
  def_binary(cls, m, "true_divide", BinaryOp::Div, true);  // a row of its own (always a float result), Div's kernel
  // pow: torch names its second operand `exponent` in every form
  def_op(cls, m, "pow", [](py::handle a, py::handle b) { return fn_binary(BinaryOp::Pow, a, b); }, py::arg("exponent"));
  cls.def("pow_", [](Tensor& a, py::handle b) -> Tensor& { return ibinary(BinaryOp::Pow, a, b); }, py::arg("exponent"),
          py::return_value_policy::reference_internal);

  // add / sub with alpha: a + alpha * b rounded once, as torch's kernel (tt::add_scaled)

  auto add_fn = [](py::handle a, py::handle b, py::handle alpha) {
    Scalar al = alpha.is_none() ? Scalar::from_int(1) : scalar_arg(alpha, "alpha");
    if (al.kind != Scalar::Float && al.i == 1) return fn_binary(BinaryOp::Add, a, b);
    return tt::add_scaled(tensor_from(a), tensor_from(b), al);
  };
  def_op(cls, m, "add", add_fn, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none());
  cls.def("add_", [](Tensor& a, py::handle b, py::handle alpha) -> Tensor& {
    if (alpha.is_none()) return ibinop<BinaryOp::Add>(a, b);
    return tt::add_scaled_(a, tensor_from(b), scalar_arg(alpha, "alpha"));
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none(), py::return_value_policy::reference_internal);
  auto sub_fn = [](py::handle a, py::handle b, py::handle alpha) {
    Scalar al = alpha.is_none() ? Scalar::from_int(1) : scalar_arg(alpha, "alpha");
    if (al.kind != Scalar::Float && al.i == 1) return fn_binary(BinaryOp::Sub, a, b);
    Tensor ta = tensor_from(a), tb = tensor_from(b);
    if (!tt::is_floating(ta.dtype()) || al.kind == Scalar::Bool)  // Sub's own dtype rules and errors
      return tt::binary(BinaryOp::Sub, ta, tt::binary(BinaryOp::Mul, tb, al));
    return tt::add_scaled(ta, tb, al.kind == Scalar::Float ? Scalar::from_double(-al.d) : Scalar::from_int(-al.i));
  };
  auto sub_inplace = [](Tensor& a, py::handle b, py::handle alpha) -> Tensor& {
    if (alpha.is_none()) return ibinop<BinaryOp::Sub>(a, b);
    Scalar al = scalar_arg(alpha, "alpha");
    if (!tt::is_floating(a.dtype()) || al.kind == Scalar::Bool)  // Sub's own dtype rules and errors
      return tt::binary_(BinaryOp::Sub, a, tt::binary(BinaryOp::Mul, tensor_from(b), al));
    return tt::add_scaled_(a, tensor_from(b), al.kind == Scalar::Float ? Scalar::from_double(-al.d) : Scalar::from_int(-al.i));
  };
  for (const char* n : {"sub", "subtract"}) {  // subtract is sub's alias in every form
    def_op(cls, m, n, sub_fn, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none());
    cls.def((std::string(n) + "_").c_str(), sub_inplace, py::arg("other"), py::kw_only(), py::arg("alpha") = py::none(),
            py::return_value_policy::reference_internal);
  }
  for (const char* n : {"div", "divide"})
    def_op(cls, m, n, [](py::handle a, py::handle b, py::object mode) { return div_mode(tensor_from(a), b, mode); },
           py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  cls.def("div_", [](Tensor& a, py::handle b, py::object mode) -> Tensor& {
    if (mode.is_none()) return ibinop<BinaryOp::Div>(a, b);
    Tensor r = div_mode(a, b, mode);
    return tt::copy_(a, r);
  }, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none(), py::return_value_policy::reference_internal);


  auto round_fn = [](const Tensor& a, int64_t decimals) {
    if (decimals == 0) return tt::unary(UnaryOp::Round, a);
    double s = std::pow(10.0, static_cast<double>(decimals));
    return tt::binary(BinaryOp::Div, tt::unary(UnaryOp::Round, tt::binary(BinaryOp::Mul, a, Scalar::from_double(s))), Scalar::from_double(s));
  };
  def_op(cls, m, "round", round_fn, py::kw_only(), py::arg("decimals") = 0);
  auto gelu_fn = [](const Tensor& a, const std::string& approx) {
    if (approx == "none") return tt::unary(UnaryOp::Gelu, a);
    if (approx == "tanh") return tt::unary(UnaryOp::GeluTanh, a);
    throw tt::ValueError("gelu: approximate must be 'none' or 'tanh', got '" + approx + "'");
  };
  def_op(cls, m, "gelu", gelu_fn, py::kw_only(), py::arg("approximate") = "none");
  def_op(cls, m, "leaky_relu", &tt::leaky_relu, py::arg("negative_slope") = 0.01);
  m.def("elu", &tt::elu, py::arg("input"), py::arg("alpha") = 1.0);

  auto clamp_fn = [](const Tensor& a, py::object lo, py::object hi) {
    if (is_tensor(lo) || is_tensor(hi)) {
      Tensor l, h;
      if (!lo.is_none()) l = tensor_from(lo);
      if (!hi.is_none()) h = tensor_from(hi);
      return tt::clamp_t(a, lo.is_none() ? nullptr : &l, hi.is_none() ? nullptr : &h);
    }
    std::optional<Scalar> l, h;
    if (!lo.is_none()) l = scalar_arg(lo, "clamp");
    if (!hi.is_none()) h = scalar_arg(hi, "clamp");
    return tt::clamp(a, l, h);
  };
  for (const char* n : {"clamp", "clip"}) {
    def_op(cls, m, n, clamp_fn, py::arg("min") = py::none(), py::arg("max") = py::none());
  }
  auto clamp_inplace = [](Tensor& a, py::object lo, py::object hi) -> Tensor& {
    std::optional<Scalar> l, h;
    if (!lo.is_none()) l = scalar_arg(lo, "clamp_");
    if (!hi.is_none()) h = scalar_arg(hi, "clamp_");
    return tt::clamp_(a, l, h);
  };
  cls.def("clamp_", clamp_inplace, py::arg("min") = py::none(), py::arg("max") = py::none(), py::return_value_policy::reference_internal);
  cls.def("clip_", clamp_inplace, py::arg("min") = py::none(), py::arg("max") = py::none(), py::return_value_policy::reference_internal);
  cls.def("zero_", &tt::zero_, py::return_value_policy::reference_internal);
  cls.def("fill_", [](Tensor& a, py::handle v) -> Tensor& { return tt::fill_(a, scalar_arg(v, "fill_")); },
          py::arg("value"), py::return_value_policy::reference_internal);
  cls.def("copy_", [](Tensor& a, py::handle src, bool) -> Tensor& { return tt::copy_(a, tensor_from(src, false)); },
          py::arg("src"), py::arg("non_blocking") = false, py::return_value_policy::reference_internal);
  cls.def("lerp", [](const Tensor& a, const Tensor& b, py::handle w) {
    // a number weight: the fused one-pass form (as tt.lerp)
    if (!py::isinstance<py::bool_>(w) && (py::isinstance<py::float_>(w) || py::isinstance<py::int_>(w)))
      return tt::lerp_scalar(a, b, w.cast<double>());
    return tt::lerp(a, b, tensor_from(w));
  }, py::arg("end"), py::arg("weight"));
  m.def("_lerp_scalar", &tt::lerp_scalar, py::arg("input"), py::arg("end"), py::arg("weight"));
  def_op(cls, m, "nan_to_num", [](const Tensor& a, double nan, std::optional<double> p, std::optional<double> n) { return tt::nan_to_num(a, nan, p, n); },
         py::arg("nan") = 0.0, py::arg("posinf") = py::none(), py::arg("neginf") = py::none());
  cls.def("where", [](const Tensor& a, py::handle cond, py::handle other) { return tt::where(tensor_from(cond), a, tensor_from(other)); },
          py::arg("condition"), py::arg("other"));
  def_op(cls, m, "masked_fill", [](const Tensor& a, const Tensor& mask, py::handle v) {
    if (is_tensor(v)) return tt::masked_fill_t(a, mask, v.cast<const Tensor&>());
    return tt::masked_fill(a, mask, scalar_arg(v, "masked_fill"));
  }, py::arg("mask"), py::arg("value"));
  cls.def("masked_fill_", [](Tensor& a, const Tensor& mask, py::handle v) -> Tensor& {
    Tensor value = is_tensor(v) ? v.cast<Tensor>() : tt::scalar_tensor(scalar_arg(v, "masked_fill_"), a.dtype());
    return tt::masked_fill_(a, mask, value);
  }, py::arg("mask"), py::arg("value"), py::return_value_policy::reference_internal);

  // ---- reductions ----
  auto red = [&](const char* name, ReduceOp op, bool has_dtype) {
    auto f = [op](const Tensor& a, py::object dim, bool keepdim, py::object dtype) {
      return tt::reduce(op, a, dims_from(dim), keepdim, dtype_from(dtype));
    };
    if (has_dtype) {
      cls.def(name, f, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
      m.def(name, f, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
    } else {
      auto g = [op](const Tensor& a, py::object dim, bool keepdim) { return tt::reduce(op, a, dims_from(dim), keepdim, std::nullopt); };
      cls.def(name, g, py::arg("dim") = py::none(), py::arg("keepdim") = false);
      m.def(name, g, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
    }
  };
  red("sum", ReduceOp::Sum, true);
  red("nansum", ReduceOp::NanSum, true);
  red("mean", ReduceOp::Mean, true);
  red("amax", ReduceOp::Max, false);
  red("amin", ReduceOp::Min, false);
  red("all", ReduceOp::All, false);
  red("any", ReduceOp::Any, false);
  auto prod_fn = [](const Tensor& a, py::object dim, bool keepdim, py::object dtype) {
    return tt::reduce(ReduceOp::Prod, a, dims_from(dim), keepdim, dtype_from(dtype));
  };
  def_op(cls, m, "prod", prod_fn, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
  for (bool is_max : {true, false}) {
    auto f = [is_max](const Tensor& a, py::object dim, py::object keepdim) { return max_min(is_max, a, dim, keepdim); };
    def_op(cls, m, is_max ? "max" : "min", f, py::arg("dim") = py::none(), py::arg("keepdim") = py::none());
    auto g = [is_max](const Tensor& a, py::object dim, bool keepdim) {
      return is_max ? tt::argmax(a, opt_int(dim), keepdim) : tt::argmin(a, opt_int(dim), keepdim);
    };
    def_op(cls, m, is_max ? "argmax" : "argmin", g, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  }
  for (bool sd : {false, true}) {
    auto f = [sd](const Tensor& a, py::object dim, py::object unbiased, bool keepdim, py::object correction) {
      if (PyBool_Check(dim.ptr())) {  // var(unbiased) positional form
        unbiased = dim;
        dim = py::none();
      }
      double c = correction_of(unbiased, correction);
      return sd ? tt::std_(a, dims_from(dim), c, keepdim) : tt::var(a, dims_from(dim), c, keepdim);
    };
    def_op(cls, m, sd ? "std" : "var", f, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(),
           py::arg("keepdim") = false, py::kw_only(), py::arg("correction") = py::none());
  }
  auto norm_fn = [](const Tensor& a, py::object p, py::object dim, bool keepdim, py::object dtype) {
    double pv = 2;
    if (!p.is_none()) {
      if (py::isinstance<py::str>(p)) {
        std::string s = py::str(p);
        if (s != "fro") throw tt::ValueError("norm: unsupported p '" + s + "'");
      } else {
        pv = p.cast<double>();
      }
    }
    Tensor x = dtype.is_none() ? a : tt::to_dtype(a, *dtype_from(dtype));
    return tt::norm(x, pv, dims_from(dim), keepdim);
  };
  def_op(cls, m, "norm", norm_fn, py::arg("p") = py::none(), py::arg("dim") = py::none(), py::arg("keepdim") = false, py::arg("dtype") = py::none());
  auto sort_fn = [](const Tensor& a, int64_t dim, bool desc, bool) { return values_indices(tt::sort(a, dim, desc)); };
  def_op(cls, m, "sort", sort_fn, py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
  auto argsort_fn = [](const Tensor& a, int64_t dim, bool desc, bool) { return tt::sort(a, dim, desc).second; };
  def_op(cls, m, "argsort", argsort_fn, py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
  auto topk_fn = [](const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted) {
    return values_indices(tt::topk(a, k, dim, largest, sorted));
  };
  def_op(cls, m, "topk", topk_fn, py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted") = true);

  // ---- shape / views ----
  cls.def("view", [](const Tensor& a, py::args args) -> Tensor {
        if (args.size() == 1 && !PySequence_Check(args[0].ptr()) && !PyLong_Check(args[0].ptr()) && !is_tensor(args[0]))
          return tt::to_dtype(a, dtype_required(args[0], "view"));  // view(dtype): same-size reinterpretation not supported; cast
        return tt::view(a, shape_from_args(args, "view"));
      })
      .def("view_as", [](const Tensor& a, const Tensor& o) { return tt::view(a, o.shape()); })
      .def("reshape", [](const Tensor& a, py::args args) { return tt::reshape(a, shape_from_args(args, "reshape")); })
      .def("reshape_as", [](const Tensor& a, const Tensor& o) { return tt::reshape(a, o.shape()); })
      .def("expand", [](const Tensor& a, py::args args) { return tt::expand(a, shape_from_args(args, "expand")); })
      .def("expand_as", [](const Tensor& a, const Tensor& o) { return tt::expand(a, o.shape()); })
      .def("broadcast_to", [](const Tensor& a, py::handle s) { return tt::expand(a, shape_from(s, "broadcast_to")); }, py::arg("size"))
      .def("permute", [](const Tensor& a, py::args args) {
        Shape s = shape_from_args(args, "permute");
        return tt::permute(a, s.vec());
      })
      .def("repeat", [](const Tensor& a, py::args args) { return tt::repeat(a, shape_from_args(args, "repeat")); })
      .def("t", [](const Tensor& a) {
        if (a.dim() > 2)
          throw tt::ValueError("t() expects a tensor with <= 2 dimensions, but self is " + std::to_string(a.dim()) + "D");
        return a.dim() < 2 ? a : tt::transpose(a, 0, 1);
      })
      .def_property_readonly("T", [](const Tensor& a) {
        tt::Dims p;
        for (int64_t i = a.dim() - 1; i >= 0; --i) p.push_back(i);
        return tt::permute(a, p);
      })
      .def_property_readonly("mT", [](const Tensor& a) {
        if (a.dim() < 2) throw tt::ValueError("tensor.mT is only supported on matrices or batches of matrices");
        return tt::transpose(a, -2, -1);
      })
      .def("contiguous", [](const Tensor& a, py::kwargs) { return tt::contiguous(a); })
      .def("clone", [](const Tensor& a, py::kwargs) { return tt::clone(a); })
      .def("to", &to_impl)
      .def("cuda", [](const Tensor& a, py::object device) {
        tt::Device d{tt::DeviceType::CUDA, 0};
        if (!device.is_none()) {
          d = py::isinstance<py::int_>(device) ? tt::Device{tt::DeviceType::CUDA, device.cast<int>()} : device_from(device);
          if (d.type != tt::DeviceType::CUDA) throw tt::ValueError("[cuda] expected a CUDA device, got " + tt::device_str(d));
        }
        return tt::to_device(a, d);
      }, py::arg("device") = py::none())
      .def("cpu", [](const Tensor& a) { return tt::to_device(a, tt::Device{}); })
      .def("type", [](const Tensor& a, py::object dtype) -> py::object {
        if (dtype.is_none()) return py::str(std::string("typedtensor.") + tt::dtype_name(a.dtype()));
        return py::cast(tt::to_dtype(a, *dtype_from(dtype)));
      }, py::arg("dtype") = py::none())
      .def("type_as", [](const Tensor& a, const Tensor& o) { return tt::to_dtype(a, o.dtype()); })
      .def("float", [](const Tensor& a) { return tt::to_dtype(a, DType::Float32); })
      .def("double", [](const Tensor& a) { return tt::to_dtype(a, DType::Float64); })
      .def("half", [](const Tensor& a) { return tt::to_dtype(a, DType::Float16); })
      .def("bfloat16", [](const Tensor& a) { return tt::to_dtype(a, DType::BFloat16); })
      .def("long", [](const Tensor& a) { return tt::to_dtype(a, DType::Int64); })
      .def("int", [](const Tensor& a) { return tt::to_dtype(a, DType::Int32); })
      .def("bool", [](const Tensor& a) { return tt::to_dtype(a, DType::Bool); })
      .def("byte", [](const Tensor& a) { return tt::to_dtype(a, DType::UInt8); })
      .def("cpu", [](const Tensor& a) { return a; })
      .def("cuda", [](const Tensor&, py::args, py::kwargs) -> Tensor {
        throw tt::NotImplementedError("[cuda] CUDA tensors are not available in this build");
      })
      // new_*: self's dtype and device unless given (torch's rule)
      .def("new_zeros", [](const Tensor& a, py::args s, py::object dtype, py::object device, bool rg) {
        tt::DeviceScope ds(device_arg(device, a.device()));
        return with_grad(tt::zeros(shape_from_args(s, "new_zeros"), dtype_or(dtype, a.dtype())), rg);
      }, TT_NEW_KW)
      .def("new_ones", [](const Tensor& a, py::args s, py::object dtype, py::object device, bool rg) {
        tt::DeviceScope ds(device_arg(device, a.device()));
        return with_grad(tt::ones(shape_from_args(s, "new_ones"), dtype_or(dtype, a.dtype())), rg);
      }, TT_NEW_KW)
      .def("new_empty", [](const Tensor& a, py::args s, py::object dtype, py::object device, bool rg) {
        tt::DeviceScope ds(device_arg(device, a.device()));
        return with_grad(tt::empty(shape_from_args(s, "new_empty"), dtype_or(dtype, a.dtype())), rg);
      }, TT_NEW_KW)
      .def("new_full", [](const Tensor& a, py::handle s, py::handle v, py::object dtype, py::object device, bool rg) {
        tt::DeviceScope ds(device_arg(device, a.device()));
        return with_grad(tt::full(shape_from(s, "new_full"), scalar_arg(v, "new_full"), dtype_or(dtype, a.dtype())), rg);
      }, py::arg("size"), py::arg("fill_value"), TT_NEW_KW)
      .def("new_tensor", [](const Tensor& a, py::handle data, py::object dtype, py::object device, bool rg) {
        tt::Device d = device_arg(device, a.device());
        tt::DeviceScope ds(d);
        return with_grad(placed(host_tensor(data, "new_tensor()", [&] { return tensor_data(data, dtype_or(dtype, a.dtype())); }), d), rg);
      }, py::arg("data"), TT_NEW_KW);

  def_op(cls, m, "swapaxes", &tt::transpose, py::arg("axis0"), py::arg("axis1"));  // numpy's names, as torch's
  m.def("t", [](const Tensor& a) {
    if (a.dim() > 2) throw tt::ValueError("t() expects a tensor with <= 2 dimensions, but self is " + std::to_string(a.dim()) + "D");
    return a.dim() < 2 ? a : tt::transpose(a, 0, 1);
  }, py::arg("input"));
  m.def("permute", [](const Tensor& a, py::handle d) { return tt::permute(a, shape_from(d, "permute").vec()); }, py::arg("input"), py::arg("dims"));
  m.def("reshape", [](const Tensor& a, py::handle s) { return tt::reshape(a, shape_from(s, "reshape")); }, py::arg("input"), py::arg("shape"));
  m.def("broadcast_to", [](const Tensor& a, py::handle s) { return tt::expand(a, shape_from(s, "broadcast_to")); }, py::arg("input"), py::arg("size"));
  cls.def("squeeze_", [](Tensor& a, py::object dim) -> Tensor& {
    Tensor r = tt::squeeze(a, dims_from(dim));
    a = r;
    return a;
  }, py::arg("dim") = py::none(), py::return_value_policy::reference_internal);
  cls.def("unsqueeze_", [](Tensor& a, int64_t dim) -> Tensor& {
    Tensor r = tt::unsqueeze(a, dim);
    a = r;
    return a;
  }, py::arg("dim"), py::return_value_policy::reference_internal);
  // In-place view changes rebind this tensor to the new view (as squeeze_/unsqueeze_ do).
  cls.def("transpose_", [](Tensor& a, int64_t d0, int64_t d1) -> Tensor& {
    Tensor r = tt::transpose(a, d0, d1);
    a = r;
    return a;
  }, py::arg("dim0"), py::arg("dim1"), py::return_value_policy::reference_internal);
  cls.def("t_", [](Tensor& a) -> Tensor& {
    if (a.dim() > 2)
      throw tt::ValueError("t_() expects a tensor with <= 2 dimensions, but self is " + std::to_string(a.dim()) + "D");
    if (a.dim() == 2) {
      Tensor r = tt::transpose(a, 0, 1);
      a = r;
    }
    return a;
  }, py::return_value_policy::reference_internal);
  auto flip_fn = [](const Tensor& a, py::handle dims) { return tt::flip(a, dims_required(dims, "flip")); };
  cls.def("flip", [flip_fn](const Tensor& a, py::args dims) {
    if (dims.size() == 1) return flip_fn(a, dims[0]);
    return flip_fn(a, dims);
  });
  m.def("flip", flip_fn, py::arg("input"), py::arg("dims"));
  auto split_fn = [](const Tensor& a, py::handle s, int64_t dim) {
    if (PySequence_Check(s.ptr())) return tt::split(a, shape_from(s, "split").vec(), dim);
    return tt::split_size(a, s.cast<int64_t>(), dim);
  };
  cls.def("split", split_fn, py::arg("split_size"), py::arg("dim") = 0);
  m.def("split", split_fn, py::arg("tensor"), py::arg("split_size_or_sections"), py::arg("dim") = 0);

  // ---- indexing ops ----
  auto scatter_fn = [](const Tensor& a, int64_t dim, const Tensor& index, py::handle src, py::object value, py::object reduce) {
    std::string r = reduce.is_none() ? "" : std::string(py::str(reduce));
    py::handle s = src.is_none() ? py::handle(value) : src;
    if (is_tensor(s)) return tt::scatter(a, dim, index, s.cast<const Tensor&>(), r);
    if (!r.empty()) {
      Tensor st = tt::contiguous(tt::expand(tt::scalar_tensor(scalar_arg(s, "scatter"), a.dtype()), index.shape()));
      return tt::scatter(a, dim, index, st, r);
    }
    return tt::scatter_scalar(a, dim, index, scalar_arg(s, "scatter"));
  };
  def_op(cls, m, "scatter", scatter_fn, py::arg("dim"), py::arg("index"), py::arg("src") = py::none(), py::kw_only(),
         py::arg("value") = py::none(), py::arg("reduce") = py::none());
  cls.def("scatter_", [scatter_fn](Tensor& a, int64_t dim, const Tensor& index, py::handle src, py::object value, py::object reduce) -> Tensor& {
    Tensor r = scatter_fn(a, dim, index, src, value, reduce);
    return tt::copy_(a, r);
  }, py::arg("dim"), py::arg("index"), py::arg("src") = py::none(), py::kw_only(), py::arg("value") = py::none(),
     py::arg("reduce") = py::none(), py::return_value_policy::reference_internal);
  auto scatter_add_fn = [](const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src) { return tt::scatter(a, dim, index, src, "add"); };
  def_op(cls, m, "scatter_add", scatter_add_fn, py::arg("dim"), py::arg("index"), py::arg("src"));
  cls.def("scatter_add_", [](Tensor& a, int64_t dim, const Tensor& index, const Tensor& src) -> Tensor& {
    return tt::copy_(a, tt::scatter(a, dim, index, src, "add"));
  }, py::arg("dim"), py::arg("index"), py::arg("src"), py::return_value_policy::reference_internal);
  auto index_add_fn = [](const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src, py::handle alpha) {
    return tt::index_add(a, dim, index, src, alpha.is_none() ? Scalar::from_int(1) : scalar_arg(alpha, "alpha"));
  };
  def_op(cls, m, "index_add", index_add_fn, py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = py::none());
  cls.def("index_add_", [index_add_fn](Tensor& a, int64_t dim, const Tensor& index, const Tensor& src, py::handle alpha) -> Tensor& {
    return tt::copy_(a, index_add_fn(a, dim, index, src, alpha));
  }, py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = py::none(), py::return_value_policy::reference_internal);
  cls.def("index_put_", [](Tensor& a, py::handle indices, const Tensor& values, bool acc) -> Tensor& {
    tt::TensorList idx;
    for (auto x : py::reinterpret_borrow<py::iterable>(indices)) idx.push_back(x.is_none() ? Tensor() : tensor_from(x, false));
    return tt::index_put_(a, idx, values, acc);
  }, py::arg("indices"), py::arg("values"), py::arg("accumulate") = false, py::return_value_policy::reference_internal);
  auto nonzero_fn = [](const Tensor& a, bool as_tuple) -> py::object {
    Tensor nz = tt::nonzero(a);
    if (!as_tuple) return py::cast(nz);
    py::tuple t(static_cast<size_t>(std::max<int64_t>(a.dim(), 1)));
    for (int64_t i = 0; i < std::max<int64_t>(a.dim(), 1); ++i)
      t[i] = py::cast(a.dim() == 0 ? tt::zeros(Shape{nz.size(0)}, DType::Int64) : tt::contiguous(tt::select(nz, 1, i)));
    return std::move(t);
  };
  def_op(cls, m, "nonzero", nonzero_fn, py::kw_only(), py::arg("as_tuple") = false);
  cls.def("count_nonzero", [](const Tensor& a, py::object dim) {
    return tt::reduce(ReduceOp::Sum, tt::binary(BinaryOp::Ne, a, Scalar::from_int(0)), dims_from(dim), false, std::nullopt);
  }, py::arg("dim") = py::none());

  // ---- linear algebra ----
  auto dot_fn = [](const Tensor& a, const Tensor& b) {
    if (a.dim() != 1 || b.dim() != 1)
      throw tt::ShapeError("dot", {a.shape(), b.shape()}, {}, "1D tensors expected, but got " + std::to_string(a.dim()) + "D and " + std::to_string(b.dim()) + "D tensors");
    return tt::matmul(a, b);
  };
  def_op(cls, m, "dot", dot_fn, py::arg("tensor"));  // torch's schema names it `tensor`
  auto outer_fn = [](const Tensor& a, const Tensor& b) { return tt::binary(BinaryOp::Mul, tt::unsqueeze(a, 1), b); };
  def_op(cls, m, "outer", outer_fn, py::arg("vec2"));
  bind_table_ops(cls, m);
}

}  // namespace ttpy
