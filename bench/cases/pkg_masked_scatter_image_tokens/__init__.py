"""Rebuilt from https://github.com/tenstorrent/tt-forge-onnx/issues/1187 "NotImplementedError: The
following operators are not implemented: ['aten::masked_scatter']" (LLaVA merges projected image
features into the text embeddings with `inputs_embeds.masked_scatter(special_image_mask,
image_features)`, where the mask marks the image-token positions; export of the merge is reported
failing)

`merge.py` holds the merge helper; `llava.py` the tiny vision-language model.
"""
import torch

from .llava import TinyLlava

model = TinyLlava()
_ids = torch.randint(0, 30, (1, 10))
_ids[0, 2:5] = 31
example_args = (_ids, torch.randn(3, 6))
opset_version = 17
