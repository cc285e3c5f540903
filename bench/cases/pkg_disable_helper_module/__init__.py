"""Rebuilt from https://github.com/pytorch/pytorch/issues/160059
"torch.jit.script fails with 'undefined value' error when module has @torch.compiler.disable decorator"

A DETR-style detector keeps its matching/gather utilities in a separate `utils` module and marks
them `@torch.compiler.disable` (variable target counts make torch.compile recompile); the model
module imports the helper and calls it in `forward`. The export must still work.
"""
import torch

from .detector import QueryDetector

model = QueryDetector()
example_args = (torch.randn(2, 6, 8),)
