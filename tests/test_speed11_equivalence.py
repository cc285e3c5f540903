"""Shortcuts of speed11 (issue 9) against the slow forms they replace, on real files (torch's own
``nn/modules`` and ExportDB examples everywhere; timm, transformers and torchvision model files
where installed):

- ``ctor_values._attrs_written_in``: one walk of a file answers, for every attribute name, what
  ``_written_elsewhere`` asked with a walk of the file per attribute;
- ``ctor_values._calls_named``: the calls of a file bucketed once by the last part of the called
  name give, per class, the construction calls the per-class walk found, in the same order;
- ``project.file_text`` / ``file_digest`` / ``file_tree``: read, hashed and parsed once per run
  (``param_reads``, ``tensor_check_params`` and ``ctor_values`` share them); a new run reads an
  edited file again, and without a run nothing is kept.
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

from conftest import real_files

from exportlint.semantics import ctor_values
from exportlint.semantics.index import ast_dotted
from exportlint.semantics.project import Project, file_digest, file_text, file_tree


def _real_files() -> list[str]:
    return real_files(4, 80)


def _written_slow(tree: ast.Module, attr: str) -> bool:
    """The per-attribute walk ``_written_elsewhere`` did before speed11 (one file)."""
    inits = {id(n) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) and fn.name == "__init__"
             for n in ast.walk(fn)}
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        for t in targets:
            for x in ast.walk(t):
                if isinstance(x, ast.Attribute) and x.attr == attr and isinstance(x.ctx, ast.Store):
                    own = (id(node) in inits and isinstance(x.value, ast.Name) and x.value.id == "self"
                           and isinstance(node, ast.Assign))
                    if not own:
                        return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
                and len(node.args) >= 2 and ctor_values._literal(node.args[1]) == attr):
            return True
    return False


_WRITES = '''
class A:
    def __init__(self, flag):
        self.flag = flag
        self.other = 1
        self.obj = None
        self.obj.deep = 2          # not the instance's own attribute: counts
    def set(self, v):
        self.flag = v              # a setter: counts
    def aug(self):
        self.count: int = 0
        self.count += 1

def outside(m):
    m.use_checkpoint = True
    setattr(m, "by_name", 1)
    setattr(m, 3, 1)
    a, (b.tupled, c) = 1, (2, 3)
'''


def test_one_walk_answers_every_attribute_as_the_per_attribute_walk(tmp_path):
    files = _real_files()
    assert len(files) > 40, "torch's own nn/modules are installed wherever the tests run"
    (tmp_path / "w.py").write_text(_WRITES)
    files.append(str(tmp_path / "w.py"))
    asked = checked = 0
    for f in files:
        try:
            tree = ast.parse(Path(f).read_text("utf-8"))
        except (SyntaxError, ValueError):
            continue
        names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        names |= {"by_name", "use_checkpoint", "never_written_anywhere"}
        fast = ctor_values._attrs_written_in(tree)
        names = sorted(names)
        if len(names) > 24:  # (the per-attribute walk is slow: a stride of each big file's names)
            names = names[:: len(names) // 24 + 1] + [n for n in names if n in fast][::4]
        for a in names:
            assert (a in fast) == _written_slow(tree, a), (f, a)
            asked += 1
            checked += a in fast
    assert asked > 600 and checked > 25, (asked, checked)  # (CI: torch and the examples alone: ~860, ~40)
    small = ctor_values._attrs_written_in(ast.parse(_WRITES))
    assert {"flag", "deep", "count", "use_checkpoint", "by_name", "tupled"} <= small
    assert "other" not in small and "obj" not in small
    assert ctor_values._attrs_written_in(None) == frozenset()


def test_calls_bucketed_by_name_are_the_per_class_walk(tmp_path):
    files = _real_files()
    project = Project(files)
    project.run_files = frozenset(os.path.abspath(f) for f in files)
    pairs = 0
    for f in files:
        tree = file_tree(project, f)
        if tree is None:
            continue
        text = file_text(project, f)
        sfi = project.index_path(f)
        walked = [(call, scope, ast_dotted(call.func)) for call, scope in ctor_values._calls_with_scope(tree)]
        classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
        classes |= {d.rsplit(".", 1)[-1] for _, _, d in walked if d and d.rsplit(".", 1)[-1][:1].isupper()}
        for cls in sorted(classes):
            # (the file's tree is parsed: the calls come from it, only the nodes whose lines
            # hold a place `_call_marks` finds entered; test_optoff_equivalence checks the
            # statements parsed alone)
            lines = sorted({ln for ln, _ in ctor_values._call_marks(text, cls)})
            got = ctor_values._calls_named(project, f, sfi, cls, lines)
            assert ctor_values._calls_named(project, f, sfi, cls, lines) is got  # once per file, class and run
            # the per-class walk: every call of the module whose dotted name ends in the class
            slow = [(id(c), s, d) for c, s, d in walked if d is not None and d.rsplit(".", 1)[-1] == cls]
            assert [(id(c), s, d) for c, s, d in got] == slow, (f, cls)
            pairs += bool(slow)
    assert pairs > 100, pairs  # (CI: torch and the examples alone: ~150)


def test_texts_digests_and_trees_once_per_run_and_read_again_in_the_next(tmp_path):
    p = tmp_path / "pkg" / "helper.py"
    p.parent.mkdir()
    (p.parent / "__init__.py").write_text("")
    p.write_text("def f(x):\n    return x.item()\n")
    project = Project([str(p)])
    # no run: nothing kept, every call reads the text as it is then
    assert project.run_files is None
    t1 = file_tree(project, str(p))
    assert t1 is not None and file_tree(project, str(p)) is not t1
    assert file_digest(project, str(p)) == hashlib.sha256(p.read_bytes()).hexdigest()
    # a run: read, hashed and parsed once
    project.run_files = frozenset({str(p)})
    tree = file_tree(project, str(p))
    digest = file_digest(project, str(p))
    p.write_text("def f(x, y):\n    return x\n")
    assert file_tree(project, str(p)) is tree and file_digest(project, str(p)) == digest
    assert file_text(project, str(p)).startswith("def f(x):")
    # the next run (a new set of run files) reads the edited file
    project.run_files = frozenset({str(p)})
    assert file_text(project, str(p)).startswith("def f(x, y):")
    assert file_digest(project, str(p)) == hashlib.sha256(p.read_bytes()).hexdigest() != digest
    assert [a.arg for a in file_tree(project, str(p)).body[0].args.args] == ["x", "y"]
    # unreadable and refused files
    gone = str(tmp_path / "gone.py")
    assert file_text(project, gone) is None and file_digest(project, gone) is None and file_tree(project, gone) is None
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    assert file_text(project, str(bad)) is not None and file_tree(project, str(bad)) is None
