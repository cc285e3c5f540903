"""The per-statement parse cache (exportlint/parsecache.py) and the light libcst import
(exportlint/lightcst.py): the trees they give are libcst's own, and so are the findings.
Timings are not asserted here (bench/edit_latency.py and bench/speed.py --one-file print them)."""

from __future__ import annotations

import glob
import json
import os
import pickle
import random
import site
import subprocess
import sys
from pathlib import Path

import libcst
import pytest

from exportlint import parsecache as pc
from exportlint.engine import parse_module

HERE = Path(__file__).parent
ROOT = HERE.parent


def _real_files() -> list[Path]:
    sp = site.getsitepackages()[0]
    files = sorted(glob.glob(os.path.join(sp, "transformers/models/*/modeling_*.py")))[::25]
    files += sorted(glob.glob(os.path.join(sp, "torchvision/models/**/*.py"), recursive=True))[::6]
    files += sorted(glob.glob(os.path.join(sp, "timm/models/*.py")))[::20]
    # torch's own modules: installed wherever these tests run (CI has no timm/transformers/torchvision)
    files += sorted(glob.glob(os.path.join(sp, "torch/nn/modules/*.py")))[::3]
    files += sorted(glob.glob(os.path.join(sp, "torch/_export/db/examples/*.py")))[::6]
    files = [Path(f) for f in files]
    files += sorted((ROOT / "examples").glob("*.py")) + sorted((HERE / "fixtures").rglob("*.py"))[::3]
    return files


def _compiles(text: str) -> bool:
    try:
        compile(text, "<t>", "exec", 0x400, dont_inherit=True)
        return True
    except (SyntaxError, ValueError):
        return False


def _via_cache(text: str, folder: str, path: str = "/x/m.py") -> libcst.Module:
    starts = pc.starts_of(compile(text, path, "exec", 0x400, dont_inherit=True))
    m = pc.parse(text, path, folder, starts, parse_module)
    pc.flush(detach=False)
    return m


def _same(m: libcst.Module, text: str) -> None:
    full = libcst.parse_module(text)
    assert m.code == full.code  # (== text, but for libcst's own exceptions: a file of "\r" line ends)
    assert m.deep_equals(full)
    for a in ("default_indent", "default_newline", "has_trailing_newline", "encoding"):
        assert getattr(m, a) == getattr(full, a), a


def _chunked(text: str) -> libcst.Module:
    p = pc.plan(text, pc.starts_of(compile(text, "<t>", "exec", 0x400, dont_inherit=True)))
    assert p is not None
    last = len(p.texts) - 1
    vals = [pc._parse_chunk(i, last, t, parse_module) for i, t in enumerate(p.texts)]
    assert all(v is not None for v in vals)
    return pc.assemble(p, vals)


def test_assembled_module_is_libcsts_on_real_files():
    files = _real_files()
    n = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        if not _compiles(text) or not compile(text, "<t>", "exec", 0x400).body:
            continue
        _same(_chunked(text), text)
        n += 1
    assert n >= 20


EDGE = {
    "crlf": "import os\r\n\r\n# c\r\ndef f(x):\r\n    return x\r\n\r\nclass A:\r\n    pass\r\n",
    "cr_only": "import os\r# c\rdef f(x):\r    return x\rx = 1\r",
    "mixed_newlines": "'''doc\r\nstring'''\nimport os\r\ndef f():\n    return 1\r\n",
    "tabs": "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n\nclass A:\n\tdef g(self):\n\t\tpass\n",
    "two_space": "import os\nx = 1\ndef f():\n  return 1\nclass A:\n    def g(self):\n        pass\n",
    "no_trailing_newline": "import os\ndef f():\n    return 1\nx = 2",
    "trailing_comment_indented": "def f():\n    x = 1\n    # inside\n\n# outside\n  # odd\nx = 2\n    # end indented\n# end\n",
    "comments_between": "# header\n\n# more header\nimport os\n\n\n# about f\n@dec\n# between\n@dec2(1)\ndef f():\n    pass\n# after f\n\n\nclass A:  # trailing\n    '''doc'''\n\n    x = 1\n",
    "semicolons": "x = 1; y = 2\nif x: pass\nelse: y = 3\nfor i in (1,\n  2): pass\n",
    "continuation": "x = 1 + \\\n    2\ny = [\n  1,\n]\ndef f(): return \\\n  3\n",
    "only_header_then_code": "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\n\n\"\"\"Doc.\"\"\"\nimport x\n",
    "blank_start": "\n\n\nimport os\n\n\n",
    "footer_only_blank": "x = 1\n\n\n\n",
    "decorated_class": "@dataclass\nclass A:\n    x: int = 1\n\n@overload\ndef f(): ...\n",
    "try_except": "try:\n    import a\nexcept ImportError:  # c\n    a = None\nfinally:\n    pass\nwhile 1:\n    break\nelse:\n    pass\n",
    "async": "async def f():\n    async with a as b:\n        await b\n\nasync def g():\n    async for x in y:\n        pass\n",
    "match": "match x:\n    case 1:\n        pass\n    case _:\n        pass\ny = 1\n",
    "formfeed": "import os\n\x0c\ndef f():\n    return 1\n\x0c\nx = 1\n",
    "identical_chunks": "x = 1\nx = 1\ndef f():\n    return 1\ndef f():\n    return 1\n",
    "deep_indent_first": "if a:\n        if b:\n            pass\ndef f():\n    return 1\n",
    "footer_comment_no_newline": "x = 1\n\n# the end",
    "one_liners": "class A: pass\ndef f(): return 1\nif x: y = 1\n",
    "comment_at_block_indent_then_dedent": "def f():\n    if x:\n        pass\n        # deep\n    # mid\n# top\ny = 2\n",
    "form_in_gap_indented": "class A:\n    def f(self):\n        pass\n\n    # a comment at method level\n\n\nclass B:\n    pass\n",
}


@pytest.mark.parametrize("name", sorted(EDGE))
def test_edge_cases(name, tmp_path):
    text = EDGE[name]
    assert _compiles(text), name
    _same(_chunked(text), text)
    # and through the cache: first run (stores), then an unchanged run (all reused)
    folder = str(tmp_path / "p")
    _same(_via_cache(text, folder), text)
    before = dict(pc.STATS)
    _same(_via_cache(text, folder), text)
    assert pc.STATS["whole"] == before["whole"] or len(pc.plan(text, pc.starts_of(
        compile(text, "<t>", "exec", 0x400))).texts) < 2


def _edits(text: str, rnd: random.Random) -> list[str]:
    """Edits as a person makes them: a line changed inside a function, a statement inserted or
    deleted at the top level, a decorator or a comment added, the header or the footer changed."""
    lines = text.splitlines(True)
    out = []
    import ast

    tree = ast.parse(text)
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.body]
    if funcs:
        fn = rnd.choice(funcs)
        st = fn.body[-1]
        ind = " " * st.col_offset
        out.append("".join(lines[: st.lineno - 1] + [f"{ind}_e = {rnd.randrange(1000)}\n"] + lines[st.lineno - 1:]))
        # a decorator added
        at = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
        dind = " " * fn.col_offset
        out.append("".join(lines[: at - 1] + [f"{dind}@some.decorator({rnd.randrange(9)})\n"] + lines[at - 1:]))
    top = tree.body
    if len(top) > 2:
        k = rnd.randrange(1, len(top))
        s = top[k]
        a = min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", ())])
        out.append("".join(lines[: a - 1] + lines[s.end_lineno:]))  # a top-level statement deleted
        out.append("".join(lines[: a - 1] + [f"INSERTED_{rnd.randrange(99)} = ({rnd.randrange(9)},\n    2)\n"]
                           + lines[a - 1:]))
        out.append("".join(lines[: a - 1] + ["# a comment between statements\n", "\n"] + lines[a - 1:]))
        # a statement duplicated (two identical chunks)
        out.append("".join(lines[: s.end_lineno] + lines[a - 1: s.end_lineno] + lines[s.end_lineno:]))
    out.append("# new header comment\n" + text)
    out.append(text + "\n# new footer comment\n")
    out.append(text.rstrip("\n"))  # the trailing newline removed
    if "\n" in text:
        out.append(text.replace("\n", "\r\n"))  # the whole file's newlines changed
    return [t for t in out if _compiles(t)]


def test_edits_reuse_chunks_and_equal_a_fresh_parse(tmp_path):
    rnd = random.Random(13)
    files = _real_files()
    files = [f for f in files if 3000 < f.stat().st_size < 40000][:6]  # (a fresh parse and a code
    assert len(files) >= 5                                               # generation per edit: slow)
    n_reused = 0
    n_edits = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        if not _compiles(text):
            continue
        folder = str(tmp_path / f"p-{f.stem}")
        prev = text
        _same(_via_cache(text, folder, str(f)), text)
        for new in _edits(text, rnd):
            before = pc.STATS["reused"]
            _same(_via_cache(new, folder, str(f)), new)
            n_reused += pc.STATS["reused"] - before
            n_edits += 1
            prev = new
        del prev
    assert n_edits >= 30
    assert n_reused > 0  # statements were taken from the cache, not parsed again


def test_corrupt_or_foreign_cache_entries_fall_back_to_a_full_parse(tmp_path):
    text = (ROOT / "examples").glob("*.py").__next__().read_text(encoding="utf-8")
    folder = str(tmp_path / "p")
    path = "/x/m.py"
    _same(_via_cache(text, folder, path), text)
    file = pc._file_of(folder, path)
    assert os.path.exists(file)
    good = open(file, "rb").read()
    edited = text + "\nZ = 1\n"
    for bad in (b"", b"garbage", good[: len(good) // 2], pickle.dumps({"format": pc.FORMAT, "chunks": 1}),
                pickle.dumps({"format": pc.FORMAT + 1, "chunks": {}}),
                pickle.dumps({"format": pc.FORMAT, "libcst": "0.0.1", "chunks": {}}),
                pickle.dumps([1, 2, 3])):
        with open(file, "wb") as fh:
            fh.write(bad)
        _same(_via_cache(edited, folder, path), edited)
    # entries of the right keys with wrong values: not used
    data = pickle.loads(good)
    data["chunks"] = {k: ("not", "a", "chunk") for k in data["chunks"]}
    with open(file, "wb") as fh:
        pickle.dump(data, fh)
    _same(_via_cache(edited, folder, path), edited)
    # a file others may write is not read
    _same(_via_cache(text, folder, path), text)
    os.chmod(file, 0o666)
    before = pc.STATS["whole"]
    _same(_via_cache(text, folder, path), text)
    assert pc.STATS["whole"] == before + 1


def test_the_folder_keeps_the_latest_files(tmp_path, monkeypatch):
    monkeypatch.setattr(pc, "MAX_STORED", 3)
    folder = str(tmp_path / "p")
    text = "import os\n\ndef f():\n    return 1\n"
    import time

    for i in range(6):
        _via_cache(text, folder, f"/x/m{i}.py")
        _via_cache(text + f"X = {i}\n", folder, f"/x/m{i}.py")  # (chunks stored: a write)
        time.sleep(0.02)
    left = sorted(os.listdir(folder))
    assert len(left) == 3
    assert pc._file_of(folder, "/x/m5.py").rsplit("/", 1)[-1] in left


def test_findings_identical_with_the_parse_cache(tmp_path):
    """The command line on a package whose model file is edited between runs: the findings of
    each run with the cache (parse cache in use) are those of a --no-cache run."""
    src = HERE / "fixtures" / "project"
    files = sorted(src.rglob("*.py"))
    assert files
    import shutil

    dst = tmp_path / "project"
    shutil.copytree(src, dst)
    cfg = tmp_path / "exportlint.toml"
    cfg.write_text(f'cache-dir = "{(tmp_path / "cache").as_posix()}"\n')
    targets = [p for p in sorted(dst.rglob("*.py")) if "def forward" in p.read_text(encoding="utf-8")][:3]
    assert targets
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def run(target: Path, cache: bool) -> list:
        cmd = [sys.executable, "-m", "exportlint", "--format", "json", "--config", str(cfg), str(target)]
        r = subprocess.run(cmd + ([] if cache else ["--no-cache"]), capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=120)
        assert r.returncode in (0, 1), r.stderr
        return json.loads(r.stdout)

    import time

    rnd = random.Random(5)
    for t in targets:
        text = t.read_text(encoding="utf-8")
        assert run(t, True) == run(t, False)
        for new in _edits(text, rnd)[:4]:
            t.write_text(new, encoding="utf-8")
            for _ in range(50):  # the detached writer of the run before
                if not list((tmp_path / "cache").glob("parse-v*/*.tmp")):
                    break
                time.sleep(0.1)
            time.sleep(0.3)
            assert run(t, True) == run(t, False), new
        t.write_text(text, encoding="utf-8")
    assert list((tmp_path / "cache").glob("parse-v*/*.pkl"))  # the parse cache was written


_LIGHT_PROBE = """
import sys
from exportlint import lightcst
lightcst.install()
print("STATE", lightcst.STATE[0])
import libcst
from exportlint.engine import parse_module
heavy = ("libcst.metadata", "libcst.helpers", "libcst._parser.entrypoints")
text = open(sys.argv[1], encoding="utf-8").read()
m = parse_module(text)
print("HEAVY_AFTER_PARSE", sorted(k for k in sys.modules if k.startswith(heavy)))
full = libcst.parse_module(text)  # a deferred name: the rest loads now
print("EQUAL", m.deep_equals(full), m.code == text, m.encoding == full.encoding)
print("LOADED", "libcst.metadata" in sys.modules, hasattr(libcst, "ensure_type"), hasattr(libcst, "MetadataWrapper"))
from libcst import *  # noqa
print("STAR", "MetadataWrapper" in dir())
print("EXPR", lightcst.parse_expression("a.b[c] + f(*x, k=1)").deep_equals(libcst.parse_expression("a.b[c] + f(*x, k=1)")))
try:
    parse_module("def f(:\\n")
except libcst.ParserSyntaxError:
    print("SYNTAX_ERROR_TYPE ok")
"""


def test_light_libcst_import_defers_the_heavy_parts_and_parses_the_same():
    f = next(iter(_real_files()))
    r = subprocess.run([sys.executable, "-c", _LIGHT_PROBE, str(f)], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "STATE light" in out
    assert "HEAVY_AFTER_PARSE []" in out
    assert "EQUAL True True True" in out
    assert "LOADED True True True" in out
    assert "STAR True" in out
    assert "EXPR True" in out
    assert "SYNTAX_ERROR_TYPE ok" in out


_FALLBACK_PROBE = """
import sys, importlib.util
from exportlint import lightcst
spec = importlib.util.find_spec("libcst")
real_find = importlib.util.find_spec
class Odd:  # an __init__.py with a statement this does not expect
    pass
import ast
orig_parse = ast.parse
def parse(src, *a, **k):
    t = orig_parse(src, *a, **k)
    if a and a[0] == spec.origin:
        t.body.insert(0, orig_parse("def weird(): pass").body[0])
    return t
ast.parse = parse
ok = lightcst.install()
ast.parse = orig_parse
import libcst
print("FALLBACK", ok, lightcst.STATE[0], "libcst.metadata" in sys.modules, libcst.parse_module("x = 1\\n").code)
"""


def test_light_libcst_falls_back_to_the_plain_import():
    r = subprocess.run([sys.executable, "-c", _FALLBACK_PROBE], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "FALLBACK False plain True x = 1" in r.stdout


def test_light_libcst_is_a_no_op_when_libcst_is_loaded():
    from exportlint import lightcst

    assert "libcst" in sys.modules
    assert lightcst.install() is False and lightcst.STATE[0] == "loaded"


_CODE_PROBE = """
import sys, dataclasses, os
from exportlint import lightcst
lightcst._code_file = lambda: sys.argv[1]
with lightcst.dataclass_code_cache():
    @dataclasses.dataclass(frozen=True)
    class P:
        x: int
        y: str = "a"
    @dataclasses.dataclass(order=True)
    class Q:
        a: float
print("PATCH_GONE", "exec" not in vars(dataclasses))
p = P(1)
print("P", p, p == P(1, "a"), hash(p) == hash(P(1)), Q(1.0) < Q(2.0))
try:
    p.x = 2
except dataclasses.FrozenInstanceError:
    print("FROZEN ok")
print("FILE", os.path.exists(sys.argv[1]))
"""


def test_dataclass_code_cache_gives_the_same_classes(tmp_path):
    """The compiled dataclass methods (lightcst.dataclass_code_cache): a first process writes
    them, a second runs them; the classes behave the same either way; a corrupt file is
    ignored. And the command line's findings are those of a plain libcst import."""
    file = str(tmp_path / "codes.marshal")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="")
    outs = []
    for content in (None, "keep", b"\x00garbage", "keep"):
        if isinstance(content, bytes):
            Path(file).write_bytes(content)
        r = subprocess.run([sys.executable, "-c", _CODE_PROBE, file], capture_output=True, text=True, env=env,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert all(o == outs[0] for o in outs), outs
    assert "PATCH_GONE True" in outs[0] and "P P(x=1, y='a') True True True" in outs[0] and "FROZEN ok" in outs[0]
    assert "FILE True" in outs[0]
    # not written where bytecode is not written
    os.unlink(file)
    r = subprocess.run([sys.executable, "-c", _CODE_PROBE, file], capture_output=True, text=True,
                       env=dict(env, PYTHONDONTWRITEBYTECODE="1"), timeout=120)
    assert "FILE False" in r.stdout, r.stderr


def test_command_line_findings_with_the_light_import_are_the_plain_ones(tmp_path):
    """The command line (light libcst, compiled dataclass methods) against the library API in
    this process (plain libcst): the same findings on the examples."""
    from exportlint.config import Config
    from exportlint.engine import lint_paths

    files = [str(p) for p in sorted((ROOT / "examples").glob("*.py"))]
    want = sorted(json.dumps(f.to_dict(), sort_keys=True)
                  for f in lint_paths(files, Config(), use_cache=False, isolate=False).findings)
    assert want
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="")
    for _ in range(2):  # the first run may write the compiled methods, the second reads them
        r = subprocess.run([sys.executable, "-m", "exportlint", "--no-cache", "--format", "json", *files],
                           capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
        assert r.returncode == 1, r.stderr
        got = sorted(json.dumps(d, sort_keys=True) for d in json.loads(r.stdout))
        assert got == want


def test_reduced_texts_assemble_like_libcst():
    """What the engine parses is often the reduced text (semantics/reduce.py: unreached
    bodies blanked, lines kept), cut at the original text's statements: the assembled module
    is libcst's parse of that reduced text."""
    from exportlint.engine import _reduced
    from exportlint.semantics.project import Project

    n = 0
    for f in _real_files():
        text = f.read_text(encoding="utf-8")
        if not _compiles(text) or "def forward" not in text:
            continue
        tree = compile(text, str(f), "exec", 0x400, dont_inherit=True)
        if not tree.body:
            continue
        ptext, _ = _reduced(text, str(f), (), Project([str(f)]), tree)
        if ptext == text:
            continue
        p = pc.plan(ptext, pc.starts_of_text(ptext, str(f)))
        assert p is not None, f
        last = len(p.texts) - 1
        vals = [pc._parse_chunk(i, last, t, parse_module) for i, t in enumerate(p.texts)]
        assert all(v is not None for v in vals), f
        _same(pc.assemble(p, vals), ptext)
        n += 1
    assert n >= 5
