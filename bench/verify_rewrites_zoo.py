"""Rewrites on real transformers code, verified by a real export (``--confirm --diff``).

For each model: copy its ``modeling_*.py`` into a scratch project (relative imports made
absolute), add a target that builds one encoder layer from a tiny config in float16 (the
rewritten branch, the fp16 overflow clamp, only runs in float16), lint it and let
``--confirm`` verify the rewrites (``--diff`` writes nothing). Prints per model what
happened to each rewrite. Needs torch, onnx, onnxruntime, transformers.

    python bench/verify_rewrites_zoo.py [model ...]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import transformers

TF = Path(transformers.__file__).parent
ROOT = Path(__file__).resolve().parents[1]
MODELS = {
    # model dir: (config class, encoder layer class, d_model keyword, extra config)
    "bart": ("BartConfig", "BartEncoderLayer", "d_model", {}),
    "marian": ("MarianConfig", "MarianEncoderLayer", "d_model", {}),
    "plbart": ("PLBartConfig", "PLBartEncoderLayer", "d_model", {}),
    "blenderbot_small": ("BlenderbotSmallConfig", "BlenderbotSmallEncoderLayer", "d_model", {}),
    "mvp": ("MvpConfig", "MvpEncoderLayer", "d_model", {}),
}


def project(model: str, tmp: Path) -> Path:
    cfg, layer, dkw, extra = MODELS[model]
    src = (TF / "models" / model / f"modeling_{model}.py").read_text()
    src = re.sub(r"^from \.\.\.(\w*)", lambda m: f"from transformers.{m.group(1)}" if m.group(1) else "from transformers",
                 src, flags=re.M)
    src = re.sub(r"^from \.(\w+)", rf"from transformers.models.{model}.\1", src, flags=re.M)
    d = tmp / model
    d.mkdir()
    (d / f"modeling_{model}.py").write_text(src)
    (d / "target.py").write_text(textwrap.dedent(f"""\
        import torch
        import transformers.utils as _tu
        import transformers.utils.import_utils as _iu

        # the torchvision wheel here is CUDA-built and fails to import with CPU torch
        _iu.is_torchvision_available = _tu.is_torchvision_available = lambda: False

        from transformers.models.{model}.configuration_{model} import {cfg}
        from modeling_{model} import {layer}


        def build():
            torch.manual_seed(0)
            config = {cfg}({dkw}=16, encoder_attention_heads=2, encoder_ffn_dim=32, decoder_attention_heads=2,
                            decoder_ffn_dim=32, encoder_layers=1, decoder_layers=1, vocab_size=64, **{extra!r})
            config._attn_implementation = "eager"
            layer = {layer}(config).eval().half()
            return layer, (torch.randn(1, 5, 16).half(), None)
    """))
    (d / "pyproject.toml").write_text(f'[tool.exportlint]\n\n[tool.exportlint.targets]\nlayer = "target:build"\n')
    return d


def main(argv: list[str]) -> int:
    models = argv or list(MODELS)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    totals = {"rewrites": 0, "verified": 0, "kept": 0, "dropped": 0}
    with tempfile.TemporaryDirectory() as t:
        for model in models:
            d = project(model, Path(t))
            t0 = time.time()
            r = subprocess.run([sys.executable, "-m", "exportlint", f"modeling_{model}.py", "--confirm", "--diff",
                                "--unsafe-fixes", "--no-cache", "--exporter", "export-nonstrict", "--exporter",
                                "export-strict", "--exporter", "onnx-dynamo", "--select", "EXL101,EXL102"],
                               cwd=d, env=env, capture_output=True, text=True, timeout=1200)
            lines = [ln for ln in r.stderr.splitlines() if ln.startswith("exportlint: rewrite")]
            print(f"== {model} ({time.time() - t0:.0f}s)")
            for ln in lines:
                print("  ", ln[:400])
            for ln in lines:
                totals["rewrites"] += 1
                if "rewrite verified" in ln:
                    totals["verified"] += 1
                elif "dropped" in ln:
                    totals["dropped"] += 1
                else:
                    totals["kept"] += 1
            if not lines:
                print("   (no rewrite checked)", r.stderr[-1500:])
    print(totals)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
