"""torchaudio 2.11 WavLMSelfAttention (the sweep's new EXL127 warning at wavlm_attention.py:212)
exported alone with onnx-dynamo (torch 2.13), dynamic batch: the mask is an nn.Embedding bias
gated by a Linear of the query, viewed (B, H, N, N). argv[1]: the file (from the sweep corpus)."""
import contextlib, importlib.util, io, sys, warnings

import torch

warnings.filterwarnings("ignore")
spec = importlib.util.spec_from_file_location("wavlm_attention", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
for rel, heads in ((True, 2), (True, 1), (False, 2)):
    m = mod.WavLMSelfAttention(64, heads, has_relative_attention_bias=rel, num_buckets=8, max_distance=16).eval()
    x = torch.randn(2, 5, 64)
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            torch.onnx.export(m, (x,), "/tmp/zoo11_wavlm.onnx", dynamo=True,
                              dynamic_shapes={"query": {0: torch.export.Dim("b", min=1, max=64)}})
        print(f"rel_bias={rel} heads={heads}: onnx-dynamo PASS", flush=True)
    except Exception as e:
        s = str(e)
        i = s.find("Cannot view")
        print(f"rel_bias={rel} heads={heads}: onnx-dynamo FAIL", (s[i:i + 100] if i >= 0 else s[:200]).replace("\n", " "), flush=True)
