"""A parse cache per top-level statement: an edited file re-parses only what changed.

The editor / pre-commit case (issue 13): one file changed since the last run, a few of its
statements did. The text is cut into chunks at the first line of its top-level statements
(decorators included; the lines come from the stdlib ``ast`` tree the syntax check built);
each chunk is parsed by libcst alone, as ``PREFIX + chunk + SENTINEL``:

- ``PREFIX`` (``if 1:`` + the file's default indentation + ``pass`` + its default newline)
  makes libcst detect the file's own default indentation and newline in every chunk, so the
  nodes (``IndentedBlock.indent``, ``Newline.value``) are what a parse of the whole file
  gives;
- ``SENTINEL`` (``pass`` at column 0, absent after the last chunk) stands for the next
  top-level statement: the blank and comment lines after the chunk's statements are split
  between a block's footer and the next statement's ``leading_lines`` as in the whole file.

The module is then assembled: the header chunk (the lines before the first statement) gives
``Module.header`` and the first statement's leading lines; each chunk's statements follow,
the first of them with the lines its previous chunk's sentinel took; the last chunk's
footer is the module's. ``tests/test_parsecache.py`` checks that the result
``deep_equals`` ``libcst.parse_module`` on real files and on edits.

Chunks are keyed by a hash of the text parsed (prefix and sentinel included) and their
occurrence in the file (two identical chunks get their own nodes: the engine maps nodes by
``id``). The parsed chunks of a file's last version are pickled in the cache folder
(``parse-v<version>-<code>/<hash of the path>.pkl``, with the libcst version inside); a run reads that file, parses the
chunks that are not in it, and leaves the writing of the new version to a detached
grandchild process (``flush``), so the caller does not wait for the pickling. With no
stored chunks at all the file is parsed whole as usual and the grandchild does the chunked
parse. Pickles are read only from that folder (exportlint's own); anything unexpected in
one (corrupt, another libcst, another layout) means a whole-file parse, never an error.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from typing import Any, Callable, Optional

#: the layout of the pickled entries; part of every key and of the folder's file format
FORMAT = 1
#: runs with more files than this do not use the cache (a big run writes a pickle per file;
#: the parse cache is for the editor and pre-commit calls on a few files)
MAX_FILES = 8
#: at most this fraction of the text may need parsing for the chunked parse to be used: above
#: it the file is parsed whole (one call) and the chunking is left to the background writer
MAX_MISSING = 0.6

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_NEWLINE = re.compile(r"\r\n?|\n")
_BLANK = re.compile(r"[ \t\f]*(?:\r\n|\r|\n)?\Z")

#: (folder, path, {key: value}) writes not done yet (``flush``)
_PENDING: list[tuple[str, str, dict, list]] = []
#: counters of the last ``parse`` calls (tests, ``-v``): reused / parsed chunks
STATS = {"reused": 0, "parsed": 0, "whole": 0}


def _libcst_version() -> str:
    import libcst

    return str(getattr(libcst, "LIBCST_VERSION", "unknown"))


def _file_of(folder: str, path: str) -> str:
    return os.path.join(folder, hashlib.sha1(os.path.abspath(path).encode("utf-8", "surrogatepass")).hexdigest()[:20] + ".pkl")


def starts_of(tree: Any) -> list[int]:
    """First lines (1-based; decorators included) of the top-level statements of an ``ast``
    module."""
    out = []
    for st in tree.body:
        line = st.lineno
        for d in getattr(st, "decorator_list", ()):
            line = min(line, d.lineno)
        out.append(line)
    return out


def starts_of_text(text: str, path: str) -> Optional[list[int]]:
    """``starts_of`` the text's own ``ast`` tree (None when it does not compile)."""
    try:
        return starts_of(compile(text, path, "exec", 0x400, dont_inherit=True))  # ast.PyCF_ONLY_AST
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _defaults(text: str) -> Optional[tuple[str, str]]:
    """(default indentation, default newline) as libcst detects them: the first INDENT
    token's text (``"    "`` when there is none) and the first line break of the text,
    strings included (``"\\n"`` when none). None when the tokenizer refuses the text."""
    import io
    import tokenize

    indent = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.INDENT:
                indent = tok.string
                break
    except (tokenize.TokenError, SyntaxError):
        return None
    m = _NEWLINE.search(text)
    return indent if indent is not None else "    ", m.group() if m is not None else "\n"


def chunks_of(text: str, starts: list[int]) -> Optional[list[str]]:
    """The text cut before each top-level statement: [header, chunk, ...]; chunks that are
    blank (a statement the reduction removed) join the previous one. None when the lines do
    not fit the statements."""
    lines = _LINES.findall(text)
    if not starts or starts[-1] > len(lines) or starts[0] < 1:
        return None
    cuts = sorted(set(starts))
    out = ["".join(lines[: cuts[0] - 1])]
    for a, b in zip(cuts, cuts[1:] + [len(lines) + 1]):
        part = "".join(lines[a - 1: b - 1])
        if len(out) > 1 and all(_BLANK.match(x) for x in lines[a - 1: b - 1]):
            out[-1] += part
        else:
            out.append(part)
    if len(out) < 2:
        return None
    return out


class _Plan:
    __slots__ = ("texts", "keys", "indent", "newline")


def plan(text: str, starts: list[int]) -> Optional[_Plan]:
    """What to parse for each chunk (with prefix and sentinel) and its key."""
    parts = chunks_of(text, starts)
    if parts is None:
        return None
    d = _defaults(text)
    if d is None:
        return None
    indent, nl = d
    prefix = f"if 1:{nl}{indent}pass{nl}"
    sentinel = f"pass{nl}"
    texts = [parts[0] + sentinel]
    last = len(parts) - 1
    for i in range(1, len(parts)):
        texts.append(prefix + parts[i] + (sentinel if i < last else ""))
    seen: dict[str, int] = {}
    keys = []
    for i, t in enumerate(texts):
        h = hashlib.sha1(f"{FORMAT}:{'H' if i == 0 else ('L' if i == last else 'S')}:".encode()
                         + t.encode("utf-8", "surrogatepass")).hexdigest()
        k = seen.get(h, 0)
        seen[h] = k + 1
        keys.append(f"{h}#{k}")
    p = _Plan()
    p.texts, p.keys, p.indent, p.newline = texts, keys, indent, nl
    return p


def _parse_chunk(i: int, last: int, text: str, parse: Callable[[str], Any]) -> Optional[tuple]:
    """A chunk's value: (statements, the lines its sentinel took, header, footer,
    has_trailing_newline), checked for the expected shape; None when it is not that."""
    m = parse(text)
    body = list(m.body)
    if i == 0:  # the header: the lines, then the sentinel
        if len(body) != 1 or not _is_sentinel(body[0]):
            return None
        return ((), tuple(body[0].leading_lines), tuple(m.header), (), True)
    if m.header or len(body) < 2 or not _is_prefix(body[0]) or body[1].leading_lines:
        return None
    if i < last:
        if len(body) < 3 or not _is_sentinel(body[-1]) or m.footer:
            return None
        return (tuple(body[1:-1]), tuple(body[-1].leading_lines), (), (), True)
    return (tuple(body[1:]), (), (), tuple(m.footer), bool(m.has_trailing_newline))


def _is_sentinel(st: Any) -> bool:
    import libcst as cst

    return (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 and isinstance(st.body[0], cst.Pass)
            and st.body[0].semicolon is cst.MaybeSentinel.DEFAULT and st.trailing_whitespace.comment is None)


def _is_prefix(st: Any) -> bool:
    import libcst as cst

    return isinstance(st, cst.If) and not st.leading_lines and st.orelse is None


def _valid(v: Any) -> bool:
    import libcst as cst

    return (isinstance(v, tuple) and len(v) == 5 and all(isinstance(x, tuple) for x in v[:4])
            and all(isinstance(s, cst.BaseStatement) for s in v[0])
            and all(isinstance(e, cst.EmptyLine) for e in v[1] + v[2] + v[3]) and isinstance(v[4], bool))


def assemble(p: _Plan, values: list[tuple]) -> Any:
    import libcst as cst

    body: list = []
    tail = values[0][1]
    for v in values[1:]:
        stmts = v[0]
        if stmts:
            first = stmts[0]
            if tail:
                first = first.with_changes(leading_lines=list(tail))
            body.append(first)
            body.extend(stmts[1:])
            tail = v[1]
    last = values[-1]
    return cst.Module(body=body, header=list(values[0][2]), footer=list(last[3]), encoding="utf-8",
                      default_indent=p.indent, default_newline=p.newline, has_trailing_newline=last[4])


def _load(file: str) -> dict:
    import pickle

    try:
        with open(file, "rb") as fh:
            st = os.fstat(fh.fileno())
            # only a file this user wrote and nobody else may change (as written by ``_write``)
            if (hasattr(os, "getuid") and st.st_uid != os.getuid()) or st.st_mode & 0o022:
                return {}
            data = pickle.load(fh)  # noqa: S301 - our own cache folder only (see the module doc)
    except Exception:  # noqa: BLE001 - absent, corrupt, written by another version: nothing
        return {}
    if (not isinstance(data, dict) or data.get("format") != FORMAT or data.get("libcst") != _libcst_version()
            or not isinstance(data.get("chunks"), dict)):
        return {}
    return data["chunks"]


def parse(text: str, path: str, folder: str, starts: Optional[list[int]], parse_text: Callable[[str], Any]) -> Any:
    """The module of ``text`` (as ``parse_text(text)``), reusing the chunks stored for
    ``path``; the new version's chunks are written by ``flush``."""
    p = plan(text, starts) if starts else None
    if p is None:
        STATS["whole"] += 1
        return parse_text(text)
    file = _file_of(folder, path)
    stored = _load(file)
    last = len(p.texts) - 1
    values: list[Optional[tuple]] = []
    missing = 0
    for k in p.keys:
        v = stored.get(k)
        if v is not None and not _valid(v):
            v = None
        values.append(v)
    missing = sum(len(t) for t, v in zip(p.texts, values) if v is None)
    if not stored or missing > MAX_MISSING * len(text):
        # (nothing stored for this file, or most of it changed: one parse, the usual one)
        m = parse_text(text)
        STATS["whole"] += 1
        _PENDING.append((folder, file, {k: v for k, v in zip(p.keys, values) if v is not None}, [p, None]))
        return m
    out: list[tuple] = []
    for i, (t, v) in enumerate(zip(p.texts, values)):
        if v is None:
            try:
                v = _parse_chunk(i, last, t, parse_text)
            except Exception:  # noqa: BLE001 - a chunk libcst refuses alone: the whole file
                v = None
            if v is None:
                STATS["whole"] += 1
                return parse_text(text)
            STATS["parsed"] += 1
        else:
            STATS["reused"] += 1
        out.append(v)
    if missing or set(stored) != set(p.keys):  # (an unchanged file: nothing to write)
        _PENDING.append((folder, file, dict(zip(p.keys, out)), [p, True]))
    return assemble(p, out)


def flush(detach: bool = True) -> None:
    """Write the chunks of the files parsed since the last call: in a detached grandchild
    process (forked twice, its descriptors closed) so the caller does not wait for the
    pickling, or here (``detach=False``, or where there is no fork)."""
    if not _PENDING:
        return
    jobs = list(_PENDING)
    _PENDING.clear()
    if detach and hasattr(os, "fork") and sys.platform.startswith("linux"):
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid == 0:  # the child: fork again and exit, so the grandchild is nobody's to wait for
            try:
                os.setsid()
                if os.fork() != 0:
                    os._exit(0)
                fd = os.open(os.devnull, os.O_RDWR)
                for std in (0, 1, 2):
                    os.dup2(fd, std)
                os.closerange(3, _max_fd())
                try:
                    os.nice(5)
                except OSError:
                    pass
                import signal

                signal.alarm(120)  # (whatever happens, it does not outlive that)
                _write(jobs)
            finally:
                os._exit(0)
        if pid > 0:
            try:
                os.waitpid(pid, 0)  # the first child exits at once
            except OSError:
                pass
            return
    _write(jobs)


#: the most files the folder keeps (the least recently written go first)
MAX_STORED = 256


def _prune(folder: str) -> None:
    entries = [e for e in os.scandir(folder) if e.name.endswith(".pkl")]
    if len(entries) <= MAX_STORED:
        return
    entries.sort(key=lambda e: e.stat().st_mtime)
    for e in entries[: len(entries) - MAX_STORED]:
        try:
            os.unlink(e.path)
        except OSError:
            pass


def _max_fd() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return 1024


def _write(jobs: list) -> None:
    import pickle
    import tempfile

    from exportlint.engine import parse_module

    for folder, file, chunks, (p, complete) in jobs:
        if not complete:  # parsed whole: parse the chunks now (here, in the background)
            last = len(p.texts) - 1
            for i, (k, t) in enumerate(zip(p.keys, p.texts)):
                if k not in chunks:
                    try:
                        v = _parse_chunk(i, last, t, parse_module)
                    except Exception:  # noqa: BLE001
                        v = None
                    if v is None:
                        chunks = None
                        break
                    chunks[k] = v
            if chunks is None:
                continue
        tmp = None
        try:
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                pickle.dump({"format": FORMAT, "libcst": _libcst_version(), "chunks": chunks}, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, file)
            _prune(folder)
        except Exception:  # noqa: BLE001 - a read-only or full disk: no cache, no error
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
