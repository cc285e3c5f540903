"""EXL209: torch.utils.checkpoint run on every forward call fails strict torch.export.

Measured with torch 2.13 (rules/EXL209.md): `checkpoint(fn, x, use_reentrant=False|True)` in
forward: strict fails ("RuntimeError: _checkpoint_context_fn"); `checkpoint_sequential`: strict
fails ("Attempted to call function marked as skipped"); non-strict, onnx-dynamo, onnx-legacy
pass; under `if self.training` the eval-mode export passes with both modes. Held-out case
bench/cases/checkpoint_in_forward.py (pytorch/pytorch#88286).
"""

from __future__ import annotations

import textwrap

from exportlint.config import Config
from exportlint.engine import lint_source


def lint(src: str) -> list:
    return list(lint_source(textwrap.dedent(src), "m.py", config=Config(), codes=("EXL209",)))


SRC = """\
import torch
import torch.utils.checkpoint as cp
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
        self.grad_checkpointing = False

    def forward(self, x):
        {body}
        return x
"""


def test_unconditional_checkpoint_is_reported():
    for body in ("x = checkpoint(self.seq, x, use_reentrant=False)",
                 "x = cp.checkpoint(self.seq, x)",
                 "x = checkpoint_sequential(self.seq, 2, x, use_reentrant=False)",
                 "for _ in range(2):\n            x = checkpoint(self.seq, x)"):
        got = lint(SRC.format(body=body))
        assert [f.line for f in got] == [13 if "for" not in body else 14], body
        assert tuple(got[0].exporters) == ("export-strict",)


def test_gated_checkpoint_is_quiet():
    for body in ("if self.training:\n            x = checkpoint(self.seq, x)",
                 "if self.grad_checkpointing and not torch.jit.is_scripting():\n            x = checkpoint(self.seq, x)",
                 "x = checkpoint(self.seq, x) if self.grad_checkpointing else self.seq(x)",
                 "x = self.seq(x)"):
        assert lint(SRC.format(body=body)) == [], body


def test_helper_checkpoint_is_left_to_its_caller():
    src = """\
    import torch
    from torch.utils.checkpoint import checkpoint


    def checkpoint_seq(functions, x):
        for f in functions:
            x = checkpoint(f, x, use_reentrant=False)
        return x


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = torch.nn.Sequential(torch.nn.Linear(4, 4))
            self.grad_checkpointing = False

        def forward(self, x):
            if self.grad_checkpointing:
                return checkpoint_seq(self.blocks, x)
            return self.blocks(x)
    """
    assert lint(src) == []
