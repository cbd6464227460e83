#!/usr/bin/env python3
"""tools/plot_sampling.py: a 3-row table gives a valid PNG (signature, IHDR, chunk CRCs, the
pixels' size) with the families' markers drawn; a broken table gives one error line naming
the file and line, exit status 1, and no PNG (an existing one is left as it was).
Run: python3 tests/tools/test_plot_sampling.py"""

import os
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                      "plot_sampling.py")
HEADER = "configuration\tfamily\tbytes_per_base\tf1_all\tf1_excluded\tprecision_all\n"
ROWS = ("minimizer:16 k 20, hd 0 (default)\tminimizer\t1.613\t0.9844\t0.9409\t0.9996\n"
        "Kraken2 2.1.2\tkraken2\t0.909\t0.9821\t0.9394\t0.9994\n"
        "scaled:8 k 16, hd 1\tscaled\t1.630\t0.9788\t0.9318\t0.9997\n")
KRAKEN2_RED, MINIMIZER_GREEN = (214, 39, 40), (44, 160, 44)   # the script's family colours


def read_png(data):
    """(width, height, rows of RGB bytes) of an 8-bit RGB PNG, checking every chunk's CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
    chunks, at = [], 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, "bad CRC in %r" % kind
        chunks.append((kind, body))
        at += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND", [k for k, _ in chunks]
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour, interlace) == (8, 2, 0), "not 8-bit RGB, non-interlaced"
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    stride = 1 + 3 * width
    assert len(raw) == height * stride, "pixel data does not match the IHDR size"
    rows = [raw[y * stride:(y + 1) * stride] for y in range(height)]
    assert all(row[0] == 0 for row in rows), "a filter this reader does not undo"
    return width, height, [row[1:] for row in rows]


def count_colour(rows, colour):
    pixel = bytes(colour)
    return sum(1 for row in rows for x in range(0, len(row), 3) if row[x:x + 3] == pixel)


class PlotSamplingTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def write_table(self, text):
        with open(self.path("table.tsv"), "w", encoding="utf-8") as out:
            out.write(text)
        return self.path("table.tsv")

    def run_script(self, table, out):
        return subprocess.run([sys.executable, SCRIPT, table, out], capture_output=True,
                              text=True, timeout=60)

    def test_three_rows_give_a_valid_png(self):
        out = self.path("plot.png")
        done = self.run_script(self.write_table(HEADER + ROWS), out)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out, "rb") as handle:
            width, height, rows = read_png(handle.read())
        self.assertEqual(width, 1200)
        self.assertGreater(height, 400)
        self.assertGreater(count_colour(rows, KRAKEN2_RED), 20, "no Kraken2 star drawn")
        self.assertGreater(count_colour(rows, MINIMIZER_GREEN), 20, "no minimizer drawn")
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["plot.png", "table.tsv"])

    def expect_error(self, table_text, expected):
        """Exit 1, one stderr line naming the file and the expected text; no PNG written,
        an existing PNG kept as it was, no temporary left."""
        table, out = self.write_table(table_text), self.path("plot.png")
        for existing in (None, b"an older plot"):
            if existing is not None:
                with open(out, "wb") as handle:
                    handle.write(existing)
            done = self.run_script(table, out)
            self.assertEqual(done.returncode, 1, done.stderr)
            lines = done.stderr.splitlines()
            self.assertEqual(len(lines), 1, done.stderr)
            self.assertTrue(lines[0].startswith("plot_sampling.py: error: " + table), lines[0])
            self.assertIn(expected, lines[0])
            if existing is None:
                self.assertFalse(os.path.exists(out), "a PNG was written")
            else:
                with open(out, "rb") as handle:
                    self.assertEqual(handle.read(), existing, "the existing PNG changed")
            self.assertEqual(sorted(os.listdir(self.dir.name)),
                             sorted(["table.tsv"] + (["plot.png"] if existing else [])))

    def test_a_value_that_is_not_a_number(self):
        bad = ROWS.replace("0.9821", "0,9821")
        self.expect_error(HEADER + bad, "line 3: f1_all is '0,9821', not a number")

    def test_a_missing_column(self):
        header = HEADER.replace("f1_excluded", "f1_left_out")
        self.expect_error(header + ROWS, "line 1: the header has no column 'f1_excluded'")

    def test_a_short_row(self):
        self.expect_error(HEADER + ROWS + "scaled:8 k 20\tscaled\t1.702\n",
                          "line 5: 3 tab-separated fields, the header has 6")


if __name__ == "__main__":
    unittest.main()
