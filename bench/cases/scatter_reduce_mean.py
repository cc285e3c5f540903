"""Rebuilt from https://github.com/pytorch/pytorch/issues/101535
"Exporting the operator 'aten::scatter_reduce' to ONNX opset version 15 is not supported"

Token merging (ToMe-style bipartite soft matching) averages each merged source token into its
destination with `dst.scatter_reduce(-2, dst_idx.expand(n, r, c), src, reduce="mean")`; the
maintainers answered that opset >= 16 covers some reductions but `reduce='mean'` is not in ONNX.
"""
import torch


class TokenMerge(torch.nn.Module):
    def __init__(self, r=2):
        super().__init__()
        self.r = r

    def forward(self, x):
        a, b = x[..., ::2, :], x[..., 1::2, :]
        an = a / a.norm(dim=-1, keepdim=True)
        bn = b / b.norm(dim=-1, keepdim=True)
        scores = an @ bn.transpose(-1, -2)
        node_max, node_idx = scores.max(dim=-1)
        edge_idx = node_max.argsort(dim=-1, descending=True)[..., None]
        unm_idx = edge_idx[..., self.r:, :]
        src_idx = edge_idx[..., : self.r, :]
        dst_idx = node_idx[..., None].gather(dim=-2, index=src_idx)
        n, t1, c = a.shape
        unm = a.gather(dim=-2, index=unm_idx.expand(n, t1 - self.r, c))
        src = a.gather(dim=-2, index=src_idx.expand(n, self.r, c))
        dst = b.scatter_reduce(-2, dst_idx.expand(n, self.r, c), src, reduce="mean")
        return torch.cat([unm, dst], dim=1)


example_args = (torch.randn(2, 8, 4),)
opset_version = 16
