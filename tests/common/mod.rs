//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod golden;
pub mod player;
pub mod tile_player;

use std::collections::{BTreeSet, VecDeque};

use levelplan::graph::flow::{FlowTemplate, NodeType, Priority};
use levelplan::{KeyId, LevelGraph, RoomId};

/// Every built-in flow, parsed.
pub fn builtin_flows() -> Vec<FlowTemplate> {
    FlowTemplate::builtin_names()
        .map(|n| FlowTemplate::builtin(n).expect("built-in flow"))
        .collect()
}

/// Rooms a player reaches by walking from the entrance and picking up every key on the way,
/// opening each lock once its key is held (keys are not used up). A fixpoint of reach and
/// collect; a room missing from it cannot be reached in any play.
pub fn greedy_reach(graph: &LevelGraph) -> BTreeSet<RoomId> {
    let start = graph.entrance().expect("entrance");
    let mut held: BTreeSet<KeyId> = BTreeSet::new();
    loop {
        let mut seen = BTreeSet::from([start]);
        let mut queue = VecDeque::from([start]);
        while let Some(r) = queue.pop_front() {
            for (l, next) in graph.exits(r) {
                let open = graph
                    .link(l)
                    .unwrap()
                    .lock
                    .is_none_or(|k| held.contains(&k.by));
                if open && seen.insert(next) {
                    queue.push_back(next);
                }
            }
        }
        let before = held.len();
        for &r in &seen {
            for item in &graph.room(r).unwrap().items {
                if let Some((k, _)) = item.opens() {
                    held.insert(k);
                }
            }
        }
        if held.len() == before {
            return seen;
        }
    }
}

/// Ids of nodes that every instance of `flow` must contain: mandatory Room and Chain nodes whose
/// whole path from the root is mandatory and passes no selector or sub-chain.
pub fn surely_built(flow: &FlowTemplate) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![flow.root.clone()];
    while let Some(id) = stack.pop() {
        let node = flow.node(&id).unwrap();
        let sure = node.priority == Priority::Mandatory
            && matches!(node.node_type, NodeType::Room | NodeType::Chain { .. });
        if !sure {
            continue;
        }
        out.push(id.clone());
        stack.extend(
            flow.edges
                .iter()
                .filter(|e| e.from == id)
                .map(|e| e.to.clone()),
        );
    }
    out
}

/// The classic flow with a room linked to the entrance by a warp only (an injection rule
/// placed `NoLink`, firing every time).
pub fn classic_with_a_warp() -> levelplan::Flow {
    let mut template = FlowTemplate::builtin("classic").expect("built-in flow");
    template
        .injections
        .push(levelplan::graph::flow::InjectionRule {
            name: "teleporter".into(),
            kind: levelplan::RoomKind::Reward,
            tags: Default::default(),
            placements: vec![levelplan::graph::flow::Placement::NoLink],
            chance: 1.0,
            lock_chance: 0.0,
            weight: 1.0,
            once_per_run: false,
            requires: Vec::new(),
            unless: Vec::new(),
        });
    levelplan::Flow::new(template, "classic with a warp").expect("a valid flow")
}
