//! Grid floor plans in the style of The Binding of Isaac (`shared/spec/isaac.md`).
//!
//! A floor is a set of occupied cells on a small grid of equal rooms; grid neighbours are joined
//! by a door in the middle of their shared side. The recipe reads like the spec:
//!
//! 1. the room count from the level;
//! 2. breadth-first growth from the start cell, under the neighbour rule and a coin flip per
//!    direction, recording dead ends in the order they are found (Rebirth's large rooms grow
//!    from every exit of a room, and replace single rooms at random);
//! 3. validation (exact count, boss not next to the start, enough dead ends), else regenerate;
//! 4. the boss on the last dead end (optionally a large boss room), the secret room by its
//!    scored search with two relaxations, the special rooms on the remaining dead ends;
//! 5. room designs from the difficulty pools.
//!
//! The result is a [`Floor`]: rooms with their grid cells, and a [`LevelGraph`](crate::LevelGraph) of the same
//! rooms, so the lock planner, the solver and every graph export work on it.
//!
//! One file a job: `shapes` (the grid and the room shapes), `params` (counts, the special-room
//! table, design pools), `growth` (steps 1 to 3), `special` (steps 4 and 5), `floor` (the
//! result, its tile map and its `Level`).

use rand::Rng;

use crate::seed;

/// Tiles per grid cell: 13 x 7 floor inside a one-tile wall.
pub const ROOM_TILES: (usize, usize) = (15, 9);

mod floor;
mod growth;
mod params;
mod shapes;
mod special;

pub use floor::{Floor, FloorRoom};
use growth::*;
pub use params::{
    IsaacParams, RoomCount, RoomPools, SpecialRoom, default_special_rooms, special_rooms_from_ron,
};
use shapes::step;
pub use shapes::{Cell, GridDir, RoomShape};
use special::*;

/// What can go wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum IsaacError {
    /// The parameters cannot work.
    #[error("invalid Isaac parameters: field `{field}`: {problem}")]
    Params {
        /// The field.
        field: &'static str,
        /// What is wrong and what would be valid.
        problem: String,
    },
    /// No floor passed validation within the attempt budget.
    #[error(
        "no valid floor in {attempts} attempt{}: the last failed because {reason}; lower the room count, enlarge the grid or remove guaranteed special rooms",
        if *attempts == 1 { "" } else { "s" }
    )]
    NoFloor {
        /// Attempts made.
        attempts: u32,
        /// Why the last attempt failed.
        reason: String,
    },
    /// Room pools that could not be read.
    #[error("{file}: cannot read the room pools: {message}")]
    Pools {
        /// The file.
        file: String,
        /// What the parser said.
        message: String,
    },
    /// A special-room table that could not be read.
    #[error("{file}: cannot read the special-room table: {message}")]
    SpecialRooms {
        /// The file.
        file: String,
        /// What the parser said (line, column, what is wrong).
        message: String,
    },
}

/// Generates a floor for `level` from `seed` (the `"isaac"` sub-stream).
///
/// # Errors
/// [`IsaacError::Params`] for parameters that cannot work (a start outside the grid, a grid
/// too small for the room count); [`IsaacError::NoFloor`] when no floor passes validation
/// within the `retry` budget.
///
/// # Examples
/// ```
/// use levelplan::recipes::isaac::{generate, IsaacParams};
/// use levelplan::RoomKind;
///
/// let floor = generate(1, 42, &IsaacParams::default())?;
/// assert!((7..=8).contains(&(floor.rooms.len() - 1))); // plus the secret room
/// assert_eq!(floor.graph.rooms_of_kind(&RoomKind::Boss).count(), 1);
/// println!("{}", floor.to_ascii());
/// # Ok::<(), levelplan::recipes::isaac::IsaacError>(())
/// ```
pub fn generate(level: u32, seed: u64, params: &IsaacParams) -> Result<Floor, IsaacError> {
    let mut rng = seed::stream(seed, "isaac");
    let mut floor = generate_with(level, &mut rng, params)?;
    floor.seed = seed;
    Ok(floor)
}

/// [`generate`] drawing from the caller's generator (the floor's `seed` field is left 0).
pub fn generate_with<R: Rng + ?Sized>(
    level: u32,
    rng: &mut R,
    params: &IsaacParams,
) -> Result<Floor, IsaacError> {
    check_params(params)?;
    check_fits(level, params)?;
    let pools = &params.pools;
    let mut reason = String::new();
    let mut made = 0;
    for attempt in params.retry.attempts() {
        made = attempt;
        match attempt_floor(level, rng, params) {
            Ok((mut grid, dead_ends, requeued)) => {
                let target = grid.rooms.len();
                match finish(level, rng, params, &mut grid, dead_ends) {
                    Ok((dead, secret_tries, secret_needed)) => {
                        let mut floor =
                            build_floor(level, rng, params, &grid, &dead, pools, attempt);
                        floor.secret_tries = secret_tries;
                        floor.secret_needed = secret_needed;
                        floor.requeued = requeued;
                        floor.room_target = target;
                        return Ok(floor);
                    }
                    Err(r) => reason = r,
                }
            }
            Err(r) => reason = r,
        }
    }
    Err(IsaacError::NoFloor {
        attempts: made,
        reason,
    })
}

/// The share of a grid's cells growth can fill: a new room never takes a cell next to more
/// than one room, so floors stay sparse. Measured on the default 9 x 8 grid: 42 rooms grow
/// (after hundreds of attempts on some seeds), 44 never do.
pub const GRID_FILL: f64 = 0.6;

/// Refuses a level whose room count cannot fit the grid, before any attempt.
fn check_fits(level: u32, p: &IsaacParams) -> Result<(), IsaacError> {
    let rc = p.room_count;
    let most = (f64::from(rc.spread.max(1) - 1) + rc.base + f64::from(level) * rc.per_level)
        .floor()
        .max(0.0);
    let most = if p.labyrinth {
        ((most * 1.8).floor()).min(p.labyrinth_cap as f64)
    } else {
        most
    };
    let cells = f64::from(p.width * p.height);
    let fits = (GRID_FILL * cells).floor();
    if most > fits {
        return Err(IsaacError::Params {
            field: "level",
            problem: format!(
                "level {level} wants up to {most} rooms, more than a {} x {} grid holds \
                 (growth keeps rooms apart and fills at most {fits} of its {cells} cells); \
                 enlarge the grid (`width` and `height`, `--grid` on the command line) or \
                 choose a lower level",
                p.width, p.height
            ),
        });
    }
    Ok(())
}

fn check_params(p: &IsaacParams) -> Result<(), IsaacError> {
    if p.width < 2 || p.height < 2 || p.width > 64 || p.height > 64 {
        return Err(IsaacError::Params {
            field: "width/height",
            problem: format!(
                "the grid is {} x {}; both sides must be between 2 and 64",
                p.width, p.height
            ),
        });
    }
    let (x, y) = p.start;
    if x < 1 || x > p.width || y < 0 || y >= p.height {
        return Err(IsaacError::Params {
            field: "start",
            problem: format!(
                "({x}, {y}) is outside the grid; x must be in 1..={} and y in 0..{}",
                p.width, p.height
            ),
        });
    }
    for (field, v) in [
        ("large_room_chance", p.large_room_chance),
        ("large_boss_chance", p.large_boss_chance),
    ] {
        if !(0.0..=1.0).contains(&v) {
            return Err(IsaacError::Params {
                field,
                problem: format!("is {v}; it must be a probability between 0 and 1"),
            });
        }
    }
    if !(p.room_count.base.is_finite() && p.room_count.per_level.is_finite()) {
        return Err(IsaacError::Params {
            field: "room_count",
            problem: "every part of the formula must be a finite number".into(),
        });
    }
    Ok(())
}

/// The Isaac recipe prepared for one floor level: a [`crate::Recipe`].
#[derive(Debug, Clone, PartialEq)]
pub struct IsaacRecipe {
    /// The floor level (1 = the first).
    pub level: u32,
    /// The parameters.
    pub params: IsaacParams,
    /// Locks planned on each floor, from the start room to the boss
    /// ([`crate::graph::lock_and_key::plan_between`]), proven like the rest; `None`: none (the
    /// default). A floor whose rooms cannot take them is grown again from a derived seed, up
    /// to [`LOCK_ATTEMPTS`] times.
    pub locks: Option<crate::graph::lock_and_key::LockPlan>,
}

/// Floors grown, from derived seeds, to find one whose rooms take the locks asked for.
pub const LOCK_ATTEMPTS: u32 = 20;

impl IsaacRecipe {
    /// The recipe for floor `level` with `params`, without locks.
    pub fn new(level: u32, params: IsaacParams) -> IsaacRecipe {
        IsaacRecipe {
            level,
            params,
            locks: None,
        }
    }

    /// The same recipe planning `locks` on every floor (builder style).
    ///
    /// ```
    /// use levelplan::Recipe;
    /// use levelplan::graph::lock_and_key::LockPlan;
    /// use levelplan::recipes::isaac::IsaacRecipe;
    /// let recipe = IsaacRecipe::new(4, Default::default()).with_locks(LockPlan { locks: 2, ..Default::default() });
    /// let level = recipe.generate(3)?;
    /// // Two locks (a region entered by two doors has both locked by its one lock).
    /// let locks: std::collections::BTreeSet<_> = level.doors.iter().filter_map(|d| d.lock).collect();
    /// assert_eq!(locks.len(), 2);
    /// # Ok::<(), levelplan::RecipeError>(())
    /// ```
    pub fn with_locks(mut self, locks: crate::graph::lock_and_key::LockPlan) -> IsaacRecipe {
        self.locks = Some(locks);
        self
    }
}

impl crate::Recipe for IsaacRecipe {
    fn name(&self) -> &'static str {
        "isaac"
    }

    fn generate(&self, seed: u64) -> Result<crate::Level, crate::RecipeError> {
        let failed = |e| crate::RecipeError::failed("isaac", e);
        let mut floor = generate(self.level, seed, &self.params).map_err(failed)?;
        if let Some(plan) = &self.locks {
            let mut last = None;
            for attempt in 0..LOCK_ATTEMPTS {
                if attempt > 0 {
                    let sub = seed::sub_seed(seed, &format!("isaac locks retry {attempt}"));
                    floor = generate(self.level, sub, &self.params).map_err(failed)?;
                    floor.seed = seed;
                }
                let start = floor.rooms[0].id;
                let boss = floor
                    .graph
                    .rooms_of_kind(&crate::RoomKind::Boss)
                    .next()
                    .unwrap_or(start);
                let mut rng =
                    seed::stream(seed::sub_seed(seed, &attempt.to_string()), "isaac locks");
                match crate::graph::lock_and_key::plan_between(
                    &mut floor.graph,
                    start,
                    boss,
                    plan,
                    &mut rng,
                ) {
                    Ok(_) => {
                        last = None;
                        break;
                    }
                    Err(e) => last = Some(e),
                }
            }
            if let Some(e) = last {
                return Err(failed(IsaacError::NoFloor {
                    attempts: LOCK_ATTEMPTS,
                    reason: format!("its rooms cannot take the locks asked for: {e}"),
                }));
            }
        }
        floor
            .into_level()
            .map_err(|source| crate::RecipeError::Unsolvable {
                recipe: "isaac",
                source,
            })
    }
}
