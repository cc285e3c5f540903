"""lead31: a ``dynamic_shapes`` entry of ``None`` or ``Dim.STATIC`` keeps its dim static.

torch 2.13: ``export(M(), (torch.randn(3, 5),), dynamic_shapes={"x": {0: Dim("b"), 1: None}})``
gives ``x`` the shape ``[s77, 5]``; ``{1: Dim.STATIC}`` and the tuple form ``(Dim("b"),
Dim.STATIC)`` likewise. The dict form used to count every int key as a dynamic dim (and the tuple
form ``Dim.STATIC``), so a branch on the static dim was an EXL111 *error* ("declares dynamic").
Both readers are fixed: the file's (``checks.common._dims_of``, libcst) and the project index's
(``semantics.index.spec_dims``, stdlib ast).
"""

from __future__ import annotations

import ast

import pytest

from conftest import code_hits, lint, lint_package, write_package

_SRC = """import torch
from torch import nn
from torch.export import Dim


class M(nn.Module):
    def forward(self, x):
        if x.shape[1] > 4:
            return x * 2
        return x + 1


ep = torch.export.export(M().eval(), (torch.randn(2, 8),), dynamic_shapes={spec})
"""


def _exl111(spec: str) -> list:
    return [(f.line, f.severity.value) for f in lint(_SRC.replace("{spec}", spec)) if f.code == "EXL111"]


@pytest.mark.parametrize("spec", ['{"x": {0: Dim("b"), 1: None}}', '{"x": {0: Dim("b"), 1: Dim.STATIC}}',
                                  '{"x": (Dim("b"), Dim.STATIC)}', '{"x": (Dim("b"), None)}'])
def test_static_entry_is_not_declared_dynamic(spec):
    assert _exl111(spec) == [(8, "warning")]  # the file exports dynamic dims, not dim 1


@pytest.mark.parametrize("spec", ['{"x": {0: Dim("b"), 1: Dim("c")}}', '{"x": (Dim("b"), Dim("c"))}',
                                  '{"x": {0: Dim("b"), 1: Dim.AUTO}}'])
def test_control_dynamic_entry_is_an_error(spec):
    assert _exl111(spec) == [(8, "error")]


def test_index_spec_dims_skips_static_entries():
    from exportlint.semantics.index import spec_dims

    def dims(src: str) -> set:
        return {d for d in spec_dims(ast.parse(src, mode="eval").body, "dynamic_shapes") if isinstance(d, int)}

    assert dims('{0: Dim("b"), 1: None, 2: Dim.STATIC}') == {0}
    assert dims('(Dim("b"), None, Dim.STATIC, Dim("w"))') == {0, 3}
    assert dims('{0: Dim("b"), 1: Dim("c")}') == {0, 1}  # control


_NET = """import torch.nn as nn

from .ops import widen


class Net(nn.Module):
    def forward(self, x):
        return widen(x)
"""

_OPS = """def widen(x):
    if x.shape[1] > 4:
        return x * 2
    return x + 1
"""

_INIT = ("import torch\nfrom torch.export import Dim\n\nfrom .net import Net\n\nmodel = Net()\n"
         "example_args = (torch.randn(2, 8),)\ndynamic_shapes = {{\"x\": {spec}}}\n")


@pytest.mark.parametrize("spec,severity", [('{0: Dim("b"), 1: None}', "warning"),
                                           ('{0: Dim("b"), 1: Dim("c")}', "error")])
def test_project_helper_reads_the_static_entry(tmp_path, spec, severity):
    files = write_package(tmp_path, {"__init__.py": _INIT.format(spec=spec), "net.py": _NET, "ops.py": _OPS},
                          "l31" + severity[0])
    hits = code_hits(lint_package(files), "EXL111")
    assert [(h[0], h[1], h[2]) for h in hits] == [("ops.py", 2, severity)]


# ---- file_tree(keep=False): a rule reading the file it lints takes the lent tree without keeping it ----

def test_file_tree_keep_false_answers_the_lent_tree_without_keeping_it(tmp_path):
    from exportlint.semantics.project import Project, file_text, file_tree, has_file_tree, lend_tree

    p = tmp_path / "pkg" / "block.py"
    p.parent.mkdir()
    (p.parent / "__init__.py").write_text("")
    p.write_text("import torch.nn as nn\n\n\nclass B(nn.Module):\n    def forward(self, x):\n        return x\n")
    project = Project([str(p)])
    project.run_files = frozenset({str(p)})
    lent = ast.parse(file_text(project, str(p)))
    lend_tree(project, str(p), file_text(project, str(p)), lent)
    assert file_tree(project, str(p), keep=False) is lent
    assert has_file_tree(project, str(p)) is False      # not kept for the run
    assert file_tree(project, str(p)) is lent             # control: the default keeps it
    assert has_file_tree(project, str(p)) is True
    lend_tree(project, str(p), "", None)
    assert file_tree(project, str(p), keep=False) is lent  # a kept tree answers keep=False too
