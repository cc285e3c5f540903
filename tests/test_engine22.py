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


_POOL = """import math

import torch.nn as nn
import torch.nn.functional as F


class SamePool(nn.Module):
    def __init__(self, kernel_size=3, stride=2):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size, stride)
        self.k, self.s = kernel_size, stride

    def forward(self, x):
        h, w = x.cpu().detach().numpy().shape[-2:]
        extra_h = (math.ceil(w / self.s) - 1) * self.s - w + self.k
        left = extra_h // 2
        x = F.pad(x, [left, extra_h - left, 0, 0])
        return self.pool(x)
"""

_NET = """import torch
import torch.nn as nn
from torch.export import Dim

from .pool import SamePool


class Net(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 1)
        self.down = SamePool(3, 2)

    def forward(self, x):
        return self.down(self.conv(x))


model = Net()
example_args = (torch.randn(1, 4, 15, 17),)
dynamic_shapes = ({spec},)
"""


def _exl116(tmp_path, spec: str, prefix: str) -> list:
    files = write_package(tmp_path, {"pool.py": _POOL, "net.py": _NET.replace("{spec}", spec)}, prefix)
    return [(n, line, sev) for n, line, sev, _ in code_hits(lint_package(files), "EXL116")]


def test_sizes_of_numpy_copy_carried_through_a_layer(tmp_path):
    # an ExportDB-style module-level declaration (no export call: the pool's file is dynamic only by
    # reach); the declared model hands `self.conv(x)` (rank 4 kept by the Conv2d) to the pool, whose
    # `x.cpu().detach().numpy().shape[-2:]` are x's dims 2 and 3: the float round trip of `w` is an
    # error (bench/cases/pkg_same_pad_numpy, which was an error on main only through a same-named
    # class of another case). A warning on main 3d34785.
    spec = '{2: Dim("h", min=4, max=256), 3: Dim("w", min=4, max=256)}'
    assert _exl116(tmp_path, spec, "e22e") == [("pool.py", 15, "error")]


def test_control_sizes_of_static_dims_stay_a_warning(tmp_path):
    # control: only dim 0 declared; `w` (dim 3) is static, the pool's file is dynamic by reach only
    assert _exl116(tmp_path, '{0: Dim("b")}', "e22f") == [("pool.py", 15, "warning")]
