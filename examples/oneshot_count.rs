//! One-shots (a fresh planner and one layout, seeds `0..K`) of Edgar's level descriptions, for
//! counting instructions: timings on a shared machine move by a third from run to run, an
//! instruction count does not, so two versions are compared by the count per one-shot.
//!
//! ```text
//! cargo build --release --example oneshot_count
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/oneshot_count K INPUT.json
//! ```
//! The count per one-shot is (count with `K` − count with 0) / `K`. With `PRINT=1` it prints a
//! hash of each layout, to check that two versions lay out the same.

use std::hash::{Hash, Hasher};

use levelplan::layout::Planner;
use levelplan::layout::edgar::EdgarLevel;

fn main() {
    let mut args = std::env::args().skip(1);
    let k: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let print = std::env::var_os("PRINT").is_some();
    let mut rooms = 0;
    for f in args {
        let text = std::fs::read_to_string(&f).expect("readable input");
        let level = EdgarLevel::from_json(&text, &f).expect("valid input");
        for seed in 0..k {
            let planner = Planner::new(level.problem.clone()).expect("problem prepares");
            if let Ok(layout) = planner.layout(seed) {
                if print {
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    format!("{:?}", layout.rooms).hash(&mut h);
                    println!("{seed} {:016x}", h.finish());
                }
                rooms += layout.rooms.len();
            }
        }
    }
    println!("{rooms} rooms laid out");
}
