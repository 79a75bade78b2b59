"""Does a problem of the scale benchmark have a layout at all? A CP-SAT model (issue 22).

A lab tool for `docs/layout-at-scale.md`, not part of the build or of CI. It reads a problem
as `examples/scale_probe.rs` prints it with `DUMP=1` (a whole level, or a block laid out
alone with `BLOCK=...` and `TAIL=K`), with the benchmark's templates (0: a 6 x 6 square,
1: a 5 x 9 rectangle, 2: a 16 x 16 hall, each under every turn; sliding doors of length 1 kept
one cell off the corners), and asks Google's CP-SAT solver for a placement:

- every room a rectangle of one of its templates' sizes, no two sharing a cell;
- a `Contact` link: the two rooms share a stretch of wall at least 3 cells long (a door of
  length 1 one cell off both rooms' corners);
- a `ContactOrPath { min, max }` link: a contact, or a corridor as the library's router makes
  one (`layout::corridor`): from the cell in front of a door one step straight out, at most
  three straight pieces, one step straight into the cell in front of the other door; every
  cell but those two with its eight neighbours free of rooms and of other corridors and
  their walls; inside the router's search window; `min` to `max` cells in all. With
  `--no-walls`, a corridor need only keep off rooms and other corridors, which is all that
  the library's check (`layout::verify::check`) asks.

Corridors of more than three pieces are left out, so INFEASIBLE means "no layout whose
corridors have at most three pieces", not "no layout". A placement found is printed as a
`PINS=` value for the probe and, with `--json FILE`, written as the library's layout JSON,
which the probe holds to the library's own check (`CHECK=FILE`, drawn with `SVG_OK=DIR`).

    pip install ortools
    DUMP=1 cargo run --release --example scale_probe -- holes 30 7 7 \\
        | grep -E '^(room|link) ' > problem.txt
    python3 docs/experiments/block_feasibility.py problem.txt --seconds 300 --json layout.json
    CHECK=layout.json cargo run --release --example scale_probe -- holes 30 7 7

`--fix` pins rooms (`name:x:y:w:h,...`, lower-left corner, width, height) as the probe's
`PINS` does, and `--hint` (same form) gives the solver a placement to start from; the first
hall (or the first room) is fixed at the origin to take out the translations.
"""
import argparse
import json
import re
import sys

from ortools.sat.python import cp_model

SIZES = {0: [(6, 6)], 1: [(5, 9), (9, 5)], 2: [(16, 16)]}
BOUND = 120


def read(path):
    rooms, links = [], []
    for line in open(path):
        f = line.split()
        if f[0] == "room":
            temps = [int(t) for t in re.findall(r"\d+", line.split("templates", 1)[1])]
            rooms.append((f[2], temps))
        elif f[0] == "link":
            a, b = int(f[1]), int(f[2])
            m = re.search(r"min: (\d+), max: (\d+)", line)
            links.append((a, b, (int(m.group(1)), int(m.group(2))) if m else None))
    return rooms, links


def build(rooms, links, fixed, walls=True):
    m = cp_model.CpModel()
    box = []  # per room: x, y, w, h, x end, y end, interval x, interval y
    for i, (name, temps) in enumerate(rooms):
        sizes = sorted({s for t in temps for s in SIZES[t]})
        x = m.NewIntVar(-BOUND, BOUND, f"{name}.x")
        y = m.NewIntVar(-BOUND, BOUND, f"{name}.y")
        w = m.NewIntVar(min(s[0] for s in sizes), max(s[0] for s in sizes), f"{name}.w")
        h = m.NewIntVar(min(s[1] for s in sizes), max(s[1] for s in sizes), f"{name}.h")
        pick = [m.NewBoolVar(f"{name}.size{k}") for k in range(len(sizes))]
        m.AddExactlyOne(pick)
        m.Add(w == sum(p * s[0] for p, s in zip(pick, sizes)))
        m.Add(h == sum(p * s[1] for p, s in zip(pick, sizes)))
        xe = m.NewIntVar(-BOUND, BOUND + 20, f"{name}.xe")
        ye = m.NewIntVar(-BOUND, BOUND + 20, f"{name}.ye")
        ix = m.NewIntervalVar(x, w, xe, f"{name}.ix")
        iy = m.NewIntervalVar(y, h, ye, f"{name}.iy")
        box.append((x, y, w, h, xe, ye, ix, iy))
    anchor = next((i for i, (_, t) in enumerate(rooms) if 2 in t), 0)
    m.Add(box[anchor][0] == 0)
    m.Add(box[anchor][1] == 0)
    names = [r[0] for r in rooms]
    for name, (fx, fy, fw, fh) in fixed.items():
        x, y, w, h = box[names.index(name)][:4]
        m.Add(x == fx)
        m.Add(y == fy)
        m.Add(w == fw)
        m.Add(h == fh)

    def contact(a, b, when=None):
        xa, ya, _, _, xea, yea, _, _ = box[a]
        xb, yb, _, _, xeb, yeb, _, _ = box[b]
        side = [m.NewBoolVar(f"c{a}.{b}.{k}") for k in range(4)]
        m.Add(xea == xb).OnlyEnforceIf(side[0])
        m.Add(xeb == xa).OnlyEnforceIf(side[1])
        m.Add(yea == yb).OnlyEnforceIf(side[2])
        m.Add(yeb == ya).OnlyEnforceIf(side[3])
        for s in side[:2]:
            m.Add(yea - yb >= 3).OnlyEnforceIf(s)
            m.Add(yeb - ya >= 3).OnlyEnforceIf(s)
        for s in side[2:]:
            m.Add(xea - xb >= 3).OnlyEnforceIf(s)
            m.Add(xeb - xa >= 3).OnlyEnforceIf(s)
        if when is None:
            m.AddBoolOr(side)
        else:
            m.AddBoolOr(side).OnlyEnforceIf(when)
            for s in side:
                m.AddImplication(s, when)

    pieces = []  # (corridor, interval x, interval y)
    corridors = []

    def door(r, out, step, use, tag):
        """`out` is the cell in front of a door of room `r`, `step` the next cell out."""
        x, y, _, _, xe, ye, _, _ = box[r]
        (px, py), (sx, sy) = out, step
        side = [m.NewBoolVar(f"{tag}.side{k}") for k in range(4)]
        m.AddBoolOr(side).OnlyEnforceIf(use)
        for s in side:
            m.AddImplication(s, use)
        m.Add(py == ye).OnlyEnforceIf(side[0])
        m.Add(py == y - 1).OnlyEnforceIf(side[1])
        m.Add(px == xe).OnlyEnforceIf(side[2])
        m.Add(px == x - 1).OnlyEnforceIf(side[3])
        for k, (dx, dy) in enumerate([(0, 1), (0, -1), (1, 0), (-1, 0)]):
            m.Add(sx == px + dx).OnlyEnforceIf(side[k])
            m.Add(sy == py + dy).OnlyEnforceIf(side[k])
        for s in side[:2]:
            m.Add(px >= x + 1).OnlyEnforceIf(s)
            m.Add(px <= xe - 2).OnlyEnforceIf(s)
        for s in side[2:]:
            m.Add(py >= y + 1).OnlyEnforceIf(s)
            m.Add(py <= ye - 2).OnlyEnforceIf(s)

    def cell(c, use, tag):
        """A one-cell interval pair for cell `c` of a corridor."""
        far = BOUND + 40
        ends = []
        for axis, v in enumerate(c):
            e = m.NewIntVar(-far, far + 1, f"{tag}.{axis}end")
            m.Add(e == v + 1)
            ends.append(m.NewOptionalIntervalVar(v, 1, e, use, f"{tag}.{axis}"))
        return ends

    def corridor(a, b, lo, hi):
        """Contact, or a corridor as the library routes one (`layout::corridor`): from the cell
        in front of a door of `a`, one step straight out, then at most three straight pieces to
        the cell one step out from a door of `b`, and into the cell in front of it; every cell
        but the two in front of the doors keeps its eight neighbours free of rooms and of other
        corridors' cells and walls; within the library's search window round the two door cells
        (8 cells more on each side); `lo` to `hi` cells in all."""
        k = len(corridors)
        use = m.NewBoolVar(f"corridor{k}")
        far = BOUND + 40
        var = lambda tag: m.NewIntVar(-far, far, f"k{k}.{tag}")
        oa, ob = (var("oax"), var("oay")), (var("obx"), var("oby"))
        p = [(var(f"p{i}x"), var(f"p{i}y")) for i in range(4)]
        corridors.append((a, b, use, [oa] + p + [ob]))
        contact(a, b, when=use.Not())
        door(a, oa, p[0], use, f"k{k}.a")
        door(b, ob, p[3], use, f"k{k}.b")
        ends_cells.append((k, cell(oa, use, f"k{k}.oa")))
        ends_cells.append((k, cell(ob, use, f"k{k}.ob")))
        first_vertical = m.NewBoolVar(f"k{k}.vhv")
        length = []
        for i in range(3):
            (x1, y1), (x2, y2) = p[i], p[i + 1]
            vertical = first_vertical if i % 2 == 0 else first_vertical.Not()
            m.Add(x1 == x2).OnlyEnforceIf([use, vertical])
            m.Add(y1 == y2).OnlyEnforceIf([use, vertical.Not()])
            walled = []
            for axis, (c1, c2) in enumerate([(x1, x2), (y1, y2)]):
                low = m.NewIntVar(-far, far, f"k{k}.s{i}.{axis}lo")
                high = m.NewIntVar(-far, far, f"k{k}.s{i}.{axis}hi")
                m.AddMinEquality(low, [c1, c2])
                m.AddMaxEquality(high, [c1, c2])
                wlo = m.NewIntVar(-far - 1, far, f"k{k}.s{i}.{axis}wlo")
                wend = m.NewIntVar(-far, far + 2, f"k{k}.s{i}.{axis}wend")
                m.Add(wlo == low - (1 if walls else 0))
                m.Add(wend == high + (2 if walls else 1))
                size = m.NewIntVar(0, 2 * far + 3, f"k{k}.s{i}.{axis}size")
                m.Add(size == wend - wlo).OnlyEnforceIf(use)
                walled.append(m.NewOptionalIntervalVar(wlo, size, wend, use, f"k{k}.s{i}.{axis}"))
                length.append(high - low)
                window.append((use, axis, low, high, oa, ob))
            pieces.append((k, walled[0], walled[1]))
        # cells: the two in front of the doors, and the pieces (which share their corners)
        m.Add(sum(length) + 3 <= hi).OnlyEnforceIf(use)
        m.Add(sum(length) + 3 >= lo).OnlyEnforceIf(use)

    window = []
    ends_cells = []
    for a, b, path in links:
        if path is None:
            contact(a, b)
        else:
            corridor(a, b, *path)
    xs = [b[6] for b in box]
    ys = [b[7] for b in box]
    m.AddNoOverlap2D(xs, ys)
    # A corridor's cells with their walls clear of every room; the cells in front of the
    # doors clear of rooms.
    for _, px, py in pieces:
        m.AddNoOverlap2D(xs + [px], ys + [py])
    for _, (cx, cy) in ends_cells:
        m.AddNoOverlap2D(xs + [cx], ys + [cy])
    # Two corridors: one's cells with their walls clear of the other's cells and walls, the
    # cells in front of the doors clear of the other's cells and walls.
    for i, (k1, px1, py1) in enumerate(pieces):
        for k2, px2, py2 in pieces[i + 1:]:
            if k1 != k2:
                m.AddNoOverlap2D([px1, px2], [py1, py2])
        for k2, (cx, cy) in ends_cells:
            if k1 != k2:
                m.AddNoOverlap2D([px1, cx], [py1, cy])
    # The search window: within 8 cells of the box round the two cells in front of the doors.
    for use, axis, low, high, oa, ob in window:
        lo_box = m.NewIntVar(-BOUND - 60, BOUND + 60, "")
        hi_box = m.NewIntVar(-BOUND - 60, BOUND + 60, "")
        m.AddMinEquality(lo_box, [oa[axis], ob[axis]])
        m.AddMaxEquality(hi_box, [oa[axis], ob[axis]])
        m.Add(low >= lo_box - 7).OnlyEnforceIf(use)
        m.Add(high <= hi_box + 7).OnlyEnforceIf(use)
    return m, box, corridors


TEMPLATE_NAMES = {0: "square", 1: "long", 2: "hall"}


def layout_json(rooms, links, box, corridors, solver):
    """The placement as a `layout::Layout` (JSON): rooms as rectangles, contacts through a door
    one cell off the corners of the shared wall, corridors cell by cell."""
    v = solver.Value
    pt = lambda x, y: {"x": x, "y": y}
    placed = []
    rect = []
    for (name, temps), b in zip(rooms, box):
        x, y, w, h = (v(b[0]), v(b[1]), v(b[2]), v(b[3]))
        rect.append((x, y, w, h))
        t = next(t for t in temps for s in SIZES[t] if s == (w, h))
        turned = SIZES[t][0] != (w, h)
        placed.append({
            "name": name, "template": t, "template_name": TEMPLATE_NAMES[t],
            "transform": "Diagonal13" if turned else "Identity",
            "position": pt(x, y), "min": pt(x, y),
            "outline": [pt(x, y), pt(x, y + h), pt(x + w, y + h), pt(x + w, y)],
            "corridor": False,
        })
    by_link = {(a, b): (use, p) for a, b, use, p in corridors}

    def seg(ax, ay, bx, by):
        return {"a": pt(min(ax, bx), min(ay, by)), "b": pt(max(ax, bx), max(ay, by))}

    def door_in_front(r, c):
        """The door of room `r` that cell `c` lies in front of."""
        x, y, w, h = rect[r]
        cx, cy = c
        if cy == y + h:
            return seg(cx, y + h, cx + 1, y + h)
        if cy == y - 1:
            return seg(cx, y, cx + 1, y)
        if cx == x + w:
            return seg(x + w, cy, x + w, cy + 1)
        return seg(x, cy, x, cy + 1)

    out_links = []
    for a, b, _ in links:
        use_p = by_link.get((a, b))
        if use_p and v(use_p[0]):
            pts = [(v(px), v(py)) for px, py in use_p[1]]
            cells = [pts[0]]
            for (x1, y1), (x2, y2) in zip(pts, pts[1:]):
                while (x1, y1) != (x2, y2):
                    x1 += (x2 > x1) - (x2 < x1)
                    y1 += (y2 > y1) - (y2 < y1)
                    cells.append((x1, y1))
            out_links.append({"door_from": door_in_front(a, pts[0]),
                              "door_to": door_in_front(b, pts[-1]),
                              "corridor": [pt(x, y) for x, y in cells]})
            continue
        (xa, ya, wa, ha), (xb, yb, wb, _) = rect[a], rect[b]
        if xa + wa == xb or xb + wb == xa:
            wall = xb if xa + wa == xb else xa
            t = max(ya, yb) + 1
            d = seg(wall, t, wall, t + 1)
        else:
            wall = yb if ya + ha == yb else ya
            t = max(xa, xb) + 1
            d = seg(t, wall, t + 1, wall)
        out_links.append({"door_from": d, "door_to": d, "corridor": []})
    return {"seed": 0, "attempts": 0, "rooms": placed, "links": out_links}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--fix", default="")
    ap.add_argument("--no-walls", action="store_true",
                    help="corridors need only keep off rooms and other corridors, as "
                         "`layout::verify::check` asks, not a wall of one cell round them as "
                         "the router keeps")
    ap.add_argument("--hint", default="", help="rooms' boxes to start from, as for --fix")
    ap.add_argument("--json", help="write the layout found here, as the library's JSON")
    args = ap.parse_args()
    rooms, links = read(args.dump)
    fixed = {}
    for pin in filter(None, args.fix.split(",")):
        f = pin.split(":")
        fixed[f[0]] = tuple(int(v) for v in f[1:])
    m, box, corridors = build(rooms, links, fixed, walls=not args.no_walls)
    names = [r[0] for r in rooms]
    for pin in filter(None, args.hint.split(",")):
        f = pin.split(":")
        for var, value in zip(box[names.index(f[0])][:4], f[1:]):
            m.AddHint(var, int(value))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = args.seconds
    solver.parameters.num_workers = 2
    status = solver.Solve(m)
    print(f"{solver.StatusName(status)} after {solver.WallTime():.1f} s "
          f"({len(rooms)} rooms, {len(links)} links)")
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        pins = []
        for (name, _), (x, y, w, h, *_rest) in zip(rooms, box):
            pins.append(f"{name}:{solver.Value(x)}:{solver.Value(y)}:"
                        f"{solver.Value(w)}:{solver.Value(h)}")
        print("PINS=" + ",".join(pins))
        if args.json:
            with open(args.json, "w") as out:
                json.dump(layout_json(rooms, links, box, corridors, solver), out)
        for a, b, use, p in corridors:
            how = "contact"
            if solver.Value(use):
                how = "corridor through " + " ".join(
                    f"({solver.Value(x)}, {solver.Value(y)})" for x, y in p)
            print(f"{rooms[a][0]} - {rooms[b][0]}: {how}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
