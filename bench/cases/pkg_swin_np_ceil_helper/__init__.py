"""Rebuilt from https://github.com/Sense-X/Co-DETR/issues/26 "pytorch to onnx" (TracerWarnings at
`swin_transformer.py: Hp = int(np.ceil(H / self.window_size)) * self.window_size` and
`if W % self.patch_size[1] != 0:`)

The Swin stage (`swin.py`) computes the padded size of its attention mask with a helper in
`mask_utils.py` that rounds up with `np.ceil`; the window size is set by the backbone's
constructor in `backbone.py`. Exported with dynamic H/W.
"""
import torch

from .backbone import SwinBackbone

model = SwinBackbone()
example_args = (torch.randn(1, 8, 10, 13),)
dynamic_shapes = ({2: torch.export.Dim("h", min=4, max=64), 3: torch.export.Dim("w", min=4, max=64)},)
