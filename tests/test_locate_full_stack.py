"""Non-strict export keeps only `forward` frames in node stack traces; the locator's re-export keeps all."""

import pytest

torch = pytest.importorskip("torch")

from exportlint.confirm.locate import full_stack_traces  # noqa: E402


def _helper(x):
    return torch.sin(x) * 2  # HELPER-LINE


class _M(torch.nn.Module):
    def forward(self, x):
        return _helper(x) + 1


def _sin_trace():
    ep = torch.export.export(_M(), (torch.randn(2, 3),), strict=False)
    return next(n.meta.get("stack_trace") or "" for n in ep.graph.nodes if "sin" in str(n.target))


def test_nonstrict_stack_trace_stops_at_forward_and_full_stack_traces_keeps_helpers():
    assert "HELPER-LINE" not in _sin_trace()  # torch's own filter (if this changes, the context is moot)
    with full_stack_traces():
        assert "HELPER-LINE" in _sin_trace()
    assert "HELPER-LINE" not in _sin_trace()  # restored
