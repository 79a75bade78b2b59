//! Cutting a big level into parts at bridges (the first half of the spec's "final assembly"):
//! each block of loops, with the small pieces around it merged up to [`PART_ROOMS`] rooms, is a
//! part with a planner of its own, whose problem keeps a stand-in for the room at the far end of
//! each cut link. [`super::assemble`] lays the parts out and fits them together.

use super::super::{LayoutProblem, RetryPolicy};
use super::{BIG, Planner};
use crate::graph::bridge_flags;
use std::sync::Arc;

/// Rooms per part the cutting aims at (a part that is one block of loops may be bigger).
const PART_ROOMS: usize = 5;
/// Rooms beyond a cut link up to which the second cut of a big level (tried when the parts of
/// the first do not fit together and the room-by-room search fails) keeps the piece in the part it hangs off, so that the part's
/// own search places it: a room that hangs off a room inside a ring of its part, or off a
/// crowded hall, gets its place before the ring closes, where as a part of its own it would
/// find its joint shut in by rooms of other parts. Measured on level-like graphs that need
/// holes (100 rooms, 20 graphs): as the only cut, 2 of 20 laid out with none merged, 5 with
/// up to 3 rooms; as the only cut it also cost one of ten graphs without holes (a part with
/// its hanging rooms found no layout where the part without them did), hence a second cut.
pub(super) const HANGING_ROOMS: usize = 3;
/// Attempts a part's own planner makes for one layout of the part.
const PART_ATTEMPTS: u32 = 10;
/// A part of a big level: its rooms, laid out by a planner of their own.
#[derive(Debug, Clone)]
pub(super) struct Part {
    pub(super) planner: Planner,
    /// The level's index of each room of the part's problem.
    pub(super) rooms: Vec<usize>,
    /// The level's index of each link of the part's problem (`usize::MAX`: a link to a
    /// stand-in, a room of another part that the part's problem includes to keep room for it).
    pub(super) links: Vec<usize>,
    /// The cut link to a part placed earlier: (link, the room at the other end, the part's
    /// own room at this end as an index into `rooms`). `None` for the first part.
    pub(super) joint: Option<(usize, usize, usize)>,
    /// The part's planner with corridors that give way to rooms (as in a small level), made
    /// when first asked for: [`Part::yielding`].
    pub(super) yielding: std::sync::OnceLock<Planner>,
}

impl Part {
    /// The level's index of the part's joint room (its end of the cut link to the part placed
    /// before it); the first part's first room.
    pub(super) fn joint_room(&self) -> usize {
        self.joint
            .map_or(self.rooms[0], |(_, _, own)| self.rooms[own])
    }

    /// The part's planner for one long search: `attempts` attempts, and corridors that give
    /// way to rooms (as in small levels).
    pub(super) fn long_search(&self, attempts: u32) -> Planner {
        let mut planner = self.yielding().clone();
        planner.problem.budget.retry = RetryPolicy::Attempts(attempts);
        planner
    }

    /// The part's planner with corridors that give way to rooms, as in a level under
    /// [`BIG`] rooms (the part's own planner takes `give_way` from its level).
    pub(super) fn yielding(&self) -> &Planner {
        self.yielding.get_or_init(|| {
            let mut planner = self.planner.clone();
            planner.give_way = true;
            planner
        })
    }

    /// A planner for the part without its stand-ins, `None` if it has none (or cannot be
    /// prepared): its rooms and links are the first ones of the part's problem, so its
    /// layouts make pieces as the part's own do.
    pub(super) fn without_stand_ins(&self) -> Option<Planner> {
        let own_links = self.links.iter().filter(|&&l| l != usize::MAX).count();
        let mut sub = self.planner.problem.clone();
        if sub.rooms.len() == self.rooms.len() {
            return None;
        }
        sub.rooms.truncate(self.rooms.len());
        sub.links.truncate(own_links);
        let mut planner = Planner::prepare(sub, self.planner.set.clone()).ok()?;
        planner.guided = self.planner.guided;
        planner.give_way = self.planner.give_way;
        planner.build_compounds();
        if let Some(rot) = &self.planner.rotation {
            let n = self.rooms.len();
            let own = rot[..n]
                .iter()
                .map(|nbs| nbs.iter().copied().filter(|&w| w < n).collect())
                .collect();
            planner.rotation = Some(Arc::new(own));
        }
        Some(planner)
    }
}

impl Planner {
    /// The rooms of each part of a big level laid out in parts, one part per line, in the
    /// order they are fitted (empty for a level laid out room by room; for diagnosing hard
    /// problems: `scale_probe`'s `PARTS=1`, and its `BLOCK` to lay one part out alone).
    #[doc(hidden)]
    pub fn debug_parts(&self) -> String {
        let Some(parts) = self.parts.as_ref() else {
            return String::new();
        };
        parts
            .iter()
            .map(|p| {
                let names: Vec<&str> = p
                    .rooms
                    .iter()
                    .map(|&r| self.problem.rooms[r].name.as_str())
                    .collect();
                names.join(",") + "\n"
            })
            .collect()
    }

    /// Cuts a big level into parts at bridges that may be realised by contact (and do not
    /// end at a collapsed corridor room), a big hub block first and then breadth first, so
    /// that each part's joint leads to a part listed before it; `None` if the level is small,
    /// not connected, or does not come apart. Pieces of at most `hanging` rooms beyond a cut
    /// link stay in the part they hang off (0: only small blocks are merged, up to
    /// [`PART_ROOMS`] rooms a part).
    pub(super) fn cut_into_parts(&self, hanging: usize) -> Option<Vec<Part>> {
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
        // Merge small blocks into their parents, smallest first, up to PART_ROOMS rooms, and
        // every piece of up to `hanging` rooms (all of them beyond its cut link) whatever the
        // size of its parent.
        let mut beyond = size.clone();
        for &b in order.iter().rev() {
            if let Some((p, _)) = parent[b] {
                beyond[p] += beyond[b];
            }
        }
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
                if total[b] + total[c] <= PART_ROOMS || beyond[c] <= hanging {
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
            // (The level's index of each stand-in's room, in order.)
            let mut stood_for: Vec<usize> = Vec::new();
            // (The rooms beyond each stand-in's cut link: the far block's subtree, or, for the
            // link to the block above, everything but the near block's subtree.)
            let mut stand_in_weights: Vec<usize> = Vec::new();
            for k in links {
                let (inside, outside) = match (local(k.from), local(k.to)) {
                    (Some(a), None) => (a, k.to),
                    (None, Some(b)) => (b, k.from),
                    _ => continue,
                };
                stood_for.push(outside);
                let (near, far) = (block[rooms[inside]], block[outside]);
                stand_in_weights.push(if parent[far].is_some_and(|(p, _)| p == near) {
                    beyond[far]
                } else {
                    n - beyond[near]
                });
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
            // Each stand-in weighs the rooms beyond its cut link, so that the part's order
            // shuts in a light piece rather than a heavy one where its loops must shut one in.
            let mut planner = Planner::prepare_unordered(sub, self.set.clone()).ok()?;
            let mut weights = vec![1usize; rooms.len()];
            weights.extend(stand_in_weights);
            planner.weights = Some(Arc::new(weights));
            // A part of a big level is guided as the level is, however small.
            planner.guided = self.guided;
            planner.give_way = self.give_way;
            planner.order().ok()?;
            planner.build_compounds();
            if let Some(rot) = &self.rotation {
                // The level's rotation round each room of the part, stand-ins in the place
                // of the rooms they stand for.
                let level_of: Vec<usize> = rooms.iter().chain(&stood_for).copied().collect();
                let local_of = |r: usize| level_of.iter().position(|&x| x == r);
                let local_rot = level_of
                    .iter()
                    .map(|&r| rot[r].iter().filter_map(|&w| local_of(w)).collect())
                    .collect();
                planner.rotation = Some(Arc::new(local_rot));
            }
            parts.push(Part {
                planner,
                rooms,
                links: sub_links,
                joint,
                yielding: std::sync::OnceLock::new(),
            });
        }
        Some(parts)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::PART_ROOMS;
    use crate::graph::LinkRole;
    use crate::graph::bridge_flags;
    use crate::graph::random::loop_chain_graph;
    use crate::layout::{LayoutProblem, LinkSpec, Planner, Realise, RoomSpec, RoomTemplate};

    /// A chain of separate loops (tree links contact, loop links contact or corridor).
    pub(in crate::layout::plan) fn chain(loops: usize, seed: u64) -> LayoutProblem {
        let g = loop_chain_graph(loops, &mut crate::seed::stream(seed, "parts test"));
        problem_of(&g, false)
    }

    /// Small rooms (6 x 6 or 5 x 9) for the rooms of `g`, or, with `halls`, 16 x 16 halls for
    /// rooms with more than three links; tree links contact, the others contact or corridor.
    fn problem_of(g: &crate::graph::LevelGraph, halls: bool) -> LayoutProblem {
        let mut templates = vec![
            RoomTemplate::rectangle("square", 6, 6, 1),
            RoomTemplate::rectangle("long", 5, 9, 1),
        ];
        if halls {
            templates.push(RoomTemplate::rectangle("hall", 16, 16, 1));
        }
        let mut p = LayoutProblem::new(templates);
        let ids: Vec<_> = g.room_ids().collect();
        for id in &ids {
            let t = if halls && g.incident_links(*id).count() > 3 {
                vec![2]
            } else {
                vec![0, 1]
            };
            p.rooms.push(RoomSpec::new(&id.to_string(), t));
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

    /// A big level cut into parts leaves its own room order until the room-by-room search
    /// needs it; the order made then is the one an eager planner makes (same steps, same
    /// compounds), and a small level is ordered at once.
    #[test]
    fn a_big_level_orders_its_rooms_when_asked() {
        let mut found_any = false;
        for seed in 0..3 {
            let p = chain(10, seed);
            let lazy = Planner::new(p.clone()).unwrap();
            assert!(lazy.parts.is_some() && lazy.steps.is_empty());
            let set = lazy.set.clone();
            let mut eager = Planner::prepare(p, set).unwrap();
            eager.build_compounds();
            assert!(!eager.steps.is_empty());
            let whole = lazy.ordered().unwrap();
            assert_eq!(whole.debug_order(), eager.debug_order(), "chain {seed}");
            assert_eq!(lazy.debug_order(), eager.debug_order(), "chain {seed}");
            assert_eq!(whole.composite_of, eager.composite_of);
            assert_eq!(whole.loops, eager.loops);
            let mut p = whole.problem.clone();
            p.budget.retry = crate::layout::RetryPolicy::Attempts(2);
            let (mut a, mut b) = (whole.into_owned(), eager);
            (a.problem, b.problem) = (p.clone(), p);
            let search = |q: &Planner| q.search(seed, None).map(|(st, n)| (st.placed, n)).ok();
            let found = search(&a);
            found_any |= found.is_some();
            assert_eq!(found, search(&b), "chain {seed}");
        }
        assert!(found_any, "no chain laid out room by room");
        let small = Planner::new(chain(2, 0)).unwrap();
        assert!(small.parts.is_none() && !small.steps.is_empty());
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
            // The diagnostic listing names each part's rooms, one part per line, in order.
            let listed: Vec<String> = planner.debug_parts().lines().map(String::from).collect();
            assert_eq!(listed.len(), parts.len());
            for (line, part) in listed.iter().zip(parts) {
                let names: Vec<&str> = part
                    .rooms
                    .iter()
                    .map(|&r| p.rooms[r].name.as_str())
                    .collect();
                assert_eq!(line, &names.join(","));
            }
        }
        assert_eq!(Planner::new(chain(2, 0)).unwrap().debug_parts(), "");
    }

    /// A part without its stand-ins keeps its own rooms and links, in the part's order (so
    /// that its layouts make pieces as the part's do), and lays out.
    #[test]
    fn parts_without_stand_ins_keep_their_own_rooms_and_links() {
        let p = chain(12, 2);
        let planner = Planner::new(p.clone()).unwrap();
        let parts = planner.parts.as_ref().expect("a chain of 12 loops is big");
        let mut bare_parts = 0;
        for part in parts {
            let Some(bare) = part.without_stand_ins() else {
                assert_eq!(part.planner.problem().rooms.len(), part.rooms.len());
                continue;
            };
            bare_parts += 1;
            let sub = bare.problem();
            assert_eq!(sub.rooms.len(), part.rooms.len());
            for (i, &r) in part.rooms.iter().enumerate() {
                assert_eq!(sub.rooms[i].name, p.rooms[r].name);
            }
            let own: Vec<usize> = part
                .links
                .iter()
                .copied()
                .filter(|&l| l != usize::MAX)
                .collect();
            assert_eq!(sub.links.len(), own.len());
            for (i, &l) in own.iter().enumerate() {
                assert_eq!(part.links[i], l, "the part's own links come first");
                let (x, y) = (sub.links[i], p.links[l]);
                assert_eq!((part.rooms[x.from], part.rooms[x.to]), (y.from, y.to));
                assert_eq!(x.realise, y.realise);
            }
            let (st, _) = bare.search(0, None).expect("a loop of a chain lays out");
            assert_eq!(planner.piece(part, st).placed.len(), part.rooms.len());
        }
        assert!(bare_parts > 0);
    }

    /// A level-like graph that needs holes (`local_loops_graph`), rooms and links as in
    /// [`problem_of`] with halls: the layout benchmark's graph of the same seed.
    pub(in crate::layout::plan) fn level_like(
        rooms: usize,
        loops: usize,
        seed: u64,
    ) -> LayoutProblem {
        let g = crate::graph::random::local_loops_graph(
            rooms,
            loops,
            &mut crate::seed::stream(seed, "scale graph"),
        );
        problem_of(&g, true)
    }

    /// The second cut keeps every piece of up to `HANGING_ROOMS` rooms in the part it hangs
    /// off, checked by brute force: for each link that the first cut may cut, the rooms
    /// beyond it (away from the first part) counted by a search of the graph without the
    /// link; a link with few rooms beyond it joins two rooms of one part, and every cut link
    /// has more beyond it. The parts still cover every room once, each joined to an earlier
    /// one by one link, and there are fewer of them than in the first cut.
    #[test]
    fn the_second_cut_keeps_small_hanging_pieces_in_their_part() {
        use super::HANGING_ROOMS;
        let mut kept = 0;
        for seed in 0..6 {
            let p = if seed % 2 == 0 {
                level_like(100, 10, seed)
            } else {
                chain(12, seed)
            };
            let planner = Planner::new(p.clone()).unwrap();
            let first = planner.parts.as_ref().expect("a big level");
            let Some(parts) = planner.cut_into_parts(HANGING_ROOMS) else {
                panic!("the level still comes apart");
            };
            assert!(parts.len() <= first.len());
            let n = p.rooms.len();
            let mut part_of = vec![usize::MAX; n];
            for (k, part) in parts.iter().enumerate() {
                for &r in &part.rooms {
                    assert_eq!(part_of[r], usize::MAX, "room {r} in two parts");
                    part_of[r] = k;
                }
            }
            assert!(part_of.iter().all(|&k| k != usize::MAX));
            for (k, part) in parts.iter().enumerate().skip(1) {
                let (l, other, own) = part.joint.expect("later parts have a joint");
                assert!(part_of[other] < k);
                assert!([p.links[l].from, p.links[l].to].contains(&part.rooms[own]));
            }
            let root = parts[0].rooms[0];
            let bridge = bridge_flags(&planner.adj, p.links.len());
            for (l, link) in p.links.iter().enumerate() {
                if !bridge[l] || !link.realise.contact_allowed() {
                    continue;
                }
                // The rooms reached from the root without link `l`; those not reached are
                // beyond it.
                let mut seen = vec![false; n];
                let mut stack = vec![root];
                seen[root] = true;
                while let Some(x) = stack.pop() {
                    for (m, y) in p.links.iter().enumerate() {
                        let next = if y.from == x {
                            y.to
                        } else if y.to == x {
                            y.from
                        } else {
                            continue;
                        };
                        if m != l && !seen[next] {
                            seen[next] = true;
                            stack.push(next);
                        }
                    }
                }
                let beyond = seen.iter().filter(|&&b| !b).count();
                let split = part_of[link.from] != part_of[link.to];
                if beyond <= HANGING_ROOMS {
                    assert!(
                        !split,
                        "level {seed}: link {l} cut with {beyond} rooms beyond"
                    );
                    let was_split = first
                        .iter()
                        .any(|q| q.rooms.contains(&link.from) != q.rooms.contains(&link.to));
                    kept += usize::from(was_split);
                }
            }
        }
        assert!(kept > 0, "no piece the first cut cut off was kept");
    }

    /// Small levels are laid out room by room.
    #[test]
    fn small_levels_stay_whole() {
        let planner = Planner::new(chain(4, 1)).unwrap();
        assert!(planner.parts.is_none());
    }
}
