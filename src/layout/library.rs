//! Template libraries: room templates keyed by the room kinds they serve and by tags, with
//! weights, as RON or JSON files. [`TemplateLibrary::builtin`] is the default library
//! (`fixtures/templates/default.ron`): rooms of several sizes, L, T, U, S and cross shapes,
//! hubs, boss arenas, treasure nooks, secret closets, shops and narrow connector passages.

use serde::{Deserialize, Serialize};

use super::template::{RepeatMode, RoomTemplate};

/// The built-in library's source.
pub const BUILTIN_LIBRARY: &str = include_str!("../../fixtures/templates/default.ron");

/// A set of room templates for a recipe to choose from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateLibrary {
    /// Repeat mode of templates that set none.
    #[serde(default)]
    pub repeat: RepeatMode,
    /// The templates written out in the file.
    #[serde(default)]
    pub templates: Vec<RoomTemplate>,
    /// Room templates drawn in Tiled: `.tmj` or `.tmx` maps, paths relative to the library
    /// file (see [`super::tiled`]). Reading the library reads them, adds their templates
    /// after `templates` and empties this list (the library read is self-contained).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiled: Vec<String>,
    /// Tile ids (within each Tiled map's first tileset) that are wall, for maps whose tileset
    /// does not say with a `wall` tile property.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wall_tiles: Vec<u32>,
}

/// A library that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct LibraryError {
    /// The file (or `"built-in"`).
    pub file: String,
    /// What is wrong (with line and column for syntax errors).
    pub message: String,
}

impl TemplateLibrary {
    /// The built-in library.
    pub fn builtin() -> TemplateLibrary {
        TemplateLibrary::from_ron(BUILTIN_LIBRARY, "built-in templates")
            .expect("the built-in template library is valid")
    }

    /// Reads a library from RON and checks it. Tiled maps it lists are read from paths
    /// relative to `file`'s folder.
    pub fn from_ron(text: &str, file: &str) -> Result<TemplateLibrary, LibraryError> {
        let mut lib: TemplateLibrary =
            crate::data::from_ron(text, true).map_err(|e| LibraryError {
                file: file.into(),
                message: format!("line {}, column {}: {}", e.line, e.column, e.message),
            })?;
        lib.read_tiled(file)?;
        lib.validate(file)?;
        Ok(lib)
    }

    /// Reads a library from JSON and checks it; Tiled maps as for [`Self::from_ron`].
    pub fn from_json(text: &str, file: &str) -> Result<TemplateLibrary, LibraryError> {
        let mut lib: TemplateLibrary = serde_json::from_str(text).map_err(|e| LibraryError {
            file: file.into(),
            message: e.to_string(),
        })?;
        lib.read_tiled(file)?;
        lib.validate(file)?;
        Ok(lib)
    }

    /// Reads a library file: JSON if its name ends in `.json`, else RON.
    ///
    /// # Examples
    /// ```
    /// use levelplan::layout::library::TemplateLibrary;
    /// let lib = TemplateLibrary::load(std::path::Path::new("fixtures/templates/tiled/library.ron"))?;
    /// assert!(lib.templates.len() >= 12);
    /// # Ok::<(), levelplan::layout::library::LibraryError>(())
    /// ```
    pub fn load(path: &std::path::Path) -> Result<TemplateLibrary, LibraryError> {
        let file = path.display().to_string();
        let text = crate::read_text_file(path).map_err(|e| LibraryError {
            file: file.clone(),
            message: format!("cannot read it: {e}"),
        })?;
        if path.extension().is_some_and(|e| e == "json") {
            TemplateLibrary::from_json(&text, &file)
        } else {
            TemplateLibrary::from_ron(&text, &file)
        }
    }

    /// Reads the Tiled maps `tiled` lists (relative to `file`'s folder) into `templates`.
    fn read_tiled(&mut self, file: &str) -> Result<(), LibraryError> {
        if self.tiled.is_empty() {
            return Ok(());
        }
        let dir = std::path::Path::new(file)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        for name in std::mem::take(&mut self.tiled) {
            let template = super::tiled::load_template(&dir.join(&name), &self.wall_tiles)
                .map_err(|e| LibraryError {
                    file: file.into(),
                    message: e.to_string(),
                })?;
            self.templates.push(template);
        }
        Ok(())
    }

    /// Checks names are unique, every template compiles, and some template serves `Normal`
    /// rooms (the fallback for kinds no template serves).
    pub fn validate(&self, file: &str) -> Result<(), LibraryError> {
        let err = |message: String| LibraryError {
            file: file.into(),
            message,
        };
        let mut names = std::collections::HashSet::new();
        for (i, t) in self.templates.iter().enumerate() {
            if !names.insert(t.name.as_str()) {
                return Err(err(format!("two templates are called `{}`", t.name)));
            }
            t.compile(i).map_err(|e| err(e.to_string()))?;
        }
        if !self
            .templates
            .iter()
            .any(|t| t.kinds.iter().any(|k| k == "Normal"))
        {
            return Err(err(
                "no template serves `Normal` rooms; at least one must (it is the fallback)".into(),
            ));
        }
        Ok(())
    }

    /// Templates for a room of `kind` with `tags`: those serving the kind (names compared
    /// without regard to case; else those serving `Normal`), narrowed to those sharing a tag
    /// with the room if any do.
    pub fn choose(&self, kind: &str, tags: &[String]) -> Vec<usize> {
        let serving = |k: &str| -> Vec<usize> {
            self.templates
                .iter()
                .enumerate()
                .filter(|(_, t)| t.kinds.iter().any(|x| x.eq_ignore_ascii_case(k)))
                .map(|(i, _)| i)
                .collect()
        };
        let mut out = serving(kind);
        if out.is_empty() {
            out = serving("Normal");
        }
        let tagged: Vec<usize> = out
            .iter()
            .copied()
            .filter(|&i| self.templates[i].tags.iter().any(|t| tags.contains(t)))
            .collect();
        if tagged.is_empty() { out } else { tagged }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_library_has_the_promised_variety() {
        let lib = TemplateLibrary::builtin();
        assert!(
            lib.templates.len() >= 20,
            "{} templates",
            lib.templates.len()
        );
        for kind in [
            "Normal",
            "Entrance",
            "Exit",
            "Boss",
            "Reward",
            "Shop",
            "Secret",
            "Hub",
            "Connector",
        ] {
            assert!(!lib.choose(kind, &[]).is_empty(), "nothing serves {kind}");
        }
        assert_eq!(lib.choose("Custom kind", &[]), lib.choose("Normal", &[]));
        assert_eq!(lib.choose("boss", &[]), lib.choose("Boss", &[]));
        assert_ne!(lib.choose("boss", &[]), lib.choose("normal", &[]));
    }

    /// Under the walls-inside convention every built-in shape must have one connected floor,
    /// and every door must open onto it.
    #[test]
    fn builtin_rooms_have_one_floor_reached_by_every_door() {
        use crate::layout::geom::{Dir, Point};
        let lib = TemplateLibrary::builtin();
        for (i, t) in lib.templates.iter().enumerate() {
            for shape in t.compile(i).unwrap() {
                let m = &shape.mask;
                let floor = |x: i32, y: i32| {
                    m.inside(x, y) && (-1..=1).all(|dy| (-1..=1).all(|dx| m.inside(x + dx, y + dy)))
                };
                let cells: Vec<(i32, i32)> = (0..m.height)
                    .flat_map(|y| (0..m.width).map(move |x| (x, y)))
                    .filter(|&(x, y)| floor(x, y))
                    .collect();
                assert!(!cells.is_empty(), "{}: no floor", t.name);
                let mut seen = vec![cells[0]];
                let mut stack = vec![cells[0]];
                while let Some((x, y)) = stack.pop() {
                    for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                        let q = (x + dx, y + dy);
                        if floor(q.0, q.1) && !seen.contains(&q) {
                            seen.push(q);
                            stack.push(q);
                        }
                    }
                }
                assert_eq!(
                    seen.len(),
                    cells.len(),
                    "{} {:?}: floor in pieces",
                    t.name,
                    shape.transform
                );
                for d in &shape.doors {
                    // The wall cell behind the door, then one step further in.
                    let wall = match d.facing {
                        Dir::North => Point::new(d.a.x, d.a.y - 1),
                        Dir::South => Point::new(d.a.x, d.a.y),
                        Dir::East => Point::new(d.a.x - 1, d.a.y),
                        Dir::West => Point::new(d.a.x, d.a.y),
                    };
                    let inner = wall - d.facing.step();
                    assert!(m.inside(wall.x, wall.y), "{}: door off the room", t.name);
                    assert!(
                        floor(inner.x, inner.y),
                        "{} {:?}: door {:?}-{:?} opens onto a wall",
                        t.name,
                        shape.transform,
                        d.a,
                        d.b
                    );
                }
            }
        }
    }

    #[test]
    fn broken_library_names_the_template() {
        let text = "TemplateLibrary(templates: [(name: \"bad\", shape: Outline([(0, 0), (0, 2), (3, 3), (3, 0)]), doors: Sliding(length: 1, corner_distance: 0), kinds: [\"Normal\"])])";
        let e = TemplateLibrary::from_ron(text, "lib.ron").unwrap_err();
        assert!(
            e.to_string().contains("lib.ron") && e.message.contains("`bad`"),
            "{e}"
        );
    }
}
