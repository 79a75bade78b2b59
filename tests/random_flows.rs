//! Random flow templates: validation and instantiation never panic, and whatever validates
//! instantiates into a connected level with one entrance, or fails with a typed error.

use std::collections::BTreeSet;

use levelplan::graph::distances_from;
use levelplan::graph::flow::{
    ChainRule, DoorType, FlowNode, FlowTemplate, InjectionRule, LoopEdge, NodeType, Placement,
    Priority, SubChainMember, TreeEdge,
};
use levelplan::{Conditions, FlowError, RoomKind};
use proptest::prelude::*;

fn kind() -> impl Strategy<Value = RoomKind> {
    prop::sample::select(vec![
        RoomKind::Normal,
        RoomKind::Normal,
        RoomKind::Hub,
        RoomKind::Connector,
        RoomKind::Reward,
        RoomKind::Boss,
        RoomKind::Secret,
        RoomKind::Exit,
        RoomKind::Shop,
    ])
}

fn letters() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!['n', 'n', 'n', 'c', 'c', 'h', 'r', 't', 'e', 'q']),
        1..4,
    )
    .prop_map(|v| v.into_iter().collect())
}

fn node_type() -> impl Strategy<Value = NodeType> {
    prop_oneof![
        4 => Just(NodeType::Room),
        1 => (letters(), 0u32..6, 0u32..10, prop::collection::vec((letters(), letters(), 0.0f64..3.0, any::<bool>()), 0..4))
            .prop_map(|(initial, min, extra, rules)| NodeType::Chain {
                initial,
                min,
                max: min + extra,
                rules: rules.into_iter().map(|(form, target, weight, mandatory)| ChainRule { form, target, weight, mandatory }).collect(),
            }),
        1 => (0u32..3, 0u32..3, any::<bool>()).prop_map(|(min, extra, duplicates)| NodeType::Selector { min, max: min + extra, duplicates }),
        1 => Just(NodeType::SubChain { pools: vec!["pool".into()] }),
    ]
}

fn door() -> impl Strategy<Value = DoorType> {
    prop::sample::select(vec![
        DoorType::Plain,
        DoorType::Plain,
        DoorType::Locked,
        DoorType::OneWay,
        DoorType::Secret,
    ])
}

fn placement() -> impl Strategy<Value = Placement> {
    prop::sample::select(vec![
        Placement::EndOfChain,
        Placement::RandomChild { min_distance: 2 },
        Placement::BeforeCombat { min_distance: 1 },
        Placement::AfterBoss,
        Placement::HubChainStart,
        Placement::HubChild,
        Placement::NoLink,
    ])
}

prop_compose! {
    fn random_flow()(n in 2usize..14)(
        parents in prop::collection::vec(any::<prop::sample::Index>(), n),
        kinds in prop::collection::vec(kind(), n),
        types in prop::collection::vec(node_type(), n),
        chances in prop::collection::vec(prop_oneof![Just(1.0f64), 0.0f64..1.2], n),
        optional in prop::collection::vec(any::<bool>(), n),
        doors in prop::collection::vec(door(), n),
        pool_members in prop::collection::vec(any::<bool>(), n),
        loops in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), door()), 0..3),
        rules in prop::collection::vec((kind(), placement(), 0.0f64..1.0, 0.0f64..1.0), 0..4),
        n in Just(n),
    ) -> FlowTemplate {
        let id = |i: usize| format!("n{i}");
        let mut nodes = Vec::new();
        let mut edges = Vec::new();
        for i in 0..n {
            let member = i > 0 && pool_members[i] && i % 3 == 0;
            nodes.push(FlowNode {
                id: id(i),
                kind: if i == 0 { RoomKind::Entrance } else { kinds[i].clone() },
                tags: BTreeSet::new(),
                chance: if i > 0 && optional[i] { chances[i] } else { 1.0 },
                priority: if i > 0 && optional[i] { Priority::Optional } else { Priority::Mandatory },
                node_type: if i == 0 { NodeType::Room } else { types[i].clone() },
                subchain: member.then(|| SubChainMember { pool: "pool".into(), max_copies: 1 }),
            });
            if i > 0 && !member {
                edges.push(TreeEdge { from: id(parents[i].index(i)), to: id(i), door: doors[i] });
            }
        }
        // Most structural mistakes are already covered by the broken-flow corpus: repair the
        // commonest ones so that enough random flows validate and reach instantiation.
        let has_members = nodes.iter().any(|n| n.subchain.is_some());
        for (i, node) in nodes.iter_mut().enumerate() {
            let has_children = edges.iter().any(|e| e.from == id(i));
            let repair = match node.node_type {
                NodeType::SubChain { .. } => has_children || !has_members,
                NodeType::Selector { .. } => !has_children,
                _ => false,
            };
            if repair {
                node.node_type = NodeType::Room;
            }
        }
        if !nodes.iter().any(|n| matches!(n.node_type, NodeType::SubChain { .. })) {
            for (i, node) in nodes.iter_mut().enumerate() {
                if node.subchain.take().is_some() {
                    edges.push(TreeEdge { from: id(parents[i].index(i)), to: id(i), door: doors[i] });
                }
            }
        }
        let loops = loops
            .into_iter()
            .map(|(a, b, door)| LoopEdge { from: id(a.index(n)), to: id(b.index(n)), door })
            .filter(|l| l.from != l.to && !edges.iter().any(|e| (e.from == l.from && e.to == l.to) || (e.from == l.to && e.to == l.from)))
            .collect();
        let injections = rules.into_iter().enumerate().map(|(i, (kind, p, chance, lock_chance))| InjectionRule {
            name: format!("rule{i}"),
            kind,
            tags: BTreeSet::new(),
            placements: vec![p],
            chance,
            lock_chance,
            weight: 1.0,
            once_per_run: false,
            requires: vec![],
            unless: vec![],
        }).collect();
        FlowTemplate {
            name: "random".into(),
            description: String::new(),
            root: id(0),
            nodes,
            edges,
            loops,
            injections,
            injection_sets: vec![],
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn random_flows_validate_or_fail_cleanly_and_valid_ones_build_connected_levels(flow in random_flow(), seed in any::<u64>()) {
        match flow.validate("random.ron") {
            Err(e) => {
                let message = e.to_string();
                prop_assert!(message.starts_with("random.ron"), "{}", message);
            }
            Ok(()) => match flow.generate(seed, &Conditions::default()) {
                Ok(g) => {
                    prop_assert_eq!(g.rooms_of_kind(&RoomKind::Entrance).count(), 1);
                    prop_assert_eq!(distances_from(&g, g.entrance().unwrap()).len(), g.room_count());
                }
                Err(FlowError::Generation { .. }) => {}
                Err(other) => prop_assert!(false, "unexpected error: {}", other),
            },
        }
    }

    #[test]
    fn flow_files_round_trip_through_ron(flow in random_flow()) {
        let text = flow.to_ron();
        let options = ron::Options::default();
        let back: FlowTemplate = options.from_str(&text).unwrap();
        prop_assert_eq!(back, flow);
    }
}

#[test]
fn a_good_share_of_random_flows_is_valid() {
    // Guards the generator above: if it only made invalid flows, the property would be empty.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = random_flow();
    let valid = (0..500)
        .filter(|_| {
            strategy
                .new_tree(&mut runner)
                .unwrap()
                .current()
                .validate("x")
                .is_ok()
        })
        .count();
    assert!(valid >= 50, "only {valid} of 500 random flows are valid");
}
