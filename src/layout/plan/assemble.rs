//! Big levels in parts (the spec's "final assembly"): the level is cut at bridges (links on no
//! loop) into small parts (each block of loops, with the small pieces around it merged up to
//! [`PART_ROOMS`] rooms); each part is laid out alone by its own planner, with a stand-in for
//! the room at the far end of each cut link so that its joint rooms keep a free side; the
//! parts are then fitted together one by one, each moved as a whole so that the room at its
//! end of the cut link touches the room at the other end, already placed. Where the cut link
//! allows a corridor and no contact move is left, the part stands off from that room (up to
//! [`APART_MOVES`] positions a few corridor lengths out through its doors) and a corridor is
//! routed between the two round what is placed (a part that much hangs off, [`HEAVY_PART`],
//! tries a few standoffs first); a waiting part with such a joint counts as
//! having a move while the room it joins has a door with a free cell in front of it. A part
//! may also be turned: a rotation or mirror of a whole layout keeps every contact and
//! corridor, so each layout is tried under every transformation that its rooms' templates
//! allow (found by geometry in [`ShapeSet::turn_table`]), eight times the directions a part
//! can grow in. An attempt at fitting them ends once its parts' searches have made
//! [`TRIES_PER_ROOM`] times the budget's steps per room placement tries per room of the level
//! (each corridor routed at a joint counting as [`ROUTE_TRIES`]). If they do not fit,
//! `Planner::layout` lays the level out room by room, then fits the parts of a second cut
//! (pieces of up to [`HANGING_ROOMS`](super::parts::HANGING_ROOMS) rooms kept in the part they
//! hang off). Where a part found no layout of its own in
//! [`LAYOUTS_PER_PART`] searches nor in one long search after them ([`LAST_CHANCE_ATTEMPTS`]
//! attempts, corridors giving way to rooms), the second cut is skipped and the room-by-room
//! search gets a few attempts (a part is searched with stand-ins for what hangs off it, and
//! the level's own search lays out some levels whose part's search fails); if they fail, the
//! error names the part. Otherwise the error names the part that failed most
//! often and how its moves fared when it last ran out of them ([`Tries`]): how many overlapped
//! what was placed, and how many fitted but would have left a waiting part no free move
//! (naming the last such part), which tells a walled-in joint from two parts wanting the same
//! space.
//!
//! Why: the room-by-room search backtracks chronologically, and on a level of hundreds of
//! rooms a room placed early is often walled in by rooms placed much later, before its own
//! neighbours get their turn; no cut-back of the recent steps repairs that. Parts joined by
//! bridges close no loop between them, so fitting them is a search over a tree of rigid
//! pieces, each placed away from what is already there, while the hard geometry (loops) stays
//! inside parts small enough for the room-by-room search.

use std::rc::Rc;

use rand::Rng;
use rstar::RTree;

use super::super::corridor::Corridor;
use super::super::geom::{Point, Rect};
use super::super::{Layout, LayoutError, RetryPolicy, Segment};
use super::parts::Part;
use super::turns::{Piece, Turns};
use super::{Deepest, Edge, Planner, State, search};
use crate::seed;

/// Attempts of the one long search a part gets when its searches found no layout of it
/// (see `last_chance`), at most.
const LAST_CHANCE_ATTEMPTS: u32 = 1000;
/// Attempts of that long search per attempt of the level's budget, under a count of attempts
/// ([`RetryPolicy::Attempts`]): a level given few attempts gives its part few too (the
/// benchmark's 20 and the default 1000 give it the whole [`LAST_CHANCE_ATTEMPTS`]).
const LAST_CHANCE_PER_ATTEMPT: u32 = 50;
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
/// Placement tries (times the budget's steps per room, per room of the level) that one
/// assembly attempt may spend on its parts' searches before it ends like a room-by-room
/// attempt out of steps: 10 million at 1000 rooms under the default 100 steps per room.
/// Layouts that succeed use far less (the most measured: 0.5 to 11 million over all attempts
/// at 1000 rooms without holes, 1.4 million at 400), while an attempt that cannot fit its
/// parts together otherwise goes on asking them for layouts for minutes.
const TRIES_PER_ROOM: u64 = 100;
/// An assembly attempt counts against the retry budget (`RetryPolicy::Attempts`) as one
/// attempt per this many times the budget's steps per room placement tries per room that its
/// parts' searches made (at least one): an attempt that spends its whole allowance counts as
/// ten. So a budget of `k` attempts bounds a failing assembly to about `k` times this many
/// tries per room, ten times what it bounds a room-by-room search to, where it was a hundred
/// times (at 400 rooms, a failing level-like graph 25.7 -> 2.2 s under 20 attempts). Layouts
/// that succeed are charged far less: at 1000 rooms at most 13 of 20 attempts.
const TRIES_PER_ATTEMPT: u64 = 10;
/// The attempts an assembly attempt whose parts' searches made `used` placement tries counts
/// as, `per_room` being the budget's steps per room times the rooms of the level (see
/// [`TRIES_PER_ATTEMPT`]).
fn attempts_charged(used: u64, per_room: u64) -> u32 {
    let count = (used / TRIES_PER_ATTEMPT.saturating_mul(per_room.max(1))).max(1);
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// Moves that stand a part off for a corridor (where its joint's link allows one) tried per
/// layout of the part, the best first by the same score as contact moves. Routing the corridor
/// is most of their cost, and most fail where the contact moves did (crowded round the joint):
/// on chains of 70 loops with every link allowed a corridor (6 graphs), all of them tried lay
/// out 6 of 6 with a median of 7.2 s, the best 256 6 of 6 in 0.94 s, 64 5 of 6, 16 4 of 6.
const APART_MOVES: usize = 256;

/// Rooms of a part and of all the parts hanging off it from which the part, where its joint
/// allows a corridor, tries some of its best standoffs before its contact moves (the rest
/// after them; how many: [`HEAVY_LEAD`]): crowded round the middle of the level, contact walls
/// in the rooms that much still hangs off. Every link allowed a corridor, against standoffs
/// only after contact: chains of 100 loops 0 -> 3 of 6 (30 s each), 70 loops 8 -> 10 of 10
/// (median 0.79 -> 0.58 s), 30 loops median 0.107 -> 0.044 s, 400 rooms without holes 9 of 10
/// either way (median 0.19 -> 0.17 s). All standoffs first laid out 5 of 6 chains of 100
/// loops but made the 400-room graphs ten times slower; heavy from 105 rooms, 3 of 6 at 100
/// loops.
const HEAVY_PART: usize = 40;
/// Standoffs a part of [`HEAVY_PART`] rooms tries before its contact moves; a heavier part
/// tries as many more as it is heavier (twice as many at twice the rooms), up to
/// [`APART_MOVES`]: the more hangs off a part, the further out it should start. Against 24
/// for every heavy part (every link allowed a corridor, 30 s each): chains of 100 loops 9 ->
/// 12 of 16 (the first six 3 -> 4, the next ten 6 -> 8), 70 loops 10 of 10 (median 0.58 ->
/// 0.42 s), 30 loops 10 of 10 (0.050 -> 0.044 s), 400 rooms without holes 9 of 10 (0.171 ->
/// 0.157 s). 128 for every heavy part: chains of 100 loops 6 of 6, but 400 rooms without
/// holes 8 of 10 (a graph laid out in 0.2 s fails after 30 s), and so does the square of the
/// weight's ratio (5 of 6 at 100 loops).
const HEAVY_LEAD: usize = 24;

/// Standoffs a part with `weight` rooms hanging off it (itself included) tries before its
/// contact moves: none below [`HEAVY_PART`], else [`HEAVY_LEAD`] per [`HEAVY_PART`] rooms of
/// weight, up to [`APART_MOVES`].
fn standoffs_first(weight: usize) -> usize {
    if weight < HEAVY_PART {
        0
    } else {
        (HEAVY_LEAD * weight / HEAVY_PART).min(APART_MOVES)
    }
}

/// Placement tries a corridor routed at a part's joint counts as, against the attempt's
/// allowance ([`TRIES_PER_ROOM`]): a route searches a window of cells where a try tests one
/// position (on chains of 70 loops with corridors everywhere, routes take about a third of
/// the time, and most fail), so that the allowance bounds the fitting's own work too.
const ROUTE_TRIES: u64 = 16;

/// Free moves counted per waiting part (enough to tell the tight ones).
const COUNT_CAP: usize = 8;

/// Layouts of each part made so far in one call (a part's layout does not depend on the rest,
/// so attempts share them), each with its turned copies.
struct Pool {
    pieces: Vec<Vec<Turns>>,
    /// How many layouts of each part were handed out.
    cursor: Vec<usize>,
    /// How many times each part's own search failed.
    failed: Vec<u32>,
    /// How many layouts of each part were made (the first part's may be dropped again).
    made: Vec<u32>,
}

impl Pool {
    /// An empty pool for `n` parts.
    fn new(n: usize) -> Pool {
        Pool {
            pieces: (0..n).map(|_| Vec::new()).collect(),
            cursor: vec![0; n],
            failed: vec![0; n],
            made: vec![0; n],
        }
    }

    /// A part whose own search failed [`LAYOUTS_PER_PART`] times without ever laying it out.
    fn without_layout(&self) -> Option<usize> {
        (0..self.made.len()).find(|&k| self.made[k] == 0 && self.failed[k] >= LAYOUTS_PER_PART)
    }
}

/// How the moves of a part fared in the search's last look at it: how many were tried (over
/// all the layouts it tried there), how many of those overlapped what was placed, and how many
/// fitted but were refused because they left a waiting part no free move (the last such part).
#[derive(Debug, Clone, Copy, Default)]
struct Tries {
    tried: u32,
    overlapped: u32,
    /// Moves at a corridor's distance that fitted but found no corridor to the joint.
    unrouted: u32,
    refused: u32,
    blocked: Option<usize>,
}

/// A move of a part: which turn of its piece, by how much it is moved, and whether its joint
/// room then stands off from the room it joins, for a corridor (else it touches it).
type Move = (usize, Point, bool);

/// A part's failures in one call: how many times it ran out of moves and layouts, and how its
/// moves fared the last time.
#[derive(Debug, Clone, Copy, Default)]
struct Failed {
    count: u32,
    last: Tries,
}

/// The search's record of one part being placed.
struct Frame {
    part: usize,
    /// Moves of the part's piece, best first; those before `next` were tried.
    moves: Vec<Move>,
    next: usize,
    /// Whether the moves that stand off for a corridor were added (after the contact moves
    /// ran out).
    apart: bool,
    /// Corridors placed before this part.
    corridors: usize,
    /// Where the part's piece is while it is placed.
    area: Option<Rect>,
    /// How its moves fared so far.
    tries: Tries,
}

impl Planner {
    /// Lays a big level out part by part (see the module docs). The error comes with the part
    /// of the level, if any, that found no layout of its own in [`LAYOUTS_PER_PART`] searches (each
    /// with its own order, other orders, annealing and the part without its stand-ins) and one
    /// long search after them (`last_chance`): the
    /// whole level contains that part, so laying it out room by room would have to find what
    /// those searches did not.
    pub(super) fn assemble(
        &self,
        seed: u64,
        parts: &[Part],
        deadline: Option<std::time::Instant>,
        mut record: Option<&mut Deepest>,
    ) -> Result<Layout, (LayoutError, Option<usize>)> {
        let mut rng = seed::stream(seed, "assembly");
        let mut pool = Pool::new(parts.len());
        let mut fails = vec![Failed::default(); parts.len()];
        let mut why: Vec<Option<LayoutError>> = vec![None; parts.len()];
        let mut searched_long = vec![false; parts.len()];
        let mut attempt = 0u32;
        // Attempts charged against the retry budget (see TRIES_PER_ATTEMPT).
        let mut charged = 0u32;
        let per_room =
            u64::from(self.problem.budget.steps_per_room.max(1)) * self.problem.rooms.len() as u64;
        loop {
            if !self.attempts_left(charged, deadline) {
                break;
            }
            attempt += 1;
            let before = search::tries_so_far();
            if let Some(st) = self.fit_parts(
                &mut rng,
                parts,
                &mut pool,
                &mut fails,
                &mut why,
                deadline,
                TRIES_PER_ROOM * per_room,
                record.as_deref_mut(),
            ) {
                return Ok(self.finish(seed, attempt, st));
            }
            let used = search::tries_so_far() - before;
            charged = charged.saturating_add(attempts_charged(used, per_room));
            // A part that never laid out on its own: one long search of it (once), else the
            // level fails there.
            if let Some(k) = pool.without_layout() {
                if searched_long[k] {
                    break;
                }
                searched_long[k] = true;
                match self.last_chance(&parts[k], rng.next_u64(), deadline) {
                    Some(piece) => {
                        pool.pieces[k].push(piece);
                        pool.made[k] += 1;
                    }
                    None => break,
                }
            }
        }
        // A part that never laid out on its own is the reason; else the part that failed to
        // fit most often.
        let hopeless = (0..parts.len()).find(|&k| pool.made[k] == 0 && why[k].is_some());
        let k = hopeless.unwrap_or_else(|| {
            (0..parts.len())
                .max_by_key(|&k| (fails[k].count, parts.len() - k))
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
                    "no free position for {} with `{}` touching `{}`{}",
                    self.part_named(part),
                    name(part.rooms[own]),
                    name(other),
                    self.tries_told(parts, &fails[k].last)
                ),
            ),
            (None, None) => {
                let mut text =
                    "no layout of the first part left room for the parts joined to it".to_string();
                // The part that failed most after it, and how its moves fared.
                let below = (0..parts.len())
                    .filter(|&j| parts[j].joint.is_some() && fails[j].count > 0)
                    .max_by_key(|&j| (fails[j].count, parts.len() - j));
                if let Some(j) = below
                    && let Some((_, other, _)) = parts[j].joint
                {
                    text.push_str(&format!(
                        "; the part that failed most often after it, {} time{}, was {} \
                         touching `{}`{}",
                        fails[j].count,
                        if fails[j].count == 1 { "" } else { "s" },
                        self.part_named(&parts[j]),
                        name(other),
                        self.tries_told(parts, &fails[j].last)
                    ));
                }
                (name(part.rooms[0]).to_string(), text)
            }
        };
        Err((
            LayoutError::NoLayout {
                attempts: attempt,
                room,
                composite: format!(" in part {} of {}", k + 1, parts.len()),
                failures: fails[k].count,
                constraint,
            },
            pool.without_layout(),
        ))
    }

    /// One attempt at fitting the parts together: depth first, each time the waiting part
    /// (its joint's other room placed) with the fewest free moves; a move that leaves a
    /// waiting part near it no free move is refused; a part with no move left tries another
    /// layout of itself, then the search jumps back to the last part placed near its joint.
    /// The attempt ends, `None`, once its parts' searches have made more than `tries`
    /// placement tries (checked between searches, so one search may run past it).
    #[allow(clippy::too_many_arguments)]
    fn fit_parts<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        parts: &[Part],
        pool: &mut Pool,
        fails: &mut [Failed],
        why: &mut [Option<LayoutError>],
        deadline: Option<std::time::Instant>,
        tries: u64,
        mut record: Option<&mut Deepest>,
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
        // Rooms of each part and of all parts hanging off it.
        let mut weight: Vec<usize> = parts.iter().map(|p| p.rooms.len()).collect();
        for j in (1..np).rev() {
            if let Some((_, other, _)) = parts[j].joint {
                let up = part_of[other];
                weight[up] += weight[j];
            }
        }
        // A new layout for part `k`; false if its planner failed.
        let relayout = |k: usize,
                        pieces: &mut Vec<Option<Turns>>,
                        pool: &mut Pool,
                        rng: &mut R,
                        why: &mut [Option<LayoutError>]| {
            self.relayout(k, parts, pieces, pool, rng, why, deadline)
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
        // The attempt's share of placement tries (see TRIES_PER_ROOM).
        let tries_cap = search::tries_so_far().saturating_add(tries);
        let spent = || search::tries_so_far() > tries_cap;
        'choose: loop {
            if spent() {
                return None;
            }
            // Past the deadline, nothing found from here on is returned: a part's search cut
            // short by it may have failed where it would have found a layout, and a layout
            // returned must be the one found without a deadline (`Budget::time_limit_ms`).
            // (Searches since the last check ran in an earlier turn of this loop: the layout
            // is returned in a turn that searches nothing.)
            if search::past(deadline) {
                return None;
            }
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
            let (moves, apart) = match &pieces[k] {
                Some(turns) => self.first_moves(rng, &st, &parts[k], turns, weight[k]),
                None => (Vec::new(), false),
            };
            frames.push(Frame {
                part: k,
                moves,
                next: 0,
                apart,
                corridors: st.corridors.len(),
                area: None,
                tries: Tries::default(),
            });
            // Try moves of the top frame; on running out, new layouts; then undo.
            loop {
                if spent() || search::past(deadline) {
                    return None;
                }
                let f = frames.last_mut().expect("a frame is open");
                let k = f.part;
                let part = &parts[k];
                while f.next < f.moves.len() {
                    let (v, t, apart) = f.moves[f.next];
                    f.next += 1;
                    f.tries.tried += 1;
                    let piece = &pieces[k].as_ref().expect("moves come with a piece")[v];
                    if !self.fits(&st, part, piece, t) {
                        f.tries.overlapped += 1;
                        continue;
                    }
                    self.put(&mut st, part, piece, t);
                    if apart {
                        // The joint by a corridor, routed round what is placed.
                        let (l, other, own) = part.joint.expect("a standoff has a joint");
                        search::count_tries(ROUTE_TRIES);
                        match self.route(&st, l, part.rooms[own], other) {
                            Some(cor) => st.push_corridor(cor),
                            None => {
                                f.tries.unrouted += 1;
                                self.take(&mut st, part, f.corridors);
                                continue;
                            }
                        }
                    }
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
                            f.tries.blocked = Some(j);
                            ok = false;
                            break;
                        }
                    }
                    if ok {
                        continue 'choose;
                    }
                    f.tries.refused += 1;
                    on[k] = false;
                    f.area = None;
                    self.take(&mut st, part, f.corridors);
                    self.stale(&st, parts, &pieces, &on, &mut count, area);
                    reset_children(k, &mut layouts);
                }
                // Contact moves ran out: those that stand off for a corridor, if any.
                if !f.apart {
                    f.apart = true;
                    if let Some(turns) = &pieces[k] {
                        let apart = self.moves(rng, &st, part, turns, true);
                        if !apart.is_empty() {
                            f.moves.extend(apart);
                            continue;
                        }
                    }
                }
                // The first part always lies alone at the origin: a layout of it that the
                // search came all the way back to (a part joined to it had no move, or none
                // of the parts after it fitted) is not handed out again.
                if part.joint.is_none()
                    && let Some(cur) = &pieces[k]
                {
                    pool.pieces[k].retain(|t| !Rc::ptr_eq(t, cur));
                }
                if layouts[k] < LAYOUTS_PER_PART {
                    layouts[k] += 1;
                    f.next = 0;
                    f.moves.clear();
                    if relayout(k, &mut pieces, pool, rng, why)
                        && let Some(turns) = &pieces[k]
                    {
                        (f.moves, f.apart) = self.first_moves(rng, &st, part, turns, weight[k]);
                    }
                    continue;
                }
                // Out of layouts: jump back to the latest part placed near this one's joint
                // (or the part its joint leads to), undoing the parts placed since; that part
                // tries its next move.
                fails[k].count += 1;
                fails[k].last = f.tries;
                failed_here[k] += 1;
                if let Some(rec) = record.as_deref_mut() {
                    let placed = on.iter().filter(|&&b| b).count();
                    if rec.placed.is_empty() || placed > rec.depth {
                        rec.depth = placed;
                        rec.placed.clone_from(&st.placed);
                        rec.corridors.clone_from(&st.corridors);
                        rec.next = part.joint_room();
                    }
                }
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

    /// A new layout for part `k` into `pieces[k]` (the next of the pool's, made by the part's
    /// own search while the pool is not full); false if its planner failed.
    #[allow(clippy::too_many_arguments)]
    fn relayout<R: Rng + ?Sized>(
        &self,
        k: usize,
        parts: &[Part],
        pieces: &mut [Option<Turns>],
        pool: &mut Pool,
        rng: &mut R,
        why: &mut [Option<LayoutError>],
        deadline: Option<std::time::Instant>,
    ) -> bool {
        pieces[k] = None;
        let have = pool.pieces[k].len();
        // No new search past the deadline (a search makes one attempt even then, and the
        // fitting, which returns nothing found past it, may ask for hundreds).
        let past = search::past(deadline);
        if have < POOL && pool.cursor[k] >= have && !past {
            // After a failed search, the part's corridors give way to its rooms: a part
            // whose first search failed is a hard one, and the rerouting that costs more than
            // it saves over a whole big level pays off there.
            let sub = if pool.failed[k] > 0 {
                parts[k].yielding()
            } else {
                &parts[k].planner
            };
            // A layout that shuts a stand-in in leaves the part joined there no way out:
            // search again; the last search's layout is taken as it is (or, if that search
            // fails, the first layout found).
            let mut kept = None;
            let mut tries = 0;
            let found = loop {
                tries += 1;
                let seed = rng.next_u64();
                // Annealing (slower) only after the part's first failed search in this call.
                // Other room orders after that, while the part has no layout yet (once
                // it has one, its own order can find more); last, the part without its
                // stand-ins, whose joint rooms may then have no free side left (the
                // fitting finds out), where the stand-ins themselves left no layout.
                let got = match sub.search(seed, deadline) {
                    Err(e) if pool.failed[k] == 0 && sub.can_anneal() => {
                        sub.anneal(seed, PART_ANNEAL_RUNS, deadline).map_err(|_| e)
                    }
                    other => other,
                };
                let got = match got {
                    Err(e) if pool.made[k] == 0 => sub
                        .search_other_orders(seed, deadline)
                        .or_else(|_| {
                            let bare = parts[k].without_stand_ins().ok_or(0u32)?;
                            bare.search(seed, deadline)
                                .map_err(|_| 0)
                                .or_else(|_| bare.search_other_orders(seed, deadline))
                        })
                        .map_err(|_| e),
                    other => other,
                };
                match got {
                    Ok(done)
                        if tries < STAND_IN_TRIES && !self.stand_ins_out(&parts[k], &done.0) =>
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
                    pool.made[k] += 1;
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
    }

    /// A layout of `part` by one long search, for a part whose searches found none: up to
    /// [`LAST_CHANCE_ATTEMPTS`] attempts ([`LAST_CHANCE_PER_ATTEMPT`] per attempt of a count
    /// the level was given, if that is fewer), with corridors that give way to rooms, as in a small
    /// level; `None` if this search finds none either, or if the part (with its stand-ins) is
    /// not a small level itself ([`BIG`](super::BIG) rooms or more: a part of 248 rooms took
    /// 226 s for 1000 attempts).
    ///
    /// Why: the part's own searches make few attempts each and its corridors do not give way
    /// (in a big level, rerouting at every candidate costs more than it saves); a part that
    /// lays out only after a few hundred attempts, or only where a corridor moves aside for a
    /// room, would otherwise sink the level (graph 2 of the benchmark's 400-room graphs without
    /// holes: its part of 18 rooms lays out at attempt 286 or 341 this way, and not in 1000
    /// attempts without corridors giving way).
    fn last_chance(
        &self,
        part: &Part,
        seed: u64,
        deadline: Option<std::time::Instant>,
    ) -> Option<Turns> {
        if part.planner.big {
            return None;
        }
        let sub = part.long_search(self.last_chance_attempts());
        let (st, _) = sub.search(seed, deadline).ok()?;
        Some(self.turned(self.piece(part, st)))
    }

    /// The attempts of a part's long search ([`Planner::last_chance`]) under the level's
    /// budget.
    fn last_chance_attempts(&self) -> u32 {
        match self.problem.budget.retry {
            RetryPolicy::Attempts(n) => {
                LAST_CHANCE_ATTEMPTS.min(n.saturating_mul(LAST_CHANCE_PER_ATTEMPT).max(1))
            }
            RetryPolicy::Millis(_) => LAST_CHANCE_ATTEMPTS,
        }
    }

    /// "the part of `n` rooms around `room`", `room` its joint room, for errors.
    fn part_named(&self, part: &Part) -> String {
        let n = part.rooms.len();
        format!(
            "the part of {n} room{} around `{}`",
            if n == 1 { "" } else { "s" },
            self.problem.rooms[part.joint_room()].name
        )
    }

    /// How a part's moves fared the last time it found none, for an error: `""` if it had
    /// none to try.
    fn tries_told(&self, parts: &[Part], t: &Tries) -> String {
        if t.tried == 0 {
            return String::new();
        }
        let mut text = format!(
            " (when it last failed, {} of its {} moves, every turn of each layout tried, \
             overlapped placed rooms or corridors",
            t.overlapped, t.tried
        );
        if t.unrouted > 0 {
            text.push_str(&format!(
                ", {} stood off for a corridor that could not be routed",
                t.unrouted
            ));
        }
        if let Some(j) = t.blocked {
            text.push_str(&format!(
                ", and {} would have left a waiting part no free position, the last one the \
                 part around `{}`",
                t.refused,
                self.problem.rooms[parts[j].joint_room()].name
            ));
        }
        text.push(')');
        text
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
            .space_at(sa, sb, self.problem.links[l].from == other)
            .map_or(&[][..], |sp| &sp.offsets[..]);
        Some((pa - pb, offsets))
    }

    /// How many moves of the piece, turned any way, fit (up to `cap`).
    fn free_moves(&self, st: &State, part: &Part, turns: &[Piece], cap: usize) -> usize {
        let Some((_, _, own)) = part.joint else {
            return cap;
        };
        let mut c = 0;
        let room = part.rooms[own];
        // Turns whose joint room has the same shape share its contact positions (the same
        // offsets from the room it joins): whether each is clear of what is placed, found
        // when a turn first needs it, so that a count that reaches `cap` early looks at few
        // of them.
        let mut clear: Vec<(u32, Vec<Option<bool>>)> = Vec::new();
        for piece in turns {
            let Some((base, offsets)) = self.joint_offsets(st, part, piece) else {
                return cap;
            };
            let (sb, pb) = piece.placed[own];
            let at = clear.iter().position(|f| f.0 == sb).unwrap_or_else(|| {
                clear.push((sb, vec![None; offsets.len()]));
                clear.len() - 1
            });
            for (i, &o) in offsets.iter().enumerate() {
                let q = base + o + pb;
                let free =
                    *clear[at].1[i].get_or_insert_with(|| self.collides(st, room, sb, q).is_none());
                if free && self.rest_fits(st, part, piece, q - pb) {
                    c += 1;
                    if c >= cap {
                        return c;
                    }
                }
            }
        }
        // No contact left: a joint whose link allows a corridor still has a way while the
        // room it joins has a door with a free cell in front of it (whether a corridor can be
        // routed from there is found when the part is placed).
        if c == 0 && self.corridor_way(st, part) {
            c = 1;
        }
        c
    }

    /// Whether the part's joint may still be a corridor: its link allows one, and the room it
    /// joins is placed with a door that has a free cell in front of it (a room walled in on
    /// every door leaves no corridor a way out).
    fn corridor_way(&self, st: &State, part: &Part) -> bool {
        part.joint.is_some_and(|(l, other, _)| {
            self.problem.links[l].realise.path_bounds().is_some()
                && st.placed[other].is_some()
                && self.free_door(st, other, l)
        })
    }

    /// Where the piece may go with its joint room at a corridor's distance from the room it
    /// joins, for a joint that may be a corridor ([`Planner::corridor_way`], which the caller
    /// checks once for every turn): the contact positions moved out through the door by a few
    /// corridor lengths (as a room's corridor positions are found).
    fn standoffs(&self, st: &State, part: &Part, piece: &Piece) -> Vec<Point> {
        let mut out = Vec::new();
        if let Some((l, other, own)) = part.joint {
            // Positions of the joint room, as the room-by-room search finds them.
            let (sb, pb) = piece.placed[own];
            self.standoff(st, sb, (other, Edge::Link(l)), &mut out);
            for q in &mut out {
                *q = *q - pb;
            }
        }
        out
    }

    /// Per room: whether `graph::enclosures` puts it inside a loop (with what hangs off it),
    /// found when first asked.
    pub(super) fn enclosed(&self) -> &[bool] {
        &self.enclosures().0
    }

    /// Whether the level's (or part's) loops must enclose rooms: some room is
    /// [`Planner::enclosed`].
    pub(super) fn must_enclose(&self) -> bool {
        self.enclosures().1
    }

    fn enclosures(&self) -> &(Vec<bool>, bool) {
        self.enclosed.get_or_init(|| {
            let mut inside = vec![false; self.problem.rooms.len()];
            for g in crate::graph::enclosure_groups(&self.adj, self.problem.links.len()) {
                for r in g.inside {
                    inside[r] = true;
                }
            }
            let any = inside.contains(&true);
            (inside, any)
        })
    }

    /// Whether every stand-in of a part's finished search has free cells round it that lead
    /// out of the box round the part, but for stand-ins off rooms that `graph::enclosures`
    /// puts inside a loop: no drawing of the level leaves those out, so a search repeated for
    /// them is wasted (level-like graphs with holes at 100 rooms: one laid out in 1 attempt
    /// where it took 13).
    fn stand_ins_out(&self, part: &Part, sub: &State) -> bool {
        let own = part.rooms.len();
        if sub.placed.len() == own {
            return true;
        }
        let enclosed = self.enclosed();
        // A stand-in off a room that some loop must enclose is shut in by every drawing.
        let shut_in_anyway = |q: usize| {
            part.planner.problem.links.iter().any(|l| {
                let other = match (l.from == q, l.to == q) {
                    (true, _) => l.to,
                    (_, true) => l.from,
                    _ => return false,
                };
                other < own && enclosed[part.rooms[other]]
            })
        };
        let (mut min, mut max) = (
            Point::new(i32::MAX, i32::MAX),
            Point::new(i32::MIN, i32::MIN),
        );
        for &(s, p) in sub.placed.iter().flatten() {
            let r = part.planner.rect_of(s, p);
            min = min.min_each(r.min);
            max = max.max_each(r.max);
        }
        for c in &sub.corridors {
            min = min.min_each(c.rect.min);
            max = max.max_each(c.rect.max);
        }
        let (min, max) = (min - Point::new(2, 2), max + Point::new(2, 2));
        (own..sub.placed.len())
            .all(|q| shut_in_anyway(q) || part.planner.open_to_edge(sub, q, min, max))
    }

    /// A frame's first moves for a part with `weight` rooms hanging off it, and whether they
    /// include its standoffs: the contact moves, or, where [`standoffs_first`] gives a lead,
    /// that many of the part's best standoffs first, then the contact moves, then its other
    /// standoffs (what hangs off a heavy part then grows from further out than the crowd
    /// round its joint room).
    fn first_moves<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        st: &State,
        part: &Part,
        turns: &[Piece],
        weight: usize,
    ) -> (Vec<Move>, bool) {
        let lead = standoffs_first(weight);
        let mut contact = self.moves(rng, st, part, turns, false);
        if lead == 0 {
            return (contact, false);
        }
        let mut moves = self.moves(rng, st, part, turns, true);
        let rest = moves.split_off(lead.min(moves.len()));
        moves.append(&mut contact);
        moves.extend(rest);
        (moves, true)
    }

    /// The moves that bring the piece's joint room into contact with the room it joins (or,
    /// with `apart`, that stand it off from that room for a corridor, where the joint's link
    /// allows one), those that take the piece furthest from the middle of what is placed
    /// first (with some noise, so that layouts differ).
    fn moves<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        st: &State,
        part: &Part,
        turns: &[Piece],
        apart: bool,
    ) -> Vec<Move> {
        if apart && !self.corridor_way(st, part) {
            return Vec::new();
        }
        if part.joint.is_none() {
            return vec![(0, Point::default(), false)];
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
        let mut score = |v: usize, piece: &Piece, t: Point, rng: &mut R| {
            let dx = piece.centre.0 + f64::from(t.x) - cx;
            let dy = piece.centre.1 + f64::from(t.y) - cy;
            let noise = 0.75 + 0.5 * seed::unit(rng);
            scored.push((-(dx * dx + dy * dy) * noise, v, t));
        };
        for (v, piece) in turns.iter().enumerate() {
            if apart {
                for t in self.standoffs(st, part, piece) {
                    score(v, piece, t, rng);
                }
            } else if let Some((base, offsets)) = self.joint_offsets(st, part, piece) {
                for &o in offsets {
                    score(v, piece, base + o, rng);
                }
            }
        }
        scored.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
        if apart {
            scored.truncate(APART_MOVES);
        }
        scored.into_iter().map(|(_, v, t)| (v, t, apart)).collect()
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
        self.unplace(st, part.rooms[0], keep, &part.rooms[1..], &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::parts::tests::chain;
    use crate::layout::Planner;

    /// A part's layout turned every way is still a layout of the part: the whole level
    /// assembled from turned parts passes the strict check, and chains that needed turned
    /// parts lay out (these two failed within 20 attempts when parts were only moved; chain 2
    /// has taken more than 20 since a part's searches after its first failure let corridors
    /// give way, so each gets 40).
    #[test]
    fn levels_assemble_from_turned_parts() {
        for seed in [2, 6] {
            let mut p = chain(30, seed);
            p.budget.retry = crate::layout::RetryPolicy::Attempts(40);
            let planner = Planner::new(p.clone()).unwrap();
            let parts = planner.parts.as_ref().expect("a big level");
            let layout = planner
                .assemble(seed, parts, None, None)
                .unwrap_or_else(|e| panic!("chain {seed}: {}", e.0));
            assert_eq!(planner.check(&layout), Ok(()), "chain {seed}");
        }
    }

    /// Where a joint's link allows a corridor, a part that has no contact move left stands off
    /// from the room it joins and is joined to it by a corridor routed round what is placed:
    /// chains of loops whose links may all be corridors assemble into layouts that pass the
    /// strict check, and some of their joints are corridors.
    #[test]
    fn joints_that_allow_a_corridor_stand_off_when_no_contact_is_left() {
        use crate::layout::Realise;
        let (mut joints, mut by_corridor) = (0, 0);
        for seed in 0..4 {
            let mut p = chain(30, seed);
            for link in &mut p.links {
                link.realise = Realise::ContactOrPath { min: 4, max: 30 };
            }
            p.budget.retry = crate::layout::RetryPolicy::Attempts(20);
            let planner = Planner::new(p).unwrap();
            let parts = planner.parts.as_ref().expect("a big level");
            let layout = planner
                .assemble(seed, parts, None, None)
                .unwrap_or_else(|e| panic!("chain {seed}: {}", e.0));
            assert_eq!(planner.check(&layout), Ok(()), "chain {seed}");
            for part in parts.iter() {
                if let Some((l, _, _)) = part.joint {
                    joints += 1;
                    by_corridor += usize::from(!layout.links[l].corridor.is_empty());
                }
            }
        }
        eprintln!("{by_corridor} of {joints} joints by corridor");
        assert!(by_corridor > 0, "no joint of {joints} needed a corridor");
    }

    /// An attempt's parts' searches are charged against its allowance of placement tries: with
    /// none it ends after its first search; with exactly the tries an unbounded attempt used, it
    /// finds the same layout (the allowance is only read between searches, so it changes
    /// nothing until it runs out). The tries are counted by the search itself, so the count of
    /// a successful attempt is at least one try per room.
    #[test]
    fn attempts_stop_when_their_tries_run_out() {
        use super::{Pool, search};
        let mut checked = 0;
        for seed in 0..6 {
            let planner = Planner::new(chain(30, seed)).unwrap();
            let parts = planner.parts.as_ref().expect("a big level");
            let run = |tries: u64| {
                let mut pool = Pool::new(parts.len());
                let mut fails = vec![super::Failed::default(); parts.len()];
                let mut why = vec![None; parts.len()];
                let mut rng = crate::seed::stream(seed, "test");
                let before = search::tries_so_far();
                let st = planner.fit_parts(
                    &mut rng, parts, &mut pool, &mut fails, &mut why, None, tries, None,
                );
                (st.map(|st| st.placed), search::tries_so_far() - before)
            };
            let (none, _) = run(0);
            assert!(none.is_none(), "seed {seed}: no tries, no layout");
            let (free, used) = run(u64::MAX);
            let Some(free) = free else { continue };
            assert!(
                used >= planner.problem.rooms.len() as u64,
                "seed {seed}: {used} tries"
            );
            let (capped, again) = run(used);
            assert_eq!(again, used, "seed {seed}: the same searches");
            assert_eq!(capped, Some(free), "seed {seed}: the same layout");
            checked += 1;
        }
        assert!(checked >= 3, "only {checked} chains fitted in one attempt");
    }

    /// An assembly attempt counts as one attempt of the retry budget, or as one per
    /// `TRIES_PER_ATTEMPT` tries per room its parts' searches made if that is more: one that
    /// spends its whole allowance counts as ten.
    #[test]
    fn heavy_assembly_attempts_count_as_several() {
        use super::{TRIES_PER_ATTEMPT, TRIES_PER_ROOM, attempts_charged};
        let per_room = 100 * 400;
        assert_eq!(attempts_charged(0, per_room), 1);
        assert_eq!(
            attempts_charged(TRIES_PER_ATTEMPT * per_room - 1, per_room),
            1
        );
        assert_eq!(
            attempts_charged(2 * TRIES_PER_ATTEMPT * per_room, per_room),
            2
        );
        assert_eq!(attempts_charged(TRIES_PER_ROOM * per_room, per_room), 10);
        assert_eq!(attempts_charged(u64::MAX, 1), u32::MAX);
        assert_eq!(attempts_charged(5, 0), 1);
    }

    /// The first part always lies alone at the origin, so a layout of it that leaves a part
    /// joined to it no move would fail the same way in every attempt: a layout the search
    /// comes all the way back to is dropped from the part's layouts, and the attempt goes on
    /// with a new one. Here the first part is a room with a room on each of its four sides
    /// and a corridor of 50 rooms hanging off it; the layout handed in first walls the middle
    /// room in on all four sides.
    #[test]
    fn a_first_part_that_walls_a_joint_in_is_dropped() {
        use super::{LAYOUTS_PER_PART, Pool};
        use crate::layout::geom::Point;
        use crate::layout::{LayoutProblem, LinkSpec, Realise, RoomSpec, RoomTemplate};
        let mut p = LayoutProblem::new(vec![RoomTemplate::rectangle("room", 6, 6, 1)]);
        for name in ["hub", "n", "s", "e", "w"] {
            p.rooms.push(RoomSpec::new(name, vec![0]));
        }
        for k in 1..5 {
            p.links.push(LinkSpec::new(0, k, Realise::Contact));
        }
        for r in 5..55 {
            p.rooms.push(RoomSpec::new(&format!("r{r}"), vec![0]));
            let before = if r == 5 { 0 } else { r - 1 };
            p.links.push(LinkSpec::new(before, r, Realise::Contact));
        }
        let planner = Planner::new(p).unwrap();
        let parts = planner.parts.as_ref().expect("a big level");
        assert_eq!(
            parts[0].rooms,
            vec![0, 1, 2, 3, 4],
            "the hub and its four rooms"
        );
        assert!(parts.iter().any(|q| q.joint.is_some_and(|j| j.1 == 0)));
        // The hub at the origin, a room on each side: no free cell along the hub's walls.
        let s = planner.room_shapes[0][0].0;
        let at = |x, y| (s, Point::new(x, y));
        let walled = planner.piece_of(
            vec![at(0, 0), at(0, 6), at(0, -6), at(6, 0), at(-6, 0)],
            Vec::new(),
        );
        let mut pool = Pool::new(parts.len());
        pool.pieces[0].push(planner.turned(walled.clone()));
        pool.made[0] = 1;
        let mut fails = vec![super::Failed::default(); parts.len()];
        let mut why = vec![None; parts.len()];
        let mut rng = crate::seed::stream(3, "test");
        let st = planner
            .fit_parts(
                &mut rng,
                parts,
                &mut pool,
                &mut fails,
                &mut why,
                None,
                u64::MAX,
                None,
            )
            .expect("a new layout of the first part leaves the corridor a way out");
        let layout = planner.finish(3, 1, st);
        assert_eq!(planner.check(&layout), Ok(()));
        assert!(
            pool.pieces[0]
                .iter()
                .all(|t| t.iter().all(|piece| !piece.same_as(&walled))),
            "the walled-in layout is gone"
        );
        assert!(pool.made[0] >= 2 && pool.made[0] <= 1 + LAYOUTS_PER_PART);
        // The part joined to the walled room failed, and how its moves fared is told: every
        // position touching the hub overlaps one of its four rooms, so every move it tried
        // overlapped, and none was refused for a waiting part's sake.
        let j = (0..parts.len())
            .find(|&j| parts[j].joint.is_some_and(|jt| jt.1 == 0))
            .expect("a part joined to the hub");
        let last = fails[j].last;
        assert!(fails[j].count >= 1, "the joined part failed");
        assert!(last.tried > 0, "{last:?}");
        assert_eq!(last.overlapped, last.tried, "{last:?}");
        assert_eq!((last.refused, last.blocked), (0, None), "{last:?}");
        let told = planner.tries_told(parts, &last);
        assert!(
            told.contains(&format!("{} of its {} moves", last.tried, last.tried)),
            "{told}"
        );
        assert!(!told.contains("waiting part"), "{told}");
        // Moves that fitted but were refused name the waiting part they would have shut in.
        let refused = super::Tries {
            tried: 5,
            overlapped: 3,
            unrouted: 0,
            refused: 2,
            blocked: Some(j),
        };
        let own = parts[j].joint.expect("joined").2;
        let name = &planner.problem.rooms[parts[j].rooms[own]].name;
        assert!(
            planner.tries_told(parts, &refused).contains(&format!(
                "3 of its 5 moves, every turn of each layout tried, overlapped placed rooms or \
                 corridors, and 2 would have left a waiting part no free position, the last one \
                 the part around `{name}`)"
            )),
            "{}",
            planner.tries_told(parts, &refused)
        );
        assert_eq!(planner.tries_told(parts, &super::Tries::default()), "");
        // Moves that stood off for a corridor that could not be routed are told apart.
        let unrouted = super::Tries {
            tried: 9,
            overlapped: 5,
            unrouted: 4,
            ..Default::default()
        };
        assert!(
            planner.tries_told(parts, &unrouted).contains(
                "5 of its 9 moves, every turn of each layout tried, overlapped placed rooms or \
                 corridors, 4 stood off for a corridor that could not be routed)"
            ),
            "{}",
            planner.tries_told(parts, &unrouted)
        );
    }

    /// A path of `rooms` 6 x 6 rooms `r0`, `r1`, ... joined by contact, with a 3 x 3 cell
    /// template (template 1, one door a side) for rooms added after them.
    fn path_of_rooms(rooms: usize) -> crate::layout::LayoutProblem {
        use crate::layout::{LayoutProblem, LinkSpec, Realise, RoomSpec, RoomTemplate};
        let mut p = LayoutProblem::new(vec![
            RoomTemplate::rectangle("room", 6, 6, 1),
            RoomTemplate::rectangle("cell", 3, 3, 1),
        ]);
        for r in 0..rooms {
            p.rooms.push(RoomSpec::new(&format!("r{r}"), vec![0]));
            if r > 0 {
                p.links.push(LinkSpec::new(r - 1, r, Realise::Contact));
            }
        }
        p
    }

    /// Past the deadline a part's layouts come from its pool only: no new search (a search
    /// makes one attempt even past its deadline, and the fitting, which returns nothing found
    /// then, could ask for hundreds before it next looks at the clock).
    #[test]
    fn no_part_is_searched_past_the_deadline() {
        use super::Pool;
        let planner = Planner::new(path_of_rooms(60)).unwrap();
        let parts = planner.parts.as_ref().expect("a big level");
        let mut pool = Pool::new(parts.len());
        let mut pieces = vec![None; parts.len()];
        let mut why = vec![None; parts.len()];
        let mut rng = crate::seed::stream(5, "test");
        let past = Some(std::time::Instant::now());
        assert!(!planner.relayout(0, parts, &mut pieces, &mut pool, &mut rng, &mut why, past));
        assert_eq!((pool.made[0], pool.failed[0]), (0, 0), "nothing searched");
        // Without a deadline the same part is laid out, and a layout in the pool is handed
        // out past the deadline too.
        assert!(planner.relayout(0, parts, &mut pieces, &mut pool, &mut rng, &mut why, None));
        assert_eq!(pool.made[0], 1);
        pool.cursor[0] = 0;
        assert!(planner.relayout(0, parts, &mut pieces, &mut pool, &mut rng, &mut why, past));
        assert!(pieces[0].is_some());
        assert_eq!(pool.made[0], 1);
    }

    /// A search makes its first attempt whatever the clock says, but the room-by-room search
    /// that follows a big level's failed cuts ends where the deadline passes, even within
    /// its first attempt (it made up to a whole attempt's tries past the budget before).
    #[test]
    fn the_search_after_the_cuts_stops_at_the_deadline() {
        use crate::layout::LayoutError;
        let planner = Planner::new(path_of_rooms(60)).unwrap();
        let whole = planner.ordered().unwrap();
        let past = Some(std::time::Instant::now());
        let before = super::super::search::tries_so_far();
        let (_, attempts) = whole
            .search(1, past)
            .expect("a path lays out in one attempt");
        assert_eq!(attempts, 1);
        assert!(
            super::super::search::tries_so_far() - before >= 60,
            "one try per room at least"
        );
        let before = super::super::search::tries_so_far();
        match whole.search_recording(1, past, true, None) {
            Err(LayoutError::NoLayout { attempts, .. }) => assert_eq!(attempts, 1),
            other => panic!("expected no layout, got {:?}", other.map(|(_, k)| k)),
        }
        assert_eq!(
            super::super::search::tries_so_far(),
            before,
            "no try past the deadline"
        );
        // Without a deadline it is the search it was.
        let (st, _) = whole.search_recording(1, None, true, None).unwrap();
        let (again, _) = whole.search(1, None).unwrap();
        assert_eq!(st.placed, again.placed);
    }

    /// A part with no layout of its own (a 3 x 3 cell, one door a side, in the middle of a
    /// wheel of five rooms: five links, four doors) fails the level without a second cut,
    /// after at most 20 attempts room by room, and the error says which part.
    #[test]
    fn a_part_with_no_layout_fails_the_level_and_is_named() {
        use crate::layout::{LayoutError, LinkSpec, Realise, RoomSpec};
        let path = 60;
        let mut p = path_of_rooms(path);
        let cell = path;
        p.rooms.push(RoomSpec::new("cell", vec![1]));
        for k in 0..5 {
            p.rooms.push(RoomSpec::new(&format!("rim{k}"), vec![0]));
            let rim = cell + 1 + k;
            p.links.push(LinkSpec::new(cell, rim, Realise::Contact));
            p.links
                .push(LinkSpec::new(rim, cell + 1 + (k + 1) % 5, Realise::Contact));
        }
        p.links
            .push(LinkSpec::new(path - 1, cell + 1, Realise::Contact));
        p.budget.retry = crate::layout::RetryPolicy::Attempts(50);
        let planner = Planner::new(p).unwrap();
        assert!(planner.parts.is_some(), "the level comes apart at bridges");
        match planner.layout(0) {
            Err(LayoutError::NoLayout {
                constraint,
                attempts,
                ..
            }) => {
                // One attempt at fitting the parts, then 20 room by room (of the 50 allowed).
                assert_eq!(attempts, 21);
                assert!(
                    constraint.contains("the part could not be laid out on its own"),
                    "{constraint}"
                );
                assert!(
                    !constraint.contains("laid out in parts first"),
                    "the part named, not the room-by-room search: {constraint}"
                );
            }
            other => panic!("expected no layout, got {other:?}"),
        }
        // The picture is of the wheel's own search: only its rooms, the stuck one not placed,
        // next to placed rooms it links to.
        let stuck = planner.deepest_parts(0).expect("the wheel has no layout");
        let index = |name: &str| planner.problem.rooms.iter().position(|r| r.name == name);
        let s = index(&stuck.stuck).expect("a room of the level");
        assert!(s >= cell && stuck.rooms[s].is_none(), "{}", stuck.stuck);
        assert!(stuck.placed() > 0);
        for (r, room) in stuck.rooms.iter().enumerate() {
            assert!(room.is_none() || r >= cell, "only the wheel's rooms");
        }
        for nb in &stuck.stuck_next_to {
            let q = index(nb).unwrap();
            assert!(stuck.rooms[q].is_some() && planner.linked(s, q), "{nb}");
        }
    }

    /// A big level whose first cut's parts do not fit is laid out room by room before a
    /// second cut is made: here a level-like graph of 100 rooms whose first cut's parts do not
    /// fit for its seed and whose room-by-room search lays it out. The layout is that
    /// search's, with the first cut's attempts counted, and valid; the second cut was never
    /// made.
    #[test]
    fn levels_whose_parts_do_not_fit_are_laid_out_room_by_room() {
        let (planner, first) = first_cut_fails(13);
        let whole = planner.ordered().unwrap();
        let (st, attempts) = whole.search(13, None).expect("laid out room by room");
        let want = whole.finish(13, first + attempts, st);
        let got = planner.layout(13).expect("laid out");
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
        planner.check(&got).expect("a valid layout");
        assert!(planner.merged_parts.get().is_none(), "no second cut made");
    }

    /// Where the room-by-room search fails too, the level is fitted again from the second cut
    /// (small hanging pieces kept in their parts): here a level-like graph of 100 rooms whose
    /// first cut's parts do not fit, which the room-by-room search does not lay out, and whose
    /// second cut's parts do fit. The layout is the second cut's, with the attempts of both
    /// earlier stages counted, and valid.
    #[test]
    fn levels_whose_parts_do_not_fit_are_cut_again() {
        let (planner, first) = first_cut_fails(30);
        let searched = match planner.ordered().unwrap().search(30, None) {
            Err(crate::layout::LayoutError::NoLayout { attempts, .. }) => attempts,
            Ok(_) => panic!("the room-by-room search should fail"),
            Err(e) => panic!("{e}"),
        };
        let parts = planner.parts.as_ref().unwrap();
        let second = planner.cuts().nth(1).expect("a second cut");
        assert!(second.len() < parts.len());
        let mut want = planner
            .assemble(30, second, None, None)
            .map_err(|(e, _)| e)
            .expect("the second cut's parts fit");
        want.attempts += first + searched;
        let got = planner.layout(30).expect("laid out");
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
        planner.check(&got).expect("a valid layout");
    }

    /// The planner of level-like graph `seed` of 100 rooms (20 attempts), whose first cut's
    /// parts do not fit for that seed, and the attempts of that cut (panics if they fit).
    fn first_cut_fails(seed: u64) -> (Planner, u32) {
        let mut p = super::super::parts::tests::level_like(100, 10, seed);
        p.budget.retry = crate::layout::RetryPolicy::Attempts(20);
        let planner = Planner::new(p).unwrap();
        let parts = planner.parts.as_ref().expect("a big level");
        let first = match planner.assemble(seed, parts, None, None) {
            Err((crate::layout::LayoutError::NoLayout { attempts, .. }, None)) => attempts,
            other => panic!(
                "the first cut's parts should not fit: {:?}",
                other.map(|_| ())
            ),
        };
        (planner, first)
    }

    /// A level given few attempts gives a part's long search few too: 50 per attempt of the
    /// level, up to 1000 (so the benchmark's 20 attempts and the default 1000 give the whole
    /// 1000); a time budget bounds it by its deadline instead.
    #[test]
    fn a_part_s_long_search_follows_the_level_s_budget() {
        use crate::layout::RetryPolicy;
        for (retry, want) in [
            (RetryPolicy::Attempts(0), 1),
            (RetryPolicy::Attempts(1), 50),
            (RetryPolicy::Attempts(3), 150),
            (RetryPolicy::Attempts(20), 1000),
            (RetryPolicy::Attempts(1000), 1000),
            (RetryPolicy::Attempts(u32::MAX), 1000),
            (RetryPolicy::Millis(100), 1000),
        ] {
            let mut p = hub_at_the_end(60);
            p.budget.retry = retry;
            let planner = Planner::new(p).unwrap();
            assert_eq!(planner.last_chance_attempts(), want, "{retry:?}");
        }
    }

    /// Under a time budget a layout fits the first cut's parts only, so the picture of where
    /// the parts got stuck is the first cut's: no second cut is made for it, and the parts of
    /// the first cut are placed whole. Here the level-like graph 30 of 100 rooms, which has a
    /// second cut (see `levels_whose_parts_do_not_fit_are_cut_again`), given 5 ms: less than
    /// the first cut's 20 failed attempts take.
    #[test]
    fn under_a_time_budget_the_stuck_parts_are_the_first_cuts() {
        use crate::layout::RetryPolicy;
        let (counted, _) = first_cut_fails(30);
        assert_eq!(counted.cuts().count(), 2, "the level has a second cut");
        let mut p = counted.problem.clone();
        p.budget.retry = RetryPolicy::Millis(5);
        let timed = Planner::new(p).unwrap();
        let stuck = timed.deepest_parts(30);
        assert!(timed.merged_parts.get().is_none(), "no second cut made");
        if let Some(stuck) = stuck {
            assert_parts_whole(timed.parts.as_ref().unwrap(), &stuck);
        }
    }

    /// Panics unless each of `parts` is in the picture whole or not at all.
    fn assert_parts_whole(
        parts: &[super::super::parts::Part],
        stuck: &crate::layout::PartialLayout,
    ) {
        for part in parts {
            let on = part
                .rooms
                .iter()
                .filter(|&&r| stuck.rooms[r].is_some())
                .count();
            assert!(on == 0 || on == part.rooms.len(), "parts are placed whole");
        }
    }

    /// [`path_of_rooms`] ending in a 3 x 3 room `hub` (one door a side) linked to the last
    /// room of the path and to four leaves: no layout (five links, four doors).
    fn hub_at_the_end(path: usize) -> crate::layout::LayoutProblem {
        use crate::layout::{LinkSpec, Realise, RoomSpec};
        let mut p = path_of_rooms(path);
        let hub = p.rooms.len();
        p.rooms.push(RoomSpec::new("hub", vec![1]));
        p.links.push(LinkSpec::new(path - 1, hub, Realise::Contact));
        for k in 0..4 {
            p.rooms.push(RoomSpec::new(&format!("leaf{k}"), vec![0]));
            p.links
                .push(LinkSpec::new(hub, hub + 1 + k, Realise::Contact));
        }
        p
    }

    /// A big level that fails both in parts and room by room says why the parts did not fit
    /// as well as where the room-by-room search got stuck: here a 3 x 3 room (one door a
    /// side) at the end of a long corridor of rooms, linked to five rooms.
    #[test]
    fn failed_big_levels_say_why_the_parts_did_not_fit() {
        use crate::layout::{LayoutError, Realise};
        let path = 60;
        let mut p = hub_at_the_end(path);
        p.budget.retry = crate::layout::RetryPolicy::Attempts(2);
        let planner = Planner::new(p).unwrap();
        assert!(planner.parts.is_some(), "the level comes apart at bridges");
        // The parts' picture: whole parts placed, the stuck joint room not placed, next to
        // the placed rooms it links to; the same picture every time.
        let stuck = planner.deepest_parts(0).expect("the parts do not fit");
        assert_eq!(
            stuck.to_ascii(),
            planner.deepest_parts(0).unwrap().to_ascii()
        );
        let index = |name: &str| planner.problem.rooms.iter().position(|r| r.name == name);
        let s = index(&stuck.stuck).expect("a room of the level");
        assert!(stuck.rooms[s].is_none(), "the stuck room is not placed");
        assert!(!stuck.stuck_next_to.is_empty());
        for nb in &stuck.stuck_next_to {
            let q = index(nb).unwrap();
            assert!(stuck.rooms[q].is_some() && planner.linked(s, q), "{nb}");
        }
        assert_parts_whole(planner.parts.as_ref().unwrap(), &stuck);
        assert!(stuck.placed() > 0 && stuck.placed() < planner.problem.rooms.len());
        match planner.layout(0) {
            Err(LayoutError::NoLayout { constraint, .. }) => {
                assert!(
                    constraint.contains("laid out in parts first: "),
                    "{constraint}"
                );
                assert!(constraint.contains("`hub`"), "{constraint}");
                // The hub has one door a side and a leaf on each: the part joined to it
                // failed, and every move it tried overlapped a leaf.
                let told = constraint
                    .split_once(&format!(
                        "was the part of 5 rooms around `r{}` touching `hub` (when it last \
                         failed, ",
                        path - 1
                    ))
                    .expect(&constraint)
                    .1;
                let numbers: Vec<u32> = told
                    .split(' ')
                    .take(4)
                    .filter_map(|w| w.parse().ok())
                    .collect();
                assert_eq!(numbers.len(), 2, "{told}");
                assert!(numbers[0] > 0 && numbers[0] == numbers[1], "{told}");
                assert!(!told.contains("waiting part"), "{told}");
                // Every link between the parts must touch here, and the error says so.
                let cut = planner.parts.as_ref().unwrap().len() - 1;
                assert!(cut > 0);
                let hint = format!("{cut} of the {cut} links between its parts must touch");
                assert!(constraint.contains(&hint), "{constraint}");
            }
            other => panic!("expected no layout, got {other:?}"),
        }
        // With a corridor allowed on every link, nothing is said of the links between parts
        // (the hub still cannot take five doors).
        let mut relaxed = planner.problem.clone();
        for link in &mut relaxed.links {
            link.realise = Realise::ContactOrPath { min: 1, max: 8 };
        }
        let relaxed = Planner::new(relaxed).unwrap();
        assert!(relaxed.parts.is_some());
        assert_eq!(relaxed.bridge_hint(), None);
        match relaxed.layout(0) {
            Err(LayoutError::NoLayout { constraint, .. }) => {
                assert!(
                    !constraint.contains("links between its parts"),
                    "{constraint}"
                );
            }
            other => panic!("expected no layout, got {other:?}"),
        }
    }
}
