import torch, torch.nn as nn
from harness import run_all
from transformers.utils.import_utils import torch_compilable_check
class M(nn.Module):
    def forward(s, ids, h):
        eos = ids.eq(2)
        torch_compilable_check(torch.unique_consecutive(eos.sum(1)).numel() == 1, "same number of eos")
        return h * 2
ids = torch.tensor([[1, 2, 3, 2], [2, 1, 2, 0]])
run_all("unique_consecutive-in-check", M(), (ids, torch.randn(2, 4)), (ids, torch.randn(2, 4)), exporters=("onnx-legacy",))
