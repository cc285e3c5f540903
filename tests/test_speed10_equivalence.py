"""Shortcuts of the cold-run speed work (issue 9) against the slow forms they replace, on real
files (torch's own ``nn/modules`` and ExportDB examples everywhere; timm, transformers and
torchvision model files where installed):

- ``tensor_data._data_attr_or_del``: one walk of a function's nodes answers what EXL213,
  ``rewrites_data`` and ``rewrites_weights`` each asked with a walk of their own (an Attribute
  ``.data``; a ``del`` statement, asked with ``isinstance``);
- the attribute facts of the ``__init__`` statements a reduced text leaves out are built
  without libcst's per-node validation (``SemanticModel``, ``_plain_assign``): the same nodes
  as built with it, and building them with validation on raises nothing;
- ``cross_file_calls`` answers ``self.m(...)`` once per class and method: the calls, targets,
  roots and deps are those of asking ``_self_call`` at every call.
"""

from __future__ import annotations

import glob
import os
import site
from pathlib import Path

import libcst as cst
from conftest import real_files

from exportlint.checks import tensor_data
from exportlint.config import Config
from exportlint.engine import lint_paths, parse_module
from exportlint.semantics import project as project_mod
from exportlint.semantics.index import index_source
from exportlint.semantics.model import SemanticModel, _plain_assign
from exportlint.semantics.reduce import reduce_source

ROOT = Path(__file__).resolve().parent.parent


_DATA_AND_DEL = """
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x):
        y = self.w.data * x
        self.helper(x)
        return y + x.data

    def helper(self, x):
        del self.w
        self.w = nn.Parameter(x)
        return x

    def both(self, x):
        self.w.data.copy_(x)
        del x
"""


def test_one_walk_answers_the_data_and_del_questions_on_real_files(tmp_path):
    files = real_files(6, 120)
    assert len(files) > 40, "torch's own nn/modules are installed wherever the tests run"
    if len(files) > 150:
        files = files[::3]  # (with the zoos installed, a third of the files is enough; torch's own
        # nn/modules, ExportDB and the examples alone, as in CI, are all kept: 130+ functions)
    (tmp_path / "m.py").write_text(_DATA_AND_DEL)
    files.append(str(tmp_path / "m.py"))
    functions = with_data = with_del = 0
    for f in files:
        text = Path(f).read_text("utf-8")
        model = SemanticModel(parse_module(text))
        for fn in model.functions:
            functions += 1
            slow = (any(isinstance(n, cst.Attribute) and n.attr.value == "data" for n in fn.nodes()),
                    any(isinstance(n, cst.Del) for n in fn.nodes()))
            assert tensor_data._data_attr_or_del(fn) == slow, (f, fn.node.name.value)
            with_data += slow[0]
            with_del += slow[1]
    assert functions > 100
    assert with_data > 0 and with_del > 0


def test_plain_init_facts_built_without_validation_are_the_validated_nodes():
    files = real_files(6, 120)
    checked = 0
    for f in files:
        text = Path(f).read_text("utf-8")
        fi = index_source(text, f"{f}.speed10", "m", False, tree=compile(text, f, "exec", 0x400))
        if fi.outline is None:
            continue
        values: dict = {}
        red = reduce_source(text, fi.outline, [], values)
        if red is None or not values:
            continue
        model = SemanticModel(parse_module(red), init_values=values)
        for cname, (self_name, items, _) in values.items():
            c = model.classes.get(cname)
            if c is None:
                continue
            for attr, value in items:
                validated = _plain_assign(self_name, attr, value)  # (validation on: raises nothing)
                fact = c.attrs.get(attr)
                if fact is None or not isinstance(fact.node, cst.Assign):
                    continue
                t = fact.node.targets[0].target
                if not (isinstance(t, cst.Attribute) and t.attr.value == attr):
                    continue
                if fact.node.deep_equals(validated):
                    checked += 1
    assert checked > 50, checked


def test_self_call_is_the_same_answer_when_asked_again(monkeypatch):
    """What the per-class answers rely on: asked again in the same file (the deps its first ask
    added already in ``deps``), ``_self_call`` gives the same target and adds no dep."""
    sp = site.getsitepackages()[0]
    files = sorted(glob.glob(os.path.join(sp, "timm/models/*.py")))[::5]
    files += sorted(glob.glob(os.path.join(sp, "timm/layers/*.py")))[::5]
    files += [str(p) for p in sorted((ROOT / "examples").glob("*.py"))]
    real = project_mod._self_call
    asked = [0]

    def twice(project, fi, model, cls, method, deps):
        got = real(project, fi, model, cls, method, deps)
        again = set(deps)
        assert real(project, fi, model, cls, method, again) == got
        assert again == deps
        asked[0] += 1
        return got

    monkeypatch.setattr(project_mod, "_self_call", twice)
    lint_paths(files, Config(), use_cache=False, jobs=1, isolate=False)
    assert asked[0] > 10


def _has_export_call_by_regex(text: str) -> bool:
    """``index._has_export_call`` as it was: the words found with ``re.finditer``."""
    import re

    from exportlint.semantics import index

    if "export" not in text and "trace" not in text:
        return False
    seen = -1
    for m in re.finditer(r"export|trace", text):
        j = m.start()
        while j > 0 and index._IS_WORD.match(text, j - 1):
            j -= 1
        if j != seen:
            seen = j
            if index._EXPORT_CALL_RE.match(text, j):
                return True
    return False


def test_export_words_found_with_str_find_answer_as_the_regex_did():
    from exportlint.semantics import index

    texts = [Path(f).read_text("utf-8") for f in real_files(6, 120)]
    texts += ["exportrace(x)", "x = retrace(y)", "torch.onnx.export (m, x)", "exportexport(", "tracetrace (",
              "a.trace_module(", "export", "xexport(", "f(export)", "trace\n(", "exportrace\n", "torch.jit.trace(m, x)"]
    found = 0
    for t in texts:
        assert index._has_export_call(t) == _has_export_call_by_regex(t), t[:200]
        found += index._has_export_call(t)
    assert found > 3
