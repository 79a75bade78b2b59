//! The scale benchmark's graph families, one line per seed: whether the graph laid out (20
//! attempts, as in `cargo bench --bench layout`), in how long, a hash of the layout's JSON
//! (so that a change meant to keep every layout can be checked to), and the median time of
//! the successes at the end. For reading one family's failures, or measuring a change on
//! more seeds than the benchmark's, without running the whole benchmark.
//!
//! `cargo run --release --example scale_probe -- FAMILY SIZE FIRST_SEED LAST_SEED`
//! where FAMILY is `holes` (level-like graphs), `open` (level-like without holes), `placed`
//! (read off a placement), `chain` (chains of loops, contact bridges) or `chain-corridors`
//! (every link contact or corridor); SIZE is the rooms (the loops, for chains; the others
//! take a tenth of the rooms as loops, and 4 at 30 rooms, as the benchmark does). With
//! `DUMP=1` set, each problem's rooms and links are printed before it is laid out; with
//! `LONG=1`, a failure's whole message (else its first 160 characters).

use levelplan::LinkRole;
use levelplan::graph::LevelGraph;
use levelplan::graph::random::{
    local_loops_graph, local_loops_graph_without_holes, loop_chain_graph, placed_rooms_graph,
};
use levelplan::layout::{
    LayoutError, LayoutProblem, LinkSpec, Planner, Realise, RetryPolicy, RoomSpec, RoomTemplate,
};
use levelplan::seed::stream;

/// The benchmark's rooms for a level-like graph: halls for rooms of more than three links,
/// contact on tree links, contact or a corridor of 4 to 30 cells on the others.
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
    p
}

/// The benchmark's loops for `rooms` rooms: 4 at 30 rooms, else a tenth of the rooms.
fn loops_of(rooms: usize) -> usize {
    if rooms == 30 { 4 } else { rooms / 10 }
}

fn problem(family: &str, size: usize, seed: u64) -> Result<LayoutProblem, String> {
    let mut p = match family {
        "holes" => graph_problem(&local_loops_graph(
            size,
            loops_of(size),
            &mut stream(seed, "scale graph"),
        )),
        "open" => graph_problem(&local_loops_graph_without_holes(
            size,
            loops_of(size),
            &mut stream(seed, "scale graph"),
        )),
        "placed" => LayoutProblem::of_placed_rooms(&placed_rooms_graph(
            size,
            size / 10,
            &mut stream(seed, "placed rooms"),
        )),
        "chain" | "chain-corridors" => {
            let mut p = graph_problem(&loop_chain_graph(size, &mut stream(seed, "chain graph")));
            if family == "chain-corridors" {
                for link in &mut p.links {
                    link.realise = Realise::ContactOrPath { min: 4, max: 30 };
                }
            }
            p
        }
        other => return Err(format!("unknown family {other}")),
    };
    p.budget.retry = RetryPolicy::Attempts(20);
    Ok(p)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let family = args.first().map_or("placed", String::as_str).to_string();
    let size: usize = args.get(1).map_or(Ok(300), |s| s.parse())?;
    let first: u64 = args.get(2).map_or(Ok(0), |s| s.parse())?;
    let last: u64 = args.get(3).map_or(Ok(first + 9), |s| s.parse())?;
    let mut ok_times = Vec::new();
    let mut tried = 0;
    for s in first..=last {
        let p = problem(&family, size, s)?;
        let rooms = p.rooms.len();
        if std::env::var("DUMP").is_ok() {
            for (i, r) in p.rooms.iter().enumerate() {
                println!("room {i} {} templates {:?}", r.name, r.templates);
            }
            for l in &p.links {
                println!("link {} {} {:?}", l.from, l.to, l.realise);
            }
        }
        let t = std::time::Instant::now();
        let planner = match Planner::new(p) {
            Ok(planner) => planner,
            Err(LayoutError::HoleTooSmall { .. }) => {
                println!("seed {s}: {rooms} rooms, proven to have no layout");
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let prep = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let result = planner.layout(s);
        let secs = t.elapsed().as_secs_f64();
        tried += 1;
        match result {
            Ok(layout) => {
                planner
                    .check(&layout)
                    .map_err(|e| format!("seed {s}: invalid layout: {e}"))?;
                ok_times.push(secs);
                let json = serde_json::to_string(&layout)?;
                let mut h = std::hash::DefaultHasher::new();
                std::hash::Hash::hash(&json, &mut h);
                let hash = std::hash::Hasher::finish(&h);
                println!(
                    "seed {s}: {rooms} rooms, ok in {secs:.3} s (prepare {prep:.3} s), layout {hash:016x}"
                );
            }
            Err(e) => {
                let e = e.to_string();
                let short: String = e
                    .chars()
                    .take(std::env::var("LONG").map_or(160, |_| 4000))
                    .collect();
                println!("seed {s}: {rooms} rooms, FAILED in {secs:.3} s: {short}");
            }
        }
    }
    ok_times.sort_by(f64::total_cmp);
    let median = ok_times
        .get(ok_times.len() / 2)
        .copied()
        .unwrap_or(f64::NAN);
    println!(
        "{family} {size}: {} of {tried} laid out, median of successes {median:.3} s",
        ok_times.len()
    );
    Ok(())
}
