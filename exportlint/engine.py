"""The engine: source -> findings, for one file (``lint_source``) or many (``lint_paths``).

Per file: decode -> cheap text prefilter -> libcst parse -> semantic model -> rules ->
positions (only for reported nodes) -> suppressions. Files are independent: a process pool
runs them on every core, and results are cached by (content hash, config, exportlint code).
The static path never imports torch.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import hashlib
import io
import json
import os
import re
import sys
import time
import tokenize
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional

from exportlint import __version__
from exportlint.config import Config
from exportlint.context import FileContext, Reported
from exportlint.semantics.apis import QUANT_CONVERSIONS, STATIC_QUANT_CONVERSIONS
from exportlint.findings import EXPORTERS, Finding, Severity

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from exportlint.checks.base import Rule

# libcst, the rules and the semantic model are imported on first use (``Linter()``), not at
# import time: a run whose files are all cache hits never needs them, and ``import libcst``
# alone costs more than the rest of such a run.

#: files larger than this are reported (EXL001) instead of parsed
MAX_FILE_BYTES = 8 * 1024 * 1024

# A file can only matter if it defines a forward (module or autograd.Function) or calls an
# exporter. Everything else (configs, tokenizers, data pipelines) is skipped before parsing.
_MODEL_RE = re.compile(r"\bdef\s+forward\b")
_QUANT_CONVERT_RE = re.compile(r"\bquantization\.(?:" + "|".join(QUANT_CONVERSIONS) + r")\s*\(")
#: _QUANT_CONVERT_RE without its leading ``\b`` (checked at each hit: ``_at_word_start``)
_QUANT_CONVERT_NOB = re.compile(_QUANT_CONVERT_RE.pattern[2:])
_EXPORT_RE = re.compile(
    r"\b(?:export|trace|trace_module|dynamo_export|draft_export|export_for_training|export_for_inference)\s*\("
)


def _at_word_start(rx: "re.Pattern[str]", text: str) -> bool:
    """``re.compile(r"\b" + rx.pattern).search(text) is not None`` for a pattern that starts
    with a word-character literal (which ``re`` then scans for quickly; see index.py)."""
    from exportlint.semantics.index import at_word_start

    return at_word_start(rx, text)


def _has_forward_def(text: str) -> bool:
    """``_MODEL_RE.search(text) is not None`` (the same pattern), faster: see index.py."""
    from exportlint.semantics.index import has_forward_def

    return has_forward_def(text)


def _has_export_call(text: str) -> bool:
    """``_EXPORT_RE.search(text) is not None`` (the same pattern), faster: see index.py."""
    from exportlint.semantics.index import has_export_call

    return has_export_call(text)


#: CPython refuses more than 200 nested brackets; libcst's native parser instead overflows the
#: C stack (a segfault, measured at a few thousand), so deeper files are checked with
#: ``compile()`` first
_MAX_NESTING = 200
_BRACKETS = re.compile(r"[^()\[\]{}]+")
_DELTA = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def _max_nesting(text: str) -> int:
    """Bracket depth over the raw text (strings and comments included: an upper bound)."""
    if text.count("(") + text.count("[") + text.count("{") <= _MAX_NESTING:
        return 0
    return max(accumulate(map(_DELTA.__getitem__, _BRACKETS.sub("", text))), default=0)


def _python_syntax_error(text: str, path: str) -> Optional[SyntaxError]:
    """CPython's own verdict (exact line and column), or None when it compiles."""
    return _python_syntax_check(text, path)[0]


#: digests of texts that compiled in this process: a project run re-analyses a file in later
#: rounds from the same text, and CPython's verdict on it does not change
_COMPILED: set[str] = set()


def _checked_syntax(text: str, path: str, project: Any = None,
                    digest: Optional[str] = None) -> tuple[Optional[SyntaxError], Any]:
    """``_python_syntax_check`` once per text and process: (None, None) when this text
    compiled before (the tree was used then: the file's index is cached by content). A tree
    the run already parsed of this text the same way (``project.checked_tree``: another
    file's analysis read this one) is the verdict and the tree, without a second parse.
    ``digest``: the text's ``_digest``, when the caller has it."""
    key = digest or _digest(text)
    if key in _COMPILED:
        return None, None
    tree = None
    if project is not None:
        from exportlint.semantics.project import checked_tree

        tree = checked_tree(project, path, text)
    if tree is not None:
        err = None
    else:
        err, tree = _python_syntax_check(text, path)
    if err is None:
        if len(_COMPILED) > 100_000:  # long sessions (the language server)
            _COMPILED.clear()
        _COMPILED.add(key)
    return err, tree


def _digest(text: str) -> str:
    """sha256 of a text: the key of ``_COMPILED`` and of the file's index (``index_source``),
    hashed once per linted text for both."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _python_syntax_check(text: str, path: str) -> tuple[Optional[SyntaxError], Any]:
    """(CPython's verdict or None, the file's ``ast.Module`` when it compiles). The tree is
    the whole file's: the project index reads it instead of parsing a skeleton again."""
    from exportlint.isolation import python_limits

    was_on = gc.isenabled()
    gc.disable()  # the tree is acyclic (as in parse_module): no collection needs to scan it
    try:
        with python_limits():  # what `import` accepts, not the lint thread's raised limit
            tree = compile(text, path, "exec", 0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except SyntaxError as e:
        return e, None
    except ValueError as e:  # NUL bytes
        err = SyntaxError(str(e))
        err.lineno, err.offset = 1, 1
        return err, None
    except (RecursionError, MemoryError) as e:  # deeper than CPython's parser accepts
        from exportlint.isolation import deepest_line

        err = SyntaxError(f"Python's parser refuses it: {type(e).__name__}: {e}")
        err.lineno, err.offset = deepest_line(text)
        err.too_deep = True  # type: ignore[attr-defined]
        return err, None
    finally:
        if was_on:
            gc.enable()
    return None, tree


def _syntax_finding(path: str, err: SyntaxError) -> Finding:
    if getattr(err, "too_deep", False):  # EXL003, see exportlint/isolation.py
        from exportlint.isolation import too_deep_message

        return _engine_finding(path, err.lineno or 1, err.offset or 1, too_deep_message(err.msg), "EXL003")
    return _engine_finding(path, max(err.lineno or 1, 1), max(err.offset or 1, 1), f"syntax error: {err.msg}")


def _no_validate(self: cst.CSTNode) -> None:
    return None


#: ids of the trivia nodes ``_shared_trivia`` hands out (kept alive by its caches): only a
#: node made of such nodes is shared in turn
_SHARED: set[int] = set()
#: more distinct keys than this (a file of odd whitespace) and a cache stops growing
_TRIVIA_CACHE_MAX = 4096


def _by_value(real: type) -> Callable[..., Any]:
    cache: dict = {}
    shared = _SHARED

    def make(value: Any = None) -> Any:
        node = cache.get(value)
        if node is None:
            node = real(value=value)
            if len(cache) < _TRIVIA_CACHE_MAX:
                cache[value] = node
                shared.add(id(node))
        return node

    return make


def _by_pair(real: type) -> Callable[..., Any]:
    cache: dict = {}
    shared = _SHARED

    def make(whitespace_before: Any, whitespace_after: Any) -> Any:
        key = (id(whitespace_before), id(whitespace_after))
        node = cache.get(key)
        if node is None:
            node = real(whitespace_before=whitespace_before, whitespace_after=whitespace_after)
            if key[0] in shared and key[1] in shared and len(cache) < _TRIVIA_CACHE_MAX:
                cache[key] = node
                shared.add(id(node))
        return node

    return make


def _trailing(real: type) -> Callable[..., Any]:
    cache: dict = {}
    shared = _SHARED

    def make(whitespace: Any, newline: Any, comment: Any = None) -> Any:
        if comment is not None:
            return real(whitespace=whitespace, comment=comment, newline=newline)
        key = (id(whitespace), id(newline))
        node = cache.get(key)
        if node is None:
            node = real(whitespace=whitespace, newline=newline)
            if key[0] in shared and key[1] in shared and len(cache) < _TRIVIA_CACHE_MAX:
                cache[key] = node
                shared.add(id(node))
        return node

    return make


def _empty_line(real: type) -> Callable[..., Any]:
    cache: dict = {}
    shared = _SHARED

    def make(indent: Any, whitespace: Any, newline: Any, comment: Any = None) -> Any:
        if comment is not None:
            return real(indent=indent, whitespace=whitespace, comment=comment, newline=newline)
        key = (indent, id(whitespace), id(newline))
        node = cache.get(key)
        if node is None:
            node = real(indent=indent, whitespace=whitespace, newline=newline)
            if key[1] in shared and key[2] in shared and len(cache) < _TRIVIA_CACHE_MAX:
                cache[key] = node
                shared.add(id(node))
        return node

    return make


_STAND_INS: dict[str, Callable[..., Any]] = {}


def _shared_trivia() -> dict[str, Callable[..., Any]]:
    """Stand-ins for libcst's trivia classes (whitespace, newlines, the trailing whitespace of a
    line, empty lines, commas, dots, colons, ``=`` of keywords: nodes that hold only whitespace), put in the
    ``libcst`` module while the native parser runs: it looks each class up there by name for
    every node it builds. Equal trivia then is one shared instance instead of one per
    occurrence: SimpleWhitespace alone was 40% of the nodes of timm's reduced files, and
    building these ~9% of the parse. Nodes are immutable and nothing here keys on a trivia
    node's identity (``nodes.child_nodes`` and the rules never walk into trivia; positions
    come from codegen of the nodes that carry findings), so the tree is the same (equal code,
    ``deep_equals`` a plain parse: tests/test_engine_parse.py). Nodes that carry meaning
    (names, expressions, statements, operators) are never shared. The stand-ins are plain
    functions (a class standing in, whose ``isinstance`` answers as libcst's, cost more than
    the sharing saves): as with ``__post_init__`` above, libcst's classes are put back when
    the parse ends, and parses are not run from several threads at once (the language server
    lints in one thread for that reason)."""
    if not _STAND_INS:
        import libcst as cst

        _STAND_INS["SimpleWhitespace"] = _by_value(cst.SimpleWhitespace)
        _STAND_INS["Newline"] = _by_value(cst.Newline)
        _STAND_INS["TrailingWhitespace"] = _trailing(cst.TrailingWhitespace)
        _STAND_INS["EmptyLine"] = _empty_line(cst.EmptyLine)
        for name in ("Dot", "Comma", "Colon", "AssignEqual"):
            _STAND_INS[name] = _by_pair(getattr(cst, name))
    return _STAND_INS


#: set False to parse with libcst's own classes only (no shared trivia)
SHARE_TRIVIA = True


def parse_module(text: str) -> "cst.Module":
    """libcst.parse_module without per-node validation.

    Every node's ``__post_init__`` re-validates it (whitespace regexes, parenthesis checks):
    about a third of the parse time, and redundant for nodes the parser built from valid
    source (libcst's own comment in ``CSTNode.__post_init__`` says so). Validation is off only
    while parsing; nodes built later (fixes) are validated as usual.
    """
    import libcst as cst

    base = cst.CSTNode
    orig = base.__dict__["__post_init__"]
    base.__post_init__ = _no_validate  # type: ignore[method-assign]
    # The cyclic collector is off while parsing: the parser allocates a few hundred thousand
    # nodes per file (no cycles among them; refcounting frees what is dropped), and each
    # 700 allocations would start a collection that scans them again: ~20% of the parse's
    # CPU time (bench: 60 timm files 3.5 s -> 2.7 s). Re-enabled as it was.
    was_on = gc.isenabled()
    gc.disable()
    real: dict[str, Any] = {}
    if SHARE_TRIVIA:
        for name, stand_in in _shared_trivia().items():
            real[name] = cst.__dict__[name]
            setattr(cst, name, stand_in)
    try:
        return _parser()(text)
    finally:
        for name, cls in real.items():
            setattr(cst, name, cls)
        base.__post_init__ = orig  # type: ignore[method-assign]
        if was_on:
            gc.enable()


def _parser() -> Callable[[str], "cst.Module"]:
    """What parses a ``str``: libcst's native parser called directly (``lightcst.native_parse``:
    ``libcst.parse_module`` minus the entry point's configuration detection, whose imports a
    light libcst defers), or ``libcst.parse_module`` where the native module differs."""
    if _PARSER:
        return _PARSER[0]
    import libcst as cst

    fn: Callable[[str], "cst.Module"]
    try:
        from exportlint.lightcst import native_parse

        fn = native_parse if isinstance(native_parse("x = 1\n"), cst.Module) else cst.parse_module
    except Exception:  # noqa: BLE001 - another libcst: its public entry point
        fn = cst.parse_module
    _PARSER.append(fn)
    return fn


_PARSER: list = []


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    #: internal errors (a rule crashed): reported on stderr, exit status 2
    errors: list[str] = field(default_factory=list)
    parsed: bool = False
    #: calls of this file's export path into other project files: (target path, Root)
    outs: list[tuple[str, Any]] = field(default_factory=list)
    #: files whose index facts resolving those calls consumed
    deps: set = field(default_factory=set)
    #: for each out: the key its result kind is known by in this file (``call_returns``)
    out_keys: list[Optional[str]] = field(default_factory=list)
    #: result kinds of this file's functions called from other files: qual -> kind
    returns: dict[str, str] = field(default_factory=dict)
    #: the questions the analysis asked of ``call_returns`` and their answers
    #: (``semantics.model.ReadReturns.log``); None: unknown (an internal error)
    reads: Optional[dict[str, Any]] = field(default_factory=dict)
    #: the rules did not run (``Linter.light``): outs, out_keys and returns only, and the file
    #: is analysed again with its callees' result kinds
    light: bool = False


# ---------------------------------------------------------------------------------------
# one file
# ---------------------------------------------------------------------------------------


def _decode(data: bytes) -> tuple[Optional[str], Optional[tuple[int, int, str]]]:
    """Text, or an error (line, column, message)."""
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        return None, (line, 1, "not a text file (contains NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:
        return None, (1, 1, f"cannot decode: {e}")
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as e:
        start = getattr(e, "start", 0)
        line = data[:start].count(b"\n") + 1
        col = start - (data.rfind(b"\n", 0, start) + 1) + 1
        return None, (line, col, f"cannot decode as {encoding}: {getattr(e, 'reason', e)}")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, None


def _engine_finding(path: str, line: int, col: int, message: str, code: str = "EXL001") -> Finding:
    return Finding(
        code=code,
        severity=Severity.ERROR,
        path=path,
        line=line,
        column=col,
        end_line=line,
        end_column=col,
        message=message,
        exporters=(),
    )


def _finish(found: list[Finding], sup: Any, path: str, config: Config, enabled: frozenset,
            known_codes: frozenset) -> list[Finding]:
    """A file's findings as reported: plus EXL002 for suppressions naming unknown codes, minus
    the suppressed and per-file-ignored ones and duplicates, sorted."""
    found = list(found)
    # EXL002: suppression comments naming codes that do not exist
    if sup.named and "EXL002" in enabled:
        for line, col, ecol, code in sup.named:
            if code not in known_codes:
                found.append(
                    Finding(
                        "EXL002", Severity.WARNING, path, line, col, line, ecol,
                        f"suppression names unknown rule code {code} (see `exportlint rules`)", (),
                    )
                )
    # suppressions and per-file ignores
    ignored = config.ignored_for_path(_relpath(path, config.root))
    out = []
    seen = set()
    for f in found:
        if f.code != "EXL002" and sup.is_suppressed(f.code, f.line, f.end_line):
            continue
        if ignored and any(f.code.startswith(p) or p == "ALL" for p in ignored):
            continue
        key = (f.code, f.line, f.column, f.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
    out.sort(key=Finding.sort_key)
    return out


def _converts_to_quantized(text: str) -> bool:
    """The file calls an eager-mode quantization conversion (``_QUANT_CONVERT_RE``)."""
    return "quantiz" in text and _at_word_start(_QUANT_CONVERT_NOB, text)


def _defines_forward_wrapper(text: str) -> bool:
    """The file defines a method decorator's ``(self, *args, **kwargs)`` wrapper (EXL130 at its call)."""
    from exportlint.semantics.reduce import defines_forward_wrapper

    return defines_forward_wrapper(text)


def _needs_parse(text: str) -> bool:
    """Whether ``Linter._lint_text`` parses this file when no other file calls into it: it
    defines a forward, calls an exporter, converts a model to eager-quantized, or defines a
    method decorator's ``(self, *args, **kwargs)`` wrapper."""
    return (_has_forward_def(text) or _has_export_call(text) or _converts_to_quantized(text)
            or _defines_forward_wrapper(text))


def _light_findings(path: str, data: bytes, config: Config, codes: Optional[frozenset[str]]) -> Optional[list[Finding]]:
    """The findings of a file that needs no parse, computed without the rules, libcst or a
    worker process (what ``Linter.lint_bytes`` reports for it: its EXL002 findings), or None
    when the file needs the full path (it may be parsed, or is too large or undecodable)."""
    if len(data) > MAX_FILE_BYTES:
        return None
    text, err = _decode(data)
    if err is not None or _needs_parse(text):
        return None
    from exportlint.codes import KNOWN_CODES
    from exportlint.suppress import parse_suppressions

    enabled = codes if codes is not None else config.enabled_codes(list(KNOWN_CODES))
    return _finish([], parse_suppressions(text), path, config, enabled, frozenset(KNOWN_CODES))


class Linter:
    """Holds the enabled rules and config; lints sources. Built once per process."""

    def __init__(self, config: Config, codes: Optional[frozenset[str]] = None) -> None:
        from exportlint.lightcst import ENABLED, dataclass_code_cache, maybe_install

        if ENABLED[0]:  # the command line: the light libcst, dataclass methods compiled once (lightcst.py)
            with dataclass_code_cache():
                maybe_install()
                from exportlint.checks.base import all_rules
        else:
            from exportlint.checks.base import all_rules

        self.config = config
        rules = all_rules()
        self.known_codes = frozenset(rules)
        enabled = codes if codes is not None else config.enabled_codes(list(rules))
        self.enabled = enabled
        self.rules: list[Rule] = [cls() for code, cls in rules.items() if code in enabled and cls.scope != "engine"]
        self.targets = frozenset(config.target_exporters)
        #: (opsets, dynamic, declares_dynamic) of the linted project (CONTRACTS.md item 1)
        self.project_facts: tuple = (None, None, None, None, None)
        #: while a project run's first round goes callers first (one worker): absolute path ->
        #: place in that order; a file whose analysis asks for the result kind of a call into
        #: a later file and gets none skips its rules (``_answered_later``)
        self.light: Optional[dict[str, int]] = None

    def lint_bytes(self, data: bytes, path: str, *, project: Any = None, roots: Any = (),
                   call_returns: Optional[dict[str, str]] = None) -> FileResult:
        res = FileResult(path)
        if len(data) > MAX_FILE_BYTES:
            if "EXL001" in self.enabled:
                res.findings.append(
                    _engine_finding(path, 1, 1, f"file too large to lint ({len(data) // 1024} KiB > {MAX_FILE_BYTES // 1024} KiB)")
                )
            return res
        text, err = _decode(data)
        if err is not None:
            if "EXL001" in self.enabled:
                res.findings.append(_engine_finding(path, err[0], err[1], err[2]))
            return res
        return self.lint_text(text, path, project=project, roots=roots, call_returns=call_returns)

    def lint_text(self, text: str, path: str, *, project: Any = None, roots: Any = (),
                  call_returns: Optional[dict[str, str]] = None) -> FileResult:
        """Findings of one file. With ``project`` (``semantics.project.Project``), calls into
        other files are resolved (``FileResult.outs``) and ``roots`` (calls from other files
        into this one) are analysed as export-path functions of this file."""
        # in a thread with a large stack and recursion limit: deep valid code lints, and the
        # native parser does not overflow the C stack (measurements in exportlint/isolation.py)
        from exportlint.isolation import call_deep

        try:
            return call_deep(self._lint_text, text, path, project, roots, call_returns)
        finally:
            if project is not None:  # the syntax check's tree was lent for this file only
                from exportlint.semantics.project import keep_lent, lend_tree

                light = _LIGHT[0]
                if light is not None and light.kept and os.path.abspath(path) in light.read:
                    keep_lent(project, path)  # (kept files' rules read it later: not parsed again)
                lend_tree(project, path, text, None)

    def _lint_text(self, text: str, path: str, project: Any = None, roots: Any = (),
                   call_returns: Optional[dict[str, str]] = None) -> FileResult:
        import libcst as cst

        from exportlint.semantics.model import SemanticModel
        from exportlint.suppress import parse_suppressions

        res = FileResult(path)
        is_model = _has_forward_def(text)
        has_export = _has_export_call(text)
        sup = parse_suppressions(text)
        reported: list[Reported] = []
        module = None
        model = None
        ptext = text  # what libcst parses (see _reduced)
        tree = None  # the file's project index, when there is a project
        # a file that converts a model to eager-quantized (EXL404 at the conversion) is linted
        # even with no forward and no export call (a `quantize_model()` helper module)
        if is_model or has_export or roots or _converts_to_quantized(text) or _defines_forward_wrapper(text):
            # always: CPython places syntax errors exactly, and refuses code too deep for it
            # (and for libcst's native parser: isolation.py) in a few % of libcst's time
            digest = _digest(text)
            err, ast_tree = _checked_syntax(text, path, project, digest)
            if ast_tree is not None and project is not None:
                # (``file_tree`` of this file, asked while it is linted, takes it: no second parse)
                from exportlint.semantics.project import lend_tree

                lend_tree(project, path, text, ast_tree)
            if err is not None:
                if ("EXL003" if getattr(err, "too_deep", False) else "EXL001") in self.enabled:
                    res.findings.append(_syntax_finding(path, err))
            else:
                ptext = text
                tree = None
                # the top-level statements' first lines, for the parse cache (parsecache.py)
                starts = None
                if _PARSE_DIR is not None and ast_tree is not None:
                    from exportlint.parsecache import starts_of

                    starts = starts_of(ast_tree)
                if project is not None and not has_export and not _converts_to_quantized(text):
                    # (a file that converts a model to eager-quantized is read whole: EXL404
                    # reports at the conversion, wherever it is)
                    ptext, tree = _reduced(text, path, roots, project, ast_tree, digest)
                    if starts is not None and ptext is not text:
                        # the reduction may fold removed statements into one string: the
                        # reduced text's own statements (its tree is cheaper than the file's)
                        from exportlint.parsecache import starts_of_text

                        starts = starts_of_text(ptext, path)
                ast_tree = None
                try:
                    module = None
                    if ptext is not text:
                        try:
                            module = _parse_cached(ptext, path, starts)
                        except Exception:  # the reduction went wrong: parse the file as it is
                            ptext = text
                    if module is None:
                        module = _parse_cached(ptext, path, starts) if project is not None else parse_module(ptext)
                except cst.ParserSyntaxError as e:
                    if "EXL001" in self.enabled:
                        # CPython places the error exactly; libcst's position can be a line off
                        err = _python_syntax_error(text, path)
                        if err is not None:
                            res.findings.append(_syntax_finding(path, err))
                        else:  # valid Python that libcst cannot parse (newer syntax)
                            msg = f"cannot parse (libcst {e.message}); exportlint skipped this file"
                            res.findings.append(_engine_finding(path, e.raw_line, e.raw_column + 1, msg))
                    module = None
                except RecursionError:
                    self._too_deep(res, path, text, "libcst parser")
                    module = None
                except Exception as e:  # libcst can raise others on exotic input
                    if "EXL001" in self.enabled:
                        res.findings.append(_engine_finding(path, 1, 1, f"cannot parse: {type(e).__name__}: {e}"))
                    module = None
            if module is not None:
                res.parsed = True
                pre: dict = {"extra_deps": set()}  # project facts computed once (_project_calls)
                # one index of the file for every project question (built on the first one)
                index = pre["index"] = _file_index(project, path, text, tree, digest)
                try:
                    model = SemanticModel(module, scan_export_calls=has_export, extra_roots=roots,
                                          call_returns=call_returns,
                                          init_values=_init_values_of(ptext) if ptext is not text else None,
                                          project_modules=_project_modules(project, index),
                                          param_reads=_param_reads(project, index, pre),
                                          options_off=_options_off(project, index, pre),
                                          source_text=text if ptext is not text else None, text=text)
                except RecursionError:
                    self._too_deep(res, path, text, "semantic model")
                    model = None
                    res.reads = None
                except Exception:
                    import traceback

                    res.errors.append(f"{path}: internal error building the semantic model:\n{traceback.format_exc()}")
                    model = None
                if model is not None:
                    res.reads = model.call_returns.log
                    if project is not None and self.light is not None and self.light.fits(len(ptext)) and \
                            _answered_later(self.light.order, path, model, _project_calls(pre, project, path, text, tree, model)):
                        # the file will likely be analysed again with its callees' result kinds: its
                        # outs and result kinds now; its rules later, on this model, when those
                        # kinds answer every question the model asked as before (_Light)
                        res.light = True
                        tree = self._cross_file_guarded(project, path, text, module, model, res, ptext, tree, pre, roots)
                        if res.errors:
                            res.light = False
                            res.reads = None
                            return res

                        def later(rets: dict[str, str]) -> FileResult:
                            # the rules read the kinds of this round (their own questions too)
                            cr = type(model.call_returns)(rets)
                            cr.log = model.call_returns.log
                            model.call_returns = cr
                            res.reads = cr.log
                            res.light = False
                            deps = set(res.deps)
                            reported = self._run_rules(res, path, text, ptext, module, model, tree, pre, project)
                            deps.update(pre.get("extra_deps", ()))
                            res.deps = deps
                            return self._report(res, path, ptext, module, model, tree, reported, sup)

                        self.light.keep(path, len(ptext), later, model,
                                        [t for t, _ in res.outs] + [os.path.abspath(d) for d in res.deps])
                        return res
                    reported = self._run_rules(res, path, text, ptext, module, model, tree, pre, project)
                    if project is not None:
                        tree = self._cross_file_guarded(project, path, text, module, model, res, ptext, tree, pre, roots)
        return self._report(res, path, ptext, module, model, tree, reported, sup)

    def _run_rules(self, res: FileResult, path: str, text: str, ptext: str, module: Any, model: Any, tree: Any,
                   pre: dict, project: Any) -> list:
        """The rules on a file's model: what they reported."""
        ctx = FileContext(path, ptext, module, model, self.config)
        (ctx.project_opsets, ctx.project_dynamic, ctx.project_declares_dynamic,
         ctx.project_quant_convert, ctx.project_fn_dims) = self.project_facts
        if hasattr(ctx.project_dynamic, "for_file"):
            # the declared dims as this file reads them: its classes take only the declarations
            # resolving to them, not those of a same-named class of another module
            ctx.project_dynamic = ctx.project_dynamic.for_file(path, model.classes)
        if project is not None:
            ctx.project = project
            ctx._project_calls = functools.partial(_project_calls, pre, project, path, text, tree, model)
        for rule in self.rules:
            if rule.scope == "export-path" and not model.functions:
                continue
            ctx._rule = rule
            try:
                for _ in rule.check(ctx) or ():
                    pass
            except RecursionError:
                self._too_deep(res, path, text, f"rule {rule.code}")
            except Exception:
                import traceback

                res.errors.append(f"{path}: internal error in rule {rule.code}:\n{traceback.format_exc()}")
        return ctx.reported

    def _cross_file_guarded(self, project: Any, path: str, text: str, module: Any, model: Any, res: FileResult,
                            ptext: str, tree: Any, pre: dict, roots: Any) -> Any:
        """``_cross_file``, an internal error in it reported on the file; the file's index."""
        try:
            tree = self._cross_file(project, path, text, module, model, res, ptext, tree,
                                    pre) or tree
            if roots or res.outs:
                _keep_parsed(ptext, module)
        except RecursionError:
            self._too_deep(res, path, text, "project calls")
        except Exception:
            import traceback

            res.errors.append(f"{path}: internal error resolving calls:\n{traceback.format_exc()}")
        return tree

    def _report(self, res: FileResult, path: str, ptext: str, module: Any, model: Any, tree: Any,
                reported: list, sup: Any) -> FileResult:
        """Findings at their positions, suppressions applied; the model released."""
        from exportlint.positions import resolve_positions

        if reported and module is not None:
            related: dict[int, tuple] = {}
            for r in reported:
                if r.anchor is None or model.external_chains:
                    for fn in model.functions:
                        if id(r.node) in fn.kinds:
                            if r.anchor is None:
                                r.anchor = fn.anchor
                            if model.external_chains:
                                related[id(r)] = _chain_of(model, fn, (path, ptext, tree, module))
                            break
            items = [(r.node, r.anchor) for r in reported]
            for r in reported:  # a fix spans one node, or (first, last) statements of a block
                for n in (r.fix_node if isinstance(r.fix_node, tuple) else (r.fix_node,)):
                    if n is not None:
                        items.append((n, r.anchor))
            pos = resolve_positions(module, ptext, items)
            for r in reported:
                exps = tuple(e for e in r.exporters if e in self.targets)
                only = model.exporters_at(r.node, r.anchor[0] if r.anchor else None)
                if only is not None:
                    # under an export guard (`if not torch.jit.is_tracing():`): only where it runs
                    exps = tuple(e for e in exps if e in only)
                if r.exporters and not exps:
                    continue  # breaks only exporters this project does not target
                line, col, eline, ecol = pos.get(id(r.node), (1, 1, 1, 1))
                fix = r.fix
                if fix is not None and r.fix_node is not None:
                    first, last = r.fix_node if isinstance(r.fix_node, tuple) else (r.fix_node, r.fix_node)
                    if id(first) in pos and id(last) in pos:
                        fl, fc, _, _ = pos[id(first)]
                        _, _, fel, fec = pos[id(last)]
                        fix = dataclasses.replace(fix, line=fl, column=fc, end_line=fel, end_column=fec)
                res.findings.append(
                    Finding(r.code, r.severity, path, line, col, eline, ecol, r.message, exps, fix,
                            related=related.get(id(r), ()))
                )
        res.findings = _finish(res.findings, sup, path, self.config, self.enabled, self.known_codes)
        if model is not None:
            _release_model(model)
        if res.errors:
            res.reads = None
        return res

    def _too_deep(self, res: FileResult, path: str, text: str, where: str) -> None:
        """EXL003 at the file's deepest line: ``where`` (a parser, the model, a rule) recursed
        beyond the lint thread's limit (see exportlint/isolation.py)."""
        if "EXL003" in self.enabled:
            from exportlint.isolation import deepest_line, too_deep_message

            res.findings.append(_engine_finding(path, *deepest_line(text), too_deep_message(where), "EXL003"))

    def _cross_file(self, project: Any, path: str, text: str, module: "cst.Module", model: Any, res: FileResult,
                    ptext: str, tree: Any, pre: Optional[dict] = None) -> Any:
        """Calls of this file's export path into other project files, with their chains;
        returns the file's index. ``pre``: what the rules already computed (``_project_calls``)."""
        from exportlint.positions import resolve_positions
        from exportlint.semantics.data_sized import data_sized_result
        from exportlint.semantics.kinds import DATA_SIZED_RESULT
        from exportlint.semantics.project import return_kind

        pre = _project_calls(pre if pre is not None else {}, project, path, text, tree, model)
        fi = pre["fi"]
        for r in model.extra_roots:
            found = model.root_function(r.qual)
            facts = model.facts_for(found[0]) if found is not None else None
            if r.why == "ctor-ref" and any(x.qual == r.qual and x.why == "ctor" for x in model.extra_roots):
                continue  # built on the export path too: the "ctor" root answers
            if r.why == "ctor-ref" or (facts is None and r.why == "ctor"):
                # a class named by annotations only; a dataclass / NamedTuple (semantics/objects.py)
                from exportlint.semantics.objects import record_kind, ref_kind

                k = ref_kind(model, r) if r.why == "ctor-ref" else record_kind(model, r)
                if k is not None:
                    res.returns[r.qual] = k
                continue
            if facts is not None:
                if r.why == "ctor":  # the instance kind its constructor gives (semantics/objects.py)
                    from exportlint.semantics.objects import instance_kind

                    k = instance_kind(facts)
                else:
                    k = return_kind(facts)
                    sized = data_sized_result(model, facts)
                    if sized:  # where its result is a data-sized tensor (semantics/data_sized.py)
                        res.returns[r.qual + DATA_SIZED_RESULT] = sized
                    # what rules register about a callee (checks.base.CALLEE_SUMMARIES: a size
                    # as a constant-only op argument, EXL129; an op onnx-dynamo cannot translate,
                    # EXL401 at the call)
                    from exportlint.checks.base import CALLEE_SUMMARIES

                    for suffix, summarise in CALLEE_SUMMARIES:
                        got = summarise(model, facts)
                        if got:
                            res.returns[r.qual + suffix] = got
                if k is not None:
                    res.returns[r.qual] = k
        deps: set = pre["deps"]
        deps.update(pre.get("extra_deps", ()))
        calls = pre["calls"]
        res.deps = deps
        # functions of other files handed to an exporter here are export entries there
        from exportlint.semantics.project import Root

        for ec in fi.export_calls:
            if not ec.model or ec.model_class:
                continue
            t = project.resolve_function(project.absolute(fi, ec.model), deps)
            if t is not None and t.path != fi.path and not t.is_method:
                res.outs.append((t.path, Root(t.qual, [], {}, [(path, ec.line, 1, f"exported here ({ec.api})")],
                                              why="export-call")))
                res.out_keys.append(None)
        # project decorators' wrappers of this file's forwards run in other files
        from exportlint.semantics.project import forward_wrappers

        wraps = forward_wrappers(project, fi, model, deps)
        if wraps:
            at = resolve_positions(module, ptext, [(node, facts.anchor) for facts, node, _, _ in wraps])
            for facts, node, target, root in wraps:
                line, col = at.get(id(node), (1, 1))[:2]
                hop = (path, line, col, f"{facts.qualname} is wrapped by {target.qual}() here")
                root.chain = [tuple(c) for c in _chain_list(model, facts, (path, ptext, fi, module), entry_hops=True)] + [hop]
                res.outs.append((target.path, root))
                res.out_keys.append(None)
        if not calls:
            return fi
        found = _call_lines(ptext, fi, module, calls)
        missing = [(call, facts.anchor) for facts, call, _, _, _ in calls if id(call) not in found]
        if missing:
            for k, v in resolve_positions(module, ptext, missing).items():
                found[k] = v[:2]
        for facts, call, target, root, key in calls:
            line, col = found.get(id(call), (1, 1))
            callee = target.qual.rsplit(".", 1)[-1]
            hop = (path, line, col, f"{facts.qualname} calls {callee}() here")
            root.chain = [tuple(c) for c in _chain_list(model, facts, (path, ptext, fi, module), entry_hops=True)] + [hop]
            res.outs.append((target.path, root))
            res.out_keys.append(key)
        return fi


def _answered_later(later: dict[str, int], path: str, model: Any, pre: dict) -> bool:
    """Whether the file's analysis asked the result kind of a call into a file that this
    round analyses after it (``later``: absolute path -> place in the round's order) and got
    none: its callee will answer, and the file be analysed again with that answer."""
    here = later.get(os.path.abspath(path))
    if here is None:
        return False
    log = model.call_returns.log
    for _, _, target, _, key in pre["calls"]:
        if key and key in log and log[key] is None and later.get(target.path, -1) > here:
            return True
    return False


def _project_calls(pre: dict, project: Any, path: str, text: str, tree: Any, model: Any) -> dict:
    """The calls of the file's export path into other project files (computed once per lint,
    for the rules that read them and for ``_cross_file``), kept in ``pre``."""
    if "calls" not in pre:
        from exportlint.semantics.index import index_source
        from exportlint.semantics.project import cross_file_calls

        mod, is_pkg = project.add_file(path, text)
        index = pre.get("index")
        if index is not None:
            fi = index()
        else:
            fi = tree if tree is not None else index_source(text, os.path.abspath(path), mod, is_pkg)
        deps: set = set()
        forwards: list = []
        calls = cross_file_calls(project, fi, model, deps, forwards)
        pre.update(fi=fi, deps=deps, calls=calls, forwards=forwards)
    return pre


def _release_model(model: Any) -> None:
    """Break the reference cycles of a file's semantic model (the model and its functions'
    facts refer to each other, and call sites to their function) once its findings are out:
    its parse tree is then freed by reference counting when the file is done, instead of by
    the collection after each file, which would trace every node of it first (timm
    models+layers: 340k of the objects those collections freed, half of their time)."""
    for f in getattr(model, "functions", ()):
        d = getattr(f, "__dict__", None)
        if d is not None:
            d.clear()
    model.__dict__.clear()


#: parsed modules of this process by text, for the rounds of a project run (a file whose
#: callees' result kinds changed is re-analysed from the same text); bounded by characters
_MODULES: "dict[str, cst.Module]" = {}
_MODULES_CHARS = [0]
_MODULE_LEN: dict[str, int] = {}
_MODULES_BUDGET = 1_200_000  # ~ 35 MB of parse trees


def _text_key(text: str) -> str:
    """The key of a text in ``_MODULES``; the last one is remembered (``_parse_cached`` then
    ``_keep_parsed`` ask for the same text)."""
    last = _KEY_LAST
    if last[0] is text:
        return last[1]
    key = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
    _KEY_LAST[:] = [text, key]
    return key


_KEY_LAST: list = [None, ""]


def _parse_cached(text: str, path: Optional[str] = None, starts: Optional[list[int]] = None) -> "cst.Module":
    """Parse, or take the tree a former round kept (``_keep_parsed``). With the parse cache
    on (``_PARSE_DIR``) and the top-level statements' lines (``starts``), the chunks of the
    text that did not change since the last run are read from it (parsecache.py)."""
    m = _MODULES.get(_text_key(text))
    if m is not None:
        return m
    if _PARSE_DIR is not None and starts and path is not None:
        from exportlint import parsecache

        return parsecache.parse(text, path, _PARSE_DIR, starts, parse_module)
    return parse_module(text)


def _keep_parsed(text: str, m: "cst.Module") -> None:
    """Keep a parse tree for a later round. Only files whose analysis crossed into other
    files (calls out, or calls in) are re-analysed when those inputs change, so only their
    trees are kept: the budget then holds the trees that are asked for again."""
    key = _text_key(text)
    if key in _MODULES:
        return
    if len(text) <= _MODULES_BUDGET // 4:
        while _MODULES and _MODULES_CHARS[0] + len(text) > _MODULES_BUDGET:
            old = next(iter(_MODULES))
            _MODULES.pop(old)
            _MODULES_CHARS[0] -= _MODULE_LEN.pop(old, 0)
        _MODULES[key] = m
        _MODULE_LEN[key] = len(text)
        _MODULES_CHARS[0] += len(text)


def _reduced(text: str, path: str, roots: Any, project: Any, ast_tree: Any = None,
             digest: Optional[str] = None) -> tuple[str, Any]:
    """(text to parse with libcst, the file's index or None): the bodies no export entry of
    the file can reach are blanked (``semantics.reduce``); lines and columns of the rest are
    kept. The index (with the outline) is cached by content, so a re-analysis reads no ast;
    ``ast_tree``: the whole file's tree when the syntax check just built it."""
    from exportlint.semantics.index import index_source
    from exportlint.semantics.reduce import reduce_flags, reduce_source

    mod, is_pkg = project.add_file(path, text)
    fi = index_source(text, os.path.abspath(path), mod, is_pkg, digest, tree=ast_tree)
    if not fi.ok or fi.outline is None:
        return text, fi
    quals = [r.qual for r in roots]
    key = (fi.digest, fi.path, tuple(sorted(set(quals))), reduce_flags())
    if key in _REDUCED:  # a later round of the same file, with the same entries
        red, values = _REDUCED[key]
    else:
        values = {}
        try:
            red = reduce_source(text, fi.outline, quals, values)
        except RecursionError:
            red = None
        if len(_REDUCED) >= 512:
            _REDUCED.clear()
        _REDUCED[key] = (red, values)
    if red is None:
        return text, fi
    _INIT_VALUES[:] = [red, values]
    return red, fi


#: [the last reduced text, the attribute facts of the ``__init__`` statements it left out (class
#: name -> (self name, ((attr, value), ...), "whole" | "marks"), ``reduce.BLANK_PLAIN_INIT``)]: read by
#: ``_init_values_of`` for the text it is asked about, so a caller that parses another text
#: (the file as it is, when the reduced one did not parse) gets none
_INIT_VALUES: list = [None, None]


def _init_values_of(ptext: str) -> Optional[dict]:
    return _INIT_VALUES[1] if _INIT_VALUES[0] is ptext and _INIT_VALUES[1] else None


#: (digest, path, entries, reduce's switches) -> the reduced text (None: the file as it is): a file analysed again
#: in a later round of a project run (other inputs, the same entries) is reduced once
_REDUCED: dict[tuple, Optional[str]] = {}


def _call_lines(text: str, fi: Any, module: "cst.Module", calls: list) -> dict[int, tuple[int, int]]:
    """Line and column of call nodes, found as text inside their function's lines (the
    outline has them): much cheaper than positions from the tree, exact unless the same call
    text appears twice in the function (then the first is taken)."""
    from exportlint.semantics.reduce import split_lines

    o = getattr(fi, "outline", None)
    if o is None:
        return {}
    lines = split_lines(text)
    spans: dict[tuple[Optional[str], str], tuple[int, int]] = {(None, f.name): (f.start, f.end) for f in o.funcs}
    for cname, (methods, _) in o.classes.items():
        for f in methods:
            spans[(cname, f.name)] = (f.start, f.end)
    out: dict[int, tuple[int, int]] = {}
    for facts, call, _, _, _ in calls:
        span = spans.get((facts.cls.name if facts.cls is not None else None, facts.name))
        if span is None:
            continue
        try:
            src = module.code_for_node(call).split("\n", 1)[0].strip()
        except Exception:
            continue
        if not src:
            continue
        for ln in range(span[0], min(span[1], len(lines)) + 1):
            i = lines[ln - 1].find(src)
            if i >= 0:
                out[id(call)] = (ln, i + 1)
                break
    return out


def _file_index(project: Any, path: str, text: str, fi: Any, digest: Optional[str] = None) -> Any:
    """The file's index entry for the project questions below: ``fi`` when the run has it,
    else built on the first question and kept (one index for every question of the file)."""
    got = [fi]

    def index() -> Any:
        if got[0] is None:
            from exportlint.semantics.index import index_source

            mod, is_pkg = project.add_file(path, text)
            got[0] = index_source(text, os.path.abspath(path), mod, is_pkg, digest)
        return got[0]

    return index


def _project_modules(project: Any, index: Any) -> Any:
    """Asks the project whether a class of the file is an nn.Module through bases in other
    files (the model asks only for classes with a forward it cannot decide alone): True,
    False (all its bases are project classes, none a module), or None (a base leaves it)."""
    if project is None:
        return None

    def is_module(name: str) -> bool:
        return project.module_class_verdict(index(), name)

    return is_module


def _param_reads(project: Any, index: Any, pre: dict) -> Any:
    """Asks the project which parameters a function of another file reads as objects (the
    model asks only for a size-named forward parameter it hands over unread: see
    ``flow.FunctionFacts._read_in_callee``); the files read go to the file's deps."""
    if project is None:
        return None

    def reads(qual: str) -> Any:
        from exportlint.semantics.project import param_reads

        return param_reads(project, index(), qual, pre.setdefault("extra_deps", set()))

    return reads


def _options_off(project: Any, index: Any, pre: dict) -> Any:
    """Asks the project whether ``self.<attr>`` of a class of this file is a False-default option
    that every construction in the run leaves False (``semantics.ctor_values.option_off``;
    ``flow._built_false``); the files read go to the file's deps."""
    if project is None:
        return None
    memo: dict = {}

    def off(cls: str, attr: str) -> bool:
        key = (cls, attr)
        if key not in memo:
            from exportlint.semantics.ctor_values import option_off
            from exportlint.semantics.project import run_memo

            # the answer holds for the run (the run's files are its inputs): a file analysed again
            # in a later round, or another file of the same class, asks once; the files it read
            # still go to each asking file's deps
            fi = index()
            run = run_memo(project, "option_off")
            rkey = (getattr(fi, "path", None), getattr(fi, "digest", None), cls, attr)
            got = run.get(rkey) if rkey[1] is not None else None
            if got is None:
                read: set = set()
                got = (option_off(project, fi, cls, attr, read), frozenset(read))
                if rkey[1] is not None:
                    run[rkey] = got
            pre.setdefault("extra_deps", set()).update(got[1])
            memo[key] = got[0]
        return memo[key]

    return off


def _root_facts(fn: Any) -> Any:
    seen = 0
    while fn.caller is not None and seen < 100:
        fn = fn.caller
        seen += 1
    return fn


def _chain_list(model: Any, fn: Any, where: Optional[tuple] = None, entry_hops: bool = False) -> list:
    """The call chain from an export entry to ``fn`` when ``fn`` is reached from another file
    (or always, with ``entry_hops``): the hops up to the call into this file, then the calls
    inside this file (``where`` = (path, text, file index, module) places those)."""
    prefix = list(model.external_chains.get(id(_root_facts(fn).node)) or ())
    if (not prefix and not entry_hops) or where is None:
        return prefix
    hops = []
    f, n = fn, 0
    while f.caller is not None and n < 50:
        call = f.caller.callee_calls.get(id(f.node))
        if call is not None:
            hops.append((f.caller, call, f.name))
        f, n = f.caller, n + 1
    if not hops:
        return prefix
    path, text, fi, module = where
    found = _call_lines(text, fi, module, [(c, call, None, None, None) for c, call, _ in hops])
    for caller, call, name in reversed(hops):
        if id(call) in found:
            line, col = found[id(call)]
            prefix.append((path, line, col, f"{caller.qualname} calls {name}() here"))
    return prefix


def _chain_of(model: Any, fn: Any, where: Optional[tuple] = None) -> tuple:
    from exportlint.findings import Related

    return tuple(Related(*c) for c in _chain_list(model, fn, where))


def _relpath(path: str, root: Path) -> str:
    try:
        return os.path.relpath(path, root)
    except ValueError:
        return path


# ---------------------------------------------------------------------------------------
# cache
# ---------------------------------------------------------------------------------------


def _code_fingerprint() -> str:
    """Changes when exportlint's code or data changes (not only on a version bump)."""
    pkg = Path(__file__).parent
    h = hashlib.sha256(__version__.encode())
    for p in sorted(pkg.rglob("*.py")):
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{p.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    from exportlint.ruledocs import rules_dir

    d = rules_dir()
    if d is not None:
        for p in sorted(d.glob("*.json")):
            st = p.stat()
            h.update(f"{p.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


class Cache:
    """One JSON file per (exportlint code, config): path -> [sha256, findings]."""

    def __init__(self, config: Config, codes: Optional[frozenset[str]] = None) -> None:
        self.dir = config.effective_cache_dir()
        key = config.fingerprint()
        if codes is not None:  # an explicit rule set (API callers) is part of the key too
            key += "-" + hashlib.sha256(",".join(sorted(codes)).encode()).hexdigest()[:8]
        fp = _code_fingerprint()
        self.file = self.dir / f"v{__version__}-{fp}-{key}.json"
        #: stored indexes of imported files (semantics/index_store.py), per exportlint code
        self.index_dir = self.dir / f"index-v{__version__}-{fp}"
        #: parsed top-level statements of recently linted files (parsecache.py)
        self.parse_dir = self.dir / f"parse-v{__version__}-{fp}"
        self.entries: dict[str, list[Any]] = {}
        self.dirty = False
        try:
            with open(self.file, encoding="utf-8") as fh:
                data = json.load(fh)
            if isinstance(data, dict):
                self.entries = data
        except (OSError, ValueError):
            pass

    def get(self, path: str, digest: str) -> Optional[list[Finding]]:
        e = self.entries.get(path)
        if e is None or e[0] != digest:
            return None
        return [Finding.from_dict(d) for d in e[1]]

    def meta(self, path: str, digest: str) -> Optional[dict]:
        """The project facts an entry was computed with (deps, roots, outs), or None."""
        e = self.entries.get(path)
        if e is None or e[0] != digest or len(e) < 3 or not isinstance(e[2], dict):
            return None
        return e[2]

    def put(self, path: str, digest: str, findings: list[Finding], meta: Optional[dict] = None) -> None:
        self.entries[path] = [digest, [f.to_dict() for f in findings]] + ([meta] if meta is not None else [])
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            gi = self.dir / ".gitignore"
            if not gi.exists():
                gi.write_text("# created by exportlint\n*\n")
            # drop cache files of other versions/configs
            for old in self.dir.glob("v*.json"):
                if old != self.file:
                    try:
                        old.unlink()
                    except OSError:
                        pass
            for old in [*self.dir.glob("index-v*"), *self.dir.glob("parse-v*")]:  # of another exportlint code
                if old not in (self.index_dir, self.parse_dir) and old.is_dir():
                    import shutil

                    shutil.rmtree(old, ignore_errors=True)
            import tempfile  # (only here: a --no-cache run does without it)

            fd, tmp = tempfile.mkstemp(dir=self.dir, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self.entries, fh, separators=(",", ":"))
            os.replace(tmp, self.file)
        except OSError:
            pass  # a read-only tree still lints


# ---------------------------------------------------------------------------------------
# many files
# ---------------------------------------------------------------------------------------

_WORKER: Optional[Linter] = None
_PROJECT: Any = None
#: the cache's folder of stored indexes of imported files (semantics/index_store.py), set by
#: lint_paths when the cache is on; forked workers inherit it, spawned ones do without
_INDEX_DIR: Optional[str] = None
#: the cache's folder of parsed top-level statements (parsecache.py), set by lint_paths when
#: the cache is on, the run has a few files and lints them in forked workers (the grandchild
#: that writes the chunks is forked from a worker)
_PARSE_DIR: Optional[str] = None


def _worker_init(config: Config, codes: frozenset[str], facts: tuple = (None, None, None, None, None)) -> None:
    global _WORKER
    _WORKER = Linter(config, codes)
    _WORKER.project_facts = facts
    t = gc.get_threshold()  # as in lint_paths (a forked worker has it already)
    gc.set_threshold(max(t[0], 50_000), max(t[1], 20), max(t[2], 100))


#: INTERNAL TEST HOOK, not a feature: a worker process that is about to lint a file whose path
#: ends with this value kills itself with SIGSEGV, standing in for a native crash the guards of
#: isolation.py do not predict (none is known: tests/test_robustness.py uses it to check that
#: the run survives one, see workers.py). Read once at import; empty in normal runs.
_CRASH_HOOK = os.environ.get("_EXPORTLINT_TEST_CRASH_SUFFIX", "")
#: INTERNAL TEST HOOK, likewise: the worker hangs (sleeps) on such a file, standing in for an
#: analysis that does not end (the ``file-timeout`` setting stops it)
_HANG_HOOK = os.environ.get("_EXPORTLINT_TEST_HANG_SUFFIX", "")


def _crashed_result(path: str, how: str, data: bytes, linter: Linter,
                    timed_out: bool = False) -> tuple[str, list[dict], list[str], list, Optional[list], dict, None]:
    """A file whose analyser process died or was stopped by ``file-timeout`` (workers.Crashed):
    EXL003 at its most deeply nested line (the likely cause: the native parser's stack), unless
    EXL003 is off for it; the run goes on."""
    from exportlint.isolation import deepest_line

    ignored = linter.config.ignored_for_path(_relpath(path, linter.config.root))
    if "EXL003" not in linter.enabled or any("EXL003".startswith(p) or p == "ALL" for p in ignored or ()):
        return path, [], [], [], [], {}, None
    line, col = deepest_line(data.decode("utf-8", "replace"))
    if timed_out:
        msg = (f"exportlint stopped analysing this file: {how} (the `file-timeout` setting); exportlint skipped "
               "it (the line is the file's most deeply nested one, a likely cause)")
    else:
        msg = (f"exportlint's analyser process died with {how} while analysing this file; exportlint skipped it "
               "(the line is the file's most deeply nested one, the likely cause)")
    # deps None: a timed-out file is never cached (whether it ends in time depends on the load)
    return path, [_engine_finding(path, line, col, msg, "EXL003").to_dict()], [], [], None if timed_out else [], {}, None


#: a file was linted in this process since its last collection (``_worker_lint``)
_COLLECT_BEFORE_NEXT = [False]


class _Light:
    """A project run's first round, callers first in one worker: a file whose analysis asks
    the result kind of a call into a file analysed after it (``order``: absolute path -> place)
    and gets none will be analysed again once that callee answers (timm: 31 of 188 files). Its
    rules wait: the model is kept (``keep``) with what runs them, and the next round either
    runs them on it (``finish``, when the new kinds answer the model's questions as before:
    the engine checks) or analyses the file afresh. Kept models are bounded by their text's
    characters (``BUDGET``)."""

    BUDGET = 1_500_000
    #: a key of the questions log (``FileResult.reads``) the worker sends for a kept file
    KEPT = "\0kept"

    def __init__(self, order: dict[str, int]) -> None:
        self.order = order
        self.kept: dict[str, tuple[int, Callable[[dict], FileResult], Any]] = {}
        self.chars = 0
        self.read: set[str] = set()

    def fits(self, n: int) -> bool:
        return self.chars + n <= self.BUDGET

    def keep(self, path: str, n: int, later: Callable[[dict], FileResult], model: Any,
             read: Iterable[str] = ()) -> None:
        """``read``: files whose stdlib tree its rules may read (its calls' targets, the files
        its calls resolved through): their syntax check's tree stays (``project.keep_lent``)."""
        self.drop(path)
        self.kept[path] = (n, later, model)
        self.chars += n
        self.read.update(read)

    def drop(self, path: str) -> Optional[tuple[Callable[[dict], FileResult], Any]]:
        """(what runs the rules, the model) of a kept file, no longer kept."""
        got = self.kept.pop(path, None)
        if got is None:
            return None
        self.chars -= got[0]
        return got[1], got[2]


#: the first round's ``_Light`` (set before the worker forks)
_LIGHT: list = [None]
#: True: in a one-worker project run, a file whose analysis asks a later file's result kinds keeps
#: its model and runs its rules in the next round (``_Light``). Off by default: it cuts cachegrind
#: instructions of a cold -j1 timm run by ~0.67 G (2.0%: 34.03 -> 33.37 G), but the kept models took the run's peak
#: memory from 113 to 192 MB and its CPU time up, not down (median of 7 interleaved runs: 4.10 s
#: on, 3.92 s off; bench/speed.py --timm cold/floor CPU 0.671 on, 0.646 off), the cost of holding
#: them. Findings are the same either way (tests/test_speed21_equivalence.py).
LIGHT_FIRST_ROUND = False


def _worker_lint(item: Any) -> tuple[str, list[dict], list[str], list, list, dict, Optional[dict]]:
    """item: a path, or (path, roots, call_returns[, how]). Returns findings, errors, outs
    (target, root, key), deps, returns, and the questions asked of call_returns with their
    answers (with ``_Light.KEPT``: the rules have not run, the model is kept)."""
    assert _WORKER is not None
    global _PROJECT
    path, roots, call_returns = (item, (), None) if isinstance(item, str) else item[:3]
    # a 4th item: True in the first round, callers first (its rules may wait: _Light);
    # "finish": run the rules of its kept model with these kinds
    how = item[3] if not isinstance(item, str) and len(item) > 3 else None
    light = _LIGHT[0]
    _WORKER.light = light if how is True else None
    later = light.drop(path) if light is not None else None
    if _CRASH_HOOK and path.endswith(_CRASH_HOOK):  # tests only, see _CRASH_HOOK
        import signal

        os.kill(os.getpid(), signal.SIGSEGV)
    if _HANG_HOOK and path.endswith(_HANG_HOOK):  # tests only, see _HANG_HOOK
        time.sleep(3600)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        return path, [_engine_finding(path, 1, 1, f"cannot read file: {e.strerror or e}").to_dict()], [], [], [], {}, None
    if _PROJECT is None:
        from exportlint.semantics.project import Project

        _PROJECT = Project(keep_texts=False)
    _PROJECT.store_dir = _INDEX_DIR
    _PROJECT.run_files = getattr(_WORKER, "run_files", None)
    # No automatic collection while one file is linted, one young-generation collection after
    # it: a collection that starts mid-file scans the parse tree and model the file still uses
    # (each one more than once, as they age); after the file, those are freed by refcounting
    # and only its cyclic garbage and what the run keeps are left to scan. (bench/speed.py
    # --timm: ~10% of a cold run's CPU time went to collections.)
    # (that collection runs before the next file rather than after this one: a process's last
    # file leaves nothing for it to free that matters, and a one-file run skips it: ~7 ms of a
    # cold one-file call, the young objects of the modules it imported)
    was_on = gc.isenabled()
    if was_on and _COLLECT_BEFORE_NEXT[0]:
        gc.collect(1)
    gc.disable()
    try:
        if later is not None and how == "finish":
            from exportlint.isolation import call_deep

            r = call_deep(later[0], call_returns or {})
        else:
            if later is not None:  # analysed afresh
                _release_model(later[1])
            r = _WORKER.lint_bytes(data, path, project=_PROJECT, roots=roots, call_returns=call_returns)
    finally:
        if was_on:
            gc.enable()
            _COLLECT_BEFORE_NEXT[0] = True
    if _PARSE_DIR is not None:  # the parse cache's new chunks: written by a detached grandchild
        from exportlint.parsecache import flush

        flush()
    outs = [(t, root, key) for (t, root), key in zip(r.outs, r.out_keys)]
    reads = r.reads
    if r.light and reads is not None:
        reads = dict(reads)
        reads[_Light.KEPT] = True
    return path, [f.to_dict() for f in r.findings], r.errors, outs, sorted(r.deps), r.returns, reads


@dataclass
class RunResult:
    findings: list[Finding]
    errors: list[str]
    files: int
    parsed: int = 0
    cached: int = 0
    seconds: float = 0.0
    #: (path, reason) of files that could not be read: an error (exit 2), the rest is linted
    unreadable: list[tuple[str, str]] = field(default_factory=list)


#: rounds of re-analysis when the calls between files change the argument kinds
_MAX_ROUNDS = 6


def _data_sized_result(rets: dict[str, str], returns: dict[str, str], qual: str, key: Optional[str]) -> None:
    """The positions of a call's result that are data-sized tensors (``kinds.DATA_SIZED_RESULT``):
    kept only where every callee the key names agrees (an empty string otherwise)."""
    from exportlint.semantics.kinds import DATA_SIZED_RESULT

    if not key or (qual not in returns and qual + DATA_SIZED_RESULT not in returns):
        return  # a callee not analysed (yet)
    k = returns.get(qual + DATA_SIZED_RESULT, "")
    prev = rets.get(key + DATA_SIZED_RESULT)
    rets[key + DATA_SIZED_RESULT] = k if prev is None or prev == k else ""
    # the rules' callee summaries (checks.base.CALLEE_SUMMARIES, stored as ``qual + "#..."``): one
    # that any callee the key names gives. Read off the stored keys, not the registry: the registry
    # is filled by importing every rule (and libcst), which a warm run, that lints no file, skips
    head = qual + "#"
    for stored, s in returns.items():
        if s and stored.startswith(head) and "." not in stored[len(qual):] and stored != qual + DATA_SIZED_RESULT:
            rets[key + stored[len(qual):]] = s


def _same_answers(log: dict[str, Any], rets: dict[str, str]) -> bool:
    """Whether every question of ``log`` (``semantics.model.ReadReturns.log``) has the same
    answer on the result kinds ``rets``."""
    from exportlint.semantics.model import ReadReturns

    answer = ReadReturns.answer
    return all(answer(q, rets) == a for q, a in log.items())


def _root_to_json(r: Any) -> list:
    return [r.qual, r.pos, r.kw, [list(c) for c in r.chain], r.why]


def _root_from_json(d: list) -> Any:
    from exportlint.semantics.project import Root

    return Root(d[0], list(d[1]), dict(d[2]), [tuple(c) for c in d[3]], d[4])


def _file_digest(path: str, known: dict[str, str]) -> Optional[str]:
    d = known.get(path)
    if d is None:
        try:
            with open(path, "rb") as fh:
                d = hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            d = ""
        known[path] = d
    return d


def _project_facts(files: list[str], texts: dict[str, bytes], known: Optional[dict[str, bool]] = None,
                   cand_out: Optional[set] = None, fn_dims_out: Optional[dict] = None) -> tuple:
    """CONTRACTS.md item 1 from the export calls of the linted files (only the files whose
    text names an exporter are indexed; ``known``: that answer per file from the cache).
    ``fn_dims_out`` receives the declared dims carried into the functions the declared models
    reach (``semantics.dim_flow.function_dims``)."""
    known = known or {}
    cand = []
    for p in files:
        k = known.get(p)
        if k is None:
            data = texts.get(p, b"")
            k = (b"export" in data or b"trace" in data) and _has_export_call(data.decode("utf-8", "replace"))
            # an ExportDB-style module's `dynamic_shapes = {...}` declares its export's dims
            k = k or (b"dynamic_shapes" in data and b"example_args" in data)
        if k:
            cand.append(p)
    if cand_out is not None:
        cand_out.update(cand)
    if not cand:
        return (None, None, None)
    from exportlint.semantics.project import Project

    project = Project(cand)
    facts = project.export_facts(cand)
    if fn_dims_out is not None and facts[1]:
        from exportlint.semantics.dim_flow import function_dims

        entries = list(project.declared_classes.values())
        try:
            fn_dims_out.update(function_dims(project, entries))
        except (RecursionError, MemoryError, ValueError, TypeError, AttributeError, KeyError):
            # an optional refinement computed in the parent, outside the workers' isolation: on
            # code it cannot follow the run goes on without it (what no model carries stays unknown)
            pass
    return facts


def _quant_conversion(files: list[str], texts: dict[str, bytes]) -> Optional[tuple[tuple[str, int], ...]]:
    """(path, line) of the first static eager-mode quantization call in each of these files
    that has one, in path order (``torch[.ao].quantization.convert/quantize/quantize_qat(``,
    also through ``from torch[.ao].quantization import convert``): a model with ``QuantStub``
    anywhere in the project is then the converted one (EXL404 at its stub call, measured:
    torch.export strict stops there; the finding cites the site its file imports, else the
    first). ``quantize_dynamic``/``prepare`` leave stubs identities and do not count.
    None: no file converts."""
    sites: list[tuple[str, int]] = []
    for p in sorted(files):
        data = texts.get(p, b"")
        if b"quantiz" not in data:
            continue
        text = data.decode("utf-8", "replace")
        m = _STATIC_QUANT_RE.search(text)
        if m is None:
            names = [n.split(" as ")[-1].strip() for imp in _QUANT_IMPORT_RE.findall(text)
                     for n in imp.strip("()").split(",") if n.split(" as ")[0].strip() in STATIC_QUANT_CONVERSIONS]
            for n in names:
                m = re.search(r"(?<![\w.])(?<!def )" + re.escape(n) + r"\s*\(", text)
                if m is not None:
                    break
        if m is not None:
            sites.append((p, text.count("\n", 0, m.start()) + 1))
    return tuple(sites) or None


_STATIC_QUANT_RE = re.compile(r"\bquantization\.(?:" + "|".join(STATIC_QUANT_CONVERSIONS) + r")\s*\(")
_QUANT_IMPORT_RE = re.compile(r"^\s*from\s+torch(?:\.ao)?\.quantization\s+import\s+(\([^)]*\)|[^\n]+)", re.M)


def _facts_digest(facts: tuple) -> str:
    opsets, dynamic, declares, quant, fn_dims = facts
    norm = (sorted(opsets) if opsets is not None else None,
            {k: {p: sorted(map(str, v)) for p, v in d.items()} for k, d in dynamic.items()} if dynamic is not None else None,
            declares, [list(site) for site in quant] if quant is not None else None,
            {f: {q: {n: sorted(map(str, v)) for n, v in d.items()} for q, d in fq.items()} for f, fq in fn_dims.items()}
            if fn_dims else None)
    if getattr(dynamic, "by_path", None):
        # the per-file split of the dims (``ProjectDims.for_file``) reads differently per file
        norm = norm + ({f"{p}::{c}": {k: sorted(map(str, v)) for k, v in d.items()} for (p, c), d in dynamic.by_path.items()},
                       {k: {p: sorted(map(str, v)) for p, v in d.items()} for k, d in dynamic.bare.items()},
                       {k: sorted(map(str, v)) for k, v in dynamic.reach_paths.items()})
    return hashlib.sha256(json.dumps(norm, sort_keys=True).encode()).hexdigest()[:16]


def lint_paths(
    files: list[str],
    config: Config,
    *,
    jobs: Optional[int] = None,
    use_cache: bool = True,
    codes: Optional[frozenset[str]] = None,
    stdin: Optional[tuple[str, bytes]] = None,
    progress: Optional[Callable[[int], None]] = None,
    isolate: bool = True,
) -> RunResult:
    """Lint files as one project: calls between them are followed (``semantics.project``),
    findings are reported only in these files. Per file, the cache key is its content, the
    project facts, the content of the files its calls resolved through, and the argument
    kinds of the calls other files make into it. ``isolate`` (Linux): lint in forked worker
    processes even for one file, so a native crash costs that file only (``workers.py``);
    False lints small runs in this process (a caller with threads of its own)."""
    # young-generation collections every 700 allocations rescan the parse trees and indexes a
    # run keeps alive: a larger threshold cut a cold timm models+layers run's CPU time ~12%
    # (bench/speed.py --timm); restored on return (the language server calls this too)
    gc_was = gc.get_threshold()
    gc.set_threshold(max(gc_was[0], 50_000), max(gc_was[1], 20), max(gc_was[2], 100))
    try:
        return _lint_paths(files, config, jobs=jobs, use_cache=use_cache, codes=codes, stdin=stdin,
                           progress=progress, isolate=isolate)
    finally:
        gc.set_threshold(*gc_was)


def _lint_paths(
    files: list[str],
    config: Config,
    *,
    jobs: Optional[int] = None,
    use_cache: bool = True,
    codes: Optional[frozenset[str]] = None,
    stdin: Optional[tuple[str, bytes]] = None,
    progress: Optional[Callable[[int], None]] = None,
    isolate: bool = True,
) -> RunResult:
    from exportlint.semantics.project import join_roots, roots_digest

    t0 = time.perf_counter()
    cache = Cache(config, codes) if use_cache else None
    global _INDEX_DIR, _PARSE_DIR, _PROJECT
    _INDEX_DIR = str(cache.index_dir) if cache is not None else None
    # each run resolves imports afresh: a project index kept from an earlier run in this
    # process (an in-process run: isolate=False, or a platform without fork) would resolve a
    # module to the first run's folder, or to a file's text before it was edited
    _PROJECT = None
    from exportlint.parsecache import MAX_FILES

    _PARSE_DIR = (str(cache.parse_dir) if cache is not None and isolate and stdin is None
                  and sys.platform.startswith("linux") and len(files) <= MAX_FILES else None)
    findings_of: dict[str, list[Finding]] = {}
    findings: list[Finding] = []
    errors: list[str] = []
    digests: dict[str, str] = {}
    texts: dict[str, bytes] = {}
    readable: list[str] = []
    unreadable: list[tuple[str, str]] = []
    for path in files:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as e:
            unreadable.append((path, f"cannot read file: {e.strerror or e}"))
            continue
        texts[path] = data
        digests[path] = hashlib.sha256(data).hexdigest()
        readable.append(path)
    exp_known: dict[str, bool] = {}
    if cache is not None:
        for p in readable:
            m = cache.meta(p, digests[p])
            if m is not None and "exp" in m:
                exp_known[p] = bool(m["exp"])
    exporting: set = set()
    fn_dims: dict = {}
    facts = _project_facts(readable, texts, exp_known, exporting, fn_dims) + (_quant_conversion(readable, texts),
                                                                              fn_dims or None)
    fdig = _facts_digest(facts)
    abs_of = {p: os.path.abspath(p) for p in readable}
    by_abs = {a: p for p, a in abs_of.items()}
    known = {abs_of[p]: d for p, d in digests.items()}

    # ---- what the cache still answers
    outs: dict[str, list[tuple[str, Any, Optional[str]]]] = {}  # path -> [(target abs path, Root, key)]
    returns_of: dict[str, dict[str, str]] = {}  # abs path -> {qual: result kind}
    analysed_with: dict[str, str] = {}  # path -> digest of the cross-file inputs its findings used
    clean: set[str] = set()
    if cache is not None:
        for p in readable:
            meta = cache.meta(p, digests[p])
            if meta is None or meta.get("facts") != fdig:
                continue
            if any(_file_digest(d, known) != dg for d, dg in meta.get("deps", {}).items()):
                continue
            clean.add(p)
            outs[p] = [(t, _root_from_json(r), k) for t, r, k in meta.get("outs", ())]
            returns_of[abs_of[p]] = dict(meta.get("returns", {}))
            analysed_with[p] = meta.get("inputs", "")

    def inputs() -> dict[str, tuple[list, dict[str, str]]]:
        """Per file: the calls other files make into it, and the result kinds of its calls."""
        inc: dict[str, list] = {}
        rets: dict[str, dict[str, str]] = {}
        for src, lst in outs.items():
            for t, root, key in lst:
                p = by_abs.get(t)
                if p is None:
                    continue
                inc.setdefault(p, []).append(root)
                k = returns_of.get(t, {}).get(root.qual)
                if key and k is not None:
                    prev = rets.setdefault(src, {}).get(key)
                    rets[src][key] = k if prev is None or prev == k else "unknown"
                _data_sized_result(rets.setdefault(src, {}), returns_of.get(t, {}), root.qual, key)
        return {p: (join_roots(inc.get(p, [])), rets.get(p, {})) for p in readable}

    def input_of(p: str) -> tuple[list, dict[str, str]]:
        """``inputs()[p]`` alone, from what the files analysed so far found."""
        inc: list = []
        for lst in outs.values():
            for t, root, key in lst:
                if by_abs.get(t) == p:
                    inc.append(root)
        rets: dict[str, str] = {}
        for t, root, key in outs.get(p, ()):
            if by_abs.get(t) is None:
                continue
            k = returns_of.get(t, {}).get(root.qual)
            if key and k is not None:
                prev = rets.get(key)
                rets[key] = k if prev is None or prev == k else "unknown"
            _data_sized_result(rets, returns_of.get(t, {}), root.qual, key)
        return join_roots(inc), rets

    def digest_of(x: tuple[list, dict[str, str]]) -> str:
        return roots_digest(x[0]) + hashlib.sha256(json.dumps(sorted(x[1].items())).encode()).hexdigest()[:16]

    # per file analysed in this run: the inputs of its last analysis, and the questions that
    # analysis asked of its calls' result kinds (with their answers)
    last_input: dict[str, tuple[list, dict[str, str]]] = {}
    reads_of: dict[str, Optional[dict[str, Any]]] = {}
    kept: set[str] = set()  # files whose rules wait (_Light)
    finish: set[str] = set()

    def stale(p: str, x: tuple[list, dict[str, str]]) -> bool:
        """Whether ``p`` must be analysed (again) for the inputs ``x``. Not when its last
        analysis had the same calls into it and every question it asked of its calls' result
        kinds has the same answer in ``x``: the analysis, a function of those, would give the
        same result (a caller analysed before its callees: timm 34 of 222 analyses)."""
        d = digest_of(x)
        if analysed_with.get(p) == d:
            return False
        log, old = reads_of.get(p), last_input.get(p)
        if log is None or old is None or roots_digest(old[0]) != roots_digest(x[0]):
            return True
        if not _same_answers(log, x[1]):
            return True
        analysed_with[p] = d
        return False

    linter: Optional[Linter] = None
    n_jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    parsed = 0
    inp = inputs()
    todo = [p for p in readable if p not in clean or analysed_with.get(p) != digest_of(inp[p])]
    cached_paths = set(readable)
    if progress is not None and len(readable) - len(todo) + (len(files) - len(readable)):
        progress(len(readable) - len(todo) + len(files) - len(readable))  # cache answers, unreadable files
    deps_of: dict[str, Optional[list[str]]] = {}
    if todo and stdin is None:
        # none of the files to lint needs a parse (a pre-commit batch of configs, data code,
        # tokenizers): their findings (EXL002) without libcst, the rules or a worker process
        light: Optional[dict[str, list[Finding]]] = {}
        for p in todo:
            fs = _light_findings(p, texts[p], config, codes)
            if fs is None:
                light = None
                break
            light[p] = fs
        if light is not None:
            for p, fs in light.items():
                findings_of[p] = fs
                outs[p] = []
                returns_of[abs_of[p]] = {}
                deps_of[p] = []
                analysed_with[p] = digest_of(inp[p])
                cached_paths.discard(p)
                if progress is not None:
                    progress(1)
            parsed += len(todo)
            todo = []
    rounds = 0
    pool = None
    frozen = False
    try:
        while todo and rounds < _MAX_ROUNDS:
            rounds += 1
            if linter is None:
                linter = Linter(config, codes)
                linter.project_facts = facts
                # the files this run analyses: instance kinds of classes outside them could not
                # come back (semantics/objects.class_refs)
                linter.run_files = frozenset(by_abs)
            items = [(p, inp[p][0], inp[p][1], "finish") if p in finish else (p, inp[p][0], inp[p][1])
                     for p in todo]
            sent: dict[str, tuple[list, dict[str, str]]] = {p: inp[p] for p in todo}
            results: Iterable[tuple]
            global _WORKER
            fork = sys.platform.startswith("linux")
            # worker processes that may die (workers.py): with fork even a one-file run lints
            # in one (2-4 ms), so a native crash costs that file only
            # (forked workers start in ms: a pre-commit call on a few files uses the cores too)
            several = n_jobs > 1 and (len(items) >= 8 or (fork and len(items) > 1))
            # one file at a time (one worker): the first round goes importers first, each file
            # with the calls into it that the files before it found (exportlint/schedule.py)
            stream = rounds == 1 and not several and len(todo) > 1
            source: Iterable[tuple] = items
            if stream:
                from exportlint.schedule import callers_first

                def streamed(order: list[str]) -> Iterator[tuple]:
                    for p in order:
                        x = sent[p] = input_of(p)
                        yield (p, x[0], x[1], True)

                order = callers_first(todo, texts)
                _LIGHT[0] = _Light({abs_of[p]: i for i, p in enumerate(order)}) if LIGHT_FIRST_ROUND else None
                source = streamed(order)
            if several or (fork and isolate):
                if pool is None:
                    from exportlint.workers import Pool

                    _WORKER = linter  # a forked worker has it; a spawned one builds its own
                    if fork:
                        # what the parent built (libcst's classes, the rules) moves out of the
                        # collector's reach: collections in the workers then do not touch (and
                        # copy) those pages; measured -10 ms CPU per worker on a one-file run
                        gc.freeze()
                        frozen = True
                    pool = Pool(min(n_jobs, len(items)) if several else 1, _worker_lint,
                                context=_pool_context(fork),
                                initializer=None if fork else _worker_init,
                                initargs=(config, linter.enabled, facts), item_timeout=config.file_timeout)
                chunk = 1 if stream else max(1, min(16, len(items) // (n_jobs * 8) or 1))
                results = (_pool_answer(r, texts, linter) for r in pool.imap_unordered(source, chunksize=chunk))
            else:
                _WORKER = linter
                results = (_worker_lint(it) for it in source)
            for path, fdicts, errs, file_outs, deps, rets, reads in results:
                findings_of[path] = [Finding.from_dict(d) for d in fdicts]
                errors.extend(errs)
                outs[path] = file_outs
                returns_of[abs_of[path]] = rets
                # a file with internal errors, or stopped by file-timeout (deps None), is never cached
                deps_of[path] = None if errs or deps is None else deps
                analysed_with[path] = digest_of(sent[path])
                last_input[path] = sent[path]
                if reads is not None and reads.pop(_Light.KEPT, False):
                    kept.add(path)  # its rules wait for the next round (_Light)
                else:
                    kept.discard(path)
                reads_of[path] = reads
                cached_paths.discard(path)
                if progress is not None and rounds == 1:
                    progress(1)
            parsed += len(items)
            inp = inputs()
            todo = [p for p in readable if stale(p, inp[p]) or p in kept]
            # a kept file whose inputs answer its questions as before: its rules only
            finish = {p for p in kept if analysed_with.get(p) == digest_of(inp[p])}
    except BaseException:
        if pool is not None:
            pool.terminate()
            pool = None
        raise
    finally:
        if pool is not None:
            pool.close()
        if frozen:
            gc.unfreeze()
        _LIGHT[0] = None
    if stdin is not None:
        if linter is None:
            linter = Linter(config, codes)
            linter.project_facts = facts
        r = linter.lint_bytes(stdin[1], stdin[0])
        findings.extend(r.findings)
        errors.extend(r.errors)
    for p in readable:
        if p in findings_of:
            findings.extend(findings_of[p])
            if cache is not None and deps_of.get(p) is not None:
                meta = {
                    "facts": fdig,
                    "deps": {d: _file_digest(d, known) for d in deps_of[p]},
                    "inputs": analysed_with.get(p, ""),
                    "outs": [[t, _root_to_json(r), k] for t, r, k in outs.get(p, ())],
                    "returns": returns_of.get(abs_of[p], {}),
                    "exp": p in exporting,
                }
                cache.put(p, digests[p], findings_of[p], meta)
        elif cache is not None:
            hit = cache.get(p, digests[p])
            if hit is not None:
                findings.extend(hit)
    if cache is not None:
        cache.save()
    findings.sort(key=Finding.sort_key)
    return RunResult(findings, errors, len(files) + (1 if stdin else 0), parsed, len(cached_paths),
                     time.perf_counter() - t0, unreadable)


def _pool_context(fork: bool) -> Any:
    """forkproc.FORK with fork (no ``multiprocessing`` import: see forkproc.py), else
    multiprocessing's spawn context."""
    if fork:
        from exportlint.forkproc import FORK

        return FORK
    import multiprocessing as mp

    return mp.get_context("spawn")


def _pool_answer(r: Any, texts: dict[str, bytes], linter: Linter) -> tuple:
    """A worker's answer as ``_worker_lint`` returns it; a crashed or failed file as its
    finding or internal error (the other files are not affected)."""
    from exportlint.workers import Crashed, Failed

    if isinstance(r, Crashed):
        path = r.item[0] if isinstance(r.item, tuple) else r.item
        return _crashed_result(path, r.how(), texts.get(path, b""), linter, timed_out=r.timed_out is not None)
    if isinstance(r, Failed):
        path = r.item[0] if isinstance(r.item, tuple) else r.item
        return path, [], [f"{path}: internal error:\n{r.traceback}"], [], [], {}, None
    return r


def lint_source(source: str, path: str = "<string>", config: Optional[Config] = None,
                codes: Optional[Iterable[str]] = None) -> list[Finding]:
    """Convenience API: findings for a source string (used by tests, LSP, confirm)."""
    cfg = config or Config()
    linter = Linter(cfg, frozenset(codes) if codes is not None else None)
    r = linter.lint_text(source, path)
    if r.errors:
        raise RuntimeError("\n".join(r.errors))
    return r.findings


__all__ = ["FileContext", "FileResult", "Linter", "RunResult", "lint_paths", "lint_source", "EXPORTERS"]
