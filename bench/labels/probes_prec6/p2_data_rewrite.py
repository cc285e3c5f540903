"""Writing a parameter's `.data` (or the parameter in place under no_grad) in code forward runs.
Two shapes: every call (`always`), and peft's one-shot unmerge (`if self.merged: self.unmerge()`,
after which `merged` is False). Forms: `.data = expr`, `.data += d`, `.data.copy_(d)`, `.data.sub_(d)`,
`with torch.no_grad(): w.copy_(d)`, `w.data` read only (no write, control)."""
import sys, torch, torch.nn as nn
sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/probes_c0be714")
from harness import run_all

def write(w, d, form):
    if form == "assign":
        w.data = w.data - d
    elif form == "iadd":
        w.data += -d
    elif form == "copy_":
        w.data.copy_(w.data - d)
    elif form == "sub_":
        w.data.sub_(d)
    elif form == "nograd_copy_":
        with torch.no_grad():
            w.copy_(w - d)
    elif form == "read":
        return w.data - d

class M(nn.Module):
    def __init__(s, form, oneshot):
        super().__init__()
        torch.manual_seed(0)
        s.base = nn.Linear(4, 4); s.form = form; s.oneshot = oneshot; s.merged = True
    def unmerge(s):
        write(s.base.weight, torch.full((4, 4), 0.1), s.form)
        s.merged = False
    def forward(s, x):
        if s.oneshot:
            if s.merged:
                s.unmerge()
        else:
            write(s.base.weight, torch.full((4, 4), 0.01) * x.sum(), s.form) if s.form == "read" else \
                write(s.base.weight, torch.full((4, 4), 0.01), s.form)
        return s.base(x)

for oneshot in (False, True):
    for form in ("assign", "iadd", "copy_", "sub_", "nograd_copy_", "read"):
        for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
            run_all(f"oneshot={oneshot} {form}", M(form, oneshot), (torch.randn(3, 4),), (torch.randn(3, 4),), exporters=(ex,))
