//! The recipe's parameters: room counts, the special-room table, the design pools.

use std::collections::BTreeSet;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::*;
use crate::graph::RoomKind;
use crate::seed;

/// A special room the recipe may place on a dead end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecialRoom {
    /// The room's kind (treasure rooms are [`RoomKind::Reward`]).
    pub kind: RoomKind,
    /// Chance that it appears (1.0: guaranteed; a floor without a dead end for it regenerates).
    pub chance: f64,
    /// A better chance when a condition flag is set: `(flag, chance)`.
    pub chance_if: Option<(String, f64)>,
    /// A flag that must be set for it to appear at all.
    pub requires: Option<String>,
    /// First level it may appear on.
    pub min_level: u32,
}

impl SpecialRoom {
    /// A special room of `kind` appearing with `chance`, on any level, whatever the flags.
    pub fn new(kind: RoomKind, chance: f64) -> SpecialRoom {
        SpecialRoom {
            kind,
            chance,
            chance_if: None,
            requires: None,
            min_level: 1,
        }
    }

    pub(super) fn guaranteed(&self) -> bool {
        self.chance >= 1.0 && self.requires.is_none()
    }
}

/// The default special-room table (`fixtures/isaac/special_rooms.ron`): a treasure room and a
/// shop on every floor, then rooms that depend on chance and on the caller's flags (a sacrifice
/// room 1 time in 7, 1 in 3 when the player is at full health; a library 1 in 5; an arcade half
/// the time when the player has coins; a curse room 1 in 2 once a devil deal was taken).
pub fn default_special_rooms() -> Vec<SpecialRoom> {
    special_rooms_from_ron(
        include_str!("../../../fixtures/isaac/special_rooms.ron"),
        "fixtures/isaac/special_rooms.ron",
    )
    .expect("the built-in special-room table is valid")
}

/// Reads a special-room table from RON text (a list, as `fixtures/isaac/special_rooms.ron`);
/// `file` names it in errors.
///
/// # Examples
/// ```
/// use levelplan::recipes::isaac::special_rooms_from_ron;
/// let table = special_rooms_from_ron(
///     "[(kind: Reward, chance: 1.0, chance_if: None, requires: None, min_level: 1)]",
///     "mine.ron",
/// )?;
/// assert_eq!(table.len(), 1);
/// assert!(special_rooms_from_ron("[(kind: Reward)]", "mine.ron").is_err());
/// # Ok::<(), levelplan::recipes::isaac::IsaacError>(())
/// ```
pub fn special_rooms_from_ron(text: &str, file: &str) -> Result<Vec<SpecialRoom>, IsaacError> {
    crate::data::from_ron(text, false).map_err(|e| IsaacError::SpecialRooms {
        file: file.to_string(),
        message: format!("{}:{}: {}", e.line, e.column, e.message),
    })
}

/// Pools of room designs by difficulty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoomPools {
    /// Easy designs.
    pub easy: Vec<String>,
    /// Medium designs.
    pub medium: Vec<String>,
    /// Hard designs.
    pub hard: Vec<String>,
}

impl RoomPools {
    /// The built-in pools (`fixtures/isaac/rooms.ron`).
    pub fn builtin() -> RoomPools {
        let options = ron::Options::default();
        options
            .from_str(include_str!("../../../fixtures/isaac/rooms.ron"))
            .expect("the built-in room pools are valid RON")
    }

    /// Reads pools from RON text; `file` names it in errors.
    pub fn from_ron(text: &str, file: &str) -> Result<RoomPools, IsaacError> {
        crate::data::from_ron(text, false).map_err(|e| IsaacError::Pools {
            file: file.to_string(),
            message: format!("{}:{}: {}", e.line, e.column, e.message),
        })
    }
}

/// How many rooms a floor of a given level wants: `random(spread) + floor(base + level ·
/// per_level)`, where `random(spread)` is a whole number in `0..spread` (the spec's
/// `random(2) + 5 + level * 2.6`: 7 or 8 rooms on level 1, 2 or 3 more per level).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoomCount {
    /// The constant part (5).
    pub base: f64,
    /// Rooms per level (2.6).
    pub per_level: f64,
    /// The random part is a whole number in `0..spread` (2).
    pub spread: u32,
}

impl RoomCount {
    /// The room count for `level`, drawing the random part from `rng`.
    pub fn draw<R: Rng + ?Sized>(&self, level: u32, rng: &mut R) -> usize {
        let random = seed::below(rng, u64::from(self.spread.max(1))) as f64;
        (random + self.base + f64::from(level) * self.per_level)
            .floor()
            .max(0.0) as usize
    }
}

/// The recipe's parameters; [`Default`] gives the spec's values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsaacParams {
    /// Grid columns (9): cells have `x` in `1..=width`.
    pub width: i32,
    /// Grid rows (8): cells have `y` in `0..height`.
    pub height: i32,
    /// The start cell (`(5, 3)`, the original's cell 35).
    pub start: Cell,
    /// The room-count formula.
    pub room_count: RoomCount,
    /// Above this many rooms, the start cell is queued again whenever growth runs dry (16).
    pub requeue_above: usize,
    /// The special rooms, placed in this order on the dead ends left after the boss.
    pub special_rooms: Vec<SpecialRoom>,
    /// Rebirth's large rooms.
    pub large_rooms: bool,
    /// Chance that a new room tries a large shape instead of a single cell.
    pub large_room_chance: f64,
    /// Chance that the boss room tries a large shape.
    pub large_boss_chance: f64,
    /// The Curse of the Labyrinth: a double floor.
    pub labyrinth: bool,
    /// Most rooms a labyrinth floor may have (45).
    pub labyrinth_cap: usize,
    /// Condition flags for the special-room table.
    pub flags: BTreeSet<String>,
    /// Floors to generate before giving up (default: 10 000 attempts).
    pub retry: crate::layout::RetryPolicy,
    /// The room designs normal rooms are drawn from.
    pub pools: RoomPools,
}

impl Default for IsaacParams {
    fn default() -> IsaacParams {
        IsaacParams {
            width: 9,
            height: 8,
            start: (5, 3),
            room_count: RoomCount {
                base: 5.0,
                per_level: 2.6,
                spread: 2,
            },
            requeue_above: 16,
            special_rooms: default_special_rooms(),
            large_rooms: false,
            large_room_chance: 0.25,
            large_boss_chance: 0.5,
            labyrinth: false,
            labyrinth_cap: 45,
            flags: BTreeSet::new(),
            retry: crate::layout::RetryPolicy::Attempts(10_000),
            pools: RoomPools::builtin(),
        }
    }
}
