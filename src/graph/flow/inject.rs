//! Injection: data-driven rules that add rooms to an instantiated flow.

use std::collections::BTreeSet;

use rand::Rng;

use super::build::door_link;
use super::{Conditions, DoorType, FlowTemplate, InjectionRule, Placement};
use crate::graph::level::{
    LevelGraph, Link, LinkId, LinkKind, LinkRole, Lock, Opener, Room, RoomId, RoomKind, RoomOrigin,
};
use crate::graph::query::{UNREACHED, links_on_cycles, tree_depth_vec};
use crate::seed;

/// Runs the flow's own rules in order, then each injection set.
pub(super) fn run<R: Rng + ?Sized>(
    flow: &FlowTemplate,
    graph: &mut LevelGraph,
    rng: &mut R,
    conditions: &Conditions,
) {
    let mut fired: BTreeSet<String> = BTreeSet::new();
    for rule in &flow.injections {
        try_rule(graph, rng, rule, conditions, &mut fired);
    }
    for set in &flow.injection_sets {
        if set.only_one {
            if !seed::chance(rng, set.chance_to_spawn_one) {
                continue;
            }
            let eligible: Vec<&InjectionRule> = set
                .rules
                .iter()
                .filter(|r| is_eligible(r, conditions, &fired))
                .collect();
            let weights: Vec<f64> = eligible.iter().map(|r| r.weight).collect();
            if let Some(i) = seed::weighted_index(rng, &weights) {
                try_rule(graph, rng, eligible[i], conditions, &mut fired);
            }
        } else {
            let mut order: Vec<usize> = (0..set.rules.len()).collect();
            seed::shuffle(rng, &mut order);
            for i in order {
                try_rule(graph, rng, &set.rules[i], conditions, &mut fired);
            }
        }
    }
}

fn is_eligible(rule: &InjectionRule, conditions: &Conditions, fired: &BTreeSet<String>) -> bool {
    rule.requires.iter().all(|f| conditions.flags.contains(f))
        && !rule.unless.iter().any(|f| conditions.flags.contains(f))
        && !(rule.once_per_run
            && (conditions.spent.contains(&rule.name) || fired.contains(&rule.name)))
}

fn try_rule<R: Rng + ?Sized>(
    graph: &mut LevelGraph,
    rng: &mut R,
    rule: &InjectionRule,
    conditions: &Conditions,
    fired: &mut BTreeSet<String>,
) {
    if !is_eligible(rule, conditions, fired) || !seed::chance(rng, rule.chance) {
        return;
    }
    let placement = rule.placements[seed::index(rng, rule.placements.len())].clone();
    if place(graph, rng, rule, placement).is_some() {
        fired.insert(rule.name.clone());
    }
}

/// Where a new room goes: below a parent, or into an existing tree link.
enum Spot {
    ChildOf(RoomId),
    Into(LinkId),
    Warp(RoomId),
}

/// Adds the rule's room where `placement` allows; `None` if no room qualifies.
fn place<R: Rng + ?Sized>(
    graph: &mut LevelGraph,
    rng: &mut R,
    rule: &InjectionRule,
    placement: Placement,
) -> Option<RoomId> {
    let entrance = graph.entrance()?;
    // The rooms below the entrance with their tree depth, in id order.
    let below: Vec<(RoomId, u32)> = tree_depth_vec(graph, entrance)
        .into_iter()
        .enumerate()
        .filter(|&(_, d)| d != UNREACHED)
        .map(|(i, d)| (RoomId(i as u32), d))
        .collect();
    let rooms_below = || below.iter().map(|&(r, _)| r);
    let pick = |rng: &mut R, v: Vec<RoomId>| -> Option<RoomId> {
        if v.is_empty() {
            None
        } else {
            Some(v[seed::index(rng, v.len())])
        }
    };

    let (spot, used) = match &placement {
        Placement::EndOfChain => {
            let two_way_loop_ends: BTreeSet<RoomId> = graph
                .links()
                .filter(|(_, _, _, l)| l.role == LinkRole::Loop && l.kind != LinkKind::OneWay)
                .flat_map(|(_, a, b, _)| [a, b])
                .collect();
            let leaves: Vec<RoomId> = rooms_below()
                .filter(|&r| {
                    !has_tree_children(graph, r)
                        && !matches!(
                            kind_of(graph, r),
                            RoomKind::Exit | RoomKind::Secret | RoomKind::Boss
                        )
                        && !two_way_loop_ends.contains(&r)
                })
                .collect();
            match pick(rng, leaves) {
                Some(r) => (Spot::ChildOf(r), placement),
                None => {
                    let fallback = Placement::RandomChild { min_distance: 0 };
                    let r = pick(rng, random_child_parents(graph, &below, 0))?;
                    (Spot::ChildOf(r), fallback)
                }
            }
        }
        Placement::RandomChild { min_distance } => {
            let r = pick(rng, random_child_parents(graph, &below, *min_distance))?;
            (Spot::ChildOf(r), placement)
        }
        Placement::BeforeCombat { min_distance } => {
            let mut on_cycle = vec![false; graph.room_bound()];
            for l in links_on_cycles(graph) {
                let (a, b) = graph.endpoints(l).expect("live link");
                on_cycle[a.0 as usize] = true;
                on_cycle[b.0 as usize] = true;
            }
            let combat: Vec<RoomId> = below
                .iter()
                .filter(|&&(r, d)| {
                    d >= *min_distance
                        && d > 0
                        && kind_of(graph, r).is_standard()
                        && !on_cycle[r.0 as usize]
                })
                .map(|&(r, _)| r)
                .collect();
            let r = pick(rng, combat)?;
            let (link, _) = graph.tree_parent(r)?;
            (Spot::Into(link), placement)
        }
        Placement::AfterBoss => {
            let bosses: Vec<RoomId> = rooms_below()
                .filter(|&r| *kind_of(graph, r) == RoomKind::Boss)
                .collect();
            let boss = pick(rng, bosses)?;
            let kids = graph.tree_children(boss);
            match pick(rng, kids) {
                Some(child) => (Spot::Into(graph.tree_parent(child)?.0), placement),
                None => (Spot::ChildOf(boss), placement),
            }
        }
        Placement::HubChainStart => {
            let links: Vec<LinkId> = rooms_below()
                .filter(|&r| *kind_of(graph, r) == RoomKind::Hub)
                .flat_map(|h| graph.tree_children(h))
                .filter_map(|c| graph.tree_parent(c).map(|(l, _)| l))
                .collect();
            if links.is_empty() {
                return None;
            }
            (Spot::Into(links[seed::index(rng, links.len())]), placement)
        }
        Placement::HubChild => {
            let hubs: Vec<RoomId> = rooms_below()
                .filter(|&r| *kind_of(graph, r) == RoomKind::Hub)
                .collect();
            (Spot::ChildOf(pick(rng, hubs)?), placement)
        }
        Placement::NoLink => (Spot::Warp(entrance), placement),
    };

    let room = graph.add_room(Room {
        kind: rule.kind.clone(),
        tags: rule.tags.clone(),
        items: Vec::new(),
        origin: RoomOrigin::Injected {
            rule: rule.name.clone(),
            placement: used,
        },
    });
    let entry = match spot {
        Spot::ChildOf(parent) => {
            let link = door_link(graph, DoorType::Plain, &rule.kind);
            graph.add_link(parent, room, link)
        }
        Spot::Warp(from) => graph.add_link(from, room, Link::new(LinkKind::Warp)),
        Spot::Into(link) => {
            // parent -> room keeps the old link's door and lock; room -> child is a plain door.
            let (parent, child) = graph.endpoints(link)?;
            let old = graph.remove_link(link)?;
            let entry = graph.add_link(parent, room, old);
            graph.add_link(room, child, Link::door());
            entry
        }
    };
    if seed::chance(rng, rule.lock_chance) {
        let key = graph.new_key();
        let link = graph.link_mut(entry).expect("just added");
        if link.lock.is_none() {
            link.lock = Some(Lock {
                by: key,
                opener: Opener::Key,
            });
        }
    }
    Some(room)
}

/// Standard rooms (normal, connector, hub) at tree depth at least `min_distance`.
fn random_child_parents(
    graph: &LevelGraph,
    below: &[(RoomId, u32)],
    min_distance: u32,
) -> Vec<RoomId> {
    below
        .iter()
        .filter(|&&(r, d)| {
            d >= min_distance && graph.room(r).is_some_and(|room| room.kind.is_standard())
        })
        .map(|&(r, _)| r)
        .collect()
}

/// Whether `room` is the tree parent of any room.
fn has_tree_children(graph: &LevelGraph, room: RoomId) -> bool {
    graph
        .links_at(room)
        .any(|(_, _, l, forward)| forward && l.role == LinkRole::Tree)
}

/// The kind of a room known to be in the graph.
fn kind_of(graph: &LevelGraph, room: RoomId) -> &RoomKind {
    &graph.room(room).expect("listed room").kind
}
