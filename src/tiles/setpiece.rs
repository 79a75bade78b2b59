//! Set pieces: prebuilt blocks of tiles stamped into a generated level, at most one per level,
//! whose cells are protected from everything that comes after (mini-sets, themed rooms,
//! dividing walls, fixes, tile variants).
//!
//! A set piece is a picture of tiles with holes: a cell is a tile, or transparent (the level's
//! own tile stays). Written in RON as rows of tile glyphs ([`Tile::glyph`]), `?` transparent:
//!
//! ```
//! use levelplan::tiles::setpiece::SetPiece;
//! use levelplan::tiles::Tile;
//! let piece = SetPiece::from_ron(r#"(name: "altar", rows: [
//!     "?...?",
//!     ".o.o.",
//!     "..>..",
//!     ".o.o.",
//!     "?...?",
//! ])"#, "altar.ron")?;
//! assert_eq!((piece.width(), piece.height()), (5, 5));
//! assert_eq!(piece.tile(2, 2), Some(Tile::StairsDown));
//! assert_eq!(piece.stairs_down(), Some((2, 2)));
//! # Ok::<(), levelplan::tiles::setpiece::SetPieceError>(())
//! ```
//!
//! (Set pieces can also be drawn in Tiled with levelplan's tileset: see
//! `layout::tiled::set_piece_from_tmj`.)

use std::collections::{BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::{Grid, Tile};

/// The largest set piece side (a Diablo level is 40 x 40).
pub const MAX_SIDE: usize = 40;

/// The glyph of a transparent cell.
pub const TRANSPARENT: char = '?';

/// A prebuilt block of tiles (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetPiece {
    /// Its name.
    pub name: String,
    /// Its cells: a tile, or `None` (transparent).
    pub cells: Grid<Option<Tile>>,
}

/// A set piece that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("set piece {file}: {problem}")]
pub struct SetPieceError {
    /// The file.
    pub file: String,
    /// What is wrong.
    pub problem: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Picture {
    name: String,
    rows: Vec<String>,
}

impl SetPiece {
    /// Reads a set piece from RON (`(name: "...", rows: [...])`, see the module docs) and
    /// checks it ([`SetPiece::new`]); `file` names it in errors.
    pub fn from_ron(text: &str, file: &str) -> Result<SetPiece, SetPieceError> {
        let err = |problem: String| SetPieceError {
            file: file.into(),
            problem,
        };
        let p: Picture = crate::data::from_ron(text, false).map_err(|e| {
            err(format!(
                "line {}, column {}: {}",
                e.line, e.column, e.message
            ))
        })?;
        let h = p.rows.len();
        let w = p.rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
        if w > MAX_SIDE || h > MAX_SIDE {
            return Err(err(format!(
                "{w} x {h} cells; a set piece is 1 to {MAX_SIDE} cells a side"
            )));
        }
        let mut cells = Grid::new(w, h, None);
        for (y, row) in p.rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                let tile = if c == TRANSPARENT {
                    None
                } else {
                    Some(Tile::from_glyph(c).ok_or_else(|| {
                        err(format!(
                            "row {}, column {}: `{c}` is no tile's glyph (`?` is transparent)",
                            y + 1,
                            x + 1
                        ))
                    })?)
                };
                cells.set(x as i64, y as i64, tile);
            }
        }
        SetPiece::new(p.name, cells).map_err(err)
    }

    /// A set piece from its cells, checked: 1 to [`MAX_SIDE`] cells a side, at least one tile,
    /// at most one stairs up and one stairs down, its walkable tiles in one piece with at least
    /// one on its edge or next to a transparent cell (a way in).
    pub fn new(name: String, cells: Grid<Option<Tile>>) -> Result<SetPiece, String> {
        let (w, h) = (cells.width(), cells.height());
        if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
            return Err(format!(
                "{w} x {h} cells; a set piece is 1 to {MAX_SIDE} cells a side"
            ));
        }
        let piece = SetPiece { name, cells };
        if piece.cells.iter().all(|(_, c)| c.is_none()) {
            return Err("every cell is transparent".into());
        }
        for stairs in [Tile::StairsUp, Tile::StairsDown] {
            let n = piece
                .cells
                .iter()
                .filter(|(_, c)| **c == Some(stairs))
                .count();
            if n > 1 {
                return Err(format!("{n} {stairs:?} tiles; at most one"));
            }
        }
        let walk: Vec<(usize, usize)> = piece
            .cells
            .iter()
            .filter(|(_, c)| c.is_some_and(Tile::walkable))
            .map(|(p, _)| p)
            .collect();
        if let Some(&first) = walk.first() {
            let mut seen = BTreeSet::from([first]);
            let mut queue = VecDeque::from([first]);
            while let Some((x, y)) = queue.pop_front() {
                for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if piece.tile(nx, ny).is_some_and(Tile::walkable)
                        && seen.insert((nx as usize, ny as usize))
                    {
                        queue.push_back((nx as usize, ny as usize));
                    }
                }
            }
            if seen.len() != walk.len() {
                let lost = walk.iter().find(|p| !seen.contains(p)).expect("some");
                return Err(format!(
                    "its walkable tiles are in pieces: ({}, {}) is cut off from ({}, {})",
                    lost.0, lost.1, first.0, first.1
                ));
            }
            let open = walk.iter().any(|&(x, y)| {
                [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)]
                    .iter()
                    .any(|&(dx, dy)| {
                        let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                        !piece.cells.in_bounds(nx, ny) || piece.cells.get(nx, ny) == Some(&None)
                    })
            });
            if !open {
                return Err(
                    "no way in: no walkable tile on its edge or by a transparent cell".into(),
                );
            }
        }
        Ok(piece)
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.cells.width()
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.cells.height()
    }

    /// The tile at `(x, y)` (`None`: transparent or outside).
    pub fn tile(&self, x: i64, y: i64) -> Option<Tile> {
        self.cells.get(x, y).copied().flatten()
    }

    /// Where its stairs up are, in its own cells.
    pub fn stairs_up(&self) -> Option<(usize, usize)> {
        self.find(Tile::StairsUp)
    }

    /// Where its stairs down are, in its own cells.
    pub fn stairs_down(&self) -> Option<(usize, usize)> {
        self.find(Tile::StairsDown)
    }

    fn find(&self, t: Tile) -> Option<(usize, usize)> {
        self.cells
            .iter()
            .find(|(_, c)| **c == Some(t))
            .map(|(p, _)| p)
    }

    /// Whether it may go with its top-left cell at `(x, y)` of `tiles`: inside, and every
    /// cell it sets lands on a tile `free` accepts that is not `protected`.
    pub fn fits(
        &self,
        tiles: &Grid<Tile>,
        protected: &Grid<bool>,
        x: usize,
        y: usize,
        free: impl Fn(Tile) -> bool,
    ) -> bool {
        x + self.width() <= tiles.width()
            && y + self.height() <= tiles.height()
            && self.cells.iter().all(|((px, py), c)| {
                let (tx, ty) = ((x + px) as i64, (y + py) as i64);
                c.is_none()
                    || (tiles.get(tx, ty).is_some_and(|&t| free(t))
                        && protected.get(tx, ty) == Some(&false))
            })
    }

    /// Stamps it with its top-left cell at `(x, y)`: every tile it sets is written and marked
    /// in `protected` and in `mask` (the set piece's own cells, kept apart from other
    /// protections).
    pub fn stamp(
        &self,
        tiles: &mut Grid<Tile>,
        protected: &mut Grid<bool>,
        mask: &mut Grid<bool>,
        x: usize,
        y: usize,
    ) {
        for ((px, py), c) in self.cells.iter() {
            if let Some(t) = c {
                let (tx, ty) = ((x + px) as i64, (y + py) as i64);
                tiles.set(tx, ty, *t);
                protected.set(tx, ty, true);
                mask.set(tx, ty, true);
            }
        }
    }
}
