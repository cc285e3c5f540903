"""Rebuilt from https://github.com/murdockhou/Yet-Another-EfficientDet-Pytorch-Convert-ONNX-TVM/issues/2
"Tracerwaring问题" (TracerWarning problem)

EfficientDet's static-same-padding max pool lives in `utils_extra.py` and reads
`h, w = x.cpu().detach().numpy().shape[-2:]`; the BiFPN module calls it. Exported with dynamic
H/W.
"""
import torch

from .bifpn import BiFPNDown

model = BiFPNDown()
example_args = (torch.randn(1, 4, 15, 17),)
dynamic_shapes = ({2: torch.export.Dim("h", min=4, max=256), 3: torch.export.Dim("w", min=4, max=256)},)
