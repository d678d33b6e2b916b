// Autograd bindings: Tensor.backward/grad/requires_grad/..., grad_fn objects, and _C._run_backward
// (the single entry point used by typedtensor.autograd). No autograd logic here.
#include "convert.h"
#include "typedtensor/autograd.h"
#include "typedtensor/graph.h"

namespace ttpy {
namespace {

tt::TensorList tensor_list(py::handle h, const char* what) {
  tt::TensorList out;
  if (is_tensor(h)) {
    out.push_back(h.cast<Tensor>());
    return out;
  }
  for (py::handle x : h) {
    if (x.is_none()) out.emplace_back();
    else if (is_tensor(x)) out.push_back(x.cast<Tensor>());
    else throw tt::TypeError(std::string(what) + " must be tensors (or None)");
  }
  return out;
}

void check_float_for_grad(const Tensor& t) {
  if (!tt::is_floating(t.dtype()))
    throw tt::TypeError(std::string("only tensors of floating point dtype can require gradients, got ") +
                        tt::dtype_name(t.dtype()));
}

void set_requires_grad(const Tensor& t, bool v) {
  if (v) check_float_for_grad(t);
  if (!v && t.impl()->autograd && t.impl()->autograd->grad_fn)
    throw std::runtime_error(
        "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
        "subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  if (v || t.impl()->autograd) t.autograd_meta().requires_grad = v;
}

py::object grad_fn_of(const Tensor& t) {
  if (!t.impl()->autograd || !t.impl()->autograd->grad_fn) return py::none();
  return py::cast(t.impl()->autograd->grad_fn);
}

// A Python callable held by a C++ hook: dropped with the GIL held, whichever thread frees the tensor.
struct PyCallable {
  py::object fn;
  explicit PyCallable(py::object f) : fn(std::move(f)) {}
  PyCallable(const PyCallable&) = delete;
  PyCallable& operator=(const PyCallable&) = delete;
  ~PyCallable() {
    if (!Py_IsInitialized()) {
      fn.release();  // interpreter gone: nothing left to decref into
      return;
    }
    py::gil_scoped_acquire gil;
    fn = py::object();
  }
};

// torch.utils.hooks.RemovableHandle's shape for tensor hooks: remove() (idempotent), a context manager.
struct HookHandle {
  std::weak_ptr<tt::TensorImpl> tensor;
  uint64_t id;
  void remove() {
    if (auto impl = tensor.lock()) tt::autograd::remove_hook(Tensor(impl), id);
    tensor.reset();
  }
};

tt::GradHook grad_hook(py::object fn) {
  auto held = std::make_shared<PyCallable>(std::move(fn));
  return [held](const Tensor& g) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = held->fn(g);
    if (r.is_none()) return Tensor();
    if (!is_tensor(r)) throw tt::TypeError("a tensor hook must return a Tensor or None");
    return r.cast<Tensor>();
  };
}

tt::PostAccumulateHook post_accumulate_hook(py::object fn) {
  auto held = std::make_shared<PyCallable>(std::move(fn));
  return [held](const Tensor& leaf) {
    py::gil_scoped_acquire gil;
    py::object r = held->fn(leaf);
    if (!r.is_none()) throw std::runtime_error("post accumulate grad hooks must return None");
  };
}

void check_callable(const py::object& fn) {
  if (!PyCallable_Check(fn.ptr())) throw tt::TypeError("hook must be callable");
}

}  // namespace

void bind_autograd(py::module_& m) {
  tt::autograd::install();
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));

  py::class_<tt::Node, std::shared_ptr<tt::Node>>(m, "Node")
      .def("name", &tt::Node::name)
      .def_property_readonly("next_functions", [](const tt::Node& n) {
        py::list r;
        for (const auto& e : n.next)
          r.append(py::make_tuple(e.fn ? py::cast(e.fn) : py::none(), e.input_nr));
        return py::tuple(r);
      })
      .def_property_readonly("variable", [](const tt::Node& n) -> py::object {
        // torch's AccumulateGrad.variable: the leaf this node accumulates into
        if (const auto* acc = dynamic_cast<const tt::AccumulateGrad*>(&n)) return py::cast(Tensor(acc->leaf()));
        throw py::attribute_error("'" + n.name() + "' object has no attribute 'variable'");
      })
      .def("__repr__", [](const tt::Node& n) { return "<" + n.name() + ">"; });

  py::class_<HookHandle>(m, "RemovableHandle")
      .def_readonly("id", &HookHandle::id)
      .def("remove", &HookHandle::remove)
      .def("__enter__", [](HookHandle& h) -> HookHandle& { return h; }, py::return_value_policy::reference)
      .def("__exit__", [](HookHandle& h, py::args) { h.remove(); });

  m.def("_autograd_reaches", [](py::handle roots, py::handle leaves) {
    return tt::autograd::reaches_leaves(tensor_list(roots, "roots"), tensor_list(leaves, "leaves"));
  }, py::arg("roots"), py::arg("leaves"));

  cls.def_property("requires_grad", &Tensor::requires_grad, &set_requires_grad)
      .def("requires_grad_", [](Tensor& t, bool v) -> Tensor& {
        set_requires_grad(t, v);
        return t;
      }, py::arg("requires_grad") = true, py::return_value_policy::reference_internal)
      .def_property("grad", [](const Tensor& t) -> py::object {
        if (!t.impl()->autograd || !t.impl()->autograd->grad) return py::none();
        return py::cast(Tensor(t.impl()->autograd->grad));
      }, [](py::object self, py::object g) {
        const Tensor& t = self.cast<const Tensor&>();
        if (g.is_none()) {
          // `p.grad = None` inside a function tt.compile traces: the compiled step's gradients then
          // replace .grad after each call instead of adding to it, as opt.zero_grad() there does
          // (note_grad_reset in typedtensor/graph/compiled.py)
          if (dynamic_cast<tt::graph::GraphTracer*>(tt::current_tracer()) != nullptr)
            py::module_::import("typedtensor.graph.compiled").attr("note_grad_reset")(py::make_tuple(self));
          if (t.impl()->autograd) t.impl()->autograd->grad.reset();
          return;
        }
        if (!is_tensor(g)) throw tt::TypeError("assigned grad must be a Tensor or None");
        const Tensor& gt = g.cast<const Tensor&>();
        if (gt.shape() != t.shape())
          throw tt::ValueError("assigned grad has shape " + tt::shape_str(gt.shape()) + " but the tensor has " +
                               tt::shape_str(t.shape()));
        if (gt.dtype() != t.dtype())
          throw tt::TypeError(std::string("assigned grad has dtype ") + tt::dtype_name(gt.dtype()) +
                              " but the tensor has " + tt::dtype_name(t.dtype()));
        t.autograd_meta().grad = gt.impl_ptr();
      })
      .def_property_readonly("is_leaf", [](const Tensor& t) { return !t.impl()->autograd || !t.impl()->autograd->grad_fn; })
      .def_property_readonly("grad_fn", &grad_fn_of)
      .def_property_readonly("retains_grad", [](const Tensor& t) { return t.impl()->autograd && t.impl()->autograd->retains_grad; })
      .def("retain_grad", [](const Tensor& t) { tt::autograd::retain_grad(t); })
      .def("register_hook", [](const Tensor& t, py::object hook) {
        check_callable(hook);
        return HookHandle{t.impl_ptr(), tt::autograd::add_grad_hook(t, grad_hook(std::move(hook)))};
      }, py::arg("hook"))
      .def("register_post_accumulate_grad_hook", [](const Tensor& t, py::object hook) {
        check_callable(hook);
        return HookHandle{t.impl_ptr(), tt::autograd::add_post_accumulate_hook(t, post_accumulate_hook(std::move(hook)))};
      }, py::arg("hook"))
      .def_property("data", &tt::autograd::detach, [](const Tensor& t, const Tensor& src) {
        // torch's `x.data = y`: x takes y's memory and geometry, keeping its own autograd identity
        tt::TensorImpl* d = t.impl();
        d->storage = src.storage();
        d->shape = src.shape();
        d->strides = src.strides();
        d->offset = src.offset();
        d->dtype = src.dtype();
      })
      .def("detach", &tt::autograd::detach)
      .def("detach_", [](Tensor& t) -> Tensor& {
        if (t.impl()->autograd) {
          t.impl()->autograd->requires_grad = false;
          t.impl()->autograd->grad_fn.reset();
          t.impl()->autograd->retains_grad = false;
        }
        return t;
      }, py::return_value_policy::reference_internal)
      .def("backward", [](const Tensor& t, py::object gradient, py::object retain_graph, bool create_graph,
                          py::handle inputs) {
        tt::TensorList g{gradient.is_none() ? Tensor() : tensor_from(gradient)};
        bool retain = retain_graph.is_none() ? create_graph : retain_graph.cast<bool>();
        tt::TensorList ins = inputs.is_none() ? tt::TensorList() : tensor_list(inputs, "inputs");
        if (!inputs.is_none() && ins.empty()) throw std::runtime_error("`inputs` argument to `backward()` cannot be empty.");
        tt::autograd::run_backward({t}, g, retain, create_graph, ins, false, !ins.empty());
      }, py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(), py::arg("create_graph") = false,
         py::arg("inputs") = py::none());

  m.def("_run_backward", [](py::handle tensors, py::handle grads, bool retain_graph, bool create_graph,
                            py::handle inputs, bool allow_unused, bool accumulate_grad) {
    tt::TensorList roots = tensor_list(tensors, "tensors");
    tt::TensorList groots = grads.is_none() ? tt::TensorList(roots.size()) : tensor_list(grads, "grad_tensors");
    tt::TensorList ins = inputs.is_none() ? tt::TensorList() : tensor_list(inputs, "inputs");
    tt::TensorList res =
        tt::autograd::run_backward(roots, groots, retain_graph, create_graph, ins, allow_unused, accumulate_grad);
    py::list out;
    for (auto& r : res) out.append(r.defined() ? py::cast(r) : py::none());
    return out;
  }, py::arg("tensors"), py::arg("grad_tensors"), py::arg("retain_graph"), py::arg("create_graph"),
     py::arg("inputs"), py::arg("allow_unused"), py::arg("accumulate_grad") = false);
}

}  // namespace ttpy
