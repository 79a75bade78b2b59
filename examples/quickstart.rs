//! A game spawning a level from its game view, at tile positions; any recipe works the same.
//! Run with `cargo run --example quickstart [SEED]`.
use levelplan::recipes::gungeon::{Generator, GungeonParams};
use levelplan::{Flow, Level, Recipe};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed = std::env::args().nth(1).map_or(Ok(2026), |s| s.parse())?;
    // Three planned locks on the flow's own, proven finishable.
    let params = GungeonParams {
        locks: Some(Default::default()),
        ..Default::default()
    };
    let flow = Flow::builtin("classic").ok_or("no flow")?;
    let recipe: Box<dyn Recipe> = Box::new(Generator::new(flow, params)?);
    let level: Level = recipe.generate(seed)?;

    let spawn = |what: &str, (x, y): (usize, usize)| println!("{what} at ({x}, {y})");
    spawn("player", level.start_tile.ok_or("no tiles")?);
    spawn("goal", level.goal_tile.ok_or("no tiles")?);
    for room in &level.rooms {
        println!("room {} ({}), rect {:?}", room.room, room.kind, room.rect);
        room.spawn_slots.iter().for_each(|&at| spawn("  enemy", at));
    }
    for door in &level.doors {
        let [a, b] = door.rooms;
        let lock = door
            .lock
            .map(|l| format!(" locked: {:?} {}", l.opener, l.by));
        let way = door.one_way_to.map(|r| format!(" one way into {r}"));
        let how = format!("{}{}", lock.unwrap_or_default(), way.unwrap_or_default());
        println!("door {} {a}-{b} ({:?}){how}", door.link, door.kind);
        door.tiles.iter().for_each(|&at| spawn("  door tile", at));
    }
    for item in &level.items {
        spawn(&format!("{:?} in {}", item.item, item.room), item.at);
    }
    assert_eq!(Level::from_json(&level.to_json())?, level); // the whole level saves
    Ok(())
}
