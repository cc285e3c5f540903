"""The exportlint language server (``exportlint server``).

- :mod:`exportlint.lsp.edits`: text positions, fix and suppression edits (no pygls needed);
- :mod:`exportlint.lsp.server`: the pygls server (diagnostics, code actions, hover) on top of
  the same engine as the CLI (``Linter.lint_text``) and the ``lsp`` output format
  (``exportlint.report.to_lsp_diagnostic``).

Importing this package does not import pygls; ``exportlint.lsp.server`` does.
"""

__all__ = ["edits", "server"]
