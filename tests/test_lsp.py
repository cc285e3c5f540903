"""The language server, driven end to end over stdio as an editor drives it.

``python -m exportlint server`` runs as a subprocess; the tests speak JSON-RPC with
Content-Length framing. Every wait has a timeout, and the process is killed at the end of
each test whatever happens, so a broken server fails a test instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from exportlint.findings import Finding, Fix, FixSafety, Severity
from exportlint.lsp import edits as E

BAD = textwrap.dedent(
    """\
    import torch

    class Net(torch.nn.Module):
        def forward(self, x):
            z = torch.zeros(3)
            if x.sum() > 0:
                return x + z
            return x
    """
)

GOOD = textwrap.dedent(
    """\
    import torch

    class Net(torch.nn.Module):
        def forward(self, x):
            z = torch.zeros(3, device=x.device)
            return torch.where(x.sum() > 0, x + z, x)
    """
)

TIMEOUT = 10.0  # any single wait; the whole session stays well under 30 s


# ---------------------------------------------------------------------------------------
# a minimal LSP client
# ---------------------------------------------------------------------------------------


class Client:
    def __init__(self, cwd: Path, *args: str) -> None:
        self.stderr_path = cwd / "server.stderr"
        self._stderr = open(self.stderr_path, "wb")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "exportlint", "server", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=cwd,
            env=env,
        )
        self._next_id = 0
        self._lock = threading.Lock()
        self.messages: "queue.Queue[dict]" = queue.Queue()
        self.notifications: list[dict] = []
        self._responses: dict[int, dict] = {}
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # -- wire ------------------------------------------------------------------------------
    def _read_loop(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                headers: dict[str, str] = {}
                while True:
                    line = out.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    k, _, v = line.decode("ascii").partition(":")
                    headers[k.strip().lower()] = v.strip()
                n = int(headers["content-length"])
                body = out.read(n)
                if len(body) < n:
                    return
                msg = json.loads(body.decode("utf-8"))
                if "method" in msg and "id" in msg:
                    # a request from the server (registerCapability, ...): accept it
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                self.messages.put(msg)
        except (OSError, ValueError):
            return

    def send(self, msg: dict) -> None:
        data = json.dumps(msg).encode("utf-8")
        with self._lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
            self.proc.stdin.flush()

    def notify(self, method: str, params: Any = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def _pump(self, until: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            got = until()
            if got is not None:
                return got
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what}; stderr:\n{self.stderr()}")
            try:
                msg = self.messages.get(timeout=min(left, 0.2))
            except queue.Empty:
                if self.proc.poll() is not None and self.messages.empty():
                    raise AssertionError(f"server exited ({self.proc.returncode}) waiting for {what}; stderr:\n{self.stderr()}")
                continue
            if "id" in msg and "method" not in msg:
                self._responses[msg["id"]] = msg
            elif "method" in msg and "id" not in msg:
                self.notifications.append(msg)

    def request(self, method: str, params: Any = None, timeout: float = TIMEOUT) -> Any:
        self._next_id += 1
        rid = self._next_id
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        resp = self._pump(lambda: self._responses.pop(rid, None), timeout, f"response to {method}")
        assert "error" not in resp, resp
        return resp["result"]

    def wait_notification(self, method: str, pred: Callable[[dict], bool] = lambda p: True, timeout: float = TIMEOUT) -> dict:
        """The first not yet consumed notification `method` whose params satisfy pred."""

        def find() -> Optional[dict]:
            for i, n in enumerate(self.notifications):
                if n["method"] == method and pred(n.get("params")):
                    del self.notifications[i]
                    return n["params"]
            return None

        return self._pump(find, timeout, method)

    def diagnostics(self, uri: str, version: Optional[int] = None, timeout: float = TIMEOUT) -> list[dict]:
        def pred(p: dict) -> bool:
            return p["uri"] == uri and (version is None or p.get("version") == version)

        return self.wait_notification("textDocument/publishDiagnostics", pred, timeout)["diagnostics"]

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    # -- session ---------------------------------------------------------------------------
    def initialize(self, root: Path, capabilities: Optional[dict] = None) -> dict:
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                "capabilities": capabilities if capabilities is not None else {},
            },
            timeout=20,
        )
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.as_uri()
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}},
        )
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )

    def code_actions(self, uri: str, diag: dict, only: Optional[list[str]] = None) -> list[dict]:
        ctx: dict[str, Any] = {"diagnostics": [diag]}
        if only is not None:
            ctx["only"] = only
        return self.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": diag["range"], "context": ctx})

    def shutdown(self) -> int:
        assert self.request("shutdown") is None
        self.notify("exit")
        try:
            return self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"server did not exit after `exit`; stderr:\n{self.stderr()}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=TIMEOUT)
        for s in (self.proc.stdin, self.proc.stdout):
            try:
                s.close()  # type: ignore[union-attr]
            except OSError:
                pass
        self._stderr.close()


@pytest.fixture
def client(tmp_path):
    pytest.importorskip("pygls.lsp.server", reason="the language server needs pygls >= 2")
    started: list[Client] = []

    def start(*args: str) -> Client:
        c = Client(tmp_path, *args)
        started.append(c)
        return c

    yield start
    for c in started:
        c.kill()


def apply_text_edits(text: str, text_edits: list[dict]) -> str:
    """Apply LSP TextEdits (UTF-16 positions; our test texts are ASCII)."""
    return E.apply_edits(
        text,
        [
            E.Edit(e["range"]["start"]["line"], e["range"]["start"]["character"],
                   e["range"]["end"]["line"], e["range"]["end"]["character"], e["newText"])
            for e in text_edits
        ],
    )


def _rng(sl: int, sc: int, el: int, ec: int) -> dict:
    return {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}


# ---------------------------------------------------------------------------------------
# end to end
# ---------------------------------------------------------------------------------------


def test_editor_session_end_to_end(client, tmp_path):
    t0 = time.monotonic()
    c = client()
    init = c.initialize(tmp_path)
    caps = init["capabilities"]
    assert caps["textDocumentSync"]["change"] == 1  # full
    assert caps["textDocumentSync"]["openClose"] is True
    assert "quickfix" in caps["codeActionProvider"]["codeActionKinds"]
    assert init["serverInfo"]["name"] == "exportlint"

    path = tmp_path / "model.py"
    path.write_text(BAD)
    uri = c.open(path, BAD)
    diags = c.diagnostics(uri, version=1)

    # exactly the `--format lsp` diagnostics: 0-based ranges, severity, code, source, data
    assert [d["code"] for d in diags] == ["EXL302", "EXL101"]
    d302, d101 = diags
    assert d302["range"] == _rng(4, 12, 4, 26)  # `torch.zeros(3)`
    assert d101["range"] == _rng(5, 11, 5, 22)  # `x.sum() > 0`
    assert d302["severity"] == 2 and d101["severity"] == 1  # EXL302 is a warning
    assert {d["source"] for d in diags} == {"exportlint"}
    assert d302["codeDescription"]["href"].endswith("EXL302.md")
    assert d302["data"]["fix"]["safety"] == "safe"
    from exportlint.engine import lint_source
    from exportlint.report import to_lsp_diagnostic

    assert diags == [to_lsp_diagnostic(f) for f in lint_source(BAD, str(path))]

    # quick fix for the safe EXL302 fix, plus its suppression
    actions = c.code_actions(uri, d302)
    fixes = [a for a in actions if a["title"].startswith("Fix EXL302")]
    assert len(fixes) == 1
    fix = fixes[0]
    assert fix["kind"] == "quickfix"
    assert fix["isPreferred"] is True
    assert "safe fix" in fix["title"]
    assert fix["diagnostics"][0]["code"] == "EXL302"
    assert fix["edit"]["changes"][uri] == [{"range": _rng(4, 12, 4, 26), "newText": "torch.zeros(3, device=x.device)"}]
    fixed = apply_text_edits(BAD, fix["edit"]["changes"][uri])
    assert "z = torch.zeros(3, device=x.device)\n" in fixed

    sup = [a for a in actions if a["title"] == "Suppress EXL302 on this line"]
    assert len(sup) == 1 and sup[0]["kind"] == "quickfix" and not sup[0].get("isPreferred")
    assert sup[0]["edit"]["changes"][uri] == [{"range": _rng(4, 26, 4, 26), "newText": "  # noqa: EXL302"}]

    # EXL101: the torch.where rewrite (unsafe, not preferred; the same edit as `--fix --unsafe-fixes`)
    # and its suppression
    actions101 = c.code_actions(uri, d101, only=["quickfix"])
    assert [a["title"] for a in actions101] == [
        "Fix EXL101: torch.where (evaluates both sides) (unsafe fix: may change behaviour, review it)",
        "Suppress EXL101 on this line",
    ]
    assert not actions101[0].get("isPreferred")
    rewritten = apply_text_edits(BAD, actions101[0]["edit"]["changes"][uri])
    assert "        return torch.where(x.sum() > 0, x + z, x)\n" in rewritten and "if x.sum()" not in rewritten
    suppressed = apply_text_edits(BAD, actions101[1]["edit"]["changes"][uri])
    assert "        if x.sum() > 0:  # noqa: EXL101\n" in suppressed

    # a second code on an existing noqa list is added to it
    c.change(uri, suppressed, 2)
    diags2 = c.diagnostics(uri, version=2)
    assert [d["code"] for d in diags2] == ["EXL302"]

    # fixed text: no diagnostics
    c.change(uri, GOOD, 3)
    assert c.diagnostics(uri, version=3) == []

    # positions are UTF-16 code units (the LSP default): the emoji counts twice (code point 21 -> unit 22)
    emoji = BAD.replace("z = torch.zeros(3)", "s = '\U0001F60B'; z = torch.zeros(3)")
    c.change(uri, emoji, 4)
    d = c.diagnostics(uri, version=4)
    assert [x["code"] for x in d] == ["EXL302", "EXL101"]
    assert d[0]["range"] == _rng(4, 22, 4, 36)
    fix = next(a for a in c.code_actions(uri, d[0]) if a["title"].startswith("Fix EXL302"))
    assert fix["edit"]["changes"][uri][0]["range"] == _rng(4, 22, 4, 36)

    # close: diagnostics are cleared
    c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert c.diagnostics(uri) == []

    assert c.shutdown() == 0
    assert time.monotonic() - t0 < 30


def test_suppression_joins_existing_noqa_and_fix_all(client, tmp_path):
    src = BAD.replace("z = torch.zeros(3)", "z = torch.zeros(3)  # noqa: E501")
    c = client()
    c.initialize(tmp_path)
    uri = c.open(tmp_path / "m.py", src)
    diags = c.diagnostics(uri, version=1)
    d302 = next(d for d in diags if d["code"] == "EXL302")
    actions = c.code_actions(uri, d302)
    sup = next(a for a in actions if a["title"] == "Suppress EXL302 on this line")
    new = apply_text_edits(src, sup["edit"]["changes"][uri])
    assert "z = torch.zeros(3)  # noqa: E501, EXL302\n" in new

    # source.fixAll.exportlint: every safe fix at once
    fix_all = c.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": _rng(0, 0, 0, 0), "context": {"diagnostics": [], "only": ["source.fixAll"]}},
    )
    assert [a["kind"] for a in fix_all] == ["source.fixAll.exportlint"]
    assert "device=x.device" in apply_text_edits(src, fix_all[0]["edit"]["changes"][uri])
    assert c.shutdown() == 0


def test_versioned_edits_hover_and_debounce(client, tmp_path):
    c = client("--stdio", "--debounce", "0.3")
    c.initialize(tmp_path, {"workspace": {"workspaceEdit": {"documentChanges": True}}})
    uri = c.open(tmp_path / "m.py", BAD)
    d302 = c.diagnostics(uri, version=1)[0]

    actions = c.code_actions(uri, d302)
    edit = next(a for a in actions if a["title"].startswith("Fix EXL302"))["edit"]
    assert edit["documentChanges"][0]["textDocument"] == {"uri": uri, "version": 1}

    hover = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 4, "character": 15}})
    assert hover is not None and "EXL302" in hover["contents"]["value"]
    assert hover["contents"]["kind"] == "markdown"

    # a burst of edits: only the latest version is linted and published
    for v in range(2, 7):
        c.change(uri, BAD + "\n" * v, v)
    diags = c.diagnostics(uri, version=6)
    assert [d["code"] for d in diags] == ["EXL302", "EXL101"]
    time.sleep(0.4)
    c._pump(lambda: True if c.messages.empty() else None, 2, "quiet")
    stale = [n for n in c.notifications if n["method"] == "textDocument/publishDiagnostics" and n["params"].get("version", 0) < 6]
    assert len(stale) <= 1, stale  # no publication per keystroke
    assert c.shutdown() == 0


def test_syntax_error_and_config_per_directory(client, tmp_path):
    bad_cfg, ignoring = tmp_path / "bad_cfg", tmp_path / "ignoring"
    bad_cfg.mkdir()
    ignoring.mkdir()
    (bad_cfg / "pyproject.toml").write_text("[tool.exportlint]\nselectt = ['EXL1']\n")
    (ignoring / "exportlint.toml").write_text("ignore = ['EXL3']\n")
    c = client()
    c.initialize(tmp_path)

    # a broken config: shown once with window/showMessage, then the defaults apply
    uri = c.open(bad_cfg / "broken.py", "import torch\nclass M(torch.nn.Module):\n    def forward(self, x:\n        return x\n")
    msg = c.wait_notification("window/showMessage")
    assert "selectt" in msg["message"] and msg["type"] == 1
    diags = c.diagnostics(uri, version=1)
    assert [d["code"] for d in diags] == ["EXL001"]  # a syntax error is a diagnostic
    assert diags[0]["message"].startswith("syntax error")
    uri2 = c.open(bad_cfg / "m.py", BAD)
    assert [d["code"] for d in c.diagnostics(uri2, version=1)] == ["EXL302", "EXL101"]
    assert not any(n["method"] == "window/showMessage" for n in c.notifications)

    # the closest config wins, per directory
    uri3 = c.open(ignoring / "m.py", BAD)
    assert [d["code"] for d in c.diagnostics(uri3, version=1)] == ["EXL101"]
    assert c.shutdown() == 0


def test_exit_without_shutdown_is_status_1(client, tmp_path):
    c = client()
    c.initialize(tmp_path)
    c.notify("exit")
    assert c.proc.wait(timeout=TIMEOUT) == 1


def test_server_arguments(capsys):
    server = pytest.importorskip("exportlint.lsp.server", reason="the language server needs pygls >= 2")
    with pytest.raises(SystemExit) as e:
        server.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "--stdio" in out and "--tcp" in out and "--port" in out
    for bad in (["--stdio", "--tcp"], ["--stdio", "--port", "2087"]):
        with pytest.raises(SystemExit) as e:
            server.main(bad)
        assert e.value.code == 2


# ---------------------------------------------------------------------------------------
# edits (no server)
# ---------------------------------------------------------------------------------------


def _finding(line: int, col: int, eline: int, ecol: int, code: str = "EXL302", fix: Optional[Fix] = None) -> Finding:
    return Finding(code, Severity.WARNING, "m.py", line, col, eline, ecol, "msg", (), fix)


def test_position_encodings():
    lines = E.split_lines("s = '😋' + x\n")
    # x is character 11 (code points); the emoji is 2 UTF-16 units and 4 UTF-8 bytes
    assert E.to_client_units(lines, 0, 11, "utf-32") == (0, 11)
    assert E.to_client_units(lines, 0, 11, "utf-16") == (0, 12)
    assert E.to_client_units(lines, 0, 11, "utf-8") == (0, 14)
    for enc, units in (("utf-32", 11), ("utf-16", 12), ("utf-8", 14)):
        assert E.from_client_units(lines, 0, units, enc) == (0, 11)
    # past the end is clamped
    assert E.to_client_units(lines, 5, 0, "utf-16") == (1, 0)


def test_lines_split_like_python():
    text = "a = 1\x0c\nb = '\u2028'\r\nc = 2\rd"
    assert E.split_lines(text) == ["a = 1\x0c", "b = '\u2028'", "c = 2", "d"]
    assert E.apply_edits(text, [E.Edit(2, 0, 2, 1, "C")]) == "a = 1\x0c\nb = '\u2028'\r\nC = 2\rd"


def test_fix_edit_uses_explicit_range():
    f = _finding(5, 13, 5, 27, fix=Fix("new", FixSafety.SAFE, line=4, column=1, end_line=6, end_column=3))
    assert E.fix_edit(f) == E.Edit(3, 0, 5, 2, "new")
    f = _finding(5, 13, 5, 27, fix=Fix("new", FixSafety.SAFE))
    assert E.fix_edit(f) == E.Edit(4, 12, 4, 26, "new")
    assert E.fix_edit(_finding(1, 1, 1, 2)) is None


@pytest.mark.parametrize(
    "line, expected",
    [
        ("    z = f(x)   ", "    z = f(x)  # noqa: EXL302"),
        ("    z = f(x)  # noqa: E501", "    z = f(x)  # noqa: E501, EXL302"),
        ("    z = f(x)  # NOQA:EXL101,EXL201  # why", "    z = f(x)  # NOQA:EXL101,EXL201, EXL302  # why"),
        ("    z = f(x)  # exportlint: ignore[EXL101]", "    z = f(x)  # exportlint: ignore[EXL101, EXL302]"),
        ("    z = f(x)  # exportlint: ignore[]", "    z = f(x)  # exportlint: ignore[EXL302]"),
        ("    z = f(x)  # type: ignore", "    z = f(x)  # type: ignore  # noqa: EXL302"),
        ("    z = f(x)  # noqa: EXL302", None),
        ("    z = f(x)  # noqa", None),
    ],
)
def test_suppress_line_edit(line, expected):
    e = E.suppress_line_edit(line, 0, "EXL302")
    if expected is None:
        assert e is None
    else:
        assert E.apply_edits(line, [e]) == expected


def test_suppressions_written_are_honoured():
    from exportlint.engine import lint_source

    findings = lint_source(BAD, "m.py")
    lines = E.split_lines(BAD)
    edits = [E.suppress_edit(lines, f) for f in findings]
    assert all(edits)
    assert lint_source(E.apply_edits(BAD, edits), "m.py") == []


def test_suppress_avoids_string_and_continuation_lines():
    text = 'x = f("""a\nb""", y)\nz = 1 + \\\n    2\n'
    unsafe = E.string_continuation_lines(text)
    assert 0 in unsafe and 2 in unsafe and 1 not in unsafe
    lines = E.split_lines(text)
    # starts on a line that ends inside a string: the suppression goes on its last line
    e = E.suppress_edit(lines, _finding(1, 1, 2, 8, "EXL101"), unsafe)
    assert e is not None and e.start_line == 1
    assert E.suppress_edit(lines, _finding(3, 1, 3, 5, "EXL101"), unsafe) is None
    assert E.suppress_edit(lines, _finding(2, 1, 2, 2, "EXL002"), unsafe) is None


def test_fix_all_skips_overlaps():
    a = _finding(1, 1, 1, 10, fix=Fix("A", FixSafety.SAFE))
    b = _finding(1, 5, 1, 12, fix=Fix("B", FixSafety.SAFE))
    u = _finding(2, 1, 2, 3, fix=Fix("U", FixSafety.UNSAFE))
    chosen = E.select_fix_all([b, a, u])
    assert [f.fix.replacement for f, _ in chosen] == ["A"]
