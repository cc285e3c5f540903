"""EXL408 / EXL409: module arguments the ONNX exporters cannot translate.

- EXL408 lstm-projection: ``nn.LSTM(..., proj_size=N)`` with N > 0. Measured with torch 2.13
  (bench/cases/pkg_lstm_projection_encoder, from https://github.com/k2-fsa/sherpa/issues/136):
  onnx-legacy fails ("Unsupported: ONNX export of operator LSTM, LSTMs with projections");
  onnx-dynamo writes an LSTM node onnxruntime rejects ("Input initial_c must have shape
  {1,2,16}. Actual:{1,2,32}": the cell state keeps hidden_size); torch.export (strict and
  non-strict) passes; ``proj_size=0`` (the default) passes everywhere.
- EXL409 embedding-bag-padding-idx: ``nn.EmbeddingBag(..., padding_idx=i)`` /
  ``F.embedding_bag(..., padding_idx=i)`` with i not None. Measured (bench/cases/
  pkg_embedding_bag_padding_idx, from https://github.com/pytorch/pytorch/issues/128930):
  onnx-legacy fails ("embedding_bag with padding_idx") for mode sum, mean and max; torch.export
  and onnx-dynamo pass; without padding_idx legacy passes.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import call_arg, helper_built_mentions, snippet, torch_submodule_calls
from exportlint.findings import Severity
from exportlint.semantics.model import literal_value


def _positive_int(e: Optional[cst.BaseExpression]) -> Optional[bool]:
    """True: a literal int > 0; False: a literal 0 / None / absent; None: not known."""
    if e is None:
        return False
    v = literal_value(e)
    if v is None:
        return False
    if isinstance(v, bool) or not isinstance(v, int):
        return None
    return v > 0


_LSTM = ("torch.nn.LSTM", "torch.nn.modules.rnn.LSTM", "torch.nn.modules.LSTM")


@register
class LstmProjection(Rule):
    code = "EXL408"
    name = "lstm-projection"
    severity = Severity.ERROR
    exporters = ("onnx-dynamo", "onnx-legacy")
    summary = "nn.LSTM with proj_size > 0: onnx-legacy fails, onnx-dynamo writes a model onnxruntime rejects."

    def check(self, ctx):
        if "LSTM" not in ctx.text and not helper_built_mentions(ctx, "LSTM"):
            return ()
        seen: set[int] = set()
        for _fn, call, ctor, _q in torch_submodule_calls(ctx, _LSTM):
            # nn.LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
            # dropout=0.0, bidirectional=False, proj_size=0, ...): proj_size is keyword-only in use
            proj = call_arg(ctor, "proj_size", 99)
            known = _positive_int(proj)
            if known is False or id(call.node) in seen:
                continue
            seen.add(id(call.node))
            ctx.report(
                call.node,
                f"`{snippet(ctx, call.node)}` runs an LSTM with projections (`proj_size` in its constructor): the "
                "legacy ONNX exporter fails ('Unsupported: ONNX export of operator LSTM, LSTMs with projections') "
                "and onnx-dynamo writes an LSTM node onnxruntime rejects ('Input initial_c must have shape ...'); "
                "torch.export passes (measured, torch 2.13). Re-implement the projection as an LSTM without "
                "`proj_size` followed by a Linear (icefall's LSTMP), or keep the model in torch.export.",
                severity=None if known else Severity.WARNING,
            )
        return ()


_EBAG = ("torch.nn.EmbeddingBag", "torch.nn.modules.sparse.EmbeddingBag", "torch.nn.modules.EmbeddingBag")
_EBAG_F = ("torch.nn.functional.embedding_bag",)
_MSG409 = ("`{src}` sums bags with `padding_idx` set: the legacy ONNX exporter fails ('embedding_bag with "
           "padding_idx'); torch.export and onnx-dynamo pass (measured, torch 2.13). Export with dynamo=True, or "
           "drop `padding_idx` and zero the padding row of the weight (its rows are then summed as zeros: the "
           "result differs only for mode='mean' and 'max').")


@register
class EmbeddingBagPaddingIdx(Rule):
    code = "EXL409"
    name = "embedding-bag-padding-idx"
    severity = Severity.ERROR
    exporters = ("onnx-legacy",)
    summary = "nn.EmbeddingBag / F.embedding_bag with padding_idx: the legacy ONNX exporter fails."

    def check(self, ctx):
        if ("mbedding" not in ctx.text and "embedding_bag" not in ctx.text
                and not helper_built_mentions(ctx, "EmbeddingBag")):
            return ()
        seen: set[int] = set()
        for _fn, call, ctor, _q in torch_submodule_calls(ctx, _EBAG):
            # nn.EmbeddingBag(num_embeddings, embedding_dim, max_norm, norm_type, scale_grad_by_freq,
            # mode, sparse, _weight, include_last_offset, padding_idx)
            p = call_arg(ctor, "padding_idx", 9)
            if p is None or literal_value(p) is None:
                continue
            known = isinstance(literal_value(p), int)
            if id(call.node) in seen:
                continue
            seen.add(id(call.node))
            ctx.report(call.node, _MSG409.format(src=snippet(ctx, call.node)),
                       severity=None if known else Severity.WARNING)
        for fn in ctx.model.functions:
            for call in fn.calls:
                if (call.qualname or "") not in _EBAG_F:
                    continue
                # F.embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq,
                # mode, sparse, per_sample_weights, include_last_offset, padding_idx)
                p = call_arg(call.node, "padding_idx", 10)
                if p is None or literal_value(p) is None:
                    continue
                known = isinstance(literal_value(p), int)
                ctx.report(call.node, _MSG409.format(src=snippet(ctx, call.node)),
                           severity=None if known else Severity.WARNING)
        return ()
