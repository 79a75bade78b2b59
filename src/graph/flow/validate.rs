//! Up-front checks of a flow template, with errors that name the file, the node and the field.

use std::collections::{BTreeMap, BTreeSet};

use super::build::MAX_ROOMS;
use super::chain::MAX_CHAIN_LENGTH;

/// Most nodes a flow may have.
const MAX_NODES: usize = MAX_ROOMS;

/// Most copies of one sub-chain in a level.
const MAX_COPIES: u32 = 64;
use super::{DoorType, FlowError, FlowTemplate, NodeType, Priority};
use crate::graph::level::RoomKind;

struct Checker<'a> {
    flow: &'a FlowTemplate,
    file: &'a str,
}

impl Checker<'_> {
    fn invalid(&self, place: String, field: &str, problem: String) -> FlowError {
        FlowError::Invalid {
            file: self.file.to_string(),
            place,
            field: field.to_string(),
            problem,
        }
    }

    fn unknown(&self, place: String, field: &str, name: &str) -> FlowError {
        let known = self
            .flow
            .nodes
            .iter()
            .map(|n| format!("\"{}\"", n.id))
            .collect::<Vec<_>>()
            .join(", ");
        FlowError::UnknownNode {
            file: self.file.to_string(),
            place,
            field: field.to_string(),
            name: name.to_string(),
            known,
        }
    }

    fn chain_letters(&self, node: &str, field: &str, letters: &str) -> Result<(), FlowError> {
        for c in letters.chars() {
            match RoomKind::from_chain_letter(c) {
                None => {
                    return Err(self.invalid(
                        format!("node \"{node}\""),
                        field,
                        format!(
                            "\"{letters}\" has the letter '{c}', which names no room kind; \
                             valid letters: b (boss), c (connector), h (hub), n (normal), \
                             r (reward), s (shop), t (secret), x (exit)"
                        ),
                    ));
                }
                Some(RoomKind::Entrance) => {
                    return Err(self.invalid(
                        format!("node \"{node}\""),
                        field,
                        format!(
                            "\"{letters}\" has the letter 'e' (entrance); a flow has exactly one \
                             entrance, its root, so chains may not make another"
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

fn probability(p: f64) -> bool {
    p.is_finite() && (0.0..=1.0).contains(&p)
}

pub(super) fn validate(flow: &FlowTemplate, file: &str) -> Result<(), FlowError> {
    let ck = Checker { flow, file };
    if flow.nodes.is_empty() {
        return Err(ck.invalid(
            "flow".into(),
            "nodes",
            "is empty; a flow needs at least its root".into(),
        ));
    }

    if flow.nodes.len() > MAX_NODES {
        return Err(ck.invalid(
            "flow".into(),
            "nodes",
            format!(
                "has {} nodes; a flow may have at most {MAX_NODES}",
                flow.nodes.len()
            ),
        ));
    }

    // Ids.
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, n) in flow.nodes.iter().enumerate() {
        if n.id.is_empty() {
            return Err(ck.invalid(
                format!("node #{i}"),
                "id",
                "is empty; every node needs an id".into(),
            ));
        }
        if index.insert(n.id.as_str(), i).is_some() {
            return Err(ck.invalid(
                format!("node \"{}\"", n.id),
                "id",
                "is used by two nodes; node ids must be unique".into(),
            ));
        }
    }

    // Edges: known ends, one parent each.
    let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
    let mut children: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (i, e) in flow.edges.iter().enumerate() {
        let place = || format!("edge #{i} ({} -> {})", e.from, e.to);
        if !index.contains_key(e.from.as_str()) {
            return Err(ck.unknown(place(), "from", &e.from));
        }
        if !index.contains_key(e.to.as_str()) {
            return Err(ck.unknown(place(), "to", &e.to));
        }
        if e.from == e.to {
            return Err(ck.invalid(
                place(),
                "to",
                "is the same node as `from`; an edge joins two different nodes".into(),
            ));
        }
        if let Some(p) = parent.insert(e.to.as_str(), e.from.as_str()) {
            return Err(ck.invalid(
                format!("node \"{}\"", e.to),
                "edges",
                format!(
                    "has two parents, \"{p}\" and \"{}\"; a tree edge gives a node exactly one \
                     parent: make the second connection a loop edge (`loops`)",
                    e.from
                ),
            ));
        }
        children
            .entry(e.from.as_str())
            .or_default()
            .push(e.to.as_str());
    }

    // Root.
    let Some(&root_ix) = index.get(flow.root.as_str()) else {
        return Err(ck.unknown("flow".into(), "root", &flow.root));
    };
    let root = &flow.nodes[root_ix];
    let root_place = format!("node \"{}\"", root.id);
    if root.kind != RoomKind::Entrance {
        return Err(ck.invalid(
            root_place,
            "kind",
            format!("is {:?}, but the root must be the Entrance", root.kind),
        ));
    }
    if root.node_type != NodeType::Room
        || root.priority != Priority::Mandatory
        || root.chance != 1.0
        || root.subchain.is_some()
    {
        return Err(ck.invalid(
            root_place,
            "node_type",
            "the root must be a plain, mandatory Room with chance 1 and no `subchain`".into(),
        ));
    }

    // Tree cycles: follow parent pointers, each node at most once over all walks (O(n)).
    // 0: not seen, 1: on the current walk, 2: known to lead to a node without parent.
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    for n in &flow.nodes {
        let mut path: Vec<&str> = Vec::new();
        let mut at = n.id.as_str();
        loop {
            match state.get(at).copied().unwrap_or(0) {
                2 => break,
                1 => {
                    let pos = path.iter().position(|&x| x == at).unwrap_or(0);
                    let mut cycle: Vec<&str> = path[pos..].to_vec();
                    cycle.reverse();
                    // Start from the node that comes first in the file, for a stable message.
                    let first = (0..cycle.len())
                        .min_by_key(|&i| index[cycle[i]])
                        .unwrap_or(0);
                    cycle.rotate_left(first);
                    cycle.push(cycle[0]);
                    return Err(FlowError::TreeCycle {
                        file: file.to_string(),
                        cycle: cycle
                            .iter()
                            .map(|c| format!("\"{c}\""))
                            .collect::<Vec<_>>()
                            .join(" -> "),
                    });
                }
                _ => {
                    state.insert(at, 1);
                    path.push(at);
                    match parent.get(at) {
                        Some(&p) => at = p,
                        None => break,
                    }
                }
            }
        }
        for p in path {
            state.insert(p, 2);
        }
    }

    // Selector children (their chance is a weight) and pools.
    let mut selector_child: BTreeSet<&str> = BTreeSet::new();
    let mut pools: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for n in &flow.nodes {
        if let NodeType::Selector { .. } = n.node_type {
            selector_child.extend(children.get(n.id.as_str()).into_iter().flatten().copied());
        }
        if let Some(m) = &n.subchain {
            pools
                .entry(m.pool.as_str())
                .or_default()
                .push(n.id.as_str());
        }
    }

    // Nodes one by one.
    for n in &flow.nodes {
        let place = || format!("node \"{}\"", n.id);
        let kids = children.get(n.id.as_str()).map(Vec::len).unwrap_or(0);
        if n.id != flow.root && n.kind == RoomKind::Entrance {
            return Err(ck.invalid(
                place(),
                "kind",
                format!(
                    "is Entrance, but only the root \"{}\" may be the entrance",
                    flow.root
                ),
            ));
        }
        if selector_child.contains(n.id.as_str()) {
            if !(n.chance.is_finite() && n.chance >= 0.0) {
                return Err(ck.invalid(
                    place(),
                    "chance",
                    format!(
                        "is {}; as a selector's child it is a weight, a number >= 0",
                        n.chance
                    ),
                ));
            }
        } else {
            if !probability(n.chance) {
                return Err(ck.invalid(
                    place(),
                    "chance",
                    format!("is {}; it must be a probability between 0 and 1", n.chance),
                ));
            }
            if n.priority == Priority::Mandatory && n.chance < 1.0 {
                return Err(ck.invalid(place(),
                    "chance",
                    format!("is {} but the node is Mandatory, and mandatory nodes are always built; set `priority: Optional` or `chance: 1.0`", n.chance),
                ));
            }
        }
        if let Some(m) = &n.subchain {
            if let Some(p) = parent.get(n.id.as_str()) {
                return Err(ck.invalid(place(),
                    "subchain",
                    format!("the node is the root of a sub-chain in pool \"{}\" but also the child of \"{p}\"; a sub-chain root hangs from no tree edge", m.pool),
                ));
            }
            if m.max_copies == 0 || m.max_copies > MAX_COPIES {
                return Err(ck.invalid(
                    place(),
                    "subchain.max_copies",
                    format!("is {}; it must be between 1 and {MAX_COPIES}", m.max_copies),
                ));
            }
        }
        match &n.node_type {
            NodeType::Room => {}
            NodeType::Chain {
                initial,
                min,
                max,
                rules,
            } => {
                let (min, max) = (*min, *max);
                let chain_err = |problem: String| FlowError::ChainLength {
                    file: file.to_string(),
                    node: n.id.clone(),
                    problem,
                };
                if min == 0 {
                    return Err(chain_err("min is 0; a chain has at least 1 room".into()));
                }
                if min > max {
                    return Err(chain_err(format!(
                        "min {min} is greater than max {max}; valid bounds have 1 <= min <= max <= {MAX_CHAIN_LENGTH}"
                    )));
                }
                if max > MAX_CHAIN_LENGTH {
                    return Err(chain_err(format!(
                        "max {max} is above the limit of {MAX_CHAIN_LENGTH} rooms"
                    )));
                }
                if initial.is_empty() {
                    return Err(ck.invalid(
                        place(),
                        "node_type.initial",
                        "is empty; a chain starts from at least one letter".into(),
                    ));
                }
                ck.chain_letters(&n.id, "node_type.initial", initial)?;
                if initial.len() as u32 > max {
                    return Err(chain_err(format!(
                        "the initial chain \"{initial}\" has {} rooms, more than max {max}",
                        initial.len()
                    )));
                }
                for (i, r) in rules.iter().enumerate() {
                    let field = format!("node_type.rules[{i}]");
                    if r.form.is_empty() {
                        return Err(ck.invalid(
                            place(),
                            &format!("{field}.form"),
                            "is empty; a rule replaces at least one letter".into(),
                        ));
                    }
                    if r.target.is_empty() {
                        return Err(ck.invalid(
                            place(),
                            &format!("{field}.target"),
                            "is empty; a rule must leave at least one letter".into(),
                        ));
                    }
                    ck.chain_letters(&n.id, &format!("{field}.form"), &r.form)?;
                    ck.chain_letters(&n.id, &format!("{field}.target"), &r.target)?;
                    if !(r.weight.is_finite() && r.weight >= 0.0) {
                        return Err(ck.invalid(
                            place(),
                            &format!("{field}.weight"),
                            format!("is {}; it must be a number >= 0", r.weight),
                        ));
                    }
                    if r.mandatory && r.target.contains(r.form.as_str()) {
                        return Err(chain_err(format!(
                            "mandatory rule #{i} (\"{}\" -> \"{}\") keeps its own form in its target, so it would apply forever",
                            r.form, r.target
                        )));
                    }
                }
                if (initial.len() as u32) < min {
                    // Growth needs a lengthening rule whose form can ever appear: in the initial
                    // string or in some rule's target.
                    let can_grow = rules.iter().any(|r| {
                        r.target.len() > r.form.len()
                            && r.weight > 0.0
                            && (initial.contains(r.form.as_str())
                                || rules.iter().any(|q| q.target.contains(r.form.as_str())))
                    });
                    if !can_grow {
                        return Err(chain_err(format!(
                            "the initial chain \"{initial}\" has {} rooms, fewer than min {min}, and no rule can lengthen it; \
                             add a rule whose form occurs in \"{initial}\" and whose target is longer",
                            initial.len()
                        )));
                    }
                }
            }
            NodeType::Selector {
                min,
                max,
                duplicates,
            } => {
                if min > max {
                    return Err(ck.invalid(
                        place(),
                        "node_type",
                        format!("selector min {min} is greater than max {max}"),
                    ));
                }
                if kids == 0 {
                    return Err(ck.invalid(place(), "node_type", "is a Selector with no children; give it tree edges to the nodes it chooses from".into()));
                }
                if !duplicates && *min as usize > kids {
                    return Err(ck.invalid(place(),
                        "node_type",
                        format!("selector min is {min} but it has only {kids} children and `duplicates` is false; valid: min <= {kids}"),
                    ));
                }
            }
            NodeType::SubChain { pools: wanted } => {
                if wanted.is_empty() {
                    return Err(ck.invalid(
                        place(),
                        "node_type.pools",
                        "is empty; name at least one pool".into(),
                    ));
                }
                for p in wanted {
                    if !pools.contains_key(p.as_str()) {
                        let known: Vec<String> = pools.keys().map(|k| format!("\"{k}\"")).collect();
                        return Err(ck.invalid(
                            place(),
                            "node_type.pools",
                            format!(
                                "names pool \"{p}\", which no node belongs to; known pools: {}",
                                if known.is_empty() {
                                    "none (mark sub-chain roots with `subchain: (pool: ...)`)"
                                        .to_string()
                                } else {
                                    known.join(", ")
                                }
                            ),
                        ));
                    }
                }
                if kids > 0 {
                    return Err(ck.invalid(place(),
                        "edges",
                        "a SubChain node is replaced by the sub-chain it picks, so it cannot have children of its own; put them in the sub-chain".into(),
                    ));
                }
            }
        }
    }

    // Reachability from the root, through tree edges and used pools.
    let mut reached: BTreeSet<&str> = BTreeSet::new();
    let mut stack = vec![flow.root.as_str()];
    while let Some(id) = stack.pop() {
        if !reached.insert(id) {
            continue;
        }
        stack.extend(children.get(id).into_iter().flatten().copied());
        if let NodeType::SubChain { pools: wanted } = &flow.nodes[index[id]].node_type {
            for p in wanted {
                stack.extend(pools.get(p.as_str()).into_iter().flatten().copied());
            }
        }
    }
    if let Some(n) = flow.nodes.iter().find(|n| !reached.contains(n.id.as_str())) {
        return Err(FlowError::Unreachable {
            file: file.to_string(),
            node: n.id.clone(),
            root: flow.root.clone(),
        });
    }

    // Loops.
    let tree_pairs: BTreeSet<(&str, &str)> = flow
        .edges
        .iter()
        .flat_map(|e| {
            [
                (e.from.as_str(), e.to.as_str()),
                (e.to.as_str(), e.from.as_str()),
            ]
        })
        .collect();
    for (i, l) in flow.loops.iter().enumerate() {
        let place = || format!("loop #{i} ({} -> {})", l.from, l.to);
        for (field, name) in [("from", &l.from), ("to", &l.to)] {
            let Some(&ix) = index.get(name.as_str()) else {
                return Err(ck.unknown(place(), field, name));
            };
            if matches!(
                flow.nodes[ix].node_type,
                NodeType::Selector { .. } | NodeType::SubChain { .. }
            ) {
                return Err(ck.invalid(place(),
                    field,
                    format!("names \"{name}\", a Selector or SubChain node, which builds no room of its own; a loop must join two Room or Chain nodes"),
                ));
            }
        }
        if l.from == l.to {
            return Err(ck.invalid(
                place(),
                "to",
                "is the same node as `from`; a loop joins two different nodes".into(),
            ));
        }
        if tree_pairs.contains(&(l.from.as_str(), l.to.as_str())) {
            return Err(ck.invalid(place(),
                "to",
                "the two nodes are already joined by a tree edge; a loop edge must close a cycle through other rooms".into(),
            ));
        }
    }

    // One-way tree doors must not strand the player.
    for (i, e) in flow.edges.iter().enumerate() {
        if e.door != DoorType::OneWay {
            continue;
        }
        let mut below: BTreeSet<&str> = BTreeSet::new();
        let mut stack = vec![e.to.as_str()];
        while let Some(id) = stack.pop() {
            if below.insert(id) {
                stack.extend(children.get(id).into_iter().flatten().copied());
            }
        }
        let has_exit = below
            .iter()
            .any(|id| flow.nodes[index[id]].kind == RoomKind::Exit);
        let way_back = flow.loops.iter().any(|l| {
            let (inside_from, inside_to) = (
                below.contains(l.from.as_str()),
                below.contains(l.to.as_str()),
            );
            (inside_from && !inside_to) || (inside_to && !inside_from && l.door != DoorType::OneWay)
        });
        if !has_exit && !way_back {
            return Err(ck.invalid(
                format!("edge #{i} ({} -> {})", e.from, e.to),
                "door",
                format!(
                    "is OneWay into \"{}\", but nothing below it leads back (no exit and no loop edge out of its subtree): the player would be stuck; make the door Plain or add a loop edge back",
                    e.to
                ),
            ));
        }
    }

    // Injection rules.
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for s in &flow.injection_sets {
        let place = || format!("injection set \"{}\"", s.name);
        if !probability(s.chance_to_spawn_one) {
            return Err(ck.invalid(
                place(),
                "chance_to_spawn_one",
                format!(
                    "is {}; it must be a probability between 0 and 1",
                    s.chance_to_spawn_one
                ),
            ));
        }
        if s.rules.is_empty() {
            return Err(ck.invalid(
                place(),
                "rules",
                "is empty; a set needs at least one rule".into(),
            ));
        }
    }
    for r in flow.all_injection_rules() {
        let place = || format!("injection \"{}\"", r.name);
        if r.name.is_empty() {
            return Err(ck.invalid(
                "injection".into(),
                "name",
                "is empty; every injection rule needs a name".into(),
            ));
        }
        if !names.insert(r.name.as_str()) {
            return Err(ck.invalid(
                place(),
                "name",
                "is used by two rules; injection rule names must be unique".into(),
            ));
        }
        if r.kind == RoomKind::Entrance {
            return Err(ck.invalid(
                place(),
                "kind",
                "is Entrance; a flow has exactly one entrance, its root".into(),
            ));
        }
        if r.placements.is_empty() {
            return Err(ck.invalid(place(),
                "placements",
                "is empty; give at least one of EndOfChain, RandomChild, BeforeCombat, AfterBoss, HubChainStart, HubChild, NoLink".into(),
            ));
        }
        for (field, p) in [("chance", r.chance), ("lock_chance", r.lock_chance)] {
            if !probability(p) {
                return Err(ck.invalid(
                    place(),
                    field,
                    format!("is {p}; it must be a probability between 0 and 1"),
                ));
            }
        }
        if !(r.weight.is_finite() && r.weight >= 0.0) {
            return Err(ck.invalid(
                place(),
                "weight",
                format!("is {}; it must be a number >= 0", r.weight),
            ));
        }
    }
    Ok(())
}
