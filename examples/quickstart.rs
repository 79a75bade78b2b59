//! A game calling the planner: pick a flow, generate a level from a seed, walk its graph.
//!
//! Run with `cargo run --example quickstart [SEED]`.

use levelplan::graph::{dead_ends, distances_from};
use levelplan::{Conditions, FlowTemplate, Item, LinkKind, RoomKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(2026);

    // The game state decides which injection rules may fire (flags), and remembers once-per-run
    // rules between levels (spent).
    let mut run = Conditions::new().with_flag("met_blacksmith");

    // A built-in flow; a game would ship its own RON files and use FlowTemplate::load.
    let flow = FlowTemplate::builtin("classic").expect("built-in flow");
    let level = flow.generate(seed, &run)?;
    run.mark_spent(&level);

    // Walk the graph breadth-first from the entrance, as a game would when spawning rooms.
    let entrance = level.entrance().expect("flows always have an entrance");
    let distance = distances_from(&level, entrance);
    let mut order: Vec<_> = level.room_ids().collect();
    order.sort_by_key(|r| (distance[r], *r));

    println!(
        "level from flow \"{}\", seed {seed}: {} rooms",
        flow.name,
        level.room_count()
    );
    for room_id in order {
        let room = level.room(room_id).expect("listed room");
        let doors: Vec<String> = level
            .exits(room_id)
            .map(|(link_id, to)| {
                let link = level.link(link_id).expect("listed link");
                let mut door = format!("{to}");
                if link.kind != LinkKind::Door {
                    door.push_str(&format!(" ({:?})", link.kind));
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
            "  {room_id:>4} {:<10} depth {:>2}  doors to {}{}",
            room.kind.name(),
            distance[&room_id],
            doors.join(", "),
            if items.is_empty() {
                String::new()
            } else {
                format!("  holds {}", items.join(", "))
            }
        );
    }

    let boss = level
        .rooms_of_kind(&RoomKind::Boss)
        .next()
        .expect("classic has a boss");
    println!(
        "boss is {} rooms from the entrance; {} dead ends",
        distance[&boss],
        dead_ends(&level).len()
    );
    Ok(())
}
