"""q3's rotary cache exported with a dynamic sequence length, fresh and warmed by an eager call."""
import sys, torch
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from q3_rotary_cache import Rot
from torch.export import Dim
for warm in (False, True):
    for strict in (True, False):
        m = Rot().eval()
        if warm: m(torch.randn(2, 6, 8), torch.randn(2, 6, 8))
        try:
            s = Dim("s", min=2, max=64)
            ep = torch.export.export(m, (torch.randn(2, 6, 8), torch.randn(2, 6, 8)), dynamic_shapes=({1: s}, {1: s}), strict=strict)
            q, k = torch.randn(2, 9, 8), torch.randn(2, 9, 8)
            print(f"rotary dynamic warm={warm} strict={strict}: PASS match-9={torch.allclose(ep.module()(q, k), Rot()(q, k), atol=1e-5)}")
        except Exception as e:
            first = next((l for l in str(e).strip().splitlines() if l.strip()), "")
            print(f"rotary dynamic warm={warm} strict={strict}: FAIL {type(e).__name__}: {first[:200]}")
