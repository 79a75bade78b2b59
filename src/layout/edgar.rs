//! Edgar's level descriptions (`edgar-neutral-level/1`, the data of the Edgar generator for C#)
//! read into a [`LayoutProblem`], layouts written in the shape of Edgar's own outputs, and
//! Edgar-shaped layouts read back for checking.
//!
//! Connections with `corridor_templates` become corridor rooms joined by contact to both ends,
//! as Edgar does. Room ids may have gaps; corridor rooms get ids after the largest room id, in
//! the order of their connections.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::geom::{Point, Transform};
use super::template::{
    DoorKind, DoorLine, DoorMode, DoorSpec, RepeatMode, RoomTemplate, TemplateShape,
};
use super::verify::{self, Violation};
use super::{Layout, LayoutProblem, LinkSpec, PlacedLink, PlacedRoom, Realise, RoomSpec, Segment};

/// The format tag Edgar inputs carry.
pub const FORMAT: &str = "edgar-neutral-level/1";

#[derive(Debug, Clone, Deserialize)]
struct Level {
    format: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    minimum_room_distance: u32,
    #[serde(default)]
    repeat_mode_default: Option<RepeatMode>,
    #[serde(default)]
    repeat_mode_override: Option<RepeatMode>,
    rooms: Vec<LevelRoom>,
    connections: Vec<Connection>,
    room_templates: BTreeMap<String, Template>,
}

#[derive(Debug, Clone, Deserialize)]
struct LevelRoom {
    id: i64,
    #[serde(default)]
    name: Option<String>,
    templates: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct Connection {
    from: i64,
    to: i64,
    #[serde(default)]
    corridor_templates: Option<Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
struct Template {
    outline: Vec<[i32; 2]>,
    doors: Doors,
    #[serde(default)]
    transformations: Option<Vec<Transform>>,
    #[serde(default)]
    repeat_mode: Option<RepeatMode>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
enum Doors {
    Simple {
        door_length: i32,
        #[serde(default)]
        corner_distance: i32,
        #[serde(default)]
        socket: Option<String>,
    },
    Manual {
        doors: Vec<ManualDoor>,
    },
    DoorLines {
        #[serde(alias = "lines")]
        doors: Vec<LineDoor>,
    },
}

#[derive(Debug, Clone, Deserialize)]
struct ManualDoor {
    from: [i32; 2],
    to: [i32; 2],
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    socket: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct LineDoor {
    from: [i32; 2],
    to: [i32; 2],
    length: i32,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    socket: Option<String>,
}

/// What went wrong reading an Edgar file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EdgarError {
    /// Not JSON of the expected shape.
    #[error("{file}: {message}")]
    Syntax {
        /// The file (or `"input"`).
        file: String,
        /// serde's message, with line and column.
        message: String,
    },
    /// JSON of the right shape that does not make sense.
    #[error("{file}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
}

fn kind_of(k: &Option<String>, file: &str) -> Result<DoorKind, EdgarError> {
    match k.as_deref() {
        None | Some("undirected") | Some("any") => Ok(DoorKind::Any),
        Some("entrance") => Ok(DoorKind::Entrance),
        Some("exit") => Ok(DoorKind::Exit),
        Some(other) => Err(EdgarError::Invalid {
            file: file.into(),
            message: format!("door type `{other}`: expected `entrance`, `exit` or none"),
        }),
    }
}

/// A level read from Edgar's format, with the ids it needs to write layouts back.
#[derive(Debug, Clone)]
pub struct EdgarLevel {
    /// The level's name.
    pub name: String,
    /// The problem to hand to [`Planner::new`](super::Planner::new).
    pub problem: LayoutProblem,
    /// Edgar's id of each problem room (corridor rooms: ids after the largest).
    pub ids: Vec<i64>,
}

impl EdgarLevel {
    /// Reads an Edgar level description (`file` names it in errors).
    pub fn from_json(text: &str, file: &str) -> Result<EdgarLevel, EdgarError> {
        let level: Level = serde_json::from_str(text).map_err(|e| EdgarError::Syntax {
            file: file.into(),
            message: e.to_string(),
        })?;
        let invalid = |message: String| EdgarError::Invalid {
            file: file.into(),
            message,
        };
        if level.format != FORMAT {
            return Err(invalid(format!(
                "format `{}`, expected `{FORMAT}`",
                level.format
            )));
        }
        let mut templates = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (name, t) in &level.room_templates {
            let doors = match &t.doors {
                Doors::Simple {
                    door_length,
                    corner_distance,
                    socket,
                } => DoorMode::Sliding {
                    length: *door_length,
                    corner_distance: *corner_distance,
                    socket: socket.clone(),
                },
                Doors::Manual { doors } => DoorMode::Manual(
                    doors
                        .iter()
                        .map(|d| {
                            Ok(DoorSpec {
                                from: d.from,
                                to: d.to,
                                kind: kind_of(&d.kind, file)?,
                                socket: d.socket.clone(),
                            })
                        })
                        .collect::<Result<_, EdgarError>>()?,
                ),
                Doors::DoorLines { doors } => DoorMode::Lines(
                    doors
                        .iter()
                        .map(|d| {
                            Ok(DoorLine {
                                from: d.from,
                                to: d.to,
                                length: d.length,
                                kind: kind_of(&d.kind, file)?,
                                socket: d.socket.clone(),
                            })
                        })
                        .collect::<Result<_, EdgarError>>()?,
                ),
            };
            index.insert(name.as_str(), templates.len());
            templates.push(RoomTemplate {
                name: name.clone(),
                shape: TemplateShape::Outline(t.outline.clone()),
                doors,
                transforms: t
                    .transformations
                    .clone()
                    .unwrap_or_else(|| vec![Transform::Identity]),
                repeat: t.repeat_mode,
                kinds: Vec::new(),
                tags: Vec::new(),
                weight: 1.0,
            });
        }
        let mut problem = LayoutProblem::new(templates);
        problem.min_distance = level.minimum_room_distance;
        problem.repeat_default = level.repeat_mode_default.unwrap_or(RepeatMode::NoRepeat);
        problem.repeat_override = level.repeat_mode_override;
        let lookup = |names: &[String], what: &str| -> Result<Vec<usize>, EdgarError> {
            names
                .iter()
                .map(|n| {
                    index.get(n.as_str()).copied().ok_or_else(|| {
                        invalid(format!("{what} uses template `{n}`, which is not defined"))
                    })
                })
                .collect()
        };
        let mut room_index: HashMap<i64, usize> = HashMap::new();
        let mut ids = Vec::new();
        for r in &level.rooms {
            if room_index.insert(r.id, ids.len()).is_some() {
                return Err(invalid(format!("room id {} appears twice", r.id)));
            }
            let name = r.name.clone().unwrap_or_else(|| r.id.to_string());
            problem.rooms.push(RoomSpec::new(
                &name,
                lookup(&r.templates, &format!("room {}", r.id))?,
            ));
            ids.push(r.id);
        }
        let mut next_id = level.rooms.iter().map(|r| r.id).max().unwrap_or(-1) + 1;
        for (i, c) in level.connections.iter().enumerate() {
            let end = |id: i64| {
                room_index.get(&id).copied().ok_or_else(|| {
                    invalid(format!(
                        "connection {}-{} names room {id}, which is not defined",
                        c.from, c.to
                    ))
                })
            };
            let (a, b) = (end(c.from)?, end(c.to)?);
            if a == b {
                return Err(invalid(format!(
                    "connection #{} ({}-{}) joins room {} to itself; a connection needs two \
                     different rooms",
                    i + 1,
                    c.from,
                    c.to,
                    c.from
                )));
            }
            if let Some(j) = level.connections[..i]
                .iter()
                .position(|o| (o.from, o.to) == (c.from, c.to) || (o.from, o.to) == (c.to, c.from))
            {
                return Err(invalid(format!(
                    "connections #{} and #{} both join rooms {} and {}; list each connection once",
                    j + 1,
                    i + 1,
                    c.from,
                    c.to
                )));
            }
            match &c.corridor_templates {
                Some(list) if !list.is_empty() => {
                    let what = format!("the corridor of connection {}-{}", c.from, c.to);
                    let mut spec =
                        RoomSpec::new(&format!("{}-{}", c.from, c.to), lookup(list, &what)?);
                    spec.corridor = true;
                    let k = problem.rooms.len();
                    problem.rooms.push(spec);
                    ids.push(next_id);
                    next_id += 1;
                    problem.links.push(LinkSpec::new(a, k, Realise::Contact));
                    problem.links.push(LinkSpec::new(k, b, Realise::Contact));
                }
                _ => problem.links.push(LinkSpec::new(a, b, Realise::Contact)),
            }
        }
        Ok(EdgarLevel {
            name: level.name,
            problem,
            ids,
        })
    }

    /// Writes a layout of this level in the shape of Edgar's layouts.
    pub fn layout_to_json(&self, layout: &Layout) -> String {
        let mut rooms = Vec::with_capacity(layout.rooms.len());
        for (i, r) in layout.rooms.iter().enumerate() {
            let mut doors = Vec::new();
            for (spec, link) in self.problem.links.iter().zip(&layout.links) {
                let (other, s) = if spec.from == i {
                    (spec.to, link.door_from)
                } else if spec.to == i {
                    (spec.from, link.door_to)
                } else {
                    continue;
                };
                doors.push(OutDoor {
                    to_room: self.ids[other],
                    from: [s.a.x, s.a.y],
                    to: [s.b.x, s.b.y],
                });
            }
            rooms.push(OutRoom {
                room: self.ids[i],
                is_corridor: r.corridor,
                template: r.template_name.clone(),
                transformation: r.transform,
                position: [r.position.x, r.position.y],
                outline_absolute: r.outline.iter().map(|p| [p.x, p.y]).collect(),
                doors,
            });
        }
        // Rooms in id order, as Edgar writes them.
        rooms.sort_by_key(|r| r.room);
        serde_json::to_string_pretty(&OutLayout {
            name: self.name.clone(),
            seed: layout.seed,
            attempts: layout.attempts,
            rooms,
        })
        .expect("layouts serialise")
    }

    /// Reads an Edgar-shaped layout of this level and checks it strictly
    /// ([`verify::check`], plus: corridor rooms join exactly their two rooms, and no door leads
    /// to a room that is not linked).
    pub fn verify_json(&self, text: &str, file: &str) -> Result<Result<(), Violation>, EdgarError> {
        let out: InLayout = serde_json::from_str(text).map_err(|e| EdgarError::Syntax {
            file: file.into(),
            message: e.to_string(),
        })?;
        Ok(self.verify(&out))
    }

    fn verify(&self, out: &InLayout) -> Result<(), Violation> {
        let n = self.problem.rooms.len();
        let room_err = |room: String, problem: String| Violation::Room { room, problem };
        let mut slot: Vec<Option<usize>> = vec![None; n];
        let by_id: HashMap<i64, usize> = self
            .ids
            .iter()
            .enumerate()
            .filter(|&(i, _)| !self.problem.rooms[i].corridor)
            .map(|(i, &id)| (id, i))
            .collect();
        // Corridor rooms: matched to the corridor connection between their two neighbours.
        let mut corridor_of: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
        for (k, spec) in self.problem.rooms.iter().enumerate() {
            if spec.corridor {
                let ends: Vec<usize> = self
                    .problem
                    .links
                    .iter()
                    .filter_map(|l| {
                        if l.from == k {
                            Some(l.to)
                        } else if l.to == k {
                            Some(l.from)
                        } else {
                            None
                        }
                    })
                    .collect();
                if let [a, b] = ends[..] {
                    corridor_of.entry((a.min(b), a.max(b))).or_default().push(k);
                }
            }
        }
        let mut edgar_to_ours: HashMap<i64, usize> = HashMap::new();
        for (j, r) in out.rooms.iter().enumerate() {
            let ours = if r.is_corridor {
                let mut ends: Vec<usize> = Vec::new();
                for d in &r.doors {
                    match by_id.get(&d.to_room) {
                        Some(&e) if !ends.contains(&e) => ends.push(e),
                        Some(_) => {}
                        None => {
                            return Err(room_err(
                                format!("corridor {}", r.room),
                                format!(
                                    "has a door to {}, which is not a room of the level",
                                    d.to_room
                                ),
                            ));
                        }
                    }
                }
                let [a, b] = ends[..] else {
                    return Err(room_err(
                        format!("corridor {}", r.room),
                        format!(
                            "joins {} rooms; a corridor room joins exactly two",
                            ends.len()
                        ),
                    ));
                };
                match corridor_of
                    .get_mut(&(a.min(b), a.max(b)))
                    .and_then(|v| v.pop())
                {
                    Some(k) => k,
                    None => {
                        return Err(room_err(
                            format!("corridor {}", r.room),
                            format!(
                                "joins rooms {} and {}, which have no (further) corridor connection",
                                self.ids[a], self.ids[b]
                            ),
                        ));
                    }
                }
            } else {
                match by_id.get(&r.room) {
                    Some(&i) => i,
                    None => {
                        return Err(room_err(
                            r.room.to_string(),
                            "is not a room of the level".into(),
                        ));
                    }
                }
            };
            if slot[ours].replace(j).is_some() {
                return Err(room_err(r.room.to_string(), "is placed twice".into()));
            }
            edgar_to_ours.insert(r.room, ours);
        }
        let mut rooms = Vec::with_capacity(n);
        for (i, s) in slot.iter().enumerate() {
            let Some(j) = *s else {
                return Err(room_err(
                    self.problem.rooms[i].name.clone(),
                    "is not placed".into(),
                ));
            };
            let r = &out.rooms[j];
            let Some(t) = self
                .problem
                .templates
                .iter()
                .position(|t| t.name == r.template)
            else {
                return Err(room_err(
                    self.problem.rooms[i].name.clone(),
                    format!(
                        "uses template `{}`, which the level does not define",
                        r.template
                    ),
                ));
            };
            let outline: Vec<Point> = r
                .outline_absolute
                .iter()
                .map(|p| Point::new(p[0], p[1]))
                .collect();
            rooms.push(PlacedRoom {
                name: self.problem.rooms[i].name.clone(),
                template: t,
                template_name: r.template.clone(),
                transform: r.transformation,
                position: r
                    .position
                    .map(|p| Point::new(p[0], p[1]))
                    .unwrap_or_default(),
                min: super::geom::min_corner(&outline),
                outline,
                corridor: r.is_corridor,
            });
            for d in &r.doors {
                let linked = edgar_to_ours.get(&d.to_room).is_some_and(|&o| {
                    self.problem
                        .links
                        .iter()
                        .any(|l| (l.from == i && l.to == o) || (l.to == i && l.from == o))
                });
                if !linked {
                    return Err(room_err(
                        self.problem.rooms[i].name.clone(),
                        format!(
                            "has a door to room {}, which it is not linked to",
                            d.to_room
                        ),
                    ));
                }
            }
        }
        let mut links = Vec::with_capacity(self.problem.links.len());
        for l in &self.problem.links {
            let jf = slot[l.from].expect("checked");
            let want = out.rooms[slot[l.to].expect("checked")].room;
            let door = out.rooms[jf].doors.iter().find(|d| d.to_room == want);
            let Some(d) = door else {
                return Err(Violation::Link {
                    from: self.problem.rooms[l.from].name.clone(),
                    to: self.problem.rooms[l.to].name.clone(),
                    problem: "no door between the two rooms".into(),
                });
            };
            let (a, b) = (
                Point::new(d.from[0], d.from[1]),
                Point::new(d.to[0], d.to[1]),
            );
            let s = Segment {
                a: a.min(b),
                b: a.max(b),
            };
            links.push(PlacedLink {
                door_from: s,
                door_to: s,
                corridor: Vec::new(),
            });
        }
        verify::check(
            &self.problem,
            &Layout {
                seed: 0,
                attempts: 0,
                rooms,
                links,
            },
        )
    }
}

#[derive(Serialize)]
struct OutLayout {
    name: String,
    seed: u64,
    attempts: u32,
    rooms: Vec<OutRoom>,
}

#[derive(Serialize)]
struct OutRoom {
    room: i64,
    is_corridor: bool,
    template: String,
    transformation: Transform,
    position: [i32; 2],
    outline_absolute: Vec<[i32; 2]>,
    doors: Vec<OutDoor>,
}

#[derive(Serialize, Deserialize)]
struct OutDoor {
    to_room: i64,
    from: [i32; 2],
    to: [i32; 2],
}

#[derive(Deserialize)]
struct InLayout {
    rooms: Vec<InRoom>,
}

#[derive(Deserialize)]
struct InRoom {
    room: i64,
    #[serde(default)]
    is_corridor: bool,
    template: String,
    transformation: Transform,
    #[serde(default)]
    position: Option<[i32; 2]>,
    outline_absolute: Vec<[i32; 2]>,
    #[serde(default)]
    doors: Vec<OutDoor>,
}
