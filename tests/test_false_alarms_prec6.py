"""Issue 10 (branch prec6): false-alarm classes seen on held-out zoo code, one reproducer each,
and the `.data` rule. Exporter behaviour behind each expectation was measured with torch 2.13.0
(bench/labels/probes_prec6/, outputs in the `.out` files)."""

from __future__ import annotations

from conftest import lint


def codes(src: str, **cfg) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint(src, **cfg)]


# ---------------------------------------------------------------------------------------
# P-TENSORRET: `if isinstance(x, torch.Tensor): return ...` then pre-processing of files/PIL/numpy
# ---------------------------------------------------------------------------------------

AUTOSHAPE = """
import contextlib
import cv2
import numpy as np
import torch
from PIL import Image

class AutoShape(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ims, size=640):
        with contextlib.nullcontext():
            if isinstance(size, int):
                size = (size, size)
            if isinstance(ims, torch.Tensor):
                with torch.autocast("cpu", enabled=False):
                    return self.model(ims)
            files = []
            for i, im in enumerate(ims if isinstance(ims, list) else [ims]):
                if isinstance(im, str):
                    im = np.asarray(Image.open(im))
                im = im[..., :3] if im.ndim == 3 else cv2.cvtColor(im, cv2.COLOR_GRAY2BGR)
                files.append(im)
        x = torch.from_numpy(np.stack(files))
        y = self.model(x)
        return y, x.cpu().numpy()
"""


def test_code_after_a_tensor_input_returns_is_not_on_the_export_path():
    # an export passes a tensor: it returns at `return self.model(ims)`; the PIL/cv2/numpy code
    # after it (inside and after the `with`) serves str/PIL/numpy inputs only
    assert codes(AUTOSHAPE) == []


def test_code_after_a_tensor_test_that_does_not_return_is_still_reported():
    src = AUTOSHAPE.replace("                    return self.model(ims)", "                    ims = self.model(ims)")
    assert {c for _, c in codes(src)} >= {"EXL204", "EXL201"}


def test_tensor_exit_on_a_name_of_unknown_kind_keeps_the_rest():
    # `ims` is rebound to the result of an unknown call: it may be anything, the rest is analysed
    src = AUTOSHAPE.replace("        with contextlib.nullcontext():",
                            "        ims = self.loader(ims)\n        with contextlib.nullcontext():")
    assert "EXL201" in {c for _, c in codes(src)}
