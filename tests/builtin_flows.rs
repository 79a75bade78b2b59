//! The built-in flows: valid, faithful to their files, each showing its feature.

mod common;

use levelplan::graph::flow::{BUILTIN_FLOWS, DEFAULT_FLOW, DoorType, NodeType};
use levelplan::graph::{cycle_rank, links_on_cycles, to_dot};
use levelplan::{Conditions, FlowTemplate, LinkKind, LinkRole, RoomKind};

#[test]
fn at_least_six_built_in_flows_and_the_default_is_one() {
    assert!(BUILTIN_FLOWS.len() >= 6);
    assert!(FlowTemplate::builtin(DEFAULT_FLOW).is_some());
}

#[test]
fn built_in_flows_are_the_files_in_fixtures() {
    for (name, text) in BUILTIN_FLOWS {
        let path = format!("{}/fixtures/flows/{name}.ron", env!("CARGO_MANIFEST_DIR"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), *text, "{path}");
        let flow = FlowTemplate::load(&path).unwrap();
        assert_eq!(flow.name, *name);
        assert!(!flow.description.is_empty());
        // Written back and read again, a flow is unchanged.
        assert_eq!(
            FlowTemplate::from_ron(&flow.to_ron(), "again").unwrap(),
            flow
        );
    }
}

/// Fraction of 100 seeds for which `property` holds.
fn share(name: &str, property: impl Fn(&levelplan::LevelGraph) -> bool) -> f64 {
    let flow = FlowTemplate::builtin(name).unwrap();
    (0..100)
        .filter(|&s| property(&flow.generate(s, &Conditions::default()).unwrap()))
        .count() as f64
        / 100.0
}

#[test]
fn each_flow_shows_its_feature() {
    // big_loop: a single loop of at least 8 rooms (a cycle of L rooms has L links on it).
    assert_eq!(
        share("big_loop", |g| cycle_rank(g) == 1
            && links_on_cycles(g).len() >= 8),
        1.0
    );
    // fork: a selector of 2..3 wings.
    let fork = FlowTemplate::builtin("fork").unwrap();
    assert!(
        fork.nodes
            .iter()
            .any(|n| matches!(n.node_type, NodeType::Selector { min: 2, max: 3, .. }))
    );
    // one_way_reward: a one-way loop edge leaving a reward room.
    assert_eq!(
        share("one_way_reward", |g| g.links().any(|(_, from, _, l)| {
            l.role == LinkRole::Loop
                && l.kind == LinkKind::OneWay
                && g.room(from).unwrap().kind == RoomKind::Reward
        })),
        1.0
    );
    // hub_spokes: the hub has at least four branches.
    assert_eq!(
        share("hub_spokes", |g| g
            .rooms_of_kind(&RoomKind::Hub)
            .any(|h| g.degree(h) >= 4)),
        1.0
    );
    // long_chain: at least 12 rooms between entrance and boss.
    assert_eq!(
        share("long_chain", |g| {
            let d = levelplan::graph::distances_from(g, g.entrance().unwrap());
            g.rooms_of_kind(&RoomKind::Boss).all(|b| d[&b] >= 10)
        }),
        1.0
    );
    // secrets: at least two secret rooms and a secret loop.
    assert_eq!(
        share("secrets", |g| {
            g.rooms_of_kind(&RoomKind::Secret).count() >= 2
                && g.links()
                    .any(|(.., l)| l.role == LinkRole::Loop && l.kind == LinkKind::Secret)
        }),
        1.0
    );
    // classic: a loop, a lock, and usually a shop.
    assert_eq!(
        share("classic", |g| cycle_rank(g) >= 1 && g.locks().count() >= 1),
        1.0
    );
    assert!(share("classic", |g| g.rooms_of_kind(&RoomKind::Shop).count() == 1) > 0.8);
    let classic = FlowTemplate::builtin("classic").unwrap();
    assert!(classic.edges.iter().any(|e| e.door == DoorType::Locked));
}

#[test]
fn every_built_in_flow_draws_as_dot() {
    for flow in common::builtin_flows() {
        let g = flow.generate(5, &Conditions::default()).unwrap();
        let dot = to_dot(&g, &flow.name);
        assert_eq!(dot.matches(" -> ").count(), g.link_count());
        assert_eq!(dot.matches("shape=").count(), g.room_count());
        assert!(dot.ends_with("}\n"));
    }
}

/// No built-in flow makes a level that needs a hole (a loop drawn round a room with rooms
/// hanging off it, see `graph::enclosures`), neither as instantiated nor after the Gungeon
/// recipe's injections, over 100 seeds each: such levels lay out only where a loop can close
/// by a corridor round the enclosed rooms.
#[test]
fn built_in_flows_never_need_a_hole() {
    use levelplan::Flow;
    use levelplan::graph::enclosures;
    use levelplan::recipes::gungeon::{Generator, GungeonParams};
    for flow in common::builtin_flows() {
        let generator =
            Generator::new(Flow::builtin(&flow.name).unwrap(), GungeonParams::default()).unwrap();
        for s in 0..100 {
            let g = flow.generate(s, &Conditions::default()).unwrap();
            assert_eq!(enclosures(&g), vec![], "{} seed {s}", flow.name);
            let level = generator.generate(s).unwrap();
            assert_eq!(enclosures(&level.graph), vec![], "{} level {s}", flow.name);
        }
    }
}
