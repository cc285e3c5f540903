"""Draw a reproducible random sample of ERROR findings from exportlint JSON output.

Usage: python bench/labels/draw_error_sample.py FINDINGS.json [--per-rule 10] [--seed 1123]

Findings are sorted by (code, path, line, column) and `random.Random(seed).sample` draws
`per-rule` of each error rule (all of a rule when it has fewer). Prints one line per draw:
`code id path:line:col message` with the path made relative to site-packages.
"""
import argparse
import json
import random
from collections import defaultdict


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("findings")
    ap.add_argument("--per-rule", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1123)
    args = ap.parse_args()
    with open(args.findings) as fh:
        data = json.load(fh)
    by_rule = defaultdict(list)
    for f in data:
        if f["severity"] == "error":
            by_rule[f["code"]].append(f)
    for code in sorted(by_rule):
        items = sorted(by_rule[code], key=lambda f: (f["path"], f["line"], f["column"]))
        rng = random.Random(f"{args.seed}-{code}")
        pick = items if len(items) <= args.per_rule else rng.sample(items, args.per_rule)
        pick.sort(key=lambda f: (f["path"], f["line"]))
        for i, f in enumerate(pick, 1):
            path = f["path"].split("site-packages/", 1)[-1]
            print(f"{code}-{i}\t{path}:{f['line']}:{f['column']}\t{f['exporters']}\t{f['message']}")


if __name__ == "__main__":
    main()
