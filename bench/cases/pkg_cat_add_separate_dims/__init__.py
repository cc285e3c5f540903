"""Rebuilt from https://github.com/pytorch/pytorch/issues/155717 ("[ONNX] Support 0/1 on dynamic
dimension": `torch.cat((x, y), axis=1) + z` exported with every dimension of every input declared
dynamic on its own; export ties x's, y's and z's rows together and z's width to x's plus y's)

Here each input gets its own named `Dim`s, as users write them; `fusion.py` holds the helper
concatenating the two feature sets and adding a positional term.
"""
import torch
from torch.export import Dim

from .fusion import ConcatFusion

model = ConcatFusion()
example_args = (torch.randn(2, 3), torch.randn(2, 5), torch.randn(2, 8))
dynamic_shapes = {
    "img": {0: Dim("batch_img", max=64), 1: Dim("width_img", max=64)},
    "txt": {0: Dim("batch_txt", max=64), 1: Dim("width_txt", max=64)},
    "pos": {0: Dim("batch_pos", max=64), 1: Dim("width_pos", max=128)},
}
