"""P-KEYCACHE (mmseg CLIPTextEncoder): a dict cache filled in forward only for the keys it lacks
(`new = [w for w in names if w not in self.cache]; if len(new) > 0: self.cache.update(dict(zip(new,
encode(new))))`), then read for every key. Fresh (empty cache) and warmed by an eager call before
export; with and without a tensor input. torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class Enc(nn.Module):
    def __init__(self, with_input):
        super().__init__()
        torch.manual_seed(0)
        self.emb = nn.Embedding(10, 4)
        self.vocab = ["a", "b", "c"]
        self.ids = {"a": 1, "b": 2, "c": 3}
        self.cache = {}
        self.with_input = with_input

    def encode(self, words):
        idx = torch.tensor([self.ids[w] for w in words])
        return torch.nn.functional.normalize(self.emb(idx), dim=-1)

    def forward(self, x):
        new = [w for w in self.vocab if w not in self.cache]
        if len(new) > 0:
            self.cache.update(dict(zip(new, self.encode(new))))
        e = torch.stack([self.cache[w] for w in self.vocab])
        return x @ e.t() if self.with_input else e + 0 * x.sum()


for warm in (False, True):
    m = Enc(True)
    if warm:
        m(torch.randn(2, 4))
    run_all(f"d3 warm={warm}", m, (torch.randn(2, 4),), (torch.randn(5, 4),) if False else (torch.randn(2, 4),))

# each exporter alone on a fresh module (above, the exporters ran one after the other on one module,
# so from the second on the cache was warm)
for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
    run_all(f"d3 fresh-alone", Enc(True), (torch.randn(2, 4),), (torch.randn(2, 4),), exporters=(ex,))
m = Enc(True)
with torch.no_grad():
    m(torch.randn(2, 4))
run_all("d3 warmed-under-no_grad", m, (torch.randn(2, 4),), (torch.randn(2, 4),), exporters=("onnx-legacy",))
