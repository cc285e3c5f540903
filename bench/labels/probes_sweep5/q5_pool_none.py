"""onnx-dynamo on adaptive pooling that keeps a dim (None) or pools to 1 (root cause printed)."""
import torch, torch.nn as nn, traceback
for name, m, x in [("avg2d(None,1)", nn.AdaptiveAvgPool2d((None, 1)), torch.randn(2,3,5,7)),
                   ("avg2d(1,None)", nn.AdaptiveAvgPool2d((1, None)), torch.randn(2,3,5,7)),
                   ("avg3d(None,1,1)", nn.AdaptiveAvgPool3d((None,1,1)), torch.randn(2,3,4,5,6)),
                   ("max3d(None,None,1)", nn.AdaptiveMaxPool3d((None,None,1)), torch.randn(2,3,4,5,6)),
                   ("avg3d(1,1,1)", nn.AdaptiveAvgPool3d(1), torch.randn(2,3,4,5,6))]:
    try:
        torch.onnx.export(m.eval(), (x,), dynamo=True, verbose=False); print(name, "PASS")
    except Exception as e:
        c = e
        while c.__cause__ is not None: c = c.__cause__
        print(name, "FAIL", type(e).__name__, "| root:", type(c).__name__, str(c).strip().splitlines()[0][:200])
