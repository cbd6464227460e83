#!/usr/bin/env python3
"""tools/evaluate.py on a hand-built taxonomy, truth and outputs, against figures counted by
hand (see the comments at CASES). Run: python3 tests/generator/test_evaluate.py"""

import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                      "evaluate.py")

# root 1 -> genus 10 -> species 20 -> strain 200; genus 10 -> species 21;
# root 1 -> genus 30 -> species 40.
NODES = [(1, 1, "no rank"), (10, 1, "genus"), (20, 10, "species"), (21, 10, "species"),
         (200, 20, "strain"), (30, 1, "genus"), (40, 30, "species")]

# read, truth (taxid, species, genus), assigned taxid (None: missing from the output)
CASES = [
    ("a", (200, 20, 10), 200),   # correct at species and genus
    ("b", (200, 20, 10), 21),    # wrong species, right genus
    ("c", (21, 21, 10), 10),     # genus only: right genus, not assigned at species
    ("d", (40, 40, 30), 0),      # unclassified
    ("e", (40, 40, 30), 20),     # wrong at both levels
    ("f", (0, 0, 0), 1),         # random, classified at the root only
    ("g", (0, 0, 0), 40),        # random, assigned a species: a false positive
    ("h", (21, 21, 10), None),   # missing from the output: unclassified
]
# species: truth 6 (a b c d e h), assigned 4 (a b e g), correct 1 (a)
# genus:   truth 6, assigned 5 (a b c e g), correct 3 (a b c)
EXPECTED = {"species": (1, 4, 6), "genus": (3, 5, 6)}


class EvaluateTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.taxonomy = os.path.join(self.dir.name, "taxonomy")
        os.mkdir(self.taxonomy)
        with open(os.path.join(self.taxonomy, "nodes.dmp"), "w") as out:
            for taxid, parent, rank in NODES:
                out.write("%d\t|\t%d\t|\t%s\t|\t\t|\t0\t|\t1\t|\t11\t|\t1\t|\t0\t|\t1\t|\t0\t|"
                          "\t0\t|\t\t|\n" % (taxid, parent, rank))

    def write(self, name, text, compress=False):
        path = os.path.join(self.dir.name, name)
        if compress:
            with gzip.open(path, "wt") as out:
                out.write(text)
        else:
            with open(path, "w") as out:
                out.write(text)
        return path

    def run_script(self, truth, output, *extra, expect_ok=True):
        report = os.path.join(self.dir.name, "report.json")
        done = subprocess.run([sys.executable, SCRIPT, "--truth", truth, "--output", output,
                               "--taxonomy", self.taxonomy, "--json", report, *extra],
                              capture_output=True, text=True)
        if not expect_ok:
            self.assertNotEqual(done.returncode, 0)
            return done.stderr
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(report) as handle:
            return json.load(handle)

    def generator_truth(self, compress=False):
        rows = ["read_id\ttaxid\tspecies_taxid\tgenus_taxid\ttarget"]
        rows += ["%s\t%d\t%d\t%d\tx" % (read, *truth) for read, truth, _ in CASES]
        return self.write("truth.tsv" + (".gz" if compress else ""), "\n".join(rows) + "\n",
                          compress)

    def check(self, results, fmt):
        self.assertEqual(results["format"], fmt)
        for level, (correct, assigned, truth) in EXPECTED.items():
            figures = results["levels"][level]
            self.assertEqual((figures["correct"], figures["assigned"], figures["truth"]),
                             (correct, assigned, truth), level)
            precision, sensitivity = correct / assigned, correct / truth
            self.assertAlmostEqual(figures["precision"], precision)
            self.assertAlmostEqual(figures["sensitivity"], sensitivity)
            self.assertAlmostEqual(figures["f1"], 2 * precision * sensitivity /
                                   (precision + sensitivity))
        self.assertEqual(results["random_reads"], 2)
        self.assertEqual(results["random_classified"], 2)
        self.assertEqual(results["missing_from_output"], 1)
        self.assertEqual(results["classified"], 6)  # a b c e f g

    # True species reads (random reads f, g excluded): 20: a b (2), 21: c h (2), 40: d e (2).
    # An estimate of 20: 3, 21: 1.5, 40: 0 (1.5 reads left above species): differences
    # 1 + 0.5 + 2 = 3.5 over the truth's 8 reads, L1 = 0.4375; shared 2 + 1.5 + 0 = 3.5,
    # masses 4.5 + 6, Bray-Curtis = 1 - 7 / 10.5 = 1/3. The Kraken2 report gives the same
    # reads through its species (S) rows' clade counts.
    def check_abundance(self, table):
        results = self.run_script(self.generator_truth(), self.write("out.tsv", "a\tU\t0\n"),
                                  "--abundance", table)
        self.assertAlmostEqual(results["abundance"]["l1"], 3.5 / 8)
        self.assertAlmostEqual(results["abundance"]["bray_curtis"], 1 / 3)

    def test_abundance_metawarp_estimated_column(self):
        self.check_abundance(self.write("ab.tsv", (
            "#taxon\ttaxid\treads\tpercent\testimated_reads\testimated_percent\tcell_percent\n"
            "s20\t20\t2\t20\t3.00\t30\t60\n"
            "s21\t21\t1\t10\t1.50\t15\t40\n"
            "unassigned at species\t-\t3\t30\t1.50\t15\t-\n")))

    def test_abundance_kraken_report(self):
        self.check_abundance(self.write("k2.report", (
            " 60.00\t6\t0\tR\t1\troot\n"
            " 45.00\t4.5\t1.5\tG\t10\t  g10\n"
            " 30.00\t3\t3\tS\t20\t    s20\n"
            " 15.00\t1.5\t1.5\tS\t21\t    s21\n")))

    def test_metawarp_format_with_header(self):
        rows = ["read_id\tclassified\ttaxid\trank\tname"]
        rows += ["%s/1\t%s\t%d\tsome rank\tsome name" % (read, "C" if taxid else "U", taxid)
                 for read, _, taxid in CASES if taxid is not None]
        self.check(self.run_script(self.generator_truth(), self.write("out.tsv", "\n".join(rows))),
                   "metawarp")

    def test_kraken_format_gzip_and_names(self):
        rows = []
        for read, _, taxid in CASES:
            if taxid is None:
                continue
            shown = "name with spaces (taxid %d)" % taxid if read == "a" else str(taxid)
            rows.append("%s\t%s\t%s\t150|150\t0:1 |:| 0:1" % ("C" if taxid else "U", read, shown))
        results = self.run_script(self.generator_truth(compress=True),
                                  self.write("out.kraken.gz", "\n".join(rows) + "\n", True))
        self.check(results, "kraken")

    def test_other_truth_columns_and_lineage_from_taxonomy(self):
        # Like art_mock_truth.tsv.gz: extra columns, other order; and here no species/genus
        # columns at all, so evaluate.py must find them in the taxonomy.
        rows = ["seq_id\tname\tgenome_id\ttrue_taxid"]
        rows += ["NC_1\t%s\tGCF_1\t%d" % (read, truth[0]) for read, truth, _ in CASES]
        truth = self.write("art.tsv", "\n".join(rows) + "\n")
        output = self.write("out.tsv", "".join(
            "%s\t%s\t%d\n" % (read, "C" if taxid else "U", taxid)
            for read, _, taxid in CASES if taxid is not None))
        self.check(self.run_script(truth, output, "--truth-read-id-column", "name",
                                   "--truth-taxid-column", "true_taxid"), "metawarp")

    def test_mismatched_read_ids_are_an_error(self):
        output = self.write("out.tsv", "other1\tC\t20\nother2\tU\t0\n")
        message = self.run_script(self.generator_truth(), output, expect_ok=False)
        self.assertIn("no read id", message)

    def test_missing_truth_column_is_an_error(self):
        message = self.run_script(self.generator_truth(), self.write("out.tsv", "a\tC\t20\n"),
                                  "--truth-taxid-column", "nope", expect_ok=False)
        self.assertIn("no column 'nope'", message)


if __name__ == "__main__":
    unittest.main()
