import torch.nn as nn

from .postprocess import postprocess


class DetrLike(nn.Module):
    def __init__(self, threshold=0.4):
        super().__init__()
        self.threshold = threshold
        self.cls = nn.Linear(3, 3)

    def forward(self, logits, boxes):
        results = postprocess(self.cls(logits), boxes, self.threshold)
        out = results[0]["boxes"]
        if out.shape[0] == 0:
            return out.new_zeros((1, 4))
        return out * 2
