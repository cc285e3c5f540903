"""Sample U 15 (pyiqa `self.default_mean = torch.Tensor(...)`, read only as `self.default_mean.to(x)`):
does the `.to(<tensor>)` form behave as R-TOINPUT's `.to(x.device)` (probe prec17 r30)? `meta` stands in
for another device, as r30. Also the ONNX exporters at the export device (CPU)."""
import io
import warnings

import torch
from torch import nn

warnings.filterwarnings("ignore")


class ToTensor(nn.Module):
    def __init__(self):
        super().__init__()
        self.default_mean = torch.Tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)

    def forward(self, x):
        return x - self.default_mean.to(x)


class ToDevice(ToTensor):
    def forward(self, x):
        return x - self.default_mean.to(x.device)


x = torch.randn(2, 3, 4, 4)
for name, make in (("u15 .to(x)", ToTensor), ("r30 .to(x.device)", ToDevice)):
    m = make()
    m.to("meta")
    try:
        print(f"{name} | eager, model moved to meta: PASS", m(x.to("meta")).device)
    except Exception as e:
        print(f"{name} | eager, model moved to meta: FAIL {type(e).__name__}: {str(e).splitlines()[0][:120]}")
    for strict in (True, False):
        tag = "strict" if strict else "nonstrict"
        try:
            ep = torch.export.export(make(), (x,), strict=strict)
            print(f"{name} | export-{tag} at cpu: PASS")
        except Exception as e:
            print(f"{name} | export-{tag} at cpu: FAIL {type(e).__name__}: {str(e).splitlines()[0][:120]}")
            continue
        try:
            print(f"{name} | export-{tag}, program moved to meta: PASS", ep.module().to("meta")(x.to("meta")).device)
        except Exception as e:
            print(f"{name} | export-{tag}, program moved to meta: FAIL {type(e).__name__}: {str(e).splitlines()[0][:120]}")
    for dynamo in (True, False):
        tag = "onnx-dynamo" if dynamo else "onnx-legacy"
        try:
            torch.onnx.export(make(), (x,), io.BytesIO() if not dynamo else None, dynamo=dynamo)
            print(f"{name} | {tag} at cpu: PASS")
        except Exception as e:
            print(f"{name} | {tag} at cpu: FAIL {type(e).__name__}: {str(e).splitlines()[0][:120]}")
