//! The floor grid: directions, cells, and the room shapes (single cells and Rebirth's large rooms).

use serde::{Deserialize, Serialize};

/// A direction on the floor grid (named apart from `layout::geom::Dir`, the layout layer's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum GridDir {
    /// Towards row 0.
    Up,
    /// Away from row 0.
    Down,
    /// Towards column 1.
    Left,
    /// Away from column 1.
    Right,
}

impl GridDir {
    /// The four directions in the order growth tries them (the original's -10, +10, -1, +1).
    pub const ALL: [GridDir; 4] = [GridDir::Up, GridDir::Down, GridDir::Left, GridDir::Right];

    /// The cell offset of one step.
    pub fn delta(self) -> (i32, i32) {
        match self {
            GridDir::Up => (0, -1),
            GridDir::Down => (0, 1),
            GridDir::Left => (-1, 0),
            GridDir::Right => (1, 0),
        }
    }

    /// The opposite direction.
    pub fn opposite(self) -> GridDir {
        match self {
            GridDir::Up => GridDir::Down,
            GridDir::Down => GridDir::Up,
            GridDir::Left => GridDir::Right,
            GridDir::Right => GridDir::Left,
        }
    }
}

/// A grid cell `(x, y)`: columns `1..=width`, rows `0..height` (column 0 is never used, as in
/// the original's `10 * y + x` numbering).
pub type Cell = (i32, i32);

pub(super) fn step(c: Cell, d: GridDir) -> Cell {
    let (dx, dy) = d.delta();
    (c.0 + dx, c.1 + dy)
}

/// The shape of a room: a single cell or one of Rebirth's eleven large shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RoomShape {
    /// One cell, doors on all four sides.
    Single,
    /// One cell, doors only left and right.
    NarrowH,
    /// One cell, doors only up and down.
    NarrowV,
    /// Two cells side by side.
    Wide,
    /// Two cells stacked.
    Tall,
    /// Two cells side by side, doors only at the two ends.
    NarrowWide,
    /// Two cells stacked, doors only at the two ends.
    NarrowTall,
    /// Two by two cells.
    Big,
    /// Two by two less the top-left cell.
    LNoTopLeft,
    /// Two by two less the top-right cell.
    LNoTopRight,
    /// Two by two less the bottom-left cell.
    LNoBottomLeft,
    /// Two by two less the bottom-right cell.
    LNoBottomRight,
}

impl RoomShape {
    /// The eleven large shapes.
    pub const LARGE: [RoomShape; 11] = [
        RoomShape::NarrowH,
        RoomShape::NarrowV,
        RoomShape::Wide,
        RoomShape::Tall,
        RoomShape::NarrowWide,
        RoomShape::NarrowTall,
        RoomShape::Big,
        RoomShape::LNoTopLeft,
        RoomShape::LNoTopRight,
        RoomShape::LNoBottomLeft,
        RoomShape::LNoBottomRight,
    ];

    /// The shape's cells as offsets from the top-left of its bounding box.
    pub fn cells(self) -> &'static [Cell] {
        match self {
            RoomShape::Single | RoomShape::NarrowH | RoomShape::NarrowV => &[(0, 0)],
            RoomShape::Wide | RoomShape::NarrowWide => &[(0, 0), (1, 0)],
            RoomShape::Tall | RoomShape::NarrowTall => &[(0, 0), (0, 1)],
            RoomShape::Big => &[(0, 0), (1, 0), (0, 1), (1, 1)],
            RoomShape::LNoTopLeft => &[(1, 0), (0, 1), (1, 1)],
            RoomShape::LNoTopRight => &[(0, 0), (0, 1), (1, 1)],
            RoomShape::LNoBottomLeft => &[(0, 0), (1, 0), (1, 1)],
            RoomShape::LNoBottomRight => &[(0, 0), (1, 0), (0, 1)],
        }
    }

    /// Whether a door may leave cell `offset` of the shape in direction `dir` (the side must be
    /// on the shape's outline; narrow shapes have doors only at their ends).
    pub fn has_exit(self, offset: Cell, dir: GridDir) -> bool {
        let cells = self.cells();
        if !cells.contains(&offset) || cells.contains(&step(offset, dir)) {
            return false;
        }
        match self {
            RoomShape::NarrowH | RoomShape::NarrowWide => {
                matches!(dir, GridDir::Left | GridDir::Right)
            }
            RoomShape::NarrowV | RoomShape::NarrowTall => {
                matches!(dir, GridDir::Up | GridDir::Down)
            }
            _ => true,
        }
    }

    /// Every door slot of the shape, as `(cell offset, direction)`, cell by cell in the order of
    /// [`cells`](Self::cells), directions in [`GridDir::ALL`] order.
    pub fn exits(self) -> Vec<(Cell, GridDir)> {
        self.cells()
            .iter()
            .flat_map(|&c| GridDir::ALL.into_iter().map(move |d| (c, d)))
            .filter(|&(c, d)| self.has_exit(c, d))
            .collect()
    }
}
