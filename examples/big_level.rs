//! A big level: a chain of 30 loops (about 250 rooms) laid out in parts and drawn as SVG.
//!
//! Run with `cargo run --release --example big_level [SEED] [OUT.svg]`; then, for a PNG,
//! `rsvg-convert big_level.svg -o big_level.png`.

use levelplan::LinkRole;
use levelplan::export::svg::tilemap_to_svg;
use levelplan::graph::random::loop_chain_graph;
use levelplan::layout::raster::rasterise;
use levelplan::layout::{
    LayoutProblem, LinkSpec, Planner, Realise, RetryPolicy, RoomSpec, RoomTemplate,
};
use levelplan::tiles::Tile;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(4);
    let out = args.next().unwrap_or_else(|| "big_level.svg".to_string());

    // The level graph: separate loops of 5 to 8 rooms, each hung by a short path from a room
    // of an earlier loop.
    let graph = loop_chain_graph(30, &mut levelplan::seed::stream(seed, "chain graph"));

    // Small rooms, and halls for rooms with more than three links; tree links are doors in a
    // shared wall, the link closing each loop may become a corridor.
    let mut problem = LayoutProblem::new(vec![
        RoomTemplate::rectangle("square", 6, 6, 1),
        RoomTemplate::rectangle("long", 5, 9, 1),
        RoomTemplate::rectangle("hall", 16, 16, 1),
    ]);
    let ids: Vec<_> = graph.room_ids().collect();
    for id in &ids {
        let templates = if graph.incident_links(*id).count() > 3 {
            vec![2]
        } else {
            vec![0, 1]
        };
        problem
            .rooms
            .push(RoomSpec::new(&id.to_string(), templates));
    }
    let slot = |r| {
        ids.iter()
            .position(|x| *x == r)
            .expect("a room of the graph")
    };
    for (_, a, b, link) in graph.links() {
        let realise = match link.role {
            LinkRole::Tree => Realise::Contact,
            _ => Realise::ContactOrPath { min: 4, max: 30 },
        };
        problem.links.push(LinkSpec::new(slot(a), slot(b), realise));
    }
    // Reproducible: a number of attempts. A game that must answer in time would rather give
    // `RetryPolicy::Millis`.
    problem.budget.retry = RetryPolicy::Attempts(20);

    let planner = Planner::new(problem)?;
    let start = std::time::Instant::now();
    let layout = planner.layout(seed)?;
    let took = start.elapsed();
    planner.check(&layout)?;
    let corridors = layout
        .links
        .iter()
        .filter(|l| !l.corridor.is_empty())
        .count();
    println!(
        "{} rooms, {} links ({corridors} corridors), laid out in {} attempts, {:.0?}",
        layout.rooms.len(),
        layout.links.len(),
        layout.attempts,
        took
    );

    // Rasterise and draw, one colour per room.
    let raster = rasterise(&layout, |_| Some(Tile::Door));
    let svg = tilemap_to_svg(
        &raster.map,
        4,
        |room| Some(format!("hsl({}, 55%, 70%)", (room * 37) % 360)),
        &[],
    );
    std::fs::write(&out, svg)?;
    println!("wrote {out}");
    Ok(())
}
