"""Issue 10 (branch prec11): false-alarm classes of the second fresh zoo population (funasr,
mmagic, gluonts, pytorch-forecasting, torchgeo, segment-anything, flair), one reproducer each,
with the controls that must keep firing."""

from __future__ import annotations

from conftest import codes_at as codes
from conftest import line_of

# ---------------------------------------------------------------------------------------
# P-LOSSFIRST: a forward whose every return gives `loss` first is a training step
# ---------------------------------------------------------------------------------------

ASR = """
import torch
import torch.nn as nn

class ASRModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 8)
        self.length_normalized_loss = True

    def forward(self, speech, speech_lengths, text, text_lengths):
        out = self.encoder(speech)
        loss = out.pow(2).mean()
        stats = dict(loss=loss.detach())
        batch_size = speech.shape[0]
        if self.length_normalized_loss:
            batch_size = int((text_lengths + 1).sum())  # INT
        return loss, stats, batch_size

    def inference(self, speech):
        return self.encoder(speech)
"""


def test_module_whose_forward_returns_loss_first_is_not_an_export_root():
    # funasr's ASR models: `forward(speech, speech_lengths, text, text_lengths)` returns
    # `loss, stats, weight` (a training step; their inference entry is `inference`/`export`)
    assert (line_of(ASR, "INT"), "EXL102") not in codes(ASR)
    attr = ASR.replace("return loss, stats, batch_size", "self.loss = loss\n        return self.loss, stats, batch_size")
    assert (line_of(attr, "INT"), "EXL102") not in codes(attr)
    display = ASR.replace("stats = dict(loss=loss.detach())", 'stats = {"loss": loss.detach()}')
    assert (line_of(display, "INT"), "EXL102") not in codes(display)


def test_loss_returned_after_the_output_or_on_one_path_only_stays_reported():
    # controls: a VQ layer's `return quantize, indices, loss` (loss after the output), MONAI's
    # VectorQuantizer `return loss, quantized` (loss first, no dict of statistics), a forward
    # that returns the output on another path, and a file that exports the class itself
    no_stats = ASR.replace("return loss, stats, batch_size", "return loss, out")
    assert (line_of(no_stats, "INT"), "EXL102") in codes(no_stats)
    after = ASR.replace("return loss, stats, batch_size", "return stats, batch_size, loss")
    assert (line_of(after, "INT"), "EXL102") in codes(after)
    one_path = ASR.replace("        return loss, stats, batch_size",
                           "        if text is None:\n            return out\n        return loss, stats, batch_size")
    assert (line_of(one_path, "INT"), "EXL102") in codes(one_path)
    exported = ASR + """
x = torch.randn(2, 8)
torch.onnx.export(ASRModel(), (x, torch.tensor([8, 8]), x, torch.tensor([3, 3])), "m.onnx", dynamo=False)
"""
    assert (line_of(exported, "INT"), "EXL102") in codes(exported)


# ---------------------------------------------------------------------------------------
# P-ISCUDA: `.cuda()` under `if x.is_cuda:` follows a tensor already on the GPU
# ---------------------------------------------------------------------------------------

COLOR = """
import torch
import torch.nn as nn

def xyz2lab(xyz):
    sc = torch.Tensor((0.95047, 1., 1.08883))[None, :, None, None]
    if (xyz.is_cuda):
        sc = sc.cuda()  # FOLLOW
    return xyz / sc

class Colorizer(nn.Module):
    def forward(self, x):
        return xyz2lab(x)
"""


def test_cuda_move_under_an_is_cuda_test_is_not_reported():
    # mmagic inst_colorization color_utils: the move runs only when the input already is on the
    # GPU (a CPU export does not run it; a GPU export's graph is on cuda anyway)
    assert (line_of(COLOR, "FOLLOW"), "EXL301") not in codes(COLOR)
    typed = COLOR.replace("if (xyz.is_cuda):", 'if xyz.device.type == "cuda":')
    assert (line_of(typed, "FOLLOW"), "EXL301") not in codes(typed)


def test_cuda_move_unguarded_in_the_else_or_under_another_test_stays_reported():
    # controls: the same move with no test, in the `else` of the test (it runs on a CPU export),
    # and under `torch.cuda.is_available()` (true on a GPU machine whatever the input's device)
    bare = COLOR.replace("    if (xyz.is_cuda):\n        sc = sc.cuda()", "    if True:\n        sc = sc.cuda()")
    assert (line_of(bare, "FOLLOW"), "EXL301") in codes(bare)
    other = COLOR.replace("if (xyz.is_cuda):\n        sc = sc.cuda()  # FOLLOW",
                          "if (xyz.is_cuda):\n        pass\n    else:\n        sc = sc.cuda()  # FOLLOW")
    assert (line_of(other, "FOLLOW"), "EXL301") in codes(other)
    avail = COLOR.replace("if (xyz.is_cuda):", "if torch.cuda.is_available():")
    assert (line_of(avail, "FOLLOW"), "EXL301") in codes(avail)


# ---------------------------------------------------------------------------------------
# P-DOCTYPE: an unannotated forward parameter that the docstring types as a Python scalar
# ---------------------------------------------------------------------------------------

SINGAN = '''
import torch
import torch.nn as nn

class SinGANGenerator(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Conv2d(3, 3, 3, padding=1) for _ in range(4)])

    def forward(self, input_sample, fixed_noises, curr_scale):
        """Forward function.

        Args:
            input_sample (Tensor): The input for the generator.
            fixed_noises (list[Tensor]): The fixed noises.
            curr_scale (int): The scale for the current inference or training.
        """
        g_res = input_sample
        for stage in range(curr_scale + 1):  # LOOP
            g_res = self.blocks[stage](g_res + fixed_noises[stage])
            if stage != curr_scale:  # COND
                g_res = nn.functional.interpolate(g_res, scale_factor=2)
        return g_res
'''


def test_forward_parameter_documented_as_an_int_is_not_tensor_data():
    # mmagic SinGAN / PE-SinGAN generators: `curr_scale (int)` in the forward's docstring
    assert (line_of(SINGAN, "LOOP"), "EXL103") not in codes(SINGAN)
    assert (line_of(SINGAN, "COND"), "EXL101") not in codes(SINGAN)
    numpy_style = SINGAN.replace("curr_scale (int): The scale", "curr_scale : int\\n                The scale")
    assert (line_of(numpy_style, "COND"), "EXL101") not in codes(numpy_style)


def test_forward_parameter_documented_as_a_tensor_or_undocumented_stays_tensor_data():
    # controls: documented as a Tensor (or `int | Tensor`), or not documented at all
    for doc in ("curr_scale (Tensor): The scale", "curr_scale (int | Tensor): The scale",
                "scale: The scale"):
        changed = SINGAN.replace("curr_scale (int): The scale", doc)
        assert (line_of(changed, "COND"), "EXL101") in codes(changed), doc


def test_module_whose_forward_returns_a_dict_with_loss_first_is_not_an_export_root():
    # funasr's Whisper wrapper: `return {"loss": loss, "stats": stats}`; control: a dict whose
    # first key is the output (`{"logits": out, "loss": loss}`) stays a root
    as_dict = ASR.replace("return loss, stats, batch_size", 'return {"loss": loss, "stats": stats, "weight": batch_size}')
    assert (line_of(as_dict, "INT"), "EXL102") not in codes(as_dict)
    out_first = ASR.replace("return loss, stats, batch_size", 'return {"logits": out, "loss": loss, "weight": batch_size}')
    assert (line_of(out_first, "INT"), "EXL102") in codes(out_first)
