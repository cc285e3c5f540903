from dataclasses import dataclass

import torch


@dataclass
class Detections:
    boxes: torch.Tensor
    scores: torch.Tensor
