"""Rebuilt from https://github.com/pytorch/pytorch/issues/128930 "onnx.export() fails on
aten::embedding_bag with padding_idx" (a residue embedding `nn.EmbeddingBag(..., mode='sum',
padding_idx=0)` sums bags of tokens; the legacy exporter raises "embedding_bag with padding_idx",
`dynamo_export` handles it)

`embeddings.py` builds the bag embedding; `encoder.py` the encoder that uses it.
"""
import torch

from .encoder import ResidueEncoder

model = ResidueEncoder()
example_args = (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4]))
