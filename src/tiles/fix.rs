//! Neighbour fix passes: after conversion, "tile A beside tile B becomes C" rules pick wall
//! ends, edges and corners (the game's many small fix passes, as data). Rules run in order;
//! each sees the map as the rules before it left it, and looks at a snapshot of that map, so a
//! rule never feeds on its own changes. A tile one rule changed is no longer the tile a later
//! rule for the old kind looks for: the first rule that matches a tile wins.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::convert::{TableError, parse_table};
use super::{Grid, Tile};

/// Which neighbour a rule looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Towards {
    /// The tile above.
    Up,
    /// The tile below.
    Down,
    /// The tile to the left.
    Left,
    /// The tile to the right.
    Right,
}

impl Towards {
    fn step(self) -> (i64, i64) {
        match self {
            Towards::Up => (0, -1),
            Towards::Down => (0, 1),
            Towards::Left => (-1, 0),
            Towards::Right => (1, 0),
        }
    }
}

/// One rule: `tile` whose neighbour `side` is one of `neighbour` becomes `becomes`; without a
/// side, every `tile` does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixRule {
    /// The tile to change.
    pub tile: Tile,
    /// The neighbour to look at (none: always).
    #[serde(default)]
    pub side: Option<Towards>,
    /// What that neighbour must be (ignored without a side).
    #[serde(default)]
    pub neighbour: Vec<Tile>,
    /// What the tile becomes.
    pub becomes: Tile,
}

/// An ordered list of fix rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixRules {
    /// The rules, in the order they run.
    pub rules: Vec<FixRule>,
}

impl FixRules {
    /// Reads named rule lists (a RON map from name to [`FixRules`]); a rule with a side must
    /// name at least one neighbour, and a rule must change something.
    pub fn table_from_ron(
        text: &str,
        file: &str,
    ) -> Result<BTreeMap<String, FixRules>, TableError> {
        let table: BTreeMap<String, FixRules> = parse_table(text, file, true)?;
        for (name, list) in &table {
            for (i, r) in list.rules.iter().enumerate() {
                let bad = |problem: &str| TableError::Rule {
                    file: file.to_string(),
                    rule: i,
                    problem: format!("fix list \"{name}\": {problem}"),
                };
                if r.side.is_some() && r.neighbour.is_empty() {
                    return Err(bad(
                        "a rule with a side needs at least one `neighbour` tile",
                    ));
                }
                if r.tile == r.becomes {
                    return Err(bad(
                        "`becomes` is the same tile as `tile`: the rule does nothing",
                    ));
                }
            }
        }
        Ok(table)
    }

    /// A built-in list from `fixtures/tiles/fixes.ron` (`edges`: generic walls left by the
    /// stages' edge passes become vertical, horizontal or corner walls), parsed once per
    /// process.
    pub fn builtin(name: &str) -> Option<&'static FixRules> {
        static TABLE: OnceLock<BTreeMap<String, FixRules>> = OnceLock::new();
        TABLE
            .get_or_init(|| {
                FixRules::table_from_ron(
                    include_str!("../../fixtures/tiles/fixes.ron"),
                    "fixes.ron",
                )
                .expect("the built-in table is valid")
            })
            .get(name)
    }

    /// Runs the rules over `tiles`, leaving protected tiles alone. Returns how many tiles
    /// changed.
    ///
    /// # Complexity
    /// `O(rules · W · H)`.
    ///
    /// # Examples
    /// ```
    /// use levelplan::tiles::{Grid, Tile};
    /// use levelplan::tiles::fix::{FixRule, FixRules, Towards};
    /// let mut tiles = Grid::new(3, 1, Tile::Floor);
    /// tiles.set(1, 0, Tile::Wall);
    /// let rules = FixRules { rules: vec![FixRule {
    ///     tile: Tile::Wall, side: Some(Towards::Left), neighbour: vec![Tile::Floor],
    ///     becomes: Tile::WallVertical,
    /// }] };
    /// assert_eq!(rules.apply(&mut tiles, &Grid::new(3, 1, false)), 1);
    /// assert_eq!(tiles.get(1, 0), Some(&Tile::WallVertical));
    /// ```
    pub fn apply(&self, tiles: &mut Grid<Tile>, protected: &Grid<bool>) -> usize {
        let mut changed = 0;
        for rule in &self.rules {
            let snapshot = tiles.clone();
            for ((x, y), &t) in snapshot.iter() {
                let (x, y) = (x as i64, y as i64);
                if t != rule.tile || protected.get(x, y) == Some(&true) {
                    continue;
                }
                let fits = rule.side.is_none_or(|side| {
                    let (dx, dy) = side.step();
                    snapshot
                        .get(x + dx, y + dy)
                        .is_some_and(|n| rule.neighbour.contains(n))
                });
                if fits {
                    tiles.set(x, y, rule.becomes);
                    changed += 1;
                }
            }
        }
        changed
    }
}
