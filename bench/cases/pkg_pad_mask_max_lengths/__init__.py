"""Rebuilt from https://github.com/k2-fsa/icefall/issues/2040 "EXPORT ONNX ERROR" (icefall's
`make_pad_mask`: `max_len = max(max_len, lengths.max())`, "TracerWarning: Converting a tensor to
a Python boolean"; the encoder masks padded frames with it; batch and time dynamic)

`utils.py` holds `make_pad_mask`; `encoder.py` the encoder.
"""
import torch

from .encoder import Encoder

model = Encoder()
example_args = (torch.randn(2, 10, 8), torch.tensor([10, 7]))
dynamic_shapes = ({0: torch.export.Dim("N", min=2, max=16), 1: torch.export.Dim("T", min=4, max=64)},
                  {0: torch.export.Dim("N", min=2, max=16)})
