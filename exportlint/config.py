"""``[tool.exportlint]`` in pyproject.toml, or ``exportlint.toml`` (same keys, top level).

Resolved once per run, never per file. Unknown keys and bad values raise ConfigError naming
the file and the key; the CLI turns that into exit status 2.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from exportlint.findings import EXPORTERS



def _toml() -> Any:
    """tomllib, imported when a TOML file is read (a run with no configuration file, the
    one-file call on an installed package, does without: ~2 ms of the one-file call)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib

DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".exportlint_cache",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "__pypackages__",
    ".eggs",
)

_KNOWN_KEYS = {
    "select",
    "extend-select",
    "ignore",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "target-exporters",
    "opset",
    "dynamic-shapes",
    "targets",
    "confirm",
    "cache-dir",
    "file-timeout",
}
_CONFIRM_KEYS = {"timeout", "exporter-timeout", "memory-limit", "rtol", "atol"}


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""


@dataclass
class Config:
    root: Path = field(default_factory=Path.cwd)
    source: Optional[Path] = None  # the file the settings came from, if any
    select: tuple[str, ...] = ("EXL",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    target_exporters: tuple[str, ...] = EXPORTERS
    opset: Optional[int] = None
    #: the project exports with dynamic shapes (True), static shapes only (False), or unknown
    #: (None, "auto": read from the export calls exportlint sees)
    dynamic_shapes: Optional[bool] = None
    targets: dict[str, str] = field(default_factory=dict)
    confirm_timeout: float = 300.0
    confirm_memory_mb: int = 4096
    #: seconds one exporter may run on one target (None: only the per-target timeout)
    confirm_exporter_timeout: Optional[float] = None
    rtol: float = 1e-4
    atol: float = 1e-5
    cache_dir: Optional[Path] = None
    #: seconds the analysis of one file may take before its worker is stopped and the file is
    #: reported (EXL003); the largest real model files take under a second
    file_timeout: float = 60.0

    # ---- rule selection -------------------------------------------------------------
    def enabled_codes(self, all_codes: list[str]) -> frozenset[str]:
        sel = self.select + self.extend_select
        out = set()
        for code in all_codes:
            if _longest_match(code, sel) > _longest_match(code, self.ignore):
                out.add(code)
        return frozenset(out)

    def ignored_for_path(self, relpath: str) -> tuple[str, ...]:
        out: list[str] = []
        for pattern, codes in self.per_file_ignores.items():
            if _path_matches(relpath, pattern):
                out.extend(codes)
        return tuple(out)

    def fingerprint(self) -> str:
        """Hash of everything that changes lint results (for the cache)."""
        d = {
            "select": self.select,
            "extend_select": self.extend_select,
            "ignore": self.ignore,
            "pfi": sorted(self.per_file_ignores.items()),
            "exp": self.target_exporters,
            "opset": self.opset,
            "dynamic_shapes": self.dynamic_shapes,
        }
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=list).encode()).hexdigest()[:16]

    def effective_cache_dir(self) -> Path:
        return self.cache_dir or (self.root / ".exportlint_cache")


def _longest_match(code: str, prefixes: tuple[str, ...]) -> int:
    """Length of the longest selector that matches code (0 = none); 'ALL' matches all."""
    best = 0
    for p in prefixes:
        if p == "ALL":
            best = max(best, 1)
        elif code.startswith(p):
            best = max(best, len(p) + 1)
    return best


def _path_matches(relpath: str, pattern: str) -> bool:
    relpath = relpath.replace(os.sep, "/")
    if fnmatch.fnmatch(relpath, pattern):
        return True
    base = relpath.rsplit("/", 1)[-1]
    if "/" not in pattern and fnmatch.fnmatch(base, pattern):
        return True
    # a directory pattern matches everything below it
    p = pattern.rstrip("/")
    return relpath.startswith(p + "/")


def find_config_file(start: Path) -> Optional[Path]:
    """Closest exportlint.toml, or pyproject.toml that has [tool.exportlint], from start up."""
    start = start.resolve()
    if start.is_file():
        start = start.parent
    for d in (start, *start.parents):
        cand = d / "exportlint.toml"
        if cand.is_file():
            return cand
        cand = d / "pyproject.toml"
        if cand.is_file():
            tomllib = _toml()
            try:
                data = tomllib.loads(cand.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                # a broken pyproject.toml that may be ours: let load_config report it
                return cand
            if "exportlint" in data.get("tool", {}):
                return cand
    return None


def load_config(path: Optional[Path] = None, *, start: Optional[Path] = None) -> Config:
    """Load settings from ``path`` (or the closest config above ``start``/cwd)."""
    if path is None:
        path = find_config_file(start or Path.cwd())
        if path is None:
            return Config(root=Path.cwd().resolve())
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read configuration: {e}") from None
    tomllib = _toml()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("exportlint", {})
        prefix = "tool.exportlint"
    else:
        table = data
        prefix = ""
    return config_from_table(table, source=path, prefix=prefix)


def config_from_table(table: dict[str, Any], *, source: Optional[Path] = None, prefix: str = "") -> Config:
    where = str(source) if source else "<config>"

    def key(k: str) -> str:
        return f"{prefix}.{k}" if prefix else k

    def err(k: str, msg: str) -> ConfigError:
        return ConfigError(f"{where}: `{key(k)}`: {msg}")

    if not isinstance(table, dict):
        raise ConfigError(f"{where}: `{prefix or 'tool.exportlint'}` must be a table")
    cfg = Config(root=source.parent.resolve() if source else Path.cwd().resolve(), source=source)
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        raise err(unknown[0], f"unknown key (known keys: {', '.join(sorted(_KNOWN_KEYS))})")

    def str_list(k: str) -> tuple[str, ...]:
        v = table[k]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise err(k, "must be a list of strings")
        return tuple(v)

    def codes(k: str, v: Any = None) -> tuple[str, ...]:
        vals = str_list(k) if v is None else v
        for c in vals:
            if not is_selector(c):
                raise err(k, f"{c!r} is not a rule code or prefix (e.g. 'EXL1', 'EXL101', 'ALL')")
        return vals

    if "select" in table:
        cfg.select = codes("select")
    if "extend-select" in table:
        cfg.extend_select = codes("extend-select")
    if "ignore" in table:
        cfg.ignore = codes("ignore")
    if "exclude" in table:
        cfg.exclude = str_list("exclude")
    if "extend-exclude" in table:
        cfg.extend_exclude = str_list("extend-exclude")
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise err("per-file-ignores", "must be a table of glob = [codes]")
        out = {}
        for pat, v in pfi.items():
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise err(f"per-file-ignores.{pat}", "must be a list of rule codes")
            for c in v:
                if not is_selector(c):
                    raise err(f"per-file-ignores.{pat}", f"{c!r} is not a rule code or prefix")
            out[pat] = tuple(v)
        cfg.per_file_ignores = out
    if "target-exporters" in table:
        te = str_list("target-exporters")
        bad = [e for e in te if e not in EXPORTERS]
        if bad:
            raise err("target-exporters", f"unknown exporter {bad[0]!r} (choose from {', '.join(EXPORTERS)})")
        if not te:
            raise err("target-exporters", "must name at least one exporter")
        cfg.target_exporters = tuple(dict.fromkeys(te))
    if "opset" in table:
        v = table["opset"]
        if not isinstance(v, int) or isinstance(v, bool) or not (7 <= v <= 30):
            raise err("opset", "must be an integer ONNX opset between 7 and 30")
        cfg.opset = v
    if "dynamic-shapes" in table:
        v = table["dynamic-shapes"]
        if v == "auto":
            cfg.dynamic_shapes = None
        elif isinstance(v, bool):
            cfg.dynamic_shapes = v
        else:
            raise err("dynamic-shapes", 'must be true, false or "auto"')
    if "targets" in table:
        t = table["targets"]
        if not isinstance(t, dict):
            raise err("targets", 'must be a table of name = "package.module:callable"')
        for name, spec in t.items():
            if not isinstance(spec, str) or ":" not in spec or not all(spec.split(":", 1)):
                raise err(f"targets.{name}", 'must be a string "package.module:callable"')
        cfg.targets = dict(t)
    if "confirm" in table:
        c = table["confirm"]
        if not isinstance(c, dict):
            raise err("confirm", "must be a table")
        unk = sorted(set(c) - _CONFIRM_KEYS)
        if unk:
            raise err(f"confirm.{unk[0]}", f"unknown key (known: {', '.join(sorted(_CONFIRM_KEYS))})")
        for k, attr, typ in (
            ("timeout", "confirm_timeout", (int, float)),
            ("exporter-timeout", "confirm_exporter_timeout", (int, float)),
            ("memory-limit", "confirm_memory_mb", (int,)),
            ("rtol", "rtol", (int, float)),
            ("atol", "atol", (int, float)),
        ):
            if k in c:
                v = c[k]
                if isinstance(v, bool) or not isinstance(v, typ) or v <= 0:
                    raise err(f"confirm.{k}", "must be a positive number" + (" (MiB)" if k == "memory-limit" else ""))
                setattr(cfg, attr, float(v) if typ != (int,) else int(v))
    if "file-timeout" in table:
        v = table["file-timeout"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
            raise err("file-timeout", "must be a positive number of seconds")
        cfg.file_timeout = float(v)
    if "cache-dir" in table:
        v = table["cache-dir"]
        if not isinstance(v, str):
            raise err("cache-dir", "must be a string path")
        cfg.cache_dir = (cfg.root / v).resolve()
    return cfg


def is_selector(c: str) -> bool:
    if c == "ALL":
        return True
    if not c.startswith("EXL"):
        return False
    rest = c[3:]
    return len(rest) <= 3 and rest.isdigit() or rest == ""
