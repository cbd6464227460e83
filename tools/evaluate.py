#!/usr/bin/env python3
"""Species- and genus-level accuracy of a per-read classification against a truth table.

Inputs
  --truth     tab-separated table with a header (plain or .gz). Defaults match the columns
              written by tools/generate_synthetic (read_id taxid species_taxid genus_taxid
              target) and by ../shared/data/reads/simulated/art_mock_truth.tsv.gz
              (read_id seq_id genome_id taxid species_taxid genus_taxid); other names can be
              given with --truth-*-column. Truth taxid 0 marks reads of random sequence.
  --output    per-read classifier output (plain or .gz), either
                metawarp:  read_id <tab> C/U <tab> taxid <tab> ...
                Kraken2:   C/U <tab> read_id <tab> taxid <tab> ...
              detected from the first data line (lines starting with '#' are skipped, and so
              is a header line whose taxid column is not a number). Read ids are compared
              after removing a trailing /1 or /2 and anything after the first space.
  --taxonomy  directory with nodes.dmp (or the nodes.dmp file itself; .gz accepted) to find
              the species/genus ancestor of every assigned taxid.

Definitions (level L = species or genus)
  A read is *assigned at L* when its assigned taxon is at or below L (its lineage contains a
  node of rank L). It is *correct at L* when that ancestor equals the truth's taxid at L.
  precision   = correct / reads assigned at L (random reads assigned at L count as wrong)
  sensitivity = correct / reads whose truth has a taxid at L (random reads excluded)
  F1          = 2 P S / (P + S)
Reads of the truth table missing from the output count as unclassified. Random (truth 0)
reads that were classified at all are reported separately.

Abundance (--abundance FILE, optional; --output may then be omitted)
  FILE is a metawarp abundance table at species (`query --abundance`, with or without
  --abundance-em: the estimated_reads column is used when present, else reads), a Bracken
  output at species (Bracken's, or `query --bracken-output`: new_est_reads) or a Kraken2
  report (species rows, rank code S: their clade reads). The true composition is the truth
  table's reads per species (random reads excluded). With N the truth's reads,
  est(s) and true(s) the reads of species s:
  L1          = sum over species |est(s) - true(s)| / N    (0..2; reads left above species
                                                            count as missing)
  Bray-Curtis = 1 - 2 sum min(est(s), true(s)) / (sum est + sum true)   (0..1)
"""

import argparse
import gzip
import json
import os
import sys

LEVELS = ("species", "genus")


def open_text(path):
    """Opens plain or gzip text, detected from the magic bytes, not the name."""
    if path == "-":
        return sys.stdin
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return open(path, "r", encoding="utf-8", newline="")


def fail(message):
    sys.exit("evaluate.py: error: " + message)


def normalize_read_id(read_id):
    read_id = read_id.split(" ", 1)[0]
    if len(read_id) > 2 and read_id[-2] == "/" and read_id[-1] in "12":
        read_id = read_id[:-2]
    return read_id


class Taxonomy:
    """Parent and rank of every node of an NCBI nodes.dmp."""

    def __init__(self, path):
        if os.path.isdir(path):
            candidates = [os.path.join(path, n) for n in ("nodes.dmp", "nodes.dmp.gz")]
            existing = [c for c in candidates if os.path.exists(c)]
            if not existing:
                fail("%s: no nodes.dmp or nodes.dmp.gz in this directory" % path)
            path = existing[0]
        self.parent = {}
        self.rank = {}
        with open_text(path) as handle:
            for number, line in enumerate(handle, 1):
                fields = line.rstrip("\r\n").split("\t|\t")
                if len(fields) < 3:
                    fail("%s line %d: expected 'id<tab>|<tab>parent<tab>|<tab>rank...'"
                         % (path, number))
                try:
                    taxid, parent = int(fields[0]), int(fields[1])
                except ValueError:
                    fail("%s line %d: taxid or parent is not a number" % (path, number))
                self.parent[taxid] = parent
                self.rank[taxid] = fields[2].rstrip("\t|").strip()
        self._ancestors = {}

    def ancestor_at(self, taxid, rank):
        """Taxid of the node of `rank` on the lineage of `taxid` (itself included), or 0."""
        key = (taxid, rank)
        if key in self._ancestors:
            return self._ancestors[key]
        found, node, steps = 0, taxid, 0
        while node in self.parent:
            if self.rank[node] == rank:
                found = node
                break
            if self.parent[node] == node or steps > 1000:
                break
            node, steps = self.parent[node], steps + 1
        self._ancestors[key] = found
        return found


def parse_taxid(text, where):
    text = text.strip()
    if text in ("", "-", "NA"):
        return 0
    try:
        return int(text)
    except ValueError:
        fail("%s: taxid '%s' is not a number" % (where, text))


def load_truth(path, columns, taxonomy):
    """read id -> {'taxid', 'species', 'genus'} (0 where unknown or random)."""
    truth = {}
    with open_text(path) as handle:
        header = handle.readline().rstrip("\r\n").split("\t")
        index = {}
        for key, name in columns.items():
            if name in header:
                index[key] = header.index(name)
            elif key in ("read_id", "taxid"):
                fail("%s: no column '%s' in the header (%s); name it with --truth-%s-column"
                     % (path, name, ", ".join(header), key.replace("_", "-")))
        for number, line in enumerate(handle, 2):
            line = line.rstrip("\r\n")
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) < len(header):
                fail("%s line %d: %d columns, the header has %d"
                     % (path, number, len(fields), len(header)))
            where = "%s line %d" % (path, number)
            read_id = normalize_read_id(fields[index["read_id"]])
            taxid = parse_taxid(fields[index["taxid"]], where)
            entry = {"taxid": taxid}
            for level in LEVELS:
                if level in index:
                    entry[level] = parse_taxid(fields[index[level]], where)
                elif taxid != 0:
                    entry[level] = taxonomy.ancestor_at(taxid, level)
                else:
                    entry[level] = 0
                if taxid == 0:
                    entry[level] = 0
            if read_id in truth:
                fail("%s: read id '%s' appears twice" % (where, read_id))
            truth[read_id] = entry
    return truth


def detect_format(fields):
    if len(fields) >= 3 and fields[0] in ("C", "U"):
        return "kraken"
    if len(fields) >= 3 and fields[1] in ("C", "U"):
        return "metawarp"
    return None


def load_output(path, forced_format):
    """read id -> assigned taxid (0 for unclassified), and the detected format."""
    assigned = {}
    fmt = forced_format
    with open_text(path) as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if fmt is None:
                fmt = detect_format(fields)
                if fmt is None:
                    if number == 1:
                        continue  # a header line
                    fail("%s line %d: neither 'read_id<tab>C/U<tab>taxid' nor "
                         "'C/U<tab>read_id<tab>taxid'" % (path, number))
            if len(fields) < 3:
                fail("%s line %d: fewer than 3 columns" % (path, number))
            status, read_id = ((fields[0], fields[1]) if fmt == "kraken"
                               else (fields[1], fields[0]))
            if status not in ("C", "U"):
                if number == 1:
                    continue  # a header line such as read_id<tab>classified<tab>taxid
                fail("%s line %d: classification status '%s' is not C or U"
                     % (path, number, status))
            taxid_text = fields[2].strip()
            # Kraken2 with --use-names writes "name (taxid N)".
            if taxid_text.endswith(")") and "(taxid " in taxid_text:
                taxid_text = taxid_text.rsplit("(taxid ", 1)[1][:-1]
            taxid = parse_taxid(taxid_text, "%s line %d" % (path, number))
            read_id = normalize_read_id(read_id)
            if read_id in assigned:
                fail("%s line %d: read id '%s' appears twice" % (path, number, read_id))
            assigned[read_id] = taxid if status == "C" else 0
    return assigned, fmt or "empty"


def evaluate(truth, assigned, taxonomy):
    results = {"reads": len(truth), "missing_from_output": 0, "not_in_truth": 0}
    results["not_in_truth"] = sum(1 for r in assigned if r not in truth)
    random_total = random_classified = classified = unknown_taxids = 0
    counts = {level: {"correct": 0, "assigned": 0, "truth": 0} for level in LEVELS}
    unknown = set()
    for read_id, expected in truth.items():
        taxid = assigned.get(read_id)
        if taxid is None:
            results["missing_from_output"] += 1
            taxid = 0
        if taxid != 0:
            classified += 1
            if taxid not in taxonomy.parent:
                unknown.add(taxid)
                unknown_taxids += 1
        is_random = expected["taxid"] == 0
        if is_random:
            random_total += 1
            random_classified += taxid != 0
        for level in LEVELS:
            c = counts[level]
            got = taxonomy.ancestor_at(taxid, level) if taxid != 0 else 0
            want = expected[level]
            if not is_random and want != 0:
                c["truth"] += 1
            if got != 0:
                c["assigned"] += 1
                if got == want and want != 0:
                    c["correct"] += 1
    for level in LEVELS:
        c = counts[level]
        precision = c["correct"] / c["assigned"] if c["assigned"] else 0.0
        sensitivity = c["correct"] / c["truth"] if c["truth"] else 0.0
        f1 = (2 * precision * sensitivity / (precision + sensitivity)
              if precision + sensitivity else 0.0)
        c.update(precision=precision, sensitivity=sensitivity, f1=f1)
    results.update(levels=counts, classified=classified, random_reads=random_total,
                   random_classified=random_classified,
                   reads_with_unknown_taxid=unknown_taxids,
                   unknown_taxids=sorted(unknown)[:20])
    return results


def print_report(results, fmt, out):
    out.write("output format: %s\n" % fmt)
    out.write("reads in truth: %d, classified: %d (%.2f%%), missing from output: %d, "
              "output reads not in truth: %d\n"
              % (results["reads"], results["classified"],
                 100.0 * results["classified"] / max(1, results["reads"]),
                 results["missing_from_output"], results["not_in_truth"]))
    out.write("%-8s %10s %10s %10s %10s %12s %10s\n"
              % ("level", "correct", "assigned", "truth", "precision", "sensitivity", "F1"))
    for level in LEVELS:
        c = results["levels"][level]
        out.write("%-8s %10d %10d %10d %10.4f %12.4f %10.4f\n"
                  % (level, c["correct"], c["assigned"], c["truth"], c["precision"],
                     c["sensitivity"], c["f1"]))
    out.write("random (truth 0) reads: %d, classified: %d\n"
              % (results["random_reads"], results["random_classified"]))
    if results["reads_with_unknown_taxid"]:
        out.write("warning: %d reads assigned taxids absent from the taxonomy (e.g. %s)\n"
                  % (results["reads_with_unknown_taxid"],
                     ", ".join(map(str, results["unknown_taxids"]))))


def load_species_abundance(path):
    """species taxid -> reads from a metawarp abundance table, a Bracken output (Bracken's or
    metawarp's --bracken-output: its new_est_reads) or a Kraken2 report."""
    reads = {}
    with open_text(path) as handle:
        lines = [line.rstrip("\r\n") for line in handle if line.strip()]
    if not lines:
        fail("%s: empty abundance file" % path)
    if lines[0].startswith("#taxon"):
        header = lines[0][1:].split("\t")
        column = header.index("estimated_reads") if "estimated_reads" in header else 2
        for number, line in enumerate(lines[1:], 2):
            fields = line.split("\t")
            if len(fields) != len(header):
                fail("%s line %d: %d columns, the header has %d"
                     % (path, number, len(fields), len(header)))
            if fields[1] in ("-", "0"):
                continue  # unassigned at the rank, unclassified
            try:
                reads[int(fields[1])] = float(fields[column])
            except ValueError:
                fail("%s line %d: taxid or reads is not a number" % (path, number))
        return reads
    if lines[0].startswith("name\ttaxonomy_id\ttaxonomy_lvl"):  # Bracken
        header = lines[0].split("\t")
        column = header.index("new_est_reads")
        for number, line in enumerate(lines[1:], 2):
            fields = line.split("\t")
            if len(fields) != len(header) or fields[2] != "S":
                continue
            try:
                reads[int(fields[1])] = float(fields[column])
            except ValueError:
                fail("%s line %d: taxid or reads is not a number" % (path, number))
        return reads
    for number, line in enumerate(lines, 1):  # Kraken2 report
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) < 6:
            fail("%s line %d: neither a metawarp abundance table nor a Kraken2 report"
                 % (path, number))
        if fields[3] == "S":
            try:
                reads[int(fields[4])] = float(fields[1])
            except ValueError:
                fail("%s line %d: taxid or reads is not a number" % (path, number))
    return reads


def abundance_distance(truth, estimated):
    """L1 (over all truth reads) and Bray-Curtis between estimated and true species reads."""
    true_reads = {}
    for entry in truth.values():
        if entry["taxid"] != 0 and entry["species"] != 0:
            true_reads[entry["species"]] = true_reads.get(entry["species"], 0) + 1
    total = max(1, len(truth))
    species = set(true_reads) | set(estimated)
    l1 = sum(abs(estimated.get(s, 0.0) - true_reads.get(s, 0)) for s in species) / total
    shared = sum(min(estimated.get(s, 0.0), true_reads.get(s, 0)) for s in species)
    mass = sum(estimated.values()) + sum(true_reads.values())
    bray_curtis = 1.0 - 2.0 * shared / mass if mass else 0.0
    return {"l1": l1, "bray_curtis": bray_curtis, "species_true": len(true_reads),
            "species_estimated": sum(1 for v in estimated.values() if v > 0)}


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--truth", required=True, help="truth table (tsv with header, .gz ok)")
    parser.add_argument("--output", help="per-read classifier output ('-': stdin)")
    parser.add_argument("--abundance", metavar="FILE",
                        help="species abundance table (metawarp) or Kraken2 report to compare "
                             "with the truth's composition")
    parser.add_argument("--taxonomy", required=True, help="directory with nodes.dmp, or the file")
    parser.add_argument("--format", choices=("auto", "metawarp", "kraken"), default="auto",
                        help="per-read output format (default: detect)")
    parser.add_argument("--truth-read-id-column", default="read_id")
    parser.add_argument("--truth-taxid-column", default="taxid")
    parser.add_argument("--truth-species-column", default="species_taxid",
                        help="if absent, the species is looked up in the taxonomy")
    parser.add_argument("--truth-genus-column", default="genus_taxid",
                        help="if absent, the genus is looked up in the taxonomy")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)

    taxonomy = Taxonomy(args.taxonomy)
    columns = {"read_id": args.truth_read_id_column, "taxid": args.truth_taxid_column,
               "species": args.truth_species_column, "genus": args.truth_genus_column}
    truth = load_truth(args.truth, columns, taxonomy)
    if not args.output and not args.abundance:
        fail("give --output, --abundance or both")
    results = {}
    if args.output:
        results = evaluate_output(args, truth, taxonomy)
    if args.abundance:
        distance = abundance_distance(truth, load_species_abundance(args.abundance))
        sys.stdout.write("abundance at species: L1 %.4f, Bray-Curtis %.4f (%d true species, "
                         "%d estimated)\n" % (distance["l1"], distance["bray_curtis"],
                                              distance["species_true"],
                                              distance["species_estimated"]))
        results["abundance"] = distance
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2, sort_keys=True)
            handle.write("\n")
    return 0


def evaluate_output(args, truth, taxonomy):
    assigned, fmt = load_output(args.output, None if args.format == "auto" else args.format)
    if truth and assigned and not any(r in truth for r in assigned):
        fail("no read id of %s is in %s (e.g. '%s' vs '%s')"
             % (args.output, args.truth, next(iter(assigned)), next(iter(truth))))
    results = evaluate(truth, assigned, taxonomy)
    print_report(results, fmt, sys.stdout)
    results["format"] = fmt
    return results


if __name__ == "__main__":
    sys.exit(main())
