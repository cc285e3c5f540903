"""A lighter ``import libcst`` for the one-file command line call (issue 13).

``libcst/__init__.py`` imports, besides the node classes, the visitors and the parser entry
points that exportlint uses, parts it never uses on the lint path: the metadata providers
(``libcst.metadata``: scope, type inference through ``subprocess``, positions, the full-repo
manager), ``libcst.helpers`` (templates), the batched visitor and the Python parser's
configuration (``libcst._parser.entrypoints`` -> ``detect_config``, parso's tokenizer
utilities). ``install()`` builds the ``libcst`` package module by running the statements of
its real ``__init__.py`` in order, except the imports of those parts, which run on first use:
the module's ``__getattr__`` (PEP 562) runs them the first time a name is missing, so
``libcst.ensure_type``, ``libcst.parse_expression``, ``libcst.metadata``, ``from libcst import *``
all work as before, only later. ``engine.parse_module`` calls the native parser directly
(``native_parse``), which is what ``libcst.parse_module`` does for a ``str``.

Falls back to the plain import when libcst's ``__init__.py`` is not what this expects (a
statement of another kind than imports and plain assignments, an import that fails): then
nothing is deferred. ``python -X importtime``: see bench/speed.py --one-file for the figures.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Iterator, Optional

#: the imports of libcst/__init__.py that are run on first use, by module prefix
DEFERRED = ("libcst.helpers", "libcst.metadata", "libcst._batched_visitor", "libcst._parser.entrypoints",
            "libcst._parser.types.config")

#: how the last install() went: "light", "plain" (fell back), "loaded" (libcst was already imported)
STATE = [""]


#: set by the command line (``enable``): the first ``Linter`` installs the light libcst
ENABLED = [False]


def enable() -> None:
    """Ask for the light import when libcst is first needed (``engine.Linter``): a run whose
    files need no parse never imports libcst at all."""
    ENABLED[0] = True


def maybe_install() -> None:
    """``install()`` if ``enable()`` asked for it and libcst is not imported yet."""
    if ENABLED[0] and "libcst" not in sys.modules:
        install()


# ---------------------------------------------------------------------------------------
# compiled dataclass methods
# ---------------------------------------------------------------------------------------
# Most of ``import libcst`` is ``dataclasses`` writing the methods of its ~170 frozen node
# classes (__init__, __repr__, __eq__, __setattr__, ...) as source text and compiling it with
# ``exec``: ~530 texts, each the same in every process. ``dataclass_code_cache()`` keeps their
# code objects in a marshal file beside exportlint's own bytecode (``__pycache__``, written
# as Python writes .pyc files: not with PYTHONDONTWRITEBYTECODE), keyed by the exact text, so a
# later process executes the code compiled from the same text with the same flags instead of
# compiling it again. The result is the same function; only the compile is skipped.

#: the marshal file's layout; part of its name with the interpreter's bytecode tag
_CODE_FORMAT = 1


def _code_file() -> Optional[str]:
    import importlib.util

    try:
        pyc = importlib.util.cache_from_source(__file__)  # honours sys.pycache_prefix
    except (NotImplementedError, ValueError, TypeError):
        return None
    tag = sys.implementation.cache_tag or "none"
    # (-O / -OO compile differently, as their .pyc files: a file each)
    return os.path.join(os.path.dirname(pyc),
                        f"exportlint-dataclass-code.{tag}.O{sys.flags.optimize}.{_CODE_FORMAT}.marshal")


def _load_codes(file: str) -> dict:
    import importlib.util
    import marshal

    try:
        with open(file, "rb") as fh:
            data = fh.read()
    except OSError:
        return {}
    magic = importlib.util.MAGIC_NUMBER
    if not data.startswith(magic):
        return {}
    try:
        codes = marshal.loads(data[len(magic):])
    except (ValueError, EOFError, TypeError):
        return {}
    if not isinstance(codes, dict):
        return {}
    return codes


@contextmanager
def dataclass_code_cache() -> Iterator[None]:
    """While the block runs, ``dataclasses`` compiles each method text once per machine (see
    above). Falls back to plain ``exec`` for anything but a source text."""
    import builtins
    import dataclasses

    file = _code_file()
    if file is None or "exec" in vars(dataclasses):
        yield
        return
    codes = _load_codes(file)
    new: dict = {}
    code_type = type(_code_file.__code__)
    real_exec = builtins.exec

    def cached_exec(src: Any, globs: Any = None, locs: Any = None) -> None:
        if type(src) is str:
            code = codes.get(src)
            if type(code) is not code_type:
                # as dataclasses' own exec(txt) compiles it: no __future__ flags (it has none)
                code = compile(src, "<string>", "exec", 0, True)
                new[src] = code
            return real_exec(code, globs, locs)
        return real_exec(src, globs, locs)

    dataclasses.exec = cached_exec  # type: ignore[attr-defined]
    try:
        yield
    finally:
        try:
            del dataclasses.exec  # type: ignore[attr-defined]
        except AttributeError:
            pass
        if new and not sys.dont_write_bytecode:
            _save_codes(file, {**codes, **new})


def _save_codes(file: str, codes: dict) -> None:
    import importlib.util
    import marshal
    import tempfile

    tmp = None
    try:
        os.makedirs(os.path.dirname(file), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(file), suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(importlib.util.MAGIC_NUMBER + marshal.dumps(codes))
        os.chmod(tmp, 0o644)  # (as a .pyc: readable by the other users of an installation)
        os.replace(tmp, file)
    except (OSError, ValueError):  # read-only install: compiled each time, as before
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def install() -> bool:
    """Import libcst lightly (see the module's doc). True when the light module is in place;
    False when libcst was imported already or the fallback (the plain import) was taken."""
    if "libcst" in sys.modules:
        STATE[0] = "loaded"
        return False
    try:
        ok = _install()
    except Exception:  # noqa: BLE001 - any surprise in libcst's layout: the plain import
        ok = False
    if not ok:
        _forget()
        import libcst  # noqa: F401

        STATE[0] = "plain"
        return False
    STATE[0] = "light"
    return True


def _forget() -> None:
    for name in [n for n in sys.modules if n == "libcst" or n.startswith("libcst.")]:
        del sys.modules[name]


def _install() -> bool:
    import ast
    import importlib
    import importlib.util
    import types

    spec = importlib.util.find_spec("libcst")
    if spec is None or spec.origin is None or not spec.submodule_search_locations:
        return False
    with open(spec.origin, "rb") as fh:
        src = fh.read()
    tree = ast.parse(src, spec.origin)
    now: list[ast.stmt] = []
    later: list[ast.stmt] = []
    for st in tree.body:
        if isinstance(st, ast.ImportFrom) and st.level == 0 and st.module and st.module.startswith(DEFERRED):
            later.append(st)
        elif isinstance(st, (ast.ImportFrom, ast.Import, ast.Assign, ast.AnnAssign, ast.Expr, ast.Try)):
            if isinstance(st, ast.Try) and not all(isinstance(s, (ast.ImportFrom, ast.Assign))
                                                   for h in ([st], st.handlers) for b in h for s in b.body):
                return False
            now.append(st)
        else:  # code libcst did not have when this was written: run it all as libcst does
            return False
    if not later:
        return False
    mod = types.ModuleType("libcst")
    mod.__file__ = spec.origin
    mod.__path__ = list(spec.submodule_search_locations)
    mod.__package__ = "libcst"
    mod.__spec__ = spec
    mod.__loader__ = spec.loader
    ns = mod.__dict__
    pending: list[Optional[Any]] = [compile(ast.Module(body=later, type_ignores=[]), spec.origin, "exec")]

    def __getattr__(name: str) -> Any:  # noqa: N807 - PEP 562
        if name.startswith("__"):
            raise AttributeError(f"module 'libcst' has no attribute {name!r}")
        # ``from libcst import native``: a submodule (the import system asks for it here
        # before importing it) is imported, not a reason to run the deferred imports
        import importlib.util

        if importlib.util.find_spec(f"libcst.{name}") is not None:
            return importlib.import_module(f"libcst.{name}")
        code = pending[0]
        if code is not None:
            pending[0] = None
            exec(code, ns)  # noqa: S102 - libcst's own __init__.py statements
            if name in ns:
                return ns[name]
        raise AttributeError(f"module 'libcst' has no attribute {name!r}")

    ns["__getattr__"] = __getattr__
    sys.modules["libcst"] = mod
    exec(compile(ast.Module(body=now, type_ignores=[]), spec.origin, "exec"), ns)  # noqa: S102
    return True


def load_all() -> None:
    """Run the deferred imports now (what a plain ``import libcst`` would have done)."""
    m = sys.modules.get("libcst")
    if m is not None:
        getattr(m, "ensure_type", None)


def native_parse(text: str) -> Any:
    """``libcst.parse_module(text)`` for a ``str``: the native parser, without the entry
    point's configuration detection (for a ``str`` it only names the encoding utf-8)."""
    import libcst.native

    return libcst.native.parse_module(text, "utf-8")


def parse_expression(text: str) -> Any:
    """``libcst.parse_expression(text)`` for a ``str`` (the native parser, as ``native_parse``)."""
    try:
        import libcst.native

        fn = libcst.native.parse_expression
    except (ImportError, AttributeError):
        import libcst

        return libcst.parse_expression(text)
    return fn(text)


def prepare() -> None:
    """Fill the compiled dataclass methods' file now (what the first command-line run does):
    for installers and benchmarks, like ``compileall`` for .pyc files. Run in a fresh process."""
    enable()
    from exportlint.config import Config
    from exportlint.engine import Linter

    Linter(Config())
