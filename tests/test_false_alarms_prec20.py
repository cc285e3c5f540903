"""Issue 10 (branch prec20): false-alarm classes of the eleventh fresh zoo population (pyiqa,
alphafold3-pytorch, bs-roformer, ...; bench/labels/zoo_sample.md, sample U) and the EXL111 class
the T-NESTED fix of prec19 exposed on stanza, one reproducer each, with the controls that must
keep firing. Probes in bench/labels/probes_prec20/."""

from __future__ import annotations

from conftest import codes_at as codes
from conftest import lint, line_of


# ---------------------------------------------------------------------------------------
# U-SCRATCH (EXL203): forward hooks fill a list held by a plain object of this file
# (`self.save_output = SaveOutput()`), forward reads it and calls a method of that object that only
# empties its attributes (`def clear(self, device): self.outputs[device] = []`): a reset, as a
# builtin `.clear()` is (pyiqa AHIQ / IQT, sample U 12, 23; probe u12: all four exporters pass and
# match eager on a later input)
# ---------------------------------------------------------------------------------------

_SCRATCH = """import torch
import torch.nn as nn


class SaveOutput:
    def __init__(self):
        self.outputs = {}

    def __call__(self, module, module_in, module_out):
        if module_out.device in self.outputs.keys():
            self.outputs[module_out.device].append(module_out)
        else:
            self.outputs[module_out.device] = [module_out]

    def clear(self, device):
        \"\"\"Forget what the hooks saved.\"\"\"
        self.outputs[device] = []


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4))
        self.save_output = SaveOutput()
        for layer in self.body:
            layer.register_forward_hook(self.save_output)

    def forward(self, x):
        self.body(x)
        feat = torch.cat((self.save_output.outputs[x.device][0], self.save_output.outputs[x.device][1]), dim=1)
        self.save_output.clear(x.device)  # RESET
        return feat
"""


def test_scratch_a_method_that_only_empties_a_hook_list_is_not_reported():
    assert (line_of(_SCRATCH, "# RESET"), "EXL203") not in codes(_SCRATCH)


def test_scratch_control_a_method_that_keeps_a_value_still_fires():
    src = _SCRATCH.replace("self.outputs[device] = []", "self.outputs[device] = self.outputs[device][-1:]")
    assert (line_of(src, "# RESET"), "EXL203") in codes(src)


def test_scratch_control_a_method_that_also_counts_still_fires():
    src = _SCRATCH.replace("self.outputs[device] = []", "self.outputs[device] = []\n        self.calls = self.calls + 1")
    assert (line_of(src, "# RESET"), "EXL203") in codes(src)


# ---------------------------------------------------------------------------------------
# U-TOTENSOR (EXL303 exporters): an unregistered tensor attribute read only as `.to(<tensor>)`
# (`self.default_mean.to(x)`) moves with the input's device as `.to(x.device)` does (R-TOINPUT):
# only the torch.export programs, moved to another device, fail (pyiqa CKDN, DBCNN, IQT, LIQE,
# QualiCLIP, TOPIQ: sample U 15, 16, 22, 24, 35, 36; probe u15); the ONNX exporters are not named
# ---------------------------------------------------------------------------------------

_TOTENSOR = """import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.default_mean = torch.Tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)  # ATTR
        self.net = nn.Conv2d(3, 3, 1)

    def preprocess(self, x):
        return x - self.default_mean.to(x)

    def forward(self, x):
        return self.net(self.preprocess(x))
"""


def _exporters(src, marker):
    line = line_of(src, marker)
    return [tuple(f.exporters) for f in lint(src) if f.code == "EXL303" and f.line == line]


def test_totensor_a_read_moved_to_an_input_tensor_names_torch_export_only():
    assert _exporters(_TOTENSOR, "# ATTR") == [("export-strict", "export-nonstrict")]


def test_totensor_control_a_dtype_parameter_moves_nothing():
    src = _TOTENSOR.replace("def preprocess(self, x):", "def preprocess(self, x, dtype=torch.float16):").replace(
        "self.default_mean.to(x)", "self.default_mean.to(dtype)")
    got = _exporters(src, "# ATTR")
    assert len(got) == 1 and "onnx-legacy" in got[0]


def test_totensor_control_a_bare_read_still_names_every_exporter():
    src = _TOTENSOR.replace("self.default_mean.to(x)", "self.default_mean")
    got = _exporters(src, "# ATTR")
    assert len(got) == 1 and "onnx-legacy" in got[0] and "onnx-dynamo" in got[0]


# ---------------------------------------------------------------------------------------
# U-STRMETHOD (EXL111): a value whose `str` method that no tensor has is called
# (`word.lower()`) holds no tensor: stanza's nested `map_word(word)` in forward, `if len(word) > 1
# and word[-1] == "'":` (the T-NESTED fix of prec19 gave `word` its argument's tensor guess)
# ---------------------------------------------------------------------------------------

_STRMETHOD = """import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.vocab = vocab

    def forward(self, inputs):
        vocab = self.vocab

        def map_word(word):
            idx = vocab.unit2id(word)
            if idx != 0:
                return idx
            if len(word) > 1 and word[-1] == "'":  # LEN
                return vocab.unit2id(word[:-1])
            return vocab.unit2id(word.lower())

        ids = []
        for phrase in inputs:
            ids.extend([map_word(w) for w in phrase])
        return self.emb(torch.tensor(ids, device=self.emb.weight.device))
"""


def test_strmethod_len_of_a_value_with_a_str_method_is_no_shape():
    assert (line_of(_STRMETHOD, "# LEN"), "EXL111") not in codes(_STRMETHOD)


def test_strmethod_control_without_the_str_method_keeps_the_shape_guess():
    src = _STRMETHOD.replace("word.lower()", "word")
    assert (line_of(src, "# LEN"), "EXL111") in codes(src)


def test_strmethod_control_a_tensor_method_keeps_the_shape_guess():
    src = _STRMETHOD.replace("word.lower()", "word.float()")
    assert (line_of(src, "# LEN"), "EXL111") in codes(src)


_TOTENSOR_CALLEE = """import numpy as np
import torch
import torch.nn as nn


def calculate(img, crop_border=0, mu_param=None):
    img = img.to(torch.float64)
    mu_param = mu_param.to(img).repeat(img.size(0), 1)  # MOVE
    return (img.mean(dim=(2, 3)) - mu_param).abs()


class Niqe(nn.Module):
    def __init__(self):
        super().__init__()
        self.mu_param = torch.zeros(1, 3)  # ATTR

    def forward(self, x):
        return calculate(x, 0, self.mu_param)
"""


def test_totensor_a_function_that_first_moves_its_parameter_to_a_tensor_names_torch_export_only():
    assert _exporters(_TOTENSOR_CALLEE, "# ATTR") == [("export-strict", "export-nonstrict")]


def test_totensor_control_a_function_that_reads_the_parameter_unmoved_first_names_every_exporter():
    src = _TOTENSOR_CALLEE.replace("    img = img.to(torch.float64)\n", "    img = img.to(torch.float64) + mu_param.sum()\n")
    got = _exporters(src, "# ATTR")
    assert len(got) == 1 and "onnx-legacy" in got[0]


def test_totensor_control_a_move_under_an_if_names_every_exporter():
    src = _TOTENSOR_CALLEE.replace("    mu_param = mu_param.to(img).repeat(img.size(0), 1)  # MOVE",
                                   "    if crop_border:\n        mu_param = mu_param.to(img)  # MOVE\n    mu_param = mu_param.repeat(img.size(0), 1)")
    got = _exporters(src, "# ATTR")
    assert len(got) == 1 and "onnx-legacy" in got[0]


def test_scratch_an_object_set_by_an_init_helper_is_resolved_by_the_file_classes():
    src = _SCRATCH.replace("""        self.save_output = SaveOutput()
        for layer in self.body:
            layer.register_forward_hook(self.save_output)
""", """        self.init_saveoutput()

    def init_saveoutput(self):
        self.save_output = SaveOutput()
        for layer in self.body:
            layer.register_forward_hook(self.save_output)
""")
    assert (line_of(src, "# RESET"), "EXL203") not in codes(src)


def test_scratch_control_an_init_helper_object_whose_file_has_a_keeping_clear_still_fires():
    src = _SCRATCH.replace("""        self.save_output = SaveOutput()
        for layer in self.body:
            layer.register_forward_hook(self.save_output)
""", """        self.init_saveoutput()

    def init_saveoutput(self):
        self.save_output = make_saver()
        for layer in self.body:
            layer.register_forward_hook(self.save_output)
""").replace("class Net(nn.Module):", '''class Keep:
    def __init__(self):
        self.outputs = {}

    def clear(self, device):
        self.outputs[device] = self.outputs[device][-1:]


class Net(nn.Module):''')
    assert (line_of(src, "# RESET"), "EXL203") in codes(src)


def test_totensor_a_name_used_in_arithmetic_in_the_same_statement_is_a_tensor():
    src = _TOTENSOR.replace("    def preprocess(self, x):\n        return x - self.default_mean.to(x)",
                            "    def preprocess(self, x):\n        x = crop(x, 288)\n"
                            "        x = (x - self.default_mean.to(x)) / 2\n        return x").replace(
        "class Net(nn.Module):", "from torchvision.transforms.functional import center_crop as crop\n\n\nclass Net(nn.Module):")
    assert _exporters(src, "# ATTR") == [("export-strict", "export-nonstrict")]


def test_totensor_control_a_name_used_in_arithmetic_on_another_line_is_not_enough():
    src = _TOTENSOR.replace("    def preprocess(self, x):\n        return x - self.default_mean.to(x)",
                            "    def preprocess(self, x, dt=None):\n        y = x * 2\n"
                            "        m = self.default_mean.to(dt)\n        return y - m")
    got = _exporters(src, "# ATTR")
    assert len(got) == 1 and "onnx-legacy" in got[0]
