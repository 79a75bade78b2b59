//! The level graph: rooms, links between them, locks and the items that open them.

use std::collections::BTreeSet;
use std::fmt;

use petgraph::Direction;
use petgraph::stable_graph::{EdgeIndex, NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;
use serde::{Deserialize, Serialize};

use super::flow::Placement;

/// A room's stable identifier. Ids are handed out in increasing order and never reused, even
/// after the room is removed (unlike petgraph's indices).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RoomId(pub u32);

/// A link's stable identifier; never reused, like [`RoomId`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LinkId(pub u32);

/// Identifies a lock together with the items that open it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct KeyId(pub u32);

impl fmt::Display for RoomId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&format!("r{}", self.0))
    }
}

impl fmt::Display for LinkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&format!("l{}", self.0))
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&format!("k{}", self.0))
    }
}

/// What a room is for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RoomKind {
    /// Where the player starts. A flow has exactly one.
    Entrance,
    /// Where the player leaves the level.
    Exit,
    /// A boss arena.
    Boss,
    /// A treasure room.
    Reward,
    /// A merchant.
    Shop,
    /// A hidden room, reached through a secret link.
    Secret,
    /// A room with many connections.
    Hub,
    /// A quiet room (often a corridor) between other rooms.
    Connector,
    /// An ordinary (combat) room.
    Normal,
    /// A kind of the game's own, named.
    Custom(String),
}

impl RoomKind {
    /// The kind's name as used in flow files and summaries (`Custom` kinds give their name).
    pub fn name(&self) -> &str {
        match self {
            RoomKind::Entrance => "entrance",
            RoomKind::Exit => "exit",
            RoomKind::Boss => "boss",
            RoomKind::Reward => "reward",
            RoomKind::Shop => "shop",
            RoomKind::Secret => "secret",
            RoomKind::Hub => "hub",
            RoomKind::Connector => "connector",
            RoomKind::Normal => "normal",
            RoomKind::Custom(name) => name,
        }
    }

    /// The kind a letter of an expanding chain stands for (`b` boss, `c` connector, `e`
    /// entrance, `h` hub, `r` reward, `s` shop, `t` secret, `x` exit, `n` normal).
    pub fn from_chain_letter(letter: char) -> Option<RoomKind> {
        Some(match letter {
            'b' => RoomKind::Boss,
            'c' => RoomKind::Connector,
            'e' => RoomKind::Entrance,
            'h' => RoomKind::Hub,
            'r' => RoomKind::Reward,
            's' => RoomKind::Shop,
            't' => RoomKind::Secret,
            'x' => RoomKind::Exit,
            'n' => RoomKind::Normal,
            _ => return None,
        })
    }

    /// `true` for the kinds combat happens in: normal rooms, connectors and hubs.
    pub fn is_standard(&self) -> bool {
        matches!(self, RoomKind::Normal | RoomKind::Connector | RoomKind::Hub)
    }
}

impl fmt::Display for RoomKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a lock is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Opener {
    /// A key item carried by the player.
    Key,
    /// A switch somewhere in the level (opens heavy doors that keys cannot).
    Switch,
    /// A task to complete (clear a room, solve a puzzle).
    Task,
    /// A small key: any small key of the lock's ring (`by`) opens it, and is used up.
    SmallKey,
}

/// A lock on a link: it opens once the player has the opener for `by` (for
/// [`Opener::SmallKey`], `by` names the ring of small keys that fit, and opening uses one up).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Lock {
    /// Which opener opens it.
    pub by: KeyId,
    /// What kind of opener that is.
    pub opener: Opener,
}

impl Opener {
    /// What the opener is called: `key`, `switch`, `task` or `small key`.
    pub fn name(self) -> &'static str {
        match self {
            Opener::Key => "key",
            Opener::Switch => "switch",
            Opener::Task => "task",
            Opener::SmallKey => "small key",
        }
    }
}

/// The opener a lock needs, as the exports and messages write it: `key k1`, `switch k2`,
/// `task k3`, `small key k4` (a small key of ring `k4`).
impl fmt::Display for Lock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.opener.name(), self.by)
    }
}

/// Something placed in a room.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Item {
    /// A key that opens the locks marked with its id.
    Key(KeyId),
    /// A switch that opens the locks marked with its id.
    Switch(KeyId),
    /// A task whose completion opens the locks marked with its id.
    Task(KeyId),
    /// A small key of the ring with this id: opens any one small lock of the ring, and is used
    /// up doing so.
    SmallKey(KeyId),
    /// Anything else, named by the game.
    Named(String),
}

/// An item as the exports and messages write it: `key k1`, `small key k4`, or its name.
impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.opens() {
            Some((k, opener)) => write!(f, "{} {k}", opener.name()),
            None => match self {
                Item::Named(n) => f.write_str(n),
                _ => Ok(()),
            },
        }
    }
}

impl Item {
    /// The lock this item opens and how, if it is an opener.
    pub fn opens(&self) -> Option<(KeyId, Opener)> {
        match self {
            Item::Key(k) => Some((*k, Opener::Key)),
            Item::Switch(k) => Some((*k, Opener::Switch)),
            Item::Task(k) => Some((*k, Opener::Task)),
            Item::SmallKey(k) => Some((*k, Opener::SmallKey)),
            Item::Named(_) => None,
        }
    }
}

/// Where a room came from, for designers inspecting a generated graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub enum RoomOrigin {
    /// Added by hand through the API.
    #[default]
    Authored,
    /// A node of a flow template.
    FlowNode {
        /// The node's id in the flow file.
        node: String,
    },
    /// One room of an expanding chain.
    Chain {
        /// The expanding node's id in the flow file.
        node: String,
        /// Position in the chain, from 0.
        index: u32,
    },
    /// Added by an injection rule.
    Injected {
        /// The rule's name.
        rule: String,
        /// Where the rule put it (after any fallback).
        placement: Placement,
    },
}

/// A room of the level graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Room {
    /// What the room is for.
    pub kind: RoomKind,
    /// Free-form tags (for template selection and game logic), kept sorted.
    #[serde(default)]
    pub tags: BTreeSet<String>,
    /// What lies in the room: keys, switches, named items.
    #[serde(default)]
    pub items: Vec<Item>,
    /// Where the room came from.
    #[serde(default)]
    pub origin: RoomOrigin,
}

impl Room {
    /// A room of the given kind with no tags, no items and [`RoomOrigin::Authored`].
    pub fn new(kind: RoomKind) -> Room {
        Room {
            kind,
            tags: BTreeSet::new(),
            items: Vec::new(),
            origin: RoomOrigin::Authored,
        }
    }

    /// Adds a tag (builder style).
    pub fn with_tag(mut self, tag: impl Into<String>) -> Room {
        self.tags.insert(tag.into());
        self
    }
}

/// How a link is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum LinkKind {
    /// An ordinary door, passable both ways.
    Door,
    /// Passable only from its `from` room to its `to` room.
    OneWay,
    /// A hidden passage, passable both ways once found.
    Secret,
    /// Lets the player see, not pass.
    Window,
    /// No door at all: the two rooms share an open passage.
    Open,
    /// A teleporter: passable both ways, needs no corridor (warp wings).
    Warp,
}

impl LinkKind {
    /// `true` if the player can walk through it at all (everything but windows).
    pub fn is_passable(self) -> bool {
        !matches!(self, LinkKind::Window)
    }
}

/// Whether a link belongs to a level's spanning tree or closes a loop.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
pub enum LinkRole {
    /// A tree edge: from parent to child.
    #[default]
    Tree,
    /// An extra edge that closes a loop.
    Loop,
}

/// A link between two rooms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Link {
    /// How it is passed.
    pub kind: LinkKind,
    /// Tree edge or loop edge.
    #[serde(default)]
    pub role: LinkRole,
    /// A lock, if the link is locked.
    #[serde(default)]
    pub lock: Option<Lock>,
}

impl Link {
    /// An unlocked tree link of the given kind.
    pub fn new(kind: LinkKind) -> Link {
        Link {
            kind,
            role: LinkRole::Tree,
            lock: None,
        }
    }

    /// An unlocked two-way door on the spanning tree.
    pub fn door() -> Link {
        Link::new(LinkKind::Door)
    }

    /// The same link with another role (builder style).
    pub fn with_role(mut self, role: LinkRole) -> Link {
        self.role = role;
        self
    }

    /// The same link with a lock (builder style).
    pub fn with_lock(mut self, lock: Lock) -> Link {
        self.lock = Some(lock);
        self
    }

    /// `true` if a player standing in one end can walk to the other, locks aside:
    /// `forward` asks for `from -> to`, otherwise `to -> from`.
    pub fn passable(&self, forward: bool) -> bool {
        match self.kind {
            LinkKind::Window => false,
            LinkKind::OneWay => forward,
            _ => true,
        }
    }
}

/// What can go wrong when editing a [`LevelGraph`] or reading one from a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// A room id that is not in the graph.
    #[error("room {0} is not in the graph")]
    UnknownRoom(RoomId),
    /// A link id that is not in the graph.
    #[error("link {0} is not in the graph")]
    UnknownLink(LinkId),
    /// A link from a room to itself.
    #[error("link from {0} to itself: a link must join two different rooms")]
    SelfLink(RoomId),
    /// Two rooms (or two links) with the same id in a serialized graph.
    #[error(
        "the id {0} is used twice in the serialized graph; every room and link id must be unique"
    )]
    DuplicateId(u32),
    /// A serialized graph that JSON or RON could not read.
    #[error("cannot read the level graph: {0}")]
    Format(String),
    /// A link of a serialized graph whose end is not one of its rooms.
    #[error("link {link} joins {room}, which is not among the graph's rooms")]
    LinkToUnknownRoom {
        /// The link record.
        link: LinkId,
        /// The end that is missing.
        room: RoomId,
    },
    /// A link of a serialized graph from a room to itself.
    #[error("link {link} goes from {room} to itself: a link must join two different rooms")]
    LinkToItself {
        /// The link record.
        link: LinkId,
        /// Its one room.
        room: RoomId,
    },
    /// A room or link id of a serialized graph far larger than the graph (ids are handed out
    /// in order, so this is a typing mistake; taken as it is it would make the graph allocate
    /// room for every id below it).
    #[error("{what} id {id} in a graph of {count} {what}s: ids may be at most {limit}")]
    IdTooLarge {
        /// `"room"` or `"link"`.
        what: &'static str,
        /// The id.
        id: u32,
        /// How many records of that kind the graph has.
        count: usize,
        /// The largest id accepted.
        limit: u32,
    },
    /// An algorithm that needs a connected graph got one in several pieces.
    #[error("the graph has {components} separate parts; {what} needs a connected graph")]
    NotConnected {
        /// How many connected components the graph has.
        components: usize,
        /// The algorithm that was asked for.
        what: &'static str,
    },
}

#[derive(Debug, Clone, PartialEq)]
struct RoomNode {
    id: RoomId,
    room: Room,
}

#[derive(Debug, Clone, PartialEq)]
struct LinkEdge {
    id: LinkId,
    link: Link,
}

/// The abstract level: rooms and the links between them.
///
/// Built on petgraph's [`StableDiGraph`]; every link has a direction (`from -> to`): for a tree
/// link that is parent to child, and for a [`LinkKind::OneWay`] link it is the only way through.
/// Rooms and links are addressed by stable [`RoomId`]s and [`LinkId`]s, and every iteration
/// runs in id order, so outputs never depend on hash order or on petgraph's index reuse.
///
/// Serialises (JSON, RON) as a list of rooms and a list of links, each with its id.
///
/// # Examples
///
/// ```
/// use levelplan::{LevelGraph, Link, Room, RoomKind};
///
/// let mut g = LevelGraph::new();
/// let a = g.add_room(Room::new(RoomKind::Entrance));
/// let b = g.add_room(Room::new(RoomKind::Boss));
/// let door = g.add_link(a, b, Link::door());
/// assert_eq!(g.endpoints(door), Some((a, b)));
/// assert_eq!(g.degree(a), 1);
/// ```
#[derive(Debug, Clone, Default)]
pub struct LevelGraph {
    graph: StableDiGraph<RoomNode, LinkEdge>,
    rooms: Vec<Option<NodeIndex>>,
    links: Vec<Option<EdgeIndex>>,
    next_key: u32,
}

impl PartialEq for LevelGraph {
    fn eq(&self, other: &Self) -> bool {
        self.next_key == other.next_key
            && self.rooms().eq(other.rooms())
            && self.links().eq(other.links())
    }
}

impl LevelGraph {
    /// An empty graph.
    pub fn new() -> LevelGraph {
        LevelGraph::default()
    }

    /// Adds a room and returns its id.
    pub fn add_room(&mut self, room: Room) -> RoomId {
        let id = RoomId(self.rooms.len() as u32);
        let ix = self.graph.add_node(RoomNode { id, room });
        self.rooms.push(Some(ix));
        id
    }

    fn node(&self, id: RoomId) -> Option<NodeIndex> {
        self.rooms.get(id.0 as usize).copied().flatten()
    }

    fn edge(&self, id: LinkId) -> Option<EdgeIndex> {
        self.links.get(id.0 as usize).copied().flatten()
    }

    /// Adds a link `from -> to`, or says why it cannot.
    pub fn try_add_link(
        &mut self,
        from: RoomId,
        to: RoomId,
        link: Link,
    ) -> Result<LinkId, GraphError> {
        let a = self.node(from).ok_or(GraphError::UnknownRoom(from))?;
        let b = self.node(to).ok_or(GraphError::UnknownRoom(to))?;
        if a == b {
            return Err(GraphError::SelfLink(from));
        }
        let id = LinkId(self.links.len() as u32);
        let ix = self.graph.add_edge(a, b, LinkEdge { id, link });
        self.links.push(Some(ix));
        Ok(id)
    }

    /// Adds a link `from -> to`.
    ///
    /// # Panics
    ///
    /// If either room is not in the graph or `from == to`; see [`try_add_link`](Self::try_add_link).
    pub fn add_link(&mut self, from: RoomId, to: RoomId, link: Link) -> LinkId {
        match self.try_add_link(from, to, link) {
            Ok(id) => id,
            Err(e) => panic!("LevelGraph::add_link: {e}"),
        }
    }

    /// Removes a link and returns it.
    pub fn remove_link(&mut self, id: LinkId) -> Option<Link> {
        let ix = self.edge(id)?;
        self.links[id.0 as usize] = None;
        self.graph.remove_edge(ix).map(|e| e.link)
    }

    /// Removes a room with all its links and returns it.
    pub fn remove_room(&mut self, id: RoomId) -> Option<Room> {
        let ix = self.node(id)?;
        let incident: Vec<LinkId> = self.incident_links(id).map(|(l, _)| l).collect();
        for l in incident {
            self.remove_link(l);
        }
        self.rooms[id.0 as usize] = None;
        self.graph.remove_node(ix).map(|n| n.room)
    }

    /// Merges the two rooms joined by `link` into one, as when a door becomes an open passage
    /// between two sectors, and returns the room that remains.
    ///
    /// The link's `from` room remains, unless `to` is the entrance. The remaining room keeps its
    /// kind, except that a normal room or connector takes the other room's kind; it gets the
    /// union of both rooms' tags and all their items. Every link between the two rooms is
    /// removed; the other room's remaining links move to the merged room and keep their ids.
    ///
    /// # Complexity
    /// `O(d log d)` for the `d` links of the two rooms.
    ///
    /// # Examples
    /// ```
    /// use levelplan::{LevelGraph, Link, Room, RoomKind};
    /// let mut g = LevelGraph::new();
    /// let a = g.add_room(Room::new(RoomKind::Entrance));
    /// let b = g.add_room(Room::new(RoomKind::Normal));
    /// let c = g.add_room(Room::new(RoomKind::Boss));
    /// let ab = g.add_link(a, b, Link::door());
    /// let bc = g.add_link(b, c, Link::door());
    /// assert_eq!(g.merge_rooms(ab)?, a);
    /// assert_eq!(g.room_count(), 2);
    /// assert_eq!(g.endpoints(bc), Some((a, c)));
    /// # Ok::<(), levelplan::GraphError>(())
    /// ```
    pub fn merge_rooms(&mut self, link: LinkId) -> Result<RoomId, GraphError> {
        let (from, to) = self.endpoints(link).ok_or(GraphError::UnknownLink(link))?;
        let to_is_entrance = self.room(to).is_some_and(|r| r.kind == RoomKind::Entrance);
        let (keep, gone) = if to_is_entrance {
            (to, from)
        } else {
            (from, to)
        };
        let moved: Vec<(LinkId, RoomId)> = self.incident_links(gone).collect();
        for &(l, other) in &moved {
            if other == keep {
                self.remove_link(l);
                continue;
            }
            let (a, b) = self.endpoints(l).expect("incident link");
            let (na, nb) = if a == gone { (keep, b) } else { (a, keep) };
            let weight = self
                .graph
                .remove_edge(self.edge(l).expect("incident link"))
                .expect("live edge");
            let ix = self.graph.add_edge(
                self.node(na).expect("live"),
                self.node(nb).expect("live"),
                weight,
            );
            self.links[l.0 as usize] = Some(ix);
        }
        let absorbed = self.remove_room(gone).expect("endpoint of a live link");
        let room = self.room_mut(keep).expect("endpoint of a live link");
        if matches!(room.kind, RoomKind::Normal | RoomKind::Connector) {
            room.kind = absorbed.kind;
        }
        room.tags.extend(absorbed.tags);
        room.items.extend(absorbed.items);
        Ok(keep)
    }

    /// Turns a link around (`from` and `to` swap), keeping its id and everything else.
    ///
    /// # Examples
    /// ```
    /// use levelplan::{LevelGraph, Link, Room, RoomKind};
    /// let mut g = LevelGraph::new();
    /// let a = g.add_room(Room::new(RoomKind::Entrance));
    /// let b = g.add_room(Room::new(RoomKind::Normal));
    /// let l = g.add_link(a, b, Link::door());
    /// g.reverse_link(l)?;
    /// assert_eq!(g.endpoints(l), Some((b, a)));
    /// # Ok::<(), levelplan::GraphError>(())
    /// ```
    pub fn reverse_link(&mut self, link: LinkId) -> Result<(), GraphError> {
        let ix = self.edge(link).ok_or(GraphError::UnknownLink(link))?;
        let (a, b) = self.graph.edge_endpoints(ix).expect("live edge");
        let weight = self.graph.remove_edge(ix).expect("live edge");
        let new = self.graph.add_edge(b, a, weight);
        self.links[link.0 as usize] = Some(new);
        Ok(())
    }

    /// The room with this id.
    pub fn room(&self, id: RoomId) -> Option<&Room> {
        self.node(id).map(|ix| &self.graph[ix].room)
    }

    /// The room with this id, to change.
    pub fn room_mut(&mut self, id: RoomId) -> Option<&mut Room> {
        self.node(id).map(|ix| &mut self.graph[ix].room)
    }

    /// The link with this id.
    pub fn link(&self, id: LinkId) -> Option<&Link> {
        self.edge(id).map(|ix| &self.graph[ix].link)
    }

    /// The link with this id, to change.
    pub fn link_mut(&mut self, id: LinkId) -> Option<&mut Link> {
        self.edge(id).map(|ix| &mut self.graph[ix].link)
    }

    /// The link's `(from, to)` rooms.
    pub fn endpoints(&self, id: LinkId) -> Option<(RoomId, RoomId)> {
        let (a, b) = self.graph.edge_endpoints(self.edge(id)?)?;
        Some((self.graph[a].id, self.graph[b].id))
    }

    /// Whether the room is in the graph.
    pub fn contains_room(&self, id: RoomId) -> bool {
        self.node(id).is_some()
    }

    /// Number of rooms.
    pub fn room_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of links.
    pub fn link_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// All rooms, in id order.
    pub fn rooms(&self) -> impl Iterator<Item = (RoomId, &Room)> + '_ {
        self.rooms.iter().flatten().map(|&ix| {
            let n = &self.graph[ix];
            (n.id, &n.room)
        })
    }

    /// All room ids, in order.
    pub fn room_ids(&self) -> impl Iterator<Item = RoomId> + '_ {
        self.rooms.iter().flatten().map(|&ix| self.graph[ix].id)
    }

    /// All links as `(id, from, to, link)`, in id order.
    pub fn links(&self) -> impl Iterator<Item = (LinkId, RoomId, RoomId, &Link)> + '_ {
        self.links.iter().flatten().map(|&ix| {
            let (a, b) = self.graph.edge_endpoints(ix).expect("edge index is live");
            let e = &self.graph[ix];
            (e.id, self.graph[a].id, self.graph[b].id, &e.link)
        })
    }

    /// The links touching `room`, each with the room at its other end, in link id order.
    /// Direction is ignored; use [`Link::passable`] with [`endpoints`](Self::endpoints) for it.
    pub fn incident_links(&self, room: RoomId) -> impl Iterator<Item = (LinkId, RoomId)> + '_ {
        let mut out: Vec<(LinkId, RoomId)> = Vec::new();
        if let Some(ix) = self.node(room) {
            for dir in [Direction::Outgoing, Direction::Incoming] {
                for e in self.graph.edges_directed(ix, dir) {
                    let other = if dir == Direction::Outgoing {
                        e.target()
                    } else {
                        e.source()
                    };
                    out.push((e.weight().id, self.graph[other].id));
                }
            }
        }
        out.sort_unstable();
        out.into_iter()
    }

    /// The links touching `room` in no particular order, without allocating: each as
    /// `(link id, room at the other end, link, forward)`, where `forward` says that `room` is
    /// the link's `from`. For hot loops whose result does not depend on the order.
    pub(crate) fn links_at(
        &self,
        room: RoomId,
    ) -> impl Iterator<Item = (LinkId, RoomId, &Link, bool)> + '_ {
        self.node(room).into_iter().flat_map(move |ix| {
            let out = self
                .graph
                .edges_directed(ix, Direction::Outgoing)
                .map(move |e| {
                    (
                        e.weight().id,
                        self.graph[e.target()].id,
                        &e.weight().link,
                        true,
                    )
                });
            let inc = self
                .graph
                .edges_directed(ix, Direction::Incoming)
                .map(move |e| {
                    (
                        e.weight().id,
                        self.graph[e.source()].id,
                        &e.weight().link,
                        false,
                    )
                });
            out.chain(inc)
        })
    }

    /// One more than the highest room id ever handed out: the length of a vector indexed by
    /// `RoomId.0` that has a slot for every room.
    pub fn room_bound(&self) -> usize {
        self.rooms.len()
    }

    /// One more than the highest link id ever handed out: the length of a vector indexed by
    /// `LinkId.0` that has a slot for every link.
    pub fn link_bound(&self) -> usize {
        self.links.len()
    }

    /// The rooms a player in `room` can walk to directly (locks aside; one-way links and windows
    /// respected), each with the link used, in link id order.
    pub fn exits(&self, room: RoomId) -> impl Iterator<Item = (LinkId, RoomId)> + '_ {
        self.incident_links(room).filter(move |&(l, _)| {
            let (from, _) = self.endpoints(l).expect("incident link");
            self.link(l).expect("incident link").passable(from == room)
        })
    }

    /// Number of links touching `room` (in either direction).
    pub fn degree(&self, room: RoomId) -> usize {
        self.node(room)
            .map(|ix| {
                self.graph.edges_directed(ix, Direction::Outgoing).count()
                    + self.graph.edges_directed(ix, Direction::Incoming).count()
            })
            .unwrap_or(0)
    }

    /// The tree link entering `room` and the parent it comes from, if any.
    pub fn tree_parent(&self, room: RoomId) -> Option<(LinkId, RoomId)> {
        let ix = self.node(room)?;
        self.graph
            .edges_directed(ix, Direction::Incoming)
            .filter(|e| e.weight().link.role == LinkRole::Tree)
            .map(|e| (e.weight().id, self.graph[e.source()].id))
            .min()
    }

    /// The rooms `room` is the tree parent of, in link id order.
    pub fn tree_children(&self, room: RoomId) -> Vec<RoomId> {
        let Some(ix) = self.node(room) else {
            return Vec::new();
        };
        let mut out: Vec<(LinkId, RoomId)> = self
            .graph
            .edges_directed(ix, Direction::Outgoing)
            .filter(|e| e.weight().link.role == LinkRole::Tree)
            .map(|e| (e.weight().id, self.graph[e.target()].id))
            .collect();
        out.sort_unstable();
        out.into_iter().map(|(_, r)| r).collect()
    }

    /// The first room (lowest id) of kind [`RoomKind::Entrance`].
    pub fn entrance(&self) -> Option<RoomId> {
        self.rooms_of_kind(&RoomKind::Entrance).next()
    }

    /// The rooms of one kind, in id order.
    pub fn rooms_of_kind<'a>(&'a self, kind: &'a RoomKind) -> impl Iterator<Item = RoomId> + 'a {
        self.rooms()
            .filter(move |(_, r)| &r.kind == kind)
            .map(|(id, _)| id)
    }

    /// A fresh key id, never returned before by this graph.
    pub fn new_key(&mut self) -> KeyId {
        let k = KeyId(self.next_key);
        self.next_key += 1;
        k
    }

    /// All locks, as `(link, lock)`, in link id order.
    pub fn locks(&self) -> impl Iterator<Item = (LinkId, Lock)> + '_ {
        self.links()
            .filter_map(|(id, _, _, l)| l.lock.map(|lock| (id, lock)))
    }

    /// The underlying petgraph graph, for running petgraph's own algorithms. Node weights and
    /// edge weights are private; map indices back with [`room_at`](Self::room_at).
    pub fn petgraph(&self) -> &StableDiGraph<impl Sized, impl Sized> {
        &self.graph
    }

    /// The room id at a petgraph node index of [`petgraph`](Self::petgraph).
    pub fn room_at(&self, ix: NodeIndex) -> Option<RoomId> {
        self.graph.node_weight(ix).map(|n| n.id)
    }

    /// The graph as pretty JSON (the same for the same graph, byte for byte).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a level graph always serialises")
    }

    /// Reads a graph from JSON.
    pub fn from_json(text: &str) -> Result<LevelGraph, GraphError> {
        serde_json::from_str(text).map_err(|e| GraphError::Format(e.to_string()))
    }

    /// The graph as pretty RON.
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .expect("a level graph always serialises")
    }

    /// Reads a graph from RON.
    pub fn from_ron(text: &str) -> Result<LevelGraph, GraphError> {
        ron::from_str(text).map_err(|e| GraphError::Format(e.to_string()))
    }
}

// ---- serde: a flat, id-keyed record ------------------------------------------------------

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoomRecord {
    id: RoomId,
    kind: RoomKind,
    #[serde(default)]
    tags: BTreeSet<String>,
    #[serde(default)]
    items: Vec<Item>,
    #[serde(default)]
    origin: RoomOrigin,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkRecord {
    id: LinkId,
    from: RoomId,
    to: RoomId,
    kind: LinkKind,
    #[serde(default)]
    role: LinkRole,
    #[serde(default)]
    lock: Option<Lock>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphRecord {
    #[serde(default)]
    next_key: u32,
    rooms: Vec<RoomRecord>,
    links: Vec<LinkRecord>,
}

impl Serialize for LevelGraph {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let record = GraphRecord {
            next_key: self.next_key,
            rooms: self
                .rooms()
                .map(|(id, r)| RoomRecord {
                    id,
                    kind: r.kind.clone(),
                    tags: r.tags.clone(),
                    items: r.items.clone(),
                    origin: r.origin.clone(),
                })
                .collect(),
            links: self
                .links()
                .map(|(id, from, to, l)| LinkRecord {
                    id,
                    from,
                    to,
                    kind: l.kind,
                    role: l.role,
                    lock: l.lock,
                })
                .collect(),
        };
        record.serialize(s)
    }
}

impl<'de> Deserialize<'de> for LevelGraph {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let record = GraphRecord::deserialize(d)?;
        LevelGraph::from_record(record).map_err(serde::de::Error::custom)
    }
}

impl LevelGraph {
    fn from_record(record: GraphRecord) -> Result<LevelGraph, GraphError> {
        // Ids are dense but for removed records; a far larger id is a typing mistake.
        let limit = |count: usize| (count.saturating_mul(64) + 1024).min(u32::MAX as usize) as u32;
        let room_limit = limit(record.rooms.len());
        if let Some(r) = record.rooms.iter().find(|r| r.id.0 > room_limit) {
            return Err(GraphError::IdTooLarge {
                what: "room",
                id: r.id.0,
                count: record.rooms.len(),
                limit: room_limit,
            });
        }
        let link_limit = limit(record.links.len());
        if let Some(l) = record.links.iter().find(|l| l.id.0 > link_limit) {
            return Err(GraphError::IdTooLarge {
                what: "link",
                id: l.id.0,
                count: record.links.len(),
                limit: link_limit,
            });
        }
        let mut g = LevelGraph::new();
        let max_room = record
            .rooms
            .iter()
            .map(|r| r.id.0 as usize + 1)
            .max()
            .unwrap_or(0);
        g.rooms = vec![None; max_room];
        for r in record.rooms {
            if g.rooms[r.id.0 as usize].is_some() {
                return Err(GraphError::DuplicateId(r.id.0));
            }
            let room = Room {
                kind: r.kind,
                tags: r.tags,
                items: r.items,
                origin: r.origin,
            };
            let ix = g.graph.add_node(RoomNode { id: r.id, room });
            g.rooms[r.id.0 as usize] = Some(ix);
        }
        let max_link = record
            .links
            .iter()
            .map(|l| l.id.0 as usize + 1)
            .max()
            .unwrap_or(0);
        g.links = vec![None; max_link];
        for l in record.links {
            let end = |room: RoomId| GraphError::LinkToUnknownRoom { link: l.id, room };
            let a = g.node(l.from).ok_or_else(|| end(l.from))?;
            let b = g.node(l.to).ok_or_else(|| end(l.to))?;
            if a == b {
                return Err(GraphError::LinkToItself {
                    link: l.id,
                    room: l.from,
                });
            }
            if g.links[l.id.0 as usize].is_some() {
                return Err(GraphError::DuplicateId(l.id.0));
            }
            let link = Link {
                kind: l.kind,
                role: l.role,
                lock: l.lock,
            };
            let ix = g.graph.add_edge(a, b, LinkEdge { id: l.id, link });
            g.links[l.id.0 as usize] = Some(ix);
        }
        let max_key = g
            .rooms()
            .flat_map(|(_, r)| {
                r.items
                    .iter()
                    .filter_map(|i| i.opens().map(|(k, _)| k.0 + 1))
            })
            .chain(g.locks().map(|(_, l)| l.by.0 + 1))
            .max()
            .unwrap_or(0);
        g.next_key = record.next_key.max(max_key);
        Ok(g)
    }
}
