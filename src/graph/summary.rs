//! A level graph at a glance: the counts and facts a designer reads first (rooms by kind, loops,
//! locks and where their openers lie, dead ends, depths of the boss and the exit, planarity,
//! composites, injected rooms). `levelplan generate` prints it; the statistics of many levels
//! build on it.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::composite::{CompositeKind, decompose};
use super::flow::Placement;
use super::level::{LevelGraph, LinkId, LinkKind, LinkRole, Lock, RoomId, RoomKind, RoomOrigin};
use super::{cycle_rank, dead_ends, distances_from, is_planar};

/// What [`GraphSummary::of`] found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphSummary {
    /// Rooms.
    pub rooms: usize,
    /// Links.
    pub links: usize,
    /// Independent cycles (links minus rooms plus parts).
    pub cycle_rank: usize,
    /// Links with the loop role.
    pub loop_edges: usize,
    /// Locked links.
    pub locks: usize,
    /// One-way links.
    pub one_way: usize,
    /// Rooms per kind name, in name order.
    pub rooms_by_kind: BTreeMap<String, usize>,
    /// The entrance; without one, the summary's text stops after the room kinds.
    pub entrance: Option<RoomId>,
    /// Boss and exit rooms with their distance (in links) from the entrance.
    pub depths: Vec<(RoomKind, RoomId, u32)>,
    /// Rooms with one link.
    pub dead_ends: usize,
    /// Whether the graph can be drawn without crossings (else no layout exists).
    pub planar: bool,
    /// The loop composites: rooms in each and whether it is one-way.
    pub loop_composites: Vec<(usize, bool)>,
    /// The tree composites.
    pub tree_composites: usize,
    /// The loop links: `(link, from, to, kind)`.
    pub loop_links: Vec<(LinkId, RoomId, RoomId, LinkKind)>,
    /// Every lock with its ends and the rooms holding an opener of its id.
    pub lock_list: Vec<LockSummary>,
    /// Rooms added by injection rules: `(room, kind, rule, where it went)`.
    pub injected: Vec<(RoomId, RoomKind, String, Placement)>,
}

/// One lock of a [`GraphSummary`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockSummary {
    /// The locked link.
    pub link: LinkId,
    /// Its `from` room.
    pub from: RoomId,
    /// Its `to` room.
    pub to: RoomId,
    /// The lock.
    pub lock: Lock,
    /// The rooms holding an opener with the lock's id, with their kinds.
    pub holders: Vec<(RoomId, RoomKind)>,
}

impl GraphSummary {
    /// Summarises `graph`.
    ///
    /// # Complexity
    /// `O(V + E)` for the counts, plus the loop decomposition and the planarity test (both
    /// near linear), plus `O(L · V)` for the openers of `L` locks.
    ///
    /// # Examples
    /// ```
    /// use levelplan::FlowTemplate;
    /// use levelplan::graph::summary::GraphSummary;
    /// let level = FlowTemplate::builtin("classic").unwrap().generate(1, &Default::default())?;
    /// let summary = GraphSummary::of(&level);
    /// assert_eq!(summary.rooms, level.room_count());
    /// assert!(summary.to_string().contains("rooms by kind: "));
    /// # Ok::<(), levelplan::FlowError>(())
    /// ```
    pub fn of(graph: &LevelGraph) -> GraphSummary {
        let mut rooms_by_kind: BTreeMap<String, usize> = BTreeMap::new();
        for (_, r) in graph.rooms() {
            *rooms_by_kind.entry(r.kind.name().to_string()).or_default() += 1;
        }
        let mut depths = Vec::new();
        if let Some(entrance) = graph.entrance() {
            let dist = distances_from(graph, entrance);
            for kind in [RoomKind::Boss, RoomKind::Exit] {
                for r in graph.rooms_of_kind(&kind) {
                    if let Some(&d) = dist.get(&r) {
                        depths.push((kind.clone(), r, d));
                    }
                }
            }
        }
        let composites = decompose(graph);
        let loop_composites: Vec<(usize, bool)> = composites
            .composites
            .iter()
            .filter(|c| c.is_loop())
            .map(|c| {
                (
                    c.rooms.len(),
                    matches!(c.kind, CompositeKind::Loop { one_way: true }),
                )
            })
            .collect();
        let lock_list = graph
            .locks()
            .map(|(link, lock)| {
                let (from, to) = graph.endpoints(link).expect("a lock's link");
                let holders = graph
                    .rooms()
                    .filter(|(_, r)| {
                        r.items
                            .iter()
                            .any(|i| i.opens().map(|(k, _)| k) == Some(lock.by))
                    })
                    .map(|(id, r)| (id, r.kind.clone()))
                    .collect();
                LockSummary {
                    link,
                    from,
                    to,
                    lock,
                    holders,
                }
            })
            .collect();
        GraphSummary {
            rooms: graph.room_count(),
            links: graph.link_count(),
            cycle_rank: cycle_rank(graph),
            loop_edges: graph
                .links()
                .filter(|(.., l)| l.role == LinkRole::Loop)
                .count(),
            locks: graph.locks().count(),
            one_way: graph
                .links()
                .filter(|(.., l)| l.kind == LinkKind::OneWay)
                .count(),
            rooms_by_kind,
            entrance: graph.entrance(),
            depths,
            dead_ends: dead_ends(graph).len(),
            planar: is_planar(graph),
            tree_composites: composites.composites.len() - loop_composites.len(),
            loop_composites,
            loop_links: graph
                .links()
                .filter(|(.., l)| l.role == LinkRole::Loop)
                .map(|(id, from, to, l)| (id, from, to, l.kind))
                .collect(),
            lock_list,
            injected: graph
                .rooms()
                .filter_map(|(id, r)| match &r.origin {
                    RoomOrigin::Injected { rule, placement } => {
                        Some((id, r.kind.clone(), rule.clone(), placement.clone()))
                    }
                    _ => None,
                })
                .collect(),
        }
    }
}

impl fmt::Display for GraphSummary {
    /// The summary as `levelplan generate` prints it: one fact a line, indented by two.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  {} rooms, {} links, {} independent cycles ({} loop edges), {} locks, {} one-way links",
            self.rooms, self.links, self.cycle_rank, self.loop_edges, self.locks, self.one_way
        )?;
        let kinds: Vec<String> = self
            .rooms_by_kind
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        writeln!(f, "  rooms by kind: {}", kinds.join(", "))?;
        if self.entrance.is_none() {
            return Ok(());
        }
        for (kind, room, depth) in &self.depths {
            writeln!(f, "  {kind} {room} is {depth} rooms from the entrance")?;
        }
        writeln!(f, "  dead ends: {}", self.dead_ends)?;
        writeln!(
            f,
            "  planar: {}",
            if self.planar {
                "yes"
            } else {
                "no (no layout can exist)"
            }
        )?;
        let loops: Vec<String> = self
            .loop_composites
            .iter()
            .map(|&(rooms, one_way)| {
                if one_way {
                    format!("{rooms} rooms, one-way")
                } else {
                    format!("{rooms} rooms")
                }
            })
            .collect();
        writeln!(
            f,
            "  composites: {} loops{}, {} trees",
            loops.len(),
            if loops.is_empty() {
                String::new()
            } else {
                format!(" ({})", loops.join("; "))
            },
            self.tree_composites
        )?;
        for (id, from, to, kind) in &self.loop_links {
            let way = if *kind == LinkKind::OneWay {
                "one-way"
            } else {
                "two-way"
            };
            writeln!(f, "  loop {id}: {from} -> {to} ({way}, {kind:?})")?;
        }
        for l in &self.lock_list {
            let holders: Vec<String> = l
                .holders
                .iter()
                .map(|(room, kind)| format!("{room} ({kind})"))
                .collect();
            writeln!(
                f,
                "  lock {}: {} -> {} needs {:?} {}, found in {}",
                l.link,
                l.from,
                l.to,
                l.lock.opener,
                l.lock.by,
                if holders.is_empty() {
                    "nowhere".to_string()
                } else {
                    holders.join(", ")
                }
            )?;
        }
        for (id, kind, rule, placement) in &self.injected {
            writeln!(
                f,
                "  injected {id} ({kind}) by rule \"{rule}\", {}",
                placement.name()
            )?;
        }
        Ok(())
    }
}
