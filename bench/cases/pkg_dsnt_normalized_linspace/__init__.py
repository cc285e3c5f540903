"""Rebuilt from https://github.com/anibali/margipose/issues/7 "Not able to convert this model to ONNX"
(`export_model.py -f onnx` of MargiPose: TracerWarnings in `dsntnn.py`, whose differentiable spatial
to numerical transform builds normalised coordinate ranges from the heatmap size with
`torch.linspace` and takes their expectation under the softmaxed heatmaps)

`dsntnn.py` holds the coordinate helpers (`normalized_linspace`, `soft_argmax`); `model.py` the pose
head producing the heatmaps; the input size is fixed.
"""
import torch

from .model import PoseHead

model = PoseHead()
example_args = (torch.randn(1, 3, 16, 16),)
