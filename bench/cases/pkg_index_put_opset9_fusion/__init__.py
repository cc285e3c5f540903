"""Rebuilt from https://github.com/pangsu0613/CLOCs/issues/57 "questions about ONNX export"
(`RuntimeError: Unsupported: ONNX export of index_put in opset 9` on
`out_1[:, tensor_index[:, 0], tensor_index[:, 1]] = x[0, :, 0, :]` in the fusion layer)

`scatter.py` holds the scatter-into-a-canvas helper; `fusion.py` the fusion layer. Exported at
opset 9.
"""
import torch

from .fusion import FusionLayer

model = FusionLayer()
example_args = (torch.randn(1, 4, 1, 6), torch.tensor([[0, 1], [2, 3], [4, 0], [1, 5], [3, 3], [5, 2]]))
opset_version = 9
