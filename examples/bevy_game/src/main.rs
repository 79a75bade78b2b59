//! Makes a level, spawns it into a headless Bevy app and lets the scripted player walk it.
//!
//! `cargo run --manifest-path examples/bevy_game/Cargo.toml -- [SEED]`

use levelplan::graph::lock_and_key::LockPlan;
use levelplan::recipes::gungeon::{Generator, GungeonParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed = std::env::args().nth(1).map_or(Ok(7), |s| s.parse())?;
    let params = GungeonParams {
        locks: Some(LockPlan {
            locks: 3,
            switches: 1,
            ..LockPlan::default()
        }),
        ..GungeonParams::default()
    };
    let flow = levelplan::Flow::builtin("classic").ok_or("no flow")?;
    let level = Generator::new(flow, params)?.generate(seed)?;
    let mut app = levelplan_bevy_game::app_for(&level)?;
    let journal = levelplan_bevy_game::run_to_goal(&mut app, 100_000)?;
    println!(
        "seed {seed}: the goal reached in {} moves; picked up {:?}; opened {:?}",
        journal.moves,
        journal.picked,
        journal.opened.iter().map(|o| o.link).collect::<Vec<_>>()
    );
    Ok(())
}
