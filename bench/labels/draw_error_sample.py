"""Draw a reproducible random sample of ERROR findings from exportlint JSON output.

Usage: python bench/labels/draw_error_sample.py FINDINGS.json [--per-rule 10] [--seed 1123]
       python bench/labels/draw_error_sample.py SWEEP.json --total 50 --seed 5 [--zoo mmseg --zoo esm ...]

Findings are sorted by (code, path, line, column) and `random.Random(seed).sample` draws
`per-rule` of each error rule (all of a rule when it has fewer). Prints one line per draw:
`code id path:line:col message` with the path made relative to site-packages.

A SWEEP.json (``bench/zoo_sweep.py --json``: zoo -> findings) is flattened first; ``--zoo``
keeps the zoos whose name contains one of the given strings. With ``--total N`` the draw is a
simple random sample of N errors over all rules (sorted by zoo, path, line, column, code;
``random.Random(f"{seed}-total").sample``), so its TP share estimates the error precision.
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
    ap.add_argument("--total", type=int, help="one simple random sample of this many errors, all rules")
    ap.add_argument("--zoo", action="append", default=[], help="(sweep JSON) zoos whose name contains this")
    args = ap.parse_args()
    with open(args.findings) as fh:
        data = json.load(fh)
    if isinstance(data, dict):
        data = [dict(f, zoo=zoo) for zoo, found in data.items()
                if not args.zoo or any(z in zoo for z in args.zoo) for f in found]
    if args.total:
        errors = sorted((f for f in data if f["severity"] == "error"),
                        key=lambda f: (f.get("zoo", ""), f["path"], f["line"], f["column"], f["code"]))
        pick = random.Random(f"{args.seed}-total").sample(errors, min(args.total, len(errors)))
        pick.sort(key=lambda f: (f.get("zoo", ""), f["path"], f["line"]))
        for i, f in enumerate(pick, 1):
            path = f["path"].split("site-packages/", 1)[-1]
            print(f"{i}\t{f.get('zoo', '').split(' ')[0]}\t{f['code']}\t{path}:{f['line']}:{f['column']}\t{f['exporters']}\t{f['message']}")
        print(f"# {len(pick)} of {len(errors)} errors, seed {args.seed}")
        return
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
