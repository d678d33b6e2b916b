// __getitem__ / __setitem__: basic indexing (ints, slices, None, ...) makes views; tensors,
// lists and bool masks switch to advanced indexing (a copy for reads, index_put_ for writes).
#include "convert.h"
#include "typedtensor/autograd.h"

namespace ttpy {
namespace {

struct Parsed {
  Tensor view;             // result of the basic indexing
  tt::TensorList indices;  // advanced indices per dim of `view` (undefined = none)
  bool advanced = false;
};

bool is_int_like(py::handle h) {
  if (PyBool_Check(h.ptr())) return false;
  if (PyLong_Check(h.ptr())) return true;
  if (is_tensor(h)) return false;
  return py::hasattr(h, "__index__") && !py::isinstance<py::array>(h);
}

// Converts a list / array / tensor index into a tensor (bool or int64).
Tensor index_tensor(py::handle h) {
  if (is_tensor(h)) return h.cast<Tensor>();
  Tensor t = tensor_data(h, std::nullopt);
  if (t.dtype() == DType::Float32 && t.numel() == 0) return tt::to_dtype(t, DType::Int64);
  return t;
}

int64_t consumed(py::handle item) {
  if (item.is_none() || item.ptr() == Py_Ellipsis || PyBool_Check(item.ptr())) return 0;
  if (is_tensor(item)) {
    const Tensor& t = item.cast<const Tensor&>();
    return (t.dtype() == DType::Bool || t.dtype() == DType::UInt8) ? std::max<int64_t>(t.dim(), 1) * (t.dim() > 0) : 1;
  }
  if (py::isinstance<py::array>(item) || PyList_Check(item.ptr())) {
    Tensor t = index_tensor(item);
    return t.dtype() == DType::Bool ? t.dim() : 1;
  }
  return 1;
}

Parsed parse(const Tensor& self, py::handle key) {
  py::tuple items;
  if (PyTuple_Check(key.ptr())) items = py::reinterpret_borrow<py::tuple>(key);
  else items = py::make_tuple(key);
  int64_t need = 0;
  bool ellipsis = false;
  for (auto it : items) {
    if (it.ptr() == Py_Ellipsis) {
      if (ellipsis) throw tt::IndexError("an index can only have a single ellipsis ('...')");
      ellipsis = true;
    }
    need += consumed(it);
  }
  if (need > self.dim())
    throw tt::IndexError("too many indices for tensor of dimension " + std::to_string(self.dim()));
  Parsed P;
  Tensor v = self;
  int64_t cur = 0;
  std::vector<std::pair<int64_t, Tensor>> adv;  // (dim in v, index tensor)
  for (auto it : items) {
    PyObject* p = it.ptr();
    if (p == Py_None) {
      v = tt::unsqueeze(v, cur);
      ++cur;
    } else if (p == Py_Ellipsis) {
      cur += self.dim() - need;
    } else if (PyBool_Check(p)) {
      v = tt::unsqueeze(v, cur);
      if (p == Py_False) v = tt::slice(v, cur, 0, 0, 1);
      ++cur;
    } else if (is_int_like(it)) {
      PyObject* index = PyNumber_Index(p);  // NULL with the object's error set (e.g. a foreign many-element tensor)
      if (!index) throw py::error_already_set();
      int64_t i = py::reinterpret_steal<py::object>(index).cast<int64_t>();
      if (cur >= v.dim()) throw tt::IndexError("too many indices for tensor of dimension " + std::to_string(self.dim()));
      int64_t n = v.shape()[cur];
      if (i < -n || i >= n)
        throw tt::IndexError("index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(cur) +
                             " with size " + std::to_string(n));
      v = tt::select(v, cur, i);
    } else if (PySlice_Check(p)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(p, &start, &stop, &step) < 0) throw py::error_already_set();
      if (step <= 0) throw tt::ValueError("step must be greater than zero (negative steps are not supported)");
      PySliceObject* sl = reinterpret_cast<PySliceObject*>(p);
      std::optional<int64_t> a, b;
      if (sl->start != Py_None) a = start;
      if (sl->stop != Py_None) b = stop;
      v = tt::slice(v, cur, a, b, step);
      ++cur;
    } else {
      Tensor t = index_tensor(it);
      if (t.dtype() == DType::Bool || t.dtype() == DType::UInt8) {
        if (t.dim() == 0) {  // x[True] / x[tensor(False)]
          v = tt::unsqueeze(v, cur);
          bool keep = tt::to_dtype(t, DType::Bool).data<bool>()[0];
          adv.push_back({cur, keep ? tt::zeros(Shape{1}, DType::Int64) : tt::zeros(Shape{0}, DType::Int64)});
          ++cur;
          continue;
        }
        for (int64_t k = 0; k < t.dim(); ++k)
          if (t.shape()[k] != v.shape()[cur + k])
            throw tt::IndexError("the shape of the mask " + tt::shape_str(t.shape()) + " at index " + std::to_string(k) +
                                 " does not match the shape of the indexed tensor " + tt::shape_str(v.shape()) +
                                 " at index " + std::to_string(cur + k));
        Tensor nz = tt::nonzero(t);
        for (int64_t k = 0; k < t.dim(); ++k) adv.push_back({cur + k, tt::contiguous(tt::select(nz, 1, k))});
        cur += t.dim();
      } else if (t.dtype() == DType::Int64 || t.dtype() == DType::Int32) {
        adv.push_back({cur, t});
        ++cur;
      } else {
        throw tt::IndexError("tensors used as indices must be long, int, byte or bool tensors");
      }
    }
  }
  P.view = v;
  if (!adv.empty()) {
    P.advanced = true;
    P.indices.resize(static_cast<size_t>(v.dim()));
    for (auto& [d, t] : adv) P.indices[d] = t;
    while (!P.indices.empty() && !P.indices.back().defined()) P.indices.pop_back();
  }
  return P;
}

}  // namespace

py::object getitem(const Tensor& t, py::handle key) {
  // fast path: a single int
  if (PyLong_Check(key.ptr()) && !PyBool_Check(key.ptr())) {
    if (t.dim() == 0) throw tt::IndexError("invalid index of a 0-dim tensor");
    return py::cast(tt::select(t, 0, key.cast<int64_t>()));
  }
  Parsed P = parse(t, key);
  if (!P.advanced) return py::cast(P.view);
  return py::cast(tt::index(P.view, P.indices));
}

void setitem(Tensor& t, py::handle key, py::handle value) {
  Scalar s;
  bool scalar = scalar_from(value, &s);
  // recorded by autograd, or traced by tt.compile (functionalized: the write becomes a scatter)
  bool recorded = tt::grad_mode_enabled() &&
                  (t.requires_grad() || (!scalar && is_tensor(value) && value.cast<const Tensor&>().requires_grad()));
  if (recorded || tt::current_tracer()) {
    Tensor v = scalar ? tt::scalar_tensor(s, t.dtype()) : tensor_from(value, false);
    {  // recorded: positions of the key, then a scatter
      Tensor pos = tt::reshape(tt::arange(Scalar::from_int(0), Scalar::from_int(t.numel()), Scalar::from_int(1), DType::Int64), t.shape());
      Parsed Q = parse(pos, key);
      tt::autograd::assign_positions_(t, Q.advanced ? tt::index(Q.view, Q.indices) : Q.view, v);
      return;
    }
  }
  Parsed P = parse(t, key);
  if (!P.advanced) {
    if (scalar) {
      tt::fill_(P.view, s);
    } else {
      // as torch: the value's leading size-1 dims beyond the target's rank are dropped (x[0] = v[None])
      Tensor v = tensor_from(value, false);
      while (v.dim() > P.view.dim() && v.shape()[0] == 1) v = tt::squeeze(v, tt::Dims{0});
      tt::copy_(P.view, v);
    }
    return;
  }
  Tensor vals = scalar ? tt::scalar_tensor(s, t.dtype()) : tensor_from(value, false);
  tt::index_put_(P.view, P.indices, vals, false);
}

}  // namespace ttpy
