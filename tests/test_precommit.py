"""The pre-commit hook, for real: `pre-commit try-repo <this checkout> exportlint` in a
throwaway git repository fails on a model with a data-dependent branch and passes after the fix.

pre-commit builds a fresh virtualenv and pip-installs this checkout into it (from its HEAD
commit plus uncommitted changes to tracked files), so this needs network access to PyPI for
libcst, rich and hatchling; it is skipped when git or pre-commit is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pre_commit")

ROOT = Path(__file__).resolve().parents[1]

BAD = textwrap.dedent(
    """\
    import torch


    class Gate(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x * 2
            return x - 1
    """
)

GOOD = textwrap.dedent(
    """\
    import torch


    class Gate(torch.nn.Module):
        def forward(self, x):
            return torch.where(x.sum() > 0, x * 2, x - 1)
    """
)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)


def _try_repo(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "exportlint", "--all-files", "--color", "never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs a git checkout of exportlint")
def test_hook_fails_on_bad_model_and_passes_after_fix(tmp_path: Path) -> None:
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    for line in ("id: exportlint", "entry: exportlint", "language: python", "types: [python]", "require_serial: true"):
        assert line in hooks

    repo = tmp_path / "proj"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "test@example.com")
    _git(repo, "config", "user.name", "test")
    _git(repo, "config", "commit.gpgsign", "false")
    model = repo / "model.py"
    model.write_text(BAD)
    (repo / "README.md").write_text("not python: the hook must not see this\n")
    _git(repo, "add", "model.py", "README.md")
    _git(repo, "commit", "-q", "-m", "bad model")

    env = dict(os.environ)
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")  # never the user's cache
    env.pop("PRE_COMMIT", None)
    env.pop("SKIP", None)

    bad = _try_repo(repo, env)
    out = bad.stdout + bad.stderr
    assert bad.returncode == 1, out
    assert "exportlint" in out and "Failed" in out, out
    assert "model.py:6:" in out and "EXL101" in out, out
    assert "README.md" not in out.split("Failed", 1)[1], out

    model.write_text(GOOD)
    _git(repo, "commit", "-q", "-am", "fix: torch.where")
    good = _try_repo(repo, env)
    out = good.stdout + good.stderr
    assert good.returncode == 0, out
    assert "Passed" in out, out
    assert "EXL101" not in out, out
