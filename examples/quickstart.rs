//! A game calling the planner: prepare a recipe once, make a level per seed, and spawn it room
//! by room: where each room is, its floor tiles, its doors (locked, one-way, secret), the items
//! in it, and the order the solver proved a player can finish it in.
//!
//! Run with `cargo run --example quickstart [SEED]`.

use std::collections::BTreeMap;

use levelplan::recipes::gungeon::{Generator, GungeonParams};
use levelplan::tiles::Tile;
use levelplan::{Flow, Item, Level, LinkKind, Recipe, RoomId};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(2026);

    // Once, when the game starts: a flow (a game would ship its own RON files and use
    // Flow::load) and the recipe's parameters, here two planned locks on top of the flow's own.
    let params = GungeonParams {
        locks: Some(levelplan::graph::lock_and_key::LockPlan {
            locks: 2,
            ..Default::default()
        }),
        ..GungeonParams::default()
    };
    // Held as a `Recipe`, as a game holds any recipe (Isaac floors, Diablo stages alike).
    let recipe: Box<dyn Recipe> = Box::new(Generator::new(
        Flow::builtin("classic").expect("built-in flow"),
        params,
    )?);

    // Per level: one call.
    let level: Level = recipe.generate(seed)?;
    println!(
        "{} level, seed {seed}: {} rooms on {} x {} tiles",
        level.recipe,
        level.graph.room_count(),
        level.tiles.tiles.width(),
        level.tiles.tiles.height()
    );

    // Spawn each room: its floor tiles (their box here), its doors and its items.
    let mut floor: BTreeMap<RoomId, (usize, usize, usize, usize, usize)> = BTreeMap::new();
    for ((x, y), tile) in level.tiles.tiles.iter() {
        if *tile != Tile::Floor {
            continue;
        }
        if let Some(room) = level.room_at(x, y) {
            let b = floor.entry(room).or_insert((x, y, x, y, 0));
            *b = (b.0.min(x), b.1.min(y), b.2.max(x), b.3.max(y), b.4 + 1);
        }
    }
    for (id, room) in level.graph.rooms() {
        let Some(&(x0, y0, x1, y1, tiles)) = floor.get(&id) else {
            continue;
        };
        let doors: Vec<String> = level
            .graph
            .exits(id)
            .map(|(link_id, to)| {
                let link = level.graph.link(link_id).expect("listed link");
                let mut door = to.to_string();
                match link.kind {
                    LinkKind::OneWay => door.push_str(" (one-way)"),
                    LinkKind::Secret => door.push_str(" (secret)"),
                    _ => {}
                }
                if let Some(lock) = link.lock {
                    door.push_str(&format!(" [needs {}]", lock.by));
                }
                door
            })
            .collect();
        let items: Vec<String> = room
            .items
            .iter()
            .map(|item| match item {
                Item::Key(k) => format!("key {k}"),
                other => format!("{other:?}"),
            })
            .collect();
        println!(
            "  {id:>4} {:<10} tiles ({x0},{y0})..({x1},{y1}), {tiles:>3} floor  doors to {}{}",
            room.kind.name(),
            doors.join(", "),
            if items.is_empty() {
                String::new()
            } else {
                format!("  items: {}", items.join(", "))
            }
        );
    }

    // The solver's proof: the openers and locks the goal needs, in order.
    println!("finishable from {} to {}:", level.start, level.goal);
    for (i, step) in level.walkthrough.steps.iter().enumerate() {
        println!("  {:>2}. {step}", i + 1);
    }
    // A save file: the whole level reads back from its JSON.
    assert_eq!(Level::from_json(&level.to_json())?, level);
    Ok(())
}
