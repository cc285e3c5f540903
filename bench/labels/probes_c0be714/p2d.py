import math, numpy as np, torch, torch.nn as nn
from harness import run_all
class M(torch.nn.Module):
    def forward(self, x):
        n = np.prod(x.shape[1:])
        m = math.prod(x.shape[1:])
        return x.reshape(x.shape[0], n) + x.reshape(x.shape[0], m)
class M2(torch.nn.Module):
    def forward(self, x):
        n = np.prod(x.shape[1:])
        return x.reshape(x.shape[0], n)
run_all("testcase", M(), (torch.randn(2, 3, 4),), (torch.randn(2, 3, 4),), exporters=("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"))
run_all("testcase-noadd", M2(), (torch.randn(2, 3, 4),), (torch.randn(2, 3, 4),), exporters=("export-strict",))
