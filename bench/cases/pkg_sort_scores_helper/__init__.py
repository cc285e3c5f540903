"""Rebuilt from https://github.com/pytorch/pytorch/issues/127831 "[dynamo] aten::sort() is not
supported by dynamo_export" (`torch.sort(x, dim=-1, descending=False)`: the legacy exporter works,
the dynamo exporter reported "Unsupported FX nodes: aten.sort.default")

`ranking.py` holds the sorting helper; `head.py` the scoring head that keeps the best scores.
"""
import torch

from .head import RankHead

model = RankHead()
example_args = (torch.randn(4, 10, 16),)
dynamic_shapes = ({0: torch.export.Dim("batch", min=1, max=64)},)
