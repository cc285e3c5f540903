"""engine22: the project's declared dims are read per defining (file, class), not by bare name.

Two modules of one project each define ``class Block``. ``dyn.py`` exports its ``Block`` with a
dynamic dim 2; ``other.py``'s ``Block`` is another class, exported static (or not at all), and
its ``forward`` branches on ``x.shape[2]``. The rules used to look the declared dims up by the
bare name ``Block`` (``ctx.project_dynamic``), so ``other.py``'s branch was an EXL111 *error*
claiming dim 2 declared dynamic. Now a file's view of the dims (``ProjectDims.for_file``) gives its
classes only the declarations resolving to them; a class that resolves nowhere keeps its name.
"""

from __future__ import annotations

from conftest import code_hits, lint_package, write_package

_DYN = """import torch
from torch import nn
from torch.export import Dim


class Block(nn.Module):
    def forward(self, x):
        {body}


def run():
    return torch.export.export(Block(), (torch.randn(1, 3, 8, 8),), dynamic_shapes={{"x": {{2: Dim("h")}}}})
"""

_OTHER = """import torch
from torch import nn


class Block(nn.Module):
    def forward(self, x):
        if x.shape[2] > 4:
            return x * 2
        return x + 1
{tail}"""

_STATIC_EXPORT = """

def run():
    return torch.export.export(Block(), (torch.randn(1, 3, 8, 8),))
"""


def _hits(tmp_path, files: dict, prefix: str) -> list:
    return code_hits(lint_package(write_package(tmp_path, files, prefix)), "EXL111")


def test_same_named_class_of_other_module_takes_no_dims(tmp_path):
    # reproducer: failed on main 3d34785 ([("other.py", 7, "error", ...)])
    hits = _hits(tmp_path, {"dyn.py": _DYN.format(body="return x + 1"),
                            "other.py": _OTHER.format(tail=_STATIC_EXPORT)}, "e22a")
    assert [(n, line, sev) for n, line, sev, _ in hits] == [("other.py", 7, "warning")]


def test_same_named_class_not_exported_takes_no_dims(tmp_path):
    # reproducer: other.py's Block is never exported; it took dyn.py's declared dim 2 by name
    hits = _hits(tmp_path, {"dyn.py": _DYN.format(body="return x + 1"), "other.py": _OTHER.format(tail="")},
                 "e22b")
    assert [(n, line, sev) for n, line, sev, _ in hits if sev == "error"] == []


def test_control_declared_class_own_branch_is_an_error(tmp_path):
    # control: the declared class's own branch on its dynamic dim stays an error
    body = "if x.shape[2] > 4:\n            return x * 2\n        return x + 1"
    hits = _hits(tmp_path, {"dyn.py": _DYN.format(body=body), "other.py": _OTHER.format(tail=_STATIC_EXPORT)},
                 "e22c")
    assert ("dyn.py", 8, "error") in [(n, line, sev) for n, line, sev, _ in hits]
    assert ("other.py", 7, "error") not in [(n, line, sev) for n, line, sev, _ in hits]


def test_control_declared_class_imported_elsewhere_keeps_dims(tmp_path):
    # control: a module exporting the other module's Block with dynamic dims declares that class
    exporter = """import torch
from torch.export import Dim

from .other import Block


def run():
    return torch.export.export(Block(), (torch.randn(1, 3, 8, 8),), dynamic_shapes={"x": {2: Dim("h")}})
"""
    hits = _hits(tmp_path, {"dyn.py": _DYN.format(body="return x + 1"), "other.py": _OTHER.format(tail=""),
                            "exp.py": exporter}, "e22d")
    assert ("other.py", 7, "error") in [(n, line, sev) for n, line, sev, _ in hits]


def test_for_file_view_unit():
    from exportlint.semantics.project import REACH_KEY, ProjectDims

    d = ProjectDims()
    d["Block"] = {"x": {2}, REACH_KEY: {"Block", "MLP"}}
    d.by_path[("/p/a.py", "Block")] = {"x": {2}, REACH_KEY: {"Block", "MLP"}}
    d.paths["Block"] = {"/p/a.py"}
    d.reach_paths["Block"] = {("/p/a.py", "Block"), ("/p/a.py", "MLP")}
    assert d.for_file("/p/a.py", {"Block": 0, "MLP": 0}) is d  # the declaring file: unchanged
    assert "Block" not in d.for_file("/p/b.py", {"Block": 0})  # another file's Block: nothing
    # another file's MLP is not what the declared Block builds
    assert d.for_file("/p/b.py", {"MLP": 0})["Block"][REACH_KEY] == {"Block"}
    assert d.for_file("/p/c.py", {"Other": 0}) is d  # names it does not define: merged
    d.bare["Block"] = {"y": {1}}  # a declaration that resolves nowhere keeps its bare name
    assert d.for_file("/p/b.py", {"Block": 0})["Block"] == {"y": {1}}
