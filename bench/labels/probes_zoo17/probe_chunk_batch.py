"""zoo17: torchvision raft.py:368 (strict, non-strict: 'Constraints violated (batch)', guard
(3*B - 1) // B == 2, torch's fix `batch = 2`): `fmap1, fmap2 = torch.chunk(encoder(cat([image1, image2])), 2, 0)`
then `if fmap1.shape != fmap2.shape: raise` in another module. Which uses of the two chunks fail, and
where the zoo truth's locator (guard provenance) puts the failure."""
import os
import sys

import torch
from torch.export import Dim

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", ".."))
from chunk_mod.chunk_model import Net  # noqa: E402
from exportlint.confirm import locate as L  # noqa: E402

MOD = os.path.join(HERE, "chunk_mod")
src = open(os.path.join(MOD, "chunk_model.py")).read().splitlines()
for v in sys.argv[1:] or ("first", "check", "add", "bmm", "split", "slice"):
    for strict in (False, True):
        args = (torch.randn(2, 3, 8, 8), torch.randn(2, 3, 8, 8))
        b = Dim("batch")
        ds = ({0: b}, {0: b})
        mode = "strict" if strict else "non-strict"
        try:
            ep = torch.export.export(Net(v).eval(), args, dynamic_shapes=ds, strict=strict)
            a3 = (torch.randn(3, 3, 8, 8), torch.randn(3, 3, 8, 8))
            torch.testing.assert_close(ep.module()(*a3), Net(v).eval()(*a3)) if False else ep.module()(*a3)
            print(v, mode, "pass", flush=True)
            continue
        except Exception as e:  # noqa: BLE001
            msg = " ".join(str(a) for a in L.exception_chain(e))
            print(v, mode, "FAIL", type(e).__name__, msg.replace("\n", " ")[:150], flush=True)
        if L.is_constraint_violation(msg):
            loc = L.locate_by_guards(Net(v).eval(), args, {}, ds, L.UserFiles([MOD]), strict=strict, message=msg)
            print("   located:", None if loc is None else (loc.line, loc.how, src[loc.line - 1].strip()), flush=True)
