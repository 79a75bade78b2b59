//! Tile substitution: plain tiles swapped for look-alike variants, so long walls and floors do
//! not repeat one picture. A variant never changes what a tile *is* (walkable, wall, door):
//! only which picture of it is drawn. Variants live beside the tiles in
//! [`TileMap::variants`](super::TileMap::variants); 0 is the plain picture.
//!
//! Tables are data (`fixtures/tiles/variants.ron` holds the four Diablo stages'): a list of
//! passes, each with a chance per tile, the tiles it touches and how many variants each has,
//! and an optional spread (no variant repeated within that many cells, as the Catacombs do).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::convert::{TableError, parse_table};
use super::{Grid, Tile};
use crate::seed;

/// One substitution pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubstitutionPass {
    /// Chance that a tile the pass touches gets a variant (0 to 1).
    pub chance: f64,
    /// The tiles it touches and how many variants each has (1 to 15), numbered from 1.
    pub variants: Vec<(Tile, u8)>,
    /// A variant is refused if the same tile with the same variant lies within this many cells
    /// (Chebyshev distance); 0: no rule.
    #[serde(default)]
    pub spread: usize,
    /// Variants are numbered after this many (so a later pass can add decorations without
    /// reusing an earlier pass's numbers).
    #[serde(default)]
    pub first: u8,
}

/// A stage's substitution: passes run in order; a later pass may overwrite an earlier one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Substitution {
    /// The passes.
    pub passes: Vec<SubstitutionPass>,
}

impl Substitution {
    /// Reads named substitutions (a RON map from name to [`Substitution`]) and checks them:
    /// chances within 0..=1, 1 to 15 variants, numbers below 256.
    pub fn table_from_ron(
        text: &str,
        file: &str,
    ) -> Result<BTreeMap<String, Substitution>, TableError> {
        let table: BTreeMap<String, Substitution> = parse_table(text, file, false)?;
        for (name, sub) in &table {
            for (i, pass) in sub.passes.iter().enumerate() {
                let bad = |problem: String| TableError::Rule {
                    file: file.to_string(),
                    rule: i,
                    problem: format!("substitution \"{name}\": {problem}"),
                };
                if !(0.0..=1.0).contains(&pass.chance) {
                    return Err(bad(format!(
                        "chance {} is not between 0 and 1",
                        pass.chance
                    )));
                }
                for &(tile, n) in &pass.variants {
                    if !(1..=15).contains(&n) {
                        return Err(bad(format!("{tile:?} has {n} variants; give 1 to 15")));
                    }
                    if u16::from(pass.first) + u16::from(n) > 255 {
                        return Err(bad(format!(
                            "{tile:?}: first {} + {n} variants passes 255",
                            pass.first
                        )));
                    }
                }
            }
        }
        Ok(table)
    }

    /// The built-in table of the Diablo stages (`cathedral`, `catacombs`, `caves`, `hell`),
    /// parsed once per process.
    pub fn builtin(name: &str) -> Option<&'static Substitution> {
        static TABLE: OnceLock<BTreeMap<String, Substitution>> = OnceLock::new();
        TABLE
            .get_or_init(|| {
                Substitution::table_from_ron(
                    include_str!("../../fixtures/tiles/variants.ron"),
                    "variants.ron",
                )
                .expect("the built-in table is valid")
            })
            .get(name)
    }

    /// Runs the passes over `tiles`, writing variant numbers into `variants` (same size; tiles
    /// no pass touches keep theirs). Protected tiles are left alone.
    ///
    /// # Complexity
    /// `O(W · H · (1 + spread²))` per pass.
    ///
    /// # Examples
    /// ```
    /// use levelplan::tiles::{Grid, Tile};
    /// use levelplan::tiles::variants::{Substitution, SubstitutionPass};
    /// let tiles = Grid::new(8, 8, Tile::Floor);
    /// let mut variants = Grid::new(8, 8, 0u8);
    /// let sub = Substitution {
    ///     passes: vec![SubstitutionPass { chance: 1.0, variants: vec![(Tile::Floor, 2)], spread: 0, first: 0 }],
    /// };
    /// sub.apply(&tiles, &mut variants, &Grid::new(8, 8, false), &mut levelplan::seed::stream(1, "x"));
    /// assert!(variants.values().iter().all(|&v| v == 1 || v == 2));
    /// ```
    pub fn apply<R: Rng + ?Sized>(
        &self,
        tiles: &Grid<Tile>,
        variants: &mut Grid<u8>,
        protected: &Grid<bool>,
        rng: &mut R,
    ) {
        for pass in &self.passes {
            for y in 0..tiles.height() as i64 {
                for x in 0..tiles.width() as i64 {
                    let tile = *tiles.get(x, y).expect("inside");
                    let Some(&(_, n)) = pass.variants.iter().find(|(t, _)| *t == tile) else {
                        continue;
                    };
                    if protected.get(x, y) == Some(&true) || !seed::chance(rng, pass.chance) {
                        continue;
                    }
                    let v = pass.first + 1 + seed::below(rng, u64::from(n)) as u8;
                    let s = pass.spread as i64;
                    let repeated = s > 0
                        && (y - s..=y + s).any(|ny| {
                            (x - s..=x + s).any(|nx| {
                                (nx, ny) != (x, y)
                                    && tiles.get(nx, ny) == Some(&tile)
                                    && variants.get(nx, ny) == Some(&v)
                            })
                        });
                    if !repeated {
                        variants.set(x, y, v);
                    }
                }
            }
        }
    }
}
