//! The search: attempts under the retry policy, depth first with conflict-directed
//! backjumping, and the record of where a failed search got deepest.

use super::*;

thread_local! {
    /// Placement tries made on this thread so far, by every search (a part's own included):
    /// the assembly reads it to charge its attempts for their parts' searches (see
    /// `assemble::TRIES_PER_ROOM`). One layout runs on one thread, so the count a call reads
    /// is its own work, the same on every run.
    static TRIES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many placement tries this thread has made (see `TRIES`).
pub(super) fn tries_so_far() -> u64 {
    TRIES.with(std::cell::Cell::get)
}

/// Adds an attempt's tries to this thread's count (once per attempt, off the search loop;
/// the assembly also charges the corridors it routes at parts' joints).
pub(super) fn count_tries(n: u64) {
    TRIES.with(|t| t.set(t.get() + n));
}

/// The most attempts the room-by-room search of a big level makes, under a count, where a
/// part found no layout of its own: the part's search fails on some levels that the level's
/// own search lays out at its first attempt (graph 6 of the benchmark's 100-room graphs
/// without holes), but at 1000 rooms an attempt can take a third of a second, and no such
/// level of the benchmark's families needed more (`docs/layout-at-scale.md`, tenth run).
const AFTER_A_HOPELESS_PART: u32 = 20;

/// How many tries an attempt with a deadline makes between two readings of the clock (about
/// a millisecond's work on a big level).
const CLOCK_EVERY: u64 = 512;

/// Under a time budget of `ms` milliseconds, when the fitting of a big level's parts must end
/// (from the start of the layout): after 70% of the time; the room-by-room search gets the
/// rest (and the second cut, which follows it, nothing). The first cut lays out most big
/// levels that lay out at all; where it does not, the room-by-room search does more often
/// than the second cut (`docs/layout-at-scale.md`, ninth and tenth runs).
fn parts_end_at(ms: u64) -> u64 {
    ms / 10 * 7 + ms % 10 * 7 / 10
}

/// Adds `n` earlier attempts to those a [`LayoutError::NoLayout`] counts, and returns its
/// count (`n` for any other error).
fn add_attempts(e: &mut LayoutError, n: u32) -> u32 {
    match e {
        LayoutError::NoLayout { attempts, .. } => {
            *attempts += n;
            *attempts
        }
        _ => n,
    }
}

/// Whether `deadline` (if any) has passed.
pub(super) fn past(deadline: Option<std::time::Instant>) -> bool {
    deadline.is_some_and(|d| std::time::Instant::now() >= d)
}

impl Planner {
    /// Lays the rooms out for a seed.
    pub fn layout(&self, seed: u64) -> Result<Layout, LayoutError> {
        let start = std::time::Instant::now();
        let cap = self.problem.budget.time_limit_ms;
        let result = self.layout_from(seed, start);
        match (result, cap) {
            (Err(e), Some(limit_ms))
                if start.elapsed() >= std::time::Duration::from_millis(limit_ms) =>
            {
                let (attempts, constraint) = match e {
                    LayoutError::NoLayout {
                        attempts,
                        constraint,
                        ..
                    } => (attempts, constraint),
                    other => (0, other.to_string()),
                };
                Err(LayoutError::OutOfTime {
                    limit_ms,
                    attempts,
                    constraint,
                })
            }
            (result, _) => result,
        }
    }

    fn layout_from(&self, seed: u64, start: std::time::Instant) -> Result<Layout, LayoutError> {
        let ms = match self.problem.budget.retry {
            RetryPolicy::Millis(ms) => Some(ms),
            RetryPolicy::Attempts(_) => None,
        };
        let cap = self
            .problem
            .budget
            .time_limit_ms
            .map(|ms| start + std::time::Duration::from_millis(ms));
        // The retry policy's deadline, never past the cap; the cap alone under a count.
        let after = |ms: u64| {
            let d = start + std::time::Duration::from_millis(ms);
            cap.map_or(d, |c| c.min(d))
        };
        let mut before = 0;
        // The last cut's error (its attempts those of every cut so far): why the parts did not
        // fit, for the error if the room-by-room search fails too, and what the layout returns
        // if the cap runs out before that search (past the cap nothing more is tried: a later
        // stage could only find a layout other than the one found without the cap).
        let mut last: Option<LayoutError> = None;
        let capped = || past(cap);
        // The error of a part that found no layout of its own, if one did.
        let mut hopeless: Option<LayoutError> = None;
        // The room-by-room search's error, once it has run (between the cuts) and failed.
        let mut searched: Option<LayoutError> = None;
        let end = ms.map(after).or(cap);
        let mut cuts = self.cuts();
        loop {
            if last.is_some() && capped() {
                break;
            }
            // The first cut's parts did not fit: room by room, before the second cut (an
            // attempt room by room costs far less than one at fitting parts, and lays out
            // more of the levels the first cut does not).
            if last.is_some() && searched.is_none() {
                match self.room_by_room(seed, end, before, None) {
                    Ok(layout) => return Ok(layout),
                    Err(mut e) => {
                        before = add_attempts(&mut e, 0);
                        searched = Some(e);
                    }
                }
                // Under a time budget the search had the rest of the time.
                if ms.is_some() || capped() {
                    break;
                }
            }
            let Some(parts) = cuts.next() else {
                break;
            };
            let share = ms.map(|ms| after(parts_end_at(ms)));
            let result = self.assemble(seed, parts, share.or(cap), None);
            let share_spent = past(share);
            match result {
                Ok(mut layout) => {
                    layout.attempts += before;
                    return Ok(layout);
                }
                // A part found no layout of its own: no cut will fit it. But the part's search
                // is not the level's (it places the part with stand-ins for what hangs off
                // it), so the room-by-room search, below, still gets a few attempts if it has
                // not run yet, and the error names the part if that fails too. (A part whose
                // searches this cut's share of a time budget cut short is not hopeless: the
                // room-by-room search gets the time that is left.)
                Err((mut e, Some(_))) if !share_spent => {
                    before = add_attempts(&mut e, before);
                    hopeless = Some(e);
                    break;
                }
                // The parts did not fit together (or one could not be laid out with its
                // stand-ins): room by room, then the next cut, each with a budget of its own.
                Err((mut e @ LayoutError::NoLayout { .. }, _)) => {
                    before = add_attempts(&mut e, before);
                    last = Some(e);
                }
                Err((e, _)) => return Err(e),
            }
        }
        if let Some(mut e) = hopeless {
            if searched.is_none() && !capped() {
                match self.room_by_room(seed, end, before, Some(AFTER_A_HOPELESS_PART)) {
                    Ok(layout) => return Ok(layout),
                    // Its count includes the part's (`before`).
                    Err(LayoutError::NoLayout { attempts: all, .. }) => {
                        add_attempts(&mut e, all - before);
                    }
                    Err(other) => return Err(other),
                }
            }
            if let LayoutError::NoLayout { constraint, .. } = &mut e {
                self.push_enclosure_hint(constraint);
            }
            return Err(e);
        }
        let mut e = match searched {
            Some(e) => e,
            None => {
                if let Some(e) = last.take_if(|_| capped()) {
                    return Err(e);
                }
                match self.room_by_room(seed, end, before, None) {
                    Ok(layout) => return Ok(layout),
                    Err(e) => e,
                }
            }
        };
        if let LayoutError::NoLayout { constraint, .. } = &mut e {
            self.push_enclosure_hint(constraint);
            if let Some(LayoutError::NoLayout {
                constraint: why, ..
            }) = last
            {
                constraint.push_str(" (laid out in parts first: ");
                constraint.push_str(&why);
                constraint.push(')');
                push_hint(constraint, self.bridge_hint());
            }
        }
        Err(e)
    }

    /// The room-by-room search of the whole level until `deadline`, after stages that made
    /// `before` attempts (counted in its layout's or error's attempts), with at most `most`
    /// attempts under a count if given.
    fn room_by_room(
        &self,
        seed: u64,
        deadline: Option<std::time::Instant>,
        before: u32,
        most: Option<u32>,
    ) -> Result<Layout, LayoutError> {
        let mut whole = self.ordered()?;
        if let (RetryPolicy::Attempts(k), Some(most)) = (self.problem.budget.retry, most) {
            whole.to_mut().problem.budget.retry = RetryPolicy::Attempts(k.min(most));
        }
        match whole.solve(seed, deadline, before > 0) {
            Ok((st, attempts)) => Ok(whole.finish(seed, before + attempts, st)),
            Err(mut e) => {
                add_attempts(&mut e, before);
                Err(e)
            }
        }
    }

    /// Where a big level's parts did not fit together and some of the links between its
    /// parts must be contacts: how many, and the remedy (a corridor allowed on them lets a
    /// part stand off where the space round its joint is taken; see the README's figures for
    /// chains of loops). `None` if the level is not laid out in parts or every such link
    /// allows a corridor.
    pub(super) fn bridge_hint(&self) -> Option<String> {
        let parts = self.parts.as_deref()?;
        let cut: Vec<usize> = parts.iter().filter_map(|p| p.joint.map(|j| j.0)).collect();
        let rigid = cut
            .iter()
            .filter(|&&l| self.problem.links[l].realise.path_bounds().is_none())
            .count();
        (rigid > 0).then(|| {
            format!(
                "{rigid} of the {} links between its parts must touch: allowing a corridor on \
                 them (`Realise::ContactOrPath`) lets a part stand off where the space round \
                 its joint is taken",
                cut.len()
            )
        })
    }

    /// Adds [`Planner::enclosure_hint`], if any, to an error's constraint.
    fn push_enclosure_hint(&self, constraint: &mut String) {
        push_hint(constraint, self.enclosure_hint());
    }

    /// Why the level may need a hole, if it does: of the groups of loops that no drawing
    /// leaves with every room that has rooms hanging off it outside (see
    /// [`crate::graph::enclosures`]), the one whose hole must hold the most rooms (the first
    /// of those), and how many other groups need one.
    pub(super) fn enclosure_hint(&self) -> Option<String> {
        let groups = crate::graph::enclosure_groups(&self.adj, self.problem.links.len());
        let g = groups.iter().rev().max_by_key(|g| g.rooms_held())?;
        let names = |rooms: &[usize], most: usize| {
            let mut text = rooms
                .iter()
                .take(most)
                .map(|&r| format!("`{}`", self.problem.rooms[r].name))
                .collect::<Vec<_>>()
                .join(", ");
            if rooms.len() > most {
                text.push_str(&format!(" and {} more", rooms.len() - most));
            }
            text
        };
        let count = g.rooms_held() - g.inside.len();
        let others = match groups.len() - 1 {
            0 => String::new(),
            1 => " (1 other group of loops needs a hole too)".to_string(),
            k => format!(" ({k} other groups of loops need a hole too)"),
        };
        Some(format!(
            "the graph needs a hole, which loops closed tight do not leave: no drawing of the \
             loops of {} has every room with rooms hanging off it on the outside, so a loop \
             must enclose {} and the {} room{} hanging off {}{others}",
            names(&g.rooms, 6),
            names(&g.inside, 3),
            count,
            if count == 1 { "" } else { "s" },
            if g.inside.len() == 1 { "it" } else { "them" },
        ))
    }

    /// Whether the retry policy allows another attempt after `attempt` attempts: under
    /// [`RetryPolicy::Millis`], the first attempt always, then until `deadline`.
    pub(super) fn attempts_left(&self, attempt: u32, deadline: Option<std::time::Instant>) -> bool {
        let in_time = || !past(deadline);
        match self.problem.budget.retry {
            // Under a count the deadline is only the cap (`Budget::time_limit_ms`).
            RetryPolicy::Attempts(k) => attempt < k.max(1) && (attempt == 0 || in_time()),
            RetryPolicy::Millis(_) => attempt == 0 || in_time(),
        }
    }

    /// The room-by-room search: the placed rooms and corridors, and the attempts it took.
    pub(super) fn search(
        &self,
        seed: u64,
        deadline: Option<std::time::Instant>,
    ) -> Result<(State, u32), LayoutError> {
        self.search_recording(seed, deadline, false, None)
    }

    /// Where [`Planner::layout`] gets stuck for `seed`: `None` if it lays the level out, else
    /// the rooms its room-by-room search had placed at its deepest point over all attempts,
    /// and the room it could not place next. The search runs again under the same budget (a
    /// big level's parts are not shown: the picture is of the room-by-room search they fall
    /// back on), so under an attempt budget the same seed gives the same picture; it costs up
    /// to twice a failed layout.
    ///
    /// ```
    /// use levelplan::layout::{
    ///     DoorMode, DoorSpec, LayoutProblem, LinkSpec, Planner, Realise, RoomSpec, RoomTemplate,
    /// };
    /// // A room with one door cannot touch two rooms.
    /// let mut closet = RoomTemplate::rectangle("closet", 5, 5, 1);
    /// closet.doors = DoorMode::Manual(vec![DoorSpec {
    ///     from: [2, 0],
    ///     to: [3, 0],
    ///     kind: Default::default(),
    ///     socket: None,
    /// }]);
    /// let mut problem =
    ///     LayoutProblem::new(vec![closet, RoomTemplate::rectangle("room", 6, 6, 1)]);
    /// problem.rooms.push(RoomSpec::new("closet", vec![0]));
    /// for name in ["east", "west"] {
    ///     problem.rooms.push(RoomSpec::new(name, vec![1]));
    /// }
    /// problem.links.push(LinkSpec::new(0, 1, Realise::Contact));
    /// problem.links.push(LinkSpec::new(0, 2, Realise::Contact));
    /// problem.budget.retry = levelplan::layout::RetryPolicy::Attempts(2);
    /// let planner = Planner::new(problem).unwrap();
    /// assert!(planner.layout(1).is_err());
    /// let stuck = planner.deepest(1).unwrap();
    /// assert_eq!(stuck.placed(), 2);
    /// assert_eq!(stuck.stuck_next_to, ["closet"]);
    /// print!("{}", stuck.to_ascii());
    /// ```
    pub fn deepest(&self, seed: u64) -> Option<PartialLayout> {
        if self.layout(seed).is_ok() {
            return None;
        }
        self.search_deepest(seed)
    }

    /// Where the room-by-room search alone got stuck for `seed` (as [`Planner::deepest`]
    /// without first asking [`Planner::layout`], whose fallbacks may lay the level out where
    /// the search does not); `None` if the search lays it out. For reading which step of the
    /// search a known layout departs from. Not a stable interface.
    #[doc(hidden)]
    pub fn search_deepest(&self, seed: u64) -> Option<PartialLayout> {
        let deadline = match self.problem.budget.retry {
            RetryPolicy::Millis(ms) => {
                Some(std::time::Instant::now() + std::time::Duration::from_millis(ms))
            }
            RetryPolicy::Attempts(_) => None,
        };
        let whole = self.ordered().ok()?;
        let mut rec = Deepest::default();
        if whole
            .search_recording(seed, deadline, false, Some(&mut rec))
            .is_ok()
        {
            return None;
        }
        Some(self.partial_layout(&rec))
    }

    /// Where a big level's parts got stuck for `seed`: `None` if [`Planner::layout`] lays the
    /// level out or the level is not laid out in parts (levels of 50 rooms or more that come
    /// apart at bridges are; see the module docs), else the parts placed when the fitting had
    /// the most of them in place, over all its attempts, and the joint room of the part that
    /// found no place there, with the placed room it must touch; or, where a part found no
    /// layout of its own (the error says so), where the search for that part got stuck
    /// (without its stand-ins, if it has any). This is where a failed big
    /// level usually went wrong: [`Planner::deepest`] shows the room-by-room search it falls
    /// back on. The fitting runs again under the same budget (so under an attempt budget the
    /// same seed gives the same picture); it costs up to twice a failed layout. Under a time
    /// budget ([`RetryPolicy::Millis`]) only the first cut's parts are pictured, as only they
    /// are fitted then; under a count of attempts, the last cut's.
    ///
    /// ```
    /// use levelplan::layout::{LayoutProblem, LinkSpec, Planner, Realise, RoomSpec, RoomTemplate};
    /// // A path of 60 rooms ending in a 3 x 3 cell (one door a side) linked to five rooms.
    /// let mut problem = LayoutProblem::new(vec![
    ///     RoomTemplate::rectangle("room", 6, 6, 1),
    ///     RoomTemplate::rectangle("cell", 3, 3, 1),
    /// ]);
    /// for r in 0..60 {
    ///     problem.rooms.push(RoomSpec::new(&format!("r{r}"), vec![0]));
    ///     if r > 0 {
    ///         problem.links.push(LinkSpec::new(r - 1, r, Realise::Contact));
    ///     }
    /// }
    /// problem.rooms.push(RoomSpec::new("cell", vec![1]));
    /// problem.links.push(LinkSpec::new(59, 60, Realise::Contact));
    /// for k in 0..4 {
    ///     problem.rooms.push(RoomSpec::new(&format!("leaf{k}"), vec![0]));
    ///     problem.links.push(LinkSpec::new(60, 61 + k, Realise::Contact));
    /// }
    /// problem.budget.retry = levelplan::layout::RetryPolicy::Attempts(2);
    /// let planner = Planner::new(problem).unwrap();
    /// assert!(planner.layout(0).is_err());
    /// let stuck = planner.deepest_parts(0).unwrap();
    /// assert!(stuck.placed() > 0);
    /// print!("{}", stuck.to_ascii());
    /// ```
    pub fn deepest_parts(&self, seed: u64) -> Option<PartialLayout> {
        self.parts.as_ref()?;
        if self.layout(seed).is_ok() {
            return None;
        }
        let start = std::time::Instant::now();
        let mut picture = None;
        // The fitting's share of a time budget, as in a layout; under one a layout fits the
        // first cut's parts only (the room-by-room search gets the rest of the time), so only
        // that cut is pictured.
        let (deadline, cuts) = match self.problem.budget.retry {
            RetryPolicy::Millis(ms) => (
                Some(start + std::time::Duration::from_millis(parts_end_at(ms))),
                1,
            ),
            RetryPolicy::Attempts(_) => (None, usize::MAX),
        };
        for parts in self.cuts().take(cuts) {
            let mut rec = Deepest::default();
            let result = self.assemble(seed, parts, deadline, Some(&mut rec));
            // As in a layout, a part whose searches the share cut short sends it on.
            let share_spent = past(deadline);
            picture = match result {
                Ok(_) => return None,
                Err((_, Some(k))) if !share_spent => return self.part_deepest(&parts[k], seed),
                Err(_) => (!rec.placed.is_empty()).then(|| self.partial_layout(&rec)),
            };
        }
        picture
    }

    /// The cuts of a big level into parts that a layout fits together in turn: the first
    /// (small pieces merged up to a few rooms a part), then, when its parts do not fit and
    /// the room-by-room search fails too, a second one that keeps every piece of up to
    /// [`super::parts::HANGING_ROOMS`] rooms in the part it hangs off, if that changes the
    /// cut. None for a level laid out room by room.
    pub(super) fn cuts(&self) -> impl Iterator<Item = &[super::parts::Part]> {
        let first = self.parts.as_deref();
        let second = || {
            self.merged_parts
                .get_or_init(|| {
                    let first = self.parts.as_ref()?;
                    let second = self.cut_into_parts(super::parts::HANGING_ROOMS)?;
                    (second.len() < first.len()).then_some(second)
                })
                .as_deref()
        };
        // The second cut is made only when the iteration reaches it (after the room-by-room
        // search, see `layout_from`).
        let then = first.map(|_| ()).into_iter().filter_map(move |()| second());
        first.into_iter().chain(then)
    }

    /// Where the search for a part with no layout of its own got stuck (the part without its
    /// stand-ins, if it has any, as the level would hold it), in the level's rooms and links.
    fn part_deepest(&self, part: &super::parts::Part, seed: u64) -> Option<PartialLayout> {
        let bare = part.without_stand_ins();
        let stuck = bare.as_ref().unwrap_or(&part.planner).deepest(seed)?;
        let mut rooms = vec![None; self.problem.rooms.len()];
        for (i, room) in stuck.rooms.into_iter().enumerate() {
            if let Some(&r) = part.rooms.get(i) {
                rooms[r] = room;
            }
        }
        let corridors = stuck
            .corridors
            .into_iter()
            .filter_map(|(l, cells)| {
                let level = *part.links.get(l)?;
                (level != usize::MAX).then_some((level, cells))
            })
            .collect();
        Some(PartialLayout {
            rooms,
            corridors,
            stuck: stuck.stuck,
            stuck_next_to: stuck.stuck_next_to,
        })
    }

    /// The picture of a search's deepest point.
    fn partial_layout(&self, rec: &Deepest) -> PartialLayout {
        let stuck = rec.next;
        let name = |r: usize| self.problem.rooms[r].name.clone();
        PartialLayout {
            rooms: (0..self.problem.rooms.len())
                .map(|r| {
                    rec.placed
                        .get(r)
                        .copied()
                        .flatten()
                        .map(|(s, p)| self.placed_room(r, s, p))
                })
                .collect(),
            corridors: rec
                .corridors
                .iter()
                .map(|c| (c.link, c.cells.clone()))
                .collect(),
            stuck: name(stuck),
            stuck_next_to: self.adj[stuck]
                .iter()
                .map(|&(nb, _)| nb)
                .filter(|&nb| rec.placed.get(nb).copied().flatten().is_some())
                .map(name)
                .collect(),
        }
    }

    /// [`Planner::search`], recording its deepest state in `record` if given; with
    /// `first_stops` (a search that follows stages which already made attempts, such as the
    /// room-by-room search after a big level's cuts) its first attempt too ends where
    /// `deadline` passes, so that the layout ends on time.
    pub(super) fn search_recording(
        &self,
        seed: u64,
        deadline: Option<std::time::Instant>,
        first_stops: bool,
        mut record: Option<&mut Deepest>,
    ) -> Result<(State, u32), LayoutError> {
        let mut rng = seed::stream(seed, "layout");
        let n = self.problem.rooms.len();
        let mut failures = vec![0u32; n];
        let mut reasons: Vec<u8> = vec![0; n];
        let mut attempt = 0u32;
        let mut carry: Option<Box<Resume>> = None;
        let (mut best_depth, mut back) = (0usize, 2usize);
        loop {
            if !self.attempts_left(attempt, deadline) {
                break;
            }
            attempt += 1;
            // Every attempt but a stage's first (which it makes whatever the time) ends where
            // the deadline passes, so that a long attempt started just before it does not
            // overrun the budget.
            let stop = deadline.filter(|_| attempt > 1 || first_stops);
            match self.attempt(
                &mut rng,
                &mut failures,
                &mut reasons,
                carry.take(),
                stop,
                record.as_deref_mut(),
            ) {
                Ok(state) => return Ok((state, attempt)),
                // Out of steps: the next attempt keeps the rooms placed well before the
                // deepest point this one reached, and cuts back further each time it gets no
                // deeper; from scratch once the cut reaches the first room.
                Err(Some(mut resume)) => {
                    let deepest = resume.cut;
                    if deepest > best_depth {
                        (best_depth, back) = (deepest, 2);
                    } else {
                        back *= 2;
                    }
                    let cut = deepest.saturating_sub(back).min(resume.frames.len() - 1);
                    if cut > 0 && self.big {
                        resume.cut = cut;
                        carry = Some(resume);
                    } else {
                        (best_depth, back) = (0, 2);
                    }
                }
                Err(None) => (best_depth, back) = (0, 2),
            }
        }
        let worst = (0..n).max_by_key(|&r| (failures[r], n - r)).unwrap_or(0);
        let step = self.steps.iter().find(|s| s.room == worst);
        let nbs: Vec<String> = step
            .map(|s| {
                s.earlier
                    .iter()
                    .map(|&(nb, _)| format!("`{}`", self.problem.rooms[nb].name))
                    .collect()
            })
            .unwrap_or_default();
        let constraint = match reasons[worst] {
            2 => format!(
                "no corridor of the allowed length could be routed from `{}`",
                self.problem.rooms[worst].name
            ),
            _ if nbs.len() >= 2 => format!(
                "no free position for `{}` touching {} at once",
                self.problem.rooms[worst].name,
                nbs.join(" and ")
            ),
            _ => format!(
                "no free position for `{}` next to {}",
                self.problem.rooms[worst].name,
                nbs.first().cloned().unwrap_or_else(|| "the start".into())
            ),
        };
        Err(LayoutError::NoLayout {
            attempts: attempt,
            room: self.problem.rooms[worst].name.clone(),
            composite: self.composite_label(worst),
            failures: failures[worst],
            constraint,
        })
    }

    /// The earlier steps step `i`'s candidates depend on: those of its placed neighbours and
    /// of its targets (perhaps some twice). A frame's conflict set is these and the steps in
    /// its `conflict` list.
    fn base_conflicts(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let step = &self.steps[i];
        step.earlier
            .iter()
            .map(|&(nb, _)| self.step_of[nb])
            .chain(step.targets.iter().map(|&(t, _, _)| self.step_of[t]))
            .filter(move |&j| j < i)
    }

    /// Whether step `j` is in the conflict set of step `i`, whose frame lists `extra`.
    #[inline]
    fn in_conflict(&self, i: usize, extra: &[usize], j: usize) -> bool {
        extra.contains(&j) || self.base_conflicts(i).any(|b| b == j)
    }

    /// One attempt: depth first over the room order with conflict-directed backjumping (a room
    /// with no position left sends the search back to the latest room among those its
    /// candidates depended on or collided with). It ends without a layout where `stop` passes
    /// (the clock is read every [`CLOCK_EVERY`] tries).
    pub(super) fn attempt<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        failures: &mut [u32],
        reasons: &mut [u8],
        resume: Option<Box<Resume>>,
        stop: Option<std::time::Instant>,
        mut record: Option<&mut Deepest>,
    ) -> Result<State, Option<Box<Resume>>> {
        let n = self.steps.len();
        let budget = self.problem.budget;
        let (mut frames, mut st, from) = match resume.map(|r| *r) {
            Some(Resume {
                mut frames,
                mut state,
                cut,
            }) => {
                // Undo everything from step `cut` on; that step starts over with fresh
                // candidates.
                while frames.len() > cut {
                    let k = frames.len() - 1;
                    let f = frames.pop().expect("len checked");
                    self.unplace(
                        &mut state,
                        self.steps[k].room,
                        f.corridors,
                        &f.extra,
                        &f.rerouted,
                    );
                }
                let corridors = state.corridors.len();
                frames.push(self.frame(rng, &state, cut, corridors));
                (frames, state, cut)
            }
            None => {
                let st = State {
                    placed: vec![None; self.problem.rooms.len()],
                    index: RTree::new(),
                    corridors: Vec::new(),
                    witness: vec![None; self.problem.links.len()],
                };
                let mut frames: Vec<Frame> = Vec::with_capacity(n);
                frames.push(self.frame(rng, &st, 0, 0));
                (frames, st, 0)
            }
        };
        let mut steps_left = u64::from(budget.steps_per_room) * (n - from) as u64;
        let steps_given = steps_left;
        let mut deepest = frames.len();
        loop {
            if let Some(rec) = record.as_deref_mut()
                && frames.len() > rec.depth
            {
                rec.depth = frames.len();
                rec.placed.clone_from(&st.placed);
                rec.corridors.clone_from(&st.corridors);
                rec.next = self.steps[frames.len() - 1].room;
            }
            deepest = deepest.max(frames.len());
            let i = frames.len() - 1;
            let room = self.steps[i].room;
            let mut placed = false;
            {
                let f = &mut frames[i];
                loop {
                    if f.next == f.cands.len() {
                        let Some(s) = f.shapes_left.take() else { break };
                        f.cands = self.candidates(rng, &st, i, &[s]);
                        f.next = 0;
                        continue;
                    }
                    if f.failures > budget.failures_per_room {
                        break;
                    }
                    if steps_left == 0 {
                        failures[room] += 1;
                        count_tries(steps_given);
                        return Err(Some(Box::new(Resume {
                            frames,
                            state: st,
                            cut: deepest - 1,
                        })));
                    }
                    if stop.is_some()
                        && (steps_given - steps_left).is_multiple_of(CLOCK_EVERY)
                        && past(stop)
                    {
                        count_tries(steps_given - steps_left);
                        return Err(None);
                    }
                    steps_left -= 1;
                    let c = f.cands[f.next];
                    f.next += 1;
                    match self.try_place(&mut st, i, c, f.corridors) {
                        Ok((extra, rerouted)) => {
                            f.extra = extra;
                            f.rerouted = rerouted;
                            placed = true;
                            break;
                        }
                        Err((reason, culprit)) => {
                            reasons[room] = reasons[room].max(reason);
                            let j = match culprit {
                                Some(q) => self.step_of[q],
                                None if reason == 2 => i.saturating_sub(1),
                                None => usize::MAX,
                            };
                            if j < i && !self.in_conflict(i, &f.conflict, j) {
                                f.conflict.push(j);
                            }
                        }
                    }
                }
            }
            if placed {
                if i + 1 == n {
                    count_tries(steps_given - steps_left);
                    return Ok(st);
                }
                let before = st.corridors.len();
                let frame = self.frame(rng, &st, i + 1, before);
                frames.push(frame);
                continue;
            }
            failures[room] += 1;
            let dead = frames.pop().expect("a frame is open");
            if i == 0 {
                count_tries(steps_given - steps_left);
                return Err(None);
            }
            // Jump back to the latest step in the conflict set.
            let target = (dead.conflict.iter().copied())
                .chain(self.base_conflicts(i))
                .max()
                .unwrap_or(i - 1);
            while frames.len() > target + 1 {
                let k = frames.len() - 1;
                let f = frames.pop().expect("len checked");
                self.unplace(
                    &mut st,
                    self.steps[k].room,
                    f.corridors,
                    &f.extra,
                    &f.rerouted,
                );
            }
            let prev = self.steps[target].room;
            let f = &mut frames[target];
            let extra = std::mem::take(&mut f.extra);
            let rerouted = std::mem::take(&mut f.rerouted);
            self.unplace(&mut st, prev, f.corridors, &extra, &rerouted);
            f.failures += 1;
            for j in dead.conflict.into_iter().chain(self.base_conflicts(i)) {
                if j < target && !self.in_conflict(target, &f.conflict, j) {
                    f.conflict.push(j);
                }
            }
        }
    }
}

/// Adds `hint`, if any, to an error's constraint, after a semicolon.
fn push_hint(constraint: &mut String, hint: Option<String>) {
    if let Some(hint) = hint {
        constraint.push_str("; ");
        constraint.push_str(&hint);
    }
}
