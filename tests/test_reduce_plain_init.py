"""``__init__`` bodies left out of the libcst parse (``reduce.BLANK_PLAIN_INIT``): a kept
``__init__`` whose statements, once dropped and written shorter, are only ``self.x = <plain
value>`` goes whole, and the model builds those attribute facts from what the outline read
with ``ast`` (``SemanticModel(init_values=...)``); in one that keeps other statements, each
such statement is one name (``reduce.INIT_MARK``) the model reads the fact at. The facts (name, what, value node, in
order) must be the ones the parse of the same reduced text with the body gives, and the
findings the same, on real files: torch's own ``nn/modules`` and ExportDB examples (in CI),
and timm / transformers / torchvision model files where installed."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from conftest import real_files

from exportlint import engine
from exportlint.config import Config
from exportlint.engine import lint_paths, parse_module
from exportlint.semantics import index as index_mod
from exportlint.semantics import reduce as red_mod
from exportlint.semantics.index import index_source
from exportlint.semantics.model import SemanticModel
from exportlint.semantics.reduce import reduce_source

ROOT = Path(__file__).resolve().parent.parent


_EMPTY = cst.Module(body=[])


def _facts(model: SemanticModel) -> dict:
    out = {}
    for name, c in model.classes.items():
        if c.is_module or c.is_autograd_function:
            out[name] = [(a.name, a.what, type(a.value).__name__ if a.value is not None else None,
                          _EMPTY.code_for_node(a.value).replace(" ", "") if a.value is not None else None)
                         for a in c.attrs.values()]
    return out


def _both(text: str, path: str, monkeypatch) -> tuple[dict, dict, int]:
    """(facts of the reduced text parsed with its ``__init__`` bodies, facts of the text
    without the plain ones plus ``init_values``, how many bodies went)."""
    out = []
    for flag in (False, True):
        monkeypatch.setattr(red_mod, "BLANK_PLAIN_INIT", flag)
        index_mod._CACHE.clear()  # (the outline is cached with the index)
        fi = index_source(text, f"{path}.{flag}", "m", False, tree=compile(text, path, "exec", 0x400))
        if fi.outline is None:
            return {}, {}, 0
        values: dict = {}
        red = reduce_source(text, fi.outline, [], values)
        if red is None:
            return {}, {}, 0
        out.append((_facts(SemanticModel(parse_module(red), init_values=values)), len(values)))
    return out[0][0], out[1][0], out[1][1]


def test_plain_init_facts_are_the_parsed_ones_on_real_files(monkeypatch):
    files = real_files(8, 80)
    assert len(files) > 40, "torch's own nn/modules are installed wherever the tests run"
    blanked = 0
    for f in files:
        text = Path(f).read_text("utf-8")
        try:
            compile(text, f, "exec", 0x400)
        except SyntaxError:
            continue
        parsed, built, n = _both(text, f, monkeypatch)
        assert built == parsed, f
        blanked += n
    # torch/nn/modules alone: ~60 classes (Identity, activations, dropout, pooling, ...)
    print("__init__ bodies whose plain facts come from the outline:", blanked, "in", len(files), "files")
    assert blanked >= 30, blanked


SRC = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from .layers import Mlp, use_fused_attn\n\n\n"
    "class Block(nn.Module):\n"
    "    def __init__(self, dim: int, heads: int = 8, act=nn.GELU, drop: float = 0.0, sizes=(1, 2)):\n"
    "        super().__init__()\n"
    "        self.heads = heads\n"                         # 9: config, written `0`
    "        self.scale = (dim // heads) ** -0.5\n"        # 10
    "        self.fused = use_fused_attn()\n"              # 11: a call without arguments, as written
    "        self.cache = None\n"                          # 12: a literal, as written
    "        if drop > 0:\n"
    "            self.drop = nn.Dropout(drop)\n"            # 14: torch, arguments no one reads
    "        else:\n"
    "            self.drop = nn.Identity()\n"
    "        self.mlp = Mlp(dim, hidden=4 * dim,\n"         # 17: a project class, written `Mlp()`
    "                       act=act)\n"
    "        self.unused = Mlp(dim)\n"                      # 19: named by no kept code: `...`
    "\n"
    "    def forward(self, x):\n"
    "        if self.cache is not None and self.fused:\n"
    "            return self.cache\n"
    "        x = self.drop(self.mlp(x)) * self.scale\n"
    "        return x.reshape(x.shape[0], self.heads, -1)\n"
    "\n\n"
    "class Head(nn.Module):\n"
    "    def __init__(self, dim):\n"
    "        super().__init__()\n"
    "        self.pool = nn.AdaptiveAvgPool2d((7, 7))\n"   # 31: EXL113 reads it: the body stays
    "        self.fc = nn.Linear(dim, 10)\n"               # 32: a run of three plain statements:
    "        self.flag = False  # a comment\n"            # one name in the text
    "        self.act = nn.Identity()\n"
    "\n"
    "    def forward(self, x):\n"
    "        x = self.act(self.fc(self.pool(x).flatten(1)))\n"
    "        return x if self.flag else -x\n"
)


def test_plain_init_goes_and_other_bodies_stay(tmp_path, monkeypatch):
    monkeypatch.setattr(red_mod, "BLANK_PLAIN_INIT", True)
    fi = index_source(SRC, str(tmp_path / "m.py"), "m", False)
    values: dict = {}
    red = reduce_source(SRC, fi.outline, [], values)
    assert red is not None and set(values) == {"Block", "Head"}
    lines = red.splitlines()
    assert len(lines) == len(SRC.splitlines())  # lines kept
    assert "use_fused_attn()" not in red and "self.heads" not in red.split("def forward")[0]
    assert "nn.AdaptiveAvgPool2d((7, 7))" in lines[30]  # Head.__init__ kept (EXL113 reads the pool)
    self_name, items, how = values["Block"]
    assert self_name == "self" and how == "whole"
    # Head keeps its body (EXL113 reads the pool): its plain statement is one name there
    assert values["Head"] == ("self", (("fc", ("call", ("nn", "Linear"))), ("flag", ("const", False)),
                                       ("act", ("call", ("nn", "Identity")))), "marks")
    assert lines[31].strip() == "__exl_init_0_3__" and not lines[32].strip() and not lines[33].strip()
    assert [a for a, _ in items] == ["heads", "scale", "fused", "cache", "drop", "drop", "mlp"]
    assert dict(items)["fused"] == ("call", ("use_fused_attn",))
    assert ("cache", ("const", None)) in items
    parsed, built, n = _both(SRC, str(tmp_path / "m2.py"), monkeypatch)
    assert n == 2 and built == parsed
    assert [(a, w) for a, w, _, _ in built["Block"]] == [
        ("heads", "config"), ("scale", "config"), ("fused", "unknown"), ("cache", "config"),
        ("drop", "submodule"), ("mlp", "submodule")]


@pytest.mark.parametrize("dirs", [("bench/cases",), ("examples",)])
def test_findings_do_not_depend_on_plain_init(dirs, monkeypatch):
    files = [str(p) for d in dirs for p in sorted((ROOT / d).rglob("*.py"))]
    files += [f for f in real_files(8, 80) if "/torch/" in f][::3]
    got = []
    for flag in (False, True):
        monkeypatch.setattr(red_mod, "BLANK_PLAIN_INIT", flag)
        monkeypatch.setattr(red_mod, "_MIN_SAVED_FRACTION", 0.0)
        for name in ("_REDUCED", "_MODULES"):
            cache = getattr(engine, name, None)
            if isinstance(cache, dict):
                cache.clear()
        index_mod._CACHE.clear()
        r = lint_paths(files, Config(), jobs=1, use_cache=False)
        assert not r.errors, r.errors
        got.append(sorted((f.path, f.line, f.column, f.end_line, f.end_column, f.code, f.message,
                           f.fix.replacement if f.fix else None) for f in r.findings))
    assert got[0] and got[0] == got[1]
