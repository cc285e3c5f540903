"""Rebuilt from https://github.com/open-mmlab/mmdeploy/issues/996
"yolact torch model convert to onnx failed"

mmdet's bbox2result converts the predicted labels with `labels = labels.detach().cpu().numpy()`
and splits the boxes per class with them; the ONNX export printed "TracerWarning: Converting a
tensor to a NumPy array might cause the trace to be incorrect".
"""
import torch


class Bbox2Result(torch.nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.num_classes = num_classes

    def forward(self, bboxes, labels):
        labels = labels.detach().cpu().numpy()
        per_class = [bboxes[torch.from_numpy(labels == i)].sum(0) for i in range(self.num_classes)]
        return torch.stack(per_class)


example_args = (torch.randn(5, 5), torch.tensor([0, 2, 2, 1, 0]))
