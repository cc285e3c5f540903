"""Command line: argument parsing only; the work is in engine / confirm / report.

    exportlint [check] [PATH ...]      lint (default: the current directory)
    exportlint rule CODE                print a rule's documentation
    exportlint rules                    list every rule
    exportlint confirm SPEC [...]       trial-export targets ("pkg.mod:build")
    exportlint ops generate             regenerate the op-support tables (needs torch)
    exportlint server                   start the language server (stdio)

Exit status: 0 no findings, 1 findings, 2 usage / configuration / internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional

from exportlint import __version__

SUBCOMMANDS = ("check", "rule", "rules", "confirm", "ops", "server")


class UsageError(Exception):
    pass


def _codes(value: str) -> tuple[str, ...]:
    out = tuple(c.strip() for c in value.split(",") if c.strip())
    return out


def _add_lint_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", help="files or directories to lint (default: .); '-' reads stdin")
    p.add_argument("--config", metavar="FILE", help="pyproject.toml or exportlint.toml to use")
    p.add_argument("--select", type=_codes, metavar="CODES", help="comma-separated rule codes or prefixes to enable")
    p.add_argument("--extend-select", type=_codes, metavar="CODES", help="enable these in addition")
    p.add_argument("--ignore", type=_codes, metavar="CODES", help="comma-separated rule codes or prefixes to disable")
    p.add_argument("--exclude", type=_codes, metavar="PATTERNS",
                   help="glob patterns to exclude, replacing the default and configured list")
    p.add_argument("--extend-exclude", type=_codes, metavar="PATTERNS", help="more glob patterns to exclude")
    p.add_argument("--force-exclude", action="store_true", help="apply excludes to paths named on the command line too")
    p.add_argument("--target-exporters", type=_codes, metavar="NAMES",
                   help="export-strict,export-nonstrict,onnx-dynamo,onnx-legacy (default: config or all)")
    p.add_argument("--opset", type=int, help="ONNX opset to check against (default: the exporter's default)")
    p.add_argument("--format", "--output-format", dest="format", default=None,
                   choices=("text", "full", "concise", "json", "lsp", "sarif", "github"),
                   help="output format (default: text)")
    p.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE")
    p.add_argument("--statistics", action="store_true", help="print counts per rule instead of the findings")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    p.add_argument("--stdin-filename", metavar="PATH", help="the name of the file read from stdin ('-')")
    p.add_argument("-j", "--jobs", type=int, default=None, help="processes (default: one per core)")
    p.add_argument("--color", action=argparse.BooleanOptionalAction, default=None, help="colour the text output")
    p.add_argument("--confirm", action="store_true",
                   help="also build and really export the targets (runs your code in a subprocess; needs the export extra)")
    p.add_argument("--exporter", action="append", dest="exporters", metavar="NAME",
                   help="with --confirm: exporter(s) to run (default: target-exporters)")
    p.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    p.add_argument("--fix", action="store_true", help="apply safe fixes (and rewrites --confirm verified) in place")
    p.add_argument("--unsafe-fixes", action=argparse.BooleanOptionalAction, default=False,
                   help="with --fix / --diff: also apply unsafe fixes (e.g. torch.where rewrites not verified)")
    p.add_argument("--diff", action="store_true",
                   help="print a unified diff of what --fix would change; write nothing (exit 1 if any)")
    p.add_argument("--show-fixes", action="store_true", help="list the fixes applied (with --fix)")
    # issue 13: conventions users know from ruff
    p.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false",
                   help="also lint files that .gitignore / .ignore files exclude")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="on stderr: the files found, what was skipped, cache hits and timings")
    p.add_argument("--add-noqa", action="store_true",
                   help="add `# noqa: CODE` comments that suppress every current finding, then exit")
    p.add_argument("--show-settings", action="store_true",
                   help="print the resolved configuration and where each value came from, then exit")
    p.add_argument("--watch", action="store_true", help="lint, then re-lint whenever a linted file changes")


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with the terminal width read as ``shutil.get_terminal_size``
    reads it but without importing shutil: ``add_argument`` builds a formatter for each of
    the ~35 options (to check its metavar), and shutil with what it imports (bz2, lzma, zlib)
    was ~1-2 ms of a one-file call. The help text is the same."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: Optional[int] = None) -> None:
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``: $COLUMNS, else stdout's terminal, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="exportlint",
        formatter_class=_HelpFormatter,
        description="Will this PyTorch model export? Static checks for torch.export and torch.onnx.export.",
        epilog="Subcommands: rule CODE | rules | confirm SPEC | ops generate | server. Exit: 0 clean, 1 findings, 2 error.",
    )
    p.add_argument("--version", action="version", version=f"exportlint {__version__}")
    _add_lint_options(p)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            cmd, rest = argv[0], argv[1:]
            if cmd == "check":
                return _cmd_lint(rest)
            if cmd == "rule":
                return _cmd_rule(rest)
            if cmd == "rules":
                return _cmd_rules(rest)
            if cmd == "confirm":
                return _cmd_confirm(rest)
            if cmd == "ops":
                return _cmd_ops(rest)
            if cmd == "server":
                return _cmd_server(rest)
        return _cmd_lint(argv)
    except UsageError as e:
        print(f"exportlint: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("exportlint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        except OSError:
            pass
        return 1


def entry() -> None:
    """The console script and ``python -m exportlint``: ``main()``, then the exit status without
    the interpreter's teardown (freeing every module and object one by one: ~30 ms of CPU
    after a one-file run, measured; issue 13's one-file latency). Everything is written and
    closed by then: the report, the cache, the workers; stdout and stderr are flushed here."""
    rc = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said
            pass
    os._exit(rc)


def _load_config(args) -> "Config":  # noqa: F821
    from exportlint.config import ConfigError, load_config

    try:
        if args.config:
            if not Path(args.config).is_file():
                raise UsageError(f"--config {args.config}: no such file")
            cfg = load_config(Path(args.config))
        else:
            start = Path(args.paths[0]) if args.paths and args.paths[0] != "-" and Path(args.paths[0]).exists() else Path.cwd()
            cfg = load_config(start=start)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    from exportlint.config import is_selector
    from exportlint.findings import EXPORTERS

    known: Optional[set[str]] = None
    for opt in ("select", "extend_select", "ignore"):
        vals = getattr(args, opt)
        if vals is None:
            continue
        if known is None:
            # the rule registry imports every check (and libcst): only when codes are named
            from exportlint.checks.base import all_rules

            known = set(all_rules())
        for c in vals:
            if not is_selector(c) or (len(c) == 6 and c not in known):
                raise UsageError(f"--{opt.replace('_', '-')}: unknown rule code or prefix {c!r} (see `exportlint rules`)")
        setattr(cfg, opt, tuple(vals))
    if args.exclude is not None:
        cfg.exclude = tuple(args.exclude)
    if args.extend_exclude:
        cfg.extend_exclude = tuple(cfg.extend_exclude) + tuple(args.extend_exclude)
    if args.target_exporters:
        bad = [e for e in args.target_exporters if e not in EXPORTERS]
        if bad:
            raise UsageError(f"--target-exporters: unknown exporter {bad[0]!r} (choose from {', '.join(EXPORTERS)})")
        cfg.target_exporters = tuple(args.target_exporters)
    if args.opset is not None:
        if not 7 <= args.opset <= 30:
            raise UsageError("--opset must be between 7 and 30")
        cfg.opset = args.opset
    return cfg


def _cmd_lint(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    cfg = _load_config(args)
    if args.show_settings:
        from exportlint.adopt import print_settings

        print_settings(cfg, args)
        return 0
    if args.watch:
        if "-" in (args.paths or []) or args.fix or args.diff or args.add_noqa or args.confirm:
            raise UsageError("--watch cannot be combined with '-', --fix, --diff, --add-noqa or --confirm")
        from exportlint.adopt import watch
        from exportlint.discovery import discover

        def list_files() -> list[str]:
            return discover(args.paths or ["."], cfg, force_exclude=args.force_exclude,
                            respect_gitignore=args.respect_gitignore).files

        def lint_once() -> int:
            try:
                return _run_lint(args, cfg)
            except UsageError as e:  # e.g. a watched path was removed: say so, keep watching
                print(f"exportlint: error: {e}", file=sys.stderr, flush=True)
                return 2

        return watch(lint_once, list_files)
    return _run_lint(args, cfg)


def _run_lint(args, cfg) -> int:
    from exportlint.discovery import DiscoveryError, discover
    from exportlint.engine import lint_paths

    paths = args.paths or ["."]
    stdin = None
    if "-" in paths:
        if not args.stdin_filename:
            args.stdin_filename = "<stdin>"
        data = sys.stdin.buffer.read()
        stdin = (args.stdin_filename, data)
        paths = [p for p in paths if p != "-"]
        if not paths:
            paths = []
    try:
        found = discover(paths, cfg, force_exclude=args.force_exclude,
                         respect_gitignore=args.respect_gitignore) if paths else None
    except DiscoveryError as e:
        raise UsageError(str(e)) from None
    files = found.files if found else []
    for path, why in (found.skipped if found else []):
        if why != "excluded":
            print(f"exportlint: {'error' if path in found.unreadable else 'warning'}: {path}: {why}", file=sys.stderr)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.verbose:
        for f in files:
            print(f"exportlint: file {f}", file=sys.stderr)
    if args.add_noqa and (stdin is not None or args.fix or args.diff or args.confirm):
        raise UsageError("--add-noqa cannot be combined with '-' (stdin), --fix, --diff or --confirm")
    # libcst without the parts the lint path does not use (metadata, helpers, the parser's
    # configuration detection): they load on first use (exportlint/lightcst.py). Only for the
    # short runs whose time is mostly startup (a hook, an editor): on timm's 180 files the
    # parse measured up to ~10-20% slower under the light module (noisy, not understood)
    from exportlint import lightcst
    from exportlint.parsecache import MAX_FILES

    if len(files) <= MAX_FILES:
        lightcst.enable()
    # exportlint.adopt is imported only for long runs: the one-file call stays as fast as it was
    if len(files) > 50 and _want_progress(args, len(files)):
        from exportlint.adopt import Progress

        with Progress(len(files)) as bar:
            result = lint_paths(files, cfg, jobs=args.jobs, use_cache=not args.no_cache, stdin=stdin,
                                progress=bar.advance)
    else:
        result = lint_paths(files, cfg, jobs=args.jobs, use_cache=not args.no_cache, stdin=stdin)
    if args.add_noqa:
        return _add_noqa(args, cfg, files, result)
    if args.verbose:
        print(f"exportlint: {result.files} files: {result.cached} from the cache, {result.parsed} linted, "
              f"{len(result.findings)} findings in {result.seconds:.2f} s (config: {cfg.source or 'defaults'})",
              file=sys.stderr)
    findings = result.findings
    failed_targets = False
    confirm_result = None
    if args.confirm:
        confirm_result = _run_confirm(cfg, findings, targets=None, paths=[Path(p) for p in paths], exporters=args.exporters,
                                      fmt=args.format)
        findings = confirm_result.findings
        failed_targets = confirm_result.failed
    dropped: list = []
    if confirm_result is not None:
        # every candidate rewrite is exported and compared with the original (marks fix.verified)
        from exportlint.fixes.verify import candidates, verify_rewrites

        if candidates(findings):
            progress = (lambda msg: print(msg, file=sys.stderr, flush=True)) if sys.stderr else None
            findings, dropped = verify_rewrites(cfg, findings, exporters=args.exporters, progress=progress,
                                                paths=list(paths))
            if not (args.fix or args.diff):
                from exportlint.fixes.run import FixRun, print_verification

                print_verification(findings, FixRun(dropped=dropped), sys.stderr)
    fix_run = None
    if stdin is not None and (args.fix or args.diff):
        return _fix_stdin(args, cfg, stdin, findings)
    if args.fix or args.diff:
        fix_run, findings, result = _fix(args, cfg, files, findings, result, dropped)
        if args.diff:
            return 1 if fix_run.changes else 0
    _emit(args, findings, result, confirm_result)
    if fix_run is not None and args.show_fixes:
        from exportlint.fixes.run import print_fixed

        # machine-readable reports stay parseable: the list goes to stderr there
        machine = (args.format or "text") not in ("text", "full", "concise") or args.output_file
        print_fixed(fix_run, sys.stderr if machine and not args.output_file else sys.stdout)
    for e in result.errors:
        print(f"exportlint: internal error: {e}", file=sys.stderr)
    for path, why in result.unreadable:
        print(f"exportlint: error: {path}: {why}", file=sys.stderr)
    if confirm_result is not None:
        rc = _confirm_status(confirm_result)
        if rc is not None:
            return rc
    if result.errors or result.unreadable or (found and found.unreadable):
        return 2
    if args.exit_zero:
        return 0
    return 1 if (findings or failed_targets) else 0


def _want_progress(args, n_files: int) -> bool:
    from exportlint.adopt import want_progress

    return want_progress(args, n_files)


def _add_noqa(args, cfg, files, result) -> int:
    """--add-noqa: comment every current finding away, check that the re-lint agrees."""
    from exportlint.adopt import add_noqa
    from exportlint.engine import lint_paths

    run = add_noqa(result.findings, files)
    for e in run.errors:
        print(f"exportlint: warning: {e}", file=sys.stderr)
    if run.files:
        again = lint_paths(sorted(run.files), cfg, jobs=1, use_cache=not args.no_cache)
        left = len(again.findings)
        if left:
            print(f"exportlint: warning: {left} finding(s) still reported after adding noqa comments",
                  file=sys.stderr)
    if run.skipped:
        print(f"exportlint: warning: {run.skipped} finding(s) skipped: a comment is not legal at the end of "
              "their lines (inside a multi-line string or a backslash continuation)", file=sys.stderr)
    if run.unsuppressible:
        print(f"exportlint: warning: {run.unsuppressible} finding(s) left as they are: a comment cannot suppress "
              "them (EXL002, or a file Python cannot parse)", file=sys.stderr)
    n = run.added
    print(f"Added {n} noqa directive{'s' if n != 1 else ''}.", file=sys.stderr)
    for e in result.errors:
        print(f"exportlint: internal error: {e}", file=sys.stderr)
    return 2 if result.errors else 0


def _fix_stdin(args, cfg, stdin, findings) -> int:
    """`-` with --fix: the fixed source on stdout (ruff's behaviour); with --diff: the diff."""
    from exportlint.engine import Linter
    from exportlint.fixes.apply import SAFE_AND_UNSAFE, SAFE_ONLY, fix_text, unified_diff
    from exportlint.fixes.run import known_verdicts

    name, data = stdin
    import io
    import tokenize

    try:
        enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(enc).removeprefix("\ufeff")
    except (SyntaxError, UnicodeDecodeError, LookupError) as e:
        raise UsageError(f"{name}: cannot decode: {e}") from None
    linter = Linter(cfg)
    out = fix_text(text, lambda t: linter.lint_text(t, name).findings,
                   SAFE_AND_UNSAFE if args.unsafe_fixes else SAFE_ONLY, known=known_verdicts(findings))
    if args.diff:
        sys.stdout.write(unified_diff(name, text, out.text))
        return 1 if out.text != text else 0
    sys.stdout.write(out.text)
    return 0


def _fix(args, cfg, files, findings, result, dropped):
    """--fix / --diff: fix the files (with the verdicts --confirm gave rewrites), re-lint what changed."""
    from exportlint.fixes.run import fix_files, print_diff, print_verification

    run = fix_files(list(files), cfg, unsafe=args.unsafe_fixes, write=args.fix and not args.diff, findings=findings,
                    dropped=tuple(dropped))
    run.dropped = dropped
    args.fixed_count = run.count if args.fix else 0
    print_verification(findings, run, sys.stderr)
    for e in run.errors:
        print(f"exportlint: {e}", file=sys.stderr)
    if args.diff:
        print_diff(run, sys.stdout)
        return run, findings, result
    if run.changes:
        from exportlint.engine import lint_paths

        # the fixed files are linted again; the others keep their findings (and verdicts)
        changed = set(run.changes)
        again = lint_paths(sorted(changed), cfg, jobs=1, use_cache=not args.no_cache)
        keep = [f for f in findings if f.path not in changed]
        findings = sorted(keep + again.findings, key=lambda f: f.sort_key())
        result.errors.extend(again.errors)
    return run, findings, result


def _confirm_status(cr) -> Optional[int]:
    """Print the confirm run's errors (stderr, whatever the format); 130 after Ctrl-C, 2 when
    there was nothing to run."""
    for e in cr.errors:
        print(f"exportlint confirm: {e}", file=sys.stderr)
    if cr.interrupted:
        return 130
    if cr.errors and not cr.targets:
        return 2
    return None


def _emit(args, findings, result, confirm_result=None) -> None:
    fmt = args.format or "text"
    out = sys.stdout
    fh = None
    if args.output_file:
        try:
            fh = open(args.output_file, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as e:
            raise UsageError(f"--output-file {args.output_file}: {e.strerror or e}") from None
        out = fh
    try:
        if args.statistics and fmt in ("json", "lsp", "sarif"):
            from exportlint.report import render_statistics_json

            render_statistics_json(findings, out)
        elif args.statistics:
            from exportlint.report import render_statistics

            render_statistics(findings, out)
        else:
            summary = ""
            if fmt in ("text", "full") and not args.quiet:
                n_err = sum(1 for f in findings if f.severity.value == "error")
                n_warn = sum(1 for f in findings if f.severity.value == "warning")
                checked = f"{result.files} file{'s' if result.files != 1 else ''} checked"
                if findings:
                    n_files = len({f.path for f in findings})
                    summary = (
                        f"Found {len(findings)} problem{'s' if len(findings) != 1 else ''} "
                        f"({n_err} error{'s' if n_err != 1 else ''}, {n_warn} warning{'s' if n_warn != 1 else ''}) "
                        f"in {n_files} file{'s' if n_files != 1 else ''} ({checked})."
                    )
                else:
                    summary = f"All checks passed ({checked})."
                summary += _fix_summary(args, findings)
            kwargs = {"color": args.color, "summary": summary} if fmt in ("text", "full") else {}
            if fmt in ("text", "full") and not findings:
                if summary:
                    out.write(summary + "\n")
            else:
                # (imported here: a clean run's summary line needs no renderer)
                from exportlint.report import RENDERERS

                RENDERERS[fmt](findings, out, **kwargs)
            if confirm_result is not None and fmt in ("text", "full"):
                from rich.console import Console

                confirm_result.render_summary(Console(file=out, force_terminal=args.color, no_color=True if args.color is False else None))
    finally:
        if fh is not None:
            fh.close()


def _fix_summary(args, findings) -> str:
    fixed = getattr(args, "fixed_count", 0)
    note = f" Fixed {fixed}." if fixed else ""
    if findings and (getattr(args, "fix", False) and not getattr(args, "unsafe_fixes", False)
                     or not getattr(args, "fix", True)):
        from exportlint.fixes.run import fixable_counts

        safe, unsafe = fixable_counts(findings)
        if not getattr(args, "fix", False) and safe:
            note += f" {safe} fixable with `--fix`."
        if unsafe and not getattr(args, "unsafe_fixes", False):
            note += f" {unsafe} more with `--unsafe-fixes` (review them, or verify with `--confirm`)."
    return note


def _run_confirm(cfg, findings, *, targets, paths, exporters, fmt=None):
    try:
        from exportlint.confirm.api import run_confirm
    except ImportError as e:
        raise UsageError(f"--confirm needs the export extra (pip install 'exportlint[export]'): {e}") from None
    from exportlint.findings import EXPORTERS

    if exporters:
        bad = [e for e in exporters if e not in EXPORTERS]
        if bad:
            raise UsageError(f"--exporter: unknown exporter {bad[0]!r} (choose from {', '.join(EXPORTERS)})")
    from exportlint.confirm.progress import make_progress

    progress = make_progress(fmt)  # live on a terminal; silent for json/sarif/CI/pipes
    return run_confirm(cfg, findings, targets=targets, paths=paths,
                       exporters=tuple(exporters) if exporters else None, progress=progress)


def _cmd_confirm(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="exportlint confirm", description="Build targets and really export them.")
    p.add_argument("specs", nargs="*", help='"package.module:callable" or a target name from [tool.exportlint.targets]')
    p.add_argument("--exporter", action="append", dest="exporters", metavar="NAME")
    p.add_argument("--config", metavar="FILE")
    p.add_argument("--format", default="text", choices=("text", "full", "concise", "json", "lsp", "sarif", "github"))
    p.add_argument("-o", "--output-file")
    p.add_argument("--exit-zero", action="store_true")
    p.add_argument("--color", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--lint", nargs="*", metavar="PATH", default=None,
                   help="also lint these paths and join their static findings with the verdicts "
                        "(default: no static pass; `exportlint PATH --confirm` does both)")
    args = p.parse_args(argv)
    ns = build_parser().parse_args([])
    ns.config = args.config
    cfg = _load_config(ns)
    if not args.specs and not cfg.targets:
        raise UsageError("no target: name one (pkg.module:callable) or add [tool.exportlint.targets] to pyproject.toml")
    findings = []
    result = None
    if args.lint:
        from exportlint.discovery import DiscoveryError, discover
        from exportlint.engine import lint_paths

        try:
            files = discover(args.lint, cfg).files
        except DiscoveryError as e:
            raise UsageError(str(e)) from None
        result = lint_paths(files, cfg)
        findings = result.findings
    cr = _run_confirm(cfg, findings, targets=args.specs or None, paths=[], exporters=args.exporters,
                      fmt=args.format)

    class _R:
        files = len(cr.targets)

    ns.format, ns.output_file, ns.statistics, ns.quiet, ns.color = args.format, args.output_file, False, True, args.color
    _emit(ns, cr.findings, result or _R(), cr)
    rc = _confirm_status(cr)
    if rc is not None:
        return rc
    if args.exit_zero:
        return 0
    return 1 if (cr.failed or cr.findings) else 0


def _cmd_rule(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="exportlint rule", description="Print a rule's documentation page.")
    p.add_argument("code", help="rule code, e.g. EXL101")
    argv = [p.parse_args(argv).code]
    from exportlint.checks.base import all_rules
    from exportlint.ruledocs import load_doc

    code = argv[0].upper()
    rules = all_rules()
    if code not in rules:
        raise UsageError(f"unknown rule {argv[0]!r} (see `exportlint rules`)")
    cls = rules[code]
    doc = load_doc(code)
    print(f"{code} ({cls.name}) — {cls.severity.value}; breaks: {', '.join(cls.exporters) or 'n/a'}\n")
    print(doc.text if doc else cls.summary)
    return 0


def _cmd_rules(argv: list[str]) -> int:
    from exportlint.checks.base import all_rules

    p = argparse.ArgumentParser(prog="exportlint rules", description="List every rule.")
    p.add_argument("--format", "--output-format", dest="format", choices=("text", "json"), default="text")
    as_json = p.parse_args(argv).format == "json"
    rules = all_rules()
    if as_json:
        import json

        print(json.dumps([{"code": c, "name": r.name, "severity": r.severity.value, "exporters": list(r.exporters),
                           "summary": r.summary} for c, r in rules.items()], indent=2))
        return 0
    for code, cls in rules.items():
        print(f"{code}  {cls.name:<38} {cls.severity.value:<8} {cls.summary}")
    return 0


def _cmd_ops(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print("usage: exportlint ops generate [--output PATH] [--quick]\n\n"
              "Regenerate the op-support tables (rules/op_support.json) by exporting every aten op\n"
              "with each exporter (needs the export extra: torch, onnx, onnxscript).\n"
              "`exportlint ops generate --help` lists its options.")
        return 0
    if not argv or argv[0] != "generate":
        raise UsageError("usage: exportlint ops generate [--output PATH] [--quick]")
    try:
        from exportlint.ops.generate import main as gen_main
    except ImportError as e:
        raise UsageError(f"`exportlint ops generate` needs the export extra (torch, onnx, onnxscript): {e}") from None
    return gen_main(argv[1:])


def _cmd_server(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print("usage: exportlint server\n\n"
              "Start the language server on stdin/stdout (LSP 3.17: diagnostics, code actions,\n"
              "hover). Needs pygls: pip install 'exportlint[lsp]'.")
        return 0
    try:
        from exportlint.lsp.server import main as server_main
    except ImportError as e:
        raise UsageError(f"`exportlint server` needs pygls (pip install 'exportlint[lsp]'): {e}") from None
    return server_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
