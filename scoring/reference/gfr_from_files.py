"""A plain numpy scorer of NTCIREVAL's files: GFR (FairWeb-1) straight from a qrels file,
``<prefix>.<TYPE>-<ATTR>.gmemb`` memberships, ``<TYPE>-<ATTR>.golddistr`` targets and TREC runs,
as GFR-SPEC.md states it. The yardstick of bench/bench_ranked_lists.py: what a participant's
own script costs (read + score), and an independent check of the app's figures (it imports
nothing of the app, nor the other oracles' code: only numpy).

    python -m scoring.reference.gfr_from_files --pack DIR --cutoff 20 --cutoff 100 [--six-decimals] > figures.tsv

A topic's type is its id's first letter; GENDER and ORIGIN are nominal (the spec); each run
file holds one run, named by its tag. Output: run topic attribute_set measure value cutoff.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

GAINS = {"L0": 0.0, "L1": 1.0, "L2": 3.0}  # -g 1:3
G_MAX = 3.0
NOMINAL = {"GENDER", "ORIGIN"}
P = 0.99


def divergences(a: np.ndarray, target: np.ndarray) -> dict[str, np.ndarray]:
    """JSD (log 2), NMD, RNOD of achieved distributions a (..., K) from the target (K,)."""
    k = target.size
    m = (a + target) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        left = np.where(a > 0, a * np.log2(np.where(a > 0, a, 1) / m), 0.0)
        right = np.where(target > 0, target * np.log2(np.where(target > 0, target, 1) / m), 0.0)
    jsd = 0.5 * left.sum(-1) + 0.5 * right.sum(-1)
    nmd = np.abs(np.cumsum(a, -1) - np.cumsum(target)).sum(-1) / (k - 1)
    squared = (a - target) ** 2
    distance = np.abs(np.arange(k)[:, None] - np.arange(k)[None, :])  # |k - j|
    dw = squared @ distance.T  # DW_k = sum_j |k - j| d_j^2
    rnod = np.sqrt(dw[..., target > 0].mean(-1) / (k - 1))
    return {"JSD": np.clip(jsd, 0, 1), "NMD": np.clip(nmd, 0, 1), "RNOD": np.clip(rnod, 0, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pack", type=Path, required=True)
    parser.add_argument("--cutoff", type=int, action="append", required=True)
    parser.add_argument("--six-decimals", action="store_true", help="uniform vectors as GFlabel writes them (%%f)")
    args = parser.parse_args()
    cutoffs = sorted(set(args.cutoff))

    # judged documents per topic: doc -> row; gains; memberships per attribute set
    rows: dict[str, dict[str, int]] = {}
    gains: dict[str, list[float]] = {}
    for line in open(next(args.pack.glob("*.qrels"))):
        topic, doc, level = line.split()
        rows.setdefault(topic, {})[doc] = len(gains.setdefault(topic, []))
        gains[topic].append(GAINS[level])
    sets: dict[str, list[tuple[str, np.ndarray]]] = {}  # type -> [(attribute, target)]
    vectors: dict[tuple[str, str], dict[str, dict[str, list[float]]]] = {}
    for path in sorted(args.pack.glob("*.gmemb")):
        type_code, attribute = path.name.split(".")[-2].split("-", 1)
        target = np.array([float(x) for x in (args.pack / f"{type_code}-{attribute}.golddistr").read_text().split()])
        sets.setdefault(type_code, []).append((attribute, target))
        table = vectors[(type_code, attribute)] = {}
        for line in open(path):
            topic, doc, *values = line.split()
            table.setdefault(topic, {})[doc] = [float(v) for v in values]
    for type_code in sets:  # the campaign's order: ordinal sets first, as the pilot's campaign file
        sets[type_code].sort(key=lambda s: s[0] in NOMINAL)

    # runs: each line a split and a dict look-up
    lists: dict[str, dict[str, list[int]]] = {}  # topic -> run -> judged row, or -1 (unjudged)
    for path in sorted(p for p in args.pack.iterdir() if p.name.startswith("run.")):
        for line in open(path):
            topic, _, doc, _, _, tag = line.split()
            lists.setdefault(topic, {}).setdefault(tag, []).append(rows.get(topic, {}).get(doc, -1))
    runs = sorted({tag for by_run in lists.values() for tag in by_run})

    out = sys.stdout
    out.write("run\ttopic\tattribute_set\tmeasure\tvalue\tcutoff\n")
    for topic in sorted(lists):
        type_code = topic[0]
        topic_gains = np.array(gains.get(topic, []) + [0.0])  # last row: unjudged
        if not np.any(topic_gains > 0):
            continue  # no relevant document: no figure
        by_run = lists[topic]
        depth = min(max(cutoffs), max(len(v) for v in by_run.values()))
        index = np.full((len(runs), depth), len(topic_gains) - 1)
        for r, run in enumerate(runs):
            ranked = by_run.get(run, [])[:depth]
            index[r, : len(ranked)] = [i if i >= 0 else len(topic_gains) - 1 for i in ranked]
        real = np.zeros((len(runs), depth), dtype=bool)
        for r, run in enumerate(runs):
            real[r, : min(len(by_run.get(run, [])), depth)] = True
        g = np.where(real, topic_gains[index], 0.0)
        stop = g / (G_MAX + 1)
        reach = np.concatenate([np.ones((len(runs), 1)), np.cumprod(1 - stop, axis=1)[:, :-1]], axis=1)
        weight = reach * stop
        ranks = np.arange(1, depth + 1)
        figures = {("ERR", "-"): np.cumsum(weight / ranks, axis=1), ("iRBU", "-"): np.cumsum(weight * P**ranks, axis=1)}
        for attribute, target in sets[type_code]:
            k = target.size
            uniform = [float(f"{1 / k:f}") if args.six_decimals else 1 / k] * k
            table = vectors[(type_code, attribute)].get(topic, {})
            judged = np.array([table.get(doc, uniform) for doc in sorted(rows.get(topic, {}), key=rows[topic].get)] + [uniform])
            achieved = np.cumsum(judged[index], axis=1) / ranks[:, None]
            for name, d in divergences(achieved, target).items():
                figures[(f"GF-{name}", attribute)] = np.cumsum(weight * (1 - d), axis=1)
        nominal = any(a in NOMINAL for a, _ in sets[type_code])
        for relevance in ("ERR", "iRBU"):
            for ordinal in ("NMD", "RNOD"):
                parts = [figures[(relevance, "-")]] + [figures[("GF-JSD" if a in NOMINAL else f"GF-{ordinal}", a)]
                                                       for a, _ in sets[type_code]]
                figures[(f"GFR-{relevance}+{ordinal}{'+JSD' if nominal else ''}", "-")] = np.mean(parts, axis=0)
        for cutoff in cutoffs:
            at = min(cutoff, depth) - 1
            for r, run in enumerate(runs):
                out.writelines(f"{run}\t{topic}\t{attribute}\t{measure}\t{float(values[r, at])!r}\t{cutoff}\n"
                               for (measure, attribute), values in figures.items())


if __name__ == "__main__":
    main()
