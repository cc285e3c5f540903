"""esm RotaryEmbedding: cos/sin tables cached on self, rebuilt when seq_len or device changes (EXL203)."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all

def rot(x):
    x1, x2 = x.chunk(2, dim=-1); return torch.cat((-x2, x1), dim=-1)
class Rot(nn.Module):
    def __init__(s, dim=8):
        super().__init__()
        s.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)))
        s._seq_len_cached = None; s._cos_cached = None; s._sin_cached = None
    def _update(s, x, seq_dimension=1):
        seq_len = x.shape[seq_dimension]
        if seq_len != s._seq_len_cached or s._cos_cached.device != x.device:
            s._seq_len_cached = seq_len
            t = torch.arange(x.shape[seq_dimension], device=x.device).type_as(s.inv_freq)
            freqs = torch.einsum("i,j->ij", t, s.inv_freq)
            emb = torch.cat((freqs, freqs), dim=-1).to(x.device)
            s._cos_cached = emb.cos()[None, :, :]; s._sin_cached = emb.sin()[None, :, :]
        return s._cos_cached, s._sin_cached
    def forward(s, q, k):
        s._cos_cached, s._sin_cached = s._update(k, seq_dimension=-2)
        return q * s._cos_cached + rot(q) * s._sin_cached + k * s._cos_cached

if __name__ == "__main__":
  for warm in (False, True):
    for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
        m = Rot().eval()
        if warm: m(torch.randn(2, 6, 8), torch.randn(2, 6, 8))
        run_all(f"rotary warm={warm}", m, (torch.randn(2, 6, 8), torch.randn(2, 6, 8)), (torch.randn(2, 6, 8), torch.randn(2, 6, 8)), exporters=(ex,))
