"""Rebuilt from https://github.com/pytorch/pytorch/issues/160059
"torch.jit.script fails with 'undefined value' error when module has @torch.compiler.disable decorator"

The reporter marks parts of a DETR detector with `@torch.compiler.disable`. Here the decorated
method is the post-processing of a shared head base class (`base.py`); the concrete head in
`head.py` inherits it and calls `self.postprocess(...)` from its `forward`.
"""
import torch

from .head import ClassBoxHead

model = ClassBoxHead()
example_args = (torch.randn(2, 5, 8),)
