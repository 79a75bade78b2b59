//! Gungeon-style levels: flow -> transforms and injections -> locks -> layout -> tiles
//! (`shared/spec/flows.md`).
//!
//! ```
//! use levelplan::recipes::gungeon::{self, GungeonParams};
//! use levelplan::Flow;
//!
//! let flow = Flow::builtin("classic").unwrap();
//! let level = gungeon::generate(&flow, 7, &GungeonParams::default()).unwrap();
//! // The crate's one Level: the graph, its walkthrough, the layout and the tiles.
//! assert_eq!(level.layout.as_ref().unwrap().rooms.len(), level.graph.room_count());
//! println!("{}", level.tiles.to_ascii());
//! ```

use crate::graph::flow::{Conditions, Flow, FlowError};
use crate::graph::lock_and_key::{self, LockPlan};
use crate::graph::solve::{Walkthrough, solve};
use crate::graph::{LevelGraph, LinkId, LinkKind, LinkRole, RoomId, RoomKind};
use crate::layout::library::TemplateLibrary;
use crate::layout::raster::{Raster, door_cells, rasterise};
use crate::view::{DoorKind, Passage, ViewParts};
use std::sync::{Arc, OnceLock};

use crate::layout::{
    Budget, Layout, LayoutProblem, LinkSpec, Planner, Realise, RetryPolicy, RoomSpec, ShapeSet,
    TemplateHistory,
};
use crate::seed;
use crate::tiles::Tile;

/// Settings of the recipe.
#[derive(Debug, Clone, PartialEq)]
pub struct GungeonParams {
    /// Flags for the flow's injection rules, and once-per-run rules already spent.
    pub conditions: Conditions,
    /// Extra locks planned on top of the flow's own (`None`: only the flow's).
    pub locks: Option<LockPlan>,
    /// The room templates.
    pub library: TemplateLibrary,
    /// How links of the spanning tree are realised (default: contact).
    pub tree_links: Realise,
    /// How the links that close loops are realised (default: contact where the search finds
    /// it, else an A* corridor of 4 to 30 cells).
    pub loop_links: Realise,
    /// Distance kept between rooms that are not linked.
    pub min_distance: u32,
    /// Layout budgets (default: 200 attempts of 10 steps per room).
    pub budget: Budget,
    /// Whole levels (graph and layout) tried, each from a sub-seed, before giving up (default:
    /// 8 attempts).
    pub retry: RetryPolicy,
    /// Soft penalty per earlier use of a template in the level (the game's 0.33; see
    /// [`LayoutProblem::recent_penalty`]).
    pub recent_penalty: f64,
    /// A wall-clock cap on one `generate` (default 10 s; `None`: none). It never changes which
    /// level a seed gives: a level made within the cap is the level made without it, and
    /// reaching it is [`GungeonError::OutOfTime`]. Built-in flows take well under a
    /// millisecond; raise it for worlds of hundreds of rooms.
    pub time_limit: Option<std::time::Duration>,
}

impl Default for GungeonParams {
    fn default() -> GungeonParams {
        GungeonParams {
            conditions: Conditions::new(),
            locks: None,
            library: TemplateLibrary::builtin(),
            tree_links: Realise::Contact,
            loop_links: Realise::ContactOrPath { min: 4, max: 30 },
            min_distance: 0,
            // Few steps per room: a level's layout that goes wrong is cheaper to start over
            // than to search through (corridor routing makes steps dear). Measured over 300
            // seeds per flow against 100 steps: big_loop's mean time 9.6 -> about 3 ms, its
            // 95th percentile 63 -> about 20 ms; no level failed either way.
            budget: Budget {
                retry: RetryPolicy::Attempts(200),
                steps_per_room: 10,
                ..Budget::default()
            },
            retry: RetryPolicy::Attempts(8),
            recent_penalty: 0.33,
            time_limit: Some(std::time::Duration::from_secs(10)),
        }
    }
}

/// A finished level with the layout's own tables, before it becomes a [`crate::Level`].
#[derive(Debug, Clone)]
struct Built {
    /// The seed it came from.
    pub seed: u64,
    /// Level attempts it took (graph and layout).
    pub attempts: u32,
    /// The abstract level.
    pub graph: LevelGraph,
    /// How to play it through.
    pub walkthrough: Walkthrough,
    /// Where its rooms went: `layout.rooms[i]` is room `rooms[i]` of the graph.
    pub layout: Layout,
    /// The graph room of each layout room.
    pub rooms: Vec<RoomId>,
    /// The graph link of each layout link.
    pub links: Vec<LinkId>,
    /// The tile map.
    pub tiles: Raster,
}

/// Why no level was made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GungeonError {
    /// The flow could not be instantiated.
    #[error(transparent)]
    Flow(#[from] FlowError),
    /// The template library is not valid.
    #[error("gungeon recipe: {0}")]
    Library(#[from] crate::layout::library::LibraryError),
    /// The layout cannot be set up, and would fail the same way on every attempt (a room kind
    /// with no templates, a graph that cannot be drawn without crossings): reported at once.
    #[error("gungeon recipe: {0}")]
    Layout(#[from] crate::layout::LayoutError),
    /// Every attempt failed; the last reason is kept.
    #[error(
        "no level after {attempts} attempt{}; the last failed with: {last}",
        if *attempts == 1 { "" } else { "s" }
    )]
    GaveUp {
        /// Attempts made.
        attempts: u32,
        /// Why the last one failed.
        last: String,
    },
    /// The time limit ([`GungeonParams::time_limit`]) ran out first.
    #[error(
        "no level within the time limit of {} ms (GungeonParams::time_limit, `--time-limit` on \
         the command line), after {attempts} of the retry budget's attempts; the last failed \
         with: {last}",
        limit.as_millis()
    )]
    OutOfTime {
        /// The limit.
        limit: std::time::Duration,
        /// Attempts made (started) by then.
        attempts: u32,
        /// Why the last one failed.
        last: String,
    },
}

/// A flow and settings prepared for making many levels: the template library is compiled and
/// its configuration spaces computed once.
#[derive(Debug, Clone)]
pub struct Generator {
    flow: Flow,
    params: GungeonParams,
    shapes: Arc<ShapeSet>,
}

/// The built-in library's shapes, computed once per process.
fn builtin_shapes() -> &'static (TemplateLibrary, Arc<ShapeSet>) {
    static CELL: OnceLock<(TemplateLibrary, Arc<ShapeSet>)> = OnceLock::new();
    CELL.get_or_init(|| {
        let lib = TemplateLibrary::builtin();
        let set = ShapeSet::new(&lib.templates).expect("the built-in library compiles");
        (lib, Arc::new(set))
    })
}

impl Generator {
    /// Prepares `flow` with `params`.
    pub fn new(flow: Flow, params: GungeonParams) -> Result<Generator, GungeonError> {
        let shapes = if params.library == builtin_shapes().0 {
            builtin_shapes().1.clone()
        } else {
            params.library.validate("template library")?;
            Arc::new(ShapeSet::new(&params.library.templates)?)
        };
        Ok(Generator {
            flow,
            params,
            shapes,
        })
    }

    /// Makes the level of `seed`: on failure, retries from derived sub-seeds.
    pub fn generate(&self, seed: u64) -> Result<crate::Level, GungeonError> {
        Ok(self
            .generate_with(seed, &[])?
            .into_level(&self.flow.template().name))
    }

    /// Makes the next level of a run: templates the run's earlier levels used weigh less (by
    /// the recent-use penalty, as uses in the level itself do), and the level's templates are
    /// recorded in `history`. Same seeds and same history: same levels.
    ///
    /// # Examples
    /// ```
    /// use levelplan::Flow;
    /// use levelplan::layout::TemplateHistory;
    /// use levelplan::recipes::gungeon::{Generator, GungeonParams};
    /// let flow = Flow::builtin("classic").expect("a built-in flow");
    /// let generator = Generator::new(flow, GungeonParams::default())?;
    /// let mut history = TemplateHistory::new(0.5);
    /// for floor in 0..3 {
    ///     let level = generator.generate_in_run(100 + floor, &mut history)?;
    ///     assert!(!level.layout.unwrap().rooms.is_empty());
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn generate_in_run(
        &self,
        seed: u64,
        history: &mut TemplateHistory,
    ) -> Result<crate::Level, GungeonError> {
        let level = self.generate_with(seed, history.uses())?;
        history.record(&level.layout);
        Ok(level.into_level(&self.flow.template().name))
    }

    fn generate_with(&self, seed: u64, earlier: &[f64]) -> Result<Built, GungeonError> {
        let start = std::time::Instant::now();
        let limit = self.params.time_limit;
        let mut last = String::new();
        let mut tries = 0;
        for made in self.params.retry.attempts() {
            let left = limit.map(|l| l.saturating_sub(start.elapsed()));
            if left.is_some_and(|l| l.is_zero()) {
                return Err(GungeonError::OutOfTime {
                    limit: limit.unwrap_or_default(),
                    attempts: tries,
                    last,
                });
            }
            tries = made;
            let attempt = made - 1;
            let sub = if attempt == 0 {
                seed
            } else {
                seed::sub_seed(seed, &format!("gungeon retry {attempt}"))
            };
            match self.try_level(sub, earlier, left) {
                Ok(mut level) => {
                    level.seed = seed;
                    level.attempts = attempt + 1;
                    return Ok(level);
                }
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::OutOfTime(why)) => {
                    return Err(GungeonError::OutOfTime {
                        limit: limit.unwrap_or_default(),
                        attempts: tries,
                        last: why,
                    });
                }
                Err(Failure::Retry(why)) => last = why,
            }
        }
        Err(GungeonError::GaveUp {
            attempts: tries,
            last,
        })
    }

    fn try_level(
        &self,
        seed: u64,
        earlier: &[f64],
        left: Option<std::time::Duration>,
    ) -> Result<Built, Failure> {
        let params = &self.params;
        // 1. The abstract level: flow, injections and its own locks.
        let mut graph = self
            .flow
            .generate(seed, &params.conditions)
            .map_err(|e| Failure::Fatal(e.into()))?;
        // 2. Extra locks, proven by the solver.
        if let Some(plan) = &params.locks {
            let mut rng = seed::stream(seed, "gungeon locks");
            lock_and_key::plan(&mut graph, plan, &mut rng)
                .map_err(|e| Failure::Retry(format!("lock plan: {e}")))?;
        }
        let walkthrough = solve(&graph).map_err(|e| Failure::Retry(format!("solver: {e}")))?;
        // 3. Space: templates by room kind, links by role.
        let (mut problem, rooms, links) = layout_problem(&graph, params);
        problem.earlier_uses = earlier.to_vec();
        // The layout gets the time left (at least a millisecond).
        problem.budget.time_limit_ms = left.map(|l| (l.as_millis() as u64).max(1));
        let planner = Planner::with_shapes(problem, self.shapes.clone()).map_err(|e| {
            // A problem that cannot be set up fails the same way on every attempt.
            if matches!(
                e,
                crate::layout::LayoutError::NoTemplates { .. }
                    | crate::layout::LayoutError::UnknownTemplate { .. }
                    | crate::layout::LayoutError::DuplicateTemplate { .. }
                    | crate::layout::LayoutError::ShapeSetMismatch
                    | crate::layout::LayoutError::NotPlanar { .. }
            ) {
                Failure::Fatal(e.into())
            } else {
                Failure::Retry(e.to_string())
            }
        })?;
        let layout = planner
            .layout(seed::sub_seed(seed, "gungeon layout"))
            .map_err(|e| match e {
                crate::layout::LayoutError::OutOfTime { .. } => Failure::OutOfTime(e.to_string()),
                e => Failure::Retry(e.to_string()),
            })?;
        // 4. Tiles.
        let tiles = rasterise(&layout, |l| door_tile(&graph, links[l]));
        Ok(Built {
            seed,
            attempts: 1,
            graph,
            walkthrough,
            layout,
            rooms,
            links,
            tiles,
        })
    }
}

/// Makes a level from `flow` for `seed` (prepares a [`Generator`]; keep one to make many).
pub fn generate(
    flow: &Flow,
    seed: u64,
    params: &GungeonParams,
) -> Result<crate::Level, GungeonError> {
    Generator::new(flow.clone(), params.clone())?.generate(seed)
}

enum Failure {
    Fatal(GungeonError),
    Retry(String),
    OutOfTime(String),
}

/// The tile a link's doors get on the raster (`None` for a warp, which gets no door: the game
/// view puts a teleporter pad in each room instead). Locked and one-way doors are marked as such
/// by the game view ([`crate::view`]) afterwards.
pub fn door_tile(graph: &LevelGraph, link: LinkId) -> Option<Tile> {
    Some(match graph.link(link).map(|l| l.kind) {
        Some(LinkKind::Secret) => Tile::SecretDoor,
        Some(LinkKind::Open) => Tile::Arch,
        Some(LinkKind::Window) => Tile::Window,
        Some(LinkKind::Warp) => return None,
        _ => Tile::Door,
    })
}

/// The layout problem of a level graph: every room gets the library's templates for its kind
/// and tags; tree links use `tree_links`, the rest `loop_links`.
pub fn layout_problem(
    graph: &LevelGraph,
    params: &GungeonParams,
) -> (LayoutProblem, Vec<RoomId>, Vec<LinkId>) {
    let mut problem = LayoutProblem::new(params.library.templates.clone());
    problem.repeat_default = params.library.repeat;
    problem.min_distance = params.min_distance;
    problem.budget = params.budget;
    problem.recent_penalty = params.recent_penalty;
    let rooms: Vec<RoomId> = graph.room_ids().collect();
    let mut slot = std::collections::HashMap::new();
    for (i, &id) in rooms.iter().enumerate() {
        let room = graph.room(id).expect("listed room");
        let tags: Vec<String> = room.tags.iter().cloned().collect();
        let kind = match &room.kind {
            RoomKind::Custom(name) => name.clone(),
            k => k.name().to_string(),
        };
        problem.rooms.push(RoomSpec::new(
            &id.to_string(),
            params.library.choose(&kind, &tags),
        ));
        slot.insert(id, i);
    }
    let mut links = Vec::new();
    for (id, a, b, link) in graph.links() {
        let realise = match link.role {
            LinkRole::Tree if link.kind != LinkKind::Warp => params.tree_links,
            _ => params.loop_links,
        };
        problem
            .links
            .push(LinkSpec::new(slot[&a], slot[&b], realise));
        links.push(id);
    }
    (problem, rooms, links)
}

/// Whether every room can be walked to from the entrance on the tile map (doors, secret doors
/// once found, arches and corridors are walkable; locks are the solver's business).
pub fn rooms_reachable(level: &crate::Level) -> Result<(), String> {
    let entrance = level.graph.entrance().ok_or("the level has no entrance")?;
    let start = level
        .region_rooms
        .iter()
        .position(|&r| r == Some(entrance))
        .ok_or("the entrance has no room")?;
    let map = &level.tiles;
    let at = map
        .regions
        .iter()
        .find(|&(p, r)| {
            *r == Some(start as u32) && map.tiles.get(p.0 as i64, p.1 as i64) == Some(&Tile::Floor)
        })
        .map(|(p, _)| p)
        .ok_or("the entrance has no floor")?;
    let reach = map.flood_fill(at.0 as i64, at.1 as i64, Tile::walkable);
    let mut reached = vec![false; level.region_rooms.len()];
    for (p, region) in map.regions.iter() {
        if let Some(r) = *region
            && *reach.get(p.0 as i64, p.1 as i64).unwrap_or(&false)
            && let Some(slot) = reached.get_mut(r as usize)
        {
            *slot = true;
        }
    }
    match reached.iter().position(|r| !r) {
        Some(i) => Err(format!(
            "room {} cannot be walked to from the entrance",
            level.region_rooms[i].map_or("?".to_string(), |r| r.to_string())
        )),
        None => Ok(()),
    }
}

impl Built {
    /// This level as the crate's one [`crate::Level`] shape (what writers and documents take).
    fn into_level(self, flow: &str) -> crate::Level {
        // Each drawn link's passage: the door cells on both of its doors.
        let mut passages = Vec::new();
        for (l, placed) in self.layout.links.iter().enumerate() {
            let id = self.links[l];
            let Some(drawn) = door_tile(&self.graph, id) else {
                continue;
            };
            let kind = match self.graph.link(id).map(|k| k.kind) {
                Some(LinkKind::Secret) => DoorKind::Secret,
                Some(LinkKind::Open) => DoorKind::Open,
                Some(LinkKind::Window) => DoorKind::Window,
                _ => DoorKind::Plain,
            };
            let tiles = [placed.door_from, placed.door_to]
                .into_iter()
                .flat_map(door_cells)
                .map(|c| self.tiles.tile_of(c))
                .filter(|&(x, y)| self.tiles.map.tiles.get(x, y) == Some(&drawn))
                .map(|(x, y)| (x as usize, y as usize))
                .collect();
            passages.push(Passage {
                link: id,
                tiles,
                kind,
            });
        }
        let mut level = crate::Level {
            recipe: "gungeon".to_string(),
            seed: self.seed,
            attempts: self.attempts,
            start: self.walkthrough.start,
            goal: self.walkthrough.goal,
            graph: self.graph,
            walkthrough: self.walkthrough,
            // Region `i` of the raster is layout room `i`.
            region_rooms: self.rooms.iter().copied().map(Some).collect(),
            tiles: self.tiles.map,
            layout: Some(self.layout),
            tile_origin: (self.tiles.origin.x, self.tiles.origin.y),
            stairs: None,
            start_tile: None,
            goal_tile: None,
            rooms: Vec::new(),
            doors: Vec::new(),
            warps: Vec::new(),
            items: Vec::new(),
            detail: crate::LevelDetail::Gungeon {
                flow: flow.to_string(),
                rooms: self.rooms,
                links: self.links,
            },
        };
        crate::view::attach(
            &mut level,
            ViewParts {
                passages,
                ..ViewParts::default()
            },
        );
        level
    }
}

impl crate::Recipe for Generator {
    fn name(&self) -> &'static str {
        "gungeon"
    }

    fn generate(&self, seed: u64) -> Result<crate::Level, crate::RecipeError> {
        Generator::generate(self, seed).map_err(|e| crate::RecipeError::failed("gungeon", e))
    }
}
