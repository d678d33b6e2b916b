// NCCL through dlopen (NOTE in nccl.h). Only the entry points called here are declared; the ABI
// types (ncclComm_t, ncclUniqueId, the enums) are NCCL 2's, stable across its releases.
#include "nccl.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "common.cuh"

namespace tt::cuda {
namespace {

using ncclResult = int;  // ncclResult_t: 0 = success
struct UniqueId {
  char internal[128];
};
constexpr int kBytes = 128;

struct Nccl {
  void* lib = nullptr;
  std::string status = "not loaded yet";
  ncclResult (*get_unique_id)(UniqueId*) = nullptr;
  ncclResult (*comm_init_rank)(void**, int, UniqueId, int) = nullptr;
  ncclResult (*comm_destroy)(void*) = nullptr;
  const char* (*error_string)(ncclResult) = nullptr;
  ncclResult (*all_reduce)(const void*, void*, size_t, int, int, void*, cudaStream_t) = nullptr;
  ncclResult (*broadcast)(const void*, void*, size_t, int, int, void*, cudaStream_t) = nullptr;
  ncclResult (*all_gather)(const void*, void*, size_t, int, void*, cudaStream_t) = nullptr;
  ncclResult (*reduce_scatter)(const void*, void*, size_t, int, int, void*, cudaStream_t) = nullptr;
  ncclResult (*send)(const void*, size_t, int, int, void*, cudaStream_t) = nullptr;
  ncclResult (*recv)(void*, size_t, int, int, void*, cudaStream_t) = nullptr;
  ncclResult (*group_start)() = nullptr;
  ncclResult (*group_end)() = nullptr;
};

std::mutex g_mu;
std::string g_search;

template <class F>
bool sym(void* lib, const char* name, F*& out) {
  out = reinterpret_cast<F*>(dlsym(lib, name));
  return out != nullptr;
}

void try_load(Nccl& n) {
  std::vector<std::string> files;
  if (const char* env = std::getenv("TYPEDTENSOR_NCCL")) files.emplace_back(env);
  size_t start = 0;
  while (start <= g_search.size()) {
    size_t end = g_search.find(':', start);
    if (end == std::string::npos) end = g_search.size();
    if (end > start) files.push_back(g_search.substr(start, end - start) + "/libnccl.so.2");
    start = end + 1;
  }
  files.emplace_back("libnccl.so.2");
  std::string errors;
  for (const auto& f : files) {
    void* lib = dlopen(f.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      if (errors.size() < 2000) errors += "\n  " + f + ": " + (e ? e : "not found");
      continue;
    }
    bool ok = sym(lib, "ncclGetUniqueId", n.get_unique_id) && sym(lib, "ncclCommInitRank", n.comm_init_rank) &&
              sym(lib, "ncclCommDestroy", n.comm_destroy) && sym(lib, "ncclGetErrorString", n.error_string) &&
              sym(lib, "ncclAllReduce", n.all_reduce) && sym(lib, "ncclBroadcast", n.broadcast) &&
              sym(lib, "ncclAllGather", n.all_gather) && sym(lib, "ncclReduceScatter", n.reduce_scatter) &&
              sym(lib, "ncclSend", n.send) && sym(lib, "ncclRecv", n.recv) && sym(lib, "ncclGroupStart", n.group_start) &&
              sym(lib, "ncclGroupEnd", n.group_end);
    if (!ok) {
      errors += "\n  " + f + ": missing NCCL entry points";
      dlclose(lib);
      continue;
    }
    n.lib = lib;
    n.status = "loaded " + f;
    return;
  }
  n.status = "NCCL (libnccl.so.2) was not found; install the nvidia-nccl-cu13 wheel or set TYPEDTENSOR_NCCL to the "
             "library's path. Tried:" + errors;
}

Nccl& nccl_locked() {
  static Nccl n = [] {
    Nccl x;
    try_load(x);
    return x;
  }();
  return n;
}

Nccl& require(const char* op) {
  std::lock_guard<std::mutex> lk(g_mu);
  Nccl& n = nccl_locked();
  if (!n.lib) throw std::runtime_error(std::string("[") + op + "] " + n.status);
  return n;
}

void check(const Nccl& n, ncclResult r, const char* op) {
  if (r != 0) throw std::runtime_error(std::string("[") + op + "] NCCL error " + std::to_string(r) + ": " + n.error_string(r));
}

int nccl_dtype(DType d, const char* op) {
  switch (d) {
    case DType::Bool: case DType::UInt8: return 1;  // ncclUint8
    case DType::Int32: return 2;
    case DType::Int64: return 4;
    case DType::Float16: return 6;
    case DType::Float32: return 7;
    case DType::Float64: return 8;
    case DType::BFloat16: return 9;
  }
  throw std::runtime_error(std::string("[") + op + "] unsupported dtype");
}

const void* dev_ptr(const Tensor& t, const char* op) {
  if (t.device().type != DeviceType::CUDA) throw std::runtime_error(std::string("[") + op + "] the nccl backend needs CUDA tensors");
  if (!t.is_contiguous()) throw std::runtime_error(std::string("[") + op + "] the nccl backend needs contiguous tensors");
  return t.raw();
}

}  // namespace

bool nccl_available() {
  std::lock_guard<std::mutex> lk(g_mu);
  return nccl_locked().lib != nullptr;
}
std::string nccl_status() {
  std::lock_guard<std::mutex> lk(g_mu);
  return nccl_locked().status;
}
void set_nccl_search_path(const std::string& dirs) {
  std::lock_guard<std::mutex> lk(g_mu);
  g_search = dirs;
}

std::string nccl_unique_id() {
  Nccl& n = require("nccl_unique_id");
  UniqueId id{};
  check(n, n.get_unique_id(&id), "nccl_unique_id");
  return std::string(id.internal, kBytes);
}

NcclComm::NcclComm(const std::string& unique_id, int nranks, int rank, int device)
    : rank_(rank), nranks_(nranks), device_(device) {
  Nccl& n = require("init_process_group");
  if (unique_id.size() != kBytes) throw std::runtime_error("[init_process_group] an NCCL unique id is 128 bytes");
  if (nranks < 1 || rank < 0 || rank >= nranks) throw std::runtime_error("[init_process_group] rank out of range");
  tt::cuda::check(cudaSetDevice(device), "cudaSetDevice");
  UniqueId id{};
  std::memcpy(id.internal, unique_id.data(), kBytes);
  check(n, n.comm_init_rank(&comm_, nranks, id, rank), "ncclCommInitRank");
}

NcclComm::~NcclComm() {
  if (comm_ == nullptr) return;
  std::lock_guard<std::mutex> lk(g_mu);
  Nccl& n = nccl_locked();
  if (n.lib) n.comm_destroy(comm_);
}

void NcclComm::all_reduce(const Tensor& t, NcclOp op) {
  Nccl& n = require("all_reduce");
  void* p = const_cast<void*>(dev_ptr(t, "all_reduce"));
  check(n, n.all_reduce(p, p, static_cast<size_t>(t.numel()), nccl_dtype(t.dtype(), "all_reduce"), static_cast<int>(op),
                        comm_, kStream), "all_reduce");
}

void NcclComm::broadcast(const Tensor& t, int root) {
  Nccl& n = require("broadcast");
  void* p = const_cast<void*>(dev_ptr(t, "broadcast"));
  check(n, n.broadcast(p, p, static_cast<size_t>(t.numel()), nccl_dtype(t.dtype(), "broadcast"), root, comm_, kStream),
        "broadcast");
}

void NcclComm::all_gather(const Tensor& in, const Tensor& out) {
  Nccl& n = require("all_gather");
  if (out.numel() != in.numel() * nranks_ || out.dtype() != in.dtype())
    throw std::runtime_error("[all_gather] the output must hold world_size inputs of the input's dtype");
  check(n, n.all_gather(dev_ptr(in, "all_gather"), const_cast<void*>(dev_ptr(out, "all_gather")),
                        static_cast<size_t>(in.numel()), nccl_dtype(in.dtype(), "all_gather"), comm_, kStream),
        "all_gather");
}

void NcclComm::reduce_scatter(const Tensor& in, const Tensor& out, NcclOp op) {
  Nccl& n = require("reduce_scatter");
  if (in.numel() != out.numel() * nranks_ || out.dtype() != in.dtype())
    throw std::runtime_error("[reduce_scatter] the input must hold world_size outputs of the output's dtype");
  check(n, n.reduce_scatter(dev_ptr(in, "reduce_scatter"), const_cast<void*>(dev_ptr(out, "reduce_scatter")),
                            static_cast<size_t>(out.numel()), nccl_dtype(in.dtype(), "reduce_scatter"),
                            static_cast<int>(op), comm_, kStream),
        "reduce_scatter");
}

void NcclComm::send(const Tensor& t, int peer) {
  Nccl& n = require("send");
  check(n, n.send(dev_ptr(t, "send"), static_cast<size_t>(t.numel()), nccl_dtype(t.dtype(), "send"), peer, comm_, kStream),
        "send");
}

void NcclComm::recv(const Tensor& t, int peer) {
  Nccl& n = require("recv");
  check(n, n.recv(const_cast<void*>(dev_ptr(t, "recv")), static_cast<size_t>(t.numel()), nccl_dtype(t.dtype(), "recv"),
                  peer, comm_, kStream),
        "recv");
}

void NcclComm::group_start() {
  Nccl& n = require("group_start");
  check(n, n.group_start(), "ncclGroupStart");
}
void NcclComm::group_end() {
  Nccl& n = require("group_end");
  check(n, n.group_end(), "ncclGroupEnd");
}

}  // namespace tt::cuda
