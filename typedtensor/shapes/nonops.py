"""Public names that are not ops, each with the reason: the other half of the completeness walk.

Every public name of ``typedtensor``, ``Tensor``, ``nn``, ``nn.functional``, ``optim`` and ``data``
is an op of the table (NOTE [ One op table ] in registry.py), an ``nn`` module of the registry, or
listed here (tests/shapes/test_table_complete.py). Each still has a stub.
"""

from __future__ import annotations

from typing import Final


def _all(reason: str, *names: str) -> dict[str, str]:
    return dict.fromkeys(names, reason)


NOT_OPS: Final[dict[str, str]] = {
    **_all("a dimension type of the annotation language (DESIGN §1)",
           "typedtensor.Dim", "typedtensor.Add", "typedtensor.Sub", "typedtensor.Mul", "typedtensor.Div"),
    **_all("a class", "typedtensor.Tensor", "typedtensor.dtype", "typedtensor.device", "typedtensor.ShapeError"),
    **_all("a dtype", *(f"typedtensor.{d}" for d in (
        "bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "half", "float", "double",
        "long", "int"))),
    **_all("a submodule", *(f"typedtensor.{m}" for m in (
        "accelerator", "autograd", "backends", "cuda", "data", "distributed", "functional", "jit", "multiprocessing",
        "nn", "onnx", "optim", "serialization", "shapes", "special", "utils"))),
    **_all("a decorator or compiler of functions", "typedtensor.checked", "typedtensor.compile"),
    **_all("grad mode", "typedtensor.no_grad", "typedtensor.enable_grad", "typedtensor.set_grad_enabled",
           "typedtensor.inference_mode", "typedtensor.is_grad_enabled"),
    **_all("random state", "typedtensor.manual_seed", "typedtensor.initial_seed", "typedtensor.seed",
           "typedtensor.get_rng_state", "typedtensor.set_rng_state", "typedtensor.default_generator"),
    **_all("a class: a random stream of its own (generator= of the random ops)", "typedtensor.Generator"),
    **_all("a legacy tensor-type constructor and isinstance test (_runtime/legacy_tensors.py)", *(
        f"typedtensor.{t}Tensor" for t in ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Byte", "Bool"))),
    **_all("thread settings", "typedtensor.set_num_threads", "typedtensor.get_num_threads",
           "typedtensor.set_flush_denormal"),
    **_all("a dtype's numeric limits (_runtime/dtype_info.py)", "typedtensor.finfo", "typedtensor.iinfo"),
    **_all("a class: the tuple of sizes torch constructs", "typedtensor.Size"),
    **_all("the default floating dtype (float32, fixed)", "typedtensor.get_default_dtype",
           "typedtensor.set_default_dtype"),
    **_all("a numeric constant", *(f"typedtensor.{c}" for c in ("pi", "e", "inf", "nan", "newaxis"))),
    **_all("a setting of the backend's float32 matrix products",
           "typedtensor.set_float32_matmul_precision", "typedtensor.get_float32_matmul_precision"),
    **_all("answers with a Python bool, not a tensor", "typedtensor.allclose", "typedtensor.equal", "Tensor.allclose",
           "Tensor.equal",
           "typedtensor.is_tensor", "typedtensor.is_floating_point"),
    **_all("answers with a Python int", "typedtensor.numel"),
    **_all("a dtype query", "typedtensor.result_type", "typedtensor.promote_types", "typedtensor.can_cast"),
    **_all("computes a shape (a tuple of ints), no tensor", "typedtensor.broadcast_shapes"),
    **_all("interop: exports a DLPack capsule", "typedtensor.to_dlpack"),
    **_all("serialization", "typedtensor.save", "typedtensor.load"),
    **_all("metadata", *(f"Tensor.{m}" for m in (
        "shape", "ndim", "dtype", "device", "is_cuda", "is_cpu", "is_xpu", "is_mps", "itemsize", "nbytes", "size", "stride", "dim",
        "ndimension", "numel", "nelement", "element_size", "is_contiguous", "is_floating_point", "is_set_to",
        "storage_offset", "data_ptr", "untyped_storage_ptr"))),
    **_all("metadata: another device kind or layout, always False here (_runtime/tensor_meta.py)", *(
        f"Tensor.{m}" for m in (
            "is_ipu", "is_maia", "is_meta", "is_mkldnn", "is_mps", "is_mtia", "is_nested", "is_quantized", "is_sparse",
            "is_sparse_csr", "is_vulkan", "is_xla", "is_xpu", "is_complex", "is_conj", "is_neg", "is_inference",
            "is_pinned", "is_shared", "is_distributed"))),
    **_all("metadata: a predicate answered with a Python bool", "Tensor.is_signed", "Tensor.is_same_size",
           "Tensor.is_nonzero"),
    **_all("autograd state", *(f"Tensor.{m}" for m in (
        "backward", "grad", "grad_fn", "is_leaf", "requires_grad", "requires_grad_", "retain_grad", "retains_grad",
        "detach_", "data", "register_hook", "register_post_accumulate_grad_hook"))),
    **_all("conversion to Python or numpy values", "Tensor.tolist", "Tensor.numpy"),
    **_all("Python's object protocol", *(f"Tensor.__{m}__" for m in (
        "len", "iter", "bool", "float", "int", "index", "array", "dlpack", "dlpack_device"))),
    **_all("a module container or the base class", "typedtensor.nn.Module", "typedtensor.nn.Sequential",
           "typedtensor.nn.ModuleList", "typedtensor.nn.ModuleDict", "typedtensor.nn.ParameterList",
           "typedtensor.nn.ParameterDict"),
    **_all("a base class of the recurrent modules (its subclasses are the registry's modules)",
           "typedtensor.nn.RNNBase", "typedtensor.nn.RNNCellBase"),
    **_all("a tensor subclass", "typedtensor.nn.Parameter", "typedtensor.nn.Buffer",
           "typedtensor.nn.UninitializedParameter", "typedtensor.nn.UninitializedBuffer"),
    **_all("a lazy module: its input size is unknown until its first call, so its shapes are not checked",
           *(f"typedtensor.nn.Lazy{m}" for m in (
               "Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "BatchNorm1d",
               "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"))),
    **_all("a wrapper that runs its module as it is on typedtensor's one device (nn/parallel)",
           "typedtensor.nn.DataParallel"),
    **_all("a submodule", "typedtensor.nn.functional", "typedtensor.nn.init", "typedtensor.optim.lr_scheduler",
           "typedtensor.nn.modules", "typedtensor.nn.parallel", "typedtensor.nn.utils"),
    **_all("an optimizer: updates parameters in place, no op of its own",
           *(f"typedtensor.optim.{o}" for o in (
               "Optimizer", "SGD", "Adam", "AdamW", "Adadelta", "Adagrad", "Adamax", "LBFGS", "NAdam", "RAdam",
               "RMSprop"))),
    **_all("data loading", *(f"typedtensor.data.{d}" for d in (
        "Dataset", "TensorDataset", "Subset", "DataLoader", "default_collate", "default_convert", "random_split",
        "ChainDataset", "ConcatDataset", "IterableDataset", "StackDataset", "BatchSampler", "DistributedSampler",
        "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler", "WeightedRandomSampler",
        "WorkerInfo", "get_worker_info"))),
}
