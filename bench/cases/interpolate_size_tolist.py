"""Rebuilt from https://github.com/pytorch/pytorch/issues/149826
"Cannot handle dynamic output size with torch.onnx.export (through dynamo)"

The target size of a resize comes in as an int32 tensor input and is turned into a list with
`size.tolist()`: "SymIntArrayRef expected to contain only concrete integers ... File
"/tmp/test.py", line 11, in forward: y = torch.nn.functional.interpolate(x, size=size.tolist())".
"""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, size):
        y = torch.nn.functional.interpolate(x, size=size.tolist())
        return y


example_args = (torch.rand(1, 3, 40, 50), torch.tensor([64, 64]).to(torch.int32))
