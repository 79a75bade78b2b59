//! Passability blanks into tiles: marching squares over 2x2 windows, and 3x3 pattern rules on
//! a character map (last match wins). Both are data: tables loaded from RON.

use serde::{Deserialize, Serialize};

use super::{Grid, Tile};

/// What can go wrong reading a conversion table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// The text is not valid RON for the table.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// A rule that cannot be used.
    #[error("{file}: rule #{rule}: {problem}")]
    Rule {
        /// The file.
        file: String,
        /// The rule's index.
        rule: usize,
        /// What is wrong and what would be valid.
        problem: String,
    },
}

fn parse<T: for<'de> Deserialize<'de>>(text: &str, file: &str) -> Result<T, TableError> {
    parse_table(text, file, false)
}

/// Parses a RON table (`implicit_some`: optional fields without `Some(...)`), naming `file`
/// and the place in syntax errors.
pub(super) fn parse_table<T: for<'de> Deserialize<'de>>(
    text: &str,
    file: &str,
    implicit_some: bool,
) -> Result<T, TableError> {
    crate::data::from_ron(text, implicit_some).map_err(|e| TableError::Syntax {
        file: file.to_string(),
        line: e.line,
        column: e.column,
        message: e.message,
    })
}

/// A marching-squares table: the tile for each of the 16 ways four blank cells can be set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarchingTable {
    /// 16 tiles, indexed by the window's bits: the cell itself = 1, right = 2, below = 4,
    /// below-right = 8.
    pub tiles: Vec<Tile>,
}

impl MarchingTable {
    /// Reads a table from RON (`(tiles: [...16 tiles...])`); `file` names it in errors.
    pub fn from_ron(text: &str, file: &str) -> Result<MarchingTable, TableError> {
        let table: MarchingTable = parse(text, file)?;
        if table.tiles.len() != 16 {
            return Err(TableError::Rule {
                file: file.to_string(),
                rule: table.tiles.len(),
                problem: format!(
                    "the table lists {} tiles; it needs exactly 16, one per 2 x 2 window",
                    table.tiles.len()
                ),
            });
        }
        Ok(table)
    }

    /// The Cathedral table (`fixtures/tiles/cathedral.ron`), parsed once per process.
    pub fn cathedral() -> &'static MarchingTable {
        static TABLE: std::sync::OnceLock<MarchingTable> = std::sync::OnceLock::new();
        TABLE.get_or_init(|| {
            MarchingTable::from_ron(
                include_str!("../../fixtures/tiles/cathedral.ron"),
                "cathedral.ron",
            )
            .expect("the built-in table is valid")
        })
    }

    /// Converts a blank (`true` = room) into tiles: tile `(x, y)` looks at the cells `(x, y)`,
    /// `(x + 1, y)`, `(x, y + 1)` and `(x + 1, y + 1)`; cells outside count as solid.
    ///
    /// # Complexity
    /// `O(W · H)`.
    ///
    /// # Examples
    /// ```
    /// use levelplan::tiles::{Grid, Tile, convert::MarchingTable};
    /// let mut blank = Grid::new(4, 4, false);
    /// for y in 1..3 { for x in 1..3 { blank.set(x, y, true); } }
    /// let tiles = MarchingTable::cathedral().convert(&blank);
    /// assert_eq!(tiles.get(1, 1), Some(&Tile::Floor));
    /// assert_eq!(tiles.get(0, 0), Some(&Tile::WallCornerOuter)); // above-left of the room
    /// assert_eq!(tiles.get(1, 0), Some(&Tile::WallHorizontal)); // above it
    /// ```
    pub fn convert(&self, blank: &Grid<bool>) -> Grid<Tile> {
        let (w, h) = (blank.width(), blank.height());
        let mut out = Grid::new(w, h, Tile::Solid);
        let at = |x: i64, y: i64| usize::from(*blank.get(x, y).unwrap_or(&false));
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                let index =
                    at(x, y) | at(x + 1, y) << 1 | at(x, y + 1) << 2 | at(x + 1, y + 1) << 3;
                out.set(x, y, self.tiles.get(index).copied().unwrap_or(Tile::Solid));
            }
        }
        out
    }
}

/// One 3x3 pattern rule: three rows of three class letters, and the tile for the centre.
///
/// Class letters (the Catacombs' classes): `?` anything, `#` wall, `.` floor, `D` door,
/// ` ` (space) void, `d` door or floor, `w` door or wall, `_` void or floor, `*` door, wall
/// or floor. Cells outside the map match every class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatternRule {
    /// The neighbourhood: three rows of three letters, top row first; the centre is the
    /// second letter of the second row.
    pub rows: Vec<String>,
    /// The tile the centre becomes.
    pub tile: Tile,
}

/// 3x3 pattern rules with a default tile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatternTable {
    /// The rules; for each cell every rule is tried and the last that matches wins.
    pub rules: Vec<PatternRule>,
    /// The tile for cells no rule matches.
    pub default: Tile,
}

fn class_matches(class: char, c: char) -> bool {
    match class {
        '?' => true,
        '#' | '.' | 'D' | ' ' => c == class,
        'd' => c == 'D' || c == '.',
        'w' => c == 'D' || c == '#',
        '_' => c == ' ' || c == '.',
        '*' => c == 'D' || c == '#' || c == '.',
        _ => false,
    }
}

impl PatternTable {
    /// Reads and checks a table from RON; `file` names it in errors.
    pub fn from_ron(text: &str, file: &str) -> Result<PatternTable, TableError> {
        let table: PatternTable = parse(text, file)?;
        table.check(file)?;
        Ok(table)
    }

    /// Checks that every rule has three rows of three known class letters.
    pub fn check(&self, file: &str) -> Result<(), TableError> {
        for (i, rule) in self.rules.iter().enumerate() {
            if rule.rows.len() != 3 {
                return Err(TableError::Rule {
                    file: file.to_string(),
                    rule: i,
                    problem: format!(
                        "has {} rows; a rule has 3 rows of 3 letters",
                        rule.rows.len()
                    ),
                });
            }
            for row in &rule.rows {
                if row.chars().count() != 3 {
                    return Err(TableError::Rule {
                        file: file.to_string(),
                        rule: i,
                        problem: format!(
                            "row \"{row}\" has {} letters; every row has 3",
                            row.chars().count()
                        ),
                    });
                }
                if let Some(c) = row.chars().find(|c| !"?#.D dw_*".contains(*c)) {
                    return Err(TableError::Rule {
                        file: file.to_string(),
                        rule: i,
                        problem: format!(
                            "'{c}' is no class letter; valid: ? # . D (space) d w _ *"
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Converts a character map (`#` wall, `.` floor, `D` door, space void) into tiles.
    ///
    /// # Complexity
    /// `O(W · H · R)` for `R` rules.
    ///
    /// # Examples
    /// ```
    /// use levelplan::tiles::{Grid, Tile, convert::{PatternRule, PatternTable}};
    /// let table = PatternTable {
    ///     rules: vec![
    ///         PatternRule { rows: vec!["???".into(), "?#?".into(), "???".into()], tile: Tile::Wall },
    ///         PatternRule { rows: vec!["?.?".into(), "?#?".into(), "?.?".into()], tile: Tile::WallHorizontal },
    ///     ],
    ///     default: Tile::Solid,
    /// };
    /// let mut map = Grid::new(1, 3, '.');
    /// map.set(0, 1, '#');
    /// let tiles = table.convert(&map);
    /// assert_eq!(tiles.get(0, 1), Some(&Tile::WallHorizontal)); // the last match wins
    /// ```
    pub fn convert(&self, map: &Grid<char>) -> Grid<Tile> {
        let (w, h) = (map.width(), map.height());
        // Rules that are not 3 x 3 (unchecked tables) never match.
        let rules: Vec<(Vec<char>, Tile)> = self
            .rules
            .iter()
            .map(|r| {
                (
                    r.rows
                        .iter()
                        .flat_map(|row| row.chars())
                        .collect::<Vec<char>>(),
                    r.tile,
                )
            })
            .filter(|(cells, _)| cells.len() == 9)
            .collect();
        let mut out = Grid::new(w, h, self.default);
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                let found = rules.iter().rev().find(|(classes, _)| {
                    classes.iter().enumerate().all(|(i, &class)| {
                        let (dx, dy) = ((i % 3) as i64 - 1, (i / 3) as i64 - 1);
                        map.get(x + dx, y + dy)
                            .is_none_or(|&c| class_matches(class, c))
                    })
                });
                if let Some(&(_, tile)) = found {
                    out.set(x, y, tile);
                }
            }
        }
        out
    }
}
