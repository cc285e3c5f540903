"""timm 1.0.31 Attention blocks exported ALONE with the legacy exporter (torch 2.13): the EXL128
warnings at timm/layers/attention.py:124 and vision_transformer.py (a forward's `is_causal: bool
= False` handed to SDPA). Inside ViT they pass (the model's forward_features does not pass
is_causal on when it is False); as the exported module they fail."""
import contextlib, io, sys, warnings
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # bench/: the zoo worker's torchvision shim
import zoo_tvshim  # noqa: E402

zoo_tvshim.install()
from timm.layers.attention import Attention  # noqa: E402
from timm.models.vision_transformer import Block  # noqa: E402

warnings.filterwarnings("ignore")
for name, m in (("Attention", Attention(64, num_heads=2)), ("Block", Block(64, num_heads=2))):
    m = m.eval()
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            torch.onnx.export(m, (torch.randn(2, 5, 64),), "/tmp/zoo11_timm_attn.onnx", dynamo=False)
        print(name, "onnx-legacy PASS", flush=True)
    except Exception as e:
        print(name, "onnx-legacy FAIL", f"{type(e).__name__}: {e}"[:140].replace("\n", " "), flush=True)
