// typedtensor._C's CUDA functions (typedtensor.cuda wraps them). They exist in every build; a
// build without nvcc reports no device and raises on the operations that need one.
#include "convert.h"

#ifdef TYPEDTENSOR_WITH_CUDA
#include "cuda/kernels.h"
#include "cuda/nccl.h"
#endif

namespace ttpy {

void bind_cuda(py::module_& m) {
#ifdef TYPEDTENSOR_WITH_CUDA
  tt::cuda::register_backend();
  namespace c = tt::cuda;
  m.def("_cuda_compiled", [] { return true; });
  m.def("_cuda_device_count", [] { return c::device_count(); });
  m.def("_cuda_status", [] { return c::last_status(); });
  m.def("_cuda_synchronize", [] {
    py::gil_scoped_release nogil;
    c::synchronize();
  });
  m.def("_cuda_memory_allocated", [] { return c::memory_allocated(); });
  m.def("_cuda_max_memory_allocated", [] { return c::max_memory_allocated(); });
  m.def("_cuda_memory_reserved", [] { return c::memory_reserved(); });
  m.def("_cuda_reset_peak_memory_stats", [] { c::reset_peak_memory_stats(); });
  m.def("_cuda_empty_cache", [] { c::empty_cache(); });
  m.def("_cuda_manual_seed", [](py::int_ s) { c::seed(static_cast<uint64_t>(PyLong_AsUnsignedLongLongMask(s.ptr()))); });
  m.def("_cuda_initial_seed", [] { return c::seed_value(); });
  m.def("_cuda_cublas_available", [] { return c::cublas_available(); });
  m.def("_cuda_cublas_status", [] { return c::cublas_status(); });
  m.def("_cuda_set_cublas_search_path", [](const std::string& d) { c::set_cublas_search_path(d); });
  m.def("_cuda_nvrtc_status", [] { return c::nvrtc_status(); });
  // NCCL for typedtensor.distributed's "nccl" backend (backend/src/cuda/nccl.h)
  m.def("_nccl_available", [] { return c::nccl_available(); });
  m.def("_nccl_status", [] { return c::nccl_status(); });
  m.def("_nccl_set_search_path", [](const std::string& d) { c::set_nccl_search_path(d); });
  m.def("_nccl_unique_id", [] { return py::bytes(c::nccl_unique_id()); });
  auto release = py::call_guard<py::gil_scoped_release>();
  py::class_<c::NcclComm>(m, "_NcclComm")
      .def(py::init([](py::bytes id, int nranks, int rank, int device) {
        std::string raw = id;
        py::gil_scoped_release nogil;
        return std::make_unique<c::NcclComm>(raw, nranks, rank, device);
      }), py::arg("unique_id"), py::arg("nranks"), py::arg("rank"), py::arg("device"))
      .def("rank", &c::NcclComm::rank)
      .def("size", &c::NcclComm::size)
      .def("all_reduce", [](c::NcclComm& k, const Tensor& t, int op) { k.all_reduce(t, static_cast<c::NcclOp>(op)); }, release)
      .def("broadcast", &c::NcclComm::broadcast, release)
      .def("all_gather", &c::NcclComm::all_gather, release)
      .def("reduce_scatter", [](c::NcclComm& k, const Tensor& in, const Tensor& out, int op) {
        k.reduce_scatter(in, out, static_cast<c::NcclOp>(op));
      }, release)
      .def("send", &c::NcclComm::send, release)
      .def("recv", &c::NcclComm::recv, release)
      .def("group_start", &c::NcclComm::group_start)
      .def("group_end", &c::NcclComm::group_end);
#else
  m.def("_cuda_compiled", [] { return false; });
  m.def("_cuda_device_count", [] { return 0; });
  m.def("_cuda_status", [] { return std::string("typedtensor was built without CUDA"); });
  m.def("_cuda_synchronize", [] {});
  m.def("_cuda_memory_allocated", [] { return size_t(0); });
  m.def("_cuda_max_memory_allocated", [] { return size_t(0); });
  m.def("_cuda_memory_reserved", [] { return size_t(0); });
  m.def("_cuda_reset_peak_memory_stats", [] {});
  m.def("_cuda_empty_cache", [] {});
  m.def("_cuda_manual_seed", [](py::int_) {});
  m.def("_cuda_initial_seed", [] { return tt::initial_seed(); });
  m.def("_cuda_cublas_available", [] { return false; });
  m.def("_cuda_cublas_status", [] { return std::string("typedtensor was built without CUDA"); });
  m.def("_cuda_set_cublas_search_path", [](const std::string&) {});
  m.def("_cuda_nvrtc_status", [] { return std::string("typedtensor was built without CUDA"); });
  m.def("_nccl_available", [] { return false; });
  m.def("_nccl_status", [] { return std::string("typedtensor was built without CUDA"); });
  m.def("_nccl_set_search_path", [](const std::string&) {});
#endif
  // Testing hook: swap the host-emulated CUDA device in (True) or the previous table back (False).
  m.def("_testing_emulate_cuda", [](bool on) {
    static std::unique_ptr<tt::DeviceKernels> saved;
    if (on && !saved) saved = tt::swap_cuda_kernels(tt::make_host_emulated_cuda());
    else if (!on && saved) tt::swap_cuda_kernels(std::move(saved));
  });
  // Testing hook: a view of a CPU tensor's memory that claims to live on cuda:0, so the device
  // checks (mixing devices, .numpy()) are testable on machines without a GPU. Never dereferenced
  // on the device side by those checks.
  m.def("_testing_as_cuda", [](const Tensor& t) {
    Tensor c = tt::contiguous(t);
    auto keep = c.storage();
    Tensor v = tt::from_blob(c.raw(), c.shape(), c.strides(), c.dtype(), std::shared_ptr<void>(keep, keep.get()), true,
                             tt::Device{tt::DeviceType::CUDA, 0});
    return v;
  });
}

}  // namespace ttpy
