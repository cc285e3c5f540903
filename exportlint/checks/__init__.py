"""Rule implementations, one module per family. Importing this package registers them all."""

import importlib
import importlib.util

from exportlint.checks import base  # noqa: F401
from exportlint.checks import engine_rules  # noqa: F401
from exportlint.checks import control_flow  # noqa: F401
from exportlint.checks import python_ops  # noqa: F401
from exportlint.checks import device  # noqa: F401
from exportlint.checks import export_calls  # noqa: F401
from exportlint.checks import confirm_rules  # noqa: F401
from exportlint.checks import shapes  # noqa: F401
from exportlint.checks import quantized  # noqa: F401
from exportlint.checks import sym_ops  # noqa: F401
from exportlint.checks import tensor_rows  # noqa: F401
from exportlint.checks import mask_assign  # noqa: F401
from exportlint.checks import slices  # noqa: F401
from exportlint.checks import checkpointing  # noqa: F401
from exportlint.checks import attention_modules  # noqa: F401
from exportlint.checks import len_size  # noqa: F401
from exportlint.checks import embedding_renorm  # noqa: F401
from exportlint.checks import size_semantics  # noqa: F401
from exportlint.checks import tracer_limits  # noqa: F401
from exportlint.checks import tensor_data  # noqa: F401
from exportlint.checks import sdpa_mask  # noqa: F401
from exportlint.checks import legacy_params  # noqa: F401
from exportlint.checks import static_size  # noqa: F401
from exportlint.checks import randomness  # noqa: F401
from exportlint.checks import int_size  # noqa: F401
from exportlint.checks import unfold_view  # noqa: F401
from exportlint.checks import ceil_pool  # noqa: F401
from exportlint.checks import sdpa_rank  # noqa: F401
from exportlint.checks import higher_order  # noqa: F401
from exportlint.checks import module_args  # noqa: F401
from exportlint.checks import dim_ties  # noqa: F401
from exportlint.checks import view_split  # noqa: F401
from exportlint.checks import size_ops  # noqa: F401
from exportlint.checks import conv_groups  # noqa: F401
from exportlint.checks import topk_size  # noqa: F401
from exportlint.checks import padded_chunks  # noqa: F401
from exportlint.checks import downsample_meet  # noqa: F401
from exportlint.checks import scalar_index  # noqa: F401
from exportlint.checks import crop_resampled  # noqa: F401

# table-driven op rules (EXL4xx): a module of their own, loaded when present
if importlib.util.find_spec("exportlint.checks.ops") is not None:
    importlib.import_module("exportlint.checks.ops")
