"""Real zoo models as ``--confirm`` targets (random weights, small inputs, CPU).

    python -m exportlint confirm bench.zoo_targets:timm_resnet ... (from the repository root)
    python bench/confirm_zoo.py            (all of them, with the reported lines)

Each factory returns the model, example inputs and the dynamic dims its export would declare
(a dynamic batch; a dynamic sequence for the text models), as a user's export call would.

torchvision's PyPI wheel is CUDA-built: with the CPU torch wheel its C extension does not
load and ``import torchvision`` fails (``operator torchvision::nms does not exist``, from the
two fake-kernel registrations it makes unconditionally). ``_torchvision()`` declares those two
operator schemas first (no kernels): torchvision's pure-Python models (classification, RAFT
optical flow, quantized models) then import and run; its C ops (nms, roi_align) stay
unavailable, so the detection models cannot run here. timm imports torchvision too.
"""

from __future__ import annotations

import sys

import torch
from torch.export import Dim


_LIB = None


def _torchvision():
    global _LIB
    if _LIB is None and "torchvision" not in sys.modules:
        try:  # the zoo scoreboard's shim: all schemas, CPU kernels for nms/roi_align (detection runs)
            sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
            import zoo_tvshim

            zoo_tvshim.install()
            _LIB = zoo_tvshim
        except ImportError:
            pass
    if _LIB is None and "torchvision" not in sys.modules:
        _LIB = torch.library.Library("torchvision", "DEF")  # noqa: TOR901 - schemas only, see above
        for op in ("nms", "qnms"):
            _LIB.define(f"{op}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    import torchvision

    return torchvision


def _timm(name: str, size: int = 64, **kw):
    _torchvision()
    import timm

    model = timm.create_model(name, pretrained=False, num_classes=10, **kw).eval()
    x = torch.randn(2, 3, size, size)
    return {"model": model, "args": (x,), "dynamic_shapes": ({0: Dim("batch", min=1, max=64)},)}


def timm_resnet():
    return _timm("resnet10t")


def timm_mobilenetv3():
    return _timm("mobilenetv3_small_050")


def timm_vit():
    return _timm("vit_tiny_patch16_224", size=32, img_size=32, patch_size=8)


def timm_efficientnet():
    return _timm("efficientnet_b0")


def tv_resnet18():
    tv = _torchvision()
    x = torch.randn(2, 3, 64, 64)
    return {"model": tv.models.resnet18(weights=None).eval(), "args": (x,),
            "dynamic_shapes": ({0: Dim("batch", min=1, max=64)},)}


def tv_raft_small():
    """Optical flow: two frames in, flow out (2 refinement steps to keep CPU time small)."""
    tv = _torchvision()
    a, b = torch.randn(1, 3, 128, 128), torch.randn(1, 3, 128, 128)
    batch = Dim("batch", min=1, max=16)
    return {"model": tv.models.optical_flow.raft_small(weights=None).eval(), "args": (a, b),
            "kwargs": {"num_flow_updates": 2}, "dynamic_shapes": ({0: batch}, {0: batch}, None)}


def tv_ssdlite():
    """Detection: SSDlite320 MobileNetV3 (eval: boxes, scores, labels per image; nms inside)."""
    tv = _torchvision()
    model = tv.models.detection.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None).eval()
    return {"model": model, "args": ([torch.rand(3, 320, 320)],)}


def tv_quantized_mobilenet_v3():
    """torchvision's quantized MobileNetV3 (fbgemm int8, random weights)."""
    tv = _torchvision()
    torch.backends.quantized.engine = "fbgemm" if "fbgemm" in torch.backends.quantized.supported_engines \
        else torch.backends.quantized.supported_engines[-1]
    model = tv.models.quantization.mobilenet_v3_large(weights=None, quantize=True).eval()
    return {"model": model, "args": (torch.randn(2, 3, 64, 64),),
            "dynamic_shapes": ({0: Dim("batch", min=1, max=64)},)}


def _text(model, vocab: int = 100):
    _torchvision()  # transformers imports torchvision when it is installed (see the docstring)
    ids = torch.randint(0, vocab, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    batch, seq = Dim("batch", min=1, max=16), Dim("seq", min=2, max=64)
    return {"model": model.eval(), "args": (ids,), "kwargs": {"attention_mask": mask},
            "dynamic_shapes": {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}}}


def hf_bert():
    _torchvision()
    from transformers import BertConfig, BertModel

    cfg = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=37, max_position_embeddings=64)
    return _text(BertModel(cfg))


def hf_gpt2():
    _torchvision()
    from transformers import GPT2Config, GPT2Model

    cfg = GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=64, use_cache=False)
    return _text(GPT2Model(cfg))


def hf_llama():
    _torchvision()
    from transformers import LlamaConfig, LlamaModel

    cfg = LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64, use_cache=False)
    return _text(LlamaModel(cfg))


class _Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def quantized_mlp():
    """A dynamically quantized model (torch.ao quantize_dynamic: int8 Linear)."""
    import torch.ao.quantization as q

    model = q.quantize_dynamic(_Mlp().eval(), {torch.nn.Linear}, dtype=torch.qint8)
    return {"model": model, "args": (torch.randn(3, 16),), "dynamic_shapes": ({0: Dim("batch", min=1, max=64)},)}
