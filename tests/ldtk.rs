//! The LDtk export read back by a third-party LDtk loader (`ldtk_rust`, its types for LDtk's
//! JSON format 1.1.3), for every recipe with tiles: the loader must take the project, and what
//! it reads must be the level's game view (tiles, rooms, doors with their locks and openers,
//! items, warps, start and goal).

mod common;

use std::collections::HashMap;

use ldtk_rust::{EntityInstance, FieldInstance, LayerInstance, Project};
use levelplan::graph::lock_and_key::LockPlan;
use levelplan::graph::{Item, Lock, Opener};
use levelplan::recipes::diablo::{DiabloRecipe, DiabloStage};
use levelplan::recipes::gungeon::{Generator, GungeonParams};
use levelplan::recipes::isaac::IsaacRecipe;
use levelplan::recipes::sectors::{Geometry, SectorParams, SectorRecipe};
use levelplan::tiles::Tile;
use levelplan::{Flow, Level, Recipe};

fn field<'a>(e: &'a EntityInstance, name: &str) -> &'a FieldInstance {
    e.field_instances
        .iter()
        .find(|f| f.identifier == name)
        .unwrap_or_else(|| panic!("{} has no field {name}", e.identifier))
}

fn text(e: &EntityInstance, name: &str) -> Option<String> {
    field(e, name)
        .value
        .as_ref()
        .and_then(|v| v.as_str())
        .map(str::to_owned)
}

fn grid(e: &EntityInstance) -> (usize, usize) {
    (e.grid[0] as usize, e.grid[1] as usize)
}

/// What the test expects a lock to read: its opener's kind and id.
fn lock_words(lock: &Lock) -> String {
    let kind = match lock.opener {
        Opener::Key => "key",
        Opener::Switch => "switch",
        Opener::Task => "task",
        Opener::SmallKey => "small key",
    };
    format!("{kind} {}", lock.by)
}

fn item_words(item: &Item) -> (String, &'static str) {
    match item {
        Item::Key(k) => (k.to_string(), "key"),
        Item::Switch(k) => (k.to_string(), "switch"),
        Item::Task(k) => (k.to_string(), "task"),
        Item::SmallKey(k) => (k.to_string(), "small key"),
        Item::Named(n) => (n.clone(), "item"),
    }
}

/// Reads `level`'s export with the loader and holds it to the level. Returns how many doors
/// had their opener referenced.
fn check(label: &str, level: &Level) -> usize {
    let text_out = levelplan::export::ldtk::level_to_ldtk(level);
    let project: Project = serde_json::from_str(&text_out)
        .unwrap_or_else(|e| panic!("{label}: the LDtk loader refuses the project: {e}"));
    assert_eq!(project.levels.len(), 1, "{label}");
    let ldtk_level = &project.levels[0];
    let (w, h) = (level.tiles.tiles.width(), level.tiles.tiles.height());
    assert_eq!(ldtk_level.px_wid, 16 * w as i64, "{label}");
    assert_eq!(ldtk_level.px_hei, 16 * h as i64, "{label}");
    let layers = ldtk_level.layer_instances.as_ref().expect("layers inline");
    let layer = |name: &str| -> &LayerInstance {
        layers
            .iter()
            .find(|l| l.identifier == name)
            .unwrap_or_else(|| panic!("{label}: no layer {name}"))
    };

    // The IntGrid: each tile's class, by the test's own reading of the tiles.
    let tiles = layer("Tiles");
    assert_eq!(tiles.layer_instance_type, "IntGrid", "{label}");
    assert_eq!((tiles.c_wid, tiles.c_hei), (w as i64, h as i64), "{label}");
    assert_eq!(tiles.int_grid_csv.len(), w * h, "{label}");
    let defs = &project.defs;
    let tile_def = defs
        .layers
        .iter()
        .find(|d| d.uid == tiles.layer_def_uid)
        .expect("the IntGrid layer's definition");
    let value_of: HashMap<String, i64> = tile_def
        .int_grid_values
        .iter()
        .map(|v| (v.identifier.clone().unwrap_or_default(), v.value))
        .collect();
    for ((x, y), &tile) in level.tiles.tiles.iter() {
        let wanted = match tile {
            Tile::Solid => 0,
            Tile::Wall
            | Tile::WallVertical
            | Tile::WallHorizontal
            | Tile::WallCornerOuter
            | Tile::WallCornerInner => value_of["wall"],
            Tile::Door
            | Tile::SecretDoor
            | Tile::LockedDoor
            | Tile::OneWayDoor
            | Tile::HeavyDoor => value_of["door"],
            Tile::Floor
            | Tile::Corridor
            | Tile::Arch
            | Tile::Bridge
            | Tile::StairsUp
            | Tile::StairsDown
            | Tile::WarpPad => value_of["floor"],
            Tile::Pillar | Tile::Lamp | Tile::Fence | Tile::Grate | Tile::Window | Tile::Lava => {
                value_of["obstacle"]
            }
        };
        assert_eq!(
            tiles.int_grid_csv[y * w + x],
            wanted,
            "{label}: tile ({x}, {y}) {tile:?}"
        );
    }

    // Entities: every one of a defined kind, with the fields of its definition.
    let objects = layer("Objects");
    assert_eq!(objects.layer_instance_type, "Entities", "{label}");
    let mut by_iid: HashMap<&str, &EntityInstance> = HashMap::new();
    for e in &objects.entity_instances {
        let def = defs
            .entities
            .iter()
            .find(|d| d.uid == e.def_uid)
            .unwrap_or_else(|| panic!("{label}: {} has no definition", e.identifier));
        assert_eq!(def.identifier, e.identifier, "{label}");
        for f in &e.field_instances {
            let fd = def
                .field_defs
                .iter()
                .find(|d| d.uid == f.def_uid)
                .unwrap_or_else(|| panic!("{label}: field {} undefined", f.identifier));
            assert_eq!(fd.identifier, f.identifier, "{label}");
            assert_eq!(fd.field_definition_type, f.field_instance_type, "{label}");
            assert!(
                f.value.is_some() || fd.can_be_null,
                "{label}: {}",
                f.identifier
            );
        }
        assert_eq!(e.px, vec![16 * e.grid[0], 16 * e.grid[1]], "{label}");
        assert!(
            by_iid.insert(&e.iid, e).is_none(),
            "{label}: iid {} twice",
            e.iid
        );
    }
    let of_kind = |name: &str| -> Vec<&EntityInstance> {
        objects
            .entity_instances
            .iter()
            .filter(|e| e.identifier == name)
            .collect()
    };

    // Rooms: one per room with tiles, over its bounds.
    let rooms = of_kind("Room");
    assert_eq!(rooms.len(), level.rooms.len(), "{label}");
    for r in &level.rooms {
        let e = rooms
            .iter()
            .find(|e| text(e, "room") == Some(r.room.to_string()))
            .unwrap_or_else(|| panic!("{label}: room {} missing", r.room));
        let [x, y, rw, rh] = r.rect;
        assert_eq!(grid(e), (x, y), "{label}: room {}", r.room);
        assert_eq!(
            (e.width, e.height),
            (16 * rw as i64, 16 * rh as i64),
            "{label}"
        );
        assert_eq!(text(e, "kind").as_deref(), Some(r.kind.as_str()), "{label}");
    }

    // Items, start and goal on their tiles.
    let items = of_kind("Item");
    assert_eq!(items.len(), level.items.len(), "{label}");
    for p in &level.items {
        let (name, kind) = item_words(&p.item);
        assert!(
            items.iter().any(|e| grid(e) == p.at
                && text(e, "item") == Some(name.clone())
                && text(e, "type").as_deref() == Some(kind)
                && text(e, "room") == Some(p.room.to_string())),
            "{label}: item {name} at {:?} missing",
            p.at
        );
    }
    for (kind, at, room) in [
        ("Start", level.start_tile, level.start),
        ("Goal", level.goal_tile, level.goal),
    ] {
        let found = of_kind(kind);
        let at = at.expect("a level with tiles has a start and a goal tile");
        assert_eq!(found.len(), 1, "{label}: {kind}");
        assert_eq!(grid(found[0]), at, "{label}: {kind}");
        assert_eq!(text(found[0], "room"), Some(room.to_string()), "{label}");
    }

    // Doors: one per door record, over its tiles, each lock's opener a reference to the item
    // that opens it.
    let doors = of_kind("Door");
    assert_eq!(doors.len(), level.doors.len(), "{label}");
    let mut referenced = 0;
    for d in &level.doors {
        let e = doors
            .iter()
            .find(|e| {
                field(e, "link").value.as_ref().and_then(|v| v.as_i64())
                    == Some(i64::from(d.link.0))
            })
            .unwrap_or_else(|| panic!("{label}: door of {} missing", d.link));
        for &(x, y) in &d.tiles {
            let (ex, ey) = grid(e);
            let (ew, eh) = ((e.width / 16) as usize, (e.height / 16) as usize);
            assert!(
                (ex..ex + ew).contains(&x) && (ey..ey + eh).contains(&y),
                "{label}: door tile ({x}, {y}) outside the door of {}",
                d.link
            );
        }
        let rooms: Vec<String> = field(e, "rooms")
            .value
            .as_ref()
            .and_then(|v| v.as_array())
            .expect("rooms")
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        assert_eq!(
            rooms,
            d.rooms.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
            "{label}"
        );
        assert_eq!(text(e, "lock"), d.lock.as_ref().map(lock_words), "{label}");
        assert_eq!(
            text(e, "one_way_to"),
            d.one_way_to.map(|r| r.to_string()),
            "{label}"
        );
        let opener = field(e, "opener").value.as_ref().filter(|v| !v.is_null());
        let opener_item = d.lock.and_then(|lock| {
            level
                .items
                .iter()
                .find(|p| p.item.opens() == Some((lock.by, lock.opener)))
        });
        match (opener, opener_item) {
            (None, None) => {}
            (Some(v), Some(p)) => {
                let target = v["entityIid"].as_str().expect("an entity reference");
                assert_eq!(
                    v["layerIid"].as_str(),
                    Some(objects.iid.as_str()),
                    "{label}"
                );
                assert_eq!(
                    v["levelIid"].as_str(),
                    Some(ldtk_level.iid.as_str()),
                    "{label}"
                );
                let key = by_iid
                    .get(target)
                    .unwrap_or_else(|| panic!("{label}: the opener of {} is no entity", d.link));
                assert_eq!(key.identifier, "Item", "{label}");
                assert_eq!(grid(key), p.at, "{label}: the opener of {}", d.link);
                assert_eq!(text(key, "item"), Some(item_words(&p.item).0), "{label}");
                referenced += 1;
            }
            (a, b) => panic!(
                "{label}: door of {}: reference {a:?}, opener item {b:?}",
                d.link
            ),
        }
    }

    // Warp pads: a pad on each end, each referring to the other.
    let pads = of_kind("Warp");
    assert_eq!(pads.len(), 2 * level.warps.len(), "{label}");
    for pad in &pads {
        let to = field(pad, "to").value.as_ref().expect("a pad's other end");
        let other = by_iid[to["entityIid"].as_str().expect("a reference")];
        assert_eq!(other.identifier, "Warp", "{label}");
        assert_eq!(
            field(other, "link").value,
            field(pad, "link").value,
            "{label}"
        );
        assert_ne!(grid(other), grid(pad), "{label}");
    }

    // Spawn slots, per room.
    let slots = of_kind("Spawn_slot");
    assert_eq!(
        slots.len(),
        level
            .rooms
            .iter()
            .map(|r| r.spawn_slots.len())
            .sum::<usize>(),
        "{label}"
    );
    referenced
}

fn run(label: &str, recipe: &dyn Recipe, seeds: u64) -> usize {
    let mut referenced = 0;
    for seed in 0..seeds {
        let level = recipe
            .generate(seed)
            .unwrap_or_else(|e| panic!("{label} seed {seed}: {e}"));
        referenced += check(&format!("{label} seed {seed}"), &level);
        // The same level, the same file.
        assert_eq!(
            levelplan::export::ldtk::level_to_ldtk(&level),
            levelplan::export::ldtk::level_to_ldtk(&level)
        );
    }
    referenced
}

#[test]
fn the_ldtk_loader_reads_gungeon_levels_with_their_locks() {
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
    for flow in ["classic", "big_loop"] {
        let recipe =
            Generator::new(Flow::builtin(flow).expect("flow"), params.clone()).expect("generator");
        let referenced = run(&format!("gungeon {flow}"), &recipe, 12);
        assert!(
            referenced >= 12 * 2,
            "{flow}: {referenced} openers referenced"
        );
    }
}

#[test]
fn the_ldtk_loader_reads_warp_pads() {
    let recipe =
        Generator::new(common::classic_with_a_warp(), GungeonParams::default()).expect("generator");
    for seed in 0..6 {
        let level = recipe.generate(seed).expect("a level");
        assert_eq!(level.warps.len(), 1);
        check(&format!("classic with a warp seed {seed}"), &level);
    }
}

#[test]
fn the_ldtk_loader_reads_isaac_floors_and_diablo_stages() {
    let isaac = IsaacRecipe::new(3, Default::default()).with_locks(LockPlan {
        locks: 2,
        ..LockPlan::default()
    });
    assert!(run("isaac 3 with locks", &isaac, 10) >= 10);
    for (stage, number, locks) in [
        (DiabloStage::Cathedral, 2, 2),
        (DiabloStage::Catacombs, 6, 2),
        (DiabloStage::Caves, 9, 1),
        (DiabloStage::Hell, 13, 1),
    ] {
        let mut recipe = DiabloRecipe::new(stage, number);
        if locks > 0 {
            recipe.params.locks = Some(LockPlan {
                locks,
                ..LockPlan::default()
            });
        }
        let referenced = run(stage.name(), &recipe, 6);
        assert!(referenced >= 6 * locks, "{}: {referenced}", stage.name());
    }
}

#[test]
fn the_ldtk_loader_reads_sector_levels() {
    for geometry in [Geometry::Bsp, Geometry::Growth] {
        let recipe = SectorRecipe::new(SectorParams {
            geometry,
            ..SectorParams::default()
        })
        .expect("params");
        let referenced = run(&format!("sectors {}", geometry.name()), &recipe, 8);
        assert!(referenced > 0, "{}: no opener referenced", geometry.name());
    }
}

#[test]
fn generate_writes_an_ldtk_project_the_loader_opens() {
    let dir = std::env::temp_dir().join(format!("levelplan-ldtk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("level.ldtk");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_levelplan"))
        .args([
            "generate",
            "--recipe",
            "isaac",
            "--level",
            "2",
            "--seed",
            "5",
            "--locks",
            "1",
            "--ldtk",
            path.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The loader's own entry point, reading the file.
    let project = Project::load_project(&path);
    std::fs::remove_dir_all(&dir).ok();
    let layers = project.levels[0].layer_instances.as_ref().unwrap();
    let objects = &layers[0].entity_instances;
    assert!(objects.iter().any(|e| e.identifier == "Start"));
    assert!(objects.iter().any(|e| e.identifier == "Goal"));
    assert!(objects.iter().any(|e| {
        e.identifier == "Door"
            && e.field_instances
                .iter()
                .any(|f| f.identifier == "opener" && f.value.as_ref().is_some_and(|v| !v.is_null()))
    }));
}
