import torch, torch.nn as nn
from harness import run_all
class Swin(nn.Module):   # swin set_shift_and_window_size
    def __init__(s):
        super().__init__(); s.shift_size = 2; s.window_size = 4; s.lin = nn.Linear(8, 8)
    def set_sw(s, res):
        if min(res) <= s.window_size:
            s.shift_size = 0
            s.window_size = min(res)
    def forward(s, x):
        s.set_sw((x.shape[1], x.shape[2]))
        if s.shift_size > 0:
            x = torch.roll(x, shifts=(-s.shift_size, -s.shift_size), dims=(1, 2))
        return s.lin(x) * s.window_size
class Mode(nn.Module):   # seamless set_modality then read
    def __init__(s):
        super().__init__(); s.current_modality = "text"; s.lin = nn.Linear(8, 8)
    def set_modality(s, m):
        if m == "text": s.current_modality = "text"
        else: s.current_modality = "speech"
    def forward(s, x):
        s.set_modality("speech")
        if s.current_modality == "speech":
            return s.lin(x) + 1
        return s.lin(x)
class Rope(nn.Module):   # rope_deltas written in forward (prefill), tensor attribute
    def __init__(s):
        super().__init__(); s.rope_deltas = None
    def forward(s, x):
        if s.rope_deltas is None:
            d = x.sum(-1, keepdim=True)
            s.rope_deltas = d
        return x + s.rope_deltas
class Grow(nn.Module):   # musicgen sinusoidal growing cache, not triggered
    def __init__(s):
        super().__init__(); s.make_weights(16)
    def make_weights(s, n):
        s.weights = nn.Buffer(torch.arange(n * 8, dtype=torch.float32).view(n, 8), persistent=False)
    def forward(s, x):
        seq = x.shape[1]
        pos = torch.arange(seq)
        if seq > s.weights.size(0):
            s.make_weights(seq)
        return x + s.weights.index_select(0, pos)
run_all("swin-shift(small res)", Swin(), (torch.randn(1, 3, 3, 8),), (torch.randn(1, 3, 3, 8),))
run_all("swin-shift(large res)", Swin(), (torch.randn(1, 6, 6, 8),), (torch.randn(1, 6, 6, 8),))
run_all("mode-string", Mode(), (torch.randn(2, 8),), (torch.randn(3, 8),))
run_all("rope-deltas", Rope(), (torch.randn(2, 8),), (torch.randn(2, 8),))
run_all("grow-cache(not taken)", Grow(), (torch.randn(2, 5, 8),), (torch.randn(2, 5, 8),))
run_all("grow-cache(taken)", Grow(), (torch.randn(2, 20, 8),), (torch.randn(2, 20, 8),))
