#pragma once
// NCCL collectives on CUDA tensors, for typedtensor.distributed's "nccl" backend. libnccl.so.2 is
// opened at run time with dlopen (like cuBLAS, backend/src/cuda/blas.cu): the nvidia-nccl wheel is
// optional and a build with CUDA still imports without it. Search order: $TYPEDTENSOR_NCCL (a
// file), the folders given by set_nccl_search_path (the Python side passes
// site-packages/nvidia/{nccl,cu13}/lib), then the loader's own path.
//
// The processes first agree on a unique id (rank 0 makes it, MPI broadcasts it; see
// typedtensor/distributed/_nccl.py), then each opens a communicator with it. Every call is
// enqueued on the stream the CUDA backend uses for all its work, so it is ordered after the
// kernels that produced the tensor and before the ones that read the result.
#include <memory>
#include <string>

#include "typedtensor/tensor.h"

namespace tt::cuda {

bool nccl_available();
std::string nccl_status();
void set_nccl_search_path(const std::string& dirs);
std::string nccl_unique_id();  // the opaque 128-byte id, as bytes

// Reduction codes as ncclRedOp_t: sum, prod, max, min, avg.
enum class NcclOp : int { Sum = 0, Prod = 1, Max = 2, Min = 3, Avg = 4 };

class NcclComm {
 public:
  // Collective over the `nranks` processes that call it with the same id; `device` is this
  // process's CUDA device.
  NcclComm(const std::string& unique_id, int nranks, int rank, int device);
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  void all_reduce(const Tensor& t, NcclOp op);                       // in place
  void broadcast(const Tensor& t, int root);                         // in place
  void all_gather(const Tensor& in, const Tensor& out);              // out: nranks * in
  void reduce_scatter(const Tensor& in, const Tensor& out, NcclOp op);  // in: nranks * out
  void send(const Tensor& t, int peer);
  void recv(const Tensor& t, int peer);
  void group_start();
  void group_end();
  int rank() const { return rank_; }
  int size() const { return nranks_; }

 private:
  void* comm_ = nullptr;
  int rank_ = 0, nranks_ = 0, device_ = 0;
};

}  // namespace tt::cuda
