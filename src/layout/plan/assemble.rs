//! Big levels in parts (the spec's "final assembly"): the level is cut at bridges (links on no
//! loop) into small parts (each block of loops, with the small pieces around it merged up to
//! [`PART_ROOMS`] rooms); each part is laid out alone by its own planner, with a stand-in for
//! the room at the far end of each cut link so that its joint rooms keep a free side; the
//! parts are then fitted together one by one, each moved as a whole so that the room at its
//! end of the cut link touches the room at the other end, already placed. A part may also be
//! turned: a rotation or mirror of a whole layout keeps every contact and corridor, so each
//! layout is tried under every transformation that its rooms' templates allow (found by
//! geometry in [`ShapeSet::turn_table`]), eight times the directions a part can grow in. If
//! they do not fit, `Planner::layout` lays the level out room by room instead.
//!
//! Why: the room-by-room search backtracks chronologically, and on a level of hundreds of
//! rooms a room placed early is often walled in by rooms placed much later, before its own
//! neighbours get their turn; no cut-back of the recent steps repairs that. Parts joined by
//! bridges close no loop between them, so fitting them is a search over a tree of rigid
//! pieces, each placed away from what is already there, while the hard geometry (loops) stays
//! inside parts small enough for the room-by-room search.

use rand::Rng;
use rstar::RTree;

use super::super::corridor::Corridor;
use super::super::geom::{Point, Rect, Transform, min_corner};
use super::super::{Layout, LayoutError, LayoutProblem, RetryPolicy, Segment};
use super::{BIG, Planner, ShapeSet, State};
use crate::graph::bridge_flags;
use crate::seed;

/// Rooms per part the cutting aims at (a part that is one block of loops may be bigger).
const PART_ROOMS: usize = 5;
/// Attempts a part's own planner makes for one layout of the part.
const PART_ATTEMPTS: u32 = 10;
/// Annealing runs a part gets when its search first fails in a call (see `anneal`).
const PART_ANNEAL_RUNS: u32 = 2;
/// Layouts of a part tried (each at every position it may take) before the part placed
/// before it moves.
const LAYOUTS_PER_PART: u32 = 4;
/// Part placements an assembly attempt may undo, per part, before it gives up.
const BACKTRACKS_PER_PART: usize = 8;
/// Searches for a part's layout that leaves its stand-ins outside (the last one's layout is
/// taken as it is).
const STAND_IN_TRIES: u32 = 3;
/// Failures of one part in one assembly attempt after which the search goes back to the part
/// it hangs off (twice as many: to the part above that, and so on, up to the first part,
/// which then tries another layout of itself).
const ESCALATE: u32 = 8;
/// Layouts kept per part; beyond that, they are used again in turn.
const POOL: usize = 12;
/// Free moves counted per waiting part (enough to tell the tight ones).
const COUNT_CAP: usize = 8;

/// A part of a big level: its rooms, laid out by a planner of their own.
#[derive(Debug, Clone)]
pub(super) struct Part {
    planner: Planner,
    /// The level's index of each room of the part's problem.
    rooms: Vec<usize>,
    /// The level's index of each link of the part's problem (`usize::MAX`: a link to a
    /// stand-in, a room of another part that the part's problem includes to keep room for it).
    links: Vec<usize>,
    /// The cut link to a part placed earlier: (link, the room at the other end, the part's
    /// own room at this end as an index into `rooms`). `None` for the first part.
    joint: Option<(usize, usize, usize)>,
}

/// Layouts of each part made so far in one call (a part's layout does not depend on the rest,
/// so attempts share them), each with its turned copies.
struct Pool {
    pieces: Vec<Vec<Turns>>,
    /// How many layouts of each part were handed out.
    cursor: Vec<usize>,
    /// How many times each part's own search failed.
    failed: Vec<u32>,
}

/// A layout of a part turned every way its rooms' templates allow (see
/// [`Planner::turned`]); the first is the layout as found.
type Turns = std::rc::Rc<[Piece]>;

/// One layout of a part, in the part's own coordinates.
#[derive(Clone)]
struct Piece {
    placed: Vec<(u32, Point)>,
    corridors: Vec<Corridor>,
    /// The middle of its rooms' boxes.
    centre: (f64, f64),
    /// The box around its rooms.
    bbox: Rect,
}

/// The search's record of one part being placed.
struct Frame {
    part: usize,
    /// Moves of the part's piece (which of its turns, and where), best first; those before
    /// `next` were tried.
    moves: Vec<(usize, Point)>,
    next: usize,
    /// Corridors placed before this part.
    corridors: usize,
    /// Where the part's piece is while it is placed.
    area: Option<Rect>,
}

impl Piece {
    /// Whether the two pieces are the same up to a move.
    fn same_as(&self, other: &Piece) -> bool {
        let t = other.placed[0].1 - self.placed[0].1;
        self.placed.len() == other.placed.len()
            && self.corridors.len() == other.corridors.len()
            && self
                .placed
                .iter()
                .zip(&other.placed)
                .all(|(a, b)| a.0 == b.0 && a.1 + t == b.1)
            && self.corridors.iter().zip(&other.corridors).all(|(a, b)| {
                a.cells.len() == b.cells.len()
                    && a.cells.iter().zip(&b.cells).all(|(&p, &q)| p + t == q)
            })
    }

    /// Its box moved by `t`.
    fn bbox_at(&self, t: Point) -> Rect {
        Rect {
            min: self.bbox.min + t,
            max: self.bbox.max + t,
        }
    }
}

impl ShapeSet {
    /// For each shape and transformation (in [`Transform::ALL`]'s order), the shape of the
    /// same template that the shape turns into, and the corner `m` such that a room of the
    /// shape at `p`, turned about the origin, is the found shape at `turn(p) + m`; `None`
    /// where the template does not allow the turned shape.
    fn turn_table(&self) -> &[super::Turned] {
        self.turns.get_or_init(|| {
            (0..self.shapes.len())
                .map(|s| {
                    let mut row = [None; 8];
                    for (r, &tr) in Transform::ALL.iter().enumerate() {
                        row[r] = self.turn_shape(s, tr);
                    }
                    row
                })
                .collect()
        })
    }

    /// See [`ShapeSet::turn_table`].
    fn turn_shape(&self, s: usize, tr: Transform) -> Option<(u32, Point)> {
        let shape = &self.shapes[s];
        let moved: Vec<Point> = shape.outline.iter().map(|&p| tr.apply(p)).collect();
        let m = min_corner(&moved);
        let (w, h) = (shape.mask.width, shape.mask.height);
        // Doors turned, as (lower end, upper end, facing), with their kind and socket.
        let key = |a: Point, b: Point, f| (a.min_each(b), a.max_each(b), f);
        let mut doors: Vec<_> = shape
            .doors
            .iter()
            .map(|d| {
                let (a, b) = (tr.apply(d.a) - m, tr.apply(d.b) - m);
                (key(a, b, tr.apply_dir(d.facing)), d.kind, &d.socket)
            })
            .collect();
        doors.sort_by_key(|d| d.0);
        self.template_shapes[shape.template]
            .iter()
            .copied()
            .find(|&c| {
                let cand = &self.shapes[c as usize];
                if cand.mask.area != shape.mask.area || cand.doors.len() != doors.len() {
                    return false;
                }
                let cells_match = (0..h).all(|y| {
                    (0..w).all(|x| {
                        let q = Point::new(x, y);
                        !shape.mask.inside(x, y) || {
                            let t = tr.apply(q).min_each(tr.apply(q + Point::new(1, 1))) - m;
                            cand.mask.inside(t.x, t.y)
                        }
                    })
                });
                if !cells_match {
                    return false;
                }
                let mut theirs: Vec<_> = cand
                    .doors
                    .iter()
                    .map(|d| (key(d.a, d.b, d.facing), d.kind, &d.socket))
                    .collect();
                theirs.sort_by_key(|d| d.0);
                theirs == doors
            })
            .map(|c| (c, m))
    }
}

impl Planner {
    /// Cuts a big level into parts at bridges that may be realised by contact (and do not
    /// end at a collapsed corridor room), a big hub block first and then breadth first, so
    /// that each part's joint leads to a part listed before it; `None` if the level is small,
    /// not connected, or does not come apart.
    pub(super) fn cut_into_parts(&self) -> Option<Vec<Part>> {
        let n = self.problem.rooms.len();
        if n < BIG {
            return None;
        }
        let links = &self.problem.links;
        let bridge = bridge_flags(&self.adj, links.len());
        let cut: Vec<bool> = links
            .iter()
            .enumerate()
            .map(|(l, k)| {
                bridge[l]
                    && k.realise.contact_allowed()
                    && self.via[k.from].is_none()
                    && self.via[k.to].is_none()
            })
            .collect();
        // Blocks: rooms joined by links that are not cut.
        let mut uf: Vec<usize> = (0..n).collect();
        fn find(uf: &mut [usize], mut x: usize) -> usize {
            while uf[x] != x {
                uf[x] = uf[uf[x]];
                x = uf[x];
            }
            x
        }
        for (l, k) in links.iter().enumerate() {
            if !cut[l] {
                let (a, b) = (find(&mut uf, k.from), find(&mut uf, k.to));
                uf[a.max(b)] = a.min(b);
            }
        }
        let mut block = vec![usize::MAX; n];
        let mut size: Vec<usize> = Vec::new();
        for r in 0..n {
            let root = find(&mut uf, r);
            if block[root] == usize::MAX {
                block[root] = size.len();
                size.push(0);
            }
            block[r] = block[root];
            size[block[r]] += 1;
        }
        let nb = size.len();
        if nb < 2 {
            return None;
        }
        let mut tree: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nb];
        for (l, k) in links.iter().enumerate() {
            if cut[l] {
                tree[block[k.from]].push((block[k.to], l));
                tree[block[k.to]].push((block[k.from], l));
            }
        }
        // First the block with the most rooms plus links to other blocks (big loops and the
        // hubs that most of the level hangs off: the level grows out from its crowded middle),
        // then breadth first.
        let root = (0..nb)
            .max_by_key(|&b| (size[b] + tree[b].len(), nb - b))
            .expect("blocks");
        let mut parent: Vec<Option<(usize, usize)>> = vec![None; nb];
        let mut seen = vec![false; nb];
        let mut order = vec![root];
        seen[root] = true;
        let mut head = 0;
        while head < order.len() {
            let b = order[head];
            head += 1;
            for &(c, l) in &tree[b] {
                if !seen[c] {
                    seen[c] = true;
                    parent[c] = Some((b, l));
                    order.push(c);
                }
            }
        }
        if order.len() < nb {
            return None;
        }
        // Merge small blocks into their parents, smallest first, up to PART_ROOMS rooms.
        let mut total = size.clone();
        let mut merged = vec![false; nb];
        for &b in order.iter().rev() {
            let mut kids: Vec<usize> = tree[b]
                .iter()
                .map(|&(c, _)| c)
                .filter(|&c| parent[c].is_some_and(|(p, _)| p == b))
                .collect();
            kids.sort_by_key(|&c| (total[c], c));
            for c in kids {
                if total[b] + total[c] <= PART_ROOMS {
                    merged[c] = true;
                    total[b] += total[c];
                }
            }
        }
        let mut group = vec![usize::MAX; nb];
        for &b in &order {
            group[b] = match parent[b] {
                Some((p, _)) if merged[b] => group[p],
                _ => b,
            };
        }
        let heads: Vec<usize> = order.iter().copied().filter(|&b| !merged[b]).collect();
        if heads.len() < 2 {
            return None;
        }
        let mut parts = Vec::with_capacity(heads.len());
        for &g in &heads {
            let rooms: Vec<usize> = (0..n).filter(|&r| group[block[r]] == g).collect();
            let local = |r: usize| rooms.binary_search(&r).ok();
            let mut sub = LayoutProblem::new(self.problem.templates.clone());
            sub.rooms = rooms
                .iter()
                .map(|&r| self.problem.rooms[r].clone())
                .collect();
            let mut sub_links = Vec::new();
            for (l, k) in links.iter().enumerate() {
                if let (Some(a), Some(b)) = (local(k.from), local(k.to)) {
                    let mut k = *k;
                    (k.from, k.to) = (a, b);
                    sub.links.push(k);
                    sub_links.push(l);
                }
            }
            // Each cut link gets a stand-in for the room at its other end, so that the part's
            // layout leaves its joint rooms a free side; stand-ins are dropped from the piece.
            for k in links {
                let (inside, outside) = match (local(k.from), local(k.to)) {
                    (Some(a), None) => (a, k.to),
                    (None, Some(b)) => (b, k.from),
                    _ => continue,
                };
                let mut stand_in = self.problem.rooms[outside].clone();
                stand_in.name = format!("{} (stand-in)", stand_in.name);
                let d = sub.rooms.len();
                sub.rooms.push(stand_in);
                let mut k = *k;
                if local(k.from).is_some() {
                    (k.from, k.to) = (inside, d);
                } else {
                    (k.from, k.to) = (d, inside);
                }
                sub.links.push(k);
                sub_links.push(usize::MAX);
            }
            sub.min_distance = self.problem.min_distance;
            sub.repeat_default = self.problem.repeat_default;
            sub.repeat_override = self.problem.repeat_override;
            sub.budget = self.problem.budget;
            sub.budget.retry = RetryPolicy::Attempts(PART_ATTEMPTS);
            sub.recent_penalty = self.problem.recent_penalty;
            sub.earlier_uses = self.problem.earlier_uses.clone();
            let joint = parent[g].map(|(_, l)| {
                let k = links[l];
                let (own, other) = if block[k.to] == g {
                    (k.to, k.from)
                } else {
                    (k.from, k.to)
                };
                (
                    l,
                    other,
                    local(own).expect("the joint's room is in the part"),
                )
            });
            let mut planner = Planner::prepare(sub, self.set.clone()).ok()?;
            planner.build_compounds();
            parts.push(Part {
                planner,
                rooms,
                links: sub_links,
                joint,
            });
        }
        Some(parts)
    }

    /// Lays a big level out part by part (see the module docs).
    pub(super) fn assemble(
        &self,
        seed: u64,
        parts: &[Part],
        deadline: Option<std::time::Instant>,
    ) -> Result<Layout, LayoutError> {
        let mut rng = seed::stream(seed, "assembly");
        let mut pool = Pool {
            pieces: (0..parts.len()).map(|_| Vec::new()).collect(),
            cursor: vec![0; parts.len()],
            failed: vec![0; parts.len()],
        };
        let mut fails = vec![0u32; parts.len()];
        let mut why: Vec<Option<LayoutError>> = vec![None; parts.len()];
        let mut attempt = 0u32;
        loop {
            if !self.attempts_left(attempt, deadline) {
                break;
            }
            attempt += 1;
            if let Some(st) = self.fit_parts(&mut rng, parts, &mut pool, &mut fails, &mut why) {
                return Ok(self.finish(seed, attempt, st));
            }
            // A part that never laid out on its own will not now.
            if (0..parts.len())
                .any(|k| pool.pieces[k].is_empty() && pool.failed[k] >= LAYOUTS_PER_PART)
            {
                break;
            }
        }
        // A part that never laid out on its own is the reason; else the part that failed to
        // fit most often.
        let hopeless = (0..parts.len()).find(|&k| pool.pieces[k].is_empty() && why[k].is_some());
        let k = hopeless.unwrap_or_else(|| {
            (0..parts.len())
                .max_by_key(|&k| (fails[k], parts.len() - k))
                .unwrap_or(0)
        });
        let part = &parts[k];
        let name = |r: usize| self.problem.rooms[r].name.as_str();
        let (room, constraint) = match (hopeless.and(why[k].as_ref()), part.joint) {
            (Some(e), _) => (
                name(part.rooms[0]).to_string(),
                format!("the part could not be laid out on its own: {e}"),
            ),
            (None, Some((_, other, own))) => (
                name(part.rooms[own]).to_string(),
                format!(
                    "no free position for the part of {} room{} around `{}` with `{}` touching `{}`",
                    part.rooms.len(),
                    if part.rooms.len() == 1 { "" } else { "s" },
                    name(part.rooms[own]),
                    name(part.rooms[own]),
                    name(other)
                ),
            ),
            (None, None) => (
                name(part.rooms[0]).to_string(),
                "no layout of the first part left room for the parts joined to it".to_string(),
            ),
        };
        Err(LayoutError::NoLayout {
            attempts: attempt,
            room,
            composite: format!(" in part {} of {}", k + 1, parts.len()),
            failures: fails[k],
            constraint,
        })
    }

    /// One attempt at fitting the parts together: depth first, each time the waiting part
    /// (its joint's other room placed) with the fewest free moves; a move that leaves a
    /// waiting part near it no free move is refused; a part with no move left tries another
    /// layout of itself, then the search jumps back to the last part placed near its joint.
    fn fit_parts<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        parts: &[Part],
        pool: &mut Pool,
        fails: &mut [u32],
        why: &mut [Option<LayoutError>],
    ) -> Option<State> {
        let np = parts.len();
        let mut st = State {
            placed: vec![None; self.problem.rooms.len()],
            index: RTree::new(),
            corridors: Vec::new(),
            witness: vec![None; self.problem.links.len()],
        };
        let mut pieces: Vec<Option<Turns>> = (0..np).map(|_| None).collect();
        let mut layouts = vec![0u32; np];
        // Free moves of each waiting part (capped at COUNT_CAP); None: to be counted.
        let mut count: Vec<Option<usize>> = vec![None; np];
        let mut on = vec![false; np];
        let mut frames: Vec<Frame> = Vec::new();
        let mut backtracks = 0;
        // Failures of each part in this attempt: a part that keeps failing sends the search
        // further back (see ESCALATE).
        let mut failed_here = vec![0u32; np];
        let mut part_of = vec![0usize; self.problem.rooms.len()];
        for (k, p) in parts.iter().enumerate() {
            for &r in &p.rooms {
                part_of[r] = k;
            }
        }
        // A new layout for part `k`; false if its planner failed.
        let relayout = |k: usize,
                        pieces: &mut Vec<Option<Turns>>,
                        pool: &mut Pool,
                        rng: &mut R,
                        why: &mut [Option<LayoutError>]| {
            pieces[k] = None;
            let have = pool.pieces[k].len();
            if have < POOL && pool.cursor[k] >= have {
                let sub = &parts[k].planner;
                // A layout that shuts a stand-in in leaves the part joined there no way out:
                // search again; the last search's layout is taken as it is (or, if that search
                // fails, the first layout found).
                let mut kept = None;
                let mut tries = 0;
                let found = loop {
                    tries += 1;
                    let seed = rng.next_u64();
                    // Annealing (slower) only after the part's first failed search in this call.
                    let got = match sub.search(seed, None) {
                        Err(e) if pool.failed[k] == 0 && sub.can_anneal() => {
                            sub.anneal(seed, PART_ANNEAL_RUNS, None).map_err(|_| e)
                        }
                        other => other,
                    };
                    match got {
                        Ok(done)
                            if tries < STAND_IN_TRIES
                                && !self.stand_ins_out(&parts[k], &done.0) =>
                        {
                            kept.get_or_insert(done);
                        }
                        Err(e) => break kept.take().ok_or(e),
                        ok => break ok,
                    }
                };
                match found {
                    Ok((sub, _)) => {
                        let piece = self.piece(&parts[k], sub);
                        pool.pieces[k].push(self.turned(piece));
                    }
                    Err(e) => {
                        why[k] = Some(e);
                        pool.failed[k] += 1;
                    }
                }
            }
            let have = pool.pieces[k].len();
            if have == 0 {
                return false;
            }
            pieces[k] = Some(pool.pieces[k][pool.cursor[k] % have].clone());
            pool.cursor[k] += 1;
            true
        };
        // Whether part `j`'s joint leads to a placed room.
        let joined = |st: &State, j: usize| {
            parts[j]
                .joint
                .is_some_and(|(_, other, _)| st.placed[other].is_some())
        };
        // Parts joined to part `k` get their layouts back when `k` is taken out.
        let reset_children = |k: usize, layouts: &mut [u32]| {
            for (j, p) in parts.iter().enumerate() {
                if p.joint.is_some_and(|(_, other, _)| part_of[other] == k) {
                    layouts[j] = 0;
                }
            }
        };
        'choose: loop {
            // The next part: the first, or the waiting part with the fewest free moves.
            let k = if frames.is_empty() {
                0
            } else {
                let mut best: Option<(usize, usize)> = None;
                for j in 0..np {
                    let waiting = !on[j] && joined(&st, j);
                    if !waiting {
                        continue;
                    }
                    if pieces[j].is_none() {
                        while layouts[j] < LAYOUTS_PER_PART && pieces[j].is_none() {
                            layouts[j] += 1;
                            relayout(j, &mut pieces, pool, rng, why);
                        }
                        count[j] = None;
                    }
                    let mut c = match (count[j], &pieces[j]) {
                        (Some(c), _) => c,
                        (None, Some(turns)) => self.free_moves(&st, &parts[j], turns, COUNT_CAP),
                        (None, None) => 0,
                    };
                    while c == 0 && layouts[j] < LAYOUTS_PER_PART {
                        layouts[j] += 1;
                        if relayout(j, &mut pieces, pool, rng, why)
                            && let Some(pj) = &pieces[j]
                        {
                            c = self.free_moves(&st, &parts[j], pj, COUNT_CAP);
                        }
                    }
                    count[j] = pieces[j].is_some().then_some(c);
                    if best.is_none_or(|(bc, _)| c < bc) {
                        best = Some((c, j));
                    }
                }
                match best {
                    Some((_, j)) => j,
                    None => return Some(st),
                }
            };
            if pieces[k].is_none() {
                while layouts[k] < LAYOUTS_PER_PART && pieces[k].is_none() {
                    layouts[k] += 1;
                    relayout(k, &mut pieces, pool, rng, why);
                }
            }
            let moves = match &pieces[k] {
                Some(turns) => self.moves(rng, &st, &parts[k], turns),
                None => Vec::new(),
            };
            frames.push(Frame {
                part: k,
                moves,
                next: 0,
                corridors: st.corridors.len(),
                area: None,
            });
            // Try moves of the top frame; on running out, new layouts; then undo.
            loop {
                let f = frames.last_mut().expect("a frame is open");
                let k = f.part;
                let part = &parts[k];
                while f.next < f.moves.len() {
                    let (v, t) = f.moves[f.next];
                    f.next += 1;
                    let piece = &pieces[k].as_ref().expect("moves come with a piece")[v];
                    if !self.fits(&st, part, piece, t) {
                        continue;
                    }
                    self.put(&mut st, part, piece, t);
                    on[k] = true;
                    let area = piece.bbox_at(t);
                    f.area = Some(area);
                    // Forward check: waiting parts near the piece keep a free move.
                    let mut ok = true;
                    for j in 0..np {
                        if on[j] || !joined(&st, j) {
                            continue;
                        }
                        if !self.near(&st, &parts[j], pieces[j].as_ref(), area) {
                            continue;
                        }
                        let mut c = match &pieces[j] {
                            Some(pj) => self.free_moves(&st, &parts[j], pj, COUNT_CAP),
                            None => COUNT_CAP,
                        };
                        // Perhaps another layout of the part still fits.
                        while c == 0 && layouts[j] < LAYOUTS_PER_PART {
                            layouts[j] += 1;
                            if relayout(j, &mut pieces, pool, rng, why)
                                && let Some(pj) = &pieces[j]
                            {
                                c = self.free_moves(&st, &parts[j], pj, COUNT_CAP);
                            }
                        }
                        count[j] = pieces[j].is_some().then_some(c);
                        if c == 0 {
                            ok = false;
                            break;
                        }
                    }
                    if ok {
                        continue 'choose;
                    }
                    on[k] = false;
                    f.area = None;
                    self.take(&mut st, part, f.corridors);
                    self.stale(&st, parts, &pieces, &on, &mut count, area);
                    reset_children(k, &mut layouts);
                }
                if layouts[k] < LAYOUTS_PER_PART {
                    layouts[k] += 1;
                    f.next = 0;
                    f.moves.clear();
                    if relayout(k, &mut pieces, pool, rng, why)
                        && let Some(turns) = &pieces[k]
                    {
                        f.moves = self.moves(rng, &st, part, turns);
                    }
                    continue;
                }
                // Out of layouts: jump back to the latest part placed near this one's joint
                // (or the part its joint leads to), undoing the parts placed since; that part
                // tries its next move.
                fails[k] += 1;
                failed_here[k] += 1;
                layouts[k] = 0;
                count[k] = None;
                frames.pop();
                if frames.is_empty() || backtracks >= BACKTRACKS_PER_PART * np {
                    return None;
                }
                backtracks += 1;
                let home_of = |j: usize| {
                    parts[j]
                        .joint
                        .map_or(usize::MAX, |(_, other, _)| part_of[other])
                };
                let home = home_of(k);
                let mut target = frames
                    .iter()
                    .rposition(|fr| {
                        fr.part == home
                            || fr
                                .area
                                .is_some_and(|a| self.near(&st, &parts[k], pieces[k].as_ref(), a))
                    })
                    .unwrap_or(frames.len() - 1);
                // A part that failed again and again: the parts placed near it were not the
                // cause; move the part it hangs off (or one further up) instead.
                let mut up = home;
                for _ in 1..failed_here[k] / ESCALATE {
                    if home_of(up) == usize::MAX {
                        break;
                    }
                    up = home_of(up);
                }
                if failed_here[k] >= ESCALATE
                    && let Some(f) = frames.iter().rposition(|fr| fr.part == up)
                {
                    target = target.min(f);
                }
                loop {
                    let last = frames.len() - 1;
                    let fr = &mut frames[last];
                    let j = fr.part;
                    if let Some(area) = fr.area.take() {
                        on[j] = false;
                        self.take(&mut st, &parts[j], fr.corridors);
                        self.stale(&st, parts, &pieces, &on, &mut count, area);
                        reset_children(j, &mut layouts);
                    }
                    if last == target {
                        break;
                    }
                    count[j] = None;
                    layouts[j] = 0;
                    frames.pop();
                }
            }
        }
    }

    /// Marks the counts of waiting parts near `area` as out of date.
    fn stale(
        &self,
        st: &State,
        parts: &[Part],
        pieces: &[Option<Turns>],
        on: &[bool],
        count: &mut [Option<usize>],
        area: Rect,
    ) {
        for j in 0..parts.len() {
            if !on[j] && self.near(st, &parts[j], pieces[j].as_ref(), area) {
                count[j] = None;
            }
        }
    }

    /// Whether part `part` (waiting, as `turns`) could reach `area` from its joint.
    fn near(&self, st: &State, part: &Part, turns: Option<&Turns>, area: Rect) -> bool {
        let Some((_, other, _)) = part.joint else {
            return false;
        };
        let Some((s, p)) = st.placed[other] else {
            return false;
        };
        let a = self.rect_of(s, p);
        // Turning a piece keeps its longer side.
        let reach = turns.and_then(|t| t.first()).map_or(i32::MAX / 4, |pc| {
            (pc.bbox.max.x - pc.bbox.min.x).max(pc.bbox.max.y - pc.bbox.min.y)
        }) + self.problem.min_distance as i32
            + 2;
        let gx = (a.min.x - area.max.x).max(area.min.x - a.max.x);
        let gy = (a.min.y - area.max.y).max(area.min.y - a.max.y);
        gx.max(gy) <= reach
    }

    /// The moves that bring the piece's joint room into contact with the room it joins, as a
    /// base and offsets (each move is `base + offset`); `None` for the first part, or while
    /// the joint's other room is not placed.
    fn joint_offsets<'a>(
        &'a self,
        st: &State,
        part: &Part,
        piece: &Piece,
    ) -> Option<(Point, &'a [Point])> {
        let (l, other, own) = part.joint?;
        let (sa, pa) = st.placed[other]?;
        let (sb, pb) = piece.placed[own];
        let offsets = self
            .set
            .spaces
            .get(sa, sb, 0, self.problem.links[l].from == other)
            .map_or(&[][..], |sp| &sp.offsets[..]);
        Some((pa - pb, offsets))
    }

    /// How many moves of the piece, turned any way, fit (up to `cap`).
    fn free_moves(&self, st: &State, part: &Part, turns: &[Piece], cap: usize) -> usize {
        let Some((_, _, own)) = part.joint else {
            return cap;
        };
        let mut c = 0;
        // Turns whose joint room has the same shape share its free positions.
        let mut free: Vec<(u32, Vec<Point>)> = Vec::new();
        for piece in turns {
            let Some((base, offsets)) = self.joint_offsets(st, part, piece) else {
                return cap;
            };
            let (sb, pb) = piece.placed[own];
            let at = free.iter().position(|f| f.0 == sb).unwrap_or_else(|| {
                let room = part.rooms[own];
                let spots = offsets
                    .iter()
                    .map(|&o| base + o + pb)
                    .filter(|&q| self.collides(st, room, sb, q).is_none())
                    .collect();
                free.push((sb, spots));
                free.len() - 1
            });
            for &q in &free[at].1 {
                if self.rest_fits(st, part, piece, q - pb) {
                    c += 1;
                    if c >= cap {
                        return c;
                    }
                }
            }
        }
        c
    }

    /// Whether every stand-in of a part's finished search has free cells round it that lead
    /// out of the box round the part.
    fn stand_ins_out(&self, part: &Part, sub: &State) -> bool {
        let own = part.rooms.len();
        if sub.placed.len() == own {
            return true;
        }
        let (mut min, mut max) = (
            Point::new(i32::MAX, i32::MAX),
            Point::new(i32::MIN, i32::MIN),
        );
        for &(s, p) in sub.placed.iter().flatten() {
            let r = self.rect_of(s, p);
            min = min.min_each(r.min);
            max = max.max_each(r.max);
        }
        for c in &sub.corridors {
            min = min.min_each(c.rect.min);
            max = max.max_each(c.rect.max);
        }
        let (min, max) = (min - Point::new(2, 2), max + Point::new(2, 2));
        (own..sub.placed.len()).all(|q| part.planner.open_to_edge(sub, q, min, max))
    }

    /// A part's finished search as a piece.
    fn piece(&self, part: &Part, sub: State) -> Piece {
        let placed: Vec<(u32, Point)> = sub
            .placed
            .into_iter()
            .take(part.rooms.len())
            .map(|p| p.expect("a finished search places every room"))
            .collect();
        let corridors = sub
            .corridors
            .into_iter()
            .filter(|c| part.links[c.link] != usize::MAX)
            .collect();
        self.piece_of(placed, corridors)
    }

    /// A piece of rooms and corridors, with its box and middle.
    fn piece_of(&self, placed: Vec<(u32, Point)>, corridors: Vec<Corridor>) -> Piece {
        let (mut x, mut y) = (0.0, 0.0);
        let mut bbox = Rect {
            min: Point::new(i32::MAX, i32::MAX),
            max: Point::new(i32::MIN, i32::MIN),
        };
        for &(s, p) in &placed {
            let r = self.rect_of(s, p);
            bbox.min = Point::new(bbox.min.x.min(r.min.x), bbox.min.y.min(r.min.y));
            bbox.max = Point::new(bbox.max.x.max(r.max.x), bbox.max.y.max(r.max.y));
            x += f64::from(r.min.x + r.max.x) / 2.0;
            y += f64::from(r.min.y + r.max.y) / 2.0;
        }
        let k = placed.len().max(1) as f64;
        Piece {
            placed,
            corridors,
            centre: (x / k, y / k),
            bbox,
        }
    }

    /// The piece and its copies turned by every transformation that turns each of its rooms
    /// into a shape its template allows (a rotation or mirror of the whole part keeps every
    /// contact and corridor, so the copy is a layout of the part too).
    fn turned(&self, piece: Piece) -> Turns {
        let table = self.set.turn_table();
        let mut out = vec![piece];
        'turn: for (r, &tr) in Transform::ALL.iter().enumerate().skip(1) {
            let first = &out[0];
            let mut placed = Vec::with_capacity(first.placed.len());
            for &(s, p) in &first.placed {
                let Some((s2, m)) = table[s as usize][r] else {
                    continue 'turn;
                };
                placed.push((s2, tr.apply(p) + m));
            }
            let point = |q: Point| tr.apply(q);
            let cell = |q: Point| tr.apply(q).min_each(tr.apply(q + Point::new(1, 1)));
            let seg = |sg: Segment| {
                let (a, b) = (point(sg.a), point(sg.b));
                Segment {
                    a: a.min_each(b),
                    b: a.max_each(b),
                }
            };
            let corridors = first
                .corridors
                .iter()
                .map(|c| {
                    let mut occupied: Vec<Point> = c.occupied.iter().map(|&q| cell(q)).collect();
                    occupied.sort_unstable();
                    let (a, b) = (point(c.rect.min), point(c.rect.max));
                    Corridor {
                        link: c.link,
                        from_room: c.from_room,
                        door_a: seg(c.door_a),
                        door_b: seg(c.door_b),
                        cells: c.cells.iter().map(|&q| cell(q)).collect(),
                        occupied,
                        rect: Rect {
                            min: a.min_each(b),
                            max: a.max_each(b),
                        },
                    }
                })
                .collect();
            let turned = self.piece_of(placed, corridors);
            if !out.iter().any(|p| p.same_as(&turned)) {
                out.push(turned);
            }
        }
        out.into()
    }

    /// The moves that bring the piece's joint room into contact with the room it joins, those
    /// that take the piece furthest from the middle of what is placed first (with some noise,
    /// so that layouts differ).
    fn moves<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        st: &State,
        part: &Part,
        turns: &[Piece],
    ) -> Vec<(usize, Point)> {
        if part.joint.is_none() {
            return vec![(0, Point::default())];
        }
        let (mut cx, mut cy, mut count) = (0.0, 0.0, 0.0);
        for &(s, p) in st.placed.iter().flatten() {
            let r = self.rect_of(s, p);
            cx += f64::from(r.min.x + r.max.x) / 2.0;
            cy += f64::from(r.min.y + r.max.y) / 2.0;
            count += 1.0;
        }
        let (cx, cy) = (cx / count, cy / count);
        let mut scored: Vec<(f64, usize, Point)> = Vec::new();
        for (v, piece) in turns.iter().enumerate() {
            let Some((base, offsets)) = self.joint_offsets(st, part, piece) else {
                continue;
            };
            for &o in offsets {
                let t = base + o;
                let dx = piece.centre.0 + f64::from(t.x) - cx;
                let dy = piece.centre.1 + f64::from(t.y) - cy;
                let noise = 0.75 + 0.5 * seed::unit(rng);
                scored.push((-(dx * dx + dy * dy) * noise, v, t));
            }
        }
        scored.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
        scored.into_iter().map(|(_, v, t)| (v, t)).collect()
    }

    /// Whether the piece moved by `t` fits among what is placed: its rooms overlap nothing
    /// (and keep the minimum distance), its corridors cross no room and no corridor.
    fn fits(&self, st: &State, part: &Part, piece: &Piece, t: Point) -> bool {
        // The joint room first: it sits next to placed rooms, so it collides most often.
        let first = part.joint.map_or(0, |j| j.2);
        let (s, p) = piece.placed[first];
        self.collides(st, part.rooms[first], s, p + t).is_none()
            && self.rest_fits(st, part, piece, t)
    }

    /// [`Planner::fits`] but for the joint room (the first room if none).
    fn rest_fits(&self, st: &State, part: &Part, piece: &Piece, t: Point) -> bool {
        let nrooms = st.placed.len();
        let first = part.joint.map_or(0, |j| j.2);
        for (i, &(s, p)) in piece.placed.iter().enumerate() {
            if i != first && self.collides(st, part.rooms[i], s, p + t).is_some() {
                return false;
            }
        }
        for c in &piece.corridors {
            // Its walls and path may not lie in a placed room or on a placed corridor's path;
            // its path not on a placed corridor's walls.
            for &q in &c.occupied {
                let q = q + t;
                let on_path = c.cells.contains(&(q - t));
                for e in st.index.locate_all_at_point([q.x, q.y]) {
                    let id = e.data as usize;
                    let hit = if id < nrooms {
                        st.placed[id].is_some_and(|(s, p)| {
                            self.set.shapes[s as usize]
                                .mask
                                .inside(q.x - p.x, q.y - p.y)
                        })
                    } else {
                        let other = &st.corridors[id - nrooms];
                        other.cells.contains(&q)
                            || (on_path && other.occupied.binary_search(&q).is_ok())
                    };
                    if hit {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Places the piece moved by `t`.
    fn put(&self, st: &mut State, part: &Part, piece: &Piece, t: Point) {
        for (i, &(s, p)) in piece.placed.iter().enumerate() {
            let g = part.rooms[i];
            st.placed[g] = Some((s, p + t));
            st.index.insert(self.entry(s, p + t, g as u32));
        }
        let seg = |s: Segment| Segment {
            a: s.a + t,
            b: s.b + t,
        };
        for c in &piece.corridors {
            let r = Rect {
                min: c.rect.min + t,
                max: c.rect.max + t,
            };
            let moved = Corridor {
                link: part.links[c.link],
                from_room: part.rooms[c.from_room],
                door_a: seg(c.door_a),
                door_b: seg(c.door_b),
                cells: c.cells.iter().map(|&q| q + t).collect(),
                occupied: c.occupied.iter().map(|&q| q + t).collect(),
                rect: r,
            };
            st.push_corridor(moved);
        }
    }

    /// Takes a placed part out again, with the corridors placed since `keep`.
    fn take(&self, st: &mut State, part: &Part, keep: usize) {
        self.unplace(st, part.rooms[0], keep, &part.rooms[1..]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::ShapeSet;
    use super::PART_ROOMS;
    use crate::graph::LinkRole;
    use crate::graph::bridge_flags;
    use crate::graph::random::loop_chain_graph;
    use crate::layout::geom::{Point, Transform};
    use crate::layout::template::{DoorMode, TemplateShape};
    use crate::layout::{LayoutProblem, LinkSpec, Planner, Realise, RoomSpec, RoomTemplate};

    /// A chain of separate loops (tree links contact, loop links contact or corridor).
    fn chain(loops: usize, seed: u64) -> LayoutProblem {
        let g = loop_chain_graph(loops, &mut crate::seed::stream(seed, "parts test"));
        let mut p = LayoutProblem::new(vec![
            RoomTemplate::rectangle("square", 6, 6, 1),
            RoomTemplate::rectangle("long", 5, 9, 1),
        ]);
        let ids: Vec<_> = g.room_ids().collect();
        for id in &ids {
            p.rooms.push(RoomSpec::new(&id.to_string(), vec![0, 1]));
        }
        let slot = |r| ids.iter().position(|x| *x == r).unwrap();
        for (_, a, b, link) in g.links() {
            let realise = match link.role {
                LinkRole::Tree => Realise::Contact,
                _ => Realise::ContactOrPath { min: 4, max: 30 },
            };
            p.links.push(LinkSpec::new(slot(a), slot(b), realise));
        }
        p
    }

    /// The parts of a big level cover every room once, stay small (a part with more than
    /// `PART_ROOMS` rooms is one loop, every link in it on a cycle), keep each loop whole,
    /// and each part after the first is joined by a bridge to a room of a part before it.
    #[test]
    fn big_levels_come_apart_at_bridges() {
        for seed in 0..4 {
            let p = chain(12, seed);
            let planner = Planner::new(p.clone()).unwrap();
            let parts = planner.parts.as_ref().expect("a chain of 12 loops is big");
            assert!(parts.len() >= 2);
            let bridge = bridge_flags(&planner.adj, p.links.len());
            let mut part_of = vec![usize::MAX; p.rooms.len()];
            for (k, part) in parts.iter().enumerate() {
                if part.rooms.len() > PART_ROOMS {
                    for (l, x) in p.links.iter().enumerate() {
                        let inside = part.rooms.contains(&x.from) && part.rooms.contains(&x.to);
                        assert!(!(inside && bridge[l]), "part {k}: {:?}", part.rooms);
                    }
                }
                for &r in &part.rooms {
                    assert_eq!(part_of[r], usize::MAX, "room {r} in two parts");
                    part_of[r] = k;
                }
            }
            assert!(part_of.iter().all(|&k| k != usize::MAX));
            for l in &p.links {
                if l.realise != Realise::Contact {
                    assert_eq!(part_of[l.from], part_of[l.to], "a loop was cut");
                }
            }
            assert!(parts[0].joint.is_none());
            for (k, part) in parts.iter().enumerate().skip(1) {
                let (l, other, own) = part.joint.expect("later parts have a joint");
                assert!(part_of[other] < k);
                let link = p.links[l];
                let ends = [link.from, link.to];
                assert!(ends.contains(&other) && ends.contains(&part.rooms[own]));
            }
            let cut = p
                .links
                .iter()
                .filter(|x| part_of[x.from] != part_of[x.to])
                .count();
            assert_eq!(cut, parts.len() - 1, "parts joined by one link each");
            // Each part's problem has a stand-in for every room of another part it links to.
            for (k, part) in parts.iter().enumerate() {
                let outside = p
                    .links
                    .iter()
                    .filter(|x| (part_of[x.from] == k) != (part_of[x.to] == k))
                    .count();
                let sub = part.planner.problem();
                assert_eq!(sub.rooms.len(), part.rooms.len() + outside);
                assert_eq!(
                    part.links.iter().filter(|&&l| l == usize::MAX).count(),
                    outside
                );
            }
        }
    }

    /// Small levels are laid out room by room.
    #[test]
    fn small_levels_stay_whole() {
        let planner = Planner::new(chain(4, 1)).unwrap();
        assert!(planner.parts.is_none());
    }

    /// The cells inside a shape placed at `p`.
    fn cells(set: &ShapeSet, s: u32, p: Point) -> Vec<Point> {
        let m = &set.shapes[s as usize].mask;
        let mut out: Vec<Point> = (0..m.height)
            .flat_map(|y| (0..m.width).map(move |x| (x, y)))
            .filter(|&(x, y)| m.inside(x, y))
            .map(|(x, y)| Point::new(x + p.x, y + p.y))
            .collect();
        out.sort_unstable();
        out
    }

    /// Each shape turned by each transformation is a shape of its template exactly when the
    /// template allows it, and that shape at the turned position covers the turned cells and
    /// has the turned doors: an L that may only be turned half round turns no other way, a
    /// rectangle every way.
    #[test]
    fn turned_shapes_cover_the_turned_cells() {
        let mut ell = RoomTemplate::rectangle("ell", 1, 1, 1);
        ell.shape = TemplateShape::Cells(vec!["#   ".into(), "#   ".into(), "####".into()]);
        ell.doors = DoorMode::Sliding {
            length: 1,
            corner_distance: 0,
            socket: None,
        };
        ell.transforms = vec![Transform::Identity, Transform::Rotate180];
        let set = ShapeSet::new(&[RoomTemplate::rectangle("long", 5, 9, 1), ell]).unwrap();
        let table = set.turn_table();
        let p = Point::new(3, -7);
        let cell = |tr: Transform, q: Point| tr.apply(q).min_each(tr.apply(q + Point::new(1, 1)));
        let mut turns = 0;
        for (s, row) in table.iter().enumerate() {
            let template = set.shapes[s].template;
            for (r, &tr) in Transform::ALL.iter().enumerate() {
                let Some((s2, m)) = row[r] else {
                    assert_eq!(template, 1, "the rectangle turns every way");
                    assert!(!matches!(tr, Transform::Identity | Transform::Rotate180));
                    continue;
                };
                turns += 1;
                assert_eq!(set.shapes[s2 as usize].template, template);
                let at = tr.apply(p) + m;
                let mut turned: Vec<Point> = cells(&set, s as u32, p)
                    .into_iter()
                    .map(|q| cell(tr, q))
                    .collect();
                turned.sort_unstable();
                assert_eq!(turned, cells(&set, s2, at), "shape {s}, {tr:?}");
                let doors = |s: u32, off: Point, tr: Transform| {
                    let mut d: Vec<(Point, Point)> = set.shapes[s as usize]
                        .doors
                        .iter()
                        .map(|d| {
                            let (a, b) = (tr.apply(d.a + off), tr.apply(d.b + off));
                            (a.min_each(b), a.max_each(b))
                        })
                        .collect();
                    d.sort_unstable();
                    d
                };
                assert_eq!(doors(s as u32, p, tr), doors(s2, at, Transform::Identity));
            }
        }
        // The rectangle's two shapes turn 8 ways each, the L's two shapes only half round.
        assert_eq!(set.template_shapes[1].len(), 2);
        assert_eq!(turns, 2 * 8 + 2 * 2);
    }

    /// A part's layout turned every way is still a layout of the part: the whole level
    /// assembled from turned parts passes the strict check, and chains that needed turned
    /// parts lay out (these two failed within 20 attempts when parts were only moved).
    #[test]
    fn levels_assemble_from_turned_parts() {
        for seed in [2, 6] {
            let mut p = chain(30, seed);
            p.budget.retry = crate::layout::RetryPolicy::Attempts(20);
            let planner = Planner::new(p.clone()).unwrap();
            let parts = planner.parts.as_ref().expect("a big level");
            let layout = planner
                .assemble(seed, parts, None)
                .unwrap_or_else(|e| panic!("chain {seed}: {e}"));
            assert_eq!(planner.check(&layout), Ok(()), "chain {seed}");
        }
    }
}
