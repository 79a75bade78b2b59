//! Lays out Edgar's level descriptions with many seeds and reports, per input, how many layouts
//! were valid and the median time per layout (preparation excluded; it is reported apart), and
//! what a game that lays out one level waits: the median of preparing a fresh planner and
//! laying out once (`one-shot`, over up to 11 seeds, each with a planner of its own).
//!
//! ```text
//! cargo run --release --example edgar_race -- [SEEDS] [INPUT.json ...]
//! ```
//! Without inputs it runs every file in `fixtures/edgar/inputs`.

use std::time::Instant;

use levelplan::layout::Planner;
use levelplan::layout::edgar::EdgarLevel;

fn main() {
    let mut args = std::env::args().skip(1);
    let seeds: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let mut files: Vec<std::path::PathBuf> = args.map(Into::into).collect();
    if files.is_empty() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/edgar/inputs");
        let mut all: Vec<_> = std::fs::read_dir(dir)
            .expect("fixtures/edgar/inputs exists")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        all.sort();
        files = all;
    }
    println!(
        "{:<48} {:>6} {:>9} {:>10} {:>10} {:>12}",
        "input", "valid", "prep ms", "median ms", "max ms", "one-shot ms"
    );
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable input");
        let level = EdgarLevel::from_json(&text, &f.display().to_string()).expect("valid input");
        let t0 = Instant::now();
        let planner = Planner::new(level.problem.clone()).expect("problem prepares");
        let prep = t0.elapsed().as_secs_f64() * 1e3;
        let mut times = Vec::new();
        let mut valid = 0;
        for seed in 0..seeds {
            let t = Instant::now();
            let result = planner.layout(seed);
            times.push(t.elapsed().as_secs_f64() * 1e3);
            if let Ok(layout) = result
                && planner.check(&layout).is_ok()
            {
                valid += 1;
            }
        }
        times.sort_by(f64::total_cmp);
        // One-shot: a fresh planner per seed (its spaces computed as the search meets them).
        let mut once = Vec::new();
        for seed in 0..seeds.clamp(1, 11) {
            let t = Instant::now();
            let planner = Planner::new(level.problem.clone()).expect("problem prepares");
            let _layout = planner.layout(seed);
            once.push(t.elapsed().as_secs_f64() * 1e3);
        }
        once.sort_by(f64::total_cmp);
        println!(
            "{:<48} {:>3}/{:<3} {:>8.2} {:>10.3} {:>10.2} {:>12.3}",
            level.name,
            valid,
            seeds,
            prep,
            times[times.len() / 2],
            times[times.len() - 1],
            once[once.len() / 2]
        );
    }
}
