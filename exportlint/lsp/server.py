"""``exportlint server``: a language server (pygls) on top of the same engine as the CLI.

- Diagnostics: on didOpen / didSave at once, on didChange after a short quiet period (only
  the latest version is linted and published); cleared on didClose. Each diagnostic is the
  ``lsp`` output format's (``exportlint.report.to_lsp_diagnostic``), with positions converted
  to the client's position encoding.
- Configuration: the closest ``exportlint.toml`` / ``pyproject.toml`` with ``[tool.exportlint]``
  above the document, resolved once per directory and cached (one ``Linter`` per config file);
  a configuration error is shown once with ``window/showMessage`` and that file's documents
  are linted with the defaults. Saving or changing a config file drops the cache.
- Code actions: a quick fix per finding with a fix (the title says how safe it is; only safe
  fixes are preferred), "Suppress EXLnnn on this line" per finding, and
  ``source.fixAll.exportlint`` (all safe fixes of the file).
- Hover: the findings under the cursor with their rule title, exporters and fix.

The server never raises on bad input: a syntax error is an EXL001 diagnostic, an internal
error is logged (stderr and ``window/logMessage``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter

from exportlint import __version__
from exportlint.config import Config, ConfigError, find_config_file, load_config
from exportlint.engine import MAX_FILE_BYTES, Linter
from exportlint.findings import EXPORTER_TITLES, Finding, FixSafety, Severity
from exportlint.lsp import edits as E
from exportlint.report import to_lsp_diagnostic

logger = logging.getLogger("exportlint.lsp")

SOURCE = "exportlint"
FIX_ALL_KIND = "source.fixAll.exportlint"
CONFIG_NAMES = frozenset({"pyproject.toml", "exportlint.toml"})
PY_SUFFIXES = (".py", ".pyi")
DEFAULT_DEBOUNCE = 0.15
#: the lint thread's stack: deeply nested code overflows a default 8 MiB thread stack inside
#: libcst (a segfault, which would take the editor's server down) long before Python's
#: recursion limit turns it into a RecursionError the engine reports
LINT_THREAD_STACK = 256 * 1024 * 1024

_SAFETY_TITLE = {
    FixSafety.SAFE: "safe fix",
    FixSafety.UNSAFE: "unsafe fix: may change behaviour, review it",
    FixSafety.DISPLAY: "suggestion only: review before keeping",
}


@dataclass
class LintResult:
    """The findings of one version of one document."""

    version: Optional[int]
    text: str
    findings: list[Finding]
    lines: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.lines:
            self.lines = E.split_lines(self.text)


@dataclass
class _LinterEntry:
    config: Config
    error: Optional[str] = None
    linter: Optional[Linter] = None

    def get_linter(self) -> Linter:
        """Built on first use, in the lint thread (the first build imports every rule)."""
        if self.linter is None:
            self.linter = Linter(self.config)
        return self.linter


_WARMUP_SOURCE = "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x\n"


def _warm_up() -> None:
    """Import the rules and the parser before the first document arrives."""
    try:
        Linter(Config()).lint_text(_WARMUP_SOURCE, "<warm-up>")
    except Exception:
        logger.debug("warm-up failed", exc_info=True)


def _lint_job(entry: _LinterEntry, text: str, path: str) -> tuple[list[Finding], list[str]]:
    """Runs in the lint thread. Never raises."""
    errors: list[str] = []
    try:
        linter = entry.get_linter()
    except Exception:
        errors.append(f"cannot build the linter for {entry.config.source or 'the defaults'}:\n{traceback.format_exc()}")
        entry.config = Config(root=entry.config.root)
        try:
            linter = entry.get_linter()
        except Exception:
            return [], errors + [traceback.format_exc()]
    try:
        if len(text) > MAX_FILE_BYTES:
            if "EXL001" not in linter.enabled:
                return [], []
            msg = f"file too large to lint ({len(text) // 1024} KiB > {MAX_FILE_BYTES // 1024} KiB)"
            return [Finding("EXL001", Severity.ERROR, path, 1, 1, 1, 1, msg, ())], []
        # the same project resolution as the CLI on one file (imports indexed on demand)
        project = None
        if not path.startswith("<") and os.path.isabs(path):
            from exportlint.semantics.project import Project

            project = Project()
        r = linter.lint_text(text, path, project=project)
        return r.findings, errors + r.errors
    except RecursionError:
        return [], errors + [f"{path}: internal error: nesting too deep"]
    except Exception:
        return [], errors + [f"{path}: internal error:\n{traceback.format_exc()}"]


class ExportlintServer(LanguageServer):
    def __init__(self, debounce: float = DEFAULT_DEBOUNCE) -> None:
        super().__init__("exportlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.debounce = debounce
        # one lint at a time, off the event loop (the engine is not meant to be re-entered
        # from several threads: parse_module toggles libcst validation globally)
        self._lint_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="exportlint-lint")
        self._start_lint_thread()
        self._converter = default_converter()
        self._tasks: dict[str, asyncio.Task] = {}
        self._results: dict[str, LintResult] = {}
        self._dir_config: dict[str, Optional[str]] = {}
        self._linters: dict[str, _LinterEntry] = {}
        self._shown_errors: set[str] = set()
        self.shutdown_requested = False
        self.exit_requested = False

    def _start_lint_thread(self) -> None:
        """Start the single lint thread now, with a large stack (stack_size applies to
        threads created after it is set, so it is set only around this one)."""
        try:
            old: Optional[int] = threading.stack_size(LINT_THREAD_STACK)
        except (ValueError, RuntimeError):
            old = None
        try:
            self._lint_pool.submit(lambda: None).result(timeout=30)
        finally:
            if old is not None:
                threading.stack_size(old)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls shows every out-of-band error in a popup; a linter should only log them
        (a malformed message from the client, a change to a document never opened)."""
        self.log(f"exportlint server: {type(error).__name__}: {error}")

    # ---- encoding and conversion ---------------------------------------------------------

    @property
    def encoding(self) -> str:
        try:
            enc = self.workspace.position_encoding
        except Exception:
            return "utf-16"
        return str(getattr(enc, "value", enc) or "utf-16")

    def _range(self, lines: list[str], sl: int, sc: int, el: int, ec: int) -> types.Range:
        enc = self.encoding
        a = E.to_client_units(lines, sl, sc, enc)
        b = E.to_client_units(lines, el, ec, enc)
        return types.Range(types.Position(*a), types.Position(*b))

    def _server_range(self, lines: list[str], r: types.Range) -> tuple[int, int, int, int]:
        enc = self.encoding
        a = E.from_client_units(lines, r.start.line, r.start.character, enc)
        b = E.from_client_units(lines, r.end.line, r.end.character, enc)
        return (*a, *b)

    def diagnostic(self, f: Finding, lines: list[str]) -> types.Diagnostic:
        d = to_lsp_diagnostic(f)
        s, e = d["range"]["start"], d["range"]["end"]
        sl, sc = E.to_client_units(lines, s["line"], s["character"], self.encoding)
        el, ec = E.to_client_units(lines, e["line"], e["character"], self.encoding)
        d["range"] = {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}
        return self._converter.structure(d, types.Diagnostic)

    def text_edit(self, e: E.Edit, lines: list[str]) -> types.TextEdit:
        return types.TextEdit(range=self._range(lines, e.start_line, e.start_char, e.end_line, e.end_char), new_text=e.new_text)

    # ---- logging -------------------------------------------------------------------------

    def log(self, message: str, level: types.MessageType = types.MessageType.Error) -> None:
        (logger.error if level == types.MessageType.Error else logger.info)("%s", message)
        try:
            self.window_log_message(types.LogMessageParams(type=level, message=message))
        except Exception:  # no client (yet), closed pipe
            pass

    def show(self, message: str, level: types.MessageType = types.MessageType.Error) -> None:
        logger.warning("%s", message)
        try:
            self.window_show_message(types.ShowMessageParams(type=level, message=message))
        except Exception:
            pass

    # ---- configuration -------------------------------------------------------------------

    def _folder_for(self, path: Path) -> Path:
        """The workspace folder containing path (the deepest), else the root, else its dir."""
        best: Optional[Path] = None
        try:
            folders = [Path(f.uri and _uri_path(f.uri) or "") for f in self.workspace.folders.values()]
            root = self.workspace.root_path
        except Exception:
            folders, root = [], None
        if root:
            folders.append(Path(root))
        for fo in folders:
            if str(fo) and (fo == path or fo in path.parents):
                if best is None or len(str(fo)) > len(str(best)):
                    best = fo
        return best or path.parent

    def linter_for(self, path: Optional[str]) -> _LinterEntry:
        """The Linter for a document path: the closest config above it, resolved once per
        directory; one Linter per config file."""
        if path and os.path.isabs(path):
            p = Path(path)
            start = p.parent
        else:
            p = None
            root = None
            try:
                root = self.workspace.root_path
            except Exception:
                pass
            start = Path(root) if root else Path.cwd()
        key_dir = str(start)
        if key_dir not in self._dir_config:
            try:
                cfg_file = find_config_file(start) if start.is_dir() else None
            except OSError:
                cfg_file = None
            self._dir_config[key_dir] = str(cfg_file) if cfg_file else None
        cfg_path = self._dir_config[key_dir]
        folder = self._folder_for(p) if p is not None else start
        key = cfg_path or f"<defaults>:{folder}"
        entry = self._linters.get(key)
        if entry is None:
            error = None
            try:
                cfg = load_config(Path(cfg_path)) if cfg_path else Config(root=folder.resolve())
            except ConfigError as e:
                error = str(e)
                cfg = Config(root=Path(cfg_path).parent.resolve() if cfg_path else folder.resolve())
            except Exception as e:  # never let a config problem take the server down
                error = f"{cfg_path}: cannot load configuration: {type(e).__name__}: {e}"
                cfg = Config(root=folder.resolve())
            if error is not None:
                if error not in self._shown_errors:
                    self._shown_errors.add(error)
                    self.show(f"exportlint: {error} (linting with the default settings)")
            entry = _LinterEntry(cfg, error)
            self._linters[key] = entry
        return entry

    def reset_config(self) -> None:
        self._dir_config.clear()
        self._linters.clear()
        self._shown_errors.clear()

    # ---- linting -------------------------------------------------------------------------

    def _document(self, uri: str):
        """The open document for uri, or None (never reads from disk)."""
        try:
            docs = self.workspace.text_documents
        except Exception:
            return None
        from urllib.parse import unquote

        return docs.get(unquote(uri))

    @staticmethod
    def _is_python(doc) -> bool:
        lang = (doc.language_id or "").lower()
        if lang:
            return lang == "python"
        return str(doc.uri).endswith(PY_SUFFIXES)

    def _excluded(self, entry: _LinterEntry, path: str) -> bool:
        from exportlint.discovery import excluded_with_parents

        cfg = entry.config
        try:
            return excluded_with_parents(Path(path), cfg.root.resolve(), tuple(cfg.exclude) + tuple(cfg.extend_exclude))
        except Exception:
            return False

    async def lint_now(self, uri: str, publish: bool = True) -> Optional[LintResult]:
        """Lint the current version of an open document; publish unless a newer version
        arrived meanwhile. Returns the result (None: not open / not Python)."""
        doc = self._document(uri)
        if doc is None or not self._is_python(doc):
            return None
        version, text = doc.version, doc.source
        path = doc.path if getattr(doc, "path", None) else uri
        is_file = str(uri).startswith("file:")
        entry = self.linter_for(path if is_file else None)
        if is_file and self._excluded(entry, path):
            findings: list[Finding] = []
            errors: list[str] = []
        else:
            loop = asyncio.get_running_loop()
            t0 = time.perf_counter()
            findings, errors = await loop.run_in_executor(self._lint_pool, _lint_job, entry, text, path)
            logger.debug("linted %s v%s in %.1f ms: %d findings", uri, version, (time.perf_counter() - t0) * 1e3, len(findings))
        for err in errors:
            self.log(f"exportlint: {err}")
        res = LintResult(version, text, findings)
        cur = self._document(uri)
        if cur is None or cur.version != version or cur.source != text:
            return res  # closed or changed while linting: the newer version publishes
        self._results[uri] = res
        if publish:
            self.publish(uri, res)
        return res

    def publish(self, uri: str, res: LintResult) -> None:
        diags = []
        for f in res.findings:
            try:
                diags.append(self.diagnostic(f, res.lines))
            except Exception:
                self.log(f"exportlint: cannot convert finding {f.code} at {f.line}:{f.column}:\n{traceback.format_exc()}")
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=res.version)
        )

    def schedule(self, uri: str, delay: float) -> None:
        old = self._tasks.pop(uri, None)
        if old is not None and not old.done():
            old.cancel()

        async def run() -> None:
            try:
                if delay > 0:
                    await asyncio.sleep(delay)
                await self.lint_now(uri)
            except asyncio.CancelledError:
                pass
            except Exception:
                self.log(f"exportlint: internal error linting {uri}:\n{traceback.format_exc()}")
            finally:
                if self._tasks.get(uri) is task:
                    del self._tasks[uri]

        task = asyncio.get_running_loop().create_task(run())
        self._tasks[uri] = task

    async def current_result(self, uri: str) -> Optional[LintResult]:
        """The findings of the document as it is now (lints now if they are stale)."""
        doc = self._document(uri)
        if doc is None:
            return None
        res = self._results.get(uri)
        if res is not None and res.version == doc.version and res.text == doc.source:
            return res
        res = await self.lint_now(uri)
        if res is not None and self._results.get(uri) is res:
            pending = self._tasks.pop(uri, None)  # it would lint and publish the same version again
            if pending is not None and not pending.done():
                pending.cancel()
        return res

    def relint_all(self) -> None:
        for uri in list(self._results):
            self.schedule(uri, 0)

    def close(self, uri: str) -> None:
        t = self._tasks.pop(uri, None)
        if t is not None and not t.done():
            t.cancel()
        self._results.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def stop(self) -> None:
        for t in list(self._tasks.values()):
            t.cancel()
        self._tasks.clear()
        self._lint_pool.shutdown(wait=False, cancel_futures=True)

    # ---- code actions --------------------------------------------------------------------

    def _workspace_edit(self, uri: str, version: Optional[int], text_edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        caps = self.client_capabilities
        doc_changes = False
        try:
            doc_changes = bool(caps.workspace and caps.workspace.workspace_edit and caps.workspace.workspace_edit.document_changes)
        except Exception:
            pass
        if doc_changes:
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                        edits=text_edits,
                    )
                ]
            )
        return types.WorkspaceEdit(changes={uri: text_edits})

    def code_actions(self, uri: str, res: LintResult, params: types.CodeActionParams) -> list[types.CodeAction]:
        only = [str(getattr(k, "value", k)) for k in (params.context.only or [])]

        def wanted(kind: str) -> bool:
            return not only or any(kind == k or kind.startswith(k + ".") for k in only)

        lines = res.lines
        req = self._server_range(lines, params.range)
        ctx_diags = [d for d in params.context.diagnostics if (d.source or SOURCE) == SOURCE]
        ctx_codes = {str(d.code) for d in ctx_diags if d.code is not None}

        def ranges_overlap(f: Finding) -> bool:
            sl, sc, el, ec = E.finding_range(f)
            a, b = (req[0], req[1]), (req[2], req[3])
            return (sl, sc) <= b and a <= (el, ec)

        selected: list[tuple[Finding, types.Diagnostic]] = []
        for f in res.findings:
            diag = self.diagnostic(f, lines)
            match = next(
                (d for d in ctx_diags if str(d.code) == f.code and d.range == diag.range), None
            )
            if match is not None:
                selected.append((f, match))
            elif ranges_overlap(f) and (not ctx_codes or f.code in ctx_codes):
                selected.append((f, diag))

        actions: list[types.CodeAction] = []
        original_parses: Optional[bool] = None
        version = res.version
        if wanted(types.CodeActionKind.QuickFix.value):
            for f, diag in selected:
                e = E.fix_edit(f)
                if e is not None and f.fix is not None:
                    if original_parses is None:
                        original_parses = E.parses(res.text)
                    if original_parses and not E.parses(E.apply_edits(res.text, [e])):
                        self.log(f"exportlint: not offering the {f.code} fix at {f.line}:{f.column}: the result does not parse",
                                 types.MessageType.Warning)
                    else:
                        what = f.fix.title or f.fix.description or (f"replace with `{f.fix.replacement}`" if f.fix.replacement else "remove")
                        actions.append(
                            types.CodeAction(
                                title=f"Fix {f.code}: {what} ({_SAFETY_TITLE[f.fix.safety]})",
                                kind=types.CodeActionKind.QuickFix,
                                diagnostics=[diag],
                                is_preferred=f.fix.safety == FixSafety.SAFE,
                                edit=self._workspace_edit(uri, version, [self.text_edit(e, lines)]),
                            )
                        )
            unsafe_lines: Optional[frozenset[int]] = None
            seen: set[tuple[str, int]] = set()
            for f, diag in selected:
                if f.code in E.UNSUPPRESSIBLE or (f.code, f.line) in seen:
                    continue
                seen.add((f.code, f.line))
                if unsafe_lines is None:
                    unsafe_lines = E.string_continuation_lines(res.text)
                e = E.suppress_edit(lines, f, unsafe_lines)
                if e is None:
                    continue
                actions.append(
                    types.CodeAction(
                        title=f"Suppress {f.code} on this line",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diag],
                        is_preferred=False,
                        edit=self._workspace_edit(uri, version, [self.text_edit(e, lines)]),
                    )
                )
        if wanted(FIX_ALL_KIND):
            chosen = E.select_fix_all(res.findings)
            if chosen:
                all_edits = [e for _, e in chosen]
                new_text = E.apply_edits(res.text, all_edits)
                if not E.parses(res.text) or E.parses(new_text):
                    actions.append(
                        types.CodeAction(
                            title=f"exportlint: apply all safe fixes ({len(chosen)})",
                            kind=FIX_ALL_KIND,
                            edit=self._workspace_edit(uri, version, [self.text_edit(e, lines) for e in all_edits]),
                        )
                    )
        return actions

    # ---- hover ---------------------------------------------------------------------------

    def hover(self, res: LintResult, pos: types.Position) -> Optional[types.Hover]:
        line, char = E.from_client_units(res.lines, pos.line, pos.character, self.encoding)
        here = []
        for f in res.findings:
            sl, sc, el, ec = E.finding_range(f)
            if (sl, sc) <= (line, char) <= (el, ec):
                here.append(f)
        if not here:
            return None
        from exportlint.ruledocs import doc_url, load_doc

        parts = []
        for f in here:
            try:
                doc = load_doc(f.code)
            except Exception:
                doc = None
            title = doc.title if doc is not None else f.code
            if not title.startswith(f.code):
                title = f"{f.code} {title}"
            md = [f"**{title}** ({f.severity.value})", "", f.message]
            if f.exporters:
                md += ["", "Breaks: " + ", ".join(EXPORTER_TITLES.get(e, e) for e in f.exporters)]
            if f.fix is not None:
                rep = f.fix.replacement or "(remove)"
                md += ["", f"Fix ({f.fix.safety.value}): `{rep}`" + (f" — {f.fix.description}" if f.fix.description else "")]
            md += ["", f"[{f.code} documentation]({doc_url(f.code)})"]
            parts.append("\n".join(md))
        sl, sc, el, ec = E.finding_range(here[0])
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
            range=self._range(res.lines, sl, sc, el, ec),
        )


def _uri_path(uri: str) -> str:
    from pygls.uris import to_fs_path

    return to_fs_path(uri) or ""


def create_server(debounce: float = DEFAULT_DEBOUNCE) -> ExportlintServer:
    server = ExportlintServer(debounce=debounce)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: ExportlintServer, params: types.InitializedParams) -> None:
        # watch config files when the client can (Neovim, VS Code): edits outside the editor
        # then refresh the cached settings
        try:
            caps = ls.client_capabilities
            dyn = caps.workspace and caps.workspace.did_change_watched_files and caps.workspace.did_change_watched_files.dynamic_registration
        except Exception:
            dyn = False
        if not dyn:
            return
        try:
            ls.client_register_capability(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="exportlint-config-watch",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                watchers=[types.FileSystemWatcher(glob_pattern=f"**/{n}") for n in sorted(CONFIG_NAMES)]
                            ),
                        )
                    ]
                )
            )
        except Exception:
            logger.info("cannot register config file watchers", exc_info=True)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: ExportlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: ExportlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    async def did_save(ls: ExportlintServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri.rsplit("/", 1)[-1] in CONFIG_NAMES:
            ls.reset_config()
            ls.relint_all()
            return
        ls.schedule(uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: ExportlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched(ls: ExportlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(c.uri.rsplit("/", 1)[-1] in CONFIG_NAMES for c in params.changes):
            ls.reset_config()
            ls.relint_all()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_folders(ls: ExportlintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        ls.reset_config()
        ls.relint_all()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False),
    )
    async def code_action(ls: ExportlintServer, params: types.CodeActionParams) -> Optional[list[types.CodeAction]]:
        uri = params.text_document.uri
        try:
            res = await ls.current_result(uri)
            if res is None:
                return []
            return ls.code_actions(uri, res, params)
        except Exception:
            ls.log(f"exportlint: internal error in codeAction for {uri}:\n{traceback.format_exc()}")
            return []

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: ExportlintServer, params: types.HoverParams) -> Optional[types.Hover]:
        uri = params.text_document.uri
        try:
            res = ls._results.get(uri)
            doc = ls._document(uri)
            if res is None or doc is None or res.version != doc.version:
                return None  # stale positions: better nothing than a wrong hover
            return ls.hover(res, params.position)
        except Exception:
            ls.log(f"exportlint: internal error in hover for {uri}:\n{traceback.format_exc()}")
            return None

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: ExportlintServer, *args: Any) -> None:
        ls.shutdown_requested = True
        ls.stop()

    @server.feature(types.EXIT)
    def exit_(ls: ExportlintServer, *args: Any) -> None:
        ls.exit_requested = True
        ls.stop()

    return server


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="exportlint server",
        description="Language server: exportlint diagnostics, quick fixes and suppressions in your editor.",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    mode.add_argument("--tcp", action="store_true", help="listen on a TCP port (for debugging)")
    p.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="TCP port (default 2087; implies --tcp)")
    p.add_argument("--debounce", type=float, default=DEFAULT_DEBOUNCE, metavar="SECONDS",
                   help=f"quiet period before linting after an edit (default {DEFAULT_DEBOUNCE})")
    p.add_argument("--log-file", default=None, help="write the server log here (default stderr)")
    p.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if args.stdio and args.port is not None:
        build_parser().error("--port needs --tcp, not --stdio")
    handler: logging.Handler = logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(getattr(logging, args.log_level))

    server = create_server(debounce=max(0.0, args.debounce))
    server._lint_pool.submit(_warm_up)  # overlaps with the client's start-up
    if args.tcp or args.port is not None:
        port = 2087 if args.port is None else args.port
        logger.warning("exportlint server listening on %s:%d", args.host, port)
        server.start_tcp(args.host, port)
        return 0
    # stdout is the protocol channel: anything else printing there would corrupt it
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr
    try:
        server.start_io(stdin, stdout)
    finally:
        sys.stdout = sys.__stdout__
    return 1 if server.exit_requested and not server.shutdown_requested else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
