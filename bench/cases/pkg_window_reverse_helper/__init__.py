"""Rebuilt from https://github.com/open-mmlab/mmdeploy/issues/2920
"[Bug] Mask2Former convert to tensorRT model failed when setting batchSize > 1"

Swin keeps `window_partition` / `window_reverse` in a shared utility module; `window_reverse`
computes the batch with `int(windows.shape[0] / (H * W / ws / ws))`. The block in another module
calls both, and the user exported with a dynamic batch.
"""
import torch

from .block import WindowBlock

model = WindowBlock()
example_args = (torch.randn(2, 8, 8, 4),)
dynamic_shapes = ({0: torch.export.Dim("batch", min=1, max=64)},)
