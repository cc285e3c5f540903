import torch, torch.nn as nn, torch.nn.functional as F
from harness import run_all
class G(nn.Module):
    def forward(s, x): return F.adaptive_max_pool2d(x, 1)
class K(nn.Module):
    def forward(s, x): return F.adaptive_max_pool2d(x, (4, 1))
class A(nn.Module):
    def forward(s, x): return F.adaptive_avg_pool2d(x, 1) + F.adaptive_max_pool2d(x, 1)
run_all("amp2d(1)", G(), (torch.randn(1, 3, 8, 8),), exporters=("onnx-dynamo",))
run_all("amp2d((4,1))", K(), (torch.randn(1, 3, 8, 8),), exporters=("onnx-dynamo",))
run_all("avgmax(1)", A(), (torch.randn(1, 3, 8, 8),), exporters=("onnx-dynamo",))
