//! Mini-sets: small search-and-replace stamps (up to 6 x 6) with wildcards, placed once from a
//! random start or scattered with a probability, never over protected cells.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::{Grid, Tile};
use crate::seed;

/// Largest side of a mini-set.
pub const MAX_SIDE: usize = 6;

/// A mini-set as written in data files: rows of tile glyphs ([`Tile::glyph`]), `?` for "any
/// tile" in `search` and "leave as is" in `replace`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinisetSpec {
    /// Its name, for errors and reports.
    pub name: String,
    /// What must be there.
    pub search: Vec<String>,
    /// What it becomes.
    pub replace: Vec<String>,
    /// Whether the replaced cells become protected (stairs, doors).
    #[serde(default)]
    pub protect: bool,
}

/// What can go wrong reading mini-sets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MinisetError {
    /// The text is not valid RON.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// Line.
        line: usize,
        /// Column.
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// A mini-set that cannot be used.
    #[error("{file}: mini-set \"{name}\": field `{field}`: {problem}")]
    Invalid {
        /// The file.
        file: String,
        /// The mini-set.
        name: String,
        /// The field.
        field: &'static str,
        /// What is wrong and what would be valid.
        problem: String,
    },
}

/// A checked mini-set, ready to place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miniset {
    /// Its name.
    pub name: String,
    width: usize,
    height: usize,
    search: Vec<Option<Tile>>,
    replace: Vec<Option<Tile>>,
    protect: bool,
}

impl Miniset {
    /// Checks a spec: rows of equal length, `search` and `replace` of the same size, at most
    /// [`MAX_SIDE`] on each side, known glyphs.
    pub fn new(spec: &MinisetSpec, file: &str) -> Result<Miniset, MinisetError> {
        let invalid = |field, problem: String| MinisetError::Invalid {
            file: file.to_string(),
            name: spec.name.clone(),
            field,
            problem,
        };
        let grid = |rows: &[String],
                    field|
         -> Result<(usize, usize, Vec<Option<Tile>>), MinisetError> {
            let h = rows.len();
            let w = rows.first().map_or(0, |r| r.chars().count());
            if h == 0 || w == 0 || h > MAX_SIDE || w > MAX_SIDE {
                return Err(invalid(
                    field,
                    format!("is {w} x {h}; a mini-set is 1 to {MAX_SIDE} on each side"),
                ));
            }
            let mut cells = Vec::with_capacity(w * h);
            for row in rows {
                if row.chars().count() != w {
                    return Err(invalid(
                        field,
                        format!("row \"{row}\" is not {w} wide like the first row"),
                    ));
                }
                for c in row.chars() {
                    if c == '?' {
                        cells.push(None);
                    } else {
                        let tile = Tile::from_glyph(c).ok_or_else(|| {
                            let valid: String = Tile::ALL.iter().map(|t| t.glyph()).filter(|&g| g != ' ').collect();
                            invalid(field, format!("'{c}' is no tile glyph; valid: ? (any), space (solid) and \"{valid}\""))
                        })?;
                        cells.push(Some(tile));
                    }
                }
            }
            Ok((w, h, cells))
        };
        let (w, h, search) = grid(&spec.search, "search")?;
        let (rw, rh, replace) = grid(&spec.replace, "replace")?;
        if (w, h) != (rw, rh) {
            return Err(invalid(
                "replace",
                format!("is {rw} x {rh} but search is {w} x {h}; they must be the same size"),
            ));
        }
        Ok(Miniset {
            name: spec.name.clone(),
            width: w,
            height: h,
            search,
            replace,
            protect: spec.protect,
        })
    }

    /// Reads a list of mini-sets from RON.
    pub fn list_from_ron(text: &str, file: &str) -> Result<Vec<Miniset>, MinisetError> {
        let specs: Vec<MinisetSpec> =
            crate::data::from_ron(text, false).map_err(|e| MinisetError::Syntax {
                file: file.to_string(),
                line: e.line,
                column: e.column,
                message: e.message,
            })?;
        specs.iter().map(|s| Miniset::new(s, file)).collect()
    }

    /// Width and height.
    pub fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    /// Whether the stamp matches with its top-left at `(x, y)`: every non-wildcard search cell
    /// equals the tile there, and no covered cell is protected.
    pub fn matches_at(
        &self,
        tiles: &Grid<Tile>,
        protected: &Grid<bool>,
        x: usize,
        y: usize,
    ) -> bool {
        if x + self.width > tiles.width() || y + self.height > tiles.height() {
            return false;
        }
        (0..self.height).all(|dy| {
            (0..self.width).all(|dx| {
                let (tx, ty) = ((x + dx) as i64, (y + dy) as i64);
                protected.get(tx, ty) != Some(&true)
                    && self.search[dy * self.width + dx]
                        .is_none_or(|t| tiles.get(tx, ty) == Some(&t))
            })
        })
    }

    /// Writes the replacement with its top-left at `(x, y)` (and protects it, if the mini-set
    /// says so).
    pub fn stamp(&self, tiles: &mut Grid<Tile>, protected: &mut Grid<bool>, x: usize, y: usize) {
        for dy in 0..self.height {
            for dx in 0..self.width {
                let (tx, ty) = ((x + dx) as i64, (y + dy) as i64);
                if let Some(t) = self.replace[dy * self.width + dx] {
                    tiles.set(tx, ty, t);
                    if self.protect {
                        protected.set(tx, ty, true);
                    }
                }
            }
        }
    }

    /// Places the stamp once: from a random top-left, scans forward row by row (wrapping to the
    /// top) over at most `tries` positions and stamps the first match.
    ///
    /// # Returns
    /// Where it was placed, or `None` if no position within the budget matched.
    ///
    /// # Complexity
    /// `O(tries · w · h)`.
    pub fn place_once<R: Rng + ?Sized>(
        &self,
        tiles: &mut Grid<Tile>,
        protected: &mut Grid<bool>,
        rng: &mut R,
        tries: usize,
    ) -> Option<(usize, usize)> {
        if self.width > tiles.width() || self.height > tiles.height() {
            return None;
        }
        let (cols, rows) = (
            tiles.width() - self.width + 1,
            tiles.height() - self.height + 1,
        );
        let total = cols * rows;
        let start = seed::index(rng, total);
        for i in 0..tries.min(total) {
            let p = (start + i) % total;
            let (x, y) = (p % cols, p / cols);
            if self.matches_at(tiles, protected, x, y) {
                self.stamp(tiles, protected, x, y);
                return Some((x, y));
            }
        }
        None
    }

    /// Scatters the stamp: visits every top-left position in order and, where it matches, stamps
    /// it with probability `chance`, keeping at least `spacing` cells (Chebyshev distance
    /// between top-left corners) from its earlier placements.
    ///
    /// # Complexity
    /// `O(W · H · (w · h + placed))`.
    pub fn scatter<R: Rng + ?Sized>(
        &self,
        tiles: &mut Grid<Tile>,
        protected: &mut Grid<bool>,
        rng: &mut R,
        chance: f64,
        spacing: usize,
    ) -> Vec<(usize, usize)> {
        let mut placed: Vec<(usize, usize)> = Vec::new();
        if self.width > tiles.width() || self.height > tiles.height() {
            return placed;
        }
        for y in 0..=tiles.height() - self.height {
            for x in 0..=tiles.width() - self.width {
                let far = placed
                    .iter()
                    .all(|&(px, py)| px.abs_diff(x).max(py.abs_diff(y)) >= spacing);
                if far && self.matches_at(tiles, protected, x, y) && seed::chance(rng, chance) {
                    self.stamp(tiles, protected, x, y);
                    placed.push((x, y));
                }
            }
        }
        placed
    }
}
