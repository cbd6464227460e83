#!/usr/bin/env python3
"""Simple paired-read simulator for accuracy checks with another error profile than ART's.

Fragments are drawn uniformly from the records of each genome (in proportion to record
length), insert length normal(--insert, --insert-sd) clipped to [read length, record length];
mate 1 is the fragment's start on a random strand, mate 2 the reverse complement of its end.
Every base is substituted with probability --error (a uniformly chosen other base), so errors
are spread evenly along the read (ART's HiSeq profile puts most at the 3' ends). Optionally
--shuffled N adds N pairs whose mates are real fragments with their bases shuffled (truth
taxid 0: negatives). Same seed, same output.

  tools/simulate_reads.py --seqid2taxid MAP --out PREFIX --seed 7 GENOME.fna.gz:PAIRS ...

writes PREFIX_R1.fq, PREFIX_R2.fq and PREFIX_truth.tsv (read_id seq_id genome taxid), which
tools/evaluate.py reads (species and genus looked up in --taxonomy).
"""

import argparse
import gzip
import os
import random
import sys

COMPLEMENT = str.maketrans("ACGTN", "TGCAN")


def read_fasta(path):
    records, name, parts = [], None, []
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as handle:
        for line in handle:
            if line.startswith(">"):
                if name is not None:
                    records.append((name, "".join(parts).upper()))
                name, parts = line[1:].split()[0], []
            else:
                parts.append(line.strip())
    if name is not None:
        records.append((name, "".join(parts).upper()))
    return records


def mutate(seq, rate, rng):
    if rate <= 0:
        return seq
    bases = list(seq)
    for i, b in enumerate(bases):
        if rng.random() < rate:
            bases[i] = rng.choice([x for x in "ACGT" if x != b])
    return "".join(bases)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("genomes", nargs="+", help="FASTA(.gz):pairs")
    parser.add_argument("--seqid2taxid", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--length", type=int, default=150)
    parser.add_argument("--insert", type=float, default=300)
    parser.add_argument("--insert-sd", type=float, default=30)
    parser.add_argument("--error", type=float, default=0.01)
    parser.add_argument("--shuffled", type=int, default=0, help="negative pairs to add")
    args = parser.parse_args()
    taxid = {}
    with open(args.seqid2taxid) as handle:
        for line in handle:
            fields = line.split()
            if len(fields) >= 2:
                taxid[fields[0]] = fields[1]
    rng = random.Random(args.seed)
    n = args.length
    with open(args.out + "_R1.fq", "w") as r1, open(args.out + "_R2.fq", "w") as r2, \
            open(args.out + "_truth.tsv", "w") as truth:
        truth.write("read_id\tseq_id\tgenome\ttaxid\n")
        fragments = []
        for spec in args.genomes:
            path, pairs = spec.rsplit(":", 1)
            records = [(name, seq) for name, seq in read_fasta(path) if len(seq) >= n]
            if not records:
                sys.exit("simulate_reads.py: %s: no record of at least %d bases" % (path, n))
            weights = [len(seq) for _, seq in records]
            genome = os.path.basename(path).split(".fna")[0]
            for i in range(int(pairs)):
                name, seq = rng.choices(records, weights)[0]
                size = int(round(rng.gauss(args.insert, args.insert_sd)))
                size = max(n, min(len(seq), size))
                start = rng.randrange(0, len(seq) - size + 1)
                fragment = seq[start:start + size]
                if rng.random() < 0.5:
                    fragment = fragment.translate(COMPLEMENT)[::-1]
                fragments.append(fragment)
                read_id = "%s-%d" % (genome, i)
                mate1 = mutate(fragment[:n], args.error, rng)
                mate2 = mutate(fragment[-n:].translate(COMPLEMENT)[::-1], args.error, rng)
                r1.write("@%s/1\n%s\n+\n%s\n" % (read_id, mate1, "I" * n))
                r2.write("@%s/2\n%s\n+\n%s\n" % (read_id, mate2, "I" * n))
                truth.write("%s\t%s\t%s\t%s\n" % (read_id, name, genome, taxid.get(name, "0")))
        for i in range(args.shuffled):
            fragment = list(rng.choice(fragments))
            rng.shuffle(fragment)
            fragment = "".join(fragment)
            read_id = "shuffled-%d" % i
            r1.write("@%s/1\n%s\n+\n%s\n" % (read_id, fragment[:n], "I" * n))
            r2.write("@%s/2\n%s\n+\n%s\n" % (read_id, fragment[-n:], "I" * n))
            truth.write("%s\t-\t-\t0\n" % read_id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
