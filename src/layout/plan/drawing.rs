//! A drawing of the level to place rooms by (issue 22).
//!
//! On a big level whose links are all contacts, the room-by-room search goes wrong by choosing
//! each room's position locally: a long loop's two ends drift apart, or a loop closes round
//! too little room for what it must hold, and the search only finds out many steps later.
//! Ordering each room's candidate positions by a drawing of the whole level computed before
//! the search (nearest first to where the drawing puts the room, relative to its placed
//! neighbours) keeps the layout close to one consistent picture.
//!
//! The drawing is a stress-majorisation drawing (Gansner, Koren and North 2004) of the room
//! graph: every pair of rooms is pulled towards the distance of the shortest walk between
//! them, each link as long as the mean side of its two rooms' shapes. It starts from a few
//! seeded random positions and keeps the drawing with the fewest crossing links (stopping at
//! the first with none): measured on the blocks of graphs read off a placement of rooms, a
//! crossing-free drawing lets the search lay a block out on most attempts, one with crossings
//! on almost none (see `docs/layout-at-scale.md`). Where every start crosses, the best one is
//! untangled: for a crossing pair of links, the rooms nearer (by walk) to one end of one link
//! than to both ends of the other are reflected across the other's line and the drawing is
//! refined, kept where fewer links cross (graphs read off a placement, 300 rooms, seeds 0 to
//! 29: 29 laid out instead of 26).

use super::Planner;
use crate::layout::geom::Point;
use crate::seed;
use ordered_float::OrderedFloat;
use rand::Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Rooms up to which a level (or a part of one) is drawn: the drawing takes time and memory
/// quadratic in the rooms (one start of 300 rounds about 0.05 s at 300 rooms, 0.6 s at 1000,
/// measured 2026-12-05; 0.1 and 1.3 s before the weights were worked out once per drawing
/// and the sums taken in lanes).
pub(super) const MAX_DRAWN: usize = 400;

/// Random starts of the drawing at most.
const STARTS: u64 = 8;

/// Rounds of stress majorisation at most per start (it stops sooner once no room moves).
const ROUNDS: usize = 300;

/// A random draw of up to this many half-cells added to each candidate's distance from where
/// the drawing puts its room, so that attempts differ.
const JITTER: u64 = 4;

impl Planner {
    /// Whether the search orders candidates by a drawing: a big level whose links are all
    /// contacts (or a part of one), of at most [`MAX_DRAWN`] rooms. (A link that may become a
    /// corridor has no length a drawing could know. Drawing the parts of levels with such
    /// links, where all of a part's own links were contacts, laid chains of 50 loops out 9 of
    /// 10 times instead of 10, so those levels are not drawn at all.)
    pub(super) fn drawn(&self) -> bool {
        self.guided && self.problem.rooms.len() <= MAX_DRAWN
    }

    /// The drawing, one point per room in doubled cells (like `Rect::centre2`), made the
    /// first time it is asked for.
    fn drawing(&self) -> &[Point] {
        self.drawing.get_or_init(|| {
            let (points, _) = draw(&self.adj, &self.room_sizes());
            points
        })
    }

    /// Per room: the mean side of the shapes it may take.
    fn room_sizes(&self) -> Vec<f64> {
        self.room_shapes
            .iter()
            .map(|s| {
                let sum: f64 = s
                    .iter()
                    .map(|&(k, _)| {
                        let m = &self.set.shapes[k as usize].mask;
                        f64::from(m.width + m.height) / 2.0
                    })
                    .sum();
                if s.is_empty() {
                    1.0
                } else {
                    sum / s.len() as f64
                }
            })
            .collect()
    }

    /// Sorts `cands` for `room` nearest first to where the drawing puts it: the mean over its
    /// placed neighbours of their centre plus the drawing's offset from them to `room`, each
    /// distance (Manhattan, between doubled box centres) plus a random draw below [`JITTER`].
    /// Leaves `cands` as they are if no neighbour is placed.
    pub(super) fn sort_by_drawing<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        st: &super::State,
        room: usize,
        cands: &mut Vec<super::Cand>,
    ) {
        let g = self.drawing();
        let (mut sx, mut sy, mut k) = (0i64, 0i64, 0i64);
        for &(q, _) in &self.adj[room] {
            if let Some((qs, qp)) = st.placed[q] {
                let c = self.rect_of(qs, qp).centre2();
                sx += i64::from(c.x + g[room].x - g[q].x);
                sy += i64::from(c.y + g[room].y - g[q].y);
                k += 1;
            }
        }
        if k == 0 {
            return;
        }
        let (wx, wy) = (sx / k, sy / k);
        let mut keyed: Vec<(i64, super::Cand)> = cands
            .iter()
            .map(|c| {
                let p = self.rect_of(c.shape, c.pos).centre2();
                let d = (i64::from(p.x) - wx).abs() + (i64::from(p.y) - wy).abs();
                (d + seed::below(rng, JITTER) as i64, *c)
            })
            .collect();
        keyed.sort_by_key(|k| k.0);
        cands.clear();
        cands.extend(keyed.into_iter().map(|k| k.1));
    }
}

/// A drawing of the graph `adj` (per room, its neighbours and links) with each link as long
/// as the mean of its rooms' `size`s: the points in doubled cells, and how many pairs of
/// links cross in it.
fn draw(adj: &[Vec<(usize, usize)>], size: &[f64]) -> (Vec<Point>, usize) {
    let n = adj.len();
    let d = Stress::new(walk_lengths(adj, size), n);
    let mut links = Vec::new();
    for (u, nbs) in adj.iter().enumerate() {
        links.extend(nbs.iter().filter(|&&(v, _)| u < v).map(|&(v, _)| (u, v)));
    }
    let mut best: Option<(usize, Vec<(f64, f64)>)> = None;
    for start in 0..STARTS {
        let x = stress(&d, start);
        let c = crossings(&links, &x);
        if best.as_ref().is_none_or(|b| c < b.0) {
            best = Some((c, x));
        }
        if c == 0 {
            break;
        }
    }
    let (mut c, mut x) = best.unwrap_or_default();
    if c > 0 {
        (c, x) = untangle(&d, &links, x, c);
    }
    let points = x
        .iter()
        .map(|&(a, b)| Point::new((2.0 * a).round() as i32, (2.0 * b).round() as i32))
        .collect();
    (points, c)
}

/// Shortest walk lengths between all pairs of rooms (`n * n`, row by row; infinite where no
/// walk joins them), each link `(size[u] + size[v]) / 2` long.
fn walk_lengths(adj: &[Vec<(usize, usize)>], size: &[f64]) -> Vec<f64> {
    let n = adj.len();
    let mut d = vec![f64::INFINITY; n * n];
    for s in 0..n {
        let row = &mut d[s * n..(s + 1) * n];
        row[s] = 0.0;
        let mut heap = BinaryHeap::from([(Reverse(OrderedFloat(0.0)), s)]);
        while let Some((Reverse(OrderedFloat(du)), u)) = heap.pop() {
            if du > row[u] {
                continue;
            }
            for &(v, _) in &adj[u] {
                let nd = du + (size[u] + size[v]) / 2.0;
                if nd < row[v] {
                    row[v] = nd;
                    heap.push((Reverse(OrderedFloat(nd)), v));
                }
            }
        }
    }
    d
}

/// Stress majorisation from seeded random positions (start `start`): each round moves every
/// room in turn to the weighted mean of where each other room would put it (weights
/// `1 / d²`), until no room moves by a hundredth of a cell or [`ROUNDS`] rounds are done.
fn stress(d: &Stress, start: u64) -> Vec<(f64, f64)> {
    let n = d.n;
    let mut rng = seed::stream(start, "drawing");
    let spread = (n as f64).sqrt() * 10.0;
    let mut x: Vec<(f64, f64)> = (0..n)
        .map(|_| {
            let a = (seed::unit(&mut rng) - 0.5) * spread;
            (a, (seed::unit(&mut rng) - 0.5) * spread)
        })
        .collect();
    d.refine(&mut x, ROUNDS);
    x
}

/// Repairs tried in all at most (each a reflection and a refinement of the whole drawing,
/// up to [`ROUNDS`] rounds: at 300 rooms up to about a second in all, spent only where every
/// start crossed).
const REPAIRS: usize = 48;

/// Takes crossings out of drawing `x` (with `c` crossing pairs of `links`, `d` the walk
/// lengths): for the first crossing pair not tried yet, each end of each link in turn takes
/// the rooms nearer (by walk) to it than to both ends of the other link, which are reflected
/// across the other link's line, and the drawing is refined; the first such drawing that
/// crosses less is kept and the next pair looked at. Stops with no crossing left, every pair
/// tried or [`REPAIRS`] repairs made. Returns the crossings and the drawing, which never
/// crosses more than `x`.
fn untangle(
    d: &Stress,
    links: &[(usize, usize)],
    mut x: Vec<(f64, f64)>,
    mut c: usize,
) -> (usize, Vec<(f64, f64)>) {
    let n = x.len();
    let mut tried = 0;
    // Pairs looked at already (each only once, so that the repairs end).
    let mut tabu: std::collections::HashSet<(usize, usize, usize, usize)> =
        std::collections::HashSet::new();
    'outer: while c > 0 && tried < REPAIRS {
        let Some(pair) = crossing_pairs(links, &x)
            .into_iter()
            .find(|p| !tabu.contains(p))
        else {
            break;
        };
        tabu.insert(pair);
        let (a, b, p, q) = pair;
        for &(r, (u, v)) in &[(a, (p, q)), (b, (p, q)), (p, (a, b)), (q, (a, b))] {
            if tried >= REPAIRS {
                break;
            }
            tried += 1;
            let group: Vec<usize> = (0..n)
                .filter(|&w| {
                    let dr = d.d[r * n + w];
                    dr < d.d[u * n + w] && dr < d.d[v * n + w]
                })
                .collect();
            let mut y = x.clone();
            let (ox, oy) = x[u];
            let (lx, ly) = (x[v].0 - ox, x[v].1 - oy);
            let len2 = (lx * lx + ly * ly).max(1e-9);
            for &w in &group {
                let (px, py) = (x[w].0 - ox, x[w].1 - oy);
                let t = (px * lx + py * ly) / len2;
                let (fx, fy) = (t * lx, t * ly);
                y[w] = (ox + 2.0 * fx - px, oy + 2.0 * fy - py);
            }
            d.refine(&mut y, ROUNDS);
            let cy = crossings(links, &y);
            if cy < c {
                x = y;
                c = cy;
                continue 'outer;
            }
        }
    }
    (c, x)
}

/// The crossing pairs of links of [`crossings`], each as `(a, b, p, q)`.
fn crossing_pairs(links: &[(usize, usize)], x: &[(f64, f64)]) -> Vec<(usize, usize, usize, usize)> {
    let side = |a: (f64, f64), b: (f64, f64), p: (f64, f64)| {
        (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
    };
    let mut out = Vec::new();
    for (i, &(a, b)) in links.iter().enumerate() {
        for &(p, q) in &links[i + 1..] {
            if a == p || a == q || b == p || b == q {
                continue;
            }
            let (xa, xb, xp, xq) = (x[a], x[b], x[p], x[q]);
            if side(xa, xb, xp) * side(xa, xb, xq) < 0.0
                && side(xp, xq, xa) * side(xp, xq, xb) < 0.0
            {
                out.push((a, b, p, q));
            }
        }
    }
    out
}

/// Lanes of the inner sums of [`Stress::refine`]: rows are padded to a multiple of this, and
/// each lane sums its own terms, so that the compiler can use vector instructions while the
/// order of every addition stays fixed (the same drawing on every machine).
const LANES: usize = 4;

/// The sum of `a`'s lanes in a fixed order (pairwise).
fn lane_sum(a: &[f64; LANES]) -> f64 {
    let mut v = *a;
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            v[k] += v[k + width];
        }
    }
    v[0]
}

/// The stress of a drawing against walk lengths, set up for refining: per pair of rooms its
/// weight `1 / d²` and `d / d²` (zero on the diagonal and where no walk joins them), rows
/// padded to [`LANES`].
struct Stress {
    /// Rooms.
    n: usize,
    /// Row length: `n` rounded up to [`LANES`].
    stride: usize,
    /// Walk lengths, `n * n` (see [`walk_lengths`]).
    d: Vec<f64>,
    /// Weights `1 / d²`, `n * stride`.
    w: Vec<f64>,
    /// Weights times lengths, `1 / d`, `n * stride`.
    wd: Vec<f64>,
    /// Per room, the sum of its row of `w`.
    sw: Vec<f64>,
}

impl Stress {
    fn new(d: Vec<f64>, n: usize) -> Stress {
        let stride = n.div_ceil(LANES) * LANES;
        let mut w = vec![0.0; n * stride];
        let mut wd = vec![0.0; n * stride];
        let mut sw = vec![0.0; n];
        for i in 0..n {
            for j in 0..n {
                let dij = d[i * n + j];
                if i == j || !dij.is_finite() || dij <= 0.0 {
                    continue;
                }
                w[i * stride + j] = 1.0 / (dij * dij);
                wd[i * stride + j] = 1.0 / dij;
                sw[i] += 1.0 / (dij * dij);
            }
        }
        Stress {
            n,
            stride,
            d,
            w,
            wd,
            sw,
        }
    }

    /// Rounds of stress majorisation on `x`, at most `rounds`, until no room moves by a
    /// hundredth of a cell: each room in turn moves to the weighted mean of where each other
    /// room would put it, `sum w (x_j + d (x_i - x_j) / |x_i - x_j|) / sum w`.
    fn refine(&self, x: &mut [(f64, f64)], rounds: usize) {
        let (n, stride) = (self.n, self.stride);
        let mut xs = vec![0.0; stride];
        let mut ys = vec![0.0; stride];
        for (i, p) in x.iter().enumerate() {
            (xs[i], ys[i]) = *p;
        }
        for _ in 0..rounds {
            let mut moved: f64 = 0.0;
            for i in 0..n {
                if self.sw[i] <= 0.0 {
                    continue;
                }
                let (xi, yi) = (xs[i], ys[i]);
                let w = &self.w[i * stride..(i + 1) * stride];
                let wd = &self.wd[i * stride..(i + 1) * stride];
                let mut ax = [0.0f64; LANES];
                let mut ay = [0.0f64; LANES];
                for (((w, wd), px), py) in w
                    .chunks_exact(LANES)
                    .zip(wd.chunks_exact(LANES))
                    .zip(xs.chunks_exact(LANES))
                    .zip(ys.chunks_exact(LANES))
                {
                    for k in 0..LANES {
                        let (ex, ey) = (xi - px[k], yi - py[k]);
                        let f = wd[k] / (ex * ex + ey * ey).sqrt().max(1e-6);
                        ax[k] += w[k] * px[k] + f * ex;
                        ay[k] += w[k] * py[k] + f * ey;
                    }
                }
                let (sx, sy) = (lane_sum(&ax), lane_sum(&ay));
                let to = (sx / self.sw[i], sy / self.sw[i]);
                moved = moved.max((to.0 - xi).abs() + (to.1 - yi).abs());
                (xs[i], ys[i]) = to;
            }
            if moved < 0.01 {
                break;
            }
        }
        for (i, p) in x.iter_mut().enumerate() {
            *p = (xs[i], ys[i]);
        }
    }
}

/// Pairs of `links` with no room in common whose segments cross properly in drawing `x`.
fn crossings(links: &[(usize, usize)], x: &[(f64, f64)]) -> usize {
    crossing_pairs(links, x).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::adjacency_of as adjacency;

    #[test]
    fn crossings_count_pairs_of_links_that_cross() {
        // A square with both diagonals: the diagonals cross once; sides meeting at a corner
        // do not count.
        let x = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        let sides = [(0, 1), (1, 2), (2, 3), (3, 0)];
        assert_eq!(crossings(&sides, &x), 0);
        let all = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3)];
        assert_eq!(crossings(&all, &x), 1);
        // A bow tie (the corners taken in the wrong order): its two diagonals cross.
        assert_eq!(crossings(&[(0, 2), (2, 1), (1, 3), (3, 0)], &x), 1);
        // Links that only touch end to end, or lie apart, do not.
        let far = [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (5.0, 5.0)];
        assert_eq!(crossings(&[(0, 1), (1, 2), (2, 3)], &far), 0);
    }

    #[test]
    fn a_loop_is_drawn_round_without_crossings_and_with_links_room_sized() {
        let n = 16;
        let links: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        let (points, crossed) = draw(&adjacency(n, &links), &vec![6.0; n]);
        assert_eq!(crossed, 0);
        // Each link about one room long (6 cells, 12 half-cells), give or take a third.
        for &(a, b) in &links {
            let (p, q) = (points[a], points[b]);
            let len = f64::from((p.x - q.x).pow(2) + (p.y - q.y).pow(2)).sqrt();
            assert!((8.0..16.0).contains(&len), "link {a}-{b}: {len} half-cells");
        }
        // The same graph, the same drawing.
        assert_eq!(draw(&adjacency(n, &links), &vec![6.0; n]).0, points);
    }

    /// Stress majorisation written out plainly, one room and one term at a time: the
    /// reference [`Stress::refine`] (weights precomputed, terms summed in lanes) is held to.
    fn refine_plainly(n: usize, d: &[f64], x: &mut [(f64, f64)], rounds: usize) {
        for _ in 0..rounds {
            for i in 0..n {
                let (mut sx, mut sy, mut sw) = (0.0, 0.0, 0.0);
                for j in 0..n {
                    let dij = d[i * n + j];
                    if i == j || !dij.is_finite() {
                        continue;
                    }
                    let w = 1.0 / (dij * dij);
                    let (ex, ey) = (x[i].0 - x[j].0, x[i].1 - x[j].1);
                    let e = (ex * ex + ey * ey).sqrt().max(1e-6);
                    sx += w * (x[j].0 + dij * ex / e);
                    sy += w * (x[j].1 + dij * ey / e);
                    sw += w;
                }
                if sw > 0.0 {
                    x[i] = (sx / sw, sy / sw);
                }
            }
        }
    }

    #[test]
    fn refining_moves_rooms_as_the_plain_formula_does() {
        // Graphs of 1 to 23 rooms (so rows end inside a lane and on one), some in two
        // pieces (no walk between them), from random starts: after each of 20 rounds the
        // rooms are where the plain formula puts them, to a millionth of a cell.
        for n in 1..24usize {
            let mut rng = seed::stream(n as u64, "refine test");
            let mut links: Vec<(usize, usize)> = (1..n)
                .filter(|&v| n < 10 || v != n / 2)
                .map(|v| (seed::below(&mut rng, v as u64) as usize, v))
                .collect();
            for _ in 0..n / 3 {
                let (a, b) = (
                    seed::below(&mut rng, n as u64) as usize,
                    seed::below(&mut rng, n as u64) as usize,
                );
                if a != b {
                    links.push((a, b));
                }
            }
            let size: Vec<f64> = (0..n).map(|_| 4.0 + seed::unit(&mut rng) * 12.0).collect();
            let d = walk_lengths(&adjacency(n, &links), &size);
            let stress = Stress::new(d.clone(), n);
            let start: Vec<(f64, f64)> = (0..n)
                .map(|_| (seed::unit(&mut rng) * 80.0, seed::unit(&mut rng) * 80.0))
                .collect();
            let (mut fast, mut plain) = (start.clone(), start);
            for round in 0..20 {
                stress.refine(&mut fast, 1);
                refine_plainly(n, &d, &mut plain, 1);
                for (i, (a, b)) in fast.iter().zip(&plain).enumerate() {
                    let off = (a.0 - b.0).abs() + (a.1 - b.1).abs();
                    assert!(
                        off < 1e-6,
                        "{n} rooms, round {round}, room {i}: {a:?} against {b:?}"
                    );
                    assert!(a.0.is_finite() && a.1.is_finite());
                }
            }
        }
    }

    #[test]
    fn untangling_never_crosses_more_and_counts_what_it_leaves() {
        // A 6 x 6 grid of rooms (planar) from raw random positions, refined only a little,
        // so that links cross: each untangled drawing crosses no more than its start, and
        // the count it gives is the drawing's.
        let side = 6;
        let n = side * side;
        let mut links = Vec::new();
        for r in 0..side {
            for c in 0..side {
                let v = r * side + c;
                if c + 1 < side {
                    links.push((v, v + 1));
                }
                if r + 1 < side {
                    links.push((v, v + side));
                }
            }
        }
        let d = Stress::new(walk_lengths(&adjacency(n, &links), &vec![6.0; n]), n);
        let mut improved = 0;
        for start in 0..12 {
            let mut rng = seed::stream(start, "untangle test");
            let mut x: Vec<(f64, f64)> = (0..n)
                .map(|_| (seed::unit(&mut rng) * 60.0, seed::unit(&mut rng) * 60.0))
                .collect();
            d.refine(&mut x, 2);
            let before = crossings(&links, &x);
            let (after, y) = untangle(&d, &links, x, before);
            assert_eq!(after, crossings(&links, &y), "start {start}");
            assert!(after <= before, "start {start}: {before} -> {after}");
            improved += usize::from(after < before);
        }
        // It does take crossings out, not only leave drawings be.
        assert!(improved > 0);
    }

    #[test]
    fn a_loop_folded_over_itself_is_untangled() {
        // An octagon with two corners swapped is drawn as a bow tie; untangling it leaves
        // no crossing.
        let n = 8;
        let links: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        let d = Stress::new(walk_lengths(&adjacency(n, &links), &vec![6.0; n]), n);
        let mut x: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let a = i as f64 * std::f64::consts::TAU / n as f64;
                (20.0 * a.cos(), 20.0 * a.sin())
            })
            .collect();
        x.swap(1, 5);
        let before = crossings(&links, &x);
        assert!(before > 0);
        let (after, y) = untangle(&d, &links, x, before);
        assert_eq!(after, 0);
        assert_eq!(crossings(&links, &y), 0);
    }

    #[test]
    fn a_disconnected_graph_is_drawn_without_endless_distances() {
        // Two separate links: no walk joins the pairs, and nothing becomes NaN.
        let (points, _) = draw(&adjacency(4, &[(0, 1), (2, 3)]), &[5.0; 4]);
        assert_eq!(points.len(), 4);
        assert!(
            points
                .iter()
                .all(|p| p.x.abs() < 10_000 && p.y.abs() < 10_000)
        );
    }
}
