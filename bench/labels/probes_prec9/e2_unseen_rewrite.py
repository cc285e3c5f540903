"""P-DATASTATE, unseen rewrites (peft hira/peanut/frod/deft `unmerge()`, lora MHA `merge()`): Python
bookkeeping (`self._base = None`, `self.merged_adapters.clear()` / `.append(name)`) beside a weight
rewrite whose owner's kind the flow does not know (`w = self.get_base_layer().weight;
w.data.copy_(...)`, `del layer.weight; layer.weight = new`). Reached from forward only under
`if self.disable_adapters: if self.merged:` (one-shot). torch 2.13.0+cpu."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all


class Layer(nn.Module):
    def __init__(self, how):
        super().__init__()
        torch.manual_seed(0)
        self.base_layer = nn.Linear(4, 4)
        self.how = how
        self.merged_adapters = ["a"]
        self._base = self.base_layer.weight.data.clone() + 1.0
        self.disable_adapters = True

    def get_base_layer(self):
        return self.base_layer

    @property
    def merged(self):
        return bool(self.merged_adapters)

    def unmerge(self):
        weight = self.get_base_layer().weight
        if self.how == "copy_":
            weight.data.copy_(self._base.to(device=weight.device, dtype=weight.dtype))
        elif self.how == "del":
            layer = self.get_base_layer()
            del layer.weight
            layer.weight = nn.Parameter(self._base.clone(), requires_grad=False)
        # how == "bookkeeping": no weight rewrite at all
        self._base = None
        self.merged_adapters.clear()

    def forward(self, x):
        if self.disable_adapters:
            if self.merged:
                self.unmerge()
            return self.base_layer(x)
        return self.base_layer(x) * 2


for how in ("copy_", "del", "bookkeeping"):
    for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
        # a fresh (merged) layer for each exporter: the path runs once per layer
        m = Layer(how)
        ref = Layer(how)
        ref(torch.randn(2, 4))  # the eager model after its one-shot unmerge
        run_all(f"e2 {how}", m, (torch.randn(2, 4),), None, exporters=(ex,))
        x = torch.randn(3, 4)
        print(f"e2 {how} | {ex}: after export, eager matches the unmerged reference:",
              torch.allclose(m(x), ref(x)))
