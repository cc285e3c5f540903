"""Cases where blanking what no export entry reaches (``semantics.reduce``) could go wrong,
each linted with the reduction forced on (whatever can go goes) and off (the file whole): the
same findings, at the same lines and columns, and the code the export path reaches is still in
the text libcst parses.

- a script whose module-level ``torch.onnx.export`` call is the entry (a file that calls an
  exporter is read whole);
- a function reached only through a module-level mapping (``ATTENTION = {"eager": _eager}``,
  as transformers' attention interfaces are);
- a helper reached through a package ``__init__`` re-export, with unreached functions around it;
- a finding below many blanked model factories keeps its exact line and column.
"""

from __future__ import annotations

from exportlint import engine
from exportlint.config import Config
from exportlint.engine import lint_paths
from exportlint.semantics import reduce as reduce_mod

BRANCH = """    if x.sum() > 0:
        return x * 2
    return x
"""
FACTORIES = "".join(f"\n\n@register_model\ndef net_{i}(pretrained=False, **kw):\n"
                    f"    cfg = dict(depth={i}, width={i * 8})\n    return Net(**cfg)\n" for i in range(40))


def _lint(files, fraction, monkeypatch):
    monkeypatch.setattr(reduce_mod, "_MIN_SAVED_FRACTION", fraction)
    for name in ("_REDUCED", "_MODULES"):
        getattr(engine, name).clear()
    r = lint_paths([str(f) for f in files], Config(), jobs=1, use_cache=False)
    assert not r.errors, r.errors
    return sorted((f.path.rsplit("/", 1)[-1], f.line, f.column, f.code, f.message) for f in r.findings)


def _both(files, monkeypatch):
    whole = _lint(files, 2.0, monkeypatch)  # never reduce
    reduced = _lint(files, 0.0, monkeypatch)  # reduce whatever can go
    assert reduced == whole
    return reduced


def _line_after(path, header):
    """The line right after ``header`` (where the helper's ``if`` is)."""
    return path.read_text().splitlines().index(header) + 2


def _reduced_text(path):
    """The text libcst gets for this file when linted alone as a project file."""
    from exportlint.semantics.project import Project

    text = path.read_text()
    red, _ = engine._reduced(text, str(path), (), Project(keep_texts=False))
    return red


def test_module_level_export_call_keeps_the_file_whole(tmp_path, monkeypatch):
    f = tmp_path / "script.py"
    f.write_text("import torch\nfrom torch import nn\n\n\ndef unused(x):\n" + BRANCH
                 + "\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return helper(x)\n\n\n"
                 + "def helper(x):\n" + BRANCH
                 + "\n\ntorch.onnx.export(Net(), (torch.randn(2, 3),), 'net.onnx')\n")
    found = _both([f], monkeypatch)
    want = _line_after(f, "def helper(x):")
    assert [x[:4] for x in found if x[3] == "EXL101"] == [("script.py", want, 8, "EXL101")], found


def test_function_reached_through_a_mapping_is_kept(tmp_path, monkeypatch):
    f = tmp_path / "attn.py"
    f.write_text("import torch\nfrom torch import nn\n\n\ndef _eager(x):\n" + BRANCH
                 + "\n\ndef _unused(x):\n" + BRANCH
                 + '\n\nATTENTION = {"eager": _eager}\n\n\nclass Net(nn.Module):\n'
                 "    def forward(self, x):\n        fn = ATTENTION['eager']\n        return fn(x)\n" + FACTORIES)
    _both([f], monkeypatch)
    red = _reduced_text(f)
    assert red is not None and "def _eager(x):\n    if x.sum() > 0:" in red  # kept whole
    assert "def _unused(x):\n    if x.sum()" not in red  # what nothing names goes
    assert len(red.splitlines()) == len(f.read_text().splitlines())


def test_helper_reexported_through_the_package_init(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .helpers import norm\n")
    (pkg / "helpers.py").write_text("import torch\n\n\ndef other(x):\n" + BRANCH + "\n\ndef norm(x):\n" + BRANCH)
    (pkg / "model.py").write_text("import torch\nfrom torch import nn\nfrom pkg import norm\n\n\n"
                                  "class Net(nn.Module):\n    def forward(self, x):\n        return norm(x)\n" + FACTORIES)
    found = _both(sorted(pkg.glob("*.py")), monkeypatch)
    # at the helper's line, found through the re-export; `other` (no entry reaches it) is silent
    want = _line_after(pkg / "helpers.py", "def norm(x):")
    assert [x[:4] for x in found if x[3] == "EXL101"] == [("helpers.py", want, 8, "EXL101")], found


def test_finding_below_blanked_factories_keeps_its_line_and_column(tmp_path, monkeypatch):
    f = tmp_path / "model.py"
    head = "import torch\nfrom torch import nn\n\n\ndef register_model(fn):\n    return fn\n" + FACTORIES
    f.write_text(head + "\n\nclass Net(nn.Module):\n    def forward(self, x):\n"
                 "        n = int(x.sum())\n" + BRANCH.replace("    ", "        ", 1).replace("\n    ", "\n        ")
                 + FACTORIES.replace("net_", "other_"))
    found = _both([f], monkeypatch)
    lines = f.read_text().splitlines()
    want = next(i for i, ln in enumerate(lines, 1) if "if x.sum() > 0" in ln and ln.startswith("        "))
    assert any(x[1] == want and x[2] == 12 and x[3] == "EXL101" for x in found), (want, found)
    red = _reduced_text(f)
    assert red is not None and red.splitlines()[want - 1] == lines[want - 1]
    assert "cfg = dict(depth=3" not in red  # the factories were blanked
