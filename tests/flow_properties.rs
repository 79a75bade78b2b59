//! Invariants of instantiated flows, over every built-in flow and random seeds.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use levelplan::graph::flow::{FlowTemplate, InjectionRule, NodeType, Placement};
use levelplan::graph::{distances_from, links_on_cycles, tree_depths};
use levelplan::{Conditions, LevelGraph, LinkKind, LinkRole, RoomId, RoomKind, RoomOrigin};
use proptest::prelude::*;

fn flow_strategy() -> impl Strategy<Value = FlowTemplate> {
    prop::sample::select(common::builtin_flows())
}

fn generate(flow: &FlowTemplate, seed: u64) -> LevelGraph {
    flow.generate(seed, &Conditions::default())
        .expect("built-in flows instantiate")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_room_is_reachable_from_the_single_entrance(flow in flow_strategy(), seed in any::<u64>()) {
        let g = generate(&flow, seed);
        prop_assert_eq!(g.rooms_of_kind(&RoomKind::Entrance).count(), 1);
        let d = distances_from(&g, g.entrance().unwrap());
        prop_assert_eq!(d.len(), g.room_count());
    }

    #[test]
    fn every_level_is_completable_by_collecting_keys(flow in flow_strategy(), seed in any::<u64>()) {
        let g = generate(&flow, seed);
        let reached = common::greedy_reach(&g);
        prop_assert_eq!(reached.len(), g.room_count(), "some room stays locked away");
        // Every lock has exactly one key, never in a secret room, an exit or a boss room.
        for (_, lock) in g.locks() {
            let holders: Vec<_> = g.rooms().filter(|(_, r)| r.items.iter().any(|i| i.opens() == Some((lock.by, lock.opener)))).collect();
            prop_assert_eq!(holders.len(), 1);
            prop_assert!(!matches!(holders[0].1.kind, RoomKind::Secret | RoomKind::Exit | RoomKind::Boss));
        }
    }

    #[test]
    fn mandatory_nodes_are_present(flow in flow_strategy(), seed in any::<u64>()) {
        let g = generate(&flow, seed);
        let built: BTreeSet<&str> = g.rooms().filter_map(|(_, r)| match &r.origin {
            RoomOrigin::FlowNode { node } | RoomOrigin::Chain { node, .. } => Some(node.as_str()),
            _ => None,
        }).collect();
        for id in common::surely_built(&flow) {
            prop_assert!(built.contains(id.as_str()), "mandatory node {} missing", id);
        }
    }

    #[test]
    fn expanding_chains_stay_within_their_bounds(flow in flow_strategy(), seed in any::<u64>()) {
        let g = generate(&flow, seed);
        for node in &flow.nodes {
            let NodeType::Chain { min, max, .. } = node.node_type else { continue };
            let indices: Vec<u32> = g.rooms().filter_map(|(_, r)| match &r.origin {
                RoomOrigin::Chain { node: n, index } if *n == node.id => Some(*index),
                _ => None,
            }).collect();
            let copies = indices.iter().filter(|&&i| i == 0).count() as u32;
            prop_assert!(indices.iter().all(|&i| i < max), "chain {} longer than {}", node.id, max);
            prop_assert!(indices.len() as u32 >= copies * min, "chain {} shorter than {}", node.id, min);
            prop_assert!(indices.len() as u32 <= copies * max);
        }
    }

    #[test]
    fn every_loop_edge_lies_on_a_cycle(flow in flow_strategy(), seed in any::<u64>()) {
        let g = generate(&flow, seed);
        let on_cycle = links_on_cycles(&g);
        for (id, _, _, link) in g.links() {
            if link.role == LinkRole::Loop {
                prop_assert!(on_cycle.contains(&id), "loop edge {} is a bridge", id);
            }
        }
    }

    #[test]
    fn tree_links_form_a_spanning_tree(flow in flow_strategy(), seed in any::<u64>()) {
        let g = generate(&flow, seed);
        let depth = tree_depths(&g, g.entrance().unwrap());
        prop_assert_eq!(depth.len(), g.room_count());
        let tree_links = g.links().filter(|(.., l)| l.role == LinkRole::Tree).count();
        prop_assert_eq!(tree_links, g.room_count() - 1);
    }

    #[test]
    fn same_seed_gives_the_same_graph(flow in flow_strategy(), seed in any::<u64>()) {
        let a = generate(&flow, seed);
        let b = generate(&flow, seed);
        prop_assert_eq!(a.to_json(), b.to_json());
        prop_assert!(a == b);
    }

    #[test]
    fn injected_rooms_sit_where_their_placement_says(
        flow in flow_strategy(),
        placement in prop::sample::select(vec![
            Placement::EndOfChain,
            Placement::RandomChild { min_distance: 0 },
            Placement::RandomChild { min_distance: 3 },
            Placement::BeforeCombat { min_distance: 0 },
            Placement::BeforeCombat { min_distance: 2 },
            Placement::AfterBoss,
            Placement::HubChainStart,
            Placement::HubChild,
            Placement::NoLink,
        ]),
        seed in any::<u64>(),
    ) {
        // The flow with one certain rule of this placement instead of its own rules.
        let mut probe = flow.clone();
        probe.injections = vec![InjectionRule {
            name: "probe".into(),
            kind: RoomKind::Custom("probe".into()),
            tags: BTreeSet::new(),
            placements: vec![placement.clone()],
            chance: 1.0,
            lock_chance: 0.0,
            weight: 1.0,
            once_per_run: false,
            requires: vec![],
            unless: vec![],
        }];
        probe.injection_sets.clear();
        let g = generate(&probe, seed);
        let injected: Vec<(RoomId, Placement)> = g.rooms().filter_map(|(id, r)| match &r.origin {
            RoomOrigin::Injected { placement, .. } => Some((id, placement.clone())),
            _ => None,
        }).collect();

        // Without the rule, the same flow and seed: the rooms that were there before.
        let mut bare = flow.clone();
        bare.injections.clear();
        bare.injection_sets.clear();
        let before = generate(&bare, seed);
        let applicable = placement_applies(&before, &placement);
        prop_assert_eq!(injected.len(), usize::from(applicable), "fired: {:?}", injected);
        let Some(&(room, ref used)) = injected.first() else { return Ok(()) };
        let kind = |r: RoomId| g.room(r).unwrap().kind.clone();
        let depth = tree_depths(&g, g.entrance().unwrap());
        let parent = g.tree_parent(room).map(|(_, p)| p);
        let children = g.tree_children(room);
        match used {
            Placement::EndOfChain => {
                let p = parent.unwrap();
                prop_assert!(!matches!(kind(p), RoomKind::Exit | RoomKind::Secret | RoomKind::Boss));
                prop_assert_eq!(g.tree_children(p), vec![room], "the parent was a leaf");
                prop_assert!(children.is_empty());
            }
            Placement::RandomChild { min_distance } => {
                let p = parent.unwrap();
                prop_assert!(kind(p).is_standard());
                prop_assert!(depth[&p] >= *min_distance);
                prop_assert!(children.is_empty());
            }
            Placement::BeforeCombat { min_distance } => {
                prop_assert_eq!(children.len(), 1);
                let c = children[0];
                prop_assert!(kind(c).is_standard());
                prop_assert!(depth[&c] > *min_distance);
                prop_assert!(parent.is_some());
                let on_cycle: BTreeSet<RoomId> = links_on_cycles(&g).into_iter()
                    .flat_map(|l| { let (a, b) = g.endpoints(l).unwrap(); [a, b] }).collect();
                prop_assert!(!on_cycle.contains(&c));
            }
            Placement::AfterBoss => {
                prop_assert_eq!(kind(parent.unwrap()), RoomKind::Boss);
                prop_assert!(children.len() <= 1);
            }
            Placement::HubChainStart => {
                prop_assert_eq!(kind(parent.unwrap()), RoomKind::Hub);
                prop_assert_eq!(children.len(), 1);
            }
            Placement::HubChild => {
                prop_assert_eq!(kind(parent.unwrap()), RoomKind::Hub);
                prop_assert!(children.is_empty());
            }
            Placement::NoLink => {
                let links: Vec<_> = g.incident_links(room).collect();
                prop_assert_eq!(links.len(), 1);
                prop_assert_eq!(links[0].1, g.entrance().unwrap());
                prop_assert_eq!(g.link(links[0].0).unwrap().kind, LinkKind::Warp);
            }
        }
        if *used != placement {
            prop_assert_eq!(&placement, &Placement::EndOfChain, "only EndOfChain falls back");
        }
    }
}

/// Whether a room for `placement` can be found in `g` (so an injection must fire).
fn placement_applies(g: &LevelGraph, placement: &Placement) -> bool {
    let depth = tree_depths(g, g.entrance().unwrap());
    let kind = |r: &RoomId| g.room(*r).unwrap().kind.clone();
    let on_cycle: BTreeSet<RoomId> = links_on_cycles(g)
        .into_iter()
        .flat_map(|l| {
            let (a, b) = g.endpoints(l).unwrap();
            [a, b]
        })
        .collect();
    match placement {
        Placement::EndOfChain => {
            depth.keys().any(|r| kind(r).is_standard())
                || depth.keys().any(|r| {
                    g.tree_children(*r).is_empty()
                        && !matches!(kind(r), RoomKind::Exit | RoomKind::Secret | RoomKind::Boss)
                })
        }
        Placement::RandomChild { min_distance } => depth
            .iter()
            .any(|(r, &d)| d >= *min_distance && kind(r).is_standard()),
        Placement::BeforeCombat { min_distance } => depth.iter().any(|(r, &d)| {
            d > 0 && d >= *min_distance && kind(r).is_standard() && !on_cycle.contains(r)
        }),
        Placement::AfterBoss => depth.keys().any(|r| kind(r) == RoomKind::Boss),
        Placement::HubChainStart => depth
            .keys()
            .any(|r| kind(r) == RoomKind::Hub && !g.tree_children(*r).is_empty()),
        Placement::HubChild => depth.keys().any(|r| kind(r) == RoomKind::Hub),
        Placement::NoLink => true,
    }
}

#[test]
fn different_seeds_give_different_graphs() {
    for flow in common::builtin_flows() {
        let distinct: BTreeSet<String> = (0..32).map(|s| generate(&flow, s).to_json()).collect();
        assert!(
            distinct.len() >= 16,
            "flow {} gave only {} distinct graphs in 32 seeds",
            flow.name,
            distinct.len()
        );
    }
}

#[test]
fn once_per_run_rules_fire_once_per_run() {
    let flow = FlowTemplate::builtin("classic").unwrap();
    let mut conditions = Conditions::default();
    let mut cells = 0;
    for seed in 0..200 {
        let g = flow.generate(seed, &conditions).unwrap();
        cells += g.rooms().filter(|(_, r)| matches!(&r.origin, RoomOrigin::Injected { rule, .. } if rule == "prisoner_cell")).count();
        conditions.mark_spent(&g);
    }
    assert_eq!(
        cells, 1,
        "the prisoner cell appears in exactly one level of the run"
    );
}

#[test]
fn condition_flags_gate_injection_rules() {
    let flow = FlowTemplate::builtin("classic").unwrap();
    let count = |conditions: &Conditions| -> usize {
        (0..300).map(|seed| {
            let g = flow.generate(seed, conditions).unwrap();
            g.rooms().filter(|(_, r)| matches!(&r.origin, RoomOrigin::Injected { rule, .. } if rule == "blacksmith")).count()
        }).sum()
    };
    assert_eq!(
        count(&Conditions::default()),
        0,
        "blacksmith requires the met_blacksmith flag"
    );
    let with_flag = Conditions::default()
        .with_flag("met_blacksmith")
        .with_flag("x");
    assert!(
        count(&with_flag) > 20,
        "with the flag the blacksmith shows up"
    );
}

#[test]
fn selector_builds_between_min_and_max_children() {
    let flow = FlowTemplate::builtin("fork").unwrap();
    let wings = ["armory", "garden", "market", "crypt"];
    let mut seen_counts = BTreeMap::new();
    for seed in 0..300 {
        let g = generate(&flow, seed);
        let built = wings
            .iter()
            .filter(|w| {
                g.rooms().any(|(_, r)| match &r.origin {
                    RoomOrigin::FlowNode { node } | RoomOrigin::Chain { node, .. } => node == *w,
                    _ => false,
                })
            })
            .count();
        assert!((2..=3).contains(&built), "seed {seed}: {built} wings");
        *seen_counts.entry(built).or_insert(0) += 1;
    }
    assert_eq!(
        seen_counts.len(),
        2,
        "both 2 and 3 wings occur: {seen_counts:?}"
    );
}

#[test]
fn subchains_respect_their_copy_limits() {
    let flow = FlowTemplate::builtin("long_chain").unwrap();
    for seed in 0..300 {
        let g = generate(&flow, seed);
        for member in ["treasure_path", "merchant_path", "trial"] {
            let copies = g
                .rooms()
                .filter(
                    |(_, r)| matches!(&r.origin, RoomOrigin::FlowNode { node } if node == member),
                )
                .count();
            assert!(copies <= 1, "seed {seed}: {member} grafted {copies} times");
        }
    }
}
