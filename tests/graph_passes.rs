//! Spanning trees, extra links, room merging and loop decomposition, on random connected
//! graphs of up to 200 rooms and on every built-in flow.

mod common;

use std::collections::BTreeSet;

use levelplan::graph::composite::{CompositeKind, Decomposition, decompose};
use levelplan::graph::spanning::{
    Amount, choose_links, keep_links, random_deletion_spanning_tree, wilson_spanning_tree,
};
use levelplan::graph::{component_count, cycle_rank};
use levelplan::{GraphError, LevelGraph, Link, LinkId, LinkKind, Room, RoomId, RoomKind};
use proptest::prelude::*;

/// A connected graph: a random tree of `n` rooms plus `extra` random links (parallel links and
/// one-way links included), then a few rooms removed and re-added so ids have gaps.
fn random_graph(n: usize, extra: usize, seed: u64) -> LevelGraph {
    let mut rng = levelplan::seed::stream(seed, "test-graph");
    let mut g = LevelGraph::new();
    // A throwaway room first, so that ids do not start at 0.
    let ghost = g.add_room(Room::new(RoomKind::Normal));
    let rooms: Vec<RoomId> = (0..n)
        .map(|i| {
            g.add_room(Room::new(if i == 0 {
                RoomKind::Entrance
            } else {
                RoomKind::Normal
            }))
        })
        .collect();
    g.remove_room(ghost);
    for i in 1..n {
        let p = rooms[levelplan::seed::index(&mut rng, i)];
        g.add_link(p, rooms[i], Link::door());
    }
    for _ in 0..extra {
        let a = rooms[levelplan::seed::index(&mut rng, n)];
        let b = rooms[levelplan::seed::index(&mut rng, n)];
        if a != b {
            let kind = if levelplan::seed::chance(&mut rng, 0.2) {
                LinkKind::OneWay
            } else {
                LinkKind::Door
            };
            g.add_link(a, b, Link::new(kind));
        }
    }
    g
}

fn graph_strategy() -> impl Strategy<Value = LevelGraph> {
    (1usize..200, 0usize..60, any::<u64>())
        .prop_map(|(n, extra, seed)| random_graph(n, extra, seed))
}

fn all_graphs() -> impl Strategy<Value = LevelGraph> {
    prop_oneof![
        3 => graph_strategy(),
        1 => (prop::sample::select(common::builtin_flows()), any::<u64>())
            .prop_map(|(f, s)| f.generate(s, &Default::default()).unwrap()),
    ]
}

fn assert_spanning_tree(g: &LevelGraph, tree: &[LinkId]) -> Result<(), TestCaseError> {
    prop_assert_eq!(tree.len(), g.room_count().saturating_sub(1));
    let mut t = g.clone();
    for (l, ..) in g.links() {
        if !tree.contains(&l) {
            t.remove_link(l);
        }
    }
    prop_assert_eq!(component_count(&t), 1.min(g.room_count()));
    prop_assert_eq!(cycle_rank(&t), 0);
    Ok(())
}

fn assert_decomposition(g: &LevelGraph, d: &Decomposition) -> Result<(), TestCaseError> {
    // The composites partition the rooms.
    let mut rooms: Vec<RoomId> = d
        .composites
        .iter()
        .flat_map(|c| c.rooms.iter().copied())
        .collect();
    rooms.sort_unstable();
    prop_assert_eq!(rooms, g.room_ids().collect::<Vec<_>>());
    // Every link is accounted for exactly once.
    let mut links: Vec<LinkId> = d
        .composites
        .iter()
        .flat_map(|c| c.links.iter().copied())
        .chain(d.links_between.iter().copied())
        .chain(d.extra_links.iter().copied())
        .collect();
    links.sort_unstable();
    prop_assert_eq!(links, g.links().map(|(l, ..)| l).collect::<Vec<_>>());
    for (i, c) in d.composites.iter().enumerate() {
        for &r in &c.rooms {
            prop_assert_eq!(d.composite_of(r), Some(i));
        }
        match c.kind {
            CompositeKind::Loop { one_way } => {
                // A simple cycle: distinct rooms, links[i] joins rooms[i] and rooms[i+1].
                let n = c.rooms.len();
                prop_assert!(n >= 2);
                prop_assert_eq!(c.links.len(), n);
                prop_assert_eq!(c.rooms.iter().collect::<BTreeSet<_>>().len(), n);
                for i in 0..n {
                    let (a, b) = g.endpoints(c.links[i]).unwrap();
                    let want = BTreeSet::from([c.rooms[i], c.rooms[(i + 1) % n]]);
                    prop_assert_eq!(BTreeSet::from([a, b]), want);
                }
                let has_one_way = c
                    .links
                    .iter()
                    .any(|&l| g.link(l).unwrap().kind == LinkKind::OneWay);
                prop_assert_eq!(one_way, has_one_way);
            }
            CompositeKind::Tree => {
                // No cycle inside: the composite's rooms and every link among them form a tree.
                let inside: BTreeSet<RoomId> = c.rooms.iter().copied().collect();
                let internal = g
                    .links()
                    .filter(|(_, a, b, _)| inside.contains(a) && inside.contains(b))
                    .count();
                prop_assert_eq!(internal, c.rooms.len() - 1);
                prop_assert_eq!(c.links.len(), c.rooms.len() - 1);
                for (i, &l) in c.links.iter().enumerate() {
                    let (a, b) = g.endpoints(l).unwrap();
                    prop_assert!(
                        a == c.rooms[i + 1] || b == c.rooms[i + 1],
                        "tree links enter rooms in order"
                    );
                }
            }
        }
    }
    // Links inside a loop that are not on its cycle are only second links between cycle rooms.
    for &l in &d.extra_links {
        let (a, b) = g.endpoints(l).unwrap();
        prop_assert!(d.composites[d.composite_of(a).unwrap()].is_loop());
        prop_assert_eq!(d.composite_of(a), d.composite_of(b));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn wilson_tree_has_n_minus_1_links_and_spans_all_rooms(g in all_graphs(), seed in any::<u64>()) {
        let tree = wilson_spanning_tree(&g, &mut levelplan::seed::stream(seed, "t")).unwrap();
        assert_spanning_tree(&g, &tree)?;
    }

    #[test]
    fn deletion_tree_has_n_minus_1_links_and_spans_all_rooms(g in all_graphs(), seed in any::<u64>()) {
        let tree = random_deletion_spanning_tree(&g, &mut levelplan::seed::stream(seed, "t")).unwrap();
        assert_spanning_tree(&g, &tree)?;
    }

    #[test]
    fn decomposition_partitions_rooms_into_simple_cycles_and_trees(g in all_graphs()) {
        let d = decompose(&g);
        assert_decomposition(&g, &d)?;
    }

    #[test]
    fn restored_links_add_exactly_their_loops(g in graph_strategy(), seed in any::<u64>(), k in 0usize..10) {
        let mut rng = levelplan::seed::stream(seed, "t");
        let tree = wilson_spanning_tree(&g, &mut rng).unwrap();
        let rest: Vec<LinkId> = g.links().map(|(l, ..)| l).filter(|l| !tree.contains(l)).collect();
        let extra = choose_links(&rest, Amount::Count(k), &mut rng);
        prop_assert_eq!(extra.len(), k.min(rest.len()));
        let mut h = g.clone();
        let removed = keep_links(&mut h, &tree, &extra);
        prop_assert_eq!(removed.len(), rest.len() - extra.len());
        prop_assert_eq!(cycle_rank(&h), extra.len());
        prop_assert_eq!(component_count(&h), 1);
        let loops = decompose(&h).composites.iter().filter(|c| c.is_loop()).count();
        prop_assert!(loops <= extra.len());
        prop_assert_eq!(loops == 0, extra.is_empty());
    }

    #[test]
    fn merging_rooms_keeps_the_graph_connected(g in graph_strategy(), pick in any::<prop::sample::Index>()) {
        let links: Vec<LinkId> = g.links().map(|(l, ..)| l).collect();
        prop_assume!(!links.is_empty());
        let l = links[pick.index(links.len())];
        let (a, b) = g.endpoints(l).unwrap();
        let between = g.links().filter(|(_, x, y, _)| (*x == a && *y == b) || (*x == b && *y == a)).count();
        let mut h = g.clone();
        let kept = h.merge_rooms(l).unwrap();
        prop_assert!(kept == a || kept == b);
        prop_assert_eq!(h.room_count(), g.room_count() - 1);
        prop_assert_eq!(h.link_count(), g.link_count() - between);
        prop_assert_eq!(component_count(&h), 1);
        prop_assert_eq!(h.rooms_of_kind(&RoomKind::Entrance).count(), g.rooms_of_kind(&RoomKind::Entrance).count());
    }
}

#[test]
fn spanning_trees_of_a_disconnected_graph_are_an_error() {
    let mut g = random_graph(5, 0, 1);
    g.add_room(Room::new(RoomKind::Normal));
    let err = wilson_spanning_tree(&g, &mut levelplan::seed::stream(1, "t")).unwrap_err();
    assert_eq!(
        err,
        GraphError::NotConnected {
            components: 2,
            what: "a spanning tree"
        }
    );
    assert!(random_deletion_spanning_tree(&g, &mut levelplan::seed::stream(1, "t")).is_err());
}

#[test]
fn wilson_is_uniform_over_the_spanning_trees_of_a_small_graph() {
    // K4 has 16 spanning trees; 16000 draws give each about 1000 times.
    let mut g = LevelGraph::new();
    let r: Vec<_> = (0..4)
        .map(|_| g.add_room(Room::new(RoomKind::Normal)))
        .collect();
    for i in 0..4 {
        for j in i + 1..4 {
            g.add_link(r[i], r[j], Link::door());
        }
    }
    let mut rng = levelplan::seed::stream(11, "uniform");
    let mut counts = std::collections::BTreeMap::new();
    for _ in 0..16000 {
        *counts
            .entry(wilson_spanning_tree(&g, &mut rng).unwrap())
            .or_insert(0u32) += 1;
    }
    assert_eq!(counts.len(), 16);
    // Chi-square with 15 degrees of freedom: 37.7 is the 0.1% critical value.
    let chi2: f64 = counts
        .values()
        .map(|&c| (c as f64 - 1000.0).powi(2) / 1000.0)
        .sum();
    assert!(chi2 < 37.7, "chi-square {chi2} over {counts:?}");
}

#[test]
fn decomposition_of_two_loops_sharing_a_room() {
    // A figure eight: two triangles joined at room 0, plus a one-way link in the second.
    let mut g = LevelGraph::new();
    let r: Vec<_> = (0..5)
        .map(|_| g.add_room(Room::new(RoomKind::Normal)))
        .collect();
    g.add_link(r[0], r[1], Link::door());
    g.add_link(r[1], r[2], Link::door());
    g.add_link(r[2], r[0], Link::door());
    g.add_link(r[0], r[3], Link::door());
    g.add_link(r[3], r[4], Link::new(LinkKind::OneWay));
    g.add_link(r[4], r[0], Link::door());
    let d = decompose(&g);
    assert_eq!(d.root, Some(r[0]));
    // The first loop takes the shared room; the second is cut down to a tree of two rooms.
    assert_eq!(d.composites.len(), 2);
    assert_eq!(d.composites[0].kind, CompositeKind::Loop { one_way: false });
    assert_eq!(d.composites[0].rooms, vec![r[0], r[1], r[2]]);
    assert_eq!(d.composites[1].kind, CompositeKind::Tree);
    assert_eq!(d.composites[1].rooms, vec![r[3], r[4]]);
    assert_eq!(d.links_between.len(), 2);
}

/// The deletion pass exactly as the sector pipeline describes it: links in a random order, each
/// deleted unless that disconnects the graph.
fn naive_deletion_tree(g: &LevelGraph, seed: u64) -> Vec<LinkId> {
    let mut rng = levelplan::seed::stream(seed, "t");
    let mut order: Vec<LinkId> = g.links().map(|(l, ..)| l).collect();
    levelplan::seed::shuffle(&mut rng, &mut order);
    let mut h = g.clone();
    for l in order {
        let link = *h.link(l).unwrap();
        let (a, b) = h.endpoints(l).unwrap();
        h.remove_link(l);
        if component_count(&h) > 1 {
            h.add_link(a, b, link); // a bridge: put it back (under a new id)
        }
    }
    // Map the kept links back to their original ids by endpoints (the graph is simple).
    let pairs: BTreeSet<(RoomId, RoomId)> = h.links().map(|(_, a, b, _)| (a, b)).collect();
    let mut kept: Vec<LinkId> = g
        .links()
        .filter(|(_, a, b, _)| pairs.contains(&(*a, *b)))
        .map(|(l, ..)| l)
        .collect();
    kept.sort_unstable();
    kept
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn deletion_tree_matches_the_naive_deletion_pass(n in 1usize..30, extra in 0usize..15, gseed in any::<u64>(), seed in any::<u64>()) {
        // Without parallel links, so that kept links map back to ids by their endpoints.
        let g = random_graph(n, extra, gseed);
        let simple = g.links().all(|(l, a, b, _)| g.links().filter(|(m, x, y, _)| *m != l && BTreeSet::from([*x, *y]) == BTreeSet::from([a, b])).count() == 0);
        prop_assume!(simple);
        let fast = random_deletion_spanning_tree(&g, &mut levelplan::seed::stream(seed, "t")).unwrap();
        prop_assert_eq!(fast, naive_deletion_tree(&g, seed));
    }
}
