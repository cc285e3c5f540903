import torch
import torch.nn as nn


class PostProcess(nn.Module):
    @torch.compiler.disable
    def forward(self, logits, boxes):
        prob = logits.softmax(-1)
        return prob[..., :-1].max(-1).values, boxes.sigmoid()
