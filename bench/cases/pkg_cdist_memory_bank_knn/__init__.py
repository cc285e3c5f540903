"""Rebuilt from https://github.com/open-edge-platform/anomalib/issues/440 "export patchcore to onnx
error" ("Exporting the operator cdist to ONNX opset version 11 is not supported"; PatchCore scores
each patch embedding by its nearest neighbours in a memory bank, `torch.cdist(embedding,
memory_bank)` then `topk(k, largest=False)`)

`anomaly_map.py` holds the nearest-neighbour scoring helper; `patchcore.py` the model with its
memory bank buffer.
"""
import torch

from .patchcore import PatchcoreModel

model = PatchcoreModel()
example_args = (torch.randn(2, 3, 16, 16),)
opset_version = 11
