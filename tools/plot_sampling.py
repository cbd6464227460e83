#!/usr/bin/env python3
"""Database size against species F1, one point per sampling and its parameters.

  tools/plot_sampling.py docs/sampling-tradeoff.tsv docs/sampling-tradeoff.png

Reads the measured table (tab-separated, a header line; the columns used are configuration,
family, bytes_per_base, f1_all and f1_excluded, others are ignored) and draws two panels side
by side: species F1 with all strains in the database, and with strains left out, both against
database bytes per reference base. Points of one family (window minhash, FracMinHash,
minimizers, Kraken2, MetaCache) share a marker and a colour. Each point carries its row's
number in the table; the key under the panels gives each number's configuration in full,
because the configurations' own names would cover each other where points crowd.

Python 3's standard library only (the machines that run it have no matplotlib): a small
rasterizer with a bitmap font of its own, and a PNG writer (zlib, struct).

A table it cannot use (a missing column, a value that is not a number, a short row, no
rows) gives one line "plot_sampling.py: error: ..." naming the file and line, exit status 1,
and no PNG; the PNG is written to a temporary file beside it and renamed, so a failed run
never leaves half of one, and an older PNG stays as it was.
"""

import itertools
import math
import os
import struct
import sys
import tempfile
import zlib

PROGRAM = "plot_sampling.py"
USAGE = "tools/plot_sampling.py docs/sampling-tradeoff.tsv docs/sampling-tradeoff.png"

TEXT_COLUMNS = ("configuration", "family")
NUMBER_COLUMNS = ("bytes_per_base", "f1_all", "f1_excluded")

# The two panels: the table's column on the y axis, and the panel's title.
PANELS = (("f1_all", "all strains in the database"),
          ("f1_excluded", "strains left out of the database"))
X_COLUMN, X_TITLE, Y_TITLE = "bytes_per_base", "database bytes per reference base", "species F1"

# Marker and colour of each family the table has had (colours: the common "tab10" set, told
# apart by most colour-blind readers together with the shapes). A family not listed gets a
# cross in one of OTHER_COLOURS.
FAMILY_STYLES = {
    "window": ("window (minhash)", "square", (31, 119, 180)),
    "scaled": ("scaled (FracMinHash)", "circle", (255, 127, 14)),
    "minimizer": ("minimizer", "triangle", (44, 160, 44)),
    "kraken2": ("Kraken2", "star", (214, 39, 40)),
    "metacache": ("MetaCache", "diamond", (148, 103, 189)),
}
OTHER_COLOURS = ((127, 127, 127), (140, 86, 75), (23, 190, 207), (188, 189, 34))

WHITE, BLACK = (255, 255, 255), (0, 0, 0)
TEXT, GRID, LEADER = (30, 30, 30), (225, 225, 225), (150, 150, 150)

# Layout in pixels. Text is the font scaled 2x: 10 x 14 capitals, 12 pixels a character.
WIDTH = 1200
SCALE = 2
MARGIN = 16
PLOT_TOP = 46             # below the panel titles
PLOT_HEIGHT = 380
TICK = 6
MARKER_RADIUS = 6.5


class PlotError(Exception):
    """A problem with the input or the output, told as one line naming the file."""


# --- The font ----------------------------------------------------------------------------
# Drawn for this script: 5 x 7 glyphs of the printable ASCII characters, and two rows under
# the baseline for the descenders of g j p q y , ;. Each band names its characters and
# shows them side by side, one row of pixels a line, '#' set.
GLYPH_WIDTH, GLYPH_HEIGHT, GLYPH_ROWS = 5, 7, 9
ADVANCE = GLYPH_WIDTH + 1
LINE_PITCH = GLYPH_ROWS + 2
FONT_BANDS = (
    (' !"#$%&\'()*+', """
     ..... ..#.. .#.#. .#.#. ..#.. ##... .##.. ..#.. ...#. .#... ..... .....
     ..... ..#.. .#.#. .#.#. .#### ##..# #..#. ..#.. ..#.. ..#.. ..#.. ..#..
     ..... ..#.. ..... ##### #.#.. ...#. #.#.. .#... .#... ...#. #.#.# ..#..
     ..... ..#.. ..... .#.#. .###. ..#.. .#... ..... .#... ...#. .###. #####
     ..... ..#.. ..... ##### ..#.# .#... #.#.# ..... .#... ...#. #.#.# ..#..
     ..... ..... ..... .#.#. ####. #..## #..#. ..... ..#.. ..#.. ..#.. ..#..
     ..... ..#.. ..... .#.#. ..#.. ...## .##.# ..... ...#. .#... ..... .....
     ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .....
     ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ....."""),
    (',-./01234567', """
     ..... ..... ..... ..... .###. ..#.. .###. .###. ...#. ##### ..##. #####
     ..... ..... ..... ....# #...# .##.. #...# #...# ..##. #.... .#... ....#
     ..... ..... ..... ...#. #..## ..#.. ....# ....# .#.#. ####. #.... ...#.
     ..... ##### ..... ..#.. #.#.# ..#.. ...#. ..##. #..#. ....# ####. ..#..
     ..... ..... ..... .#... ##..# ..#.. ..#.. ....# ##### ....# #...# .#...
     .##.. ..... .##.. #.... #...# ..#.. .#... #...# ...#. #...# #...# .#...
     .##.. ..... .##.. ..... .###. .###. ##### .###. ...#. .###. .###. .#...
     ..#.. ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .....
     .#... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ....."""),
    ('89:;<=>?@ABC', """
     .###. .###. ..... ..... ...#. ..... .#... .###. .###. .###. ####. .###.
     #...# #...# .##.. .##.. ..#.. ..... ..#.. #...# #...# #...# #...# #...#
     #...# #...# .##.. .##.. .#... ##### ...#. ....# #.### #...# #...# #....
     .###. .#### ..... ..... #.... ..... ....# ...#. #.#.# ##### ####. #....
     #...# ....# ..... ..... .#... ##### ...#. ..#.. #.### #...# #...# #....
     #...# ...#. .##.. .##.. ..#.. ..... ..#.. ..... #.... #...# #...# #...#
     .###. .##.. .##.. .##.. ...#. ..... .#... ..#.. .#### #...# ####. .###.
     ..... ..... ..... ..#.. ..... ..... ..... ..... ..... ..... ..... .....
     ..... ..... ..... .#... ..... ..... ..... ..... ..... ..... ..... ....."""),
    ('DEFGHIJKLMNO', """
     ###.. ##### ##### .###. #...# .###. ..### #...# #.... #...# #...# .###.
     #..#. #.... #.... #...# #...# ..#.. ...#. #..#. #.... ##.## #...# #...#
     #...# #.... #.... #.... #...# ..#.. ...#. #.#.. #.... #.#.# ##..# #...#
     #...# ####. ####. #.### ##### ..#.. ...#. ##... #.... #.#.# #.#.# #...#
     #...# #.... #.... #...# #...# ..#.. ...#. #.#.. #.... #...# #..## #...#
     #..#. #.... #.... #...# #...# ..#.. #..#. #..#. #.... #...# #...# #...#
     ###.. ##### #.... .#### #...# .###. .##.. #...# ##### #...# #...# .###.
     ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .....
     ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ....."""),
    ('PQRSTUVWXYZ[', """
     ####. .###. ####. .#### ##### #...# #...# #...# #...# #...# ##### .###.
     #...# #...# #...# #.... ..#.. #...# #...# #...# #...# #...# ....# .#...
     #...# #...# #...# #.... ..#.. #...# #...# #...# .#.#. .#.#. ...#. .#...
     ####. #...# ####. .###. ..#.. #...# #...# #.#.# ..#.. ..#.. ..#.. .#...
     #.... #.#.# #.#.. ....# ..#.. #...# #...# #.#.# .#.#. ..#.. .#... .#...
     #.... #..#. #..#. ....# ..#.. #...# .#.#. #.#.# #...# ..#.. #.... .#...
     #.... .##.# #...# ####. ..#.. .###. ..#.. .#.#. #...# ..#.. ##### .###.
     ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .....
     ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ....."""),
    ('\\]^_`abcdefg', """
     ..... .###. ..#.. ..... .#... ..... #.... ..... ....# ..... ..##. .....
     #.... ...#. .#.#. ..... ..#.. ..... #.... ..... ....# ..... .#..# .....
     .#... ...#. #...# ..... ...#. .###. ####. .###. .#### .###. .#... .####
     ..#.. ...#. ..... ..... ..... ....# #...# #.... #...# #...# ###.. #...#
     ...#. ...#. ..... ..... ..... .#### #...# #.... #...# ##### .#... #...#
     ....# ...#. ..... ..... ..... #...# #...# #...# #...# #.... .#... #...#
     ..... .###. ..... ##### ..... .#### ####. .###. .#### .###. .#... .####
     ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ....#
     ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... ..... .###."""),
    ('hijklmnopqrs', """
     #.... ..#.. ...#. #.... .##.. ..... ..... ..... ..... ..... ..... .....
     #.... ..... ..... #.... ..#.. ..... ..... ..... ..... ..... ..... .....
     #.##. .##.. ..##. #..#. ..#.. ##.#. #.##. .###. ####. .#### #.##. .####
     ##..# ..#.. ...#. #.#.. ..#.. #.#.# ##..# #...# #...# #...# ##..# #....
     #...# ..#.. ...#. ##... ..#.. #.#.# #...# #...# #...# #...# #.... .###.
     #...# ..#.. ...#. #.#.. ..#.. #.#.# #...# #...# #...# #...# #.... ....#
     #...# .###. ...#. #..#. .###. #.#.# #...# .###. ####. .#### #.... ####.
     ..... ..... #..#. ..... ..... ..... ..... ..... #.... ....# ..... .....
     ..... ..... .##.. ..... ..... ..... ..... ..... #.... ....# ..... ....."""),
    ('tuvwxyz{|}~', """
     .#... ..... ..... ..... ..... ..... ..... ...## ..#.. ##... .....
     .#... ..... ..... ..... ..... ..... ..... ..#.. ..#.. ..#.. .....
     ###.. #...# #...# #...# #...# #...# ##### ..#.. ..#.. ..#.. .#...
     .#... #...# #...# #...# .#.#. #...# ...#. .#... ..#.. ...#. #.#.#
     .#... #...# #...# #.#.# ..#.. #...# ..#.. ..#.. ..#.. ..#.. ...#.
     .#..# #..## .#.#. #.#.# .#.#. #...# .#... ..#.. ..#.. ..#.. .....
     ..##. .##.# ..#.. .#.#. #...# .#### ##### ...## ..#.. ##... .....
     ..... ..... ..... ..... ..... ....# ..... ..... ..... ..... .....
     ..... ..... ..... ..... ..... .###. ..... ..... ..... ..... ....."""),
)


def parse_font(bands):
    """Each character's set pixels as (column, row) pairs."""
    font = {}
    for chars, block in bands:
        rows = [line.split() for line in block.strip().splitlines()]
        assert len(rows) == GLYPH_ROWS and all(len(row) == len(chars) for row in rows), chars
        for index, char in enumerate(chars):
            font[char] = tuple((column, row) for row in range(GLYPH_ROWS)
                               for column, bit in enumerate(rows[row][index]) if bit == "#")
    return font


FONT = parse_font(FONT_BANDS)


def text_width(text, scale=SCALE):
    return max(len(text) * ADVANCE - 1, 0) * scale


# --- The raster --------------------------------------------------------------------------
class Canvas:
    """An RGB raster, row by row, 3 bytes a pixel; whatever is drawn is clipped to it."""

    def __init__(self, width, height, colour=WHITE):
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(colour) * (width * height))

    def fill_rect(self, left, top, right, bottom, colour):
        """Paints the pixels left <= x < right, top <= y < bottom."""
        left, right = max(int(left), 0), min(int(right), self.width)
        top, bottom = max(int(top), 0), min(int(bottom), self.height)
        if left >= right:
            return
        run = bytes(colour) * (right - left)
        for y in range(top, bottom):
            start = (y * self.width + left) * 3
            self.pixels[start:start + len(run)] = run

    def blend(self, x, y, colour, coverage):
        start = (y * self.width + x) * 3
        for channel in range(3):
            old = self.pixels[start + channel]
            self.pixels[start + channel] = round(old + (colour[channel] - old) * coverage)

    def fill_shape(self, inside, box, colour):
        """Paints the pixels of box (left, top, right, bottom) that inside(x, y) covers, each
        blended by the share of its 4 x 4 sample points inside: smooth edges on markers and
        slanted lines for little code."""
        left, top = max(int(math.floor(box[0])), 0), max(int(math.floor(box[1])), 0)
        right = min(int(math.ceil(box[2])), self.width)
        bottom = min(int(math.ceil(box[3])), self.height)
        offsets = (0.125, 0.375, 0.625, 0.875)
        for y in range(top, bottom):
            for x in range(left, right):
                hits = sum(inside(x + dx, y + dy) for dx in offsets for dy in offsets)
                if hits:
                    self.blend(x, y, colour, hits / 16)

    def text(self, x, y, text, colour=TEXT, scale=SCALE, upward=False):
        """Writes text with the top left of its first capital at (x, y); upward: turned a
        quarter anticlockwise, read from bottom to top starting at (x, y), the tops of the
        letters to the left. A character the font lacks shows as '?'."""
        for index, char in enumerate(text):
            for column, row in FONT.get(char, FONT["?"]):
                along, across = (index * ADVANCE + column) * scale, row * scale
                if upward:
                    self.fill_rect(x + across, y - along - scale, x + across + scale, y - along,
                                   colour)
                else:
                    self.fill_rect(x + along, y + across, x + along + scale, y + across + scale,
                                   colour)


def png_bytes(canvas):
    """The canvas as a PNG: 8-bit RGB, no filtering (rows of flat colour deflate well)."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    stride = canvas.width * 3
    raw = b"".join(b"\x00" + bytes(canvas.pixels[y * stride:(y + 1) * stride])
                   for y in range(canvas.height))
    header = struct.pack(">IIBBBBB", canvas.width, canvas.height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


# --- Shapes: "is this point inside" tests, for Canvas.fill_shape ------------------------
def inside_circle(cx, cy, radius):
    return lambda x, y: (x - cx) ** 2 + (y - cy) ** 2 <= radius * radius


def inside_polygon(points):
    """Even-odd rule, so a star drawn as one outline of ten corners is filled whole."""
    edges = list(zip(points, points[1:] + points[:1]))

    def inside(x, y):
        crossings = 0
        for (x0, y0), (x1, y1) in edges:
            if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                crossings += 1
        return crossings % 2 == 1
    return inside


def inside_segment(x0, y0, x1, y1, half_width):
    length2 = max((x1 - x0) ** 2 + (y1 - y0) ** 2, 1e-9)

    def inside(x, y):
        t = min(max(((x - x0) * (x1 - x0) + (y - y0) * (y1 - y0)) / length2, 0.0), 1.0)
        return (x - x0 - t * (x1 - x0)) ** 2 + (y - y0 - t * (y1 - y0)) ** 2 <= half_width ** 2
    return inside


def star_corners(points=5, outer=1.4, inner=0.6):
    return [((outer if i % 2 == 0 else inner) * math.sin(i * math.pi / points),
             -(outer if i % 2 == 0 else inner) * math.cos(i * math.pi / points))
            for i in range(2 * points)]


# Outlines around (0, 0) for a marker of radius 1, sized so that the shapes look about as
# heavy as the circle; the star a little heavier, as Kraken2 is the one to find.
UNIT_OUTLINES = {
    "square": [(-0.85, -0.85), (0.85, -0.85), (0.85, 0.85), (-0.85, 0.85)],
    "diamond": [(0, -1.2), (1.2, 0), (0, 1.2), (-1.2, 0)],
    "triangle": [(0, -1.2), (1.1, 0.8), (-1.1, 0.8)],
    "star": star_corners(),
}


def marker_inside(shape, cx, cy, radius):
    if shape == "circle":
        return inside_circle(cx, cy, radius)
    if shape == "cross":
        arms = (inside_segment(cx - radius, cy - radius, cx + radius, cy + radius, radius / 3),
                inside_segment(cx - radius, cy + radius, cx + radius, cy - radius, radius / 3))
        return lambda x, y: any(arm(x, y) for arm in arms)
    return inside_polygon([(cx + u * radius, cy + v * radius) for u, v in UNIT_OUTLINES[shape]])


def darker(colour):
    return tuple(channel * 3 // 5 for channel in colour)


def draw_marker(canvas, shape, colour, cx, cy, radius=MARKER_RADIUS):
    """A white rim first, so that markers on top of each other stay apart; a darker edge, so
    that light colours show on white."""
    reach = radius * 1.5 + 3
    box = (cx - reach, cy - reach, cx + reach, cy + reach)
    edge = darker(colour)
    canvas.fill_shape(marker_inside(shape, cx, cy, radius + 1.5), box, WHITE)
    canvas.fill_shape(marker_inside(shape, cx, cy, radius), box, edge)
    canvas.fill_shape(marker_inside(shape, cx, cy, radius - 1.2), box, colour)


def draw_line(canvas, x0, y0, x1, y1, colour, width=1.2):
    pad = width
    box = (min(x0, x1) - pad, min(y0, y1) - pad, max(x0, x1) + pad, max(y0, y1) + pad)
    canvas.fill_shape(inside_segment(x0, y0, x1, y1, width / 2), box, colour)


# --- The table ---------------------------------------------------------------------------
def read_table(path):
    """The table's rows, each {column: value}; PlotError naming the file and line for
    anything the plot cannot use."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise PlotError("cannot read %s: %s" % (path, error.strerror)) from error
    except UnicodeDecodeError as error:
        raise PlotError("%s is not UTF-8 text (byte %d)" % (path, error.start)) from error
    if not lines or not lines[0].strip():
        raise PlotError("%s line 1: no header line (tab-separated column names)" % path)
    header = lines[0].split("\t")
    for column in TEXT_COLUMNS + NUMBER_COLUMNS:
        if column not in header:
            raise PlotError("%s line 1: the header has no column '%s' (it has: %s)"
                            % (path, column, ", ".join(header)))
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if line.strip():
            rows.append(read_row(path, number, header, line.split("\t")))
    if not rows:
        raise PlotError("%s: no rows under the header, nothing to plot" % path)
    return rows


def read_row(path, number, header, fields):
    where = "%s line %d" % (path, number)
    if len(fields) != len(header):
        raise PlotError("%s: %d tab-separated fields, the header has %d"
                        % (where, len(fields), len(header)))
    values = dict(zip(header, fields))
    row = {}
    for column in TEXT_COLUMNS:
        row[column] = values[column].strip()
        if not row[column]:
            raise PlotError("%s: the %s is empty" % (where, column))
    for column in NUMBER_COLUMNS:
        try:
            row[column] = float(values[column])
        except ValueError:
            row[column] = math.nan
        if not math.isfinite(row[column]):
            raise PlotError("%s: %s is '%s', not a number" % (where, column, values[column]))
    return row


def family_styles(rows):
    """(name, shape, colour) of each family, in the table's order."""
    styles, others = {}, itertools.cycle(OTHER_COLOURS)
    for row in rows:
        family = row["family"]
        if family not in styles:
            styles[family] = FAMILY_STYLES.get(family) or (family, "cross", next(others))
    return styles


# --- Axes --------------------------------------------------------------------------------
def padded_range(values, fraction=0.07):
    """The values' span and a margin either side, so no marker sits on the frame."""
    low, high = min(values), max(values)
    span = (high - low) or max(abs(high), 1.0) * 0.1
    return low - span * fraction, high + span * fraction


def nice_ticks(low, high, wanted=6):
    """Round tick values (steps of 1, 2 or 5 times a power of ten) within low..high, and
    their labels with as many decimals as the step needs."""
    raw = (high - low) / wanted
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw * 0.999)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    values = [i * step for i in range(first, last + 1)]
    return [(value, "%.*f" % (decimals, value + 0.0)) for value in values]


class Panel:
    """One plot's frame on the canvas, and data coordinates onto its pixels."""

    def __init__(self, left, right, x_range, y_range):
        self.left, self.right = left, right
        self.top, self.bottom = PLOT_TOP, PLOT_TOP + PLOT_HEIGHT
        self.x_range, self.y_range = x_range, y_range

    def to_pixel(self, x, y):
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        return (self.left + (x - x0) / (x1 - x0) * (self.right - self.left),
                self.bottom - (y - y0) / (y1 - y0) * (self.bottom - self.top))


def draw_axes(canvas, panel, x_ticks, y_ticks, title, region_left):
    """Gridlines, frame, ticks and their labels, the axis titles and the panel title."""
    for value, _ in x_ticks:
        x = round(panel.to_pixel(value, 0)[0])
        canvas.fill_rect(x, panel.top, x + 1, panel.bottom, GRID)
    for value, _ in y_ticks:
        y = round(panel.to_pixel(0, value)[1])
        canvas.fill_rect(panel.left, y, panel.right, y + 1, GRID)
    left, top, right, bottom = panel.left, panel.top, panel.right, panel.bottom
    for box in ((left, top, right + 1, top + 1), (left, bottom, right + 1, bottom + 1),
                (left, top, left + 1, bottom), (right, top, right + 1, bottom)):
        canvas.fill_rect(*box, BLACK)
    for value, label in x_ticks:
        x = round(panel.to_pixel(value, 0)[0])
        canvas.fill_rect(x, bottom, x + 1, bottom + TICK, BLACK)
        canvas.text(x - text_width(label) // 2, bottom + TICK + 6, label)
    for value, label in y_ticks:
        y = round(panel.to_pixel(0, value)[1])
        canvas.fill_rect(left - TICK, y, left, y + 1, BLACK)
        canvas.text(left - TICK - 6 - text_width(label), y - GLYPH_HEIGHT * SCALE // 2, label)
    middle = (left + right) // 2
    canvas.text(middle - text_width(title) // 2, top - 30, title)
    canvas.text(middle - text_width(X_TITLE) // 2, bottom + TICK + 34, X_TITLE)
    canvas.text(region_left, (top + bottom + text_width(Y_TITLE)) // 2, Y_TITLE, upward=True)


# --- Point labels ------------------------------------------------------------------------
# Directions to try around a point, the first that fits winning: right first (where one
# reads on), then the left, the diagonals, above and below last (a number above or below
# reads as belonging to a point of a column).
DIRECTIONS = [math.radians(angle) for angle in
              (0, 180, -30, 30, -150, 150, -60, 60, -120, 120, -90, 90)]
SAME_PLACE = 2.0       # points closer than this (pixels) are drawn on top of each other


def overlaps(a, b, gap=2):
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def nearest_on_box(box, x, y):
    return min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])


def distance_to_box(box, x, y):
    near_x, near_y = nearest_on_box(box, x, y)
    return math.hypot(x - near_x, y - near_y)


def place_labels(panel, points):
    """A box for each point's number: the nearest place around its point that covers no
    marker and no other number, lies inside the frame and is nearer its own point than any
    other (so it reads as that point's); failing that, the nearest free place (a line then
    ties it to its point). points: (label, x, y) in pixels. The points with most neighbours
    choose first, as they have the fewest free places near them."""
    reach = MARKER_RADIUS * 1.5
    taken = [(x - reach, y - reach, x + reach, y + reach) for _, x, y in points]
    frame = (panel.left + 2, panel.top + 2, panel.right - 2, panel.bottom - 2)

    def crowd(index):
        _, x, y = points[index]
        return -sum(abs(x - other_x) + abs(y - other_y) < 60 for _, other_x, other_y in points)

    boxes = {}
    for index in sorted(range(len(points)), key=crowd):
        label, x, y = points[index]
        others = [(ox, oy) for _, ox, oy in points
                  if math.hypot(ox - x, oy - y) > SAME_PLACE]

        def reads_as_mine(box):
            own = distance_to_box(box, x, y)
            return all(distance_to_box(box, ox, oy) > own for ox, oy in others)
        size = (text_width(label), GLYPH_HEIGHT * SCALE)
        boxes[index] = (free_box(x, y, size, frame, taken, reads_as_mine)
                        or free_box(x, y, size, frame, taken, lambda box: True)
                        or (x + reach, y - size[1] / 2, x + reach + size[0], y + size[1] / 2))
        taken.append(boxes[index])
    return [boxes[index] for index in range(len(points))]


def free_box(x, y, size, frame, taken, acceptable):
    """The first box of the given size, on rings of growing distance around (x, y), inside
    frame, overlapping none of taken, and acceptable; None if there is none."""
    width, height = size
    for distance in range(int(MARKER_RADIUS) + 3, 160, 3):
        for angle in DIRECTIONS:
            cx = x + math.cos(angle) * (distance + width / 2)
            cy = y + math.sin(angle) * (distance + height / 2)
            box = (cx - width / 2, cy - height / 2, cx + width / 2, cy + height / 2)
            if (frame[0] <= box[0] and box[2] <= frame[2] and frame[1] <= box[1]
                    and box[3] <= frame[3] and not any(overlaps(box, other) for other in taken)
                    and acceptable(box)):
                return box
    return None


def draw_points(canvas, panel, rows, column, styles):
    """The markers, each numbered in its family's darker colour; a thin line to a number
    placed away from its marker."""
    points = [(str(number), *panel.to_pixel(row[X_COLUMN], row[column]))
              for number, row in enumerate(rows, start=1)]
    boxes = place_labels(panel, points)
    for (_, x, y), box in zip(points, boxes):
        if distance_to_box(box, x, y) > MARKER_RADIUS + 8:
            draw_line(canvas, x, y, *nearest_on_box(box, x, y), LEADER)
    for row, (_, x, y) in zip(rows, points):
        _, shape, colour = styles[row["family"]]
        draw_marker(canvas, shape, colour, x, y)
    for row, (label, _, _), box in zip(rows, points, boxes):
        canvas.text(round(box[0]), round(box[1]), label, darker(styles[row["family"]][2]))


# --- Legend and key ----------------------------------------------------------------------
def draw_legend(canvas, top, styles):
    """One line of the families' markers and names, centred."""
    items = [(shape, colour, name) for name, shape, colour in styles.values()]
    gap, step = 36, 2 * MARKER_RADIUS + 14
    width = sum(step + text_width(name) for _, _, name in items) + gap * (len(items) - 1)
    x = (canvas.width - width) // 2
    for shape, colour, name in items:
        draw_marker(canvas, shape, colour, x + MARKER_RADIUS, top + GLYPH_HEIGHT)
        canvas.text(x + step, top, name)
        x += step + text_width(name) + gap


def wrap(text, columns):
    """Lines of at most columns characters, broken between words where there are any."""
    lines, line = [], ""
    for word in text.split():
        while len(word) > columns:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:columns])
            word = word[columns:]
        if line and len(line) + 1 + len(word) > columns:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    return lines + ([line] if line else [])


# The key is two columns; in each, the marker, the number and the wrapped configuration.
KEY_NUMBER = 4 * ADVANCE * SCALE     # marker and a right-aligned number of up to 2 digits
KEY_GAP = 2 * ADVANCE * SCALE


def key_column_width(width):
    return (width - 2 * MARGIN) // 2


def layout_key(rows, width):
    """For each of the two columns, its entries as (number, family, lines); the
    column-major split that makes the longer column shortest."""
    chars = (key_column_width(width) - KEY_NUMBER - KEY_GAP) // (ADVANCE * SCALE)
    entries = [(number, row["family"], wrap(row["configuration"], chars))
               for number, row in enumerate(rows, start=1)]

    def height(part):
        return sum(len(lines) for _, _, lines in part)
    split = min(range(len(entries) + 1),   # of equal splits, the one with more on the left
                key=lambda k: (max(height(entries[:k]), height(entries[k:])), -k))
    return [entries[:split], entries[split:]]


def key_height(columns):
    lines = max(sum(len(lines) for _, _, lines in column) for column in columns)
    return lines * LINE_PITCH * SCALE


def draw_key(canvas, top, columns, styles):
    for index, column in enumerate(columns):
        left, y = MARGIN + index * key_column_width(canvas.width), top
        for number, family, lines in column:
            _, shape, colour = styles[family]
            draw_marker(canvas, shape, colour, left + MARKER_RADIUS + 2, y + GLYPH_HEIGHT)
            label = str(number)
            canvas.text(left + KEY_NUMBER - text_width(label), y, label, darker(colour))
            for line in lines:
                canvas.text(left + KEY_NUMBER + KEY_GAP, y, line)
                y += LINE_PITCH * SCALE


# --- The figure --------------------------------------------------------------------------
def draw_figure(rows):
    styles = family_styles(rows)
    key = layout_key(rows, WIDTH)
    legend_top = PLOT_TOP + PLOT_HEIGHT + TICK + 80
    key_top = legend_top + 44
    canvas = Canvas(WIDTH, key_top + key_height(key) + MARGIN)
    x_range = padded_range([row[X_COLUMN] for row in rows])
    x_ticks = nice_ticks(*x_range)
    region_width = WIDTH // len(PANELS)
    for index, (column, title) in enumerate(PANELS):
        y_range = padded_range([row[column] for row in rows])
        y_ticks = nice_ticks(*y_range)
        region_left = index * region_width + MARGIN
        # Room left of the frame: the upward y title, then the widest tick label.
        left = (region_left + LINE_PITCH * SCALE + 8 + TICK + 6
                + max(text_width(label) for _, label in y_ticks))
        panel = Panel(left, (index + 1) * region_width - MARGIN, x_range, y_range)
        draw_axes(canvas, panel, x_ticks, y_ticks, title, region_left)
        draw_points(canvas, panel, rows, column, styles)
    draw_legend(canvas, legend_top, styles)
    draw_key(canvas, key_top, key, styles)
    return canvas


# --- Output ------------------------------------------------------------------------------
def new_file_mode(path):
    """A replaced file's permission bits; for a new one, what the umask lets open() give
    (mkstemp's own are the owner's only, and a plot is for everyone)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def write_atomically(path, data):
    """Writes a temporary file in the target's folder and renames it onto the target (a
    symbolic link's target: the link stays): readers see the old PNG or the new one, never
    a part, and a failure leaves no temporary behind."""
    target = os.path.realpath(path)
    try:
        descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(target),
                                                 prefix=os.path.basename(target) + ".tmp-")
    except OSError as error:
        raise PlotError("cannot write %s: %s" % (path, error.strerror)) from error
    done = False
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, new_file_mode(target))
        os.replace(temporary, target)
        done = True
    except OSError as error:
        raise PlotError("cannot write %s: %s" % (path, error.strerror)) from error
    finally:
        if not done:
            os.unlink(temporary)


def main(arguments):
    if len(arguments) != 2:
        raise PlotError("expected a table and the PNG to write; usage: " + USAGE)
    table, out = arguments
    rows = read_table(table)
    if os.path.exists(out) and os.path.samefile(table, out):
        raise PlotError("%s is the table itself; name another file for the PNG" % out)
    write_atomically(out, png_bytes(draw_figure(rows)))
    print("wrote %s from %s" % (out, table))


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except PlotError as error:
        sys.stderr.write("%s: error: %s\n" % (PROGRAM, error))
        sys.exit(1)
