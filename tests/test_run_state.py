"""Two runs in one process do not share what they resolved: a run in this process
(``lint_paths(isolate=False)``, or any run where fork is not available) used to keep the
project index of the first run, so a second run over another package with the same module
names followed the first package's helpers, and a helper edited between runs kept its old
index."""
from exportlint.config import Config
from exportlint.engine import lint_paths

MODEL = """import torch
from torch import nn
from pkg.helpers import norm


class Net(nn.Module):
    def forward(self, x):
        return norm(x)
"""
BRANCHING = """import torch


def norm(x):
    if x.sum() > 0:
        return x / x.sum()
    return x
"""
PLAIN = """import torch


def norm(x):
    return x * 2
"""


def _package(root, helper):
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text(MODEL)
    (root / "pkg" / "helpers.py").write_text(helper)
    return root


def _codes(root):
    files = [str(root / "pkg" / "model.py"), str(root / "pkg" / "helpers.py")]
    r = lint_paths(files, Config(root=root), jobs=1, use_cache=False, isolate=False)
    return sorted((f.path.rsplit("/", 1)[-1], f.line, f.code) for f in r.findings)


def test_second_package_with_same_module_names_resolves_to_its_own_files(tmp_path):
    a = _package(tmp_path / "a", BRANCHING)
    b = _package(tmp_path / "b", PLAIN)
    assert _codes(b) == []
    # `pkg.helpers` was b's in the first run: here it is a's, which branches on a tensor
    assert _codes(a) == [("helpers.py", 5, "EXL101")]
    assert _codes(b) == []


def test_helper_edited_between_runs_is_read_again(tmp_path):
    a = _package(tmp_path / "a", PLAIN)
    assert _codes(a) == []
    (a / "pkg" / "helpers.py").write_text(BRANCHING)
    assert _codes(a) == [("helpers.py", 5, "EXL101")]
