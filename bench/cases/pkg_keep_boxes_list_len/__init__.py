"""Rebuilt from https://github.com/shilrley6/Faster-R-CNN-with-model-pretrained-on-Visual-Genome/issues/5
"TypeError: len() of a 0-d tensor" (`keep_boxes = torch.nonzero(max_conf >= conf_thresh)`, then
`if len(keep_boxes) < MIN_BOXES:` picks the top MIN_BOXES instead)

`select.py` collects, per image, the indices of the boxes above the threshold in a list; the
feature extractor (`extractor.py`) loops over that list and branches on `len(...)`.
"""
import torch

from .extractor import BoxFeatureExtractor

model = BoxFeatureExtractor()
example_args = (torch.rand(2, 20), torch.randn(2, 20, 8))
