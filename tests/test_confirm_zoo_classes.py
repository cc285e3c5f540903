"""Classes found by running --confirm on real zoo models (bench/confirm_zoo.py), each reproduced small.

- a divergence that is only another choice among tied values (torchvision SSDlite with random
  weights: every anchor scores 1/91, and ``topk`` picks different equal scores in onnxruntime);
- a binding ``TypeError`` raised by a call in the project's own code (transformers' output
  wrapper adds ``use_cache=`` to arguments the legacy exporter passed positionally): that call's
  line, not the target;
- a module holding a TorchScript object the exporters cannot flatten (eager-mode quantized
  packed params): the line that calls that module.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest

from exportlint.confirm.locate import UserFiles, locate

needs_torch = pytest.mark.skipif(not importlib.util.find_spec("torch"), reason="torch not installed")


def _load(tmp_path, name: str, src: str):
    f = tmp_path / f"{name}.py"
    f.write_text(textwrap.dedent(src))
    spec = importlib.util.spec_from_file_location(name, f)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod, f


def _line(f, text: str) -> int:
    return next(i for i, s in enumerate(f.read_text().splitlines(), 1) if text in s)


@needs_torch
def test_outputs_that_move_with_the_tie_order_are_not_evidence(tmp_path):
    import torch

    from exportlint.confirm.ties import tie_dependent
    from exportlint.confirm.worker import compare, output_leaves

    mod, f = _load(tmp_path, "ties_case", """
        import torch

        class Pick(torch.nn.Module):
            def forward(self, scores, boxes):
                s, idx = scores.topk(3)
                return boxes[idx] * s[:, None]

        class Arg(torch.nn.Module):
            def forward(self, x):
                return x.argmax(dim=1).float() + x.sum()

        class MaxValues(torch.nn.Module):
            def forward(self, x):
                return x.max(dim=1).values
    """)
    users = UserFiles([str(tmp_path)])
    close = lambda e, g: compare(e, g, 1e-4, 1e-5)["ok"]  # noqa: E731
    boxes = torch.arange(40.0).reshape(10, 4)
    for scores, tied in ((torch.full((10,), 0.25), True), (torch.linspace(0, 1, 10), False)):
        m = mod.Pick()
        ref = output_leaves(m(scores, boxes))
        hit = tie_dependent(lambda m=m, scores=scores: output_leaves(m(scores, boxes)), ref, users, close)
        if tied:
            assert hit is not None and hit[1] == _line(f, "topk(3)") and "topk" in hit[2], hit
        else:
            assert hit is None
    x = torch.tensor([[1.0, 1.0, 0.0], [2.0, 0.0, 2.0]])
    m = mod.Arg()
    assert tie_dependent(lambda: output_leaves(m(x)), output_leaves(m(x)), users, close) is not None
    # ties that change no output are no excuse: the values of max are the same either way
    m = mod.MaxValues()
    assert tie_dependent(lambda: output_leaves(m(x)), output_leaves(m(x)), users, close) is None


@needs_torch
def test_a_binding_error_of_the_projects_own_call_is_placed_there(tmp_path):
    mod, f = _load(tmp_path, "bind_case", """
        import functools
        import torch

        def adds_flag(fn):
            @functools.wraps(fn)
            def wrapper(self, *args, **kwargs):
                kwargs["flag"] = True
                return fn(self, *args, **kwargs)
            return wrapper

        class M(torch.nn.Module):
            @adds_flag
            def forward(self, x, mask=None, flag=None):
                return x
    """)
    import torch

    users = UserFiles([str(tmp_path)])
    m = mod.M()
    try:  # what the legacy exporter does with keyword inputs: all positional, in forward's order
        m(torch.ones(1), None, None)
    except TypeError as e:
        loc = locate(e, "onnx-legacy", users)
        assert loc is not None and loc.line == _line(f, "return fn(self, *args, **kwargs)"), loc
    else:
        raise AssertionError("expected a binding error")
    # the exporter's own call of forward does not bind: no line of the project is at fault
    plain = torch.nn.Linear(2, 2)
    try:
        plain(torch.ones(2), torch.ones(2))
    except TypeError as e:
        assert locate(e, "onnx-legacy", users) is None
    else:
        raise AssertionError("expected a binding error")


@needs_torch
def test_a_script_object_the_exporter_cannot_flatten_is_placed_at_the_op_that_uses_it(tmp_path):
    import torch
    import torch.ao.quantization as q

    from exportlint.confirm.script_objects import locate_script_object_use

    mod, f = _load(tmp_path, "qcase", """
        import torch

        class Mlp(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = torch.nn.Linear(4, 8)
                self.fc2 = torch.nn.Linear(8, 2)

            def forward(self, x):
                x = x * 2
                h = torch.relu(self.fc1(x))
                return self.fc2(h)
    """)
    m = q.quantize_dynamic(mod.Mlp().eval(), {torch.nn.Linear}, dtype=torch.qint8)
    x = torch.randn(3, 4)
    try:  # measured: fails before tracing, no frame of the model on the stack
        torch.export.export(m, (x,), strict=False)
    except Exception as e:  # noqa: BLE001
        exc = e
    else:
        pytest.skip("this torch exports quantized packed params")
    users = UserFiles([str(tmp_path)])
    assert locate(exc, "export-nonstrict", users) is None
    loc = locate_script_object_use(m, (x,), {}, str(exc), users)
    assert loc is not None and loc.line == _line(f, "self.fc1(x)"), loc
    # a message naming no TorchScript class: nothing to look for
    assert locate_script_object_use(m, (x,), {}, "some other error", users) is None
