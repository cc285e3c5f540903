"""Instances of project classes across files (semantics/objects.py): a class in one file,
built in another, its attributes read in a third; lists of sizes and of tensors."""

from __future__ import annotations

import textwrap
from pathlib import Path

from exportlint.config import Config
from exportlint.engine import lint_paths


def _write(root: Path, files: dict[str, str]) -> list[str]:
    out = []
    for rel, src in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(src).lstrip())
        out.append(str(p))
    for d in {p.parent for p in map(Path, out)}:
        (d / "__init__.py").touch()
    return sorted(set(out) | {str(d / "__init__.py") for d in {p.parent for p in map(Path, out)}})


def _lint(files: list[str]):
    r = lint_paths(files, Config(), jobs=1, use_cache=False)
    assert not r.errors, r.errors
    return r.findings


def _at(findings, rel: str, code: str) -> set[int]:
    return {f.line for f in findings if Path(f.path).as_posix().endswith(rel) and f.code == code}


STRUCTS = """
    from torch import Tensor


    class Batch:
        def __init__(self, tensors: Tensor, sizes: list[tuple[int, int]], scale: float = 2.0) -> None:
            self.tensors = tensors
            self.sizes = sizes
            self.scale = scale
"""

PREP = """
    import torch
    from torch import nn

    from .structs import Batch


    class Prep(nn.Module):
        def forward(self, x: torch.Tensor) -> Batch:
            sizes: list[tuple[int, int]] = []
            for level in range(2):
                sizes.append((x.shape[-2] // 2**level, x.shape[-1] // 2**level))
            return Batch(x, sizes, 4.0)
"""


def test_attributes_of_an_instance_built_in_another_file(tmp_path):
    # the class in structs.py, built in prep.py, its attributes read in head.py (a parameter
    # annotated with the class: the kinds come from the construction sites)
    files = _write(tmp_path / "pkg", {
        "structs.py": STRUCTS,
        "prep.py": PREP,
        "head.py": """
            import torch
            from torch import nn

            from .structs import Batch


            class Head(nn.Module):
                def forward(self, batch: Batch, feats: torch.Tensor):
                    h, w = batch.tensors.shape[-2:]
                    scale = torch.tensor([w, h], device=feats.device)
                    first = batch.sizes[0]
                    ratio = torch.tensor([first[1], first[0]], device=feats.device)
                    const = torch.tensor([batch.scale, batch.scale], device=feats.device)
                    return feats * scale[0] * ratio[0] * const[0]
        """,
    })
    f = _lint(files)
    # .tensors is the tensor prep.py passed; .sizes the list of sizes it grew; .scale a Python
    # number (the negative: no finding)
    assert _at(f, "pkg/head.py", "EXL112") == {10, 12}


def test_instance_handed_to_a_helper_in_a_third_file(tmp_path):
    files = _write(tmp_path / "pkg", {
        "structs.py": STRUCTS,
        "helpers.py": """
            import torch


            def scale_of(batch):
                h, w = batch.tensors.shape[-2:]
                return torch.tensor([w, h], device=batch.tensors.device)


            def fixed_scale(batch):
                return torch.tensor([batch.scale, batch.scale])
        """,
        "model.py": """
            import torch
            from torch import nn

            from .helpers import fixed_scale, scale_of
            from .structs import Batch


            class Model(nn.Module):
                def forward(self, x: torch.Tensor):
                    b = Batch(x, [], 3.0)
                    return x * scale_of(b)[0] * fixed_scale(b)[0]
        """,
    })
    f = _lint(files)
    assert _at(f, "pkg/helpers.py", "EXL112") == {6}
    hit = next(x for x in f if x.path.endswith("helpers.py") and x.code == "EXL112")
    assert hit.related and hit.related[-1].message.startswith("Model.forward calls scale_of()")


def test_config_attributes_and_reassigned_attributes_stay_quiet(tmp_path):
    # negative: the attribute holds Python config (a literal tuple at every construction site),
    # or another method re-assigns it (not the kind __init__ gave): no finding
    files = _write(tmp_path / "pkg", {
        "cfg.py": """
            class Grid:
                def __init__(self, dims, cells):
                    self.dims = dims
                    self.cells = cells

                def reset(self, t):
                    self.cells = t
        """,
        "model.py": """
            import torch
            from torch import nn

            from .cfg import Grid


            class Model(nn.Module):
                def forward(self, x: torch.Tensor):
                    g = Grid((4, 4), x.shape[-2:])
                    a = torch.tensor([g.dims[1], g.dims[0]], device=x.device)
                    b = torch.tensor([g.cells[1], g.cells[0]], device=x.device)
                    return x * a[0] * b[0]
        """,
    })
    f = _lint(files)
    assert _at(f, "pkg/model.py", "EXL112") == set()


def test_instance_kind_joins_construction_sites(tmp_path):
    # one site stores a size, another a Python constant: the attribute's kind is unknown
    files = _write(tmp_path / "pkg", {
        "structs.py": """
            class Box:
                def __init__(self, size):
                    self.size = size
        """,
        "a.py": """
            import torch
            from torch import nn

            from .structs import Box


            class A(nn.Module):
                def forward(self, x: torch.Tensor):
                    return use(Box(x.shape[-2:]), x) + use(Box((8, 8)), x)


            def use(box: Box, x):
                return x * torch.tensor([box.size[1], box.size[0]], device=x.device)[0]
        """,
    })
    f = _lint(files)
    assert _at(f, "pkg/a.py", "EXL112") == set()


def test_list_of_tensors_parameter_and_a_sum_of_sizes(tmp_path):
    # boxes: list[Tensor] iterates into tensors (the loop over the Python list is no finding);
    # a sum of their sizes accumulated in a loop is a size: the `if` on it is reported
    files = _write(tmp_path / "pkg", {
        "coder.py": """
            import torch


            class Coder:
                def decode(self, codes: torch.Tensor, boxes: list[torch.Tensor]) -> torch.Tensor:
                    counts = [b.size(0) for b in boxes]
                    total = 0
                    for c in counts:
                        total += c
                    if total > 0:
                        codes = codes.reshape(total, -1)
                    return codes
        """,
        "model.py": """
            import torch
            from torch import nn

            from .coder import Coder


            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.coder = Coder()

                def forward(self, codes: torch.Tensor, anchors: list[torch.Tensor]):
                    return self.coder.decode(codes, anchors)
        """,
    })
    f = _lint(files)
    assert _at(f, "pkg/coder.py", "EXL111") == {10}


def _single(src: str):
    from exportlint.engine import lint_source

    return lint_source(textwrap.dedent(src).lstrip(), "m.py", Config())


def test_list_of_tensors_items_checked_as_lists_are_not_tensors():
    # negative: `isinstance(h, (tuple, list)) and len(h) == 2` tests a Python list's length
    f = _single("""
        import torch
        from torch import nn


        class Neck(nn.Module):
            def forward(self, hidden_states: list[torch.Tensor]):
                out = []
                for h in hidden_states:
                    if h.shape[1] > 4:
                        h = h[:, :4]
                    if isinstance(h, (tuple, list)) and len(h) == 2:
                        h = h[0]
                    out.append(h)
                return out
    """)
    assert {(x.line, x.code) for x in f if x.code == "EXL111"} == {(9, "EXL111")}


def test_tensor_built_with_a_list_length_has_a_static_first_dim():
    # negative: dim 0 of a tensor built with `[len(images)] + sizes` is the list's length
    f = _single("""
        import torch
        from torch import nn


        class Batcher(nn.Module):
            def forward(self, images: list[torch.Tensor]):
                size = [max(s) for s in zip(*[img.shape for img in images])]
                shape = [len(images)] + size
                batched = images[0].new_full(shape, 0)
                for i in range(batched.shape[0]):
                    batched[i, : images[i].shape[0]].copy_(images[i])
                for j in range(batched.shape[1]):
                    batched[:, j] += 1
                return batched
    """)
    assert {(x.line, x.code) for x in f if x.code == "EXL111"} == {(12, "EXL111")}


def test_a_sequence_annotation_on_a_tensor_read_as_a_tensor():
    # `hidden_states: tuple[torch.Tensor]` but `.shape` is read: a tensor (a tuple has no shape)
    f = _single("""
        import torch
        from torch import nn


        class Local(nn.Module):
            def forward(self, hidden_states: tuple[torch.Tensor]):
                n = hidden_states.shape[1]
                for start in range(0, n, 4):
                    hidden_states = hidden_states + start
                return hidden_states
    """)
    assert {(x.line, x.code) for x in f if x.code == "EXL111"} == {(8, "EXL111")}


def test_dataclass_and_namedtuple_fields(tmp_path):
    files = _write(tmp_path / "pkg", {
        "records.py": """
            from dataclasses import dataclass
            from typing import NamedTuple, Optional

            import torch


            @dataclass
            class Out:
                feats: torch.Tensor
                hw: tuple[int, int]
                stride: int = 8


            class Pair(NamedTuple):
                size: tuple[int, int]
                scale: float
        """,
        "model.py": """
            import torch
            from torch import nn

            from .records import Out, Pair


            class Model(nn.Module):
                def forward(self, x: torch.Tensor):
                    o = Out(x, x.shape[-2:])
                    p = Pair(x.shape[-2:], 2.0)
                    a = torch.tensor([o.hw[1], o.hw[0]], device=x.device)
                    b = torch.tensor([p.size[1], p.size[0]], device=x.device)
                    c = torch.tensor([o.stride, p.scale], device=x.device)
                    return o.feats * a[0] * b[0] * c[0]
        """,
    })
    f = _lint(files)
    assert _at(f, "pkg/model.py", "EXL112") == {11, 12}


def test_class_named_only_by_an_annotation(tmp_path):
    # nothing on the export path builds Batch: its __init__ does not run during the export (no
    # finding there), yet its annotated attribute kinds still describe a parameter of the class
    files = _write(tmp_path / "pkg", {
        "structs.py": """
            import torch


            class Batch:
                def __init__(self, tensors: torch.Tensor, n):
                    self.tensors = tensors
                    if tensors.sum() > 0:
                        n = n + 1
                    self.n = n
        """,
        "head.py": """
            import torch
            from torch import nn

            from .structs import Batch


            class Head(nn.Module):
                def forward(self, batch: Batch):
                    h, w = batch.tensors.shape[-2:]
                    return batch.tensors * torch.tensor([w, h], device=batch.tensors.device)[0]
        """,
    })
    f = _lint(files)
    assert _at(f, "pkg/head.py", "EXL112") == {10}
    assert [x for x in f if x.path.endswith("structs.py")] == []


def test_truth_of_a_list_of_sizes_is_its_length():
    # negative: `if sizes:` / `if not counts:` test a Python list's length, not the sizes in it;
    # the sizes themselves stay sizes (the comparison on one is reported)
    f = _single("""
        import torch
        from torch import nn


        class M(nn.Module):
            def forward(self, x: torch.Tensor, feats: list[torch.Tensor]):
                sizes = []
                for t in feats:
                    sizes.append(t.shape[-1])
                counts = [t.shape[0] for t in feats]
                if not sizes or not counts:
                    return x
                if sizes[0] > 8:
                    x = x + 1
                return x
    """)
    assert {(x.line, x.code) for x in f if x.code == "EXL111"} == {(13, "EXL111")}


def test_unpacking_a_list_of_tensors():
    f = _single("""
        import torch
        from torch import nn


        class M(nn.Module):
            def forward(self, feats: list[torch.Tensor]):
                first, *rest = feats
                if first.shape[-1] > 8:
                    first = first[..., :8]
                for r in rest:
                    first = first + r.mean()
                return first
    """)
    assert {(x.line, x.code) for x in f if x.code == "EXL111"} == {(8, "EXL111")}


def test_one_file_run_resolves_no_constructor_of_other_files(tmp_path):
    # a one-file run (pre-commit, an editor): the instance kind of a class in another file could
    # not come back (that file is not analysed), so its constructions are not resolved at all
    # (no index of the other file is read for them); findings equal a run that does not know
    from exportlint.config import Config
    from exportlint.engine import lint_paths
    from exportlint.semantics import objects
    from exportlint.semantics.project import Project

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "boxes.py").write_text("class Boxes:\n    def __init__(self, t, n):\n        self.t = t\n        self.n = n\n")
    (pkg / "net.py").write_text(
        "import torch\nfrom .boxes import Boxes\n\n\nclass Net(torch.nn.Module):\n"
        "    def forward(self, x):\n        b = Boxes(x, x.shape[0])\n        return b.t\n")
    calls = []
    orig = objects.class_refs

    def spy(project, fi, model, deps):
        out = orig(project, fi, model, deps)
        calls.append((fi.path, len(out)))
        return out

    objects.class_refs = spy
    try:
        lint_paths([str(pkg / "net.py")], Config(), use_cache=False, jobs=1, isolate=False)
        assert calls and all(n == 0 for _, n in calls)
        calls.clear()
        lint_paths([str(pkg / "net.py"), str(pkg / "boxes.py")], Config(), use_cache=False, jobs=1, isolate=False)
        assert any(n > 0 for p, n in calls if p.endswith("net.py"))
    finally:
        objects.class_refs = orig
    assert Project().run_files is None


def test_plain_class_kinds_survive_the_reduction_of_its_file(tmp_path):
    # the file of a plain class holds enough code no export entry reaches to be reduced
    # (semantics.reduce): its __init__, analysed for the instance kind, keeps its parameter
    # annotations and every self.x = ..., and the method that re-assigns an attribute stays,
    # so the kinds are those of the whole file: line 10 found (tensors annotated as a tensor),
    # line 11 quiet (reset re-assigns cells)
    import ast

    from exportlint.semantics.reduce import outline, reduce_source

    helpers = "".join(f"\n\ndef unused_helper_{i}(a, b):\n    c = a + b\n    d = c * {i}\n    return d\n"
                      for i in range(4))
    files = _write(tmp_path / "pkg", {
        "structs.py": "import torch\n" + helpers + """

class Grid:
    def __init__(self, tensors: torch.Tensor, cells):
        t = tensors.float()
        self.tensors = t
        self.cells = cells

    def reset(self, t):
        self.cells = t
""",
        "model.py": """
            import torch
            from torch import nn

            from .structs import Grid


            class Model(nn.Module):
                def forward(self, x: torch.Tensor, g: Grid):
                    h = Grid(x, x.shape[-2:])
                    a = torch.tensor([g.tensors.shape[1], g.tensors.shape[0]], device=x.device)
                    b = torch.tensor([h.cells[1], h.cells[0]], device=x.device)
                    return x * a[0] * b[0]
        """,
    })
    text = (tmp_path / "pkg" / "structs.py").read_text()
    o = outline(ast.parse(text), len(text.splitlines()), text)
    red = reduce_source(text, o, ["Grid.__init__"])
    assert red is not None and "unused_helper_0" not in red  # (the file is reduced)
    assert "    def __init__(self, tensors: torch.Tensor, cells):\n        t = tensors.float()" in red
    assert "        self.cells = t\n" in red
    f = _lint(files)
    assert _at(f, "pkg/model.py", "EXL112") == {10}
    assert [x for x in f if x.path.endswith("structs.py")] == []


GROWN_TENSORS = """
    import torch
    from torch import nn


    class Levels(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.ModuleList([nn.Conv2d(3, 4, 1), nn.Conv2d(3, 4, 1)])

        def forward(self, x, mask):
            sources = []
            masks = []
            for level in range(2):
                sources.append(self.proj[level](x))
                masks.append(mask)
            shapes = []
            for level, (source, m) in enumerate(zip(sources, masks)):
                batch, channels, height, width = source.shape
                shapes.append((height, width))
            spatial = torch.as_tensor(shapes, dtype=torch.long, device=x.device)
            n = len(sources)
            unknown = []
            for level in range(n):
                unknown.append(self.helper(level))
            seen = []
            for u in unknown:
                seen.append(u.shape[0])
            other = torch.as_tensor(seen, device=x.device)
            return spatial, other

        def helper(self, level):
            return level
"""


def test_list_grown_with_tensors_iterates_into_tensors(tmp_path):
    """`feats.append(self.proj[i](x))` grows a list of tensors (a ModuleList item called returns a
    tensor); `enumerate(zip(feats, ...))` binds its items; their sizes collected into a list and
    turned into a tensor are EXL112 (measured: transformers deformable_detr, spatial_shapes_list:
    torch.export specialises H/W, the legacy exporter's output is wrong at other sizes). A list
    grown with values of unknown kind stays unknown: no finding from its items."""
    found = _lint(_write(tmp_path, {"m/levels.py": GROWN_TENSORS}))
    lines = GROWN_TENSORS.splitlines()
    spatial = next(i for i, s in enumerate(lines) if "spatial = torch.as_tensor" in s)
    assert _at(found, "m/levels.py", "EXL112") == {spatial}
    # a list of sizes, not one size: the legacy tracer records it as a constant too (the zoo truth: the
    # legacy export of deformable_detr is wrong at another size, TracerWarning at that line)
    assert {e for f in found if f.code == "EXL112" for e in f.exporters} == {
        "export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"}
    assert not _at(found, "m/levels.py", "EXL111")  # iterating a Python list of tensors unrolls nothing dynamic
