"""EXL133 through a rebinding: the size is read from the input, the tensor is handed through a
method of the module (layout kept) and then split into (H // k, k). Measured with torch 2.13:
strict and non-strict torch.export with H/W declared Dim(min=64, max=1024).

    python bench/labels/probes_lead29/probe_view_split_rebound.py
"""
import torch
from torch.export import Dim


class Through(torch.nn.Module):  # timm csatv2's DCT stem, reduced
    def _scale(self, x):
        return x * 2.0 - 1.0

    def forward(self, x):
        b, c, h, w = x.shape
        x = self._scale(x)
        x = x.reshape(b, c, h // 4, 4, w // 4, 4)
        return x.permute(0, 2, 4, 1, 3, 5).sum()


class Cropped(torch.nn.Module):  # control: cropped to a multiple first (the statement has a subscript)
    def forward(self, x):
        b, c, h, w = x.shape
        x = x[:, :, : h // 4 * 4, : w // 4 * 4]
        x = x.reshape(b, c, h // 4, 4, w // 4, 4)
        return x.permute(0, 2, 4, 1, 3, 5).sum()


x = torch.randn(2, 3, 64, 64)
ds = {"x": {2: Dim("height", min=64, max=1024), 3: Dim("width", min=64, max=1024)}}
for cls in (Through, Cropped):
    for strict in (True, False):
        try:
            torch.export.export(cls().eval(), (x,), dynamic_shapes=ds, strict=strict)
            print(cls.__name__, "strict" if strict else "non-strict", "pass")
        except Exception as e:  # noqa: BLE001
            print(cls.__name__, "strict" if strict else "non-strict", "FAIL", type(e).__name__, str(e).splitlines()[0][:160])
