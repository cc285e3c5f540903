"""Case packages (bench/cases/<stem>/__init__.py + sibling modules) and the classes fixed from the
held-out batch 8 of multi-file real-issue cases (issues 9 and 10).

Each rule test builds a small package in tmp_path whose cause lives in another file than the
call on the export path, and one where the same shape is fine. Outcomes measured with torch 2.13
(bench/data/cases_truth.json: pkg_disable_helper_module, pkg_disable_base_method,
pkg_custom_op_no_fake, pkg_custom_op_fake_elsewhere).
"""

from __future__ import annotations

from pathlib import Path

from conftest import lint_package, load_file_module, write_package

ROOT = Path(__file__).resolve().parent.parent


def _scoreboard():
    return load_file_module("cases_scoreboard8", ROOT / "bench" / "cases_scoreboard.py")


def _pkg(tmp_path: Path, files: dict[str, str]) -> list[str]:
    return write_package(tmp_path, files, "app")


def _lint(files):
    return {(Path(f.path).name, f.line, f.code, tuple(f.exporters)) for f in lint_package(files)}


# ---- the scoreboard reads case packages -----------------------------------------------------


def test_case_packages_are_discovered_hashed_and_located(tmp_path, monkeypatch):
    sb = _scoreboard()
    cases = tmp_path / "cases"
    (cases / "pk" / "sub").mkdir(parents=True)
    (cases / "pk" / "__init__.py").write_text("opset_version = 13\nexample_args = ()\n")
    (cases / "pk" / "sub" / "h.py").write_text("x = 1\n")
    (cases / "one.py").write_text("example_args = ()\n")
    monkeypatch.setattr(sb, "CASES", cases)
    assert [p.name for p in sb.case_files()] == ["one.py", "pk"]
    assert sb.case_opset(cases / "pk") == 13
    h1 = sb.content_hash(cases / "pk")
    (cases / "pk" / "sub" / "h.py").write_text("x = 2\n")  # any file of the package changes the key
    assert sb.content_hash(cases / "pk") != h1
    f = sb.stem_loc({"path": str(cases / "pk" / "sub" / "h.py"), "line": 7})
    assert (f["stem"], f["loc"]) == ("pk", "sub/h.py:7")
    g = sb.stem_loc({"path": str(cases / "one.py"), "line": 7})
    assert (g["stem"], g["loc"]) == ("one", 7)


def test_package_lines_match_only_in_the_same_file():
    sb = _scoreboard()
    assert sb.near("a.py:10", ["a.py:11"]) and not sb.near("b.py:10", ["a.py:10"])
    assert sb.near(10, [11]) and not sb.near("a.py:10", [10])
    truth = {"pk": {"exporters": {
        "export-strict": {"status": "fail", "line": "utils.py:5"},
        "export-nonstrict": {"status": "pass"},
        "onnx-dynamo": {"status": "pass"},
        "onnx-legacy": {"status": "diverged", "lines": ["model.py:9"]},
    }}}
    findings = [
        {"stem": "pk", "loc": "utils.py:5", "line": 5, "code": "EXL211", "severity": "error",
         "exporters": ["export-strict"], "message": "m"},
        # the right line number in another file of the package: neither a hit nor true
        {"stem": "pk", "loc": "utils.py:9", "line": 9, "code": "EXL101", "severity": "error",
         "exporters": ["onnx-legacy", "onnx-dynamo"], "message": "m"},
    ]
    s = sb.score_static(truth, findings)
    assert s["units"] == 2 and s["found"] == 1
    assert s["error_pairs_true"] == 1 and s["error_pairs_false"] == 1  # dynamo passed
    assert s["error_pairs_undecided"] == 1  # legacy diverged at another line


def test_bundled_case_packages_cite_an_issue_and_declare_inputs():
    import ast

    from exportlint.confirm.targets import is_exportdb_module

    sb = _scoreboard()
    pkgs = [p for p in sb.case_files() if p.is_dir()]
    assert len(pkgs) >= 12
    for p in pkgs:
        init = p / "__init__.py"
        tree = ast.parse(init.read_text(encoding="utf-8"))
        # a public report: a GitHub issue or PR, or a public page (batch 18's pkg_diff_extrema_opset11
        # cites a blog post of the failing export)
        assert "https://" in (ast.get_docstring(tree) or ""), p.name
        assert p.name in sb.CLASSES, p.name
        assert is_exportdb_module(init) or "example_args" in init.read_text(encoding="utf-8"), p.name
        assert any(isinstance(n, ast.ImportFrom) and n.level > 0 for n in tree.body), f"{p.name}: no sibling import"


# ---- EXL211: compiler.disable'd code in another file ------------------------------------------

_UTILS = """\
import torch


@torch.compiler.disable
def select(hs, idx):
    return hs[:, idx]


def plain(hs, idx):
    return hs[:, idx]
"""

_DET = """\
import torch
import torch.nn as nn

from .utils import {name}


class Det(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("idx", torch.tensor([0, 2]))

    def forward(self, hs):
        return {name}(hs, self.idx)
"""


def test_exl211_disabled_helper_in_another_module(tmp_path):
    got = _lint(_pkg(tmp_path, {"utils.py": _UTILS, "det.py": _DET.format(name="select")}))
    assert ("det.py", 13, "EXL211", ("export-strict",)) in got


def test_exl211_undecorated_helper_in_another_module_is_fine(tmp_path):
    got = _lint(_pkg(tmp_path, {"utils.py": _UTILS, "det.py": _DET.format(name="plain")}))
    assert not [g for g in got if g[2] == "EXL211"]


def test_exl211_disabled_method_inherited_from_another_file(tmp_path):
    files = _pkg(tmp_path, {
        "base.py": "import torch\nimport torch.nn as nn\n\n\nclass Base(nn.Module):\n"
                   "    @torch._dynamo.disable\n    def post(self, x):\n        return x.sigmoid()\n",
        "head.py": "import torch.nn as nn\n\nfrom .base import Base\n\n\nclass Head(Base):\n"
                   "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 4)\n\n"
                   "    def forward(self, x):\n        return self.post(self.fc(x))\n",
    })
    assert ("head.py", 12, "EXL211", ("export-strict",)) in _lint(files)


def test_exl211_recursive_false_is_not_claimed(tmp_path):
    utils = _UTILS.replace("@torch.compiler.disable\n", "@torch.compiler.disable(recursive=False)\n")
    got = _lint(_pkg(tmp_path, {"utils.py": utils, "det.py": _DET.format(name="select")}))
    assert not [g for g in got if g[2] == "EXL211"]


def test_exl211_disabled_forward_of_a_submodule_in_another_file(tmp_path):
    files = _pkg(tmp_path, {
        "post.py": "import torch\nimport torch.nn as nn\n\n\nclass Post(nn.Module):\n"
                   "    @torch.compiler.disable\n    def forward(self, x):\n        return x.softmax(-1)\n",
        "det.py": "import torch.nn as nn\n\nfrom .post import Post\n\n\nclass Det(nn.Module):\n"
                  "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(4, 4)\n"
                  "        self.post = Post()\n\n    def forward(self, x):\n        return self.post(self.fc(x))\n",
    })
    assert ("det.py", 13, "EXL211", ("export-strict",)) in _lint(files)


# ---- EXL403: a custom op defined in another file ----------------------------------------------

_OPS = """\
import torch


@torch.library.custom_op("appns::act", mutates_args=())
def act(x: torch.Tensor) -> torch.Tensor:
    return x.clamp(min=0)
"""

_BLOCK = """\
import torch.nn as nn

from .ops import act


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return act(self.fc(x))
"""

_ALL = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def test_exl403_custom_op_from_another_file_without_fake_kernel(tmp_path):
    got = _lint(_pkg(tmp_path, {"ops.py": _OPS, "block.py": _BLOCK}))
    assert ("block.py", 12, "EXL403", _ALL) in got


def test_exl403_fake_kernel_in_a_sibling_file_clears_torch_export(tmp_path):
    fake = "import torch\n\nfrom .ops import act\n\n\n@act.register_fake\ndef _(x):\n    return torch.empty_like(x)\n"
    got = _lint(_pkg(tmp_path, {"ops.py": _OPS, "block.py": _BLOCK, "fake.py": fake}))
    assert ("block.py", 12, "EXL403", ("onnx-dynamo", "onnx-legacy")) in got


def test_exl403_fake_kernel_registered_by_name(tmp_path):
    fake = ('import torch\n\n\n@torch.library.register_fake("appns::act")\ndef _(x):\n'
            '    return torch.empty_like(x)\n')
    got = _lint(_pkg(tmp_path, {"ops.py": _OPS, "block.py": _BLOCK, "meta.py": fake}))
    assert ("block.py", 12, "EXL403", ("onnx-dynamo", "onnx-legacy")) in got


def test_exl403_plain_helper_from_another_file_is_no_custom_op(tmp_path):
    ops = _OPS.replace('@torch.library.custom_op("appns::act", mutates_args=())\n', "")
    got = _lint(_pkg(tmp_path, {"ops.py": ops, "block.py": _BLOCK}))
    assert not [g for g in got if g[2] == "EXL403"]


# ---- a size-named forward input read as a tensor by the helper it is handed to -------------------
# pytorch/pytorch#123592 rebuilt as bench/cases/pkg_item_size_reexport: forward(self, x, length)
# only passes `length` on; the helper (re-exported by layers/__init__.py) does `length.item()` and
# narrows with it. Measured: the legacy exporter bakes the length (diverged at layers/crop.py:5).

_CROP = "def crop(x, length):\n    n = length.item()\n    return x.narrow(1, 0, n)\n"
_CROP_INT = "def crop(x, length):\n    return x[:, :length]\n"
_MODEL = ("import torch.nn as nn\n\nfrom .layers import crop\n\n\nclass M(nn.Module):\n"
          "    def forward(self, x, length):\n        return crop(x, length) * 2\n")


def test_size_named_input_read_as_a_tensor_by_a_helper_in_another_file(tmp_path):
    got = _lint(_pkg(tmp_path, {"layers/__init__.py": "from .crop import crop\n", "layers/crop.py": _CROP,
                                "model.py": _MODEL}))
    assert ("crop.py", 2, "EXL102", ("onnx-legacy",)) in got
    assert ("crop.py", 3, "EXL104", ("onnx-legacy",)) in got


def test_size_named_input_read_as_a_tensor_by_a_helper_in_the_same_file(tmp_path):
    src = "import torch.nn as nn\n\n\n" + _CROP + "\n\nclass M(nn.Module):\n" \
          "    def forward(self, x, length):\n        return crop(x, length) * 2\n"
    got = _lint(_pkg(tmp_path, {"m.py": src}))
    assert ("m.py", 5, "EXL102", ("onnx-legacy",)) in got


def test_size_named_input_used_as_an_int_by_the_helper_stays_unknown(tmp_path):
    got = _lint(_pkg(tmp_path, {"layers/__init__.py": "from .crop import crop\n", "layers/crop.py": _CROP_INT,
                                "model.py": _MODEL}))
    assert not [g for g in got if g[0] == "crop.py"]


def test_package_attribute_rebound_by_a_from_import_wins_over_the_submodule(tmp_path):
    # `ops/__init__.py: from .roi_align import roi_align` (torchvision's layout): `from .ops import
    # roi_align` then names the function, not the submodule of the same name
    from exportlint.semantics.project import Project

    files = _pkg(tmp_path, {"ops/__init__.py": "from .roi_align import roi_align\n",
                            "ops/roi_align.py": "def roi_align(x, boxes):\n    return x\n",
                            "ops/other.py": "def f(x):\n    return x\n",
                            "model.py": "from .ops import roi_align\n"})
    pkg = next(Path(f).parent.name for f in files if f.endswith("model.py"))
    p = Project(files)
    t = p.resolve_function(f"{pkg}.ops.roi_align")
    assert t is not None and t.qual == "roi_align" and t.path.endswith("roi_align.py")
    assert p.resolve(f"{pkg}.ops.other")[1] == []  # a submodule nothing rebinds stays the module


def test_exl403_fake_kernel_registered_in_a_parent_package_init(tmp_path):
    init = ('import torch\n\nfrom .kernels.ops import act\n\n\n@act.register_fake\ndef _(x):\n'
            '    return torch.empty_like(x)\n')
    block = _BLOCK.replace("from .ops import act", "from .kernels.ops import act")
    got = _lint(_pkg(tmp_path, {"__init__.py": init, "kernels/__init__.py": "", "kernels/ops.py": _OPS,
                                "block.py": block}))
    assert ("block.py", 12, "EXL403", ("onnx-dynamo", "onnx-legacy")) in got
