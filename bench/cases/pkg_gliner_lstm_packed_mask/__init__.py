"""Rebuilt from https://github.com/urchade/GLiNER/issues/120 "Change gliner_config.json to config.json"
(converting GLiNER to ONNX with dynamic batch and sequence axes: its bidirectional LSTM encoder packs
the token embeddings with `pack_padded_sequence` using lengths summed from the attention mask; the
export warned "The shape inference of prim::PadPacked type is missing" and "Exporting a model to
ONNX with a batch_size other than 1, with a variable length with LSTM can cause an error", and the
converted model misbehaved)

`encoder.py` holds the packed LSTM encoder; `model.py` the token encoder feeding it.
"""
import torch
from torch.export import Dim

from .model import TokenEncoder

model = TokenEncoder()
example_args = (torch.randint(1, 50, (2, 7)), torch.tensor([[1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0, 0]]))
_batch = Dim("batch", min=1, max=8)
_seq = Dim("seq", min=2, max=32)
dynamic_shapes = {"input_ids": {0: _batch, 1: _seq}, "attention_mask": {0: _batch, 1: _seq}}
