"""Rebuilt from https://github.com/pytorch/executorch/issues/1379 "dynamic_dim error - The following
dimensions have been specialized and CANNOT be dynamic" (a trajectory-prediction transformer whose
encoder and decoder inputs were each given their own dynamic batch dim: the log shows the guards
`Eq(s1, s3)` added in `utils.py` `attention` (a broadcast) and a reshape guard in `model.py`)

`utils.py` holds the scaled dot-product `attention` helper; `model.py` the encoder-decoder calling it on
the decoder queries and the encoder memory; the two inputs declare separate batch dims.
"""
import torch
from torch.export import Dim

from .model import TrajectoryTransformer

model = TrajectoryTransformer()
example_args = (torch.randn(4, 7, 2), torch.randn(4, 12, 3))
dynamic_shapes = {"enc_input": {0: Dim("enc_batch", min=2, max=32)},
                  "dec_input": {0: Dim("dec_batch", min=2, max=32)}}
