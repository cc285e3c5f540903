"""Rebuilt from https://github.com/pytorch/pytorch/issues/159295
"Invalid onnx model is exported for model where data is assigned using a mask and index"

The export (opset 11) succeeded but onnxruntime failed to run the model: a Reshape node in the
boolean-mask assignment `r[mask, 0] = R[mask]` rejected the input.
"""
import torch


class TestModel(torch.nn.Module):
    def forward(self, R):
        B = R.shape[0]
        r = torch.zeros((B, 2), dtype=R.dtype, device=R.device)
        mask = R > 0
        r[mask, 0] = R[mask]
        return r


example_args = (torch.ones((2,)),)
opset_version = 11
