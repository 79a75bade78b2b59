//! Instantiating a flow template: the tree walk, loops, and key placement.

use std::collections::BTreeMap;

use rand::Rng;

use super::chain::evolve_chain;
use super::{Conditions, DoorType, FlowError, FlowTemplate, NodeType, Priority, inject};
use crate::graph::level::{
    LevelGraph, Link, LinkKind, LinkRole, Lock, Opener, Room, RoomId, RoomKind, RoomOrigin,
};
use crate::graph::lock_and_key::place_openers;
use crate::seed;

/// Most rooms one instantiation may build before it stops with an error (this also bounds the
/// recursion of the tree walk).
pub const MAX_ROOMS: usize = 2000;

/// The lookup tables of a validated flow, built once and shared by every instantiation.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Plan {
    root: usize,
    /// Per node, its tree children as `(door, child node)`, in file order.
    children: Vec<Vec<(DoorType, usize)>>,
    /// Pool name to member node indices, in file order.
    pools: BTreeMap<String, Vec<usize>>,
    /// Loop edges as `(from node, to node, door)`.
    loops: Vec<(usize, usize, DoorType)>,
}

impl Plan {
    /// The tables of `flow`, which must have passed validation (unknown ids are skipped).
    pub(super) fn new(flow: &FlowTemplate) -> Plan {
        let index: BTreeMap<&str, usize> = flow
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        let mut children = vec![Vec::new(); flow.nodes.len()];
        for e in &flow.edges {
            if let (Some(&from), Some(&to)) = (index.get(e.from.as_str()), index.get(e.to.as_str()))
            {
                children[from].push((e.door, to));
            }
        }
        let mut pools: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, n) in flow.nodes.iter().enumerate() {
            if let Some(m) = &n.subchain {
                pools.entry(m.pool.clone()).or_default().push(i);
            }
        }
        let loops = flow
            .loops
            .iter()
            .filter_map(|l| {
                Some((
                    *index.get(l.from.as_str())?,
                    *index.get(l.to.as_str())?,
                    l.door,
                ))
            })
            .collect();
        Plan {
            root: index.get(flow.root.as_str()).copied().unwrap_or(0),
            children,
            pools,
            loops,
        }
    }
}

/// Builds one level graph from a validated flow and its plan.
pub(super) fn instantiate<R: Rng + ?Sized>(
    flow: &FlowTemplate,
    plan: &Plan,
    rng: &mut R,
    conditions: &Conditions,
) -> Result<LevelGraph, FlowError> {
    // Each step has its own stream, so a change in one step's draws leaves the others alone.
    let mut tree_rng = seed::fork(rng);
    let mut inject_rng = seed::fork(rng);
    let mut key_rng = seed::fork(rng);

    let mut b = Builder {
        flow,
        plan,
        built: vec![None; flow.nodes.len()],
        copies: vec![0; flow.nodes.len()],
        tasks: Vec::new(),
        graph: LevelGraph::new(),
    };
    let root = b.add_node_room(plan.root, flow.nodes[plan.root].kind.clone(), None)?;
    b.built[plan.root] = Some(root);
    b.expand_children(plan.root, root);
    while let Some(task) = b.tasks.pop() {
        b.attach(&mut tree_rng, task)?;
    }
    b.add_loops();
    let mut graph = b.graph;
    inject::run(flow, &mut graph, &mut inject_rng, conditions);
    place_openers(&mut graph, &mut key_rng, 1.0);
    Ok(graph)
}

struct Builder<'a> {
    flow: &'a FlowTemplate,
    plan: &'a Plan,
    /// Per node, the room its children and loops hang from (its first copy).
    built: Vec<Option<RoomId>>,
    /// Per node, how often it was grafted as a sub-chain.
    copies: Vec<u32>,
    /// Nodes waiting to be built, the next on top: an explicit stack instead of recursion, so
    /// deep flows cannot overflow the call stack.
    tasks: Vec<Attach>,
    graph: LevelGraph,
}

/// Build `node` under `parent`, entered through `door`; `roll` says whether its include chance
/// is rolled (a selector's chosen children are not: for them the chance was a weight).
#[derive(Clone, Copy)]
struct Attach {
    parent: RoomId,
    node: usize,
    door: DoorType,
    roll: bool,
}

/// The link realising a door of the flow, leading into a room of kind `into`.
pub(super) fn door_link(graph: &mut LevelGraph, door: DoorType, into: &RoomKind) -> Link {
    match door {
        DoorType::Plain if *into == RoomKind::Secret => Link::new(LinkKind::Secret),
        DoorType::Plain => Link::door(),
        DoorType::Secret => Link::new(LinkKind::Secret),
        DoorType::OneWay => Link::new(LinkKind::OneWay),
        DoorType::Locked => Link::door().with_lock(Lock {
            by: graph.new_key(),
            opener: Opener::Key,
        }),
    }
}

impl<'a> Builder<'a> {
    fn add_node_room(
        &mut self,
        node: usize,
        kind: RoomKind,
        chain_index: Option<u32>,
    ) -> Result<RoomId, FlowError> {
        if self.graph.room_count() >= MAX_ROOMS {
            return Err(self.generation_error(
                node,
                format!(
                    "the level grew past {MAX_ROOMS} rooms; lower the selector sizes, chain \
                     lengths or sub-chain copy limits"
                ),
            ));
        }
        let n = &self.flow.nodes[node];
        let origin = match chain_index {
            None => RoomOrigin::FlowNode { node: n.id.clone() },
            Some(index) => RoomOrigin::Chain {
                node: n.id.clone(),
                index,
            },
        };
        Ok(self.graph.add_room(Room {
            kind,
            tags: n.tags.clone(),
            items: Vec::new(),
            origin,
        }))
    }

    fn link(&mut self, from: RoomId, to: RoomId, door: DoorType) {
        let kind = self.graph.room(to).expect("just added").kind.clone();
        let link = door_link(&mut self.graph, door, &kind);
        self.graph.add_link(from, to, link);
    }

    /// Queues the children of `node` under `room`, so that they are built next, in file order
    /// (depth first, as a recursive walk would).
    fn expand_children(&mut self, node: usize, room: RoomId) {
        let plan = self.plan;
        for &(door, child) in plan.children[node].iter().rev() {
            self.tasks.push(Attach {
                parent: room,
                node: child,
                door,
                roll: true,
            });
        }
    }

    fn generation_error(&self, node: usize, problem: String) -> FlowError {
        FlowError::Generation {
            flow: self.flow.name.clone(),
            node: self.flow.nodes[node].id.clone(),
            problem,
        }
    }

    /// Builds one node and queues what hangs below it.
    fn attach<R: Rng + ?Sized>(&mut self, rng: &mut R, task: Attach) -> Result<(), FlowError> {
        let Attach {
            parent,
            node,
            door,
            roll,
        } = task;
        let n = &self.flow.nodes[node];
        if roll && !seed::chance(rng, n.chance) {
            return Ok(());
        }
        match &n.node_type {
            NodeType::Room => {
                let room = self.add_node_room(node, n.kind.clone(), None)?;
                self.link(parent, room, door);
                self.built[node].get_or_insert(room);
                self.expand_children(node, room);
                Ok(())
            }
            NodeType::Chain {
                initial,
                min,
                max,
                rules,
            } => {
                let letters = evolve_chain(rng, initial, *min, *max, rules)
                    .map_err(|p| self.generation_error(node, p))?;
                let mut prev = parent;
                let mut first_door = Some(door);
                for (i, c) in letters.chars().enumerate() {
                    let kind = RoomKind::from_chain_letter(c).unwrap_or(RoomKind::Normal);
                    let room = self.add_node_room(node, kind, Some(i as u32))?;
                    self.link(prev, room, first_door.take().unwrap_or_default());
                    prev = room;
                }
                self.built[node].get_or_insert(prev);
                self.expand_children(node, prev);
                Ok(())
            }
            NodeType::Selector {
                min,
                max,
                duplicates,
            } => {
                let plan = self.plan;
                let kids = &plan.children[node];
                let mut remaining: Vec<f64> = kids
                    .iter()
                    .map(|&(_, child)| self.flow.nodes[child].chance)
                    .collect();
                let mut k = seed::range_inclusive(rng, *min, *max) as usize;
                if !duplicates {
                    k = k.min(kids.len());
                }
                let mut picked: Vec<usize> = Vec::with_capacity(k);
                for _ in 0..k {
                    let Some(i) = seed::weighted_index(rng, &remaining) else {
                        break;
                    };
                    picked.push(i);
                    if !duplicates {
                        remaining[i] = 0.0;
                    }
                }
                picked.sort_unstable();
                for &i in picked.iter().rev() {
                    let (edge_door, child) = kids[i];
                    // A door on the edge into the selector applies to plain edges out of it.
                    let d = if edge_door == DoorType::Plain {
                        door
                    } else {
                        edge_door
                    };
                    self.tasks.push(Attach {
                        parent,
                        node: child,
                        door: d,
                        roll: false,
                    });
                }
                Ok(())
            }
            NodeType::SubChain { pools } => {
                let mut eligible: Vec<usize> = pools
                    .iter()
                    .flat_map(|p| self.plan.pools.get(p).into_iter().flatten().copied())
                    .filter(|&m| {
                        let cap = self.flow.nodes[m]
                            .subchain
                            .as_ref()
                            .map_or(1, |s| s.max_copies);
                        self.copies[m] < cap
                    })
                    .collect();
                eligible.sort_unstable();
                eligible.dedup();
                if eligible.is_empty() {
                    if n.priority == Priority::Optional {
                        return Ok(());
                    }
                    return Err(self.generation_error(
                        node,
                        format!(
                            "every sub-chain of the pools {pools:?} is used up (max_copies reached); \
                             add members to the pools, raise their max_copies, or make this node Optional"
                        ),
                    ));
                }
                let member = eligible[seed::index(rng, eligible.len())];
                self.copies[member] += 1;
                self.tasks.push(Attach {
                    parent,
                    node: member,
                    door,
                    roll: true,
                });
                Ok(())
            }
        }
    }

    fn add_loops(&mut self) {
        for &(from, to, door) in &self.plan.loops {
            let (Some(a), Some(b)) = (self.built[from], self.built[to]) else {
                continue; // one end was not built: no loop
            };
            if a == b || self.graph.links_at(a).any(|(_, o, _, _)| o == b) {
                continue;
            }
            let kind = self.graph.room(b).expect("built").kind.clone();
            let link = door_link(&mut self.graph, door, &kind).with_role(LinkRole::Loop);
            self.graph.add_link(a, b, link);
        }
    }
}
