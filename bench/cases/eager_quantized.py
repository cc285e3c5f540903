"""Rebuilt from https://github.com/pytorch/pytorch/issues/137111
"[export] Fails to export a quantized model"

An eager-mode post-training quantized model (QuantStub / DeQuantStub, prepare, calibrate,
convert), as in the quantization tutorial, failed to export.
"""
import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.linear = torch.nn.Linear(4, 8)
        self.relu = torch.nn.ReLU()
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.linear(x)
        x = self.relu(x)
        x = self.dequant(x)
        return x


def _quantized():
    m = M().eval()
    m.qconfig = torch.ao.quantization.get_default_qconfig("x86")
    prepared = torch.ao.quantization.prepare(m)
    prepared(torch.randn(16, 1, 4))
    return torch.ao.quantization.convert(prepared)


model = _quantized()
example_args = (torch.randn(1, 1, 4),)
