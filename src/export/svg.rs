//! SVG pictures of tile maps.

use std::fmt::Write;

use crate::tiles::{Tile, TileMap};

/// A label drawn on the picture, centred on a tile position.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// Tile column of its centre.
    pub x: f64,
    /// Tile row of its centre.
    pub y: f64,
    /// The text.
    pub text: String,
}

/// Draws a tile map as SVG, `scale` pixels per tile. Floor and corridor tiles are filled with
/// `fill(region)` (a CSS colour; regions without one are light grey), walls dark, doors
/// orange, secret doors purple, lava red, stairs blue, rock left out; labels are drawn on top.
///
/// Runs of equal tiles in a row are merged into one rectangle, so the picture stays small.
///
/// # Complexity
/// `O(W · H)`.
///
/// # Examples
/// ```
/// use levelplan::tiles::{Tile, TileMap};
/// use levelplan::export::svg::tilemap_to_svg;
/// let mut map = TileMap::new(3, 1);
/// map.put(0, 0, Tile::Wall, None);
/// map.put(1, 0, Tile::Floor, Some(0));
/// let svg = tilemap_to_svg(&map, 10, |_| Some("#9c9".to_string()), &[]);
/// assert!(svg.starts_with("<svg"));
/// assert!(svg.contains("fill=\"#9c9\""));
/// ```
pub fn tilemap_to_svg(
    map: &TileMap,
    scale: u32,
    fill: impl Fn(u32) -> Option<String>,
    labels: &[Label],
) -> String {
    let (w, h) = (map.tiles.width(), map.tiles.height());
    let s = f64::from(scale);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">",
        w as f64 * s,
        h as f64 * s,
        w as f64 * s,
        h as f64 * s
    );
    let _ = writeln!(
        out,
        "<rect width=\"100%\" height=\"100%\" fill=\"#22252b\"/>"
    );
    let colour = |tile: Tile, region: Option<u32>| -> Option<String> {
        let fixed = match tile {
            Tile::Solid => return None,
            Tile::Floor | Tile::Corridor => {
                return Some(region.and_then(&fill).unwrap_or_else(|| "#d9d9d9".into()));
            }
            t if t.is_wall() => "#5b5f6b",
            Tile::Door => "#e8a33d",
            Tile::SecretDoor => "#9b59b6",
            Tile::Arch => "#c8b79a",
            Tile::Fence | Tile::Grate | Tile::Window => "#8a8f99",
            Tile::Pillar => "#3d4048",
            Tile::Lava => "#d8431f",
            Tile::Bridge => "#8b5a2b",
            Tile::StairsUp => "#4aa3df",
            Tile::StairsDown => "#2c6e9b",
            _ => "#d9d9d9",
        };
        Some(fixed.to_string())
    };
    for y in 0..h {
        let mut x = 0;
        while x < w {
            let at = |x: usize| {
                (
                    *map.tiles.get(x as i64, y as i64).expect("inside"),
                    *map.regions.get(x as i64, y as i64).expect("inside"),
                )
            };
            let (tile, region) = at(x);
            let mut end = x + 1;
            while end < w && at(end) == (tile, region) {
                end += 1;
            }
            if let Some(c) = colour(tile, region) {
                let _ = writeln!(
                    out,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{c}\"/>",
                    x as f64 * s,
                    y as f64 * s,
                    (end - x) as f64 * s,
                    s
                );
            }
            x = end;
        }
    }
    for l in labels {
        let text = l
            .text
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"{}\" text-anchor=\"middle\" dominant-baseline=\"middle\" fill=\"#1b1b1b\">{text}</text>",
            l.x * s,
            l.y * s,
            (s * 2.2).max(8.0)
        );
    }
    out.push_str("</svg>\n");
    out
}
