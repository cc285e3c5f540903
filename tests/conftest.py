import importlib.util
import sys
import textwrap

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
    A package name of its own per test: ``lint_paths(isolate=False)`` keeps one in-process
    project whose roots outlive the call, and the same module name under another root would
    resolve there."""
    root = tmp_path / "proj" / f"{prefix}_{tmp_path.name}"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    if "__init__.py" not in files:
        (root / "__init__.py").write_text("", encoding="utf-8")
    return sorted(str(p) for p in root.rglob("*.py"))


@pytest.fixture
def lint_snippet():
    return lint
