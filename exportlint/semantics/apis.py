"""What exportlint knows about torch APIs, by qualified name (no torch import).
"""

from __future__ import annotations

import re

from typing import Any, Optional

from exportlint.semantics.kinds import (
    CONST,
    DATA,
    MASK,
    MODULE,
    SHAPE,
    TENSOR,
    UNKNOWN,
)

MISSING: Any = object()

# ---------------------------------------------------------------------------------------
# knowledge about torch APIs (by qualified name)
# ---------------------------------------------------------------------------------------

#: calls that return True while an exporter traces: the not-exporting side is skipped
EXPORT_GUARDS = frozenset(
    {
        "torch.jit.is_tracing",
        "torch._C._get_tracing_state",
        "torch.compiler.is_compiling",
        "torch.compiler.is_dynamo_compiling",
        "torch.compiler.is_exporting",
        "torch._dynamo.is_compiling",
        "torch.onnx.is_in_onnx_export",
        "torch.fx._symbolic_trace.is_fx_tracing",
        "torch._utils.is_compiling",
        "torchvision._is_tracing",
    }
)
#: guard helpers often re-exported by libraries (matched by their last name)
EXPORT_GUARD_NAMES = frozenset(
    {"is_tracing", "is_torchdynamo_compiling", "is_compiling", "is_exporting", "is_in_onnx_export", "is_fx_tracing",
     "is_torch_fx_proxy", "is_dynamo_compiling", "is_torchdynamo_exporting"}
)
ALL_EXPORTERS = frozenset({"export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"})
_COMPILING = frozenset({"export-strict", "export-nonstrict", "onnx-dynamo"})
#: the exporters under which each guard returns True (measured with torch 2.13 inside a forward
#: exported by each exporter: `torch.jit.is_tracing()` is True only under the legacy TorchScript
#: tracer, `torch.compiler.is_compiling()` only under torch.export and the dynamo exporter, ...);
#: code behind `if not torch.jit.is_tracing():` still runs under torch.export
EXPORT_GUARD_EXPORTERS: dict[str, frozenset] = {
    "torch.jit.is_tracing": frozenset({"onnx-legacy"}),
    "torch._C._get_tracing_state": frozenset({"onnx-legacy"}),
    "torch.compiler.is_compiling": _COMPILING,
    "torch.compiler.is_exporting": _COMPILING,
    "torch._dynamo.is_compiling": _COMPILING,
    "torch._utils.is_compiling": _COMPILING,
    "torch.compiler.is_dynamo_compiling": frozenset({"export-strict"}),
    "torch.onnx.is_in_onnx_export": frozenset({"onnx-dynamo", "onnx-legacy"}),
    "torch.fx._symbolic_trace.is_fx_tracing": frozenset({"export-nonstrict", "onnx-dynamo"}),
    # torchvision/__init__.py: `def _is_tracing(): return torch._C._get_tracing_state()`
    "torchvision._is_tracing": frozenset({"onnx-legacy"}),
}
#: library helpers matched by their last name: the exporters their name promises (a helper named
#: `is_torchdynamo_compiling` wraps `torch.compiler.is_compiling()`); other names: every exporter
EXPORT_GUARD_NAME_EXPORTERS: dict[str, frozenset] = {
    "is_torchdynamo_compiling": _COMPILING, "is_compiling": _COMPILING, "is_dynamo_compiling": _COMPILING,
    "is_exporting": _COMPILING, "is_torchdynamo_exporting": _COMPILING,
    "is_in_onnx_export": frozenset({"onnx-dynamo", "onnx-legacy"}),
}
#: calls that return False under every exporter (scripting only)
NEVER_DURING_EXPORT = frozenset({"torch.jit.is_scripting"})
NEVER_DURING_EXPORT_NAMES = frozenset({"is_scripting"})
#: torch functions named like these return a Python bool about the runtime, not a tensor
BOOL_QUERY_PREFIXES = ("is_", "are_", "has_")
#: decorators that mark a function as Python-side only (the author keeps it off the graph)
JIT_SKIP_DECORATORS = frozenset({"torch.jit.unused", "torch.jit.ignore", "torch.jit._script.unused",
                                 "torch.jit._script.ignore"})

CONST_FUNCS = frozenset(
    {
        "torch.is_tensor",
        "torch.is_floating_point",
        "torch.is_complex",
        "torch.is_storage",
        "torch.is_grad_enabled",
        "torch.is_inference_mode_enabled",
        "torch.is_autocast_enabled",
        "torch.get_default_dtype",
        "torch.get_autocast_gpu_dtype",
        "torch.finfo",
        "torch.iinfo",
        "torch.device",
        "torch.dtype",
        "torch.promote_types",
        "torch.result_type",
        "torch.can_cast",
        "torch.cuda.is_available",
        "torch.cuda.device_count",
        "torch.cuda.current_device",
        "torch.get_device",
    }
)
DATA_FUNCS = frozenset({"torch.equal", "torch.allclose", "torch.is_nonzero"})
SHAPE_FUNCS = frozenset({"torch.numel", "torch.broadcast_shapes", "torch.Size"})
MASK_FUNCS = frozenset(
    {
        "torch.isnan", "torch.isinf", "torch.isfinite", "torch.isposinf", "torch.isneginf", "torch.isreal",
        "torch.eq", "torch.ne", "torch.gt", "torch.lt", "torch.ge", "torch.le", "torch.greater", "torch.less",
        "torch.greater_equal", "torch.less_equal", "torch.not_equal",
        "torch.logical_and", "torch.logical_or", "torch.logical_not", "torch.logical_xor",
        "torch.isin", "torch.isclose", "torch.any", "torch.all", "torch.signbit",
    }
)
#: torch namespaces whose functions do not return tensors
NON_TENSOR_NAMESPACES = (
    "torch.cuda.", "torch.distributed.", "torch.backends.", "torch.jit.", "torch.compiler.", "torch.onnx.",
    "torch._dynamo.", "torch.fx.", "torch.utils.data.", "torch.autograd.grad_mode.", "torch.hub.",
    "torch.multiprocessing.", "torch.profiler.", "torch.testing.", "torch.export.", "torch.library.",
    "torch.overrides.", "torch._C.", "torch.types.", "torch.serialization.", "torch.random.",
)
NON_TENSOR_TORCH_FUNCS = frozenset(
    {
        "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled", "torch.autocast",
        "torch.manual_seed", "torch.seed", "torch.set_default_dtype", "torch.set_printoptions", "torch.load",
        "torch.save", "torch.compile", "torch.get_rng_state", "torch.use_deterministic_algorithms",
        "torch.set_num_threads", "torch.get_num_threads", "torch.typename", "torch.Generator",
    }
)

#: ops whose result's size depends on tensor values (iterating them is a data-dependent loop)
DDS_OPS = frozenset({"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive", "nonzero_static"})
#: calls through which the author declares facts about data-dependent values for export
CHECK_FUNCS = frozenset({"torch._check", "torch._check_is_size", "torch._constrain_as_size",
                         "torch._constrain_as_value", "torch._check_with", "torch.export.constrain_as_size"})
#: classes of these names compute losses/metrics/matching: training code, never exported
NON_EXPORT_CLASS_SUFFIXES = ("Loss", "Criterion", "Matcher", "Metric", "Metrics")
#: word of a function name (split at `_`) that marks a loss computation: `load_balancing_loss_func`,
#: `get_loss_dict`, `dice_loss`. Forward calls these only to return a training loss (under
#: `if labels is not None` / `if output_router_logits`), never in an inference export
NON_EXPORT_FUNCTION_WORDS = frozenset({"loss", "losses"})


def training_target(param: str) -> bool:
    """A forward parameter that carries training targets (`labels`, the convention of
    transformers' task heads): with a `None` default it is absent from an inference export, so
    code under `if labels is not None` (the loss, label checks, `_shift_right(labels)`) does not
    run. Only the bare name: `class_labels` is an inference input of class-conditional models
    (diffusers' UNet), `mask_labels` the target of a loss already left out (`training_only`)."""
    return param == "labels"


def ground_truth_param(param: str) -> bool:
    """A parameter named for ground truth (``targets``, ``y_true``, ``gt``, ``gt_instances``,
    ``ground_truth``): a module whose forward *requires* one compares a prediction with it (a
    loss, a metric, a matcher, a training-time prior): an inference export has no ground truth to
    pass. Left out: ``labels`` (class-conditional models take class labels as an inference
    input) and a singular ``target`` (a likelihood head exported as `forward(hidden, target)`
    returning `dist.log_prob(target)`, bench/cases/time_series_student_t.py)."""
    p = param.lower().strip("_")
    if p in ("targets", "y_true", "gt", "gts", "ground_truth", "ground_truths") or p.startswith("gt_"):
        return True
    # a compound name with such a word (mmyolo `BatchYOLOv7Assigner.forward(pred_results,
    # batch_targets_normed, ...)`), not a size (`num_targets`)
    words = p.split("_")
    return len(words) > 1 and not size_named(p) and any(w in ("targets", "gt", "gts") for w in words)


#: words of a parameter name that say it holds a size, not a tensor: ``hw_shape``, ``seq_len``,
#: ``output_size``, ``length``, ``patch_resolution`` (plurals such as ``lengths`` are often
#: tensors of lengths, and stay tensors)
SIZE_NAME_WORDS = frozenset({"shape", "size", "len", "length", "resolution", "hw"})


def size_named(param: str) -> bool:
    """A parameter named for a size (``SIZE_NAME_WORDS``; ``num_*``)."""
    words = param.lower().strip("_").split("_")
    return any(w in SIZE_NAME_WORDS for w in words) or (len(words) > 1 and words[0] == "num")


def training_only(fn_name: str, cls_name: Optional[str] = None) -> bool:
    """A function (or a method of a class) that only computes a training loss/metric/matching:
    calls from forward into it are not followed onto the export path (the same convention as
    the entry points: a ``*Loss`` class's forward is not an export root)."""
    if cls_name is not None and non_export_class(cls_name):
        return True
    return any(w in NON_EXPORT_FUNCTION_WORDS for w in fn_name.lower().split("_"))


_CAMEL_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def non_export_class(name: str) -> bool:
    """A class named for a loss / criterion / matcher / metric: its last CamelCase word (a
    version suffix aside) is one of them, or its first is ``Loss`` / ``Criterion``
    (``DiceLoss``, ``FocalLossV2``, ``LossWithAlignment``, ``HungarianMatcher``; not
    ``Lossless``, not ``MetricLearningHead``)."""
    if name.endswith(NON_EXPORT_CLASS_SUFFIXES):
        return True
    words = _CAMEL_WORD.findall(name.lstrip("_"))
    while words and (words[-1].isdigit() or re.fullmatch(r"V\d*|v\d*", words[-1])):
        words.pop()
    if not words:
        return False
    return words[-1] in NON_EXPORT_CLASS_SUFFIXES or words[0] in ("Loss", "Criterion")


TENSOR_METHODS_DATA = frozenset({"item", "tolist", "numpy", "__bool__", "__int__", "__float__", "equal", "allclose", "__index__"})
TENSOR_METHODS_SHAPE = frozenset({"size", "numel", "nelement", "stride", "storage_offset"})
TENSOR_METHODS_CONST = frozenset(
    {
        "dim", "ndimension", "is_contiguous", "is_floating_point", "is_complex", "get_device", "element_size",
        "data_ptr", "is_signed", "is_pinned", "is_shared", "has_names", "is_inference", "is_set_to",
        "untyped_storage", "storage", "type", "__len__", "is_nonzero",
    }
)
TENSOR_METHODS_MASK = frozenset(
    {
        "eq", "ne", "gt", "lt", "ge", "le", "greater", "less", "greater_equal", "less_equal", "not_equal",
        "logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "isposinf",
        "isneginf", "any", "all", "bool", "isclose", "isin", "signbit", "__eq__", "__ne__", "__lt__", "__gt__",
    }
)
TENSOR_ATTRS_CONST = frozenset(
    {
        "ndim", "dtype", "device", "is_cuda", "is_cpu", "is_meta", "is_sparse", "is_quantized", "requires_grad",
        "layout", "is_leaf", "grad_fn", "names", "is_mkldnn", "is_mps", "is_xpu", "is_nested", "itemsize", "nbytes",
    }
)
TENSOR_ATTRS_SHAPE = frozenset({"shape"})
#: attributes of a ``torch.Tensor`` (read, not called) whose value is a tensor
TENSOR_ATTRS_TENSOR = frozenset({"T", "mT", "H", "mH", "data", "real", "imag", "grad", "_base", "_grad"})
#: every other non-method attribute a ``torch.Tensor`` has (``dir(torch.Tensor)``, torch 2.13): a
#: value read with an attribute outside these and the sets above is no tensor (a tensor would
#: raise AttributeError), e.g. a data sample's ``.metainfo``, a mask object's ``.mask``
TENSOR_ATTRS_OTHER = frozenset(
    {
        "grad_dtype", "is_ipu", "is_maia", "is_mtia", "is_sparse_csr", "is_vulkan", "is_xla", "name",
        "output_nr", "retains_grad", "volatile", "_version", "_cdata", "_grad_fn", "_backward_hooks",
        "_post_accumulate_grad_hooks", "_has_symbolic_sizes_strides", "_python_dispatch",
    }
)

#: Python builtins whose result is a fixed Python value whatever the argument
CONST_BUILTINS = frozenset({"isinstance", "issubclass", "hasattr", "callable", "type", "id", "repr", "str", "print", "format"})
SCALAR_CONVERSIONS = frozenset({"int", "float", "bool", "complex"})

ANNOT_TENSOR = ("Tensor", "FloatTensor", "LongTensor", "BoolTensor", "IntTensor", "HalfTensor", "ByteTensor", "DoubleTensor")
ANNOT_CONST = frozenset({"int", "float", "bool", "str", "bytes", "complex", "None", "Literal"})
ANNOT_CONTAINERS = frozenset({"Optional", "Union", "List", "Tuple", "Sequence", "list", "tuple", "Iterable", "Final"})


Sequence_Arg = Any


def torch_func_kind(q: str) -> str:
    if q in CONST_FUNCS:
        return CONST
    if q in DATA_FUNCS:
        return DATA
    if q in SHAPE_FUNCS:
        return SHAPE
    if q in MASK_FUNCS:
        return MASK
    if q in NON_TENSOR_TORCH_FUNCS:
        return UNKNOWN
    if q.startswith(NON_TENSOR_NAMESPACES):
        return UNKNOWN
    last = q.rsplit(".", 1)[-1]
    if last.startswith(BOOL_QUERY_PREFIXES):
        # torch.are_deterministic_algorithms_enabled(), torch.is_grad_enabled(): Python-level
        # queries returning a bool fixed at export time (torch.is_nonzero is DATA, above)
        return CONST
    if q.startswith("torch.nn.") and not q.startswith(("torch.nn.functional.", "torch.nn.init.")):
        if last[:1].isupper():
            return MODULE if last not in ("Parameter", "Buffer") else TENSOR
        return UNKNOWN
    if last[:1].isupper():
        # torch.Tensor(...), torch.FloatTensor(...), torch.Size(...)
        return TENSOR if last.endswith("Tensor") else UNKNOWN
    return TENSOR


#: eager-mode quantization entry points of ``torch.ao.quantization`` (and ``torch.quantization``):
#: each makes a model torch.export rejects (EXL404). The static ones turn ``QuantStub`` calls into
#: quantize ops; ``quantize_dynamic`` and ``prepare*`` leave the stubs identities.
QUANT_CONVERSIONS = ("convert", "quantize", "quantize_dynamic", "quantize_qat", "prepare", "prepare_qat")
STATIC_QUANT_CONVERSIONS = ("convert", "quantize", "quantize_qat")
