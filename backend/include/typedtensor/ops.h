#pragma once
// Front-end ops: validate (ShapeError/TypeError/...), promote, broadcast, then dispatch a primitive.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "typedtensor/op_kinds.h"
#include "typedtensor/primitive.h"
#include "typedtensor/tensor.h"

namespace tt {

// A Python number: bool, int or float (kind drives type promotion).
struct Scalar {
  enum Kind : uint8_t { Bool, Int, Float } kind = Float;
  double d = 0;
  int64_t i = 0;
  static Scalar from_bool(bool b) { return {Bool, b ? 1.0 : 0.0, b ? 1 : 0}; }
  static Scalar from_int(int64_t v) { return {Int, static_cast<double>(v), v}; }
  static Scalar from_double(double v) { return {Float, v, static_cast<int64_t>(v)}; }
  DType dtype() const { return kind == Bool ? DType::Bool : kind == Int ? DType::Int64 : kDefaultFloat; }
  double to_double() const { return kind == Float ? d : static_cast<double>(i); }
};

using Dims = std::vector<int64_t>;
using OptDims = std::optional<Dims>;

// ---------------- creation ----------------
Tensor full(const Shape& shape, Scalar value, std::optional<DType> dtype);
Tensor zeros(const Shape& shape, DType dtype);
Tensor ones(const Shape& shape, DType dtype);
Tensor scalar_tensor(Scalar s, std::optional<DType> dtype, bool wrapped = false);
Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<DType> dtype);
Tensor linspace(double start, double end, int64_t steps, DType dtype);
Tensor eye(int64_t n, int64_t m, DType dtype);

// ---------------- random (seedable global generator) ----------------
void manual_seed(uint64_t seed);
uint64_t initial_seed();

// NOTE [ Generators ]
// torch.Generator: a random stream of its own. A GeneratorScope makes the draws of this thread
// come from a generator instead of the global one (the random ops' `generator=`). Its state is its
// seed, torch's Mersenne Twister state and cached normal (get_state; NOTE [ torch's CPU streams ] in
// backend/src/cpu/random.cpp: a seed gives torch's CPU draws). A CUDA generator draws
// on the host (the CPU stream of its state) and copies the values to the device: one stream per
// generator, whatever the device.
class Generator {
 public:
  struct State;
  explicit Generator(Device device = {});
  Generator(std::shared_ptr<State> state, Device device);
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  std::vector<uint8_t> get_state() const;
  void set_state(const std::vector<uint8_t>& bytes);
  Device device() const { return device_; }
  const std::shared_ptr<State>& state() const { return state_; }

 private:
  std::shared_ptr<State> state_;
  Device device_;
};
Generator default_generator();  // the global CPU generator (manual_seed's)
class GeneratorScope {
 public:
  explicit GeneratorScope(const Generator* g);  // nullptr: the global generator
  ~GeneratorScope();
  GeneratorScope(const GeneratorScope&) = delete;
  GeneratorScope& operator=(const GeneratorScope&) = delete;

 private:
  Generator::State* previous_;
};
bool generator_override_active();  // a GeneratorScope with a generator is open on this thread

// draws uniform on [low, high), scaled as torch's uniform_ scales them (cpu/random.cpp)
Tensor rand(const Shape& shape, DType dtype, double low = 0.0, double high = 1.0);
// normal(mean, std) draws, scaled as torch's normal_ scales them (cpu/random.cpp)
Tensor randn(const Shape& shape, DType dtype, double mean = 0.0, double std = 1.0);
Tensor randint(int64_t low, int64_t high, const Shape& shape, DType dtype);
Tensor randperm(int64_t n, DType dtype);
Tensor bernoulli(const Tensor& p);  // elementwise P(1) = p
// like's shape, dtype and device, each 1 with probability p (a double draw below p, as torch's bernoulli_(p))
Tensor bernoulli(const Tensor& like, double p);
Tensor dropout(const Tensor& x, double p, bool training);
Tensor dropout2d(const Tensor& x, double p, bool training);

// ---------------- elementwise ----------------
const char* binary_name(BinaryOp op);
const char* unary_name(UnaryOp op);

DType result_type(const Tensor& a, const Tensor& b);
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
Tensor binary(BinaryOp op, const Tensor& a, Scalar b);
Tensor binary(BinaryOp op, Scalar a, const Tensor& b);
// In place: self = self op other (result type must cast to self's dtype, like torch).
Tensor& binary_(BinaryOp op, Tensor& self, const Tensor& other);
Tensor& binary_(BinaryOp op, Tensor& self, Scalar other);
// self += alpha * other (torch's add_(other, alpha=...)); one fused pass when nothing is recorded
// and both are contiguous floating CPU tensors of one shape and dtype
Tensor& add_scaled_(Tensor& self, const Tensor& other, Scalar alpha);
// self + alpha * other, rounded once as torch's add(other, alpha=) is (a fused multiply-add)
Tensor add_scaled(const Tensor& self, const Tensor& other, Scalar alpha);
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha);
Tensor unary(UnaryOp op, const Tensor& a);
Tensor& unary_(UnaryOp op, Tensor& a);
Tensor leaky_relu(const Tensor& a, double slope);
Tensor elu(const Tensor& a, double alpha);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi);
Tensor clamp_t(const Tensor& a, const Tensor* lo, const Tensor* hi);
Tensor& clamp_(Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi);
Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& w);
// lerp with a number weight: one fused pass on CPU float tensors of one dtype (else lerp above)
Tensor lerp_scalar(const Tensor& a, const Tensor& b, double w);
Tensor nan_to_num(const Tensor& a, double nan, std::optional<double> posinf, std::optional<double> neginf);

// Casts and copies
Tensor to_dtype(const Tensor& a, DType dtype, bool copy = false);
Tensor contiguous(const Tensor& a);
Tensor clone(const Tensor& a);
Tensor& copy_(Tensor& dst, const Tensor& src);  // broadcasts src, casts
Tensor& fill_(Tensor& dst, Scalar v);
Tensor& zero_(Tensor& dst);

// ---------------- views and shape ----------------
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
Tensor view(const Tensor& a, const Shape& shape);     // must be viewable, -1 inferred
Tensor reshape(const Tensor& a, const Shape& shape);  // view when possible, else copy
Tensor permute(const Tensor& a, const Dims& dims);
Tensor expand(const Tensor& a, const Shape& shape);
Tensor broadcast_to(const Tensor& a, const Shape& shape);
Tensor slice(const Tensor& a, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step);
Tensor as_strided(const Tensor& a, const Shape& shape, const Strides& strides, int64_t offset);
Tensor repeat(const Tensor& a, const Shape& reps);
Tensor flip(const Tensor& a, const Dims& dims);

// ---------------- joining ----------------
Tensor cat(const TensorList& xs, int64_t dim);
Tensor stack(const TensorList& xs, int64_t dim);
TensorList split(const Tensor& a, const Dims& sizes, int64_t dim);
TensorList split_size(const Tensor& a, int64_t size, int64_t dim);

// ---------------- indexing ----------------
Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce);
Tensor scatter_scalar(const Tensor& a, int64_t dim, const Tensor& index, Scalar v);
Tensor index_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src, Scalar alpha);
Tensor masked_fill(const Tensor& a, const Tensor& mask, Scalar v);
Tensor masked_fill_t(const Tensor& a, const Tensor& mask, const Tensor& v);
// In place: the mask must broadcast to a's shape (v a number or a 0-d tensor).
Tensor& masked_fill_(Tensor& a, const Tensor& mask, const Tensor& v);
Tensor nonzero(const Tensor& a);
// Advanced indexing: `indices[i]` (undefined = full slice) indexes dim i of a (after bool masks
// were turned into int indices by the caller). Follows numpy's placement rule for the result dims.
Tensor index(const Tensor& a, const TensorList& indices);
Tensor& index_put_(Tensor& a, const TensorList& indices, const Tensor& values, bool accumulate);

// ---------------- reductions ----------------
Tensor reduce(ReduceOp op, const Tensor& a, const OptDims& dims, bool keepdim, std::optional<DType> dtype);
std::pair<Tensor, Tensor> max_dim(const Tensor& a, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> min_dim(const Tensor& a, int64_t dim, bool keepdim);
Tensor argmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& a, std::optional<int64_t> dim, bool keepdim);
Tensor var(const Tensor& a, const OptDims& dims, double correction, bool keepdim);
Tensor std_(const Tensor& a, const OptDims& dims, double correction, bool keepdim);
Tensor norm(const Tensor& a, double p, const OptDims& dims, bool keepdim);
std::pair<Tensor, Tensor> sort(const Tensor& a, int64_t dim, bool descending);
std::pair<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted);

// ---------------- linear algebra ----------------
Tensor linear(const Tensor& x, const Tensor& w, const Tensor* b);
Tensor einsum(const std::string& eq, const TensorList& xs);

// ---------------- nn ----------------
// cross-entropy of [n, c] float logits and [n] int64 class indices (ignore_index rows skipped),
// summed or averaged over the rows kept; one fused CPU op with its own backward
Tensor cross_entropy_indices(const Tensor& logits, const Tensor& target, int64_t ignore_index, bool mean);
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor* w, const Tensor* b, double eps);
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor* b, std::pair<int64_t, int64_t> stride,
              std::pair<int64_t, int64_t> padding, std::pair<int64_t, int64_t> dilation, int64_t groups);
// conv2d with padding='same' (stride 1): the output keeps the input's spatial size; an odd total
// padding dilation * (k - 1) puts the extra unit at the bottom / right, as torch does.
Tensor conv2d_same(const Tensor& x, const Tensor& w, const Tensor* b, std::pair<int64_t, int64_t> dilation, int64_t groups);
// conv2d's input-gradient as an op of its own (NOTE [ Transposed convolution ]): input [N, C_in, H, W]
// (or unbatched), weight [C_in, C_out / groups, kH, kW], torch's argument order.
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor* b, std::pair<int64_t, int64_t> stride,
                        std::pair<int64_t, int64_t> padding, std::pair<int64_t, int64_t> output_padding, int64_t groups,
                        std::pair<int64_t, int64_t> dilation);
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, std::pair<int64_t, int64_t> kernel,
                                     std::pair<int64_t, int64_t> stride, std::pair<int64_t, int64_t> padding,
                                     std::pair<int64_t, int64_t> dilation, bool ceil_mode);
Tensor avg_pool2d(const Tensor& x, std::pair<int64_t, int64_t> kernel, std::pair<int64_t, int64_t> stride,
                  std::pair<int64_t, int64_t> padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override);
Tensor adaptive_avg_pool2d(const Tensor& x, std::pair<int64_t, int64_t> out);
Tensor embedding(const Tensor& weight, const Tensor& idx, std::optional<int64_t> padding_idx);

// ---------------- ops declared by the op table ----------------
// The ops whose table entries hold their C++ function (NOTE [ C++ functions from the table ] in
// typedtensor/shapes/registry.py): their declarations, written from the entries.
#include "typedtensor/generated/ops_decl.inc"

// ---------------- threads ----------------
void set_num_threads(int n);
int get_num_threads();
// torch.set_flush_denormal: subnormal floats read and written as zero (MXCSR's DAZ and FTZ) on the
// calling thread and every thread of the pool; false where the CPU has no such switch.
bool set_flush_denormal(bool mode);

}  // namespace tt
