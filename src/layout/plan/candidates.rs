//! Candidate positions of a room: the intersection of its placed neighbours' configuration
//! spaces (exit gluing), in a seeded order.

use super::*;

/// Shapes of a step ordered without allocating (a room with more goes to the heap).
const INLINE_SHAPES: usize = 16;

impl Planner {
    /// `then` called with the shapes step `i` may use, in weighted random order (kept on the
    /// stack for the few shapes a room usually has).
    pub(super) fn shape_order<R: Rng + ?Sized, T>(
        &self,
        rng: &mut R,
        st: &State,
        i: usize,
        then: impl FnOnce(&mut R, &[u32]) -> T,
    ) -> T {
        let room = self.steps[i].room;
        let shape_of = |r: usize| st.placed[r].map(|(s, _)| s);
        let mut inline = [(0u32, 0f64); INLINE_SHAPES];
        let mut spill: Vec<(u32, f64)>;
        let shapes: &mut [(u32, f64)] = if self.room_shapes[room].len() <= INLINE_SHAPES {
            let mut k = 0;
            self.each_allowed(room, shape_of, |x| {
                inline[k] = x;
                k += 1;
            });
            &mut inline[..k]
        } else {
            spill = self.repeat_allowed(room, shape_of);
            &mut spill
        };
        let corridor_room = self.problem.rooms[room].corridor;
        // Templates already used (in this level, and in earlier ones of a run) weigh less.
        let penalty = self.problem.recent_penalty;
        if penalty > 0.0 && !corridor_room {
            let mut uses = vec![0u32; self.problem.templates.len()];
            for (r, p) in st.placed.iter().enumerate() {
                if let Some((s, _)) = p
                    && !self.problem.rooms[r].corridor
                {
                    uses[self.set.shapes[*s as usize].template] += 1;
                }
            }
            for (s, w) in shapes.iter_mut() {
                let t = self.set.shapes[*s as usize].template;
                let n = f64::from(uses[t])
                    + self
                        .problem
                        .earlier_uses
                        .get(t)
                        .copied()
                        .unwrap_or(0.0)
                        .max(0.0);
                *w *= (1.0 - penalty * n).max(0.05);
            }
        }
        // Weighted random order (exponential keys, each written over its weight).
        for (_, w) in shapes.iter_mut() {
            *w = -(1.0 - seed::unit(rng)).ln() / *w;
        }
        shapes.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        let mut ids = [0u32; INLINE_SHAPES];
        let ids_spill: Vec<u32>;
        let ids: &[u32] = if shapes.len() <= INLINE_SHAPES {
            for (k, &(s, _)) in shapes.iter().enumerate() {
                ids[k] = s;
            }
            &ids[..shapes.len()]
        } else {
            ids_spill = shapes.iter().map(|&(s, _)| s).collect();
            &ids_spill
        };
        then(rng, ids)
    }

    /// Candidate placements of `shapes` for step `i`, best first: shuffled, cut to those that
    /// can still be joined to the step's targets, and sorted by distance to them for a step
    /// that pulls.
    pub(super) fn candidates<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        st: &State,
        i: usize,
        shapes: &[u32],
    ) -> Vec<Cand> {
        let step = &self.steps[i];
        if let Some(pins) = &self.pins
            && let Some((s, pos)) = pins[step.room]
        {
            return if shapes.contains(&s) {
                vec![Cand { shape: s, pos }]
            } else {
                Vec::new()
            };
        }
        let mut out: Vec<Cand> = Vec::new();
        if i == 0 {
            out.extend(shapes.iter().map(|&s| Cand {
                shape: s,
                pos: Point::default(),
            }));
            return out;
        }
        // Contact positions first, shuffled; positions that need a corridor after them.
        let mut fallback: Vec<Cand> = Vec::new();
        for (k, &s) in shapes.iter().enumerate() {
            let start = out.len();
            self.positions(st, step, s, shapes.len() - k, &mut out, &mut fallback);
            seed::shuffle(rng, &mut out[start..]);
        }
        // Positions that need a corridor: in a small level, or a big one (or part) whose loops
        // must enclose rooms, a few drawn at random; else the few nearest the gap a corridor
        // likes best (short corridors route more often). Nearest first kept every corridor
        // short, and a loop closed by a short corridor leaves no room for what it must go
        // round; where nothing must be gone round, short corridors make the search faster
        // (see docs/layout-at-scale.md, 2026-12-06, fifth run).
        let at_random = self.give_way || self.must_enclose();
        if !at_random && !fallback.is_empty() {
            // Partners reached by corridor, with the gap a corridor likes best.
            let partners: Vec<(Rect, u32)> = step
                .earlier
                .iter()
                .filter_map(|&(nb, e)| {
                    let Edge::Link(l) = e else { return None };
                    let (lo, _) = self.problem.links[l].realise.path_bounds()?;
                    st.placed[nb].map(|(ns, np)| (self.rect_of(ns, np), lo + 2))
                })
                .collect();
            let mut keyed: Vec<(u32, u64, Cand)> = fallback
                .drain(..)
                .map(|c| {
                    let r = self.rect_of(c.shape, c.pos);
                    let d: u32 = partners
                        .iter()
                        .map(|(a, ideal)| r.gap(a).abs_diff(*ideal))
                        .sum();
                    (d, rng.next_u64(), c)
                })
                .collect();
            // The few best, in order: picked out first (the list may hold hundreds), then
            // sorted. (Keys are distinct: each has a random draw of its own.)
            let key = |&(d, k, _): &(u32, u64, Cand)| (d, k);
            if keyed.len() > FALLBACK_TRIES {
                keyed.select_nth_unstable_by_key(FALLBACK_TRIES - 1, key);
                keyed.truncate(FALLBACK_TRIES);
            }
            keyed.sort_unstable_by_key(key);
            out.extend(keyed.into_iter().map(|(_, _, c)| c));
        }
        if fallback.len() > FALLBACK_TRIES {
            for k in 0..FALLBACK_TRIES {
                let pick = k + seed::index(rng, fallback.len() - k);
                fallback.swap(k, pick);
            }
            fallback.truncate(FALLBACK_TRIES);
        } else {
            seed::shuffle(rng, &mut fallback);
        }
        out.extend(fallback);
        if self.rotation.is_some() {
            out.retain(|c| self.keeps_rotation(st, step.room, c));
        }
        if self.drawn() {
            // Nearest first to the drawing, whatever the targets: the drawing keeps loops'
            // ends together better than the targets' reach does.
            self.sort_by_drawing(rng, st, step.room, &mut out);
            return out;
        }
        if step.targets.is_empty() {
            return out;
        }
        // The placed targets' boxes (on the stack for the few a step has).
        let placed_targets = step.targets.iter().filter_map(|&(t, reach, hops)| {
            st.placed[t].map(|(ts, tp)| (self.rect_of(ts, tp), reach, hops))
        });
        let mut inline = [(
            Rect {
                min: Point::default(),
                max: Point::default(),
            },
            0u32,
            0u32,
        ); 8];
        let spill: Vec<(Rect, u32, u32)>;
        let targets: &[(Rect, u32, u32)] = if step.targets.len() <= inline.len() {
            let mut k = 0;
            for t in placed_targets {
                inline[k] = t;
                k += 1;
            }
            &inline[..k]
        } else {
            spill = placed_targets.collect();
            &spill
        };
        // The sum of gaps to near targets, `None` where a target is out of reach.
        let score = |c: &Cand| {
            let rect = self.rect_of(c.shape, c.pos);
            let mut score = 0;
            for &(trect, reach, hops) in targets {
                let gap = rect.gap(&trect);
                if gap > reach {
                    return None;
                }
                if hops <= 3 {
                    score += gap;
                }
            }
            Some(score)
        };
        if !step.pull {
            out.retain(|c| score(c).is_some());
            return out;
        }
        let mut scored: Vec<(u32, Cand)> = Vec::with_capacity(out.len());
        for c in &out {
            if let Some(s) = score(c) {
                scored.push((s + 2 * seed::below(rng, 4) as u32, *c));
            }
        }
        // The sorted list goes where the unsorted one was.
        out.clear();
        by_score(scored, &mut out);
        out
    }

    /// Whether placing `room` as `c` keeps the cyclic order of [`Planner::with_rotation`]
    /// round it and round each placed neighbour (by the angles between box centres).
    fn keeps_rotation(&self, st: &State, room: usize, c: &Cand) -> bool {
        let Some(rot) = &self.rotation else {
            return true;
        };
        let centre = |r: Rect| (f64::from(r.min.x + r.max.x), f64::from(r.min.y + r.max.y));
        let at = |r: usize| -> Option<(f64, f64)> {
            if r == room {
                Some(centre(self.rect_of(c.shape, c.pos)))
            } else {
                st.placed[r].map(|(s, p)| centre(self.rect_of(s, p)))
            }
        };
        // Round `u`: its placed neighbours (and `room`) sorted by angle must follow the
        // rotation cyclically.
        let ok_round = |u: usize| -> bool {
            let Some(o) = at(u) else { return true };
            let mut items: Vec<(f64, usize)> = rot[u]
                .iter()
                .enumerate()
                .filter_map(|(k, &w)| at(w).map(|q| ((q.1 - o.1).atan2(q.0 - o.0), k)))
                .collect();
            if items.len() < 3 {
                return true;
            }
            items.sort_by(|a, b| a.0.total_cmp(&b.0));
            let n = items.len();
            (0..n)
                .filter(|&i| items[i].1 > items[(i + 1) % n].1)
                .count()
                <= 1
        };
        if !ok_round(room) {
            return false;
        }
        rot[room]
            .iter()
            .all(|&u| st.placed[u].is_none() || ok_round(u))
    }

    /// Experimental (issue 22): drop every candidate that breaks the cyclic order of
    /// neighbours round a room given by `rotation` (per room, its neighbours in the order a
    /// planar drawing puts them round it, by the angle between box centres; a neighbour left
    /// out is not looked at). The room-by-room search keeps the order round every room; the
    /// annealing fallback is not used; the parts of a big level keep it within each part
    /// (a part may be mirrored when fitted, which reverses the order within it). Not a stable
    /// interface.
    ///
    /// # Errors
    /// [`LayoutError::BadRotation`] naming the room, if `rotation` has not one row per room
    /// or a row lists a room that is not linked to its room.
    #[doc(hidden)]
    pub fn with_rotation(mut self, rotation: Vec<Vec<usize>>) -> Result<Planner, LayoutError> {
        let n = self.problem.rooms.len();
        if rotation.len() != n {
            return Err(LayoutError::BadRotation {
                room: self.room_label(rotation.len().min(n)),
                reason: format!("is missing or extra: {} rows for {n} rooms", rotation.len()),
            });
        }
        for (u, row) in rotation.iter().enumerate() {
            if let Some(&w) = row
                .iter()
                .find(|&&w| !self.adj[u].iter().any(|&(nb, _)| nb == w))
            {
                return Err(LayoutError::BadRotation {
                    room: self.room_label(u),
                    reason: format!("lists `{}`, which is not linked to it", self.room_label(w)),
                });
            }
        }
        self.rotation = Some(Arc::new(rotation));
        if self.parts.is_some() {
            self.parts = self.cut_into_parts(0);
            self.merged_parts = std::sync::OnceLock::new();
        }
        Ok(self)
    }

    /// Experimental (issue 22): the search may place each room of `pins` (room, lower-left
    /// corner of its box, width, height) only there, as the one shape of the room's
    /// templates with that box (rectangles); the other rooms are searched as usual, and
    /// corridors are routed as usual. For asking whether a layout with some rooms where a
    /// person drew them exists. `None` if a room has no shape of that size. Annealing (where
    /// the search fails) keeps them where pinned too. Not a stable interface.
    #[doc(hidden)]
    pub fn with_pins(mut self, pins: &[(usize, Point, i32, i32)]) -> Option<Planner> {
        let mut at: Vec<Option<super::Pin>> = vec![None; self.problem.rooms.len()];
        for &(r, min, w, h) in pins {
            let s = self.room_shapes.get(r)?.iter().find_map(|&(s, _)| {
                let m = &self.set.shapes[s as usize].mask;
                (m.width == w && m.height == h).then_some(s)
            })?;
            at[r] = Some((s, min));
        }
        self.pins = Some(Arc::new(at));
        Some(self)
    }

    /// A frame for step `i`: a step that pulls gets every candidate at once (sorted); any other
    /// gets one shape's candidates at a time.
    pub(super) fn frame<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        st: &State,
        i: usize,
        corridors: usize,
    ) -> Frame {
        let all_at_once = self.steps[i].pull || i == 0;
        let (cands, shapes_left) = self.shape_order(rng, st, i, |rng, shapes| {
            if all_at_once {
                (self.candidates(rng, st, i, shapes), ShapesLeft::new(&[]))
            } else {
                // The first shape's candidates now, the others' later.
                let (first, rest) = shapes.split_first().expect("rooms have shapes");
                (
                    self.candidates(rng, st, i, &[*first]),
                    ShapesLeft::new(rest),
                )
            }
        });
        Frame {
            cands,
            shapes_left,
            next: 0,
            failures: 0,
            corridors,
            extra: Vec::new(),
            rerouted: Vec::new(),
            conflict: Vec::new(),
        }
    }

    /// The sorted offsets (from the neighbour) at which shape `s` meets neighbour `nb` over
    /// edge `e`, and the neighbour's position.
    pub(super) fn offsets(&self, st: &State, s: u32, nb: usize, e: Edge) -> (&[Point], Point) {
        let (ns, np) = st.placed[nb].expect("earlier rooms are placed");
        let list: &[Point] = match e {
            Edge::Link(l) => self
                .set
                .space_at(ns, s, self.problem.links[l].from == nb)
                .map_or(&[], |v| &v.offsets),
            Edge::Via(k) => {
                let v = self.via[k].expect("via");
                self.compound_at(ns, s, v.class, nb == v.a)
                    .map_or(&[], |c| &c.offsets)
            }
        };
        (list, np)
    }

    /// Positions in the first list that are also in all the others, in the first list's
    /// order.
    pub(super) fn meet(lists: &[(&[Point], Point)], mut found: impl FnMut(Point)) {
        let Some((&(first, p0), rest)) = lists.split_first() else {
            return;
        };
        match rest {
            [] => first.iter().for_each(|&o| found(o + p0)),
            // One other list of a size like the first's (the usual case: a room closing a
            // loop between two neighbours): both are sorted, and moving a list keeps its
            // order, so the two are walked side by side.
            [(other, q)] if other.len() <= 8 * first.len() => {
                let shift = p0 - *q;
                let mut k = 0;
                for &o in first {
                    let want = o + shift;
                    while k < other.len() && other[k] < want {
                        k += 1;
                    }
                    if k == other.len() {
                        break;
                    }
                    if other[k] == want {
                        found(o + p0);
                    }
                }
            }
            _ => {
                for &o in first {
                    let p = o + p0;
                    if rest.iter().all(|&(l, q)| l.binary_search(&(p - q)).is_ok()) {
                        found(p);
                    }
                }
            }
        }
    }

    /// Positions of shape `s` for a step: first those where every contact-capable link is
    /// realised by contact, then those where the optional ones are left to corridors.
    /// `shapes_left` counts the shapes whose positions still go to `out`, this one included.
    pub(super) fn positions(
        &self,
        st: &State,
        step: &Step,
        s: u32,
        shapes_left: usize,
        out: &mut Vec<Cand>,
        fallback: &mut Vec<Cand>,
    ) {
        let links = &self.problem.links;
        let kind = |e: Edge| match e {
            Edge::Via(_) => 0,
            Edge::Link(l) => match links[l].realise {
                Realise::Contact => 0,
                Realise::ContactOrPath { .. } => 1,
                Realise::Path { .. } => 2,
            },
        };
        // The neighbours' lists: those that must be met by contact first, then the optional
        // ones.
        // (On the stack for the few neighbours a room has.)
        let empty: (&[Point], Point) = (&[], Point::default());
        let mut inline = [empty; 8];
        let mut spill = Vec::new();
        let slots: &mut [(&[Point], Point)] = if step.earlier.len() <= inline.len() {
            &mut inline[..]
        } else {
            spill.resize(step.earlier.len(), empty);
            &mut spill[..]
        };
        let mut len = 0;
        for &(nb, e) in &step.earlier {
            if kind(e) == 0 {
                slots[len] = self.offsets(st, s, nb, e);
                len += 1;
            }
        }
        let mandatory = len;
        let mut first_optional = None;
        for &(nb, e) in &step.earlier {
            if kind(e) == 1 {
                first_optional.get_or_insert((nb, e));
                slots[len] = self.offsets(st, s, nb, e);
                len += 1;
            }
        }
        let lists = &slots[..len];
        if lists.is_empty() {
            // Only corridor links: stand off from the first neighbour's contact positions.
            let mut pts: Vec<Point> = Vec::new();
            self.standoff(st, s, step.earlier[0], &mut pts);
            fallback.extend(pts.into_iter().map(|pos| Cand { shape: s, pos }));
            return;
        }
        let start = out.len();
        // Room for this shape's positions and as many for each shape still to come (shapes of
        // one room have like numbers of positions): one allocation for the whole list.
        out.reserve(lists[0].0.len() * shapes_left);
        Self::meet(lists, |pos| out.push(Cand { shape: s, pos }));
        if mandatory == lists.len() {
            return;
        }
        if mandatory == 0 {
            // Contact positions with the optional neighbour failed: stand off for a corridor.
            if let Some(first) = first_optional {
                let mut rest: Vec<Point> = Vec::new();
                self.standoff(st, s, first, &mut rest);
                fallback.extend(rest.into_iter().map(|pos| Cand { shape: s, pos }));
            }
        } else {
            // The contact positions are in order (the first list's), so they can be searched.
            let met = &out[start..];
            Self::meet(&lists[..mandatory], |pos| {
                if met.binary_search_by_key(&pos, |c| c.pos).is_err() {
                    fallback.push(Cand { shape: s, pos });
                }
            });
        }
    }

    /// Positions that leave room for a corridor to one neighbour: its contact positions moved
    /// out through the door by a few corridor lengths.
    pub(super) fn standoff(
        &self,
        st: &State,
        s: u32,
        (nb, e): (usize, Edge),
        out: &mut Vec<Point>,
    ) {
        let Edge::Link(l) = e else { return };
        let (ns, np) = st.placed[nb].expect("earlier rooms are placed");
        let (lo, hi) = self.problem.links[l]
            .realise
            .path_bounds()
            .unwrap_or((4, 30));
        let shape = &self.set.shapes[ns as usize];
        let from = self.problem.links[l].from == nb;
        if let Some(space) = self.set.space_at(ns, s, from) {
            for o in &space.offsets {
                let Some(d) = self.set.doors_at(ns, s, from, *o) else {
                    continue;
                };
                let f = shape.doors[d.0 as usize].facing.step();
                for g in [lo.max(3), (lo + hi) / 3, (lo + hi) / 2] {
                    let g = (g as i32).max(2);
                    out.push(*o + np + Point::new(f.x * g, f.y * g));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

/// The candidates in order of score, those of one score in the order given (a stable sort),
/// written to `out` (empty): a counting sort where the scores span a short range, as they do
/// (gaps to a few targets).
fn by_score(mut scored: Vec<(u32, Cand)>, out: &mut Vec<Cand>) {
    let Some(lo) = scored.iter().map(|&(s, _)| s).min() else {
        return;
    };
    let hi = scored.iter().map(|&(s, _)| s).max().unwrap_or(lo);
    let span = (hi - lo) as usize + 1;
    if span > 4 * scored.len() + 64 {
        scored.sort_by_key(|&(s, _)| s);
        out.extend(scored.iter().map(|&(_, c)| c));
        return;
    }
    // Where each score's run starts in the output (on the stack for a short span).
    let mut inline = [0usize; 128];
    let mut spill: Vec<usize>;
    let start: &mut [usize] = if span < inline.len() {
        &mut inline[..=span]
    } else {
        spill = vec![0usize; span + 1];
        &mut spill
    };
    for &(s, _) in &scored {
        start[(s - lo) as usize + 1] += 1;
    }
    for k in 1..=span {
        start[k] += start[k - 1];
    }
    out.resize(
        scored.len(),
        Cand {
            shape: 0,
            pos: Point::default(),
        },
    );
    for &(s, c) in &scored {
        let at = &mut start[(s - lo) as usize];
        out[*at] = c;
        *at += 1;
    }
}

impl Planner {
    /// Experimental (issue 22): a rotation for [`Planner::with_rotation`] from a plane drawing
    /// of the level in which the rooms that pieces hang off (beyond a bridge) share one face
    /// as far as a drawing allows, heaviest pieces first, and each piece leaves its room into
    /// that face; `None` if the level is not planar. Not a stable interface.
    #[doc(hidden)]
    pub fn heavy_outside_rotation(&self) -> Option<Vec<Vec<usize>>> {
        let n = self.problem.rooms.len();
        let links = &self.problem.links;
        let bridge = crate::graph::bridge_flags(&self.adj, links.len());
        let edges: Vec<(usize, usize)> = links.iter().map(|l| (l.from, l.to)).collect();
        // Rooms beyond each bridge, seen from either end.
        let tree = crate::graph::BridgeTree::new(&self.adj, &bridge);
        let on_loop: Vec<bool> = (0..n)
            .map(|r| self.adj[r].iter().any(|&(_, l)| !bridge[l]))
            .collect();
        let mut hanging: Vec<(usize, usize)> = Vec::new();
        for (l, k) in links.iter().enumerate() {
            if !bridge[l] {
                continue;
            }
            for (end, other) in [(k.from, k.to), (k.to, k.from)] {
                if on_loop[end] {
                    hanging.push((tree.beyond(end, other), end));
                }
            }
        }
        hanging.sort_by_key(|&(w, r)| (std::cmp::Reverse(w), r));
        let apex = n;
        let mut with_apex = edges;
        let mut order: Vec<usize> = Vec::with_capacity(hanging.len());
        for &(_, r) in &hanging {
            if !order.contains(&r) {
                order.push(r);
            }
        }
        crate::graph::join_apex_while_planar(apex, &mut with_apex, &order);
        let rot = crate::graph::rotation_system(n + 1, &with_apex)?;
        let is_bridge_to =
            |r: usize, w: usize| self.adj[r].iter().any(|&(y, l)| y == w && bridge[l]);
        Some(
            (0..n)
                .map(|r| {
                    let row = &rot[r];
                    let bridged: Vec<usize> = row
                        .iter()
                        .copied()
                        .filter(|&w| w != apex && is_bridge_to(r, w))
                        .collect();
                    let Some(at) = row.iter().position(|&w| w == apex) else {
                        return row.clone();
                    };
                    // Start just after the apex, so its bridges go where it was (at the end).
                    let m = row.len();
                    let mut out: Vec<usize> = (1..m)
                        .map(|t| row[(at + t) % m])
                        .filter(|&w| !bridged.contains(&w))
                        .collect();
                    out.extend(bridged);
                    out
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{Cand, Point, by_score};
    use crate::layout::plan::Planner;

    /// Meeting lists (walked side by side or searched) gives the positions of the first list
    /// that every other list holds, in the first list's order, as a brute-force check does.
    #[test]
    fn met_positions_are_those_in_every_list() {
        let mut rng = crate::seed::stream(9, "test");
        let mut list = |n: u64| {
            let mut v: Vec<Point> = (0..crate::seed::below(&mut rng, n))
                .map(|_| {
                    Point::new(
                        crate::seed::below(&mut rng, 9) as i32 - 4,
                        crate::seed::below(&mut rng, 9) as i32 - 4,
                    )
                })
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        for case in 0..300u64 {
            let lists: Vec<(Vec<Point>, Point)> = (0..1 + case % 4)
                .map(|k| {
                    let n = if k == 1 && case % 5 == 0 { 3 } else { 60 };
                    (
                        list(n),
                        Point::new((case % 3) as i32 - 1, (case % 2) as i32),
                    )
                })
                .collect();
            let refs: Vec<(&[Point], Point)> = lists.iter().map(|(l, p)| (&l[..], *p)).collect();
            let mut got = Vec::new();
            Planner::meet(&refs, |p| got.push(p));
            let want: Vec<Point> = lists[0]
                .0
                .iter()
                .map(|&o| o + lists[0].1)
                .filter(|&p| lists[1..].iter().all(|(l, q)| l.contains(&(p - *q))))
                .collect();
            assert_eq!(got, want, "case {case}");
        }
    }

    /// The counting sort gives what a stable sort by score gives, on narrow and wide spans.
    #[test]
    fn candidates_by_score_are_stably_sorted() {
        let mut rng = crate::seed::stream(5, "test");
        for case in 0..200u32 {
            let n = (case % 37) as usize;
            let wide = case % 3 == 0;
            let scored: Vec<(u32, Cand)> = (0..n)
                .map(|k| {
                    let s = if wide {
                        crate::seed::below(&mut rng, 1_000_000) as u32
                    } else {
                        100 + crate::seed::below(&mut rng, 9) as u32
                    };
                    let pos = Point::new(k as i32, 0);
                    (
                        s,
                        Cand {
                            shape: k as u32,
                            pos,
                        },
                    )
                })
                .collect();
            let mut want = scored.clone();
            want.sort_by_key(|&(s, _)| s);
            let mut got = vec![
                Cand {
                    shape: 99,
                    pos: Point::default()
                };
                3
            ];
            got.clear();
            by_score(scored, &mut got);
            assert_eq!(got.len(), want.len());
            for (g, (_, w)) in got.iter().zip(&want) {
                assert_eq!((g.shape, g.pos), (w.shape, w.pos), "case {case}");
            }
        }
    }

    /// Three paths between rooms 0 and 1 (through 2, 3 and 4), with three rooms hanging off
    /// 2, one off 3 and two off 4: the rotation puts the pieces of 2 and 4 in one face, which
    /// holds both rooms (the outside of the drawing), and the lightest piece, off 3, in
    /// another; the planner takes it.
    #[test]
    fn heavy_pieces_share_a_face() {
        use crate::layout::{LayoutProblem, LinkSpec, Realise, RoomSpec, RoomTemplate};
        let mut p = LayoutProblem::new(vec![RoomTemplate::rectangle("room", 6, 6, 1)]);
        for i in 0..11 {
            p.rooms.push(RoomSpec::new(&format!("r{i}"), vec![0]));
        }
        let loose = Realise::ContactOrPath { min: 4, max: 30 };
        for m in [2, 3, 4] {
            p.links.push(LinkSpec::new(0, m, loose));
            p.links.push(LinkSpec::new(m, 1, loose));
        }
        for (a, b) in [(2, 5), (5, 6), (6, 7), (3, 8), (4, 9), (9, 10)] {
            p.links.push(LinkSpec::new(a, b, Realise::Contact));
        }
        let planner = Planner::new(p).unwrap();
        let rot = planner.heavy_outside_rotation().unwrap();
        let faces = crate::graph::faces(&rot);
        let outer = faces
            .iter()
            .find(|f| [2, 4, 5, 9].iter().all(|r| f.contains(r)))
            .expect("a face with both heavy pieces");
        assert!(!outer.contains(&8) && !outer.contains(&3), "{outer:?}");
        assert!(planner.with_rotation(rot).is_ok());
    }

    /// Pinned rooms are laid out exactly where pinned (the others searched round them), a
    /// pin on a position its neighbour cannot touch leaves no layout, and a pin of a size no
    /// template has is refused.
    #[test]
    fn pinned_rooms_stay_where_pinned() {
        use crate::layout::{LayoutProblem, LinkSpec, Realise, RoomSpec, RoomTemplate};
        let mut p = LayoutProblem::new(vec![
            RoomTemplate::rectangle("room", 6, 6, 1),
            RoomTemplate::rectangle("long", 5, 9, 1),
        ]);
        for i in 0..4 {
            p.rooms.push(RoomSpec::new(&format!("r{i}"), vec![0, 1]));
        }
        for i in 0..3 {
            p.links.push(LinkSpec::new(i, i + 1, Realise::Contact));
        }
        p.budget.retry = crate::layout::RetryPolicy::Attempts(5);
        let planner = Planner::new(p).unwrap();
        // r0 a square at the origin, r2 a standing long room two squares to its right: r1
        // must fill the gap between them, r3 hangs off r2.
        let pins = [(0, Point::new(0, 0), 6, 6), (2, Point::new(12, -1), 5, 9)];
        let pinned = planner.clone().with_pins(&pins).unwrap();
        for seed in 0..3 {
            let layout = pinned.layout(seed).unwrap();
            assert_eq!(pinned.check(&layout), Ok(()));
            // Boxes as pinned, up to where the layout puts its origin.
            let box_of = |r: usize| {
                let room = &layout.rooms[r];
                let hi = room.outline.iter().fold(room.min, |a, &b| a.max_each(b));
                (room.min, hi.x - room.min.x, hi.y - room.min.y)
            };
            let shift = box_of(0).0 - pins[0].1;
            for &(r, min, w, h) in &pins {
                assert_eq!(box_of(r), (min + shift, w, h), "seed {seed}, room {r}");
            }
        }
        // Far apart, no room between them can touch both.
        let far = [(0, Point::new(0, 0), 6, 6), (2, Point::new(40, 0), 6, 6)];
        assert!(planner.clone().with_pins(&far).unwrap().layout(0).is_err());
        assert!(planner.with_pins(&[(1, Point::new(0, 0), 7, 7)]).is_none());
    }
}
