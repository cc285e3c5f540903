"""Issue 13's one-file latency work: the shortcuts must not change what is found.

Timings are not asserted here (bench/speed.py --one-file prints them)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from exportlint.semantics.index import _EXPORT_CALL_RE, has_export_call

_WORDS = ["export", "trace", "trace_module", "dynamo_export", "draft_export", "export_for_training",
          "export_for_inference", "torch.", "onnx.", "_", "x", "é", "1", "(", " ", "\n", "\t", "exporter",
          "retrace", "my_export", "jit.trace (", "#", "'", "draft_", "dynamo_"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=12))
def test_has_export_call_is_the_regex(parts):
    text = "".join(parts)
    assert has_export_call(text) == (_EXPORT_CALL_RE.search(text) is not None), text


def test_has_export_call_examples():
    for text, want in [("torch.onnx.export(m, x)", True), ("my_export(m)", False), ("draft_export (m)", True),
                       ("retrace(x)", False), ("éexport(x)", False), ("x.trace_module\n(", True),
                       ("torch.jit.trace_module(m, {})", True), ("exported(x)", False), ("", False),
                       ("trace\t(", True), ("export_for_inference(", True), ("dynamo_trace(", False)]:
        assert has_export_call(text) is want, text
        assert (_EXPORT_CALL_RE.search(text) is not None) is want, text


_FWD = ["def", "forward", " ", "\t", "\n", "x", "_", "(", "é", "#", "forwards", "undef", "quantization.", "convert",
        "quantize_dynamic", "prepare", " (", "nquantization."]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_FWD), max_size=10))
def test_word_start_shortcuts_are_the_regexes(parts):
    from exportlint.engine import _MODEL_RE, _QUANT_CONVERT_NOB, _QUANT_CONVERT_RE, _at_word_start, _has_forward_def

    text = "".join(parts)
    assert _has_forward_def(text) == (_MODEL_RE.search(text) is not None), text
    assert _at_word_start(_QUANT_CONVERT_NOB, text) == (_QUANT_CONVERT_RE.search(text) is not None), text
