//! Sector levels (`../shared/spec/sectors.md`): geometry -> sector graph -> scenario -> doors
//! and windows. Each step of the spec is a function named for it:
//!
//! | step | function |
//! |---|---|
//! | 1. geometry | [`bsp_geometry`], [`growth_geometry`] |
//! | 2-3. garbage cells and sectors | [`clean_up`], then [`split_sections`] |
//! | 4-5. connections, largest component | [`sector_graph`] |
//! | 6-7. spanning tree, restored links, open passages | [`randomise_connections`] |
//! | 8. secret rooms | [`secret_rooms`] |
//! | 9. scenario | [`crate::graph::lock_and_key::sector_scenario`] |
//! | 10. orientation | [`orient`] |
//! | 11. doors and windows | [`doors_and_windows`] |
//! | 12. openers | [`choose_openers`] |
//! | tiles | [`floor_tiles`], [`sector_tiles`] |
//!
//! [`SectorRecipe`] runs them all and returns a [`crate::Level`] whose graph the solver proved
//! completable. A field is a grid of sector ids (`None`: wall). Cells are `(x, y)`, `y` down.
//! A sector's cells are its walls and floor: a cell is floor when its eight neighbours are of
//! its sector ([`interior`]), so two sectors side by side have a wall each, and a door is two
//! tiles deep.
//!
//! # Examples
//! ```
//! use levelplan::Recipe;
//! use levelplan::recipes::sectors::{Geometry, SectorParams, SectorRecipe};
//!
//! let recipe = SectorRecipe::new(SectorParams { geometry: Geometry::Growth, ..SectorParams::default() })?;
//! let level = recipe.generate(3)?;
//! assert_eq!(level.graph.entrance(), Some(level.start));
//! assert!(level.room_at(level.stairs.unwrap().up.0, level.stairs.unwrap().up.1) == Some(level.start));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The steps on their own:
//! ```
//! use levelplan::recipes::sectors::{BspParams, bsp_geometry, clean_up, sector_graph, split_sections};
//! let mut rng = levelplan::seed::stream(3, "sectors");
//! let mut field = bsp_geometry(64, 48, &BspParams::default(), &mut rng);
//! clean_up(&mut field);
//! split_sections(&mut field);
//! let sectors = sector_graph(&mut field);
//! assert!(sectors.graph.room_count() >= 2);
//! assert_eq!(levelplan::graph::component_count(&sectors.graph), 1);
//! ```

mod cleanup;
mod geometry;
mod graph;
mod openings;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rand::Rng;
use serde::{Deserialize, Serialize};

pub use cleanup::{clean_up, split_sections};
pub use geometry::{BspParams, GrowthParams, bsp_geometry, growth_geometry};
pub use graph::{
    Contact, SectorGraph, doorway, interior, randomise_connections, secret_rooms, sector_graph,
};
pub use openings::{OpeningChances, doors_and_windows};

use crate::graph::lock_and_key::{Scenario, ScenarioOptions, sector_scenario};
use crate::graph::{
    Item, KeyId, LevelGraph, Link, LinkId, LinkKind, Opener, Room, RoomId, RoomKind,
};
use crate::layout::RetryPolicy;
use crate::level::{Opening, OpeningKind, PlacedItem, SectorConnection, SectorRecord, TilePos};
use crate::seed;
use crate::tiles::{Grid, Tile, TileMap};

/// A field of sectors: each cell's sector, `None` for wall.
pub type Field = Grid<Option<u32>>;

/// The narrowest a sector may be anywhere: every sector cell lies in a 3 x 3 block of its
/// sector (the spec: "no sector part narrower than 3 x 3").
pub const MIN_SIDE: usize = 3;

/// The smallest field side [`SectorParams`] accept.
pub const MIN_FIELD: usize = 16;

/// The largest field side [`SectorParams`] accept (a 1024 x 1024 field is a million cells).
pub const MAX_FIELD: usize = 1024;

/// The name of the item that ends the level, in the exit sector.
pub const EXIT_SWITCH: &str = "exit switch";

/// Which generator makes the first geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Geometry {
    /// Binary space partition: rooms in leaves, corridors between siblings.
    #[default]
    Bsp,
    /// Room growth: seeds grown until they fill the outline.
    Growth,
}

impl Geometry {
    /// Its name (`bsp`, `growth`).
    pub fn name(self) -> &'static str {
        match self {
            Geometry::Bsp => "bsp",
            Geometry::Growth => "growth",
        }
    }
}

/// Settings of the sector recipe; the defaults are the spec's where it gives a number. Read
/// them from RON with [`SectorParams::from_ron`]; fields left out keep their defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SectorParams {
    /// The geometry generator.
    pub geometry: Geometry,
    /// Field width in cells ([`MIN_FIELD`] to [`MAX_FIELD`]).
    pub width: usize,
    /// Field height in cells.
    pub height: usize,
    /// The BSP generator's settings.
    pub bsp: BspParams,
    /// The room-growth generator's settings.
    pub growth: GrowthParams,
    /// Fraction of the connections the spanning tree deleted that come back (step 7).
    pub restore: f64,
    /// Chance that a kept connection becomes an open passage, merging its sectors (step 7).
    pub open_passages: f64,
    /// Chance that a neighbouring sector joins the script being built (step 9).
    pub continue_chance: f64,
    /// Most keys among the openers (the spec: 0 to 3); the rest are switches or tasks.
    pub max_keys: usize,
    /// Chance that an opener that could be a key but is not becomes a task ("clear this
    /// sector") instead of a switch.
    pub task_chance: f64,
    /// Chance of a window at steps 2, 3 and 4 of step 11 (then round again from step 2).
    pub window_chances: [f64; 3],
    /// Weights of door widths 1, 2 and 3 (step 11).
    pub door_widths: [f64; 3],
    /// Levels tried before giving up.
    pub retry: RetryPolicy,
}

impl Default for SectorParams {
    fn default() -> SectorParams {
        SectorParams {
            geometry: Geometry::Bsp,
            width: 64,
            height: 64,
            bsp: BspParams::default(),
            growth: GrowthParams::default(),
            restore: 0.15,
            open_passages: 0.08,
            continue_chance: 0.5,
            max_keys: 3,
            task_chance: 0.2,
            window_chances: [0.75, 1.0, 0.5],
            door_widths: [0.6, 0.25, 0.15],
            retry: RetryPolicy::Attempts(20),
        }
    }
}

/// What can go wrong making a sector level.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SectorError {
    /// A setting that cannot work.
    #[error("sector setting `{name}`: {reason}")]
    Param {
        /// The setting, as the RON file spells it.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A settings file that does not read.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A settings file whose settings cannot work (the inner error names the setting).
    #[error("{file}: {source}")]
    InFile {
        /// The file.
        file: String,
        /// What is wrong in it.
        #[source]
        source: Box<SectorError>,
    },
    /// No attempt made a level.
    #[error(
        "no sector level in {attempts} attempt{}; the last failed: {reason}",
        if *attempts == 1 { "" } else { "s" }
    )]
    NoLevel {
        /// Attempts made.
        attempts: u32,
        /// Why the last one failed.
        reason: String,
    },
}

impl SectorParams {
    /// Reads settings from RON (fields left out keep their defaults); `file` names the source
    /// in errors. The settings are checked as [`SectorParams::check`] does.
    ///
    /// # Examples
    /// ```
    /// use levelplan::recipes::sectors::{Geometry, SectorParams};
    /// let p = SectorParams::from_ron("(geometry: Growth, width: 128, height: 96)", "mine.ron")?;
    /// assert_eq!((p.geometry, p.width, p.max_keys), (Geometry::Growth, 128, 3));
    /// let bad = SectorParams::from_ron("(restore: 1.5)", "mine.ron").unwrap_err();
    /// assert!(bad.to_string().contains("`restore`"));
    /// # Ok::<(), levelplan::recipes::sectors::SectorError>(())
    /// ```
    pub fn from_ron(text: &str, file: &str) -> Result<SectorParams, SectorError> {
        let params: SectorParams =
            crate::data::from_ron(text, false).map_err(|e| SectorError::Syntax {
                file: file.to_string(),
                line: e.line,
                column: e.column,
                message: e.message,
            })?;
        params.check().map_err(|e| SectorError::InFile {
            file: file.to_string(),
            source: Box::new(e),
        })?;
        Ok(params)
    }

    /// Checks every setting, naming the first that cannot work: field sides outside
    /// [`MIN_FIELD`]`..=`[`MAX_FIELD`], a field smaller than a BSP leaf, depth 0 (or over
    /// 16), leaves or corridors narrower than a sector, chances outside `0..=1`, widths
    /// without a positive weight, an empty growth outline or a seed area under 9 cells.
    pub fn check(&self) -> Result<(), SectorError> {
        let bad = |name: &'static str, reason: String| Err(SectorError::Param { name, reason });
        for (name, side) in [("width", self.width), ("height", self.height)] {
            if !(MIN_FIELD..=MAX_FIELD).contains(&side) {
                return bad(
                    name,
                    format!("{side} cells; a field side is {MIN_FIELD} to {MAX_FIELD} cells"),
                );
            }
        }
        let chances = [
            ("restore", self.restore),
            ("open_passages", self.open_passages),
            ("continue_chance", self.continue_chance),
            ("task_chance", self.task_chance),
            ("window_chances", self.window_chances[0]),
            ("window_chances", self.window_chances[1]),
            ("window_chances", self.window_chances[2]),
        ];
        for (name, p) in chances {
            if !(0.0..=1.0).contains(&p) {
                return bad(name, format!("{p} is not a chance (0 to 1)"));
            }
        }
        if self.door_widths.iter().any(|w| !w.is_finite() || *w < 0.0)
            || self.door_widths.iter().all(|&w| w <= 0.0)
        {
            return bad(
                "door_widths",
                format!(
                    "{:?}: weights must be finite, not negative, and one above 0",
                    self.door_widths
                ),
            );
        }
        if self.max_keys > 64 {
            return bad("max_keys", format!("{} keys; at most 64", self.max_keys));
        }
        match self.geometry {
            Geometry::Bsp => {
                let b = &self.bsp;
                if b.depth == 0 || b.depth > 16 {
                    return bad(
                        "bsp.depth",
                        format!("{}; the field is split 1 to 16 times", b.depth),
                    );
                }
                if b.min_leaf < MIN_SIDE + 2 {
                    return bad(
                        "bsp.min_leaf",
                        format!(
                            "{}; a leaf holds a 3 x 3 room and its margin: at least 5",
                            b.min_leaf
                        ),
                    );
                }
                for (name, side) in [("width", self.width), ("height", self.height)] {
                    if side < b.min_leaf {
                        return bad(
                            name,
                            format!(
                                "the field ({} x {}) is smaller than one room's leaf (bsp.min_leaf {})",
                                self.width, self.height, b.min_leaf
                            ),
                        );
                    }
                }
                if b.corridor < MIN_SIDE || b.corridor > b.min_leaf {
                    return bad(
                        "bsp.corridor",
                        format!(
                            "{} cells; corridors are {MIN_SIDE} (the narrowest sector) to bsp.min_leaf ({}) wide",
                            b.corridor, b.min_leaf
                        ),
                    );
                }
            }
            Geometry::Growth => {
                let g = &self.growth;
                if g.clearings.0 == 0 || g.clearings.0 > g.clearings.1 || g.clearings.1 > 64 {
                    return bad(
                        "growth.clearings",
                        format!(
                            "{:?}: (least, most) with 1 <= least <= most <= 64",
                            g.clearings
                        ),
                    );
                }
                let (a, b) = g.clearing_size;
                if !(a > 0.0 && a <= b && b <= 1.0) {
                    return bad(
                        "growth.clearing_size",
                        format!(
                            "{:?}: (least, most) fractions with 0 < least <= most <= 1",
                            g.clearing_size
                        ),
                    );
                }
                if g.room_area < MIN_SIDE * MIN_SIDE {
                    return bad(
                        "growth.room_area",
                        format!("{} cells; a room seed alone is 9", g.room_area),
                    );
                }
            }
        }
        Ok(())
    }
}

/// The sector pipeline as a [`crate::Recipe`] (`levelplan generate --recipe sectors`).
#[derive(Debug, Clone, PartialEq)]
pub struct SectorRecipe {
    params: SectorParams,
}

impl SectorRecipe {
    /// The recipe with these settings, checked ([`SectorParams::check`]).
    pub fn new(params: SectorParams) -> Result<SectorRecipe, SectorError> {
        params.check()?;
        Ok(SectorRecipe { params })
    }

    /// Its settings.
    pub fn params(&self) -> &SectorParams {
        &self.params
    }
}

impl crate::Recipe for SectorRecipe {
    fn name(&self) -> &'static str {
        "sectors"
    }

    fn generate(&self, seed: u64) -> Result<crate::Level, crate::RecipeError> {
        generate(&self.params, seed)
    }
}

/// Makes a sector level: every step in order, retried within `params.retry` when an attempt
/// leaves too few sectors or a connection with no room for a door.
///
/// # Errors
/// [`SectorError`] (inside [`crate::RecipeError::Failed`]) for settings that cannot work or no
/// level within the budget; [`crate::RecipeError::Unsolvable`] if the solver could not prove
/// the level (a bug: the scenario is built to be completable).
pub fn generate(params: &SectorParams, seed: u64) -> Result<crate::Level, crate::RecipeError> {
    let failed = |e| crate::RecipeError::failed("sectors", e);
    params.check().map_err(failed)?;
    let mut rng = seed::stream(seed, "sectors");
    let mut reason = String::new();
    let mut made = 0;
    for attempt in params.retry.attempts() {
        made = attempt;
        match attempt_level(params, &mut rng) {
            Ok(mut level) => {
                level.seed = seed;
                level.attempts = attempt;
                return Ok(level);
            }
            Err(Failure::Retry(why)) => reason = why,
            Err(Failure::Unsolvable(source)) => {
                return Err(crate::RecipeError::Unsolvable {
                    recipe: "sectors",
                    source,
                });
            }
        }
    }
    Err(failed(SectorError::NoLevel {
        attempts: made,
        reason,
    }))
}

enum Failure {
    Retry(String),
    Unsolvable(crate::graph::solve::Unsolvable),
}

impl From<String> for Failure {
    fn from(s: String) -> Failure {
        Failure::Retry(s)
    }
}

/// The fewest sectors a level is made of (two of them not secret: the start and the exit).
const MIN_SECTORS: usize = 3;

fn attempt_level<R: Rng + ?Sized>(
    params: &SectorParams,
    rng: &mut R,
) -> Result<crate::Level, Failure> {
    let (w, h) = (params.width, params.height);
    // Steps 1-3.
    let mut field = match params.geometry {
        Geometry::Bsp => bsp_geometry(w, h, &params.bsp, rng),
        Geometry::Growth => growth_geometry(w, h, &params.growth, rng),
    };
    clean_up(&mut field);
    split_sections(&mut field);
    // Steps 4-5.
    let sectors = sector_graph(&mut field);
    if sectors.graph.room_count() < MIN_SECTORS {
        return Err(format!(
            "{} connected sectors, at least {MIN_SECTORS} are needed",
            sectors.graph.room_count()
        )
        .into());
    }
    // Steps 6-8.
    let sectors = randomise_connections(
        sectors,
        &mut field,
        params.restore,
        params.open_passages,
        MIN_SECTORS,
        rng,
    );
    let secrets: BTreeSet<RoomId> = secret_rooms(&sectors, &field, 2, rng).into_iter().collect();
    // The level's graph: the other sectors first (rooms 0..), then the secret rooms.
    let order: Vec<RoomId> = sectors
        .graph
        .room_ids()
        .filter(|r| !secrets.contains(r))
        .chain(secrets.iter().copied())
        .collect();
    let new_id: BTreeMap<RoomId, RoomId> = order
        .iter()
        .enumerate()
        .map(|(i, &r)| (r, RoomId(i as u32)))
        .collect();
    let mut graph = LevelGraph::new();
    for &r in &order {
        if !secrets.contains(&r) {
            graph.add_room(Room::new(RoomKind::Normal));
        }
    }
    // Contacts per new link, as (cell in the link's from room, cell in its to room).
    let mut contacts: Vec<Vec<Contact>> = Vec::new();
    let mut secret_links = Vec::new();
    for (l, a, b, link) in sectors.graph.links() {
        let cells = sectors.contacts.get(&l.0).cloned().unwrap_or_default();
        if secrets.contains(&a) || secrets.contains(&b) {
            secret_links.push((a, b, cells));
            continue;
        }
        graph.add_link(new_id[&a], new_id[&b], *link);
        contacts.push(cells);
    }
    // Step 9.
    let options = ScenarioOptions {
        continue_chance: params.continue_chance,
        max_keys: 0,
    };
    let mut scenario = sector_scenario(&mut graph, &options, rng).map_err(|e| e.to_string())?;
    for &r in &secrets {
        let mut room = Room::new(RoomKind::Secret);
        room.tags.insert("secret".into());
        graph.add_room(room);
        debug_assert_eq!(graph.room_bound() as u32 - 1, new_id[&r].0);
    }
    for (a, b, cells) in secret_links {
        // From the sector to its secret room.
        let (from, to, cells) = if secrets.contains(&b) {
            (a, b, cells)
        } else {
            (b, a, cells.into_iter().map(|(p, q)| (q, p)).collect())
        };
        graph.add_link(new_id[&from], new_id[&to], Link::new(LinkKind::Secret));
        contacts.push(cells);
    }
    // Step 11 (before 12: keys depend on door widths). Links with the fewest doorways first,
    // so that they find room.
    let chances = OpeningChances {
        window: params.window_chances,
        widths: params.door_widths,
    };
    let links: Vec<(LinkId, RoomId, RoomId, Link)> =
        graph.links().map(|(l, a, b, k)| (l, a, b, *k)).collect();
    let mut by_room_count: Vec<usize> = (0..links.len()).collect();
    by_room_count.sort_by_key(|&i| (contacts[i].len(), i));
    // The floor first: a wall tile carved into floor (to join a sector's floor) takes no
    // opening, which would cut that floor again when shut.
    let sector_of_room: Vec<u32> = order
        .iter()
        .map(|r| sectors.sectors[r.0 as usize])
        .collect();
    let mut tiles = floor_tiles(&field, &sector_of_room);
    let carved: BTreeSet<TilePos> = tiles
        .tiles
        .iter()
        .filter(|&((x, y), t)| *t == Tile::Floor && !interior(&field, x as i64, y as i64))
        .map(|(p, _)| p)
        .collect();
    let mut used: BTreeSet<TilePos> = BTreeSet::new();
    let mut openings: Vec<Vec<Opening>> = vec![Vec::new(); links.len()];
    for i in by_room_count {
        let secret = links[i].3.kind == LinkKind::Secret;
        let made = doors_and_windows(&contacts[i], secret, &chances, &mut used, &carved, rng);
        if made.is_empty() {
            return Err(format!(
                "no room for a door between rooms {} and {}",
                links[i].1, links[i].2
            )
            .into());
        }
        openings[i] = made;
    }
    // Step 12.
    choose_openers(&mut graph, &mut scenario, &links, &openings, params, rng);
    // Only a switch opens a heavy door: the doors of every other link are one cell wide.
    for (&(l, ..), made) in links.iter().zip(openings.iter_mut()) {
        let switch = graph
            .link(l)
            .and_then(|k| k.lock)
            .is_some_and(|k| k.opener == Opener::Switch);
        if !switch {
            for o in made.iter_mut().filter(|o| o.kind == OpeningKind::Door) {
                o.cells.truncate(1);
            }
        }
    }
    if let Some(room) = graph.room_mut(scenario.exit) {
        room.items.push(Item::Named(EXIT_SWITCH.into()));
    }
    let walkthrough = crate::graph::solve::solve(&graph).map_err(Failure::Unsolvable)?;
    // Step 10.
    let orientation = orient(&graph, scenario.start);
    let connections: Vec<SectorConnection> = links
        .iter()
        .zip(openings)
        .map(|(&(l, a, b, _), openings)| {
            let (from, to) = orientation.get(&l).copied().unwrap_or((a, b));
            let openings = if from == a {
                openings
            } else {
                openings
                    .into_iter()
                    .map(|o| Opening {
                        kind: o.kind,
                        cells: o.cells.into_iter().map(|(p, q)| (q, p)).collect(),
                    })
                    .collect()
            };
            SectorConnection {
                link: l,
                from,
                to,
                openings,
            }
        })
        .collect();
    // Tiles.
    add_openings(&mut tiles, &connections);
    let mut script_of: BTreeMap<RoomId, usize> = BTreeMap::new();
    for (i, s) in scenario.scripts.iter().enumerate() {
        for &r in &s.rooms {
            script_of.insert(r, i);
        }
    }
    let mut area = vec![0usize; order.len()];
    for ((_, _), region) in tiles.regions.iter() {
        if let Some(r) = region {
            area[*r as usize] += 1;
        }
    }
    let records: Vec<SectorRecord> = (0..order.len())
        .map(|i| SectorRecord {
            room: RoomId(i as u32),
            cells: area[i],
            script: script_of.get(&RoomId(i as u32)).copied(),
        })
        .collect();
    let (items, start_tile, exit_tile) = place_items(&graph, &tiles, scenario.start, rng)?;
    let region_rooms = (0..order.len() as u32).map(|i| Some(RoomId(i))).collect();
    let passages = connections
        .iter()
        .map(|c| {
            let secret = graph.link(c.link).map(|l| l.kind) == Some(LinkKind::Secret);
            let heavy = c.openings.iter().any(Opening::heavy);
            crate::view::Passage {
                link: c.link,
                tiles: c
                    .openings
                    .iter()
                    .filter(|o| o.kind != OpeningKind::Window)
                    .flat_map(|o| o.cells.iter().flat_map(|&(a, b)| [a, b]))
                    .collect(),
                kind: if secret {
                    crate::DoorKind::Secret
                } else if heavy {
                    crate::DoorKind::Heavy
                } else {
                    crate::DoorKind::Plain
                },
            }
        })
        .collect();
    let mut level = crate::Level {
        recipe: "sectors".to_string(),
        seed: 0,
        attempts: 0,
        start: scenario.start,
        goal: scenario.exit,
        walkthrough,
        tiles,
        region_rooms,
        layout: None,
        tile_origin: (0, 0),
        stairs: Some(crate::Stairs {
            up: start_tile,
            down: exit_tile,
        }),
        start_tile: None,
        goal_tile: None,
        rooms: Vec::new(),
        doors: Vec::new(),
        warps: Vec::new(),
        items: Vec::new(),
        detail: crate::LevelDetail::Sectors {
            geometry: params.geometry.name().to_string(),
            size: (w, h),
            sectors: records,
            connections,
            scripts: scenario.scripts,
        },
        graph,
    };
    crate::view::attach(
        &mut level,
        crate::view::ViewParts {
            passages,
            start_tile: Some(start_tile),
            goal_tile: Some(exit_tile),
            items: Some(items),
            room_boxes: None,
        },
    );
    Ok(level)
}

/// Step 12: the openers. Every script's opener starts as a switch (the scenario's); `0` to
/// `max_keys` of those that may be keys become keys: a key never lies in the start sector
/// (the spec's final sector) and never opens a heavy door (2 or 3 cells), so only scripts
/// whose doors are all 1 cell wide qualify (secret rooms hold no opener: the scenario never
/// puts one there). Of the others that qualify, each becomes a task with `task_chance`.
/// `openings[i]` are the openings of `links[i]`.
pub fn choose_openers<R: Rng + ?Sized>(
    graph: &mut LevelGraph,
    scenario: &mut Scenario,
    links: &[(LinkId, RoomId, RoomId, Link)],
    openings: &[Vec<Opening>],
    params: &SectorParams,
    rng: &mut R,
) {
    let heavy: BTreeSet<LinkId> = links
        .iter()
        .zip(openings)
        .filter(|(_, o)| o.iter().any(Opening::heavy))
        .map(|(l, _)| l.0)
        .collect();
    let light = |s: &crate::graph::lock_and_key::Script| !s.links.iter().any(|l| heavy.contains(l));
    let keyable: Vec<usize> = (0..scenario.scripts.len())
        .filter(|&i| {
            scenario.scripts[i].opener_room != scenario.start && light(&scenario.scripts[i])
        })
        .collect();
    let most = params.max_keys.min(keyable.len()) as u32;
    let keys = seed::range_inclusive(rng, 0, most) as usize;
    let mut pool = keyable;
    seed::shuffle(rng, &mut pool);
    let mut kinds: Vec<Opener> = vec![Opener::Switch; scenario.scripts.len()];
    for &i in pool.iter().take(keys) {
        kinds[i] = Opener::Key;
    }
    for (kind, script) in kinds.iter_mut().zip(&scenario.scripts) {
        if *kind == Opener::Switch && light(script) && seed::chance(rng, params.task_chance) {
            *kind = Opener::Task;
        }
    }
    for (script, kind) in scenario.scripts.iter_mut().zip(kinds) {
        let by = script.lock.by;
        script.lock.opener = kind;
        for &l in &script.links {
            if let Some(link) = graph.link_mut(l) {
                link.lock = Some(script.lock);
            }
        }
        if let Some(room) = graph.room_mut(script.opener_room) {
            for item in &mut room.items {
                if *item == Item::Switch(by) {
                    *item = opener(by, kind);
                }
            }
        }
    }
}

fn opener(by: KeyId, kind: Opener) -> Item {
    match kind {
        Opener::Key => Item::Key(by),
        Opener::Task => Item::Task(by),
        Opener::SmallKey => Item::SmallKey(by),
        Opener::Switch => Item::Switch(by),
    }
}

/// Step 10: each connection's orientation, `(from, to)`: the side a player playing the
/// level in order reaches first. The walk spreads from `start` through every passable link
/// whose lock is open, picks up every opener it reaches, and spreads again while that opens
/// something; a link walked through is oriented the way it was walked, a link between two
/// rooms reached by other ways from the one reached first. Links to rooms never reached keep
/// their stored direction (they are not in the result).
pub fn orient(graph: &LevelGraph, start: RoomId) -> BTreeMap<LinkId, (RoomId, RoomId)> {
    let mut reached: BTreeMap<RoomId, usize> = BTreeMap::from([(start, 0)]);
    let mut out: BTreeMap<LinkId, (RoomId, RoomId)> = BTreeMap::new();
    let mut held: BTreeSet<KeyId> = BTreeSet::new();
    let mut frontier: VecDeque<RoomId> = VecDeque::from([start]);
    loop {
        // Spread.
        let mut queue = std::mem::take(&mut frontier);
        while let Some(x) = queue.pop_front() {
            for (l, y) in graph.incident_links(x) {
                let Some(link) = graph.link(l) else { continue };
                let forward = graph.endpoints(l).is_some_and(|(a, _)| a == x);
                let open = link.lock.is_none_or(|k| held.contains(&k.by));
                if !link.passable(forward) || !open {
                    continue;
                }
                if !reached.contains_key(&y) {
                    reached.insert(y, reached.len());
                    out.insert(l, (x, y));
                    queue.push_back(y);
                }
            }
        }
        // Pick up openers anywhere reached; spread again from every room if that opened a
        // lock.
        let before = held.len();
        for &r in reached.keys() {
            if let Some(room) = graph.room(r) {
                held.extend(room.items.iter().filter_map(|i| i.opens()).map(|(k, _)| k));
            }
        }
        if held.len() == before {
            break;
        }
        frontier = reached.keys().copied().collect();
    }
    for (l, a, b, _) in graph.links() {
        if out.contains_key(&l) {
            continue;
        }
        if let (Some(&ia), Some(&ib)) = (reached.get(&a), reached.get(&b)) {
            out.insert(l, if ia <= ib { (a, b) } else { (b, a) });
        }
    }
    out
}

/// The tiles of a sector level: [`floor_tiles`], then the connections' openings: doors,
/// windows, secret walls, both tiles of each across the two walls.
pub fn sector_tiles(
    field: &Field,
    sector_of_room: &[u32],
    connections: &[SectorConnection],
) -> TileMap {
    let mut map = floor_tiles(field, sector_of_room);
    add_openings(&mut map, connections);
    map
}

/// Rock outside sectors; each sector's floor ([`interior`] cells) and walls (its other
/// cells), region = its room (`sector_of_room[i]` is room `i`'s sector); a sector whose floor
/// falls apart (parts meeting only at a corner) has a path carved through its own walls
/// between the parts.
pub fn floor_tiles(field: &Field, sector_of_room: &[u32]) -> TileMap {
    let (w, h) = (field.width(), field.height());
    let region: BTreeMap<u32, u32> = sector_of_room
        .iter()
        .enumerate()
        .map(|(i, &s)| (s, i as u32))
        .collect();
    let mut map = TileMap::new(w, h);
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            if let Some(&Some(s)) = field.get(x, y)
                && let Some(&r) = region.get(&s)
            {
                let tile = if interior(field, x, y) {
                    Tile::Floor
                } else {
                    Tile::Wall
                };
                map.put(x, y, tile, Some(r));
            }
        }
    }
    connect_floors(&mut map, sector_of_room.len());
    map
}

/// Puts the connections' openings on the map.
fn add_openings(map: &mut TileMap, connections: &[SectorConnection]) {
    for c in connections {
        for o in &c.openings {
            let tile = match o.kind {
                OpeningKind::Door => Tile::Door,
                OpeningKind::Window => Tile::Window,
                OpeningKind::SecretWall => Tile::SecretDoor,
            };
            for &(a, b) in &o.cells {
                for (x, y) in [a, b] {
                    map.tiles.set(x as i64, y as i64, tile);
                }
            }
        }
    }
}

/// Carves, in each region whose floor tiles fall into several 4-connected parts, the
/// shortest path through the region's own tiles from the parts joined so far to the nearest
/// other part, until the floor is whole.
fn connect_floors(map: &mut TileMap, regions: usize) {
    let (w, h) = (map.tiles.width(), map.tiles.height());
    let dirs = [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)];
    let mut cells: Vec<Vec<(i64, i64)>> = vec![Vec::new(); regions];
    for ((x, y), r) in map.regions.iter() {
        if let Some(r) = r {
            cells[*r as usize].push((x as i64, y as i64));
        }
    }
    for (r, own) in cells.iter().enumerate() {
        let r = r as u32;
        let floor = |map: &TileMap, x: i64, y: i64| {
            map.regions.get(x, y) == Some(&Some(r)) && map.tiles.get(x, y) == Some(&Tile::Floor)
        };
        let Some(&first) = own.iter().find(|&&(x, y)| floor(map, x, y)) else {
            continue;
        };
        loop {
            // The floor joined so far.
            let mut joined: Grid<bool> = Grid::new(w, h, false);
            let mut queue = VecDeque::from([first]);
            joined.set(first.0, first.1, true);
            while let Some((x, y)) = queue.pop_front() {
                for (dx, dy) in dirs {
                    let (nx, ny) = (x + dx, y + dy);
                    if floor(map, nx, ny) && joined.get(nx, ny) == Some(&false) {
                        joined.set(nx, ny, true);
                        queue.push_back((nx, ny));
                    }
                }
            }
            if own
                .iter()
                .all(|&(x, y)| !floor(map, x, y) || joined.get(x, y) == Some(&true))
            {
                break;
            }
            // Breadth first from the joined floor through the region's tiles to other floor.
            let mut back: Grid<Option<(i64, i64)>> = Grid::new(w, h, None);
            let mut seen: Grid<bool> = Grid::new(w, h, false);
            let mut queue: VecDeque<(i64, i64)> = VecDeque::new();
            for &(x, y) in own {
                if joined.get(x, y) == Some(&true) {
                    seen.set(x, y, true);
                    queue.push_back((x, y));
                }
            }
            let mut target = None;
            'search: while let Some((x, y)) = queue.pop_front() {
                for (dx, dy) in dirs {
                    let (nx, ny) = (x + dx, y + dy);
                    if map.regions.get(nx, ny) != Some(&Some(r)) || seen.get(nx, ny) != Some(&false)
                    {
                        continue;
                    }
                    seen.set(nx, ny, true);
                    back.set(nx, ny, Some((x, y)));
                    if floor(map, nx, ny) {
                        target = Some((nx, ny));
                        break 'search;
                    }
                    queue.push_back((nx, ny));
                }
            }
            // A region is 4-connected (one section per sector), so the search finds floor.
            let Some(mut at) = target else { break };
            while let Some(&Some(prev)) = back.get(at.0, at.1) {
                map.tiles.set(at.0, at.1, Tile::Floor);
                at = prev;
            }
        }
    }
}

/// Puts every opener and the exit switch on a floor tile of its room, away from doors where
/// there is room (a tile none of whose eight neighbours is an opening), and picks the start
/// tile in the start room. Returns the items, the start tile and the exit switch's tile, or
/// (the attempt fails) the room whose floor has too few tiles for all it must hold.
fn place_items<R: Rng + ?Sized>(
    graph: &LevelGraph,
    tiles: &TileMap,
    start: RoomId,
    rng: &mut R,
) -> Result<(Vec<PlacedItem>, TilePos, TilePos), Failure> {
    let mut floors: BTreeMap<RoomId, Vec<TilePos>> = BTreeMap::new();
    for ((x, y), t) in tiles.tiles.iter() {
        if *t == Tile::Floor
            && let Some(&Some(r)) = tiles.regions.get(x as i64, y as i64)
        {
            floors.entry(RoomId(r)).or_default().push((x, y));
        }
    }
    let opening =
        |t: Option<&Tile>| matches!(t, Some(Tile::Door | Tile::Window | Tile::SecretDoor));
    let calm = |&(x, y): &TilePos| {
        (-1..=1)
            .all(|dy| (-1..=1).all(|dx| !opening(tiles.tiles.get(x as i64 + dx, y as i64 + dy))))
    };
    let mut taken: BTreeSet<TilePos> = BTreeSet::new();
    let pick = |room: RoomId, taken: &mut BTreeSet<TilePos>, rng: &mut R| {
        let all = floors.get(&room).map(Vec::as_slice).unwrap_or(&[]);
        let free: Vec<TilePos> = all.iter().copied().filter(|p| !taken.contains(p)).collect();
        let quiet: Vec<TilePos> = free.iter().copied().filter(calm).collect();
        let pool = if quiet.is_empty() { &free } else { &quiet };
        // A room with every floor tile taken cannot hold one more thing: no two share a tile.
        if pool.is_empty() {
            return Err(Failure::from(format!(
                "room {room} has {} floor tiles, too few for the start and its items",
                all.len()
            )));
        }
        let at = pool[seed::index(rng, pool.len())];
        taken.insert(at);
        Ok(at)
    };
    let start_tile = pick(start, &mut taken, rng)?;
    let mut items = Vec::new();
    let mut exit_tile = start_tile;
    for r in graph.room_ids() {
        let Some(room) = graph.room(r) else { continue };
        for item in &room.items {
            let at = pick(r, &mut taken, rng)?;
            if *item == Item::Named(EXIT_SWITCH.into()) {
                exit_tile = at;
            }
            items.push(PlacedItem {
                at,
                room: r,
                item: item.clone(),
            });
        }
    }
    Ok((items, start_tile, exit_tile))
}
