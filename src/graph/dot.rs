//! DOT (Graphviz) export of a level graph, for designers inspecting it.
//!
//! Room kinds get their own shape and colour; labels give the kind and id (and keys held);
//! locked links are red and labelled with their key; one-way links carry a single arrow while
//! two-way links carry none; secret links are dashed, windows dotted, warps dotted blue; loop
//! edges are drawn bold blue and do not constrain the tree's ranks, so the spanning tree reads
//! top to bottom and the loops stand out.

use std::fmt::Write;

use super::composite::{CompositeKind, Decomposition};
use super::level::{Item, LevelGraph, LinkKind, LinkRole, Opener, RoomKind, RoomOrigin};

/// Shape and fill colour of a room kind.
fn style(kind: &RoomKind) -> (&'static str, &'static str) {
    match kind {
        RoomKind::Entrance => ("house", "#8fd18f"),
        RoomKind::Exit => ("invhouse", "#8fbcd1"),
        RoomKind::Boss => ("doubleoctagon", "#e07a6f"),
        RoomKind::Reward => ("box3d", "#f2d35c"),
        RoomKind::Shop => ("cylinder", "#c9a0dc"),
        RoomKind::Secret => ("note", "#bbbbbb"),
        RoomKind::Hub => ("hexagon", "#f5b971"),
        RoomKind::Connector => ("ellipse", "#eeeeee"),
        RoomKind::Normal => ("box", "#ffffff"),
        RoomKind::Custom(_) => ("component", "#d9ead3"),
    }
}

/// Escapes a string for a double-quoted DOT id or label.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The level graph as a DOT digraph named `name`.
///
/// # Complexity
/// `O(V + E)`.
///
/// # Examples
/// ```
/// use levelplan::{LevelGraph, Link, LinkKind, Room, RoomKind};
/// let mut g = LevelGraph::new();
/// let a = g.add_room(Room::new(RoomKind::Entrance));
/// let b = g.add_room(Room::new(RoomKind::Reward));
/// g.add_link(a, b, Link::new(LinkKind::OneWay));
/// let dot = levelplan::graph::to_dot(&g, "demo");
/// assert!(dot.starts_with("digraph \"demo\" {"));
/// assert!(dot.contains("r0 -> r1"));
/// ```
pub fn to_dot(graph: &LevelGraph, name: &str) -> String {
    write_dot(graph, name, None)
}

/// The level graph as a DOT digraph with each composite of `decomposition` drawn as a cluster
/// (loops blue, one-way loops purple, trees grey), labelled with its kind and number.
///
/// # Complexity
/// `O(V + E)`.
///
/// # Examples
/// ```
/// use levelplan::{Conditions, FlowTemplate};
/// use levelplan::graph::{composite::decompose, to_dot_with_composites};
/// let g = FlowTemplate::builtin("big_loop").unwrap().generate(1, &Conditions::default())?;
/// let dot = to_dot_with_composites(&g, "big loop", &decompose(&g));
/// assert!(dot.contains("subgraph cluster_0"));
/// # Ok::<(), levelplan::FlowError>(())
/// ```
pub fn to_dot_with_composites(
    graph: &LevelGraph,
    name: &str,
    decomposition: &Decomposition,
) -> String {
    write_dot(graph, name, Some(decomposition))
}

fn write_dot(graph: &LevelGraph, name: &str, decomposition: Option<&Decomposition>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(name));
    let _ = writeln!(
        out,
        "  graph [rankdir=TB, fontname=\"Helvetica\", label={}, labelloc=t];",
        quote(name)
    );
    let _ = writeln!(
        out,
        "  node [fontname=\"Helvetica\", fontsize=10, style=filled];"
    );
    let _ = writeln!(out, "  edge [fontname=\"Helvetica\", fontsize=9];");
    // Each room's statement, by room id slot, so clusters can pick theirs.
    let mut room_lines: Vec<Option<String>> = vec![None; graph.room_bound()];
    for (id, room) in graph.rooms() {
        let (shape, fill) = style(&room.kind);
        let mut label = format!("{} {}", room.kind.name(), id);
        match &room.origin {
            RoomOrigin::FlowNode { node } => {
                let _ = write!(label, "\n{node}");
            }
            RoomOrigin::Chain { node, index } => {
                let _ = write!(label, "\n{node}[{index}]");
            }
            RoomOrigin::Injected { rule, .. } => {
                let _ = write!(label, "\n+{rule}");
            }
            RoomOrigin::Authored => {}
        }
        for item in &room.items {
            let text = match item {
                Item::Key(k) => format!("key {k}"),
                Item::Switch(k) => format!("switch {k}"),
                Item::Task(k) => format!("task {k}"),
                Item::SmallKey(k) => format!("small key {k}"),
                Item::Named(n) => n.clone(),
            };
            let _ = write!(label, "\n[{text}]");
        }
        if !room.tags.is_empty() {
            let tags: Vec<&str> = room.tags.iter().map(String::as_str).collect();
            let _ = write!(label, "\n#{}", tags.join(" #"));
        }
        let line = format!(
            "{id} [shape={shape}, fillcolor={}, label={}];",
            quote(fill),
            quote(&label)
        );
        room_lines[id.0 as usize] = Some(line);
    }
    match decomposition {
        None => {
            for line in room_lines.iter().flatten() {
                let _ = writeln!(out, "  {line}");
            }
        }
        Some(d) => {
            for (i, c) in d.composites.iter().enumerate() {
                let (label, color) = match c.kind {
                    CompositeKind::Loop { one_way: false } => (format!("loop {i}"), "#1f5fbf"),
                    CompositeKind::Loop { one_way: true } => {
                        (format!("one-way loop {i}"), "#8e44ad")
                    }
                    CompositeKind::Tree => (format!("tree {i}"), "#999999"),
                };
                let _ = writeln!(out, "  subgraph cluster_{i} {{");
                let _ = writeln!(
                    out,
                    "    label={}; color={}; style=dashed; fontcolor={};",
                    quote(&label),
                    quote(color),
                    quote(color)
                );
                for r in &c.rooms {
                    if let Some(line) = room_lines.get_mut(r.0 as usize).and_then(Option::take) {
                        let _ = writeln!(out, "    {line}");
                    }
                }
                let _ = writeln!(out, "  }}");
            }
            // Rooms the decomposition does not know (it was made for another graph).
            for line in room_lines.iter().flatten() {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    for (_, from, to, link) in graph.links() {
        let mut attrs: Vec<String> = Vec::new();
        let style = match link.kind {
            LinkKind::Door | LinkKind::OneWay => "solid",
            LinkKind::Secret => "dashed",
            LinkKind::Window | LinkKind::Warp => "dotted",
            LinkKind::Open => "bold",
        };
        attrs.push(format!("style={style}"));
        attrs.push(if link.kind == LinkKind::OneWay {
            "dir=forward".into()
        } else {
            "dir=none".into()
        });
        let mut color = match link.kind {
            LinkKind::Warp => "#3366cc",
            LinkKind::Window => "#888888",
            _ => "black",
        };
        if link.role == LinkRole::Loop {
            color = "#1f5fbf";
            attrs.push("penwidth=2.2".into());
            attrs.push("constraint=false".into());
        }
        let mut label = Vec::new();
        if link.role == LinkRole::Loop {
            label.push("loop".to_string());
        }
        match link.kind {
            LinkKind::Secret => label.push("secret".into()),
            LinkKind::Window => label.push("window".into()),
            LinkKind::Warp => label.push("warp".into()),
            LinkKind::OneWay => label.push("one-way".into()),
            _ => {}
        }
        if let Some(lock) = link.lock {
            color = "#c0392b";
            let by = match lock.opener {
                Opener::Key => "key",
                Opener::Switch => "switch",
                Opener::Task => "task",
                Opener::SmallKey => "small key",
            };
            label.push(format!("locked: {by} {}", lock.by));
        }
        attrs.push(format!("color={}", quote(color)));
        if !label.is_empty() {
            attrs.push(format!("label={}", quote(&label.join("\n"))));
        }
        let _ = writeln!(out, "  {from} -> {to} [{}];", attrs.join(", "));
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::level::KeyId;
    use crate::graph::{Link, Lock, Room};

    #[test]
    fn labels_are_escaped() {
        assert_eq!(quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    }

    #[test]
    fn locks_and_one_way_links_are_drawn() {
        let mut g = LevelGraph::new();
        let a = g.add_room(Room::new(RoomKind::Entrance));
        let b = g.add_room(Room::new(RoomKind::Boss));
        let c = g.add_room(Room::new(RoomKind::Reward));
        g.add_link(
            a,
            b,
            Link::door().with_lock(Lock {
                by: KeyId(3),
                opener: Opener::Key,
            }),
        );
        g.add_link(b, c, Link::new(LinkKind::OneWay).with_role(LinkRole::Loop));
        let dot = to_dot(&g, "t");
        assert!(dot.contains("locked: key k3"));
        assert!(dot.contains("r1 -> r2 [style=solid, dir=forward"));
        assert!(dot.contains("constraint=false"));
        assert!(dot.contains("shape=doubleoctagon"));
    }
}
