"""Claims of sample O (prec14, seed 1410, main@6f7706b) that are not obvious from the code. torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class DataMaskFill(nn.Module):
    """coqui-tts AlignmentNetwork / OriginalAttention: `attn.data.masked_fill_(~mask, -inf)` on a
    tensor the forward computed, then softmax of it (O 5, O 10)."""
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)

    def forward(self, x, mask):
        attn = self.q(x)
        attn.data.masked_fill_(~mask, -1e4)
        return torch.softmax(attn, -1)


class DataRead(nn.Module):
    """recbole KD_DAGFM distillation arm: `e = e.data` of a computed tensor, then computed on (O 25)."""
    def __init__(self):
        super().__init__()
        self.emb = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        e = self.emb(x)
        e = e.data
        return self.head(e)


class AraneIntLoop(nn.Module):
    """openunmix filtering.py 278-285: `t = torch.arange(pos, min(n, pos + bs)); pos = int(t[-1]) + 1`
    in a while loop over the frame count (O 21)."""
    def forward(self, y):
        n = y.shape[0]
        pos, bs, acc = 0, 3, torch.zeros(y.shape[1:])
        while pos < n:
            t = torch.arange(pos, min(n, pos + bs))
            pos = int(t[-1]) + 1
            acc = acc + torch.sum(y[t], dim=0)
        return acc


class ScratchAttention(nn.Module):
    """coqui-tts Tacotron OriginalAttention: `init_states(inputs)` sets `self.attention_weights_cum`,
    `self.u` from the inputs; forward updates them (`+=`, `self.u = sigmoid(...)`) (O 9, O 11)."""
    def __init__(self):
        super().__init__()
        self.ta = nn.Linear(4, 1)

    def init_states(self, inputs):
        self.cum = torch.zeros(inputs.shape[0], inputs.shape[1])
        self.u = 0.5 * torch.ones(inputs.shape[0], 1)

    def forward(self, query, inputs):
        score = torch.einsum("bd,btd->bt", query, inputs) + self.cum
        align = torch.softmax(score, -1) * self.u
        self.cum += align
        ctx = torch.bmm(align.unsqueeze(1), inputs).squeeze(1)
        self.u = torch.sigmoid(self.ta(ctx))
        return ctx


class ScratchDecoder(nn.Module):
    """coqui-tts Tacotron Decoder.forward: `self.attention.init_states(inputs)` first, then steps."""
    def __init__(self):
        super().__init__()
        self.attention = ScratchAttention()

    def forward(self, inputs):
        self.attention.init_states(inputs)
        q = inputs.mean(1)
        outs = []
        for _ in range(3):
            q = self.attention(q, inputs)
            outs.append(q)
        return torch.stack(outs, 1)


x = torch.randn(2, 3, 4)
m = torch.tensor([[True, True, False, True]]).expand(2, 3, 4).contiguous()
run_all("o5 .data.masked_fill_ of a computed tensor (coqui aligner)", DataMaskFill(), (x, m), (torch.randn(2, 3, 4), m))
run_all("o25 .data read of a computed tensor (recbole KD_DAGFM)", DataRead(), (x,), (torch.randn(2, 3, 4),))
run_all("o21 int(arange(pos, min(n, pos+bs))[-1]) (openunmix wiener)", AraneIntLoop(), (torch.randn(7, 2),),
        (torch.randn(7, 2),))
run_all("o9 state re-initialised by the parent each call (coqui Tacotron attention)", ScratchDecoder(), (x,), (torch.randn(2, 3, 4),))
