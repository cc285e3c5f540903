"""The engine: source -> findings, for one file (``lint_source``) or many (``lint_paths``).

Per file: decode -> cheap text prefilter -> libcst parse -> semantic model -> rules ->
positions (only for reported nodes) -> suppressions. Files are independent: a process pool
runs them on every core, and results are cached by (content hash, config, exportlint code).
The static path never imports torch.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import sys
import tempfile
import time
import tokenize
import traceback
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

from exportlint import __version__
from exportlint.config import Config
from exportlint.findings import EXPORTERS, Finding, Fix, Severity

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from exportlint.checks.base import Rule
    from exportlint.semantics.model import SemanticModel

# libcst, the rules and the semantic model are imported on first use (``Linter()``), not at
# import time: a run whose files are all cache hits never needs them, and ``import libcst``
# alone costs more than the rest of such a run.

#: files larger than this are reported (EXL001) instead of parsed
MAX_FILE_BYTES = 8 * 1024 * 1024

# A file can only matter if it defines a forward (module or autograd.Function) or calls an
# exporter. Everything else (configs, tokenizers, data pipelines) is skipped before parsing.
_MODEL_RE = re.compile(r"\bdef\s+forward\b")
_EXPORT_RE = re.compile(
    r"\b(?:export|trace|trace_module|dynamo_export|draft_export|export_for_training|export_for_inference)\s*\("
)


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
    from exportlint.isolation import python_limits

    try:
        with python_limits():  # what `import` accepts, not the lint thread's raised limit
            compile(text, path, "exec", 0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except SyntaxError as e:
        return e
    except ValueError as e:  # NUL bytes
        err = SyntaxError(str(e))
        err.lineno, err.offset = 1, 1
        return err
    except (RecursionError, MemoryError) as e:  # deeper than CPython's parser accepts
        from exportlint.isolation import deepest_line

        err = SyntaxError(f"Python's parser refuses it: {type(e).__name__}: {e}")
        err.lineno, err.offset = deepest_line(text)
        err.too_deep = True  # type: ignore[attr-defined]
        return err
    return None


def _syntax_finding(path: str, err: SyntaxError) -> Finding:
    if getattr(err, "too_deep", False):  # EXL003, see exportlint/isolation.py
        from exportlint.isolation import too_deep_message

        return _engine_finding(path, err.lineno or 1, err.offset or 1, too_deep_message(err.msg), "EXL003")
    return _engine_finding(path, max(err.lineno or 1, 1), max(err.offset or 1, 1), f"syntax error: {err.msg}")


def _no_validate(self: cst.CSTNode) -> None:
    return None


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
    try:
        return cst.parse_module(text)
    finally:
        base.__post_init__ = orig  # type: ignore[method-assign]


@dataclass
class Reported:
    node: cst.CSTNode
    code: str
    message: str
    severity: Severity
    exporters: tuple[str, ...]
    fix: Optional[Fix]
    anchor: Optional[tuple] = None
    fix_node: Any = None


class FileContext:
    """What a rule sees: the file, its parse tree, the semantic model, the config."""

    def __init__(self, path: str, text: str, module: cst.Module, model: SemanticModel, config: Config) -> None:
        self.path = path
        self.text = text
        self.module = module
        self.model = model
        self.config = config
        self.reported: list[Reported] = []
        self._rule: Optional[Rule] = None

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        code: Optional[str] = None,
        severity: Optional[Severity] = None,
        exporters: Optional[Iterable[str]] = None,
        fix: Optional[Fix] = None,
        anchor: Optional[tuple] = None,
        fix_node: Any = None,
    ) -> None:
        """Report a finding at node. ``anchor`` = (FunctionDef, indent) containing it, when the
        rule knows it (it makes positions cheap); otherwise the engine finds it."""
        rule = self._rule
        assert rule is not None, "report() outside a rule"
        exps = tuple(exporters) if exporters is not None else rule.exporters
        self.reported.append(
            Reported(
                node=node,
                code=code or rule.code,
                message=message,
                severity=severity or rule.severity,
                exporters=exps,
                fix=fix,
                anchor=anchor,
                fix_node=fix_node,
            )
        )

    def source_of(self, node: cst.CSTNode) -> str:
        """The source text of a node (cheap for small expression nodes)."""
        return self.module.code_for_node(node)


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    #: internal errors (a rule crashed): reported on stderr, exit status 2
    errors: list[str] = field(default_factory=list)
    parsed: bool = False


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


class Linter:
    """Holds the enabled rules and config; lints sources. Built once per process."""

    def __init__(self, config: Config, codes: Optional[frozenset[str]] = None) -> None:
        from exportlint.checks.base import all_rules

        self.config = config
        rules = all_rules()
        self.known_codes = frozenset(rules)
        enabled = codes if codes is not None else config.enabled_codes(list(rules))
        self.enabled = enabled
        self.rules: list[Rule] = [cls() for code, cls in rules.items() if code in enabled and cls.scope != "engine"]
        self.targets = frozenset(config.target_exporters)

    def lint_bytes(self, data: bytes, path: str) -> FileResult:
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
        return self.lint_text(text, path)

    def lint_text(self, text: str, path: str) -> FileResult:
        # in a thread with a large stack and recursion limit: deep valid code lints, and the
        # native parser does not overflow the C stack (measurements in exportlint/isolation.py)
        from exportlint.isolation import call_deep

        return call_deep(self._lint_text, text, path)

    def _lint_text(self, text: str, path: str) -> FileResult:
        import libcst as cst

        from exportlint.positions import resolve_positions
        from exportlint.semantics.model import SemanticModel
        from exportlint.suppress import parse_suppressions

        res = FileResult(path)
        is_model = _MODEL_RE.search(text) is not None
        has_export = _EXPORT_RE.search(text) is not None
        sup = parse_suppressions(text)
        reported: list[Reported] = []
        module = None
        if is_model or has_export:
            # always: CPython places syntax errors exactly, and refuses code too deep for it
            # (and for libcst's native parser: isolation.py) in a few % of libcst's time
            err = _python_syntax_error(text, path)
            if err is not None:
                if ("EXL003" if getattr(err, "too_deep", False) else "EXL001") in self.enabled:
                    res.findings.append(_syntax_finding(path, err))
            else:
                try:
                    module = parse_module(text)
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
                    if "EXL003" in self.enabled:
                        from exportlint.isolation import deepest_line, too_deep_message

                        res.findings.append(_engine_finding(path, *deepest_line(text), too_deep_message("libcst parser"), "EXL003"))
                    module = None
                except Exception as e:  # libcst can raise others on exotic input
                    if "EXL001" in self.enabled:
                        res.findings.append(_engine_finding(path, 1, 1, f"cannot parse: {type(e).__name__}: {e}"))
                    module = None
            if module is not None:
                res.parsed = True
                try:
                    model = SemanticModel(module, scan_export_calls=has_export)
                except RecursionError:
                    if "EXL003" in self.enabled:
                        from exportlint.isolation import deepest_line, too_deep_message

                        res.findings.append(_engine_finding(path, *deepest_line(text), too_deep_message("semantic model"), "EXL003"))
                    model = None
                except Exception:
                    res.errors.append(f"{path}: internal error building the semantic model:\n{traceback.format_exc()}")
                    model = None
                if model is not None:
                    ctx = FileContext(path, text, module, model, self.config)
                    for rule in self.rules:
                        if rule.scope == "export-path" and not model.functions:
                            continue
                        ctx._rule = rule
                        try:
                            for _ in rule.check(ctx) or ():
                                pass
                        except RecursionError:
                            if "EXL003" in self.enabled:
                                from exportlint.isolation import deepest_line, too_deep_message

                                res.findings.append(_engine_finding(
                                    path, *deepest_line(text), too_deep_message(f"rule {rule.code}"), "EXL003"))
                        except Exception:
                            res.errors.append(f"{path}: internal error in rule {rule.code}:\n{traceback.format_exc()}")
                    reported = ctx.reported
        if reported and module is not None:
            for r in reported:
                if r.anchor is None:
                    for fn in model.functions:
                        if id(r.node) in fn.kinds:
                            r.anchor = fn.anchor
                            break
            items = [(r.node, r.anchor) for r in reported]
            items += [(r.fix_node, r.anchor) for r in reported if r.fix_node is not None]
            pos = resolve_positions(module, text, items)
            for r in reported:
                exps = tuple(e for e in r.exporters if e in self.targets)
                if r.exporters and not exps:
                    continue  # breaks only exporters this project does not target
                line, col, eline, ecol = pos.get(id(r.node), (1, 1, 1, 1))
                fix = r.fix
                if fix is not None and r.fix_node is not None and id(r.fix_node) in pos:
                    fl, fc, fel, fec = pos[id(r.fix_node)]
                    fix = Fix(fix.replacement, fix.safety, fix.description, fl, fc, fel, fec)
                res.findings.append(
                    Finding(r.code, r.severity, path, line, col, eline, ecol, r.message, exps, fix)
                )
        # EXL002: suppression comments naming codes that do not exist
        if sup.named and "EXL002" in self.enabled:
            for line, col, ecol, code in sup.named:
                if code not in self.known_codes:
                    res.findings.append(
                        Finding(
                            "EXL002", Severity.WARNING, path, line, col, line, ecol,
                            f"suppression names unknown rule code {code} (see `exportlint rules`)", (),
                        )
                    )
        # suppressions and per-file ignores
        ignored = self.config.ignored_for_path(_relpath(path, self.config.root))
        out = []
        seen = set()
        for f in res.findings:
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
        res.findings = out
        return res


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
        self.file = self.dir / f"v{__version__}-{_code_fingerprint()}-{key}.json"
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

    def put(self, path: str, digest: str, findings: list[Finding]) -> None:
        self.entries[path] = [digest, [f.to_dict() for f in findings]]
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


def _worker_init(config: Config, codes: frozenset[str]) -> None:
    global _WORKER
    _WORKER = Linter(config, codes)


def _worker_lint(path: str) -> tuple[str, list[dict], list[str]]:
    assert _WORKER is not None
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        return path, [_engine_finding(path, 1, 1, f"cannot read file: {e.strerror or e}").to_dict()], []
    r = _WORKER.lint_bytes(data, path)
    return path, [f.to_dict() for f in r.findings], r.errors


@dataclass
class RunResult:
    findings: list[Finding]
    errors: list[str]
    files: int
    parsed: int = 0
    cached: int = 0
    seconds: float = 0.0


def lint_paths(
    files: list[str],
    config: Config,
    *,
    jobs: Optional[int] = None,
    use_cache: bool = True,
    codes: Optional[frozenset[str]] = None,
    stdin: Optional[tuple[str, bytes]] = None,
) -> RunResult:
    t0 = time.perf_counter()
    cache = Cache(config, codes) if use_cache else None
    findings: list[Finding] = []
    errors: list[str] = []
    todo: list[str] = []
    digests: dict[str, str] = {}
    cached = 0
    for path in files:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as e:
            findings.append(_engine_finding(path, 1, 1, f"cannot read file: {e.strerror or e}"))
            continue
        if cache is not None:
            digest = hashlib.sha256(data).hexdigest()
            digests[path] = digest
            hit = cache.get(path, digest)
            if hit is not None:
                findings.extend(hit)
                cached += 1
                continue
        todo.append(path)
    # built only when something must be linted: a run of cache hits never imports libcst
    linter = Linter(config, codes) if (todo or stdin is not None) else None
    if stdin is not None:
        r = linter.lint_bytes(stdin[1], stdin[0])
        findings.extend(r.findings)
        errors.extend(r.errors)
    n_jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    results: Iterable[tuple[str, list[dict], list[str]]]
    if not todo:
        results = []
    elif n_jobs > 1 and len(todo) >= 8:
        import multiprocessing as mp

        method = "fork" if sys.platform.startswith("linux") else "spawn"
        ctx = mp.get_context(method)
        chunk = max(1, min(16, len(todo) // (n_jobs * 8) or 1))
        with ctx.Pool(n_jobs, initializer=_worker_init, initargs=(config, linter.enabled)) as pool:
            results = list(pool.imap_unordered(_worker_lint, todo, chunksize=chunk))
    else:
        global _WORKER
        _WORKER = linter
        results = [_worker_lint(p) for p in todo]
    for path, fdicts, errs in results:
        fs = [Finding.from_dict(d) for d in fdicts]
        findings.extend(fs)
        errors.extend(errs)
        if cache is not None and not errs and path in digests:
            cache.put(path, digests[path], fs)
    if cache is not None:
        cache.save()
    findings.sort(key=Finding.sort_key)
    return RunResult(findings, errors, len(files) + (1 if stdin else 0), len(todo), cached, time.perf_counter() - t0)


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
