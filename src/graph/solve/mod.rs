//! A solver that proves a level completable by any player, or says why it is not.
//!
//! # The player
//! The player walks any path, may skip any room and any opener, picks up the openers of the
//! rooms it enters, passes a key / switch / task lock while it holds that opener, opens a
//! small-key lock by spending one small key of the lock's ring (the door then stays open),
//! passes one-way links forwards only, never passes windows, and finds secret links. The goal
//! is a room like any other: reaching it completes the level, and a player may walk on.
//!
//! # What an accepted level guarantees
//! [`solve`] accepts a level only when all three hold, and names what breaks otherwise:
//!
//! 1. the goal can be reached from the start ([`Unsolvable::Unreachable`], with the locks in
//!    the way and why each stays shut);
//! 2. every non-secret room, every opener and every lock is reached in some play: no room
//!    walled off, no lock that can never open, no two openers each behind the other's lock
//!    ([`Unsolvable::NeverReached`]);
//! 3. from every state a player can get into, the goal can still be reached: no soft-lock
//!    ([`Unsolvable::SoftLock`], naming the steps into the trap, the link that shut it, the
//!    rooms the player is shut in and the openers it had skipped).
//!
//! # How
//! The search runs over abstract states `(area, openers held, small locks opened)`, where the
//! area is the set of rooms the player can walk around in and come back from. Walking inside an
//! area can be undone and picking up never hurts (holding more is never worse), so only the
//! irreversible choices branch: spending a small key, and taking a one-way link. Holding more
//! being never worse also keeps the skipping player's search small: a trap is an irreversible
//! step taken without something, and the search looks for players who skip exactly the
//! openers some step's way out depends on (the `skipping` module explains why that finds every
//! trap). [`PlayerModel::Thorough`] checks the weaker promise of earlier versions (a player who
//! picks up everything within reach before any one-way link), kept as an explicit option.
//!
//! The tests check all of it against an exhaustive player that walks every play of small
//! random levels, state by state.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::level::{Item, LevelGraph, LinkId, Lock, Opener, RoomId, RoomKind};

mod search;
mod skipping;
mod walkthrough;

use search::{Bits, Budget, Prepared, Raw};

/// One thing the player does on the way to the goal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// Pick up an opener (a key, switch or small key, or complete a task) in a room.
    Collect {
        /// Where.
        room: RoomId,
        /// What.
        item: Item,
    },
    /// Open a locked link (for a small lock, this uses up a small key).
    Open {
        /// The link.
        link: LinkId,
        /// Its lock.
        lock: Lock,
    },
    /// Walk through a one-way link, leaving the area behind for good.
    OneWay {
        /// The link.
        link: LinkId,
        /// The room on its far side.
        to: RoomId,
    },
    /// Arrive at the goal.
    Reach {
        /// The goal room.
        room: RoomId,
    },
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Collect { room, item } => write!(f, "collect {} in {room}", item_name(item)),
            Step::Open { link, lock } => write!(f, "open {link} with {}", opener_name(lock)),
            Step::OneWay { link, to } => write!(f, "take one-way {link} to {to}"),
            Step::Reach { room } => write!(f, "reach the goal {room}"),
        }
    }
}

fn item_name(item: &Item) -> String {
    match item {
        Item::Key(k) => format!("key {k}"),
        Item::Switch(k) => format!("switch {k}"),
        Item::Task(k) => format!("task {k}"),
        Item::SmallKey(k) => format!("small key of ring {k}"),
        Item::Named(n) => n.clone(),
    }
}

fn opener_name(lock: &Lock) -> String {
    match lock.opener {
        Opener::Key => format!("key {}", lock.by),
        Opener::Switch => format!("switch {}", lock.by),
        Opener::Task => format!("task {}", lock.by),
        Opener::SmallKey => format!("a small key of ring {}", lock.by),
    }
}

/// How a level is completed: the openers to collect and locks to open, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Walkthrough {
    /// Where the player starts.
    pub start: RoomId,
    /// The goal.
    pub goal: RoomId,
    /// What to do, in order: only the openers and locks the goal needs, with the one-way links
    /// taken, ending with [`Step::Reach`].
    pub steps: Vec<Step>,
    /// Rooms entered when the steps are walked along shortest paths.
    pub rooms_walked: usize,
    /// Of those, entries into a room already visited: the backtracking the level asks for.
    pub rooms_revisited: usize,
    /// Abstract states the search explored.
    pub states_explored: usize,
}

/// Why a lock could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Missing {
    /// No room holds the opener.
    Nowhere,
    /// The opener lies in a room the player never reaches without opening the lock first.
    OutOfReach {
        /// Where it lies.
        room: RoomId,
    },
    /// Small keys of the ring run out.
    SmallKeys {
        /// Small keys of the ring the player can pick up.
        available: usize,
    },
}

/// A locked link that stands between the player and the goal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocker {
    /// The link.
    pub link: LinkId,
    /// Its lock.
    pub lock: Lock,
    /// Why it stays shut.
    pub missing: Missing,
}

/// Why a level cannot be completed, or cannot be trusted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unsolvable {
    /// No start room: the graph has no entrance and none was given.
    #[error("the level has no start: add an Entrance room or name the start")]
    NoStart,
    /// No goal room: the graph has no exit or boss and none was given.
    #[error("the level has no goal: add an Exit (or Boss) room or name the goal")]
    NoGoal,
    /// The start or goal given is not in the graph.
    #[error("room {0} is not in the graph")]
    UnknownRoom(RoomId),
    /// No play reaches the goal.
    #[error("the goal {goal} cannot be reached from {start}: {}", describe_blockers(.blockers))]
    Unreachable {
        /// Where the player starts.
        start: RoomId,
        /// The goal.
        goal: RoomId,
        /// The locked links at the edge of everything the player can reach.
        blockers: Vec<Blocker>,
    },
    /// Some play leaves the player stuck: the goal can no longer be reached.
    #[error("{}", describe_soft_lock(self))]
    SoftLock {
        /// The goal.
        goal: RoomId,
        /// The irreversible steps that lead into the trap (small keys spent, one-way links
        /// taken), the last of which shuts the player in.
        steps: Vec<Step>,
        /// Where the player stands when the trap shuts: the far side of the one-way link, or
        /// the room by the small lock.
        stuck_at: RoomId,
        /// The link that shut the player in: the one-way link taken, or the small lock a key
        /// was spent on.
        shut_by: LinkId,
        /// Every room the player can still get to from there (the goal is not among them).
        shut_in: Vec<RoomId>,
        /// The openers the player had left behind on the way (empty where the trap needs no
        /// skipping, such as a small key spent on the wrong door).
        skipped: Vec<(RoomId, Item)>,
    },
    /// Part of the level can never be reached in any play: non-secret rooms never entered,
    /// openers never picked up, locks that never open.
    #[error("{}", describe_never_reached(self))]
    NeverReached {
        /// Non-secret rooms no play enters.
        rooms: Vec<RoomId>,
        /// Openers no play picks up, with the room they lie in.
        openers: Vec<(RoomId, Item)>,
        /// Locked links no play passes (or, for small locks, opens).
        locks: Vec<(LinkId, Lock)>,
        /// The locked links at the edge of everything the player can reach, and why each stays
        /// shut.
        blockers: Vec<Blocker>,
    },
    /// The search ran out of its state budget.
    #[error(
        "the search gave up after {limit} states without an answer; raise SolveOptions::max_states"
    )]
    TooManyStates {
        /// The budget.
        limit: usize,
    },
}

fn list<T: fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(T::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn describe_soft_lock(e: &Unsolvable) -> String {
    let Unsolvable::SoftLock {
        goal,
        steps,
        stuck_at,
        shut_by,
        shut_in,
        skipped,
    } = e
    else {
        return String::new();
    };
    let mut out = format!(
        "the player can get stuck: after {}, the goal {goal} can no longer be reached; shut in {} by {shut_by}",
        describe_steps(steps),
        list(shut_in)
    );
    let spent = matches!(steps.last(), Some(Step::Open { .. }));
    if spent {
        out.push_str(" (the small key spent on it)");
    } else {
        out.push_str(" (one-way)");
    }
    if !skipped.is_empty() {
        let names: Vec<String> = skipped
            .iter()
            .map(|(room, item)| format!("{} in {room}", item_name(item)))
            .collect();
        out.push_str(&format!(", having skipped {}", names.join(", ")));
    }
    let _ = stuck_at;
    out
}

fn describe_never_reached(e: &Unsolvable) -> String {
    let Unsolvable::NeverReached {
        rooms,
        openers,
        locks,
        blockers,
    } = e
    else {
        return String::new();
    };
    let mut parts = Vec::new();
    if !rooms.is_empty() {
        parts.push(format!("rooms {} are never entered", list(rooms)));
    }
    if !openers.is_empty() {
        let names: Vec<String> = openers
            .iter()
            .map(|(room, item)| format!("{} in {room}", item_name(item)))
            .collect();
        parts.push(format!("{} never picked up", names.join(", ")));
    }
    if !locks.is_empty() {
        let names: Vec<String> = locks
            .iter()
            .map(|(link, lock)| format!("{link} ({})", opener_name(lock)))
            .collect();
        parts.push(format!("locks {} never open", names.join(", ")));
    }
    let mut out = format!(
        "part of the level can never be reached in any play: {}",
        parts.join("; ")
    );
    if !blockers.is_empty() {
        out.push_str(&format!(": {}", describe_blockers(blockers)));
    }
    out
}

fn describe_blockers(blockers: &[Blocker]) -> String {
    if blockers.is_empty() {
        return "no locked door is in the way, so one-way links must lead away from it".into();
    }
    blockers
        .iter()
        .map(|b| {
            let why = match &b.missing {
                Missing::Nowhere => "no room holds it".to_string(),
                Missing::OutOfReach { room } => {
                    format!("it lies in {room}, which cannot be reached before the lock")
                }
                Missing::SmallKeys { available } => {
                    format!("only {available} small keys of the ring can be found, all spent")
                }
            };
            format!("lock {} needs {} and {why}", b.link, opener_name(&b.lock))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn describe_steps(steps: &[Step]) -> String {
    if steps.is_empty() {
        return "nothing".into();
    }
    steps
        .iter()
        .map(Step::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Which player a level must be safe for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PlayerModel {
    /// Any player: walks any path, may skip any room and any opener, spends small keys on any
    /// small lock in reach. A level is safe when no such play gets the player stuck. The
    /// default, and the only model whose acceptance a game can rely on.
    #[default]
    Skipping,
    /// A thorough player, who picks up every opener within reach before taking a one-way link.
    /// Weaker: a level safe for this player can still trap one who skipped an opener. Kept for
    /// comparison and for games that force pick-ups.
    Thorough,
}

/// Settings of a solve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolveOptions {
    /// Where the player starts; default: the entrance.
    pub start: Option<RoomId>,
    /// The goal; default: the first exit, else the first boss room.
    pub goal: Option<RoomId>,
    /// Most abstract states to explore, over every search of the solve, before giving up
    /// (default 200 000). Running out is [`Unsolvable::TooManyStates`], never an acceptance.
    pub max_states: usize,
    /// Whether a level where some play gets stuck still counts as solved (default `false`:
    /// soft-locks are errors).
    pub allow_soft_locks: bool,
    /// Whether a level with parts no play reaches (non-secret rooms, openers, locks) still
    /// counts as solved (default `false`: [`Unsolvable::NeverReached`]).
    pub allow_never_reached: bool,
    /// The player the level must be safe for (default [`PlayerModel::Skipping`]).
    pub model: PlayerModel,
}

impl Default for SolveOptions {
    fn default() -> SolveOptions {
        SolveOptions {
            start: None,
            goal: None,
            max_states: 200_000,
            allow_soft_locks: false,
            allow_never_reached: false,
            model: PlayerModel::Skipping,
        }
    }
}

/// Proves the level completable from its entrance to its exit (or boss), or says why not;
/// [`solve_with`] with the default [`SolveOptions`].
///
/// # Examples
/// ```
/// use levelplan::{Item, LevelGraph, Link, Lock, Opener, Room, RoomKind};
/// use levelplan::graph::solve::{solve, Step};
///
/// let mut g = LevelGraph::new();
/// let start = g.add_room(Room::new(RoomKind::Entrance));
/// let side = g.add_room(Room::new(RoomKind::Normal));
/// let exit = g.add_room(Room::new(RoomKind::Exit));
/// let k = g.new_key();
/// g.room_mut(side).unwrap().items.push(Item::Key(k));
/// g.add_link(start, side, Link::door());
/// let door = g.add_link(start, exit, Link::door().with_lock(Lock { by: k, opener: Opener::Key }));
///
/// let w = solve(&g)?;
/// assert_eq!(w.steps, vec![
///     Step::Collect { room: side, item: Item::Key(k) },
///     Step::Open { link: door, lock: Lock { by: k, opener: Opener::Key } },
///     Step::Reach { room: exit },
/// ]);
/// assert_eq!(w.rooms_revisited, 1); // back through the start room
/// # Ok::<(), levelplan::graph::solve::Unsolvable>(())
/// ```
pub fn solve(graph: &LevelGraph) -> Result<Walkthrough, Unsolvable> {
    solve_with(graph, &SolveOptions::default())
}

/// Proves the level completable by any player, or says why not.
///
/// # Arguments
/// * `graph`: the level; locks on links, openers as room items.
/// * `options`: start, goal, the player model, the state budget, and which failures are
///   tolerated (soft-locks, parts never reached).
///
/// # Returns
/// A [`Walkthrough`] (the openers and locks the goal needs, in order, and how much
/// backtracking walking it takes), or [`Unsolvable`]: which locks keep the goal shut and why,
/// which rooms, openers and locks no play reaches, or which play gets the player stuck, where
/// and having skipped what. Every level accepted satisfies the three guarantees of the module
/// docs.
///
/// # Complexity
/// `O(S · (V + E))` for `S` abstract states explored over all searches, within
/// `options.max_states`. Without small keys and one-way links there is a single state. With
/// them, `S` grows with the sets of small locks a player can have opened (exponential in the
/// worst case: consumable keys make completability NP-hard in general) and, for the skipping
/// player, with the openers a one-way link's far side depends on; levels from
/// [`plan`](super::lock_and_key::plan) keep both small.
pub fn solve_with(graph: &LevelGraph, options: &SolveOptions) -> Result<Walkthrough, Unsolvable> {
    let start = match options.start {
        Some(r) if graph.contains_room(r) => r,
        Some(r) => return Err(Unsolvable::UnknownRoom(r)),
        None => graph.entrance().ok_or(Unsolvable::NoStart)?,
    };
    let goal = match options.goal {
        Some(r) if graph.contains_room(r) => r,
        Some(r) => return Err(Unsolvable::UnknownRoom(r)),
        None => graph
            .rooms_of_kind(&RoomKind::Exit)
            .next()
            .or_else(|| graph.rooms_of_kind(&RoomKind::Boss).next())
            .ok_or(Unsolvable::NoGoal)?,
    };
    let level = Prepared::new(graph);
    let mut budget = Budget {
        used: 0,
        limit: options.max_states,
    };
    let root = Raw {
        at: start,
        held: Bits::new(level.openers.len()),
        spent: Bits::new(level.small_count),
    };
    let nothing = Bits::new(level.openers.len());
    let search = level.search(root.clone(), &nothing, goal, &mut budget, false)?;
    let Some(win) = search.first_win else {
        return Err(Unsolvable::Unreachable {
            start,
            goal,
            blockers: level.blockers(&search),
        });
    };
    if !options.allow_never_reached
        && let Some(e) = level.never_reached(graph, &search)
    {
        return Err(e);
    }
    if !options.allow_soft_locks {
        let trap = match options.model {
            PlayerModel::Thorough => level.thorough_trap(&search),
            PlayerModel::Skipping => level.skipping_trap(&search, root, &mut budget)?,
        };
        if let Some(trap) = trap {
            return Err(level.soft_lock(trap, goal, &mut budget)?);
        }
    }
    let path = search.path_to(win);
    let mut w = level.walkthrough(&search, &path, start, goal);
    w.states_explored = budget.used;
    Ok(w)
}
