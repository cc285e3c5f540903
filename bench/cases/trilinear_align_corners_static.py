"""Rebuilt from https://github.com/pytorch/pytorch/issues/103473
"Error encountered when tracing model with Dynamo/Functorch for export with trilinear interpolation"

`torch.nn.functional.interpolate(x, size=(10, 20, 30), mode="trilinear", align_corners=True)`
then `out + 1`, "The model runs successfully as-is ... but fails during export" (fixed since).
Fixed output size, static input.
"""
import torch


class MyModule(torch.nn.Module):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)

    def forward(self, x):
        out = torch.nn.functional.interpolate(x, size=(10, 20, 30), mode="trilinear", align_corners=True)
        return out + 1


example_args = (torch.rand((1, 2, 3, 4, 5)),)
