"""The project index of files a run only reads (imported, not linted), kept on disk.

A one-file run of a model file resolves its base classes and calls through the files it
imports (``project.py``): for a transformers ``modeling_bert.py`` that is ``modeling_utils.py``
(280 KB), ``masking_utils.py`` and a few more, ~30 ms of ``ast`` work per run although they
did not change. With the cache on, ``Project.index_path`` reads their ``FileIndex`` from
here (one JSON file per (path, module, content hash), ~1 ms) and writes what it had to
compute. The entries live in a folder of the cache directory named by exportlint's code
fingerprint, so an upgrade or an edit of exportlint starts a new one (``Cache.save`` removes
the others). ``--no-cache`` reads and writes nothing.

The outline (``semantics.reduce``) is not stored: only a linted file needs it, and a linted
file is indexed by ``index_source`` directly (its own in-memory cache).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Any, Optional

from exportlint.semantics.index import ClassInfo, ExportFacts, FileIndex


def _file(folder: str, path: str, module: str, is_pkg: bool, digest: str) -> str:
    key = hashlib.sha256(f"{path}\0{module}\0{int(is_pkg)}\0{digest}".encode("utf-8", "surrogatepass")).hexdigest()
    return os.path.join(folder, key[:40] + ".json")


def _to_json(fi: FileIndex) -> dict[str, Any]:
    return {
        "path": fi.path, "module": fi.module, "is_package": fi.is_package, "digest": fi.digest, "ok": fi.ok,
        "imports": fi.imports, "star": fi.star, "all": fi.all, "functions": fi.functions,
        "classes": {n: [c.name, c.line, c.bases, c.methods, c.attrs] for n, c in fi.classes.items()},
        "export_calls": [[e.api, e.line, e.model, e.model_class, e.opset,
                          {k: sorted(v, key=str) for k, v in e.dynamic.items()}, e.declares_dynamic, e.input_names]
                         for e in fi.export_calls],
        "has_forward": fi.has_forward, "assigned": sorted(fi.assigned),
        "decorators": fi.decorators, "fakes": sorted(fi.fakes),
        "ops": sorted(fi.ops),
    }


def _from_json(d: dict[str, Any]) -> FileIndex:
    fi = FileIndex(d["path"], d["module"], d["is_package"], d["digest"], d["ok"])
    fi.imports = d["imports"]
    fi.star = d["star"]
    fi.all = d["all"]
    fi.functions = d["functions"]
    fi.classes = {n: ClassInfo(c[0], c[1], c[2], c[3], c[4]) for n, c in d["classes"].items()}
    fi.export_calls = [ExportFacts(e[0], e[1], e[2], e[3], e[4], {k: set(v) for k, v in e[5].items()}, e[6], e[7])
                       for e in d["export_calls"]]
    fi.has_forward = d["has_forward"]
    fi.assigned = set(d["assigned"])
    fi.decorators = d["decorators"]
    fi.fakes = set(d["fakes"])
    fi.ops = set(d.get("ops", ()))
    return fi


def load(folder: str, path: str, module: str, is_pkg: bool, digest: str) -> Optional[FileIndex]:
    try:
        with open(_file(folder, path, module, is_pkg, digest), encoding="utf-8") as fh:
            d = json.load(fh)
        fi = _from_json(d)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    if (fi.path, fi.module, fi.is_package, fi.digest) != (path, module, is_pkg, digest):
        return None
    return fi


def save(folder: str, fi: FileIndex) -> None:
    """Atomically (workers of one run may write the same entry); a read-only tree still lints."""
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(_to_json(fi), fh, separators=(",", ":"))
        os.replace(tmp, _file(folder, fi.path, fi.module, fi.is_package, fi.digest))
    except (OSError, TypeError, ValueError):
        pass
