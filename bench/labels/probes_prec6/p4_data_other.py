"""`.data` of what else than a parameter: an input, an intermediate, a registered buffer
(`python p4_data_other.py MODE EXPORTER`, one per process)."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all

class M(nn.Module):
    def __init__(s, mode):
        super().__init__(); torch.manual_seed(0); s.base = nn.Linear(4, 4); s.mode = mode
        s.register_buffer("buf", torch.randn(4))
    def forward(s, x):
        if s.mode == "input":
            return s.base(x.data)
        if s.mode == "intermediate":
            y = s.base(x)
            return y.data * 2
        if s.mode == "buffer":
            return s.base(x) + s.buf.data
        if s.mode == "intermediate_inplace":  # speechbrain FastSpeech2 aligner: `a.data.masked_fill_(~mask, -inf)`
            a = s.base(x)
            a.data.masked_fill_(x < 0, float("-inf"))
            return a.softmax(-1)
        if s.mode == "buffer_write":
            s.buf.data = s.buf.data * 0.5
            return s.base(x) + s.buf
mode, ex = sys.argv[1], sys.argv[2]
run_all(mode, M(mode), (torch.randn(3, 4),), (torch.randn(3, 4),), exporters=(ex,))
