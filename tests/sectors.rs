//! The sector pipeline's first steps (BSP geometry, the 3 x 3 cleanup, the sector graph),
//! checked against the spec's invariants by plain scans of the field.

use std::collections::BTreeSet;

use levelplan::recipes::sectors::{
    BspParams, Field, bsp_geometry, clean_up, sector_graph, split_sections,
};
use proptest::prelude::*;

/// Brute force: every cell of a sector lies in a 3 x 3 block of that sector.
fn every_cell_in_a_block(field: &Field) -> Result<(), String> {
    for ((x, y), s) in field.iter() {
        let Some(s) = *s else { continue };
        let found = (0..3i64).any(|oy| {
            (0..3i64).any(|ox| {
                (0..3i64).all(|dy| {
                    (0..3i64).all(|dx| {
                        field.get(x as i64 - ox + dx, y as i64 - oy + dy) == Some(&Some(s))
                    })
                })
            })
        });
        if !found {
            return Err(format!(
                "cell ({x}, {y}) of sector {s} is in no 3 x 3 block"
            ));
        }
    }
    Ok(())
}

/// Brute force: whether `(x, y)` is the middle of a 3 x 3 block of sector `s`.
fn middle_of_block(field: &Field, x: i64, y: i64, s: u32) -> bool {
    let mut n = 0;
    for yy in y - 1..=y + 1 {
        for xx in x - 1..=x + 1 {
            if field.get(xx, yy) == Some(&Some(s)) {
                n += 1;
            }
        }
    }
    n == 9
}

/// Brute force: the pairs of sectors with two cells side by side, each with the middle of a
/// 3 x 3 block of its own sector right behind it (where a door fits).
fn touching_pairs(field: &Field) -> BTreeSet<(u32, u32)> {
    let mut out = BTreeSet::new();
    for ((x, y), s) in field.iter() {
        let Some(s) = *s else { continue };
        let (x, y) = (x as i64, y as i64);
        for (dx, dy) in [(1i64, 0i64), (0, 1)] {
            if let Some(&Some(o)) = field.get(x + dx, y + dy)
                && o != s
                && middle_of_block(field, x - dx, y - dy, s)
                && middle_of_block(field, x + 2 * dx, y + 2 * dy, o)
            {
                out.insert((s.min(o), s.max(o)));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    #[test]
    fn bsp_levels_keep_the_spec_invariants(
        seed in any::<u64>(), width in 30usize..90, height in 24usize..70, depth in 1u32..6,
    ) {
        let params = BspParams { depth, ..BspParams::default() };
        let mut field = bsp_geometry(width, height, &params, &mut levelplan::seed::stream(seed, "sectors"));
        prop_assert_eq!((field.width(), field.height()), (width, height));
        let before = field.iter().filter(|(_, s)| s.is_some()).count();
        prop_assert!(before > 0);
        clean_up(&mut field);
        split_sections(&mut field);
        // Step 2-3: no sector part narrower than 3 x 3.
        every_cell_in_a_block(&field).map_err(TestCaseError::fail)?;
        let sectors = sector_graph(&mut field);
        // Step 4-5: one link per touching pair of kept sectors, and nothing else; connected.
        let pairs = touching_pairs(&field);
        let links: BTreeSet<(u32, u32)> = sectors
            .graph
            .links()
            .map(|(_, a, b, _)| {
                let (sa, sb) = (sectors.sectors[a.0 as usize], sectors.sectors[b.0 as usize]);
                (sa.min(sb), sa.max(sb))
            })
            .collect();
        prop_assert_eq!(&links, &pairs);
        prop_assert_eq!(sectors.graph.link_count(), pairs.len());
        prop_assert_eq!(levelplan::graph::component_count(&sectors.graph), 1);
        let present: BTreeSet<u32> = field.iter().filter_map(|(_, s)| *s).collect();
        prop_assert_eq!(present, sectors.sectors.iter().copied().collect::<BTreeSet<_>>());
        // Every contact is a pair of side-by-side cells of the two sectors.
        for (link, cells) in &sectors.contacts {
            let (a, b) = sectors.graph.endpoints(levelplan::LinkId(*link)).unwrap();
            let (sa, sb) = (sectors.sectors[a.0 as usize], sectors.sectors[b.0 as usize]);
            prop_assert!(!cells.is_empty());
            for &((x0, y0), (x1, y1)) in cells {
                prop_assert_eq!(x0.abs_diff(x1) + y0.abs_diff(y1), 1);
                let got: BTreeSet<u32> = [field.get(x0 as i64, y0 as i64), field.get(x1 as i64, y1 as i64)]
                    .into_iter()
                    .filter_map(|c| c.copied().flatten())
                    .collect();
                prop_assert_eq!(got, BTreeSet::from([sa, sb]));
            }
        }
        // Same seed, same field.
        let mut again = bsp_geometry(width, height, &params, &mut levelplan::seed::stream(seed, "sectors"));
        clean_up(&mut again);
        split_sections(&mut again);
        sector_graph(&mut again);
        prop_assert_eq!(again, field);
    }
}

#[test]
fn the_default_field_has_rooms_and_corridor_sections() {
    // A guard for the property above: fields are not trivial.
    let mut sizes = Vec::new();
    for seed in 0..20 {
        let mut field = bsp_geometry(
            64,
            48,
            &BspParams::default(),
            &mut levelplan::seed::stream(seed, "sectors"),
        );
        clean_up(&mut field);
        split_sections(&mut field);
        let sectors = sector_graph(&mut field);
        sizes.push((sectors.graph.room_count(), sectors.graph.link_count()));
    }
    let rooms: usize = sizes.iter().map(|s| s.0).sum();
    assert!(rooms / sizes.len() >= 8, "{sizes:?}");
    assert!(
        sizes.iter().all(|&(r, l)| l + 1 >= r),
        "connected: {sizes:?}"
    );
    // Loops happen (corridors cross rooms and each other).
    assert!(sizes.iter().any(|&(r, l)| l >= r), "{sizes:?}");
}

#[test]
fn a_sliver_between_two_sectors_is_cleaned_up() {
    // A 1-wide sector between two 3-wide ones: no cell of it lies in a 3 x 3 block of its own;
    // counting the sliver's other cells as the neighbour's, each fits sector 0 (the first
    // neighbour that takes it), so the sliver joins it; the 3-wide sectors stay whole.
    let mut field: Field = levelplan::tiles::Grid::new(10, 5, None);
    for y in 0..5 {
        for x in 0..3 {
            field.set(x, y, Some(0));
        }
        field.set(3, y, Some(1));
        for x in 4..7 {
            field.set(x, y, Some(2));
        }
    }
    clean_up(&mut field);
    every_cell_in_a_block(&field).unwrap();
    assert!(field.iter().all(|(_, s)| *s != Some(1)));
    for y in 0..5 {
        assert_eq!(field.get(3, y), Some(&Some(0)));
        assert_eq!(field.get(0, y), Some(&Some(0)));
        assert_eq!(field.get(6, y), Some(&Some(2)));
    }
    assert_eq!(field.iter().filter(|(_, s)| s.is_some()).count(), 35);
    // A 2-wide sector alone is wall: nothing can take it.
    let mut field: Field = levelplan::tiles::Grid::new(6, 2, Some(3));
    clean_up(&mut field);
    assert!(field.iter().all(|(_, s)| s.is_none()));
    // A cell that fits a neighbour is attached: a 4-wide sector 0 with one cell of sector 5
    // sticking into it.
    let mut field: Field = levelplan::tiles::Grid::new(4, 4, Some(0));
    field.set(1, 1, Some(5));
    clean_up(&mut field);
    assert!(field.iter().all(|(_, s)| *s == Some(0)));
}

// ---------------------------------------------------------------------------------------
// The whole recipe: levels checked against the spec's invariants by plain scans of the tile
// map and by the exhaustive player, independent of the recipe's own code.

mod common;

use std::collections::{BTreeMap, VecDeque};

use levelplan::recipes::sectors::{Geometry, SectorParams, SectorRecipe};
use levelplan::tiles::Tile;
use levelplan::{
    Item, Level, LevelDetail, LinkKind, Opener, OpeningKind, Recipe, RoomId, RoomKind,
};

fn sector_level(geometry: Geometry, w: usize, h: usize, seed: u64) -> Level {
    let params = SectorParams {
        geometry,
        width: w,
        height: h,
        ..SectorParams::default()
    };
    SectorRecipe::new(params)
        .unwrap()
        .generate(seed)
        .unwrap_or_else(|e| panic!("{geometry:?} {w}x{h} seed {seed}: {e}"))
}

/// The tiles a player walks from `from`, 4-connected, never through `blocked`.
fn flood(
    level: &Level,
    from: (usize, usize),
    blocked: &BTreeSet<(usize, usize)>,
) -> BTreeSet<(usize, usize)> {
    let tiles = &level.tiles.tiles;
    let mut seen = BTreeSet::from([from]);
    let mut queue = VecDeque::from([from]);
    while let Some((x, y)) = queue.pop_front() {
        for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
            let (nx, ny) = (x as i64 + dx, y as i64 + dy);
            let Some(t) = tiles.get(nx, ny) else { continue };
            let p = (nx as usize, ny as usize);
            if t.walkable() && !blocked.contains(&p) && seen.insert(p) {
                queue.push_back(p);
            }
        }
    }
    seen
}

/// Every invariant of the spec and the issue, checked on the level's tiles and records.
fn check_level(level: &Level) -> Result<(), String> {
    let LevelDetail::Sectors {
        sectors,
        connections,
        scripts,
        ..
    } = &level.detail
    else {
        return Err("not a sector level".into());
    };
    let items = &level.items;
    let g = &level.graph;
    let map = &level.tiles;
    let secret = |r: RoomId| g.room(r).is_some_and(|x| x.kind == RoomKind::Secret);
    if levelplan::graph::component_count(g) != 1 {
        return Err("the graph is not connected".into());
    }
    if sectors.len() != g.room_count() || connections.len() != g.link_count() {
        return Err("a record per room and per link".into());
    }
    // No sector narrower than 3 x 3: every tile of a region lies in a 3 x 3 block of it.
    for ((x, y), r) in map.regions.iter() {
        let Some(r) = *r else { continue };
        let (x, y) = (x as i64, y as i64);
        let in_block = (0..3).any(|oy| {
            (0..3).any(|ox| {
                (0..3).all(|dy| {
                    (0..3).all(|dx| map.regions.get(x - ox + dx, y - oy + dy) == Some(&Some(r)))
                })
            })
        });
        if !in_block {
            return Err(format!(
                "tile ({x}, {y}) of room {r} is in no 3 x 3 block of it"
            ));
        }
    }
    // Every floor tile knows its sector.
    for ((x, y), t) in map.tiles.iter() {
        if *t == Tile::Floor && level.room_at(x, y).is_none() {
            return Err(format!("floor ({x}, {y}) has no room"));
        }
    }
    // Openings: side by side across the boundary, the right tiles, the first a door (or the
    // secret wall towards a secret room, and nothing else there).
    let mut opening_of: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (ci, c) in connections.iter().enumerate() {
        let (a, b) = g.endpoints(c.link).ok_or("a connection's link")?;
        if !((c.from, c.to) == (a, b) || (c.from, c.to) == (b, a)) {
            return Err(format!("connection {ci}: from/to are not the link's ends"));
        }
        let to_secret = secret(a) || secret(b);
        let first = c
            .openings
            .first()
            .ok_or(format!("connection {ci} has no opening"))?;
        let want = if to_secret {
            OpeningKind::SecretWall
        } else {
            OpeningKind::Door
        };
        if first.kind != want || (to_secret && c.openings.len() != 1) {
            return Err(format!("connection {ci}: openings {:?}", c.openings));
        }
        if to_secret != (g.link(c.link).unwrap().kind == LinkKind::Secret) {
            return Err(format!("connection {ci}: secret link kind"));
        }
        for o in &c.openings {
            if !(1..=3).contains(&o.width()) {
                return Err(format!("connection {ci}: width {}", o.width()));
            }
            // Door tiles say what opens them: heavy doors, locked doors, plain doors.
            let locked = g.link(c.link).unwrap().lock.is_some();
            let heavy = c.openings.iter().any(|o| o.heavy());
            let tile = match o.kind {
                OpeningKind::Door if heavy => Tile::HeavyDoor,
                OpeningKind::Door if locked => Tile::LockedDoor,
                OpeningKind::Door => Tile::Door,
                OpeningKind::Window => Tile::Window,
                _ => Tile::SecretDoor,
            };
            for &(p, q) in &o.cells {
                if p.0.abs_diff(q.0) + p.1.abs_diff(q.1) != 1 {
                    return Err(format!("connection {ci}: {p:?} and {q:?} not side by side"));
                }
                if level.room_at(p.0, p.1) != Some(c.from) || level.room_at(q.0, q.1) != Some(c.to)
                {
                    return Err(format!(
                        "connection {ci}: {p:?} {q:?} not in {} / {}",
                        c.from, c.to
                    ));
                }
                for cell in [p, q] {
                    if map.tiles.get(cell.0 as i64, cell.1 as i64) != Some(&tile) {
                        return Err(format!("connection {ci}: tile {cell:?} is not a {tile:?}"));
                    }
                    if opening_of.insert(cell, ci).is_some_and(|other| other != ci) {
                        return Err(format!("tile {cell:?} in two connections"));
                    }
                }
            }
        }
    }
    // No door tile the records do not know.
    for ((x, y), t) in map.tiles.iter() {
        if (t.is_door() || *t == Tile::Window) && !opening_of.contains_key(&(x, y)) {
            return Err(format!("opening tile ({x}, {y}) in no connection"));
        }
    }
    // Openers: never in a secret room; keys never in the start sector, never for heavy doors.
    for (r, room) in g.rooms() {
        let openers = room.items.iter().filter(|i| i.opens().is_some()).count();
        if room.kind == RoomKind::Secret && !room.items.is_empty() {
            return Err(format!("secret room {r} holds {:?}", room.items));
        }
        if r == level.start && room.items.iter().any(|i| matches!(i, Item::Key(_))) {
            return Err("a key in the start sector".into());
        }
        let _ = openers;
    }
    for c in connections {
        let Some(lock) = g.link(c.link).unwrap().lock else {
            continue;
        };
        if lock.opener != Opener::Switch && c.openings.iter().any(|o| o.heavy()) {
            return Err(format!(
                "a {:?} opens a heavy door on {}",
                lock.opener, c.link
            ));
        }
    }
    // Scripts: their locks are on their links.
    for s in scripts {
        for &l in &s.links {
            if g.link(l).and_then(|x| x.lock) != Some(s.lock) {
                return Err(format!("script lock {:?} missing on {l}", s.lock));
            }
        }
    }
    // Items lie on floor tiles of their rooms, one per tile; the start and exit tiles too.
    let stairs = level.stairs.ok_or("no start tile")?;
    let mut at: BTreeMap<(usize, usize), &Item> = BTreeMap::new();
    for p in items {
        if map.tiles.get(p.at.0 as i64, p.at.1 as i64) != Some(&Tile::Floor)
            || level.room_at(p.at.0, p.at.1) != Some(p.room)
        {
            return Err(format!("item {:?} not on its room's floor", p));
        }
        if !g.room(p.room).unwrap().items.contains(&p.item) {
            return Err(format!("item {:?} not in its room's graph items", p));
        }
        at.insert(p.at, &p.item);
    }
    if at.len() != items.len() {
        return Err("two items on one tile".into());
    }
    let placed: usize = g.rooms().map(|(_, r)| r.items.len()).sum();
    if placed != items.len() {
        return Err(format!("{placed} items in rooms, {} placed", items.len()));
    }
    if level.room_at(stairs.up.0, stairs.up.1) != Some(level.start)
        || level.room_at(stairs.down.0, stairs.down.1) != Some(level.goal)
    {
        return Err("start / exit tiles not in the start / goal rooms".into());
    }
    // Flood fill with every door open: every sector reachable from the start tile.
    let open = flood(level, stairs.up, &BTreeSet::new());
    let reached: BTreeSet<RoomId> = open
        .iter()
        .filter_map(|&(x, y)| level.room_at(x, y))
        .collect();
    for (r, _) in g.rooms() {
        if !reached.contains(&r) {
            return Err(format!("room {r} unreachable through the tiles"));
        }
    }
    // A player on the tiles: locked doors shut until their opener's tile is reached; every
    // opener is then reachable without passing its own lock, and the exit switch is reached.
    let mut held: BTreeSet<levelplan::KeyId> = BTreeSet::new();
    loop {
        let blocked: BTreeSet<(usize, usize)> = connections
            .iter()
            .filter(|c| {
                g.link(c.link)
                    .unwrap()
                    .lock
                    .is_some_and(|k| !held.contains(&k.by))
            })
            .flat_map(|c| {
                c.openings
                    .iter()
                    .flat_map(|o| o.cells.iter().flat_map(|&(a, b)| [a, b]))
            })
            .collect();
        let walk = flood(level, stairs.up, &blocked);
        let before = held.len();
        for (p, item) in &at {
            if walk.contains(p)
                && let Some((k, _)) = item.opens()
            {
                held.insert(k);
            }
        }
        if held.len() == before {
            if !walk.contains(&stairs.down) {
                return Err(format!(
                    "the exit switch is not reached on the tiles (holding {held:?})"
                ));
            }
            break;
        }
    }
    // Every script's opener is reachable without passing the script's own links.
    for s in scripts {
        let blocked: BTreeSet<(usize, usize)> = connections
            .iter()
            .filter(|c| s.links.contains(&c.link))
            .flat_map(|c| {
                c.openings
                    .iter()
                    .flat_map(|o| o.cells.iter().flat_map(|&(a, b)| [a, b]))
            })
            .collect();
        let walk = flood(level, stairs.up, &blocked);
        let found = at
            .iter()
            .any(|(p, item)| walk.contains(p) && item.opens().is_some_and(|(k, _)| k == s.lock.by));
        if !found {
            return Err(format!(
                "the opener of {:?} lies behind its own lock",
                s.lock
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn sector_levels_keep_every_invariant(
        seed in any::<u64>(), growth in any::<bool>(), w in 32usize..100, h in 32usize..100,
    ) {
        let geometry = if growth { Geometry::Growth } else { Geometry::Bsp };
        let level = sector_level(geometry, w, h, seed);
        check_level(&level).map_err(TestCaseError::fail)?;
        // The solver's proof replays, and the exhaustive player agrees where it can look.
        common::player::replay(&level.graph, level.start, level.goal, &level.walkthrough.steps)
            .map_err(TestCaseError::fail)?;
        let openers: usize = level.graph.rooms().map(|(_, r)| r.items.len()).sum();
        if openers <= 64
            && let Some(verdict) = common::player::exhaustive(&level.graph, level.start, level.goal, 300_000)
        {
            prop_assert!(verdict.accepts(&level.graph), "{verdict:?}");
        }
        // Same seed, same level, byte for byte.
        let again = sector_level(geometry, w, h, seed);
        prop_assert_eq!(again.to_json(), level.to_json());
    }

    #[test]
    fn sections_are_connected(seed in any::<u64>(), w in 30usize..90, h in 24usize..70) {
        let mut field = levelplan::recipes::sectors::growth_geometry(
            w, h, &Default::default(), &mut levelplan::seed::stream(seed, "sectors"));
        clean_up(&mut field);
        split_sections(&mut field);
        every_cell_in_a_block(&field).map_err(TestCaseError::fail)?;
        // Brute force: a sector's cells are one 4-connected piece.
        let ids: BTreeSet<u32> = field.iter().filter_map(|(_, s)| *s).collect();
        for s in ids {
            let cells: Vec<(usize, usize)> = field.iter().filter(|(_, c)| **c == Some(s)).map(|(p, _)| p).collect();
            let mut seen = BTreeSet::from([cells[0]]);
            let mut queue = VecDeque::from([cells[0]]);
            while let Some((x, y)) = queue.pop_front() {
                for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if field.get(nx, ny) == Some(&Some(s)) && seen.insert((nx as usize, ny as usize)) {
                        queue.push_back((nx as usize, ny as usize));
                    }
                }
            }
            prop_assert_eq!(seen.len(), cells.len(), "sector {} falls apart", s);
        }
    }
}

#[test]
fn the_exhaustive_player_checks_small_sector_levels() {
    // A guard for the property above: on small fields the exhaustive player really looks.
    let mut looked = 0;
    for seed in 0..12 {
        for geometry in [Geometry::Bsp, Geometry::Growth] {
            let level = sector_level(geometry, 40, 32, seed);
            check_level(&level).unwrap();
            if let Some(v) =
                common::player::exhaustive(&level.graph, level.start, level.goal, 300_000)
            {
                assert!(v.accepts(&level.graph), "seed {seed}: {v:?}");
                looked += 1;
            }
        }
    }
    assert!(looked >= 20, "looked at {looked} of 24");
}

#[test]
fn sector_levels_have_what_the_spec_describes() {
    // Over many levels: secret rooms, windows, heavy doors, keys, tasks and switches appear;
    // the start holds no key; levels at the largest size work too.
    let (mut secrets, mut windows, mut heavy, mut keys, mut tasks, mut switches) =
        (0, 0, 0, 0, 0, 0);
    for seed in 0..24 {
        let geometry = if seed % 2 == 0 {
            Geometry::Bsp
        } else {
            Geometry::Growth
        };
        let level = sector_level(geometry, 64, 64, seed);
        let LevelDetail::Sectors { connections, .. } = &level.detail else {
            unreachable!()
        };
        secrets += level
            .graph
            .rooms()
            .filter(|(_, r)| r.kind == RoomKind::Secret)
            .count();
        for o in connections.iter().flat_map(|c| &c.openings) {
            windows += usize::from(o.kind == OpeningKind::Window);
            heavy += usize::from(o.heavy());
        }
        for (_, lock) in level.graph.locks() {
            match lock.opener {
                Opener::Key => keys += 1,
                Opener::Task => tasks += 1,
                _ => switches += 1,
            }
        }
    }
    for (what, n) in [
        ("secret rooms", secrets),
        ("windows", windows),
        ("heavy doors", heavy),
        ("keys", keys),
        ("tasks", tasks),
        ("switches", switches),
    ] {
        assert!(n > 0, "no {what} in 24 levels");
    }
    for geometry in [Geometry::Bsp, Geometry::Growth] {
        check_level(&sector_level(geometry, 256, 256, 1)).unwrap();
        check_level(&sector_level(geometry, 32, 32, 1)).unwrap();
    }
}

#[test]
fn sector_goldens() {
    for (geometry, w, h, seed) in [
        (Geometry::Bsp, 64, 64, 1),
        (Geometry::Growth, 48, 40, 4),
        (Geometry::Growth, 96, 64, 7),
    ] {
        let level = sector_level(geometry, w, h, seed);
        let mut text = levelplan::export::text::level_to_ascii(&level);
        text.push_str(&format!(
            "walkthrough: {} steps\n",
            level.walkthrough.steps.len()
        ));
        for step in &level.walkthrough.steps {
            text.push_str(&format!("  {step}\n"));
        }
        let name = format!("sectors_{}_{w}x{h}_seed{seed}.txt", geometry.name());
        common::golden::check(&name, &text);
    }
}

#[test]
fn bad_sector_settings_name_the_setting() {
    let cases: Vec<(SectorParams, &str)> = vec![
        (
            SectorParams {
                width: 8,
                ..Default::default()
            },
            "`width`",
        ),
        (
            SectorParams {
                height: 5000,
                ..Default::default()
            },
            "`height`",
        ),
        (
            SectorParams {
                width: 20,
                bsp: levelplan::recipes::sectors::BspParams {
                    min_leaf: 24,
                    ..Default::default()
                },
                ..Default::default()
            },
            "smaller than one room",
        ),
        (
            SectorParams {
                bsp: levelplan::recipes::sectors::BspParams {
                    depth: 0,
                    ..Default::default()
                },
                ..Default::default()
            },
            "`bsp.depth`",
        ),
        (
            SectorParams {
                bsp: levelplan::recipes::sectors::BspParams {
                    corridor: 2,
                    ..Default::default()
                },
                ..Default::default()
            },
            "`bsp.corridor`",
        ),
        (
            SectorParams {
                restore: -0.1,
                ..Default::default()
            },
            "`restore`",
        ),
        (
            SectorParams {
                open_passages: f64::NAN,
                ..Default::default()
            },
            "`open_passages`",
        ),
        (
            SectorParams {
                window_chances: [0.5, 1.5, 0.5],
                ..Default::default()
            },
            "`window_chances`",
        ),
        (
            SectorParams {
                door_widths: [0.0, 0.0, 0.0],
                ..Default::default()
            },
            "`door_widths`",
        ),
        (
            SectorParams {
                task_chance: 2.0,
                ..Default::default()
            },
            "`task_chance`",
        ),
        (
            SectorParams {
                geometry: Geometry::Growth,
                growth: levelplan::recipes::sectors::GrowthParams {
                    clearings: (0, 3),
                    ..Default::default()
                },
                ..Default::default()
            },
            "`growth.clearings`",
        ),
        (
            SectorParams {
                geometry: Geometry::Growth,
                growth: levelplan::recipes::sectors::GrowthParams {
                    room_area: 4,
                    ..Default::default()
                },
                ..Default::default()
            },
            "`growth.room_area`",
        ),
    ];
    for (params, named) in cases {
        let err = SectorRecipe::new(params.clone()).unwrap_err().to_string();
        assert!(err.contains(named), "{named}: {err}");
        // The recipe function checks too.
        let err = levelplan::recipes::sectors::generate(&params, 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains(named), "{named}: {err}");
    }
    let err = SectorParams::from_ron("(width: 64, colour: 3)", "mine.ron")
        .unwrap_err()
        .to_string();
    assert!(err.contains("mine.ron") && err.contains("colour"), "{err}");
}

#[test]
fn the_level_checker_catches_broken_levels() {
    // A guard for `check_level`: levels broken by hand fail it.
    let good = sector_level(Geometry::Growth, 64, 64, 5);
    check_level(&good).unwrap();
    let LevelDetail::Sectors { connections, .. } = &good.detail else {
        unreachable!()
    };
    let items = &good.items;
    // A door walled up.
    let mut broken = good.clone();
    let (a, _) = connections[0].openings[0].cells[0];
    broken.tiles.tiles.set(a.0 as i64, a.1 as i64, Tile::Wall);
    assert!(check_level(&broken).is_err());
    // A locked connection's opener moved behind its own lock: the exit is no longer reached
    // on the tiles, or the opener is behind its lock.
    let locked = connections
        .iter()
        .find(|c| good.graph.link(c.link).unwrap().lock.is_some())
        .unwrap();
    let lock = good.graph.link(locked.link).unwrap().lock.unwrap();
    let mut broken = good.clone();
    {
        let items = &mut broken.items;
        let i = items
            .iter()
            .position(|p| p.item.opens().is_some_and(|(k, _)| k == lock.by))
            .unwrap();
        let behind = good
            .tiles
            .tiles
            .iter()
            .find(|((x, y), t)| **t == Tile::Floor && good.room_at(*x, *y) == Some(locked.to))
            .unwrap()
            .0;
        let from = items[i].room;
        items[i].at = behind;
        items[i].room = locked.to;
        let item = items[i].item.clone();
        let room = broken.graph.room_mut(from).unwrap();
        room.items.retain(|x| *x != item);
        broken.graph.room_mut(locked.to).unwrap().items.push(item);
    }
    assert!(check_level(&broken).is_err());
    // A key on a heavy door.
    if let Some(c) = connections.iter().find(|c| {
        c.openings.iter().any(|o| o.heavy()) && good.graph.link(c.link).unwrap().lock.is_some()
    }) {
        let mut broken = good.clone();
        broken
            .graph
            .link_mut(c.link)
            .unwrap()
            .lock
            .as_mut()
            .unwrap()
            .opener = Opener::Key;
        assert!(check_level(&broken).is_err());
    }
    // An item off its room's floor.
    let mut broken = good.clone();
    broken.items[0].at = (0, 0);
    assert!(!items.is_empty() && check_level(&broken).is_err());
}

#[test]
fn passes_follow_their_settings() {
    // Every connection opened into a passage: sectors merge down to the fewest a level has.
    // No connection given back: the graph is a tree. Windows never: only doors.
    for seed in 0..6 {
        let level = SectorRecipe::new(SectorParams {
            open_passages: 1.0,
            ..SectorParams::default()
        })
        .unwrap()
        .generate(seed)
        .unwrap();
        check_level(&level).unwrap();
        assert_eq!(level.graph.room_count(), 3, "seed {seed}");
        let level = SectorRecipe::new(SectorParams {
            geometry: Geometry::Growth,
            restore: 0.0,
            window_chances: [0.0; 3],
            max_keys: 0,
            task_chance: 0.0,
            ..SectorParams::default()
        })
        .unwrap()
        .generate(seed)
        .unwrap();
        check_level(&level).unwrap();
        assert_eq!(
            level.graph.link_count() + 1,
            level.graph.room_count(),
            "seed {seed}"
        );
        let LevelDetail::Sectors { connections, .. } = &level.detail else {
            unreachable!()
        };
        assert!(
            connections
                .iter()
                .flat_map(|c| &c.openings)
                .all(|o| o.kind != OpeningKind::Window)
        );
        assert!(level.graph.locks().all(|(_, l)| l.opener == Opener::Switch));
    }
}
