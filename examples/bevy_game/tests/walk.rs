//! The scripted player walks levels of every recipe to the goal, headless, and its trail is
//! held to the level's game view: one tile at a time over walkable tiles (or a warp from pad
//! to pad), never on a locked door before it opened it, each lock opened with an opener it had
//! picked up, never into a one-way door from the room it leads into.

use std::collections::HashMap;

use levelplan::graph::lock_and_key::LockPlan;
use levelplan::recipes::diablo::{DiabloRecipe, DiabloStage};
use levelplan::recipes::gungeon::{Generator, GungeonParams};
use levelplan::recipes::isaac::IsaacRecipe;
use levelplan::recipes::sectors::{SectorParams, SectorRecipe};
use levelplan::{Item, Level, Opener, Recipe, TilePos};
use levelplan_bevy_game::{Door, Locked, Pickup, Player, TileAt, app_for, run_to_goal};

fn opener(lock: &levelplan::Lock) -> Item {
    match lock.opener {
        Opener::Key => Item::Key(lock.by),
        Opener::Switch => Item::Switch(lock.by),
        Opener::Task => Item::Task(lock.by),
        Opener::SmallKey => Item::SmallKey(lock.by),
    }
}

fn walk(label: &str, level: &Level) {
    let mut app = app_for(level).unwrap_or_else(|e| panic!("{label}: {e}"));
    // The spawned entities are the level's view.
    {
        let world = app.world_mut();
        let doors = world.query::<&Door>().iter(world).count();
        assert_eq!(doors, level.doors.len(), "{label}");
        let locked = world.query::<&Locked>().iter(world).count();
        let want = level.doors.iter().filter(|d| d.lock.is_some()).count();
        assert_eq!(locked, want, "{label}");
        let items = world.query::<&Pickup>().iter(world).count();
        assert_eq!(items, level.items.len(), "{label}");
        let player = world
            .query_filtered::<&TileAt, bevy::prelude::With<Player>>()
            .single(world)
            .expect("one player");
        assert_eq!(Some(player.0), level.start_tile, "{label}");
    }
    let journal = run_to_goal(&mut app, 200_000).unwrap_or_else(|e| panic!("{label}: {e}"));
    let trail = &journal.trail;
    assert_eq!(trail.last().copied(), level.goal_tile, "{label}");

    let w = level.tiles.tiles.width();
    let tile = |(x, y): TilePos| level.tiles.tiles.values()[y * w + x];
    let room = |(x, y): TilePos| level.room_at(x, y);
    let mut door_of: HashMap<TilePos, usize> = HashMap::new();
    for (i, d) in level.doors.iter().enumerate() {
        for &t in &d.tiles {
            door_of.insert(t, i);
        }
    }
    let pads: HashMap<TilePos, TilePos> = level
        .warps
        .iter()
        .flat_map(|w| [(w.tiles[0], w.tiles[1]), (w.tiles[1], w.tiles[0])])
        .collect();
    // When each door opened (in trail tiles): never, for a locked door it did not open.
    let mut opened_at: HashMap<usize, usize> = HashMap::new();
    for o in &journal.opened {
        let i = level
            .doors
            .iter()
            .position(|d| d.link == o.link)
            .expect("an opened door is a door");
        assert_eq!(level.doors[i].lock, Some(o.lock), "{label}");
        assert!(
            o.held.contains(&opener(&o.lock)),
            "{label}: {} opened without its opener",
            o.link
        );
        // What it held it had picked up: an item of the level's.
        assert!(
            level.items.iter().any(|p| p.item == opener(&o.lock)),
            "{label}"
        );
        opened_at.insert(i, o.trail_len);
    }
    for (n, pair) in trail.windows(2).enumerate() {
        let (from, to) = (pair[0], pair[1]);
        let step = from.0.abs_diff(to.0) + from.1.abs_diff(to.1) == 1;
        let warp = pads.get(&from) == Some(&to);
        assert!(step || warp, "{label}: a jump from {from:?} to {to:?}");
        assert!(
            tile(to).walkable(),
            "{label}: onto {:?} at {to:?}",
            tile(to)
        );
        if let Some(&i) = door_of.get(&to) {
            let d = &level.doors[i];
            if d.lock.is_some() {
                let open = opened_at.get(&i).is_some_and(|&at| n + 1 >= at);
                assert!(
                    open,
                    "{label}: onto the locked door of {} at {to:?}",
                    d.link
                );
            }
            if let Some(into) = d.one_way_to
                && door_of.get(&from) != Some(&i)
            {
                assert_ne!(
                    room(from),
                    Some(into),
                    "{label}: into the one-way door of {} from its far side",
                    d.link
                );
            }
        }
    }
}

fn walk_all(label: &str, recipe: &dyn Recipe, seeds: u64) {
    for seed in 0..seeds {
        let level = recipe
            .generate(seed)
            .unwrap_or_else(|e| panic!("{label} seed {seed}: {e}"));
        walk(&format!("{label} seed {seed}"), &level);
    }
}

#[test]
fn the_player_walks_gungeon_levels_with_locks_to_the_goal() {
    let params = GungeonParams {
        locks: Some(LockPlan {
            locks: 4,
            switches: 1,
            tasks: 1,
            small_key_locks: 1,
            one_way_shortcuts: 1,
            ..LockPlan::default()
        }),
        ..GungeonParams::default()
    };
    for flow in ["classic", "big_loop", "hub_spokes"] {
        let flow_made = levelplan::Flow::builtin(flow).expect("a built-in flow");
        let recipe = Generator::new(flow_made, params.clone()).expect("a generator");
        walk_all(flow, &recipe, 15);
    }
}

#[test]
fn the_player_walks_isaac_floors_and_diablo_stages_to_the_goal() {
    let isaac = IsaacRecipe::new(4, Default::default()).with_locks(LockPlan {
        locks: 2,
        ..LockPlan::default()
    });
    walk_all("isaac 4 with locks", &isaac, 10);
    for (stage, number, locks) in [
        (DiabloStage::Cathedral, 2, 2),
        (DiabloStage::Catacombs, 6, 2),
        (DiabloStage::Caves, 10, 1),
        (DiabloStage::Hell, 14, 1),
    ] {
        let mut recipe = DiabloRecipe::new(stage, number);
        if locks > 0 {
            recipe.params.locks = Some(LockPlan {
                locks,
                ..LockPlan::default()
            });
        }
        walk_all(stage.name(), &recipe, 5);
    }
}

#[test]
fn the_player_walks_sector_levels_to_the_goal() {
    let recipe = SectorRecipe::new(SectorParams::default()).expect("default parameters");
    walk_all("sectors", &recipe, 8);
}

#[test]
fn the_player_rides_warp_pads() {
    // The classic flow with a room that only a warp from the entrance reaches.
    let mut template = levelplan::FlowTemplate::builtin("classic").expect("a built-in flow");
    template
        .injections
        .push(levelplan::graph::flow::InjectionRule {
            name: "teleporter".into(),
            kind: levelplan::RoomKind::Reward,
            tags: Default::default(),
            placements: vec![levelplan::graph::flow::Placement::NoLink],
            chance: 1.0,
            lock_chance: 0.0,
            weight: 1.0,
            once_per_run: false,
            requires: Vec::new(),
            unless: Vec::new(),
        });
    let flow = levelplan::Flow::new(template, "classic with a warp").expect("a valid flow");
    let recipe = Generator::new(flow, GungeonParams::default()).expect("a generator");
    for seed in 0..10 {
        let level = recipe.generate(seed).expect("a level");
        assert_eq!(level.warps.len(), 1);
        walk(&format!("warp seed {seed}"), &level);
    }
}
