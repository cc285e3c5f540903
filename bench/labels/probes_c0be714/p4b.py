import torch, torch.nn as nn, torch.nn.functional as F
from harness import run_all
class K(nn.Module):
    def __init__(s, o): super().__init__(); s.o = o
    def forward(s, x): return F.adaptive_max_pool2d(x, s.o)
for o, shape in [((3, 3), (1, 3, 8, 8)), ((4, 4), (1, 3, 8, 8)), ((4, 1), (1, 3, 8, 7)), ((1, 4), (1, 3, 8, 8))]:
    run_all(f"amp2d({o}) on {shape[2:]}", K(o), (torch.randn(*shape),), exporters=("onnx-dynamo",))
