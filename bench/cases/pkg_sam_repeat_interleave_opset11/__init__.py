"""Rebuilt from https://github.com/facebookresearch/segment-anything/issues/275 "Onnx error"
(`torch.onnx.export(onnx_model, ..., opset_version=11, dynamic_axes=dynamic_axes)` of SAM's ONNX
wrapper: "RuntimeError: Exporting the operator repeat_interleave to ONNX opset version 11 is not
supported"; the mask decoder repeats the image embedding once per prompt with
`torch.repeat_interleave(image_embeddings, tokens.shape[0], dim=0)`)

`mask_decoder.py` holds the mask decoder, `transformer.py` its token-to-image attention, `onnx_model.py`
the ONNX wrapper; the number of points is dynamic, the export uses opset 11.
"""
import torch
from torch.export import Dim

from .onnx_model import SamOnnxModel

model = SamOnnxModel()
example_args = (torch.randn(1, 8, 4, 4), torch.randn(1, 8, 4, 4), torch.randn(1, 3, 8))
dynamic_shapes = {"image_embeddings": None, "image_pe": None,
                  "point_embeddings": {1: Dim("num_points", min=1, max=16)}}
opset_version = 11
