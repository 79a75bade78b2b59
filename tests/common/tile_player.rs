//! A tile-level player that reads a level's JSON document only (no library types, no solver):
//! the game's view checked the way a game would use it.
//!
//! From `start_tile` it walks four-way over walkable tiles. A door is the set of tiles of one
//! `doors` record: a locked door is passed only while the player holds its opener (picked up by
//! standing in the item's place), a small-key door by spending one small key of its ring (it
//! then stays open), a one-way door never from the side of the room it leads into. A warp's two
//! pads join the places they stand in. The walk is a search over (place, items taken, small
//! doors opened), where a place is a 4-connected piece of walkable tiles that are not door tiles.
//!
//! Besides the walk it checks what a spawner relies on: every door touches exactly its two rooms
//! (through corridor tiles of no room, which only it touches), every walkable door or arch tile
//! belongs to a record, items lie on their room's floor off doors, stairs and the start, every
//! graph room has a record whose rect bounds its tiles and whose spawn slots are free floor.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

use serde_json::Value;

/// What the walk found.
#[derive(Debug, Clone)]
pub struct TileReport {
    /// Rooms the walk entered.
    pub rooms_reached: BTreeSet<u64>,
    /// States explored.
    pub states: usize,
}

const WALKABLE: [&str; 12] = [
    "Floor",
    "Door",
    "SecretDoor",
    "Arch",
    "Corridor",
    "Bridge",
    "StairsUp",
    "StairsDown",
    "LockedDoor",
    "OneWayDoor",
    "HeavyDoor",
    "WarpPad",
];
const DOORISH: [&str; 6] = [
    "Door",
    "SecretDoor",
    "Arch",
    "LockedDoor",
    "OneWayDoor",
    "HeavyDoor",
];

fn pos(v: &Value) -> Result<(usize, usize), String> {
    let a = v.as_array().ok_or(format!("{v} is not [x, y]"))?;
    match (
        a.first().and_then(Value::as_u64),
        a.get(1).and_then(Value::as_u64),
    ) {
        (Some(x), Some(y)) if a.len() == 2 => Ok((x as usize, y as usize)),
        _ => Err(format!("{v} is not [x, y]")),
    }
}

fn arr<'a>(v: &'a Value, what: &str) -> Result<&'a Vec<Value>, String> {
    v.as_array().ok_or(format!("`{what}` is not a list"))
}

/// Plays the document `text`; `Err` names the first fact that does not hold.
pub fn play(text: &str) -> Result<TileReport, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let w = doc["tiles"]["tiles"]["width"].as_u64().ok_or("no width")? as usize;
    let h = doc["tiles"]["tiles"]["height"]
        .as_u64()
        .ok_or("no height")? as usize;
    let names: Vec<&str> = arr(&doc["tiles"]["tiles"]["cells"], "tiles")?
        .iter()
        .map(|t| t.as_str().unwrap_or("?"))
        .collect();
    let regions: Vec<Option<u64>> = arr(&doc["tiles"]["regions"]["cells"], "regions")?
        .iter()
        .map(Value::as_u64)
        .collect();
    let region_rooms: Vec<Option<u64>> = arr(&doc["region_rooms"], "region_rooms")?
        .iter()
        .map(Value::as_u64)
        .collect();
    if names.len() != w * h || regions.len() != w * h {
        return Err("the tile grids are not width x height".into());
    }
    let at = |(x, y): (usize, usize)| -> Option<usize> { (x < w && y < h).then_some(y * w + x) };
    let name = |p: (usize, usize)| at(p).map_or("outside", |i| names[i]);
    let room_of = |p: (usize, usize)| -> Option<u64> {
        let r = regions[at(p)?]?;
        region_rooms.get(r as usize).copied().flatten()
    };
    let walkable = |p: (usize, usize)| WALKABLE.contains(&name(p));
    let neighbours = |(x, y): (usize, usize)| {
        [(0i64, -1i64), (0, 1), (-1, 0), (1, 0)]
            .into_iter()
            .filter_map(move |(dx, dy)| {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                (nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h)
                    .then_some((nx as usize, ny as usize))
            })
    };
    // The graph, as the document spells it.
    let mut links: BTreeMap<u64, &Value> = BTreeMap::new();
    for l in arr(&doc["graph"]["links"], "graph.links")? {
        links.insert(l["id"].as_u64().ok_or("link without id")?, l);
    }
    let mut graph_items: Vec<(u64, String)> = Vec::new();
    let mut graph_rooms: BTreeSet<u64> = BTreeSet::new();
    for r in arr(&doc["graph"]["rooms"], "graph.rooms")? {
        let id = r["id"].as_u64().ok_or("room without id")?;
        graph_rooms.insert(id);
        for item in r["items"].as_array().into_iter().flatten() {
            graph_items.push((id, item.to_string()));
        }
    }
    let (start, goal) = (
        doc["start"].as_u64().ok_or("no start")?,
        doc["goal"].as_u64().ok_or("no goal")?,
    );
    let start_tile = pos(&doc["start_tile"]).map_err(|e| format!("start_tile: {e}"))?;
    let goal_tile = pos(&doc["goal_tile"]).map_err(|e| format!("goal_tile: {e}"))?;
    for (field, p, room) in [
        ("start_tile", start_tile, start),
        ("goal_tile", goal_tile, goal),
    ] {
        if !walkable(p) || room_of(p) != Some(room) {
            return Err(format!("{field} {p:?} is not a walkable tile of r{room}"));
        }
    }
    // Doors.
    struct Door {
        link: u64,
        rooms: [u64; 2],
        tiles: Vec<(usize, usize)>,
        lock: Value,
        one_way_to: Option<u64>,
    }
    let mut doors: Vec<Door> = Vec::new();
    let mut door_of: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut recorded: BTreeSet<u64> = BTreeSet::new();
    for d in arr(&doc["doors"], "doors")? {
        let link = d["link"].as_u64().ok_or("door without link")?;
        let g = links
            .get(&link)
            .ok_or(format!("door of l{link}: no such link"))?;
        let rooms = [
            d["rooms"][0].as_u64().ok_or("door rooms")?,
            d["rooms"][1].as_u64().ok_or("door rooms")?,
        ];
        if [g["from"].as_u64(), g["to"].as_u64()] != [Some(rooms[0]), Some(rooms[1])] {
            return Err(format!(
                "door of l{link}: rooms {rooms:?} are not the link's"
            ));
        }
        if d["lock"] != g["lock"] {
            return Err(format!(
                "door of l{link}: lock {} is not the link's {}",
                d["lock"], g["lock"]
            ));
        }
        let one_way = (g["kind"] == "OneWay").then_some(rooms[1]);
        if d["one_way_to"].as_u64() != one_way {
            return Err(format!(
                "door of l{link}: one_way_to {} but the link is {}",
                d["one_way_to"], g["kind"]
            ));
        }
        if !recorded.insert(link) {
            return Err(format!("l{link} has two door records"));
        }
        if d["kind"] == "window" {
            continue;
        }
        let tiles: Vec<(usize, usize)> = arr(&d["tiles"], "door tiles")?
            .iter()
            .map(pos)
            .collect::<Result<_, _>>()?;
        if tiles.is_empty() {
            return Err(format!("door of l{link} has no tiles"));
        }
        for &p in &tiles {
            if !walkable(p) || !DOORISH.contains(&name(p)) {
                return Err(format!("door of l{link}: tile {p:?} is {}", name(p)));
            }
            if door_of.insert(p, doors.len()).is_some() {
                return Err(format!("door of l{link}: tile {p:?} belongs to two doors"));
            }
        }
        doors.push(Door {
            link,
            rooms,
            tiles,
            lock: d["lock"].clone(),
            one_way_to: one_way,
        });
    }
    for (id, l) in &links {
        let passable = !matches!(l["kind"].as_str(), Some("Window") | Some("Warp"));
        if passable && !recorded.contains(id) {
            return Err(format!("l{id} is passable but has no door record"));
        }
    }
    for y in 0..h {
        for x in 0..w {
            // A door tile is always a door's; an arch of no record is part of its room.
            let stray = DOORISH.contains(&name((x, y)))
                && (name((x, y)) != "Arch" || room_of((x, y)).is_none());
            if stray && !door_of.contains_key(&(x, y)) {
                return Err(format!(
                    "the {} tile {:?} is in no door record",
                    name((x, y)),
                    (x, y)
                ));
            }
        }
    }
    // Places: pieces of walkable tiles that are not door tiles, each of one room or of none.
    let mut place = vec![usize::MAX; w * h];
    let mut place_room: Vec<Option<u64>> = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if place[y * w + x] != usize::MAX || !walkable((x, y)) || door_of.contains_key(&(x, y))
            {
                continue;
            }
            let id = place_room.len();
            let room = room_of((x, y));
            place_room.push(room);
            place[y * w + x] = id;
            let mut queue = VecDeque::from([(x, y)]);
            while let Some(p) = queue.pop_front() {
                if room_of(p) != room {
                    return Err(format!(
                        "tiles {:?} of {room:?} and {p:?} of {:?} touch without a door",
                        (x, y),
                        room_of(p)
                    ));
                }
                for q in neighbours(p) {
                    if place[q.1 * w + q.0] == usize::MAX
                        && walkable(q)
                        && !door_of.contains_key(&q)
                    {
                        place[q.1 * w + q.0] = id;
                        queue.push_back(q);
                    }
                }
            }
        }
    }
    // What each door touches.
    let mut door_places: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); doors.len()];
    let mut corridor_doors: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (i, d) in doors.iter().enumerate() {
        for &p in &d.tiles {
            for q in neighbours(p) {
                if let Some(&j) = door_of.get(&q) {
                    if j != i {
                        return Err(format!(
                            "doors of l{} and l{} touch at {p:?}",
                            d.link, doors[j].link
                        ));
                    }
                } else if walkable(q) {
                    let pl = place[q.1 * w + q.0];
                    door_places[i].insert(pl);
                    if place_room[pl].is_none() {
                        corridor_doors.entry(pl).or_default().insert(i);
                    }
                }
            }
        }
        let touched: BTreeSet<u64> = door_places[i]
            .iter()
            .filter_map(|&pl| place_room[pl])
            .collect();
        let want: BTreeSet<u64> = d.rooms.into_iter().collect();
        if touched != want {
            return Err(format!(
                "door of l{} touches rooms {touched:?}, not {want:?}",
                d.link
            ));
        }
    }
    for (pl, ds) in &corridor_doors {
        if ds.len() > 1 {
            let names: Vec<u64> = ds.iter().map(|&i| doors[i].link).collect();
            return Err(format!(
                "a corridor (place {pl}) joins the doors of several links: {names:?}"
            ));
        }
    }
    // Warps.
    let mut warp_edges: Vec<(usize, usize)> = Vec::new();
    let mut warped = BTreeSet::new();
    for wv in arr(&doc["warps"], "warps")? {
        let link = wv["link"].as_u64().ok_or("warp without link")?;
        let g = links
            .get(&link)
            .ok_or(format!("warp of l{link}: no such link"))?;
        if g["kind"] != "Warp" {
            return Err(format!("warp of l{link}: the link is {}", g["kind"]));
        }
        let (a, b) = (pos(&wv["tiles"][0])?, pos(&wv["tiles"][1])?);
        for (p, room) in [(a, &g["from"]), (b, &g["to"])] {
            if name(p) != "WarpPad" || room_of(p) != room.as_u64() {
                return Err(format!("warp of l{link}: {p:?} is not a pad in r{room}"));
            }
        }
        warped.insert(link);
        warp_edges.push((place[a.1 * w + a.0], place[b.1 * w + b.0]));
    }
    for (id, l) in &links {
        if l["kind"] == "Warp" && !warped.contains(id) {
            return Err(format!("warp link l{id} has no warp record"));
        }
    }
    // Items.
    struct It {
        place: usize,
        kind: String,
        id: u64,
    }
    let mut items: Vec<It> = Vec::new();
    let mut placed: Vec<(u64, String)> = Vec::new();
    let mut item_tiles = BTreeSet::new();
    for it in arr(&doc["items"], "items")? {
        let p = pos(&it["at"])?;
        let room = it["room"].as_u64().ok_or("item without room")?;
        if name(p) != "Floor" || room_of(p) != Some(room) {
            return Err(format!(
                "item {} at {p:?} is not on the floor of r{room} ({})",
                it["item"],
                name(p)
            ));
        }
        if p == start_tile {
            return Err(format!("item {} lies on the start tile", it["item"]));
        }
        if !item_tiles.insert(p) {
            return Err(format!("two items on {p:?}"));
        }
        placed.push((room, it["item"].to_string()));
        let (kind, id) = match it["item"].as_object().and_then(|o| o.iter().next()) {
            Some((k, v)) => (k.clone(), v.as_u64().unwrap_or(u64::MAX)),
            None => (String::new(), u64::MAX),
        };
        items.push(It {
            place: place[p.1 * w + p.0],
            kind,
            id,
        });
    }
    placed.sort();
    graph_items.sort();
    if placed != graph_items {
        return Err(format!(
            "the items on tiles {placed:?} are not the graph's {graph_items:?}"
        ));
    }
    // Rooms.
    let mut bounds: BTreeMap<u64, [usize; 4]> = BTreeMap::new();
    for y in 0..h {
        for x in 0..w {
            if let Some(r) = room_of((x, y)) {
                let b = bounds.entry(r).or_insert([x, y, x, y]);
                *b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
            }
        }
    }
    let mut records = BTreeSet::new();
    for r in arr(&doc["rooms"], "rooms")? {
        let id = r["room"].as_u64().ok_or("room record without room")?;
        let b = bounds
            .get(&id)
            .ok_or(format!("room record r{id}: no tiles"))?;
        let rect: Vec<u64> = r["rect"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64)
            .collect();
        let want = [b[0], b[1], b[2] - b[0] + 1, b[3] - b[1] + 1].map(|v| v as u64);
        if rect != want {
            return Err(format!(
                "room r{id}: rect {rect:?}, its tiles span {want:?}"
            ));
        }
        for s in arr(&r["spawn_slots"], "spawn_slots")? {
            let p = pos(s)?;
            let near_door = (-1i64..=1).any(|dy| {
                (-1i64..=1).any(|dx| {
                    let q = (p.0 as i64 + dx, p.1 as i64 + dy);
                    q.0 >= 0 && q.1 >= 0 && DOORISH.contains(&name((q.0 as usize, q.1 as usize)))
                })
            });
            if name(p) != "Floor"
                || room_of(p) != Some(id)
                || near_door
                || item_tiles.contains(&p)
                || p == start_tile
                || p == goal_tile
            {
                return Err(format!(
                    "room r{id}: spawn slot {p:?} is not free floor of the room"
                ));
            }
        }
        records.insert(id);
    }
    if let Some(r) = graph_rooms.iter().find(|r| !records.contains(r)) {
        return Err(format!("graph room r{r} has no room record"));
    }
    // The walk.
    let start_place = place[start_tile.1 * w + start_tile.0];
    let goal_place = place[goal_tile.1 * w + goal_tile.0];
    let mut touching: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, ps) in door_places.iter().enumerate() {
        for &p in ps {
            touching.entry(p).or_default().push(i);
        }
    }
    type State = (usize, Vec<bool>, Vec<bool>);
    let take = |pl: usize, mut have: Vec<bool>| {
        for (i, it) in items.iter().enumerate() {
            if it.place == pl {
                have[i] = true;
            }
        }
        have
    };
    let first: State = (
        start_place,
        take(start_place, vec![false; items.len()]),
        vec![false; doors.len()],
    );
    let mut seen: HashSet<State> = HashSet::from([first.clone()]);
    let mut queue = VecDeque::from([first]);
    let mut rooms_reached = BTreeSet::new();
    let mut goal_reached = false;
    const BUDGET: usize = 200_000;
    while let Some((pl, have, opened)) = queue.pop_front() {
        if seen.len() > BUDGET {
            return Err(format!("the walk passed {BUDGET} states"));
        }
        rooms_reached.extend(place_room[pl]);
        goal_reached |= pl == goal_place;
        let mut next: Vec<State> = Vec::new();
        for &d in touching.get(&pl).into_iter().flatten() {
            let door = &doors[d];
            if door.one_way_to.is_some() && door.one_way_to == place_room[pl] {
                continue;
            }
            let mut opened_after = opened.clone();
            if !door.lock.is_null() {
                let by = door.lock["by"].as_u64().unwrap_or(u64::MAX);
                let opener = door.lock["opener"].as_str().unwrap_or("");
                if opener == "SmallKey" {
                    if !opened[d] {
                        let ring = |i: usize| {
                            doors[i].lock["opener"] == "SmallKey"
                                && doors[i].lock["by"].as_u64() == Some(by)
                        };
                        let keys = items
                            .iter()
                            .zip(&have)
                            .filter(|(it, h)| **h && it.kind == "SmallKey" && it.id == by)
                            .count();
                        let spent = (0..doors.len()).filter(|&i| opened[i] && ring(i)).count();
                        if keys <= spent {
                            continue;
                        }
                        opened_after[d] = true;
                    }
                } else if !items
                    .iter()
                    .zip(&have)
                    .any(|(it, h)| *h && it.kind == opener && it.id == by)
                {
                    continue;
                }
            }
            for &q in &door_places[d] {
                if q != pl {
                    next.push((q, take(q, have.clone()), opened_after.clone()));
                }
            }
        }
        for &(a, b) in &warp_edges {
            for (from, to) in [(a, b), (b, a)] {
                if from == pl {
                    next.push((to, take(to, have.clone()), opened.clone()));
                }
            }
        }
        for s in next {
            if seen.insert(s.clone()) {
                queue.push_back(s);
            }
        }
    }
    if !goal_reached {
        return Err(format!(
            "the walk from {start_tile:?} never reaches the goal tile {goal_tile:?}"
        ));
    }
    if let Some(r) = graph_rooms.iter().find(|r| !rooms_reached.contains(r)) {
        return Err(format!("the walk never enters r{r}"));
    }
    Ok(TileReport {
        rooms_reached,
        states: seen.len(),
    })
}
