//! The completability report: every built-in flow, many seeds, four lock option sets, through
//! the lock planner alone (`generate --recipe flow`) and through the Gungeon recipe; every
//! level checked by the exhaustive player of the tests (every play, state by state), which is
//! independent of the solver. The number of levels it rejects must be 0.
//!
//! ```sh
//! cargo run --release --example completability -- 1000        # seeds per flow and option set
//! cargo run --release --example completability -- 100 --no-gungeon
//! ```
//!
//! Also reported: how many plans failed, the tries the planner took, and how far (in rooms)
//! each opener lies from the lock it opens.

#[path = "../tests/common/player.rs"]
mod player;

use std::collections::{BTreeMap, VecDeque};

use levelplan::graph::lock_and_key::{self, LockPlan};
use levelplan::recipes::gungeon::{Generator, GungeonParams};
use levelplan::{Conditions, FlowTemplate, LevelGraph, Opener, RoomId, RoomKind};

/// The option sets, as `levelplan generate` spells them.
fn option_sets() -> Vec<(&'static str, LockPlan)> {
    let plan = |locks, small, switches, shortcuts| LockPlan {
        locks,
        small_key_locks: small,
        switches,
        one_way_shortcuts: shortcuts,
        ..LockPlan::default()
    };
    vec![
        ("--locks 2", plan(2, 0, 0, 0)),
        ("--locks 4", plan(4, 0, 0, 0)),
        (
            "--locks 5 --small-keys 2 --switches 1 --shortcuts 2",
            plan(5, 2, 1, 2),
        ),
        ("--locks 3 --shortcuts 3", plan(3, 0, 0, 3)),
    ]
}

#[derive(Default)]
struct Tally {
    levels: usize,
    plan_failed: usize,
    rejected: usize,
    too_big: usize,
    tries: usize,
    shortcuts: usize,
    distances: Vec<usize>,
    first_rejected: Option<String>,
}

impl Tally {
    fn check(&mut self, graph: &LevelGraph, what: impl FnOnce() -> String) {
        self.levels += 1;
        let start = graph.entrance().expect("entrance");
        let goal = graph
            .rooms_of_kind(&RoomKind::Exit)
            .next()
            .or_else(|| graph.rooms_of_kind(&RoomKind::Boss).next())
            .expect("goal");
        match player::exhaustive(graph, start, goal, 20_000_000) {
            None => self.too_big += 1,
            Some(v) if !v.accepts(graph) => {
                self.rejected += 1;
                self.first_rejected.get_or_insert_with(what);
            }
            Some(_) => {}
        }
        self.distances.extend(opener_distances(graph));
    }
}

/// For every lock (small locks aside), the rooms between its nearest opener and the nearer end
/// of the link, walking any link (locks and directions aside).
fn opener_distances(graph: &LevelGraph) -> Vec<usize> {
    let mut out = Vec::new();
    for (link, lock) in graph.locks() {
        if lock.opener == Opener::SmallKey {
            continue;
        }
        let (a, b) = graph.endpoints(link).expect("live");
        let holders: Vec<RoomId> = graph
            .rooms()
            .filter(|(_, r)| {
                r.items
                    .iter()
                    .any(|i| i.opens() == Some((lock.by, lock.opener)))
            })
            .map(|(id, _)| id)
            .collect();
        let mut dist = vec![usize::MAX; graph.room_bound()];
        let mut queue = VecDeque::new();
        for end in [a, b] {
            dist[end.0 as usize] = 0;
            queue.push_back(end);
        }
        while let Some(x) = queue.pop_front() {
            for (_, y) in graph.incident_links(x) {
                if dist[y.0 as usize] == usize::MAX {
                    dist[y.0 as usize] = dist[x.0 as usize] + 1;
                    queue.push_back(y);
                }
            }
        }
        if let Some(d) = holders.iter().map(|h| dist[h.0 as usize]).min() {
            out.push(d);
        }
    }
    out
}

fn median(v: &mut [usize]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seeds: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(1000);
    let gungeon = !args.iter().any(|a| a == "--no-gungeon");
    let sets = option_sets();
    let mut by_recipe: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut per_set: BTreeMap<(&str, &str), Tally> = BTreeMap::new();
    for name in FlowTemplate::builtin_names() {
        let flow = FlowTemplate::builtin(name).expect("built-in flow");
        for (label, options) in &sets {
            for seed in 0..seeds {
                // As `generate --recipe flow`: the flow's level, then the lock plan.
                let mut level = flow
                    .generate(seed, &Conditions::default())
                    .expect("built-in flows generate");
                let mut rng = levelplan::seed::stream(seed, "locks");
                let tally = per_set.entry(("flow", label)).or_default();
                match lock_and_key::plan(&mut level, options, &mut rng) {
                    Ok(report) => {
                        tally.tries += report.tries;
                        tally.shortcuts += report.shortcuts.len();
                        tally.check(&level, || format!("flow {name} seed {seed} {label}"));
                    }
                    Err(e) => {
                        tally.levels += 1;
                        tally.plan_failed += 1;
                        tally
                            .first_rejected
                            .get_or_insert_with(|| format!("flow {name} seed {seed} {label}: {e}"));
                    }
                }
            }
            if gungeon {
                let params = GungeonParams {
                    locks: Some(options.clone()),
                    ..GungeonParams::default()
                };
                let generator = Generator::new(
                    levelplan::Flow::builtin(name).expect("built-in flow"),
                    params,
                )
                .expect("generator");
                let tally = per_set.entry(("gungeon", label)).or_default();
                for seed in 0..seeds {
                    match generator.generate(seed) {
                        Ok(level) => tally.check(&level.graph, || {
                            format!("gungeon {name} seed {seed} {label}")
                        }),
                        Err(e) => {
                            tally.levels += 1;
                            tally.plan_failed += 1;
                            tally.first_rejected.get_or_insert_with(|| {
                                format!("gungeon {name} seed {seed} {label}: {e}")
                            });
                        }
                    }
                }
            }
        }
    }
    println!(
        "{:<8} {:<52} {:>7} {:>7} {:>9} {:>9} {:>10} {:>10} {:>13}",
        "recipe",
        "options",
        "levels",
        "failed",
        "rejected",
        "unchecked",
        "mean tries",
        "shortcuts",
        "opener dist."
    );
    for ((recipe, label), tally) in &mut per_set {
        let planned = (tally.levels - tally.plan_failed).max(1) as f64;
        let (mean_tries, shortcuts) = if *recipe == "flow" {
            (
                format!("{:.2}", tally.tries as f64 / planned),
                format!("{:.2}", tally.shortcuts as f64 / planned),
            )
        } else {
            ("-".into(), "-".into())
        };
        let mut d = tally.distances.clone();
        let mean = d.iter().sum::<usize>() as f64 / d.len().max(1) as f64;
        println!(
            "{recipe:<8} {label:<52} {:>7} {:>7} {:>9} {:>9} {:>10} {:>10} {:>6.2} (med {})",
            tally.levels,
            tally.plan_failed,
            tally.rejected,
            tally.too_big,
            mean_tries,
            shortcuts,
            mean,
            median(&mut d)
        );
        if let Some(first) = &tally.first_rejected {
            println!("         first failure or rejection: {first}");
        }
        let total = by_recipe.entry(recipe).or_default();
        total.levels += tally.levels;
        total.rejected += tally.rejected;
        total.plan_failed += tally.plan_failed;
    }
    for (recipe, total) in &by_recipe {
        println!(
            "{recipe}: {} levels, {} plans failed, {} rejected by the exhaustive player",
            total.levels, total.plan_failed, total.rejected
        );
    }
    let rejected: usize = by_recipe.values().map(|t| t.rejected).sum();
    if rejected > 0 {
        std::process::exit(1);
    }
}
