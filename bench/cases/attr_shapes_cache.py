"""Rebuilt from https://github.com/pytorch/pytorch/issues/130820
"[Export] Mutating module attribute error during export on YOLOX"

YOLOX's head stores the feature sizes on the module in forward (`self.hw = [x.shape[-2:] for x in
outputs]`): "AssertionError: Mutating module attribute hw during export".
"""
import torch


class Model(torch.nn.Module):
    def forward(self, p3, p4, p5):
        outputs = [p3, p4, p5]
        self.hw = [x.shape[-2:] for x in outputs]
        outputs = torch.cat([x.flatten(start_dim=2) for x in outputs], dim=2).permute(0, 2, 1)
        return outputs


example_args = (torch.rand(1, 6, 8, 8), torch.rand(1, 6, 4, 4), torch.rand(1, 6, 2, 2))
