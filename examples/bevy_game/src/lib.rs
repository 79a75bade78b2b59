//! A levelplan level as Bevy entities, and a scripted player that walks it.
//!
//! [`spawn_level`] turns a [`Level`]'s game view into entities: a [`RoomArea`] per room (with
//! its [`SpawnSlot`]s), a [`Door`] per door (with [`Locked`] while its lock holds and
//! [`OneWay`] where it opens one way), a [`Pickup`] per item, a [`WarpPad`] at each end of a
//! warp, the [`Goal`], and the [`Player`] at `start_tile` with an empty [`Inventory`]. The
//! tiles go into the [`Map`] resource. Nothing is read from the level's graph: a game that
//! loads the level's JSON document gets the same entities.
//!
//! [`ScriptedPlayerPlugin`] moves the player one tile per update through the level's
//! walkthrough: to each opener, which it picks up by standing on it; to each locked door,
//! which it opens only with an opener it holds (a small key is used up); through each one-way
//! door in its direction; to the goal. It walks by the game's rules: four ways over walkable
//! tiles, never onto a locked door, never into a one-way door from the room it leads into, a
//! warp pad carries it to the other pad. The [`Journal`] says what it did.

use std::collections::{HashMap, HashSet, VecDeque};

use bevy::prelude::*;
use levelplan::graph::solve::Step;
use levelplan::{DoorKind, Item, Level, LinkId, Lock, Opener, RoomId, TilePos};

/// Where an entity stands, in tiles (`[x, y]` of the level: column and row from the top left).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileAt(pub TilePos);

/// The player.
#[derive(Component, Debug)]
pub struct Player;

/// What the player carries.
#[derive(Component, Debug, Default)]
pub struct Inventory(pub Vec<Item>);

/// A room: its bounds in tiles and what kind of room it is.
#[derive(Component, Debug)]
pub struct RoomArea {
    /// The graph room.
    pub room: RoomId,
    /// What a game switches on (`"boss"`, `"shop"`, a Diablo theme, a sector role...).
    pub kind: String,
    /// `[x, y, w, h]`.
    pub rect: [usize; 4],
}

/// A place for an enemy or a prop, clear of doors and items.
#[derive(Component, Debug)]
pub struct SpawnSlot {
    /// Its room.
    pub room: RoomId,
}

/// A door: the tiles of its opening and the two rooms it joins.
#[derive(Component, Debug)]
pub struct Door {
    /// The graph link.
    pub link: LinkId,
    /// The two rooms.
    pub rooms: [RoomId; 2],
    /// Every tile of the opening.
    pub tiles: Vec<TilePos>,
    /// Plain, secret, heavy, window or open.
    pub kind: DoorKind,
}

/// A door's lock, while it holds.
#[derive(Component, Debug, Clone, Copy)]
pub struct Locked(pub Lock);

/// A door that lets the player through only into this room.
#[derive(Component, Debug, Clone, Copy)]
pub struct OneWay {
    /// The room it opens into.
    pub into: RoomId,
}

/// An item lying on its tile.
#[derive(Component, Debug, Clone)]
pub struct Pickup(pub Item);

/// A teleporter pad and where it takes the player.
#[derive(Component, Debug, Clone, Copy)]
pub struct WarpPad {
    /// The graph link.
    pub link: LinkId,
    /// The other pad.
    pub to: TilePos,
}

/// What ends the level.
#[derive(Component, Debug)]
pub struct Goal;

/// The tiles as the rules of movement need them.
#[derive(Resource, Debug)]
pub struct Map {
    /// Width in tiles.
    pub width: usize,
    /// Height in tiles.
    pub height: usize,
    /// Whether each tile (row-major) can be stood on.
    pub walkable: Vec<bool>,
    /// The room of each tile.
    pub room: Vec<Option<RoomId>>,
    /// The door entity each door tile belongs to.
    pub door_at: HashMap<TilePos, Entity>,
    /// The pad entity on each pad tile.
    pub pad_at: HashMap<TilePos, Entity>,
}

impl Map {
    fn index(&self, (x, y): TilePos) -> usize {
        y * self.width + x
    }

    fn neighbours(&self, (x, y): TilePos) -> impl Iterator<Item = TilePos> + '_ {
        let (w, h) = (self.width, self.height);
        [
            (x.wrapping_sub(1), y),
            (x + 1, y),
            (x, y.wrapping_sub(1)),
            (x, y + 1),
        ]
        .into_iter()
        .filter(move |&(a, b)| a < w && b < h)
    }
}

/// The steps the player follows: the level's walkthrough.
#[derive(Resource, Debug)]
pub struct Script {
    /// The walkthrough's steps.
    pub steps: Vec<Step>,
    /// The step being walked.
    pub next: usize,
    path: VecDeque<TilePos>,
}

/// What the scripted player did.
#[derive(Resource, Debug, Default)]
pub struct Journal {
    /// Items picked up, in order.
    pub picked: Vec<Item>,
    /// Locks opened, in order.
    pub opened: Vec<Opened>,
    /// Tiles walked (a warp counts as one).
    pub moves: usize,
    /// Every tile the player stood on, in order.
    pub trail: Vec<TilePos>,
    /// The player stands on the goal.
    pub reached: bool,
    /// Why the player cannot go on, if it cannot.
    pub stuck: Option<String>,
}

/// A lock the player opened.
#[derive(Debug, Clone)]
pub struct Opened {
    /// The door's link.
    pub link: LinkId,
    /// Its lock.
    pub lock: Lock,
    /// What the player held when it opened it.
    pub held: Vec<Item>,
    /// How long the trail was then: tiles `trail[..trail_len]` were walked with it shut.
    pub trail_len: usize,
}

/// Spawns `level`'s game view into `world` and puts its map and walkthrough in resources.
pub fn spawn_level(world: &mut World, level: &Level) -> Result<(), String> {
    let tiles = &level.tiles;
    let (width, height) = (tiles.tiles.width(), tiles.tiles.height());
    let start = level.start_tile.ok_or("the level has no start tile")?;
    let goal = level.goal_tile.ok_or("the level has no goal tile")?;
    let mut map = Map {
        width,
        height,
        walkable: tiles.tiles.values().iter().map(|t| t.walkable()).collect(),
        // A tile's region names its room through the level's region table.
        room: tiles
            .regions
            .values()
            .iter()
            .map(|r| r.and_then(|r| level.region_rooms.get(r as usize).copied().flatten()))
            .collect(),
        door_at: HashMap::new(),
        pad_at: HashMap::new(),
    };
    for room in &level.rooms {
        let [x, y, w, h] = room.rect;
        world.spawn(RoomArea {
            room: room.room,
            kind: room.kind.clone(),
            rect: [x, y, w, h],
        });
        for &at in &room.spawn_slots {
            world.spawn((SpawnSlot { room: room.room }, TileAt(at)));
        }
    }
    for door in &level.doors {
        let mut e = world.spawn(Door {
            link: door.link,
            rooms: door.rooms,
            tiles: door.tiles.clone(),
            kind: door.kind,
        });
        if let Some(lock) = door.lock {
            e.insert(Locked(lock));
        }
        if let Some(into) = door.one_way_to {
            e.insert(OneWay { into });
        }
        let id = e.id();
        for &t in &door.tiles {
            map.door_at.insert(t, id);
        }
    }
    for item in &level.items {
        world.spawn((Pickup(item.item.clone()), TileAt(item.at)));
    }
    for warp in &level.warps {
        let [a, b] = warp.tiles;
        for (at, to) in [(a, b), (b, a)] {
            let id = world
                .spawn((
                    WarpPad {
                        link: warp.link,
                        to,
                    },
                    TileAt(at),
                ))
                .id();
            map.pad_at.insert(at, id);
        }
    }
    world.spawn((Goal, TileAt(goal)));
    world.spawn((Player, Inventory::default(), TileAt(start)));
    world.insert_resource(map);
    world.insert_resource(Script {
        steps: level.walkthrough.steps.clone(),
        next: 0,
        path: VecDeque::new(),
    });
    world.insert_resource(Journal {
        trail: vec![start],
        ..Journal::default()
    });
    Ok(())
}

/// Moves the player through the walkthrough, one tile per update.
pub struct ScriptedPlayerPlugin;

impl Plugin for ScriptedPlayerPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Update, (pick_up, open_door, follow_script, walk).chain());
    }
}

/// A headless app with `level` spawned and the scripted player in it.
pub fn app_for(level: &Level) -> Result<App, String> {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, ScriptedPlayerPlugin));
    spawn_level(app.world_mut(), level)?;
    Ok(app)
}

/// Picks up whatever lies on the player's tile.
fn pick_up(
    mut commands: Commands,
    mut player: Query<(&TileAt, &mut Inventory), With<Player>>,
    items: Query<(Entity, &TileAt, &Pickup)>,
    mut journal: ResMut<Journal>,
) {
    let Ok((at, mut inventory)) = player.single_mut() else {
        return;
    };
    for (e, item_at, item) in &items {
        if item_at == at {
            inventory.0.push(item.0.clone());
            journal.picked.push(item.0.clone());
            commands.entity(e).despawn();
        }
    }
}

/// The item that opens `lock`.
fn opener_of(lock: &Lock) -> Item {
    match lock.opener {
        Opener::Key => Item::Key(lock.by),
        Opener::Switch => Item::Switch(lock.by),
        Opener::Task => Item::Task(lock.by),
        Opener::SmallKey => Item::SmallKey(lock.by),
    }
}

/// Opens the door the script names when the player stands beside it holding its opener.
fn open_door(
    mut commands: Commands,
    mut player: Query<(&TileAt, &mut Inventory), With<Player>>,
    doors: Query<(Entity, &Door, &Locked)>,
    script: Res<Script>,
    map: Res<Map>,
    mut journal: ResMut<Journal>,
) {
    let Some(Step::Open { link, .. }) = script.steps.get(script.next) else {
        return;
    };
    let Ok((at, mut inventory)) = player.single_mut() else {
        return;
    };
    for (e, door, locked) in &doors {
        let beside = door
            .tiles
            .iter()
            .any(|&t| map.neighbours(t).any(|n| n == at.0));
        if door.link != *link || !beside {
            continue;
        }
        let opener = opener_of(&locked.0);
        let Some(held) = inventory.0.iter().position(|i| *i == opener) else {
            continue; // not held: the door stays shut
        };
        let trail_len = journal.trail.len();
        journal.opened.push(Opened {
            link: door.link,
            lock: locked.0,
            held: inventory.0.clone(),
            trail_len,
        });
        if locked.0.opener == Opener::SmallKey {
            inventory.0.remove(held);
        }
        commands.entity(e).remove::<Locked>();
    }
}

/// Whether the player may step from `from` onto `to`.
fn may_step(
    map: &Map,
    from: TilePos,
    to: TilePos,
    locked: &HashSet<Entity>,
    one_way: &HashMap<Entity, RoomId>,
) -> bool {
    if !map.walkable[map.index(to)] {
        return false;
    }
    let Some(&door) = map.door_at.get(&to) else {
        return true;
    };
    if locked.contains(&door) {
        return false;
    }
    match one_way.get(&door) {
        // Never into a one-way door from the room it leads into.
        Some(&into) => {
            map.door_at.get(&from) == Some(&door) || map.room[map.index(from)] != Some(into)
        }
        None => true,
    }
}

/// The tiles from `start` to the nearest tile `wanted` accepts, by the rules of movement
/// (first move first; a warp pad's tile is followed by the other pad's).
fn path(
    map: &Map,
    pads: &Query<&WarpPad>,
    start: TilePos,
    locked: &HashSet<Entity>,
    one_way: &HashMap<Entity, RoomId>,
    wanted: impl Fn(TilePos) -> bool,
) -> Option<VecDeque<TilePos>> {
    let mut came: HashMap<TilePos, (TilePos, Option<TilePos>)> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    let mut seen = HashSet::from([start]);
    while let Some(p) = queue.pop_front() {
        if wanted(p) {
            let mut out = VecDeque::new();
            let mut at = p;
            while at != start {
                let (prev, via) = came[&at];
                out.push_front(at);
                if let Some(pad) = via {
                    out.push_front(pad);
                }
                at = prev;
            }
            return Some(out);
        }
        for n in map.neighbours(p) {
            if !may_step(map, p, n, locked, one_way) {
                continue;
            }
            // Walking onto a pad ends on the other one.
            let (next, via) = match map.pad_at.get(&n).and_then(|&e| pads.get(e).ok()) {
                Some(pad) => (pad.to, Some(n)),
                None => (n, None),
            };
            if seen.insert(next) {
                came.insert(next, (p, via));
                queue.push_back(next);
            }
        }
    }
    None
}

/// Marks steps done and plans the way to the next one.
#[allow(clippy::too_many_arguments)]
fn follow_script(
    player: Query<(&TileAt, &Inventory), With<Player>>,
    doors: Query<(Entity, &Door, Option<&Locked>, Option<&OneWay>)>,
    items: Query<(&TileAt, &Pickup)>,
    goal: Query<&TileAt, With<Goal>>,
    pads: Query<&WarpPad>,
    map: Res<Map>,
    mut script: ResMut<Script>,
    mut journal: ResMut<Journal>,
) {
    let (Ok((at, inventory)), Ok(goal)) = (player.single(), goal.single()) else {
        return;
    };
    let here = at.0;
    let locked: HashSet<Entity> = doors
        .iter()
        .filter(|d| d.2.is_some())
        .map(|d| d.0)
        .collect();
    let one_way: HashMap<Entity, RoomId> = doors
        .iter()
        .filter_map(|d| d.3.map(|w| (d.0, w.into)))
        .collect();
    loop {
        let Some(step) = script.steps.get(script.next).cloned() else {
            return;
        };
        // Collect: done once held (as many as the walkthrough's collections of it so far).
        let done = match &step {
            Step::Collect { item, .. } => {
                let wanted = script.steps[..=script.next]
                    .iter()
                    .filter(|s| matches!(s, Step::Collect { item: i, .. } if i == item))
                    .count();
                journal.picked.iter().filter(|i| *i == item).count() >= wanted
            }
            Step::Open { link, .. } => doors.iter().any(|d| d.1.link == *link && d.2.is_none()),
            Step::OneWay { to, .. } => {
                !map.door_at.contains_key(&here) && map.room[map.index(here)] == Some(*to)
            }
            Step::Reach { .. } => here == goal.0,
        };
        if done {
            if matches!(step, Step::Reach { .. }) {
                journal.reached = true;
                return;
            }
            script.next += 1;
            script.path.clear();
            continue;
        }
        if !script.path.is_empty() {
            return;
        }
        let found = match &step {
            Step::Collect { item, .. } => path(&map, &pads, here, &locked, &one_way, |p| {
                items.iter().any(|(t, i)| t.0 == p && i.0 == *item)
            }),
            Step::Open { link, .. } => {
                let door = doors.iter().find(|d| d.1.link == *link);
                let tiles: HashSet<TilePos> = door
                    .map(|d| d.1.tiles.iter().copied().collect())
                    .unwrap_or_default();
                path(&map, &pads, here, &locked, &one_way, |p| {
                    !tiles.contains(&p) && map.neighbours(p).any(|n| tiles.contains(&n))
                })
            }
            Step::OneWay { to, .. } => path(&map, &pads, here, &locked, &one_way, |p| {
                !map.door_at.contains_key(&p) && map.room[map.index(p)] == Some(*to)
            }),
            Step::Reach { .. } => path(&map, &pads, here, &locked, &one_way, |p| p == goal.0),
        };
        match found {
            // Beside the door already: the next update opens it, if the opener is held.
            Some(p) if p.is_empty() => {
                if let Step::Open { lock, .. } = &step
                    && !inventory.0.contains(&opener_of(lock))
                {
                    journal.stuck = Some(format!("beside the door without its opener: {step}"));
                }
                return;
            }
            Some(p) => script.path = p,
            None => journal.stuck = Some(format!("no way to: {step}")),
        }
        return;
    }
}

/// Takes one move along the planned way.
fn walk(
    mut player: Query<&mut TileAt, With<Player>>,
    mut script: ResMut<Script>,
    mut journal: ResMut<Journal>,
) {
    let Ok(mut at) = player.single_mut() else {
        return;
    };
    let Some(next) = script.path.pop_front() else {
        return;
    };
    at.0 = next;
    journal.trail.push(next);
    // A warp pad's tile is followed at once by the other pad's.
    if let Some(&after) = script.path.front()
        && !adjacent(next, after)
    {
        let to = script.path.pop_front().expect("just seen");
        at.0 = to;
        journal.trail.push(to);
    }
    journal.moves += 1;
}

fn adjacent(a: TilePos, b: TilePos) -> bool {
    a.0.abs_diff(b.0) + a.1.abs_diff(b.1) == 1
}

/// Runs `app` until the player reaches the goal or gets stuck, at most `updates` times.
pub fn run_to_goal(app: &mut App, updates: usize) -> Result<&Journal, String> {
    for _ in 0..updates {
        app.update();
        let journal = app.world().resource::<Journal>();
        if journal.reached {
            break;
        }
        if let Some(why) = &journal.stuck {
            return Err(why.clone());
        }
    }
    let journal = app.world().resource::<Journal>();
    if journal.reached {
        Ok(journal)
    } else {
        Err(format!("not at the goal after {updates} updates"))
    }
}
