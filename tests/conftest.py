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


@pytest.fixture
def lint_snippet():
    return lint
