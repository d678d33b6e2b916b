// Module-level functions of typedtensor._C: creation, random, joining, nn ops, threads, interop.
#include "convert.h"

#include <algorithm>

#include "typedtensor/attention.h"
#include "typedtensor/blas.h"
#include "typedtensor/cpu_capability.h"
#include "typedtensor/rnn.h"

namespace ttpy {
using tt::BinaryOp;

namespace {
DType float_default(py::object dtype) { return dtype_or(dtype, tt::kDefaultFloat); }

// generator= of a random function: while it lives, this thread's draws come from that tt.Generator
// (NOTE [ Generators ]); torch's rule that the generator's device type be the result's is kept.
class GeneratorArg {
 public:
  GeneratorArg(py::handle generator, tt::Device target, const char* op) {
    if (generator.is_none()) return;
    if (!py::isinstance<tt::Generator>(generator))
      throw tt::TypeError(std::string("[") + op + "] generator must be a typedtensor.Generator, got " +
                          std::string(py::str(py::type::handle_of(generator).attr("__name__"))));
    const auto& g = generator.cast<const tt::Generator&>();
    if (g.device().type != target.type)
      throw tt::ValueError(std::string("[") + op + "] expected a '" + (target.type == tt::DeviceType::CUDA ? "cuda" : "cpu") +
                           "' device type for generator but found '" +
                           (g.device().type == tt::DeviceType::CUDA ? "cuda" : "cpu") + "'");
    scope_.emplace(&g);
  }

 private:
  std::optional<tt::GeneratorScope> scope_;
};
}  // namespace

#define TT_CREATION_ARGS py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false
#define TT_CREATION_KW py::kw_only(), TT_CREATION_ARGS
// torch's factories take their sizes as f(2, 3), f((2, 3)) or f(size=(2, 3))
#define TT_SIZE_KW py::kw_only(), py::arg("size") = py::none()

void bind_functions(py::module_& m) {
  m.def("tensor", [](py::handle data, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device));
    return host_tensor(data, "tensor()", [&] {
      return with_grad(placed(tensor_data(data, dtype_from(dtype)), device_arg(device)), rg);
    });
  }, py::arg("data"), TT_CREATION_KW);
  m.def("as_tensor", [](py::handle data, py::object dtype, py::object device) {
    tt::DeviceScope ds(device_arg(device));
    if (is_tensor(data)) {
      const Tensor& t = data.cast<const Tensor&>();
      return placed(tt::to_dtype(t, dtype_or(dtype, t.dtype())), device_arg(device, t.device()));
    }
    if (py::isinstance<py::array>(data) && dtype.is_none()) {
      try {
        return host_tensor(data, "as_tensor()", [&] {
          return placed(from_numpy(py::reinterpret_borrow<py::array>(data)), device_arg(device));
        });
      } catch (const tt::ValueError&) {
      }
    }
    return host_tensor(data, "as_tensor()", [&] { return placed(tensor_data(data, dtype_from(dtype)), device_arg(device)); });
  }, py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def("from_numpy", [](py::handle a) {
    if (!py::isinstance<py::array>(a)) throw tt::TypeError("from_numpy: expected a numpy.ndarray");
    return host_tensor(a, "from_numpy()", [&] { return from_numpy(py::reinterpret_borrow<py::array>(a)); });
  }, py::arg("ndarray"));
  m.def("from_dlpack", [](py::handle obj) {
    return host_tensor(obj, "from_dlpack()", [&] { return from_dlpack(obj); });
  }, py::arg("ext_tensor"));
  // A tensor over `nbytes` of a Python buffer (an mmap of a safetensors file), sharing its memory. The
  // buffer stays exported (an mmap cannot be closed) while any tensor over it lives.
  m.def("_frombuffer", [](py::buffer b, py::handle dtype, const std::vector<int64_t>& shape, int64_t offset) {
    DType d = dtype_required(dtype, "frombuffer");
    Shape s(shape);
    int64_t numel = tt::shape_numel(s);
    auto isz = static_cast<int64_t>(tt::itemsize(d));
    // the export is released (under the GIL) when the storage dies
    std::shared_ptr<py::buffer_info> info(new py::buffer_info(b.request()), [](py::buffer_info* p) {
      py::gil_scoped_acquire g;
      delete p;
    });
    if (info->ndim != 1 || info->strides[0] != info->itemsize)
      throw tt::ValueError("_frombuffer: expected a contiguous one-dimensional buffer");
    int64_t nbytes = 0, end = 0;
    if (__builtin_mul_overflow(numel, isz, &nbytes) || offset < 0 || __builtin_add_overflow(offset, nbytes, &end) ||
        end > static_cast<int64_t>(info->size * info->itemsize))
      throw tt::ValueError("_frombuffer: the tensor's bytes lie outside the buffer");
    auto* data = static_cast<char*>(info->ptr) + offset;
    if (reinterpret_cast<uintptr_t>(data) % static_cast<uintptr_t>(isz) != 0)
      throw tt::ValueError("_frombuffer: the tensor's bytes are not aligned to its element size");
    bool writable = !info->readonly;
    return tt::from_blob(data, s, tt::contiguous_strides(s), d, std::move(info), writable);
  }, py::arg("buffer"), py::arg("dtype"), py::arg("shape"), py::arg("offset"));

  m.def("to_dlpack", &to_dlpack, py::arg("tensor"));
  m.def("is_tensor", [](py::handle h) { return is_tensor(h); }, py::arg("obj"));

  m.def("zeros", [](py::args s, py::object size, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device));
    return with_grad(tt::zeros(shape_from_args_or_size(s, size, "zeros"), float_default(dtype)), rg);
  }, TT_SIZE_KW, TT_CREATION_ARGS);
  m.def("ones", [](py::args s, py::object size, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device));
    return with_grad(tt::ones(shape_from_args_or_size(s, size, "ones"), float_default(dtype)), rg);
  }, TT_SIZE_KW, TT_CREATION_ARGS);
  m.def("empty", [](py::args s, py::object size, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device));
    return with_grad(tt::empty(shape_from_args_or_size(s, size, "empty"), float_default(dtype)), rg);
  }, TT_SIZE_KW, TT_CREATION_ARGS);
  m.def("full", [](py::handle s, py::handle v, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device));
    return with_grad(tt::full(shape_from(s, "full"), scalar_arg(v, "full"), dtype_from(dtype)), rg);
  }, py::arg("size"), py::arg("fill_value"), TT_CREATION_KW);
  m.def("zeros_like", [](const Tensor& a, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device, a.device()));
    return with_grad(tt::zeros(a.shape(), dtype_or(dtype, a.dtype())), rg);
  }, py::arg("input"), TT_CREATION_KW);
  m.def("ones_like", [](const Tensor& a, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device, a.device()));
    return with_grad(tt::ones(a.shape(), dtype_or(dtype, a.dtype())), rg);
  }, py::arg("input"), TT_CREATION_KW);
  m.def("empty_like", [](const Tensor& a, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device, a.device()));
    return with_grad(tt::empty(a.shape(), dtype_or(dtype, a.dtype())), rg);
  }, py::arg("input"), TT_CREATION_KW);
  m.def("full_like", [](const Tensor& a, py::handle v, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device, a.device()));
    return with_grad(tt::full(a.shape(), scalar_arg(v, "full_like"), dtype_or(dtype, a.dtype())), rg);
  }, py::arg("input"), py::arg("fill_value"), TT_CREATION_KW);
  m.def("arange", [](py::handle a, py::handle b, py::handle step, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device));
    Scalar s0 = Scalar::from_int(0), s1, st = Scalar::from_int(1);
    if (b.is_none()) {
      s1 = scalar_arg(a, "arange");
    } else {
      s0 = scalar_arg(a, "arange");
      s1 = scalar_arg(b, "arange");
    }
    if (!step.is_none()) st = scalar_arg(step, "arange");
    return with_grad(placed(tt::arange(s0, s1, st, dtype_from(dtype)), device_arg(device)), rg);
  }, py::arg("start"), py::arg("end") = py::none(), py::arg("step") = py::none(), TT_CREATION_KW);
  m.def("linspace", [](double a, double b, int64_t steps, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device));
    return with_grad(placed(tt::linspace(a, b, steps, float_default(dtype)), device_arg(device)), rg);
  }, py::arg("start"), py::arg("end"), py::arg("steps"), TT_CREATION_KW);
  m.def("eye", [](int64_t n, py::object mm, py::object dtype, py::object device, bool rg) {
    tt::DeviceScope ds(device_arg(device));
    return with_grad(placed(tt::eye(n, mm.is_none() ? n : mm.cast<int64_t>(), float_default(dtype)), device_arg(device)), rg);
  }, py::arg("n"), py::arg("m") = py::none(), TT_CREATION_KW);

  // random
  m.def("_cpu_cache_info", [] {
    auto s = tt::cpu_cache_stats();
    py::dict d;
    d["held_bytes"] = s.held_bytes;
    d["buffers"] = s.buffers;
    d["hits"] = s.hits;
    d["misses"] = s.misses;
    d["limit_bytes"] = s.limit_bytes;
    return d;
  });
  m.def("_cpu_capability", [] { return tt::cpu_capability(); });
  m.def("_cpu_set_capability", [](const std::string& name) { tt::set_cpu_capability(name); });
  m.def("_fused_attention", &tt::fused_attention, py::arg("query"), py::arg("key"), py::arg("value"),
        py::arg("attn_mask") = py::none(), py::arg("is_causal") = false, py::arg("scale") = 1.0);
  m.def("_rnn_layer", &tt::rnn_layer, py::arg("cell"), py::arg("xproj"), py::arg("h0"), py::arg("c0"), py::arg("w_hh"),
        py::arg("b_hh"), py::arg("w_hr"), py::arg("batch_sizes"), py::arg("reverse"));
  m.def("_cpu_blas", [] { return tt::blas_library(); });
  m.def("_cpu_blas_available", [] { return tt::blas_available(); });
  m.def("_cpu_blas_has_bf16_gemm", [] { return tt::blas_has_bf16_gemm(); });
  m.def("_cpu_set_blas", [](const std::string& name) { tt::set_blas(name); });
  m.def("_set_float32_matmul_precision",
        [](int p) { tt::set_float32_matmul_precision(static_cast<tt::MatmulPrecision>(std::clamp(p, 0, 2))); });
  m.def("_float32_matmul_precision", [] { return static_cast<int>(tt::float32_matmul_precision()); });
  m.def("_cpu_set_blas_mkl_path", [](const std::string& path) { tt::set_blas_mkl_path(path); });
  m.def("_cpu_cache_empty", [] { tt::cpu_cache_empty(); });
  m.def("_cpu_cache_set_limit", [](size_t bytes) { tt::cpu_cache_set_limit(bytes); });
  m.def("manual_seed", [](py::int_ seed) {
    tt::manual_seed(static_cast<uint64_t>(PyLong_AsUnsignedLongLongMask(seed.ptr())));
  }, py::arg("seed"));
  m.def("initial_seed", &tt::initial_seed);
  m.def("rand", [](py::args s, py::object size, py::object generator, py::object dtype, py::object device, bool rg) {
    GeneratorArg ga(generator, device_arg(device), "rand");
    tt::DeviceScope ds(device_arg(device));
    return with_grad(tt::rand(shape_from_args_or_size(s, size, "rand"), float_default(dtype)), rg);
  }, TT_SIZE_KW, py::arg("generator") = py::none(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
     py::arg("requires_grad") = false);
  // uniform_'s draws on [low, high) (typedtensor/_runtime/sampling.py): one pass instead of rand's
  // draws scaled in double by separate ops
  m.def("_rand_range", [](py::object shape, double low, double high, py::object generator, py::object dtype,
                          py::object device) {
    GeneratorArg ga(generator, device_arg(device), "uniform_");
    tt::DeviceScope ds(device_arg(device));
    return tt::rand(shape_from(shape, "uniform_"), float_default(dtype), low, high);
  }, py::arg("shape"), py::arg("low"), py::arg("high"), py::arg("generator") = py::none(),
     py::arg("dtype") = py::none(), py::arg("device") = py::none());
  // normal_'s draws with their mean and std applied as torch's kernel applies them
  m.def("_randn_scaled", [](py::object shape, double mean, double std, py::object generator, py::object dtype,
                            py::object device) {
    GeneratorArg ga(generator, device_arg(device), "normal_");
    tt::DeviceScope ds(device_arg(device));
    return tt::randn(shape_from(shape, "normal_"), float_default(dtype), mean, std);
  }, py::arg("shape"), py::arg("mean"), py::arg("std"), py::arg("generator") = py::none(),
     py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def("randn", [](py::args s, py::object size, py::object generator, py::object dtype, py::object device, bool rg) {
    GeneratorArg ga(generator, device_arg(device), "randn");
    tt::DeviceScope ds(device_arg(device));
    return with_grad(tt::randn(shape_from_args_or_size(s, size, "randn"), float_default(dtype)), rg);
  }, TT_SIZE_KW, py::arg("generator") = py::none(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
     py::arg("requires_grad") = false);
  m.def("rand_like", [](const Tensor& a, py::object dtype) {
    tt::DeviceScope ds(a.device());
    return tt::rand(a.shape(), dtype_or(dtype, a.dtype()));
  },
        py::arg("input"), py::kw_only(), py::arg("dtype") = py::none());
  m.def("randn_like", [](const Tensor& a, py::object dtype) {
    tt::DeviceScope ds(a.device());
    return tt::randn(a.shape(), dtype_or(dtype, a.dtype()));
  },
        py::arg("input"), py::kw_only(), py::arg("dtype") = py::none());
  m.def("randint", [](py::args args, py::object size, py::object generator, py::object dtype, py::object device) {
    GeneratorArg ga(generator, device_arg(device), "randint");
    tt::DeviceScope ds(device_arg(device));
    // randint(high, size) or randint(low, high, size)
    std::vector<py::object> a;
    for (auto x : args) a.push_back(py::reinterpret_borrow<py::object>(x));
    if (!size.is_none()) a.push_back(size);
    if (a.size() == 2) return tt::randint(0, a[0].cast<int64_t>(), shape_from(a[1], "randint"), dtype_or(dtype, DType::Int64));
    if (a.size() == 3) return tt::randint(a[0].cast<int64_t>(), a[1].cast<int64_t>(), shape_from(a[2], "randint"), dtype_or(dtype, DType::Int64));
    throw tt::TypeError("randint(low=0, high, size, *, dtype=None): expected high and size");
  }, py::kw_only(), py::arg("size") = py::none(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none());
  m.def("randint_like", [](const Tensor& a, int64_t low, py::object high, py::object dtype) {
    tt::DeviceScope ds(a.device());
    if (high.is_none()) return tt::randint(0, low, a.shape(), dtype_or(dtype, a.dtype()));
    return tt::randint(low, high.cast<int64_t>(), a.shape(), dtype_or(dtype, a.dtype()));
  }, py::arg("input"), py::arg("low"), py::arg("high") = py::none(), py::kw_only(), py::arg("dtype") = py::none());
  m.def("randperm", [](int64_t n, py::object generator, py::object dtype, py::object device) {
    GeneratorArg ga(generator, device_arg(device), "randperm");
    tt::DeviceScope ds(device_arg(device));
    return placed(tt::randperm(n, dtype_or(dtype, DType::Int64)), device_arg(device));
  }, py::arg("n"), py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none());
  m.def("bernoulli", [](const Tensor& p, py::object pp, py::object generator) {
    GeneratorArg ga(generator, p.device(), "bernoulli");
    tt::DeviceScope ds(p.device());
    if (!pp.is_none()) return tt::bernoulli(p, scalar_arg(pp, "bernoulli").to_double());
    return tt::bernoulli(p);
  }, py::arg("input"), py::arg("p") = py::none(), py::kw_only(), py::arg("generator") = py::none());

  // NOTE [ Generators ] (typedtensor/ops.h)
  py::class_<tt::Generator>(m, "Generator")
      .def(py::init([](py::object device) { return tt::Generator(device_arg(device)); }), py::arg("device") = "cpu")
      .def_property_readonly("device", [](const tt::Generator& g) { return device_object(g.device()); })
      .def("manual_seed", [](py::object self, py::int_ seed) {
        self.cast<tt::Generator&>().manual_seed(static_cast<uint64_t>(PyLong_AsUnsignedLongLongMask(seed.ptr())));
        return self;
      }, py::arg("seed"))
      .def("initial_seed", &tt::Generator::initial_seed)
      .def("get_state", [](const tt::Generator& g) {
        std::vector<uint8_t> bytes = g.get_state();
        Tensor t = tt::empty(Shape{static_cast<int64_t>(bytes.size())}, DType::UInt8, tt::Device{});
        std::copy(bytes.begin(), bytes.end(), t.data<uint8_t>());
        return t;
      })
      .def("set_state", [](py::object self, const Tensor& state) {
        if (state.dtype() != DType::UInt8 || state.dim() != 1)
          throw tt::TypeError("[Generator.set_state] expected the 1-d uint8 tensor get_state() returns");
        Tensor c = tt::contiguous(tt::to_device(state, tt::Device{}));
        const uint8_t* p = c.data<uint8_t>();
        self.cast<tt::Generator&>().set_state(std::vector<uint8_t>(p, p + c.numel()));
        return self;
      }, py::arg("new_state"));
  m.attr("default_generator") = py::cast(tt::default_generator());

  // joining
  for (const char* n : {"cat", "concat", "concatenate"})
    m.def(n, [](py::handle xs, int64_t dim) { return tt::cat(tensors_from(xs), dim); }, py::arg("tensors"), py::arg("dim") = 0);
  m.def("stack", [](py::handle xs, int64_t dim) { return tt::stack(tensors_from(xs), dim); }, py::arg("tensors"), py::arg("dim") = 0);
  m.def("hstack", [](py::handle xs) {
    auto ts = tensors_from(xs);
    return tt::cat(ts, ts.at(0).dim() == 1 ? 0 : 1);
  }, py::arg("tensors"));
  m.def("vstack", [](py::handle xs) {
    auto ts = tensors_from(xs);
    for (auto& t : ts)
      if (t.dim() == 1) t = tt::unsqueeze(t, 0);
    return tt::cat(ts, 0);
  }, py::arg("tensors"));
  m.def("where", [](py::handle cond, py::handle a, py::handle b) -> py::object {
    if (a.is_none() && b.is_none()) {
      const Tensor& c = cond.cast<const Tensor&>();
      Tensor nz = tt::nonzero(c);
      py::tuple t(static_cast<size_t>(c.dim()));
      for (int64_t i = 0; i < c.dim(); ++i) t[i] = py::cast(tt::contiguous(tt::select(nz, 1, i)));
      return std::move(t);
    }
    return py::cast(tt::where(tensor_from(cond), tensor_from(a), tensor_from(b)));
  }, py::arg("condition"), py::arg("input") = py::none(), py::arg("other") = py::none());
  m.def("einsum", [](const std::string& eq, py::args ops) {
    tt::TensorList xs;
    if (ops.size() == 1 && !is_tensor(ops[0])) xs = tensors_from(ops[0]);
    else
      for (auto o : ops) xs.push_back(tensor_from(o, false));
    return tt::einsum(eq, xs);
  }, py::arg("equation"));
  m.def("tensordot", [](const Tensor& a, const Tensor& b, py::object dims) {
    tt::Dims da, db;
    if (PyLong_Check(dims.ptr())) {
      int64_t k = dims.cast<int64_t>();
      if (k < 0 || k > a.dim() || k > b.dim()) throw tt::ValueError("tensordot: dims out of range");
      for (int64_t i = 0; i < k; ++i) {
        da.push_back(a.dim() - k + i);
        db.push_back(i);
      }
    } else {
      py::sequence s = dims;
      da = dims_required(s[0], "tensordot");
      db = dims_required(s[1], "tensordot");
    }
    if (da.size() != db.size()) throw tt::ValueError("tensordot: both dim lists must have the same length");
    std::string la, lb, out;
    for (int64_t i = 0; i < a.dim(); ++i) la += static_cast<char>('a' + i);
    for (int64_t i = 0; i < b.dim(); ++i) lb += static_cast<char>('n' + i);
    for (size_t i = 0; i < da.size(); ++i) {
      int64_t x = da[i] < 0 ? da[i] + a.dim() : da[i], y = db[i] < 0 ? db[i] + b.dim() : db[i];
      if (x < 0 || x >= a.dim() || y < 0 || y >= b.dim()) throw tt::ValueError("tensordot: dim out of range");
      lb[y] = la[x];
    }
    for (char c : la)
      if (lb.find(c) == std::string::npos) out += c;
    for (char c : lb)
      if (la.find(c) == std::string::npos) out += c;
    return tt::einsum(la + "," + lb + "->" + out, {a, b});
  }, py::arg("a"), py::arg("b"), py::arg("dims") = 2);
  m.def("broadcast_shapes", [](py::args shapes) {
    Shape s;
    for (auto x : shapes) s = tt::broadcast_shapes(s, shape_from(x, "broadcast_shapes"), "broadcast_shapes");
    return shape_tuple(s);
  });
  m.def("broadcast_tensors", [](py::args xs) {
    tt::TensorList ts;
    for (auto x : xs) ts.push_back(x.cast<Tensor>());
    Shape s;
    for (auto& t : ts) s = tt::broadcast_shapes(s, t.shape(), "broadcast_tensors");
    py::tuple out(ts.size());
    for (size_t i = 0; i < ts.size(); ++i) out[i] = py::cast(tt::expand(ts[i], s));
    return out;
  });
  m.def("result_type", [](py::handle a, py::handle b) { return dtype_object(tt::result_type(tensor_from(a), tensor_from(b))); },
        py::arg("tensor1"), py::arg("tensor2"));
  m.def("promote_types", [](py::handle a, py::handle b) { return dtype_object(tt::promote_types(dtype_required(a, "promote_types"), dtype_required(b, "promote_types"))); },
        py::arg("type1"), py::arg("type2"));
  m.def("can_cast", [](py::handle a, py::handle b) {
    DType f = dtype_required(a, "can_cast"), t = dtype_required(b, "can_cast");
    return !(tt::is_floating(f) && !tt::is_floating(t)) && !(f != DType::Bool && t == DType::Bool);
  }, py::arg("from_"), py::arg("to"));

  // nn ops (the Python layer mounts these at typedtensor.nn.functional)
  m.def("linear", [](const Tensor& x, const Tensor& w, py::object b) {
    if (b.is_none()) return tt::linear(x, w, nullptr);
    const Tensor& bt = b.cast<const Tensor&>();
    return tt::linear(x, w, &bt);
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none());
  // the fused kernel behind nn.functional.cross_entropy's common case (2-D logits, class indices)
  m.def("_cross_entropy_indices", [](const Tensor& x, const Tensor& t, int64_t ignore_index, bool mean) {
    return tt::cross_entropy_indices(x, t, ignore_index, mean);
  }, py::arg("input"), py::arg("target"), py::arg("ignore_index"), py::arg("mean"));
  m.def("layer_norm", [](const Tensor& x, py::handle ns, py::object w, py::object b, double eps) {
    Tensor wt, bt;
    if (!w.is_none()) wt = w.cast<Tensor>();
    if (!b.is_none()) bt = b.cast<Tensor>();
    return tt::layer_norm(x, shape_from(ns, "layer_norm"), w.is_none() ? nullptr : &wt, b.is_none() ? nullptr : &bt, eps);
  }, py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  m.def("conv2d", [](const Tensor& x, const Tensor& w, py::object b, py::handle stride, py::handle padding,
                     py::handle dilation, int64_t groups) {
    Tensor bt;
    if (!b.is_none()) bt = b.cast<Tensor>();
    std::pair<int64_t, int64_t> pad;
    if (py::isinstance<py::str>(padding)) {
      std::string p = py::str(padding);
      auto dl = pair_from(dilation, "dilation");
      if (p == "valid") {
        pad = {0, 0};
      } else if (p == "same") {
        auto st = pair_from(stride, "stride");
        if (st.first != 1 || st.second != 1) throw tt::ValueError("padding='same' is not supported for strided convolutions");
        return tt::conv2d_same(x, w, b.is_none() ? nullptr : &bt, dl, groups);
      } else {
        throw tt::ValueError("invalid padding string '" + p + "', should be one of {'valid', 'same'}");
      }
    } else {
      pad = pair_from(padding, "padding");
    }
    return tt::conv2d(x, w, b.is_none() ? nullptr : &bt, pair_from(stride, "stride"), pad, pair_from(dilation, "dilation"), groups);
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = 0,
     py::arg("dilation") = 1, py::arg("groups") = 1);
  m.def("conv_transpose2d", [](const Tensor& x, const Tensor& w, py::object b, py::handle stride, py::handle padding,
                               py::handle output_padding, int64_t groups, py::handle dilation) {
    Tensor bt;
    if (!b.is_none()) bt = b.cast<Tensor>();
    return tt::conv_transpose2d(x, w, b.is_none() ? nullptr : &bt, pair_from(stride, "stride"), pair_from(padding, "padding"),
                                pair_from(output_padding, "output_padding"), groups, pair_from(dilation, "dilation"));
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = 0,
     py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("dilation") = 1);
  m.def("max_pool2d", [](const Tensor& x, py::handle k, py::object s, py::handle p, py::handle d, bool ceil_mode, bool ret) -> py::object {
    auto kk = pair_from(k, "kernel_size");
    auto ss = (s.is_none() || (PySequence_Check(s.ptr()) && py::len(s) == 0)) ? kk : pair_from(s, "stride");
    auto r = tt::max_pool2d(x, kk, ss, pair_from(p, "padding"), pair_from(d, "dilation"), ceil_mode);
    if (ret) return py::make_tuple(r.first, r.second);
    return py::cast(r.first);
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0, py::arg("dilation") = 1,
     py::arg("ceil_mode") = false, py::arg("return_indices") = false);
  m.def("avg_pool2d", [](const Tensor& x, py::handle k, py::object s, py::handle p, bool ceil_mode, bool cip, py::object div) {
    auto kk = pair_from(k, "kernel_size");
    auto ss = (s.is_none() || (PySequence_Check(s.ptr()) && py::len(s) == 0)) ? kk : pair_from(s, "stride");
    return tt::avg_pool2d(x, kk, ss, pair_from(p, "padding"), ceil_mode, cip, opt_int(div));
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
     py::arg("ceil_mode") = false, py::arg("count_include_pad") = true, py::arg("divisor_override") = py::none());
  m.def("adaptive_avg_pool2d", [](const Tensor& x, py::handle out) {
    int64_t h = x.dim() >= 2 ? x.size(-2) : 0, w = x.dim() >= 2 ? x.size(-1) : 0;
    std::pair<int64_t, int64_t> o;
    if (PySequence_Check(out.ptr())) {
      py::sequence s = py::reinterpret_borrow<py::sequence>(out);
      if (py::len(s) != 2) throw tt::ValueError("adaptive_avg_pool2d: output_size must be an int or a pair");
      o.first = s[0].is_none() ? h : s[0].cast<int64_t>();
      o.second = s[1].is_none() ? w : s[1].cast<int64_t>();
    } else {
      o = pair_from(out, "output_size");
    }
    return tt::adaptive_avg_pool2d(x, o);
  }, py::arg("input"), py::arg("output_size"));
  m.def("embedding", [](const Tensor& idx, const Tensor& w, py::object padding_idx) {
    return tt::embedding(w, idx, opt_int(padding_idx));
  }, py::arg("input"), py::arg("weight"), py::arg("padding_idx") = py::none());
  m.def("dropout", &tt::dropout, py::arg("input"), py::arg("p") = 0.5, py::arg("train") = true);  // torch.dropout's names
  m.def("dropout2d", &tt::dropout2d, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true);

  // threads and grad mode
  m.def("set_num_threads", &tt::set_num_threads, py::arg("num"));
  m.def("get_num_threads", &tt::get_num_threads);
  m.def("set_flush_denormal", &tt::set_flush_denormal, py::arg("mode"));
  m.def("is_grad_enabled", &tt::grad_mode_enabled);
  m.def("_set_grad_enabled", &tt::set_grad_mode, py::arg("mode"));
}

}  // namespace ttpy
