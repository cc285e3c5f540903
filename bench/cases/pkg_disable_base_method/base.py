import torch
import torch.nn as nn


class HeadBase(nn.Module):
    @torch.compiler.disable
    def postprocess(self, logits, boxes):
        scores = logits.softmax(-1)[..., :-1].max(-1).values
        return scores, boxes.sigmoid()
