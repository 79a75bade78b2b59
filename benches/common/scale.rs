//! The layout benchmark's generated problems, shared by `benches/layout.rs` and
//! `examples/scale_probe.rs` (included by path), so that the probe lays out exactly the
//! problems whose rates the benchmark prints: small rigid rooms and 16 x 16 halls, contact on
//! tree links, contact or a corridor of 4 to 30 cells on the others, 20 attempts each.

use levelplan::LinkRole;
use levelplan::graph::LevelGraph;
use levelplan::graph::random::{
    local_loops_graph, local_loops_graph_without_holes, loop_chain_graph, placed_rooms_graph,
};
use levelplan::layout::{LayoutProblem, LinkSpec, Realise, RetryPolicy, RoomSpec, RoomTemplate};

/// A generated level-like graph (`graph::random::local_loops_graph`): rooms with more than
/// three links are 16 x 16 halls, the rest small rooms; tree links are contact, loop links
/// contact or corridor.
pub fn scale_problem(rooms: usize, loops: usize, seed: u64) -> LayoutProblem {
    graph_problem(&scale_graph(rooms, loops, seed))
}

/// The graph of [`scale_problem`].
pub fn scale_graph(rooms: usize, loops: usize, seed: u64) -> LevelGraph {
    local_loops_graph(
        rooms,
        loops,
        &mut levelplan::seed::stream(seed, "scale graph"),
    )
}

/// A level-like graph that needs no hole (`graph::random::local_loops_graph_without_holes`),
/// rooms and links as in [`scale_problem`].
pub fn open_problem(rooms: usize, loops: usize, seed: u64) -> LayoutProblem {
    graph_problem(&local_loops_graph_without_holes(
        rooms,
        loops,
        &mut levelplan::seed::stream(seed, "scale graph"),
    ))
}

/// A chain of separate loops (`graph::random::loop_chain_graph`), rooms and links as in
/// [`scale_problem`].
pub fn chain_problem(loops: usize, seed: u64) -> LayoutProblem {
    let g = loop_chain_graph(loops, &mut levelplan::seed::stream(seed, "chain graph"));
    graph_problem(&g)
}

/// `problem` with every link allowed a corridor of 4 to 30 cells where it does not touch.
pub fn all_corridors(mut problem: LayoutProblem) -> LayoutProblem {
    for link in &mut problem.links {
        link.realise = Realise::ContactOrPath { min: 4, max: 30 };
    }
    problem
}

/// A graph read off a placement of Edgar's five basic shapes
/// (`graph::random::placed_rooms_graph`), every room free to take any of them, every link a
/// contact: a layout exists by construction.
pub fn placed_problem(rooms: usize, loops: usize, seed: u64) -> LayoutProblem {
    let placed = placed_rooms_graph(
        rooms,
        loops,
        &mut levelplan::seed::stream(seed, "placed rooms"),
    );
    let mut p = LayoutProblem::of_placed_rooms(&placed);
    p.budget.retry = RetryPolicy::Attempts(20);
    p
}

/// The problem of graph `g`: rooms with more than three links are 16 x 16 halls, the rest
/// small rooms; tree links are contact, the others contact or corridor; 20 attempts.
fn graph_problem(g: &LevelGraph) -> LayoutProblem {
    let mut p = LayoutProblem::new(vec![
        RoomTemplate::rectangle("square", 6, 6, 1),
        RoomTemplate::rectangle("long", 5, 9, 1),
        RoomTemplate::rectangle("hall", 16, 16, 1),
    ]);
    let ids: Vec<_> = g.room_ids().collect();
    for id in &ids {
        let t = if g.incident_links(*id).count() > 3 {
            vec![2]
        } else {
            vec![0, 1]
        };
        p.rooms.push(RoomSpec::new(&id.to_string(), t));
    }
    for (_, a, b, link) in g.links() {
        let realise = match link.role {
            LinkRole::Tree => Realise::Contact,
            _ => Realise::ContactOrPath { min: 4, max: 30 },
        };
        let slot = |r| ids.iter().position(|x| *x == r).expect("listed");
        p.links.push(LinkSpec::new(slot(a), slot(b), realise));
    }
    p.budget.retry = RetryPolicy::Attempts(20);
    p
}
