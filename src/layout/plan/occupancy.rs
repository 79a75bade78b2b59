//! Occupancy: what the placed rooms cover (an `rstar` broad phase and cell masks), minimum
//! distance, and the shut-in tests that keep room for rooms still to come.

use super::*;
use rstar::{Envelope, RTreeObject};
use std::ops::ControlFlow;

/// The most corridors a new room may cover and have routed again round it.
const GIVE_WAY: usize = 2;

/// Corridors routed again round a room just placed: their numbers and their routes before.
pub(super) type Rerouted = Vec<(usize, Corridor)>;

/// The corridors a candidate covers (by number), as many as may give way ([`GIVE_WAY`]); on
/// the stack, since [`Planner::try_place`] asks for them at every candidate.
#[derive(Default)]
pub(super) struct Covered {
    len: usize,
    corridors: [usize; GIVE_WAY],
}

impl Covered {
    fn as_slice(&self) -> &[usize] {
        &self.corridors[..self.len]
    }
}

impl Planner {
    pub(super) fn rect_of(&self, shape: u32, pos: Point) -> Rect {
        let m = &self.set.shapes[shape as usize].mask;
        Rect {
            min: pos,
            max: pos + Point::new(m.width, m.height),
        }
    }

    pub(super) fn linked(&self, a: usize, b: usize) -> bool {
        self.adj[a].iter().any(|&(nb, _)| nb == b)
    }

    pub(super) fn entry(&self, shape: u32, pos: Point, id: u32) -> Entry {
        box_entry(self.rect_of(shape, pos), id)
    }

    /// Whether `room` with `shape` at `pos` collides with anything placed (or comes too close
    /// to a room it is not linked to).
    pub(super) fn collides(
        &self,
        st: &State,
        room: usize,
        shape_id: u32,
        pos: Point,
    ) -> Option<usize> {
        self.collides_but(st, room, shape_id, pos, None)
    }

    /// [`Planner::collides`]; with `corridors`, the corridors the room covers are listed there
    /// instead of counting as collisions, up to [`GIVE_WAY`] of them (one more is a
    /// collision).
    #[inline]
    pub(super) fn collides_but(
        &self,
        st: &State,
        room: usize,
        shape_id: u32,
        pos: Point,
        mut corridors: Option<&mut Covered>,
    ) -> Option<usize> {
        let shape = &self.set.shapes[shape_id as usize];
        let rect = self.rect_of(shape_id, pos);
        let d = self.problem.min_distance as i32;
        let env = AABB::from_corners(
            [rect.min.x - d, rect.min.y - d],
            [rect.max.x - 1 + d, rect.max.y - 1 + d],
        );
        let nrooms = st.placed.len() as u32;
        let hit = entries_meeting(&st.index, &env, |e| {
            let id = e.data;
            if id < nrooms {
                let q = id as usize;
                if q == room {
                    return ControlFlow::Continue(());
                }
                let Some((qs, qp)) = st.placed[q] else {
                    return ControlFlow::Continue(());
                };
                let other = &self.set.shapes[qs as usize];
                if overlap(shape, pos, other, qp) {
                    return ControlFlow::Break(q);
                }
                if d > 0 && !self.linked(room, q) && !gap_at_least(shape, pos, other, qp, d as u32)
                {
                    return ControlFlow::Break(q);
                }
            } else {
                let k = (id - nrooms) as usize;
                let cor = &st.corridors[k];
                if cor
                    .occupied
                    .iter()
                    .any(|&p| shape.mask.inside(p.x - pos.x, p.y - pos.y))
                {
                    match corridors.as_deref_mut() {
                        Some(list) if list.len < GIVE_WAY => {
                            list.corridors[list.len] = k;
                            list.len += 1;
                        }
                        _ => return ControlFlow::Break(cor.from_room),
                    }
                }
            }
            ControlFlow::Continue(())
        });
        match hit {
            ControlFlow::Break(q) => Some(q),
            ControlFlow::Continue(()) => None,
        }
    }

    /// Places candidate `c` for step `i` if it fits, with the corridor rooms and corridors its
    /// edges need; returns the corridor rooms placed and the corridors routed again round the
    /// room (for [`Planner::unplace`] to undo). Errors: the code (1 = it collides, 2 = a
    /// corridor could not be routed) and the room it collided with, if one is known.
    pub(super) fn try_place(
        &self,
        st: &mut State,
        i: usize,
        c: Cand,
        keep: usize,
    ) -> Result<(Vec<usize>, Rerouted), (u8, Option<usize>)> {
        let step = &self.steps[i];
        let room = step.room;
        // Corridors the room would cover are routed again round it (at most a few, and only
        // where the planner lets corridors give way): a corridor routed early takes the
        // shortest way, often through the space a loop must keep for rooms still to come.
        let mut covered = Covered::default();
        let hit = if self.give_way && !st.corridors.is_empty() {
            self.collides_but(st, room, c.shape, c.pos, Some(&mut covered))
        } else {
            self.collides(st, room, c.shape, c.pos)
        };
        if let Some(q) = hit {
            return Err((1, Some(q)));
        }
        let covered = covered.as_slice();
        // Which links need a corridor; which corridor rooms to place.
        let mut routes: Vec<(usize, usize)> = Vec::new();
        let mut vias: Vec<(usize, usize, u32)> = Vec::new();
        for &(nb, e) in &step.earlier {
            let (ns, np) = st.placed[nb].expect("earlier rooms are placed");
            match e {
                Edge::Link(l) => {
                    let link = self.problem.links[l];
                    let contact = link.realise.contact_allowed()
                        && self.meets(ns, c.shape, link.from == nb, c.pos - np);
                    match link.realise {
                        Realise::Contact if !contact => return Err((1, None)),
                        Realise::Contact => {}
                        _ if contact => {}
                        _ => routes.push((nb, l)),
                    }
                }
                Edge::Via(k) => {
                    let v = self.via[k].expect("via edges come from via rooms");
                    let Some(comp) = self.compound_at(ns, c.shape, v.class, nb == v.a) else {
                        return Err((1, None));
                    };
                    if comp.offsets.binary_search(&(c.pos - np)).is_err() {
                        return Err((1, None));
                    }
                    vias.push((k, nb, ns));
                }
            }
        }
        st.placed[room] = Some((c.shape, c.pos));
        st.index.insert(self.entry(c.shape, c.pos, room as u32));
        let mut rerouted: Rerouted = Vec::new();
        for &k in covered {
            match self.reroute(st, k) {
                Some(old) => rerouted.push((k, old)),
                None => {
                    let from = st.corridors[k].from_room;
                    self.unplace(st, room, keep, &[], &rerouted);
                    return Err((1, Some(from)));
                }
            }
        }
        let mut extra: Vec<usize> = Vec::new();
        for (k, nb, ns) in vias {
            let v = self.via[k].expect("via");
            let np = st.placed[nb].expect("placed").1;
            let alts = self.compound_alts((ns, c.shape, v.class, nb == v.a), c.pos - np);
            let fit = alts
                .into_iter()
                .find(|&(sc, o1)| self.collides(st, k, sc, np + o1).is_none());
            match fit {
                Some((sc, o1)) => {
                    st.placed[k] = Some((sc, np + o1));
                    st.index.insert(self.entry(sc, np + o1, k as u32));
                    extra.push(k);
                }
                None => {
                    self.unplace(st, room, keep, &extra, &rerouted);
                    return Err((1, None));
                }
            }
        }
        for (nb, l) in routes {
            match self.route(st, l, room, nb) {
                Some(cor) => st.push_corridor(cor),
                None => {
                    self.unplace(st, room, keep, &extra, &rerouted);
                    return Err((2, None));
                }
            }
        }
        // An ear closed: the rooms it was to leave outside must still reach the outside.
        if self.steps[i]
            .keep_out
            .iter()
            .any(|&q| !self.reaches_out(st, q))
        {
            self.unplace(st, room, keep, &extra, &rerouted);
            return Err((1, None));
        }
        // Forward check: no placed room near what was just placed may be left without a free
        // spot for a neighbour it must still touch.
        if self.big
            && let Some(q) = self.shut_in(st, room, keep)
        {
            self.unplace(st, room, keep, &extra, &rerouted);
            return Err((1, Some(q)));
        }
        Ok((extra, rerouted))
    }

    /// Whether placed room `q` still has free cells beside it that lead [`OPEN_REACH`] cells
    /// away from it (out of what is placed, or into a space big enough for what must still
    /// hang off it): a flood fill over the cells round it.
    pub(super) fn reaches_out(&self, st: &State, q: usize) -> bool {
        let Some((qs, qp)) = st.placed[q] else {
            return true;
        };
        let r = self.rect_of(qs, qp);
        let min = Point::new(r.min.x - OPEN_REACH, r.min.y - OPEN_REACH);
        let max = Point::new(r.max.x + OPEN_REACH, r.max.y + OPEN_REACH);
        self.open_to_edge(st, q, min, max)
    }

    /// Whether the free cells round placed room `q` lead to the edge of the window from `min`
    /// to `max` (exclusive), which must hold the room with a cell to spare on every side.
    pub(super) fn open_to_edge(&self, st: &State, q: usize, min: Point, max: Point) -> bool {
        let Some((qs, qp)) = st.placed[q] else {
            return true;
        };
        self.ray_out(st, qs, qp, min, max) || self.flood_to_edge(st, qs, qp, min, max)
    }

    /// [`Planner::open_to_edge`] for room shape `qs` at `qp`, by a flood fill of the window's
    /// free cells.
    fn flood_to_edge(&self, st: &State, qs: u32, qp: Point, min: Point, max: Point) -> bool {
        let w = max.x - min.x;
        let mut seen = corridor::Occupancy::solid_window(&Placed { planner: self, st }, min, max);
        let at = |x: i32, y: i32| ((y - min.y) * w + (x - min.x)) as usize;
        // Start from the free cells just outside the room's mask.
        let mask = &self.set.shapes[qs as usize].mask;
        let mut stack: Vec<(i32, i32)> = Vec::new();
        let steps = [(1, 0), (-1, 0), (0, 1), (0, -1)];
        outside_cells(mask, |x, y| {
            let (cx, cy) = (qp.x + x, qp.y + y);
            if !seen[at(cx, cy)] {
                seen[at(cx, cy)] = true;
                stack.push((cx, cy));
            }
        });
        while let Some((x, y)) = stack.pop() {
            if x == min.x || y == min.y || x == max.x - 1 || y == max.y - 1 {
                return true;
            }
            for (dx, dy) in steps {
                let (nx, ny) = (x + dx, y + dy);
                if !seen[at(nx, ny)] {
                    seen[at(nx, ny)] = true;
                    stack.push((nx, ny));
                }
            }
        }
        false
    }

    /// Whether a straight run of free cells leads from beside room `qs` at `qp` to the edge
    /// of the window from `min` to `max` (exclusive), one run tried from the middle of each
    /// side: a way out that the flood fill of [`Planner::open_to_edge`] would find too, found
    /// without filling the window. A run counts as free when no box in the index meets it.
    fn ray_out(&self, st: &State, qs: u32, qp: Point, min: Point, max: Point) -> bool {
        let m = &self.set.shapes[qs as usize].mask;
        // The cell of a side nearest its middle that the mask fills (its edge row or column).
        let middle = |len: i32, filled: &dyn Fn(i32) -> bool| {
            (0..len)
                .map(|k| len / 2 + if k % 2 == 0 { k / 2 } else { -(k / 2) - 1 })
                .find(|&k| (0..len).contains(&k) && filled(k))
        };
        let (w, h) = (m.width, m.height);
        let mut runs: [Option<([i32; 2], [i32; 2])>; 4] = [None; 4];
        if let Some(y) = middle(h, &|y| m.inside(w - 1, y)) {
            runs[0] = Some(([qp.x + w, qp.y + y], [max.x - 1, qp.y + y]));
        }
        if let Some(y) = middle(h, &|y| m.inside(0, y)) {
            runs[1] = Some(([min.x, qp.y + y], [qp.x - 1, qp.y + y]));
        }
        if let Some(x) = middle(w, &|x| m.inside(x, h - 1)) {
            runs[2] = Some(([qp.x + x, qp.y + h], [qp.x + x, max.y - 1]));
        }
        if let Some(x) = middle(w, &|x| m.inside(x, 0)) {
            runs[3] = Some(([qp.x + x, min.y], [qp.x + x, qp.y - 1]));
        }
        runs.into_iter().flatten().any(|(a, b)| {
            a[0] <= b[0]
                && a[1] <= b[1]
                && st
                    .index
                    .locate_in_envelope_intersecting(AABB::from_corners(a, b))
                    .next()
                    .is_none()
        })
    }

    /// A placed room near `room` (or `room` itself, or near a corridor routed since `keep`)
    /// that can no longer reach one of its unplaced neighbours (see `room_to_spare`).
    pub(super) fn shut_in(&self, st: &mut State, room: usize, keep: usize) -> Option<usize> {
        let nrooms = st.placed.len() as u32;
        let (s, p) = st.placed[room]?;
        let mut areas = vec![self.rect_of(s, p)];
        areas.extend(st.corridors[keep..].iter().map(|c| c.rect));
        let m = self.span;
        let mut near: Vec<usize> = vec![room];
        for r in areas {
            let env = AABB::from_corners(
                [r.min.x - m, r.min.y - m],
                [r.max.x - 1 + m, r.max.y - 1 + m],
            );
            near.extend(
                st.index
                    .locate_in_envelope_intersecting(env)
                    .filter(|e| e.data < nrooms)
                    .map(|e| e.data as usize),
            );
        }
        near.sort_unstable();
        near.dedup();
        near.into_iter().find(|&q| !self.room_to_spare(st, q))
    }

    /// Whether placed room `q` has a door link `l` may use with a free cell in front of it.
    pub(super) fn free_door(&self, st: &State, q: usize, l: usize) -> bool {
        let Some((qs, qp)) = st.placed[q] else {
            return true;
        };
        let shape = &self.set.shapes[qs as usize];
        let is_from = self.problem.links[l].from == q;
        shape
            .doors
            .iter()
            .filter(|d| d.kind.allows(is_from))
            .any(|d| {
                let c = corridor::outside_cell(d.a + qp, d.b + qp, d.facing);
                let nrooms = st.placed.len();
                !st.index.locate_all_at_point([c.x, c.y]).any(|e| {
                    let id = e.data as usize;
                    if id < nrooms {
                        st.placed[id].is_some_and(|(s, p)| {
                            self.set.shapes[s as usize]
                                .mask
                                .inside(c.x - p.x, c.y - p.y)
                        })
                    } else {
                        st.corridors[id - nrooms].occupied.binary_search(&c).is_ok()
                    }
                })
            })
    }

    /// Whether every unplaced neighbour of placed room `q` can still be reached: one that must
    /// touch it has a free position beside it (the last one found for each link is tried
    /// first); one a corridor may join has a door with a free cell in front of it.
    pub(super) fn room_to_spare(&self, st: &mut State, q: usize) -> bool {
        let Some((qs, qp)) = st.placed[q] else {
            return true;
        };
        // What lies around `q` (rooms and corridor cells), gathered when first needed.
        type Around = (Vec<(u32, Point)>, Vec<Point>);
        let mut around: Option<Around> = None;
        for &(u, l) in &self.adj[q] {
            let link = self.problem.links[l];
            if st.placed[u].is_some() || self.via[u].is_some() {
                continue;
            }
            if link.realise != Realise::Contact {
                // A corridor needs a door of `q` with a free cell in front of it.
                if !self.free_door(st, q, l) {
                    return false;
                }
                continue;
            }
            if let Some((us, at)) = st.witness[l]
                && self.room_shapes[u].iter().any(|&(s, _)| s == us)
                && self
                    .set
                    .space_at(qs, us, link.from == q)
                    .is_some_and(|sp| sp.offsets.binary_search(&(at - qp)).is_ok())
                && self.collides(st, u, us, at).is_none()
            {
                continue;
            }
            let (rooms, cells) = around.get_or_insert_with(|| {
                let qr = self.rect_of(qs, qp);
                let m = self.span;
                let env = AABB::from_corners(
                    [qr.min.x - m, qr.min.y - m],
                    [qr.max.x - 1 + m, qr.max.y - 1 + m],
                );
                let nrooms = st.placed.len() as u32;
                let mut rooms: Vec<(u32, Point)> = Vec::new();
                let mut cells: Vec<Point> = Vec::new();
                for e in st.index.locate_in_envelope_intersecting(env) {
                    if e.data < nrooms {
                        rooms.extend(st.placed[e.data as usize]);
                    } else {
                        cells.extend(&st.corridors[(e.data - nrooms) as usize].occupied);
                    }
                }
                (rooms, cells)
            });
            let found = self.room_shapes[u].iter().find_map(|&(us, _)| {
                let sp = self.set.space_at(qs, us, link.from == q)?;
                let shape = &self.set.shapes[us as usize];
                sp.offsets
                    .iter()
                    .find(|&&o| {
                        let at = qp + o;
                        !rooms
                            .iter()
                            .any(|&(os, op)| overlap(shape, at, &self.set.shapes[os as usize], op))
                            && !cells
                                .iter()
                                .any(|&c| shape.mask.inside(c.x - at.x, c.y - at.y))
                    })
                    .map(|&o| (us, qp + o))
            });
            match found {
                Some(w) => st.witness[l] = Some(w),
                None => return false,
            }
        }
        true
    }

    pub(super) fn unplace(
        &self,
        st: &mut State,
        room: usize,
        keep_corridors: usize,
        extra: &[usize],
        rerouted: &[(usize, Corridor)],
    ) {
        let nrooms = st.placed.len() as u32;
        while st.corridors.len() > keep_corridors {
            let id = nrooms + st.corridors.len() as u32 - 1;
            let cor = st.corridors.pop().expect("len checked");
            st.index.remove(&box_entry(cor.rect, id));
        }
        // Corridors routed again round the room get their routes back, last first.
        for (k, old) in rerouted.iter().rev() {
            let id = nrooms + *k as u32;
            st.index.remove(&box_entry(st.corridors[*k].rect, id));
            st.index.insert(box_entry(old.rect, id));
            st.corridors[*k] = old.clone();
        }
        for &k in extra.iter().chain(std::iter::once(&room)) {
            if let Some((s, p)) = st.placed[k].take() {
                st.index.remove(&self.entry(s, p, k as u32));
            }
        }
    }

    /// The shapes (with weights) `room` may take given the shapes other rooms have
    /// (`shape_of`, `None` for a room without one): those its repeat modes allow, or all of
    /// them if none is (the modes are soft). Corridor rooms ignore repeat modes, as in Edgar.
    pub(crate) fn repeat_allowed(
        &self,
        room: usize,
        shape_of: impl Fn(usize) -> Option<u32>,
    ) -> Vec<(u32, f64)> {
        let mut shapes = Vec::with_capacity(self.room_shapes[room].len());
        self.each_allowed(room, shape_of, |x| shapes.push(x));
        shapes
    }

    /// Calls `f` with each shape (and weight) of [`Planner::repeat_allowed`], in order.
    pub(crate) fn each_allowed(
        &self,
        room: usize,
        shape_of: impl Fn(usize) -> Option<u32>,
        mut f: impl FnMut((u32, f64)),
    ) {
        let template_of = |r: usize| shape_of(r).map(|s| self.set.shapes[s as usize].template);
        let used_here = |t: usize, neighbours_only: bool| {
            if neighbours_only {
                self.adj[room]
                    .iter()
                    .any(|&(nb, _)| template_of(nb) == Some(t))
            } else {
                (0..self.problem.rooms.len())
                    .any(|r| !self.problem.rooms[r].corridor && template_of(r) == Some(t))
            }
        };
        let corridor_room = self.problem.rooms[room].corridor;
        let mut any = false;
        for &(s, w) in self.room_shapes[room].iter() {
            let t = self.set.shapes[s as usize].template;
            let allowed = corridor_room
                || match self.repeat[t] {
                    RepeatMode::AllowRepeat => true,
                    RepeatMode::NoImmediate => !used_here(t, true),
                    RepeatMode::NoRepeat => !used_here(t, false),
                };
            if allowed {
                any = true;
                f((s, w));
            }
        }
        if !any {
            self.room_shapes[room].iter().for_each(|&x| f(x));
        }
    }
}

/// The placed rooms and corridors of a search state, as the corridor router sees them.
pub(super) struct Placed<'a> {
    pub(super) planner: &'a Planner,
    pub(super) st: &'a State,
}

/// Calls `f` with each entry of `index` whose box meets `env`, in the order
/// `RTree::locate_in_envelope_intersecting` yields them (depth first, each node's children
/// from last to first), until `f` breaks; without the iterator's stack of nodes, which costs
/// more than the search itself on the small queries of the collision test. (The order
/// matters: the first room found is the one a failed placement blames.)
pub(super) fn entries_meeting<B>(
    index: &rstar::RTree<super::Entry>,
    env: &AABB<[i32; 2]>,
    mut f: impl FnMut(&super::Entry) -> ControlFlow<B>,
) -> ControlFlow<B> {
    fn visit<B>(
        node: &rstar::ParentNode<super::Entry>,
        env: &AABB<[i32; 2]>,
        f: &mut impl FnMut(&super::Entry) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        for child in node.children().iter().rev() {
            match child {
                rstar::RTreeNode::Leaf(e) => {
                    if e.envelope().intersects(env) {
                        f(e)?;
                    }
                }
                rstar::RTreeNode::Parent(p) => {
                    if p.envelope().intersects(env) {
                        visit(p, env, f)?;
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }
    let root = index.root();
    if root.children().is_empty() || !root.envelope().intersects(env) {
        return ControlFlow::Continue(());
    }
    visit(root, env, &mut f)
}

/// Calls `f` with each cell outside `mask` that shares a side with a cell inside it (in the
/// mask's own coordinates, once each for a rectangle; a cell next to two inside cells of
/// another shape may come twice): for a rectangle, the ring round its box.
fn outside_cells(mask: &crate::layout::geom::Mask, mut f: impl FnMut(i32, i32)) {
    if mask.is_rect {
        for x in 0..mask.width {
            f(x, -1);
            f(x, mask.height);
        }
        for y in 0..mask.height {
            f(-1, y);
            f(mask.width, y);
        }
        return;
    }
    for y in 0..mask.height {
        for x in 0..mask.width {
            if !mask.inside(x, y) {
                continue;
            }
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                if !mask.inside(x + dx, y + dy) {
                    f(x + dx, y + dy);
                }
            }
        }
    }
}

impl Placed<'_> {
    /// Whether entry `e`, whose box holds cell `p`, covers it: a room's mask does, a
    /// corridor's box does.
    fn covers(&self, e: &super::Entry, p: Point) -> bool {
        match self.st.placed.get(e.data as usize).copied().flatten() {
            Some((s, q)) => self.planner.shape(s).mask.inside(p.x - q.x, p.y - q.y),
            None => true,
        }
    }
}

impl corridor::Occupancy for Placed<'_> {
    fn room_at(&self, p: Point) -> bool {
        self.st
            .index
            .locate_all_at_point([p.x, p.y])
            .any(|e| self.covers(e, p))
    }

    fn rooms_at(&self, cells: &[Point]) -> Vec<bool> {
        let Some((min, max)) = cells
            .iter()
            .map(|&p| (p, p))
            .reduce(|(a, b), (c, d)| (a.min_each(c), b.max_each(d)))
        else {
            return Vec::new();
        };
        // The entries near the cells, found once; each cell is then looked up among them
        // as `room_at` looks it up among the entries at it.
        let env = AABB::from_corners([min.x, min.y], [max.x, max.y]);
        let near: Vec<_> = self.st.index.locate_in_envelope_intersecting(env).collect();
        cells
            .iter()
            .map(|&p| {
                near.iter().any(|e| {
                    rstar::PointDistance::contains_point(e.geom(), &[p.x, p.y]) && self.covers(e, p)
                })
            })
            .collect()
    }

    fn solid_window(&self, min: Point, max: Point) -> Vec<bool> {
        let st = self.st;
        let (w, h) = (max.x - min.x, max.y - min.y);
        let mut solid = vec![false; (w * h) as usize];
        let env = AABB::from_corners([min.x, min.y], [max.x - 1, max.y - 1]);
        let nrooms = st.placed.len() as u32;
        let at = |x: i32, y: i32| ((y - min.y) * w + (x - min.x)) as usize;
        for e in st.index.locate_in_envelope_intersecting(env) {
            if e.data < nrooms {
                let Some((s, q)) = st.placed[e.data as usize] else {
                    continue;
                };
                let m = &self.planner.shape(s).mask;
                let (x0, x1) = (q.x.max(min.x), (q.x + m.width).min(max.x));
                for y in q.y.max(min.y)..(q.y + m.height).min(max.y) {
                    let row = &mut solid[at(x0, y)..at(x1, y)];
                    if m.is_rect {
                        row.fill(true);
                    } else {
                        let from = ((y - q.y) * m.width + (x0 - q.x)) as usize;
                        for (cell, &inside) in row.iter_mut().zip(&m.bits[from..]) {
                            *cell |= inside;
                        }
                    }
                }
            } else {
                for &c in &st.corridors[(e.data - nrooms) as usize].cells {
                    if c.x >= min.x && c.y >= min.y && c.x < max.x && c.y < max.y {
                        solid[at(c.x, c.y)] = true;
                    }
                }
            }
        }
        solid
    }
}

impl Planner {
    /// A corridor for link `l` from `room` to `nb`, both placed in `st`.
    /// Routes corridor `k` again between its two rooms round what is placed now (its own
    /// route left out); returns the route it had, or `None` (and nothing changed) if no route
    /// is found.
    fn reroute(&self, st: &mut State, k: usize) -> Option<Corridor> {
        let id = (st.placed.len() + k) as u32;
        let l = st.corridors[k].link;
        let from = st.corridors[k].from_room;
        let link = self.problem.links[l];
        let other = if link.from == from {
            link.to
        } else {
            link.from
        };
        st.index.remove(&box_entry(st.corridors[k].rect, id));
        match self.route(st, l, from, other) {
            Some(cor) => {
                st.index.insert(box_entry(cor.rect, id));
                Some(std::mem::replace(&mut st.corridors[k], cor))
            }
            None => {
                st.index.insert(box_entry(st.corridors[k].rect, id));
                None
            }
        }
    }

    pub(super) fn route(
        &self,
        st: &State,
        l: usize,
        room: usize,
        nb: usize,
    ) -> Option<corridor::Corridor> {
        let (sa, pa) = st.placed[room]?;
        let (sb, pb) = st.placed[nb]?;
        corridor::route(
            &Placed { planner: self, st },
            (l, self.problem.links[l]),
            (room, self.shape(sa), pa),
            (nb, self.shape(sb), pb),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{Placed, outside_cells};
    use crate::layout::corridor::Occupancy;
    use crate::layout::geom::Mask;
    use crate::layout::geom::Point;
    use crate::layout::plan::Planner;
    use crate::layout::template::RoomTemplate;
    use crate::layout::{LayoutProblem, LinkSpec, Realise, RoomSpec};

    /// The cells next to a mask from outside, found cell by cell, are the ring round the box
    /// for rectangles (and the same cells whichever way they are found, for other masks).
    #[test]
    fn outside_cells_are_those_next_to_the_mask() {
        let by_cells = |m: &Mask| {
            let mut out = Vec::new();
            for y in -1..=m.height {
                for x in -1..=m.width {
                    let next = [(1, 0), (-1, 0), (0, 1), (0, -1)]
                        .iter()
                        .any(|&(dx, dy)| m.inside(x + dx, y + dy));
                    if !m.inside(x, y) && next {
                        out.push(Point::new(x, y));
                    }
                }
            }
            out
        };
        let mut seen = 0;
        for (w, h) in [(1, 1), (1, 5), (6, 6), (5, 9), (16, 16)] {
            let outline = [(0, 0), (0, h), (w, h), (w, 0)].map(|(x, y)| Point::new(x, y));
            let m = Mask::from_outline(&outline).unwrap();
            assert!(m.is_rect);
            let mut got = Vec::new();
            outside_cells(&m, |x, y| got.push(Point::new(x, y)));
            let n = got.len();
            got.sort_unstable();
            got.dedup();
            assert_eq!(got.len(), n, "{w}x{h}: a cell twice");
            let mut want = by_cells(&m);
            want.sort_unstable();
            assert_eq!(got, want, "{w}x{h}");
            seen += 1;
        }
        let l = [(0, 0), (0, 6), (3, 6), (3, 3), (6, 3), (6, 0)].map(|(x, y)| Point::new(x, y));
        let m = Mask::from_outline(&l).unwrap();
        assert!(!m.is_rect);
        let mut got = Vec::new();
        outside_cells(&m, |x, y| got.push(Point::new(x, y)));
        got.sort_unstable();
        got.dedup();
        let mut want = by_cells(&m);
        want.sort_unstable();
        assert_eq!(got, want, "L shape");
        assert_eq!(seen, 5);
    }

    /// The entries a box meets come in the order the index's own iterator gives them (which
    /// decides the room a failed placement blames), on random trees built by insertion and
    /// with removals, and stop where the caller breaks.
    #[test]
    fn entries_meeting_follow_the_index_order() {
        use crate::layout::geom::Rect;
        use crate::layout::plan::box_entry;
        use rstar::AABB;
        use std::ops::ControlFlow;
        let mut rng = crate::seed::stream(8, "entries meeting");
        let mut below = |n: usize| crate::seed::index(&mut rng, n) as i32;
        let mut compared = 0;
        for case in 0..60 {
            let mut index = rstar::RTree::new();
            let mut boxes = Vec::new();
            for id in 0..(case * 7 % 200 + 1) as u32 {
                let min = Point::new(below(200), below(200));
                let max = min + Point::new(1 + below(20), 1 + below(20));
                let r = Rect { min, max };
                index.insert(box_entry(r, id));
                boxes.push((r, id));
            }
            for &(r, id) in boxes.iter().step_by(3) {
                index.remove(&box_entry(r, id));
            }
            for _ in 0..40 {
                let (x, y) = (below(220) - 10, below(220) - 10);
                let env = AABB::from_corners([x, y], [x + below(40), y + below(40)]);
                let want: Vec<u32> = index
                    .locate_in_envelope_intersecting(env)
                    .map(|e| e.data)
                    .collect();
                let mut got = Vec::new();
                let flow = super::entries_meeting(&index, &env, |e| {
                    got.push(e.data);
                    ControlFlow::<()>::Continue(())
                });
                assert_eq!(flow, ControlFlow::Continue(()));
                assert_eq!(got, want);
                if let Some(&third) = want.get(2) {
                    let mut seen = 0;
                    let flow = super::entries_meeting(&index, &env, |e| {
                        seen += 1;
                        if seen == 3 {
                            ControlFlow::Break(e.data)
                        } else {
                            ControlFlow::Continue(())
                        }
                    });
                    assert_eq!(flow, ControlFlow::Break(third));
                }
                compared += want.len();
            }
        }
        assert!(compared > 2000, "{compared} entries compared");
    }

    #[test]
    fn a_straight_way_out_is_one_the_flood_fill_finds() {
        // Dense levels of Edgar's five basic shapes (L and T shapes included), every link a
        // contact: for every room and windows from tight to roomy, the answer with the
        // straight runs tried first is the flood fill's alone.
        let (mut by_ray, mut by_flood, mut shut) = (0, 0, 0);
        for seed in 0..6u64 {
            let placed = crate::graph::random::placed_rooms_graph(
                45,
                8,
                &mut crate::seed::stream(seed, "ray test"),
            );
            let planner = Planner::new(LayoutProblem::of_placed_rooms(&placed)).unwrap();
            let (st, _) = planner.search(seed, None).unwrap();
            for (q, at) in st.placed.iter().enumerate() {
                let (s, pos) = at.unwrap();
                let r = planner.rect_of(s, pos);
                for reach in [1, 2, 3, 5, 8, 20] {
                    let min = Point::new(r.min.x - reach, r.min.y - reach);
                    let max = Point::new(r.max.x + reach, r.max.y + reach);
                    let flood = planner.flood_to_edge(&st, s, pos, min, max);
                    assert_eq!(
                        planner.open_to_edge(&st, q, min, max),
                        flood,
                        "seed {seed} room {q} reach {reach}"
                    );
                    match (planner.ray_out(&st, s, pos, min, max), flood) {
                        (true, _) => by_ray += 1,
                        (false, true) => by_flood += 1,
                        (false, false) => shut += 1,
                    }
                }
            }
        }
        assert!(
            by_ray > 100 && by_flood > 100 && shut > 10,
            "{by_ray} by a straight run, {by_flood} by the flood fill only, {shut} shut in"
        );
    }

    /// A ring of `ring` rooms (6 x 6 or 5 x 9) joined by corridors of `min..=max` cells,
    /// with `leaves` rooms touching the first `leaves` rooms of the ring.
    fn ring_with_leaves(ring: usize, leaves: usize, (min, max): (u32, u32)) -> LayoutProblem {
        let mut p = LayoutProblem::new(vec![
            RoomTemplate::rectangle("square", 6, 6, 1),
            RoomTemplate::rectangle("long", 5, 9, 1),
        ]);
        for r in 0..ring + leaves {
            p.rooms.push(RoomSpec::new(&format!("r{r}"), vec![0, 1]));
        }
        for r in 0..ring {
            let path = Realise::Path { min, max };
            p.links.push(LinkSpec::new(r, (r + 1) % ring, path));
        }
        for r in ring..ring + leaves {
            p.links.push(LinkSpec::new(r - ring, r, Realise::Contact));
        }
        p
    }

    /// Asking for a batch of cells with one index query answers what asking cell by cell
    /// does, on every cell round the rooms of searched layouts (a ring of rooms joined by
    /// routed corridors, and a tree of touching rooms hanging off it), in batches of the
    /// sizes a room's doors give.
    #[test]
    fn batch_cover_matches_cell_by_cell() {
        let planner = Planner::new(ring_with_leaves(8, 6, (2, 20))).unwrap();
        let (mut covered, mut free, mut corridors) = (0, 0, 0);
        for seed in 0..4 {
            let (st, _) = planner.search(seed, None).unwrap();
            corridors += st.corridors.len();
            let occ = Placed {
                planner: &planner,
                st: &st,
            };
            for &(s, p) in st.placed.iter().flatten() {
                let m = &planner.shape(s).mask;
                let cells: Vec<Point> = (p.y - 3..p.y + m.height + 3)
                    .flat_map(|y| (p.x - 3..p.x + m.width + 3).map(move |x| Point::new(x, y)))
                    .collect();
                for batch in cells.chunks(7) {
                    let got = occ.rooms_at(batch);
                    for (&c, &g) in batch.iter().zip(&got) {
                        assert_eq!(g, occ.room_at(c), "seed {seed} cell {c:?}");
                        if g { covered += 1 } else { free += 1 }
                    }
                }
            }
        }
        assert!(
            covered > 1000 && free > 1000 && corridors >= 32,
            "{covered} covered, {free} free, {corridors} corridors"
        );
    }

    /// What a search state holds, for comparing two: placements, corridors (link, first
    /// room, cells) and the index's entries, sorted.
    type Snapshot = (
        Vec<Option<(u32, Point)>>,
        Vec<(usize, usize, Vec<Point>)>,
        Vec<([i32; 2], [i32; 2], u32)>,
    );

    fn snapshot(st: &super::State) -> Snapshot {
        let corridors = (st.corridors.iter())
            .map(|c| (c.link, c.from_room, c.cells.clone()))
            .collect();
        let mut entries: Vec<([i32; 2], [i32; 2], u32)> = (st.index.iter())
            .map(|e| {
                let r = rstar::RTreeObject::envelope(e.geom());
                (r.lower(), r.upper(), e.data)
            })
            .collect();
        entries.sort_unstable();
        (st.placed.clone(), corridors, entries)
    }

    /// A corridor in the way of a new room gives way: the room is placed and the corridor
    /// routed again round it, and the layout finished from there passes the library's own
    /// check (rooms apart, corridors clear of rooms and of one another, doors where they
    /// may be); taking the room away again gives the corridor its old route back, the state
    /// as it was, cell for cell and entry for entry. On a ring of rooms joined by corridors
    /// with rooms hanging off it, every candidate of the last room is tried.
    #[test]
    fn corridors_give_way_to_rooms_and_come_back() {
        let planner = Planner::new(ring_with_leaves(6, 6, (4, 24))).unwrap();
        let whole = planner.ordered().unwrap();
        let last = whole.steps.len() - 1;
        let room = whole.steps[last].room;
        let (mut gave_way, mut placed, mut refused) = (0, 0, 0);
        for seed in 0..12 {
            let Ok((mut st, _)) = whole.search(seed, None) else {
                continue;
            };
            let keep = st.corridors.len();
            whole.unplace(&mut st, room, keep, &[], &[]);
            let before = snapshot(&st);
            let shapes: Vec<u32> = whole.room_shapes[room].iter().map(|&(s, _)| s).collect();
            let mut rng = crate::seed::stream(seed, "give way test");
            for c in whole.candidates(&mut rng, &st, last, &shapes) {
                match whole.try_place(&mut st, last, c, keep) {
                    Ok((extra, rerouted)) => {
                        placed += 1;
                        if !rerouted.is_empty() {
                            gave_way += 1;
                            let done = super::State {
                                placed: st.placed.clone(),
                                index: st.index.clone(),
                                corridors: st.corridors.clone(),
                                witness: st.witness.clone(),
                            };
                            let layout = whole.finish(seed, 1, done);
                            if let Err(e) = whole.check(&layout) {
                                panic!("seed {seed}, {c:?}: {e}");
                            }
                        }
                        whole.unplace(&mut st, room, keep, &extra, &rerouted);
                    }
                    Err(_) => refused += 1,
                }
                assert!(snapshot(&st) == before, "seed {seed}, {c:?}: state changed");
            }
        }
        assert!(
            gave_way >= 10 && placed > gave_way && refused > 0,
            "{gave_way} placed by a corridor giving way, {placed} placed, {refused} refused"
        );
    }
}
