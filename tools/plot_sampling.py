#!/usr/bin/env python3
"""Database size against species F1, one point per sampling and its parameters.

Reads the measured table (docs/sampling-tradeoff.tsv: tab-separated with a header;
columns configuration, family, bytes_per_base, f1_all, f1_excluded, precision_all) and
draws two panels side by side: species F1 with all strains in the database, and with
strains left out, both against database bytes per reference base; points of one family
(window minhash, FracMinHash, minimizers, Kraken2, MetaCache) share a marker.

  tools/plot_sampling.py docs/sampling-tradeoff.tsv docs/sampling-tradeoff.png

Needs matplotlib; without it the script says so and exits with status 2 (nothing written).
"""

import csv
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_sampling.py TABLE.tsv OUT.png")
    table, out = sys.argv[1], sys.argv[2]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("plot_sampling.py: matplotlib is not installed; no plot written\n")
        sys.exit(2)
    with open(table, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    markers = {"window": "s", "scaled": "o", "minimizer": "^", "kraken2": "*", "metacache": "D"}
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharex=True)
    panels = (("f1_all", "all strains in the database"),
              ("f1_excluded", "strains left out of the database"))
    for axis, (column, title) in zip(axes, panels):
        for family in dict.fromkeys(r["family"] for r in rows):
            mine = [r for r in rows if r["family"] == family]
            axis.scatter([float(r["bytes_per_base"]) for r in mine],
                         [float(r[column]) for r in mine],
                         marker=markers.get(family, "x"), s=90 if family == "kraken2" else 45,
                         label=family)
            for r in mine:
                axis.annotate(r["configuration"], (float(r["bytes_per_base"]), float(r[column])),
                              textcoords="offset points", xytext=(4, 3), fontsize=7)
        axis.set_title("species F1, " + title, fontsize=10)
        axis.set_xlabel("database bytes per reference base")
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("species F1")
    axes[0].legend(fontsize=8, loc="lower left")
    figure.tight_layout()
    figure.savefig(out, dpi=110)
    print("wrote " + out)


if __name__ == "__main__":
    main()
