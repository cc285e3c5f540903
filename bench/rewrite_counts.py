"""How many EXL1xx findings on the model zoos come with a rewrite, per family, and why the
others have none (the "No automatic rewrite: ..." notes, grouped).

    python bench/rewrite_counts.py [DIR ...]   (default: timm, transformers, torchvision models)
"""

from __future__ import annotations

import collections
import json
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SP = Path(sysconfig.get_paths()["purelib"])
DEFAULT = [SP / "timm" / "models", SP / "transformers" / "models", SP / "torchvision" / "models"]


def main(argv: list[str]) -> int:
    dirs = [Path(a) for a in argv] or DEFAULT
    total = collections.Counter()
    for d in dirs:
        if not d.is_dir():
            print(f"{d}: missing")
            continue
        r = subprocess.run([sys.executable, "-m", "exportlint", str(d), "--format", "json", "--no-cache",
                            "--exit-zero"], capture_output=True, text=True, cwd=ROOT)
        fs = [f for f in json.loads(r.stdout) if f["code"] in ("EXL101", "EXL102", "EXL103", "EXL104")]
        by_code = collections.Counter(f["code"] for f in fs)
        rw = collections.Counter(f"{f['code']} {f['fix']['kind']} ({f['fix']['safety']})" for f in fs
                                 if f["fix"] and f["fix"].get("kind"))
        why = collections.Counter(re.sub(r"`[^`]*`", "`…`", f["message"].split("No automatic rewrite: ")[1])[:80]
                                  for f in fs if "No automatic rewrite: " in f["message"])
        print(f"== {d}: {dict(by_code)}; with a rewrite: {sum(rw.values())} {dict(rw)}")
        for k, v in why.most_common(8):
            print(f"   {v:4d}  {k}")
        total["findings"] += len(fs)
        total["rewrites"] += sum(rw.values())
    print(dict(total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
