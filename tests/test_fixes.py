"""Fixes users can apply: rewrites of data-dependent control flow, --fix / --diff /
--show-fixes, and --confirm's verification of rewrites.

Fast tests check the rewrites' text, the cases left alone, and the file handling (atomic
writes, encodings, line endings, idempotence). Slow tests (marked ``slow``; need torch, onnx,
onnxruntime) import the original and the rewritten model, check the inputs cover both ways
of the branch, export the rewritten model with the real exporters and compare it with the
ORIGINAL eager model.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from exportlint.config import Config
from exportlint.engine import Linter, lint_source
from exportlint.findings import FixSafety
from exportlint.fixes.apply import SAFE_AND_UNSAFE, SAFE_ONLY, fix_text, parses, read_source
from exportlint.ruledocs import load_doc

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
EXPORT_ONLY = ("export-strict", "export-nonstrict", "onnx-dynamo")

try:
    import onnxruntime  # noqa: F401
    import torch  # noqa: F401

    HAVE_EXPORT_STACK = True
except ImportError:  # pragma: no cover
    HAVE_EXPORT_STACK = False
needs_torch = pytest.mark.skipif(not HAVE_EXPORT_STACK, reason="torch / onnx / onnxruntime not installed")


def fixed(src: str, *, unsafe: bool = True, config: Config | None = None, path: str = "model.py") -> str:
    linter = Linter(config or Config())
    out = fix_text(textwrap.dedent(src), lambda t: linter.lint_text(t, path).findings,
                   SAFE_AND_UNSAFE if unsafe else SAFE_ONLY)
    return out.text


def findings(src: str, config: Config | None = None):
    return lint_source(textwrap.dedent(src), "model.py", config or Config())


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "exportlint", *args, "--no-cache"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


# ----------------------------------------------------------------------------- rewrite text
_MARK = re.compile(r"\s*#\s*expect:[^\n]*")


def _pairs(code: str):
    doc = load_doc(code)
    tagged = lambda ex: re.match(r"# rewrite: ([\w-]+)", ex)  # noqa: E731
    bad = {tagged(e).group(1): e for e in doc.bad_examples if tagged(e)}
    good = {tagged(e).group(1): e for e in doc.good_examples if tagged(e)}
    return [(code, name, bad[name], good.get(name)) for name in sorted(bad)]


@pytest.mark.parametrize("code,name,bad,good", [p for c in ("EXL101", "EXL102") for p in _pairs(c)],
                         ids=lambda v: v if isinstance(v, str) and len(v) < 20 else None)
def test_rule_page_rewrite_pairs(code, name, bad, good):
    """The page's bad example, fixed, is exactly its good example (the pages show the rewrite)."""
    assert good is not None, f"{code}: no good example tagged '# rewrite: {name}'"
    assert fixed(_MARK.sub("", bad)) == good


def test_rule_command_prints_the_rewrite():
    from exportlint.cli import main

    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["rule", "EXL101"]) == 0
    text = buf.getvalue()
    assert "Automatic rewrites" in text and "torch.where(x.sum() > 0, x * 2, x - 1)" in text
    assert "evaluates both sides" in text


def test_where_several_names_and_aug_assign():
    out = fixed("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x, b):
                y = x
                if x.sum() > 0:
                    y = x * 2
                    b += 1
                else:
                    y = x - 1
                return y + b
    """)
    assert "y = torch.where(x.sum() > 0, x * 2, x - 1)" in out
    assert "b = torch.where(x.sum() > 0, b + 1, b)" in out
    assert "if " not in out and parses(out)


def test_where_elif_chain_nests():
    out = fixed("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                if x.mean() > 1:
                    y = x * 3
                elif x.mean() < -1:
                    y = -x
                else:
                    y = x
                return y
    """)
    assert "y = torch.where(x.mean() > 1, x * 3, torch.where(x.mean() < -1, -x, x))" in out


def test_where_order_respects_reads():
    # z reads the old x: its where must come before x is overwritten
    out = fixed("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                z = x
                if x.sum() > 0:
                    x = x * 2
                    z = x + 1
                return x, z
    """)
    # the side reads x after assigning it: not independent, so no where rewrite of this form
    assert "z = torch.where" not in out or out.index("z = torch.where") < out.index("x = torch.where")


def test_ifexp_and_bool_of_tensor():
    out = fixed("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x, m):
                y = x * 2 if bool(m.any()) else x
                return y
    """)
    assert "y = torch.where(m.any(), x * 2, x)" in out


def test_where_is_unsafe_and_says_both_sides():
    fs = [f for f in findings("""
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    x = x * 2
                return x
    """) if f.code == "EXL101"]
    assert fs and fs[0].fix.safety == FixSafety.UNSAFE and fs[0].fix.kind == "where"
    assert "both sides" in fs[0].fix.title
    # plain --fix (safe only) leaves it
    src = "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        if x.sum() > 0:\n            x = x * 2\n        return x\n"
    assert fixed(src, unsafe=False) == src


@pytest.mark.parametrize("body,why", [
    ("self.count = 1\n            x = x * 2", "mutates an attribute"),
    ("self.cache.append(x)\n            x = x * 2", "mutates a container"),
    ("print(x)\n            x = x * 2", "I/O"),
    ("logger.info('big')\n            x = x * 2", "logs"),
    ("x = x + torch.randn_like(x)", "random numbers"),
    ("x.mul_(2)", "in place"),
    ("x[0] = 1.0", "writes into"),
    ("raise ValueError('negative')", "raises"),
    ("return x * 2\n        x = x + 1", "control leaves the block"),
])
def test_effects_are_not_rewritten(body, why):
    src = textwrap.dedent("""\
        import logging
        import torch

        logger = logging.getLogger(__name__)

        class M(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    BODY
                return x
    """).replace("BODY", body)
    fs = [f for f in lint_source(src, "m.py", Config()) if f.code == "EXL101"]
    assert fs and fs[0].fix is None
    assert "No automatic rewrite" in fs[0].message and why in fs[0].message, fs[0].message
    assert fixed(src) == src


def test_break_in_loop_is_not_rewritten():
    src = textwrap.dedent("""\
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                for _ in range(3):
                    if x.sum() > 0:
                        break
                    x = x - 1
                return x
    """)
    fs = [f for f in lint_source(src, "m.py", Config()) if f.code == "EXL101"]
    assert fs and fs[0].fix is None and "`break`" in fs[0].message
    assert fixed(src) == src


def test_while_is_not_rewritten():
    src = textwrap.dedent("""\
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                while x.abs().max() > 1:
                    x = x / 2
                return x
    """)
    fs = [f for f in lint_source(src, "m.py", Config()) if f.code == "EXL101"]
    assert fs and fs[0].fix is None and "fixed number of iterations" in fs[0].message


@pytest.mark.parametrize("guard,op,is_guard", [
    ("x.max() > 10", "x = x.clamp(max=10)", True),
    ("(x > 10).any()", "x = torch.clamp(x, max=10)", True),
    ("x.max() > 10 or x.min() < -10", "x = x.clamp(-10, 10)", True),
    ("x.max().item() > 10", "x.clamp_(max=10)", True),
    ("m.any()", "x = x.masked_fill(m, 0.0)", True),
    ("m.any()", "x = torch.where(m, 0.0, x)", True),
    ("not torch.isfinite(x).all()", "x = torch.nan_to_num(x)", True),
    # not equivalent: other bound, other mask, nan_to_num also replaces inf
    ("x.max() > 10", "x = x.clamp(max=5)", False),
    ("x.max() > 10", "x = x.clamp(-10, 10)", False),
    ("m.any()", "x = x.masked_fill(~m, 0.0)", False),
    ("torch.isnan(x).any()", "x = torch.nan_to_num(x)", False),
])
def test_noop_guard_only_when_provably_equivalent(guard, op, is_guard):
    src = textwrap.dedent(f"""\
        import torch

        class M(torch.nn.Module):
            def forward(self, x, m):
                if {guard}:
                    {op}
                return x
    """)
    fs = [f for f in lint_source(src, "m.py", Config()) if f.code == "EXL101"]
    assert len(fs) == 1
    if is_guard:
        nan_sensitive = ".max()" in guard or ".min()" in guard
        assert fs[0].fix is not None and fs[0].fix.kind == "guard"
        assert fs[0].fix.safety == (FixSafety.UNSAFE if nan_sensitive else FixSafety.SAFE)
        out = fixed(src, unsafe=nan_sensitive)
        assert "if " not in out and op in out
    else:
        assert fs[0].fix is None or fs[0].fix.kind != "guard"


COND_SRC = """\
import torch


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x, w):
        h = x * 2
        if x.sum() > 0:
            h = self.proj(h) @ w
        else:
            h = h - 1
        return h


example_args = (torch.randn(3, 4), torch.randn(4, 4))
"""


def test_cond_only_for_torch_export_targets():
    fs = [f for f in lint_source(COND_SRC, "m.py", Config(target_exporters=EXPORT_ONLY)) if f.code == "EXL101"]
    assert fs[0].fix.kind == "cond" and "torch.cond(x.sum() > 0" in fs[0].fix.replacement
    assert "def _forward_1_true(h, w, self=self):" in fs[0].fix.replacement
    # with onnx-legacy among the targets: torch.where, saying the shapes are not proven
    fs = [f for f in lint_source(COND_SRC, "m.py", Config()) if f.code == "EXL101"]
    assert fs[0].fix.kind == "where" and "cannot tell that their shapes match" in fs[0].fix.description


def test_item_rewrite_needs_only_branch_uses():
    src = textwrap.dedent("""\
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                s = x.abs().max().item()
                n = [s]
                return x / s
    """)
    fs = [f for f in lint_source(src, "m.py", Config()) if f.code == "EXL102"]
    assert fs and fs[0].fix is None  # `s` also goes into a list: keep it
    out = fixed(src.replace("        n = [s]\n", ""))
    assert "s = x.abs().max()\n" in out


# ----------------------------------------------------------------------------- CLI and files
def _project(tmp_path: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


GUARD = b"import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        if (x > 10).any():  # cap\n            x = x.clamp(max=10)\n        return x\n"


def test_diff_writes_nothing_and_exits_1(tmp_path):
    p = _project(tmp_path, {"m.py": GUARD})
    before = (p / "m.py").stat().st_mtime_ns, (p / "m.py").read_bytes()
    r = run_cli("m.py", "--diff", cwd=p)
    assert r.returncode == 1, r.stderr
    assert "--- a/m.py" in r.stdout and "+        x = x.clamp(max=10)" in r.stdout
    assert ((p / "m.py").stat().st_mtime_ns, (p / "m.py").read_bytes()) == before
    assert not [f for f in os.listdir(p) if f.startswith(".exportlint-")]


def test_fix_is_idempotent_and_show_fixes(tmp_path):
    p = _project(tmp_path, {"m.py": GUARD})
    r = run_cli("m.py", "--fix", "--show-fixes", cwd=p)
    assert "Fixed 1 error" in r.stdout and "EXL101" in r.stdout, r.stdout
    after = (p / "m.py").read_bytes()
    assert b"if (x > 10)" not in after and b"# cap\n        x = x.clamp(max=10)\n" in after
    r2 = run_cli("m.py", "--fix", cwd=p)
    assert (p / "m.py").read_bytes() == after
    assert run_cli("m.py", "--diff", cwd=p).returncode == 0
    assert r2.returncode == 0


def test_crlf_bom_and_encoding_are_kept(tmp_path):
    crlf = GUARD.replace(b"\n", b"\r\n")
    latin = b"# -*- coding: latin-1 -*-\n" + GUARD.replace(b"# cap", "# caf\xe9".encode("latin-1"))
    bom = b"\xef\xbb\xbf" + GUARD
    p = _project(tmp_path, {"crlf.py": crlf, "latin.py": latin, "bom.py": bom})
    os.chmod(p / "crlf.py", 0o640)
    r = run_cli(".", "--fix", cwd=p)
    assert r.returncode == 0, r.stdout + r.stderr
    c = (p / "crlf.py").read_bytes()
    assert b"if (x > 10)" not in c and b"\r\n" in c and c.count(b"\n") == c.count(b"\r\n")
    assert (os.stat(p / "crlf.py").st_mode & 0o777) == 0o640
    lat = (p / "latin.py").read_bytes()
    assert "# caf\xe9".encode("latin-1") in lat and b"if (x > 10)" not in lat
    assert read_source(str(p / "latin.py")).encoding == "iso-8859-1"
    b = (p / "bom.py").read_bytes()
    assert b.startswith(b"\xef\xbb\xbf") and b"if (x > 10)" not in b


def test_unsafe_fixes_flag(tmp_path):
    src = b"import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        if x.sum() > 0:\n            x = x * 2\n        return x\n"
    p = _project(tmp_path, {"m.py": src})
    r = run_cli("m.py", "--fix", cwd=p)
    assert (p / "m.py").read_bytes() == src and r.returncode == 1
    assert "more with `--unsafe-fixes`" in r.stdout
    r = run_cli("m.py", "--fix", "--unsafe-fixes", "--show-fixes", cwd=p)
    assert b"x = torch.where(x.sum() > 0, x * 2, x)" in (p / "m.py").read_bytes()
    assert "torch.where (evaluates both sides), unsafe" in r.stdout


def test_never_writes_code_that_does_not_parse():
    from exportlint.findings import Finding, Fix, Severity

    text = "x = 1\ny = 2\n"
    broken = Finding("EXL101", Severity.ERROR, "m.py", 1, 1, 1, 6, "m", fix=Fix("x = (", FixSafety.SAFE))
    good = Finding("EXL101", Severity.ERROR, "m.py", 2, 1, 2, 6, "m", fix=Fix("y = 3", FixSafety.SAFE))
    out = fix_text(text, lambda t: [broken, good] if t == text else [], SAFE_ONLY)
    assert out.text == "x = 1\ny = 3\n" and out.rejected and out.rejected[0][0] is broken


def test_editor_uses_the_same_edits():
    from exportlint.fixes import apply
    from exportlint.lsp import edits

    for name in ("Edit", "apply_edits", "fix_edit", "select_fix_all", "parses"):
        assert getattr(edits, name) is getattr(apply, name)


def test_examples_fixed_end_to_end(tmp_path):
    dst = tmp_path / "examples"
    shutil.copytree(EXAMPLES, dst)
    before = {p.name: p.read_text() for p in dst.glob("*.py")}
    r = run_cli(".", "--fix", "--unsafe-fixes", "--show-fixes", cwd=dst)
    assert "Fixed" in r.stdout, r.stdout + r.stderr
    for p in dst.glob("*.py"):
        assert parses(p.read_text()), p
    tagger = (dst / "ctc_tagger.py").read_text()
    assert "return torch.where(keep.sum() == 0, tokens, torch.where(keep, tokens" in tagger
    assert "if keep.sum() == 0" not in tagger
    # the detector's early return is followed by more code: left alone, and the message says why
    assert "if best.max() < self.score_thresh:" in (dst / "detector.py").read_text()
    r = run_cli(".", "--format", "json", cwd=dst)
    import json

    left = json.loads(r.stdout)
    det = [f for f in left if f["code"] == "EXL101" and f["path"].endswith("detector.py")]
    assert det and "No automatic rewrite" in det[0]["message"]
    assert not [f for f in left if f["code"] == "EXL101" and f["path"].endswith("ctc_tagger.py")]
    # a second run changes nothing
    assert run_cli(".", "--diff", "--unsafe-fixes", cwd=dst).returncode == 0
    assert any(before[p.name] != p.read_text() for p in dst.glob("*.py"))


# ----------------------------------------------------------------------------- real exporters
def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


CASES = {
    "if-else": ("""
        import torch

        class Model(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    y = x * 2
                    z = x + 1
                else:
                    y = x - 1
                    z = x
                return y * z
        """, "where", lambda x: x.sum() > 0),
    "one-sided-item": ("""
        import torch

        class Model(torch.nn.Module):
            def forward(self, x):
                if x.mean().item() > 0.0:
                    x = torch.sigmoid(x) * 3
                return x
        """, "where", lambda x: x.mean() > 0),
    "ifexp": ("""
        import torch

        class Model(torch.nn.Module):
            def forward(self, x):
                return x * 2 if x.max() > 1.5 else x - 1
        """, "where", lambda x: x.max() > 1.5),
    "early-return-tuple": ("""
        import torch

        class Model(torch.nn.Module):
            def forward(self, x):
                if x.sum() < 0:
                    return -x, x
                return x, x * 2
        """, "where", lambda x: x.sum() < 0),
    "guard-clamp": ("""
        import torch

        class Model(torch.nn.Module):
            def forward(self, x):
                if (x > 0.5).any():
                    x = x.clamp(max=0.5)
                return x * 2
        """, "guard", lambda x: (x > 0.5).any()),
    "guard-nan": ("""
        import torch

        class Model(torch.nn.Module):
            def forward(self, x):
                if not torch.isfinite(x).all():
                    x = torch.nan_to_num(x)
                return x + 1
        """, "guard", lambda x: not bool(torch.isfinite(x).all())),
    "item-then-where": ("""
        import torch

        class Model(torch.nn.Module):
            def forward(self, x):
                big = x.abs().max().item() > 1.0
                if big:
                    x = x / 4
                return x
        """, "item", lambda x: x.abs().max() > 1.0),
}


def _inputs():
    import torch

    torch.manual_seed(0)
    base = torch.randn(2, 3)
    return [base, -base, base.abs() + 2, -(base.abs() + 2), base * 0.01,
            torch.where(torch.arange(6).reshape(2, 3) == 0, float("nan"), base)]


def _check_exports(orig_model, new_model, inputs, exporters, tmp_path):
    import torch

    from exportlint.confirm.worker import compare, export_with, output_leaves

    spec = {"args": (inputs[0],), "kwargs": {}, "dynamic_shapes": None}
    for exporter in exporters:
        ex = export_with(exporter, new_model, spec, None, str(tmp_path))
        for x in inputs:
            with torch.no_grad():
                ref = output_leaves(orig_model(x.clone()))
            got = ex.run((x.clone(),), {})
            c = compare(ref, got, 1e-4, 1e-5)
            assert c["ok"], f"{exporter}: {c['message']} on {x}"


@needs_torch
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_rewrite_exports_and_matches_original(name, tmp_path):
    import torch

    src, kind, cond = CASES[name]
    src = textwrap.dedent(src)
    fs = [f for f in lint_source(src, "model.py", Config()) if f.fix is not None]
    assert any(f.fix.kind == kind for f in fs), [(f.code, f.fix) for f in fs]
    new = fixed(src)
    assert new != src and "if " not in new.split("def forward")[1]
    (tmp_path / "orig.py").write_text(src)
    (tmp_path / "new.py").write_text(new)
    orig = _load(tmp_path / "orig.py", f"orig_{name.replace('-', '_')}").Model().eval()
    rew = _load(tmp_path / "new.py", f"new_{name.replace('-', '_')}").Model().eval()
    inputs = _inputs()
    assert {bool(cond(x)) for x in inputs} == {True, False}, "the inputs must take both ways"
    _check_exports(orig, rew, inputs, ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"), tmp_path)
    # the original does not export (it is what the rule reports)
    with pytest.raises(Exception):  # noqa: B017
        torch.export.export(orig, (inputs[0],))


@needs_torch
@pytest.mark.slow
def test_cond_rewrite_exports_with_torch_export_and_dynamo(tmp_path):
    import torch

    new = fixed(COND_SRC, config=Config(target_exporters=EXPORT_ONLY))
    assert "torch.cond(" in new
    (tmp_path / "corig.py").write_text(COND_SRC)
    (tmp_path / "cnew.py").write_text(new)
    mo, mn = _load(tmp_path / "corig.py", "corig"), _load(tmp_path / "cnew.py", "cnew")
    torch.manual_seed(0)
    orig = mo.Gate().eval()
    rew = mn.Gate().eval()
    rew.load_state_dict(orig.state_dict())
    x, w = mo.example_args
    from exportlint.confirm.worker import compare, export_with, output_leaves

    spec = {"args": (x, w), "kwargs": {}, "dynamic_shapes": None}
    inputs = [(x, w), (-x, w), (x.abs(), w), (-x.abs(), w)]
    assert {bool(a.sum() > 0) for a, _ in inputs} == {True, False}
    for exporter in EXPORT_ONLY:
        ex = export_with(exporter, rew, spec, None, str(tmp_path))
        for a in inputs:
            with torch.no_grad():
                ref = output_leaves(orig(*a))
            assert compare(ref, ex.run(a, {}), 1e-4, 1e-5)["ok"], exporter
    # measured: torch.cond does not go through the TorchScript exporter
    with pytest.raises(Exception, match="dynamo-optimized"):
        export_with("onnx-legacy", rew, spec, None, str(tmp_path))


@needs_torch
@pytest.mark.slow
def test_confirm_verifies_and_drops_rewrites(tmp_path):
    (tmp_path / "model.py").write_text(textwrap.dedent("""\
        import torch


        class Model(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    y = x * 2
                else:
                    y = x - 1
                if x.mean() > 0.3:
                    s = x.sum(dim=1, keepdim=True)
                else:
                    s = x
                return y, s


        example_args = (torch.randn(2, 3),)
    """))
    r = run_cli("model.py", "--confirm", "--fix", "--exporter", "export-nonstrict", "--exporter", "onnx-dynamo",
                "--format", "json", cwd=tmp_path)
    new = (tmp_path / "model.py").read_text()
    # the where that broadcasts (2, 1) against (2, 3) changes the output: dropped and reported
    assert "if x.mean() > 0.3:" in new
    assert "rewrite dropped at model.py:10" in r.stderr and "shape (2, 3), eager (2, 1)" in r.stderr
    # the other one matches eager on both branches, but the model still fails to export at the
    # branch left in place: not verified, not applied, not dropped
    assert "if x.sum() > 0:" in new
    assert "rewrite not verified (kept unsafe) at model.py:6" in r.stderr and "outside the rewritten code" in r.stderr
    # --unsafe-fixes applies the unverified one, never the dropped one
    r = run_cli("model.py", "--confirm", "--diff", "--unsafe-fixes", "--exporter", "export-nonstrict", cwd=tmp_path)
    assert "+        y = torch.where(x.sum() > 0, x * 2, x - 1)" in r.stdout, r.stdout + r.stderr
    assert "s = torch.where" not in r.stdout and "rewrite dropped at model.py:10" in r.stderr
    # once the bad branch is gone, the same rewrite verifies and plain --fix applies it
    (tmp_path / "model.py").write_text(new.replace(
        "        if x.mean() > 0.3:\n            s = x.sum(dim=1, keepdim=True)\n        else:\n            s = x\n",
        "        s = x.sum(dim=1, keepdim=True)\n"))
    r = run_cli("model.py", "--confirm", "--fix", "--exporter", "export-nonstrict", "--exporter", "onnx-dynamo",
                cwd=tmp_path)
    new = (tmp_path / "model.py").read_text()
    assert "y = torch.where(x.sum() > 0, x * 2, x - 1)" in new, r.stderr
    assert "rewrite verified at model.py:6" in r.stderr and "branches covered: true, false" in r.stderr
    assert "exported with export-nonstrict, onnx-dynamo; max abs diff" in r.stderr


def test_stdin_fix_prints_the_fixed_source(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "exportlint", "-", "--fix", "--no-cache"], input=GUARD.decode(),
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "x = x.clamp(max=10)" in r.stdout and "if (x > 10)" not in r.stdout
    r = subprocess.run([sys.executable, "-m", "exportlint", "-", "--diff", "--no-cache"], input=GUARD.decode(),
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "-        if (x > 10).any():  # cap" in r.stdout


@needs_torch
@pytest.mark.slow
def test_fixed_example_matches_original_eager(tmp_path):
    """examples/ctc_tagger.py fixed with --unsafe-fixes computes what the original computes, on
    inputs taking both ways of its early return (it still does not export: numpy inside an
    autograd.Function and a data-dependent loop, which have no rewrite)."""
    import torch

    dst = tmp_path / "ex"
    shutil.copytree(EXAMPLES, dst)
    run_cli("ctc_tagger.py", "--fix", "--unsafe-fixes", cwd=dst)
    orig = _load(EXAMPLES / "ctc_tagger.py", "ctc_orig")
    new = _load(dst / "ctc_tagger.py", "ctc_new")
    assert "if keep.sum() == 0" not in (dst / "ctc_tagger.py").read_text()
    torch.manual_seed(0)
    a = orig.CTCTagger(n_mels=8, hidden=8, vocab=5).eval()
    b = new.CTCTagger(n_mels=8, hidden=8, vocab=5).eval()
    b.load_state_dict(a.state_dict())
    feats = torch.rand(2, 6, 8) + 0.1
    lengths = torch.tensor([6, 4])
    src_lines = (EXAMPLES / "ctc_tagger.py").read_text().splitlines()
    early = src_lines.index("            return tokens") + 1  # the early return's line in the original
    taken = []
    for bias in (None, 2):  # a large bias on one class: every frame the same token, keep.sum() == 0
        for m in (a, b):
            if bias is not None:
                with torch.no_grad():
                    m.proj.bias[bias] = 100.0
        seen: set[int] = set()

        def tracer(frame, event, arg):
            if frame.f_code.co_filename == orig.__file__:
                seen.add(frame.f_lineno)
                return tracer
            return None
        sys.settrace(tracer)
        try:
            with torch.no_grad():
                ra = a(feats, lengths)
        finally:
            sys.settrace(None)
        with torch.no_grad():
            rb = b(feats, lengths)
        assert torch.equal(ra, rb)
        taken.append(early in seen)
    assert taken == [False, True], "the inputs must take both ways of the early return"


@needs_torch
@pytest.mark.slow
def test_confirm_verifies_a_cond_rewrite(tmp_path):
    (tmp_path / "gate.py").write_text(COND_SRC)
    r = run_cli("gate.py", "--confirm", "--fix", "--target-exporters", "export-strict,export-nonstrict,onnx-dynamo",
                cwd=tmp_path)
    assert "torch.cond(x.sum() > 0, _forward_1_true, _forward_1_false, (h, w))" in (tmp_path / "gate.py").read_text()
    assert "rewrite verified at gate.py:11" in r.stderr and "torch.cond" in r.stderr
    assert "exported with export-strict, export-nonstrict, onnx-dynamo" in r.stderr
