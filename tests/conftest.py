import glob
import importlib.util
import os
import site
import sys
import textwrap
from pathlib import Path

import pytest

from exportlint.config import Config
from exportlint.engine import lint_source


def lint(src: str, codes=None, **cfg):
    return lint_source(textwrap.dedent(src), "snippet.py", Config(**cfg), codes=codes)


def codes_at(src: str, **kw):
    """[(line, code)] of the findings of a snippet."""
    return [(f.line, f.code) for f in lint(src, **kw)]


def line_of(src: str, marker: str) -> int:
    """The line (1-based, after dedent) of a snippet that holds ``marker``."""
    for i, ln in enumerate(textwrap.dedent(src).splitlines(), 1):
        if marker in ln:
            return i
    raise AssertionError(marker)


def load_file_module(name: str, path):
    """Imports the Python file ``path`` (a bench script) as module ``name``, registered in
    ``sys.modules`` (its dataclasses look their module up there)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def write_package(tmp_path, files: dict, prefix: str) -> list[str]:
    """Writes ``files`` (relative path -> text) as a package ``<prefix>_<test dir>`` under
    ``tmp_path/proj`` (an empty ``__init__.py`` unless given); returns its .py files, sorted.
    A package name of its own per test keeps the tests' packages apart in reports (each
    ``lint_paths`` call resolves imports afresh: tests/test_run_state.py)."""
    root = tmp_path / "proj" / f"{prefix}_{tmp_path.name}"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    if "__init__.py" not in files:
        (root / "__init__.py").write_text("", encoding="utf-8")
    return sorted(str(p) for p in root.rglob("*.py"))


def lint_package(files: list[str]) -> list:
    """The findings of one in-process project run over ``files`` (``write_package``'s), no
    cache; the run must report no error of its own."""
    from exportlint.engine import lint_paths

    r = lint_paths(files, Config(), jobs=1, use_cache=False, isolate=False)
    assert not r.errors, r.errors
    return list(r.findings)


def code_hits(findings, code: str) -> list[tuple]:
    """(file name, line, severity, exporters) of the findings of one rule, sorted."""
    return sorted((Path(f.path).name, f.line, f.severity.value, tuple(f.exporters))
                  for f in findings if f.code == code)


def real_files(stride: int, hf_stride: int) -> list[str]:
    """Real model files for the equivalence tests: torch's own ``nn/modules`` and ExportDB
    examples and the bundled examples (everywhere, CI included), plus every ``stride``-th
    file of timm's models and layers and torchvision's models and every ``hf_stride``-th
    transformers ``modeling_*.py`` where those zoos are installed."""
    sp = site.getsitepackages()[0]
    files = sorted(glob.glob(os.path.join(sp, "torch/nn/modules/*.py")))
    files += sorted(glob.glob(os.path.join(sp, "torch/_export/db/examples/*.py")))
    files += sorted(glob.glob(os.path.join(sp, "timm/models/*.py")))[::stride]
    files += sorted(glob.glob(os.path.join(sp, "timm/layers/*.py")))[::stride]
    files += sorted(glob.glob(os.path.join(sp, "transformers/models/*/modeling_*.py")))[::hf_stride]
    files += sorted(glob.glob(os.path.join(sp, "torchvision/models/**/*.py"), recursive=True))[::stride]
    files += [str(p) for p in sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))]
    return files


@pytest.fixture
def lint_snippet():
    return lint
