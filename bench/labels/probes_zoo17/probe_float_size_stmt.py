"""zoo17: where each torch.export mode stops on a size computed through a float inside a multi-line
assignment (transformers mobilevit `unfolding`: `new_width = (torch_int(...) if torch.jit.is_tracing() else
int(math.ceil(w / p) * p))`), as the zoo truth's locator (exportlint.confirm.locate.locate_by_guards, guard
provenance refined to the producing statement) reports it. Truth for hf/mobilevit: strict 399 (the width
statement's first line), non-strict 397 (the height conversion's own line)."""
import math
import os
import sys

import torch
from torch.export import Dim

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", ".."))
from exportlint.confirm import locate as L  # noqa: E402


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from float_size_mod.unfold_model import Net  # noqa: E402


MOD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'float_size_mod')
src = open(os.path.join(MOD, 'unfold_model.py')).read().splitlines()
for strict in (True, False):
    m = Net().eval()
    x = (torch.randn(2, 3, 64, 64),)
    ds = ({0: Dim("batch"), 2: Dim("height", min=64, max=1024), 3: Dim("width", min=64, max=1024)},)
    mode = "strict" if strict else "non-strict"
    try:
        torch.export.export(m, x, dynamic_shapes=ds, strict=strict)
        print(mode, "pass")
        continue
    except Exception as e:  # noqa: BLE001
        msg = " ".join(str(a) for a in L.exception_chain(e))
        print(mode, "FAIL", type(e).__name__, msg.replace("\n", " ")[:160])
    loc = L.locate_by_guards(Net().eval(), x, {}, ds, L.UserFiles([MOD]),
                             strict=strict, message=msg)
    if loc is None:
        print("  located: none")
    else:
        print(f"  located: line {loc.line} ({loc.how}): {src[loc.line - 1].strip()!r}; stack {[ln for _, ln in loc.stack]}")
