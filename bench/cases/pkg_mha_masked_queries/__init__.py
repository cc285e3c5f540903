"""Rebuilt from https://github.com/pytorch/pytorch/issues/147672
"torch._dynamo.exc.UserError: Could not guard on data-dependent expression Eq(256*u0, 256)"
(track_on: `query_decoder.py` selects the queried points with a boolean mask and hands them to
the attention modules of `modules.py`, kept in an `nn.ModuleList`; the error is raised at the
`self.mha(q, k, v, key_padding_mask=mask, ...)` call)
"""
import torch

from .query_decoder import QueryDecoder

model = QueryDecoder()
example_args = (torch.randn(1, 6, 8), torch.randn(1, 6, 5, 8), torch.tensor([[True, False, True, True, False, True]]))
