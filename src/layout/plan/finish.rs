//! Finishing: a search's placed rooms and corridors turned into a [`Layout`], and the strict
//! check of a layout against the problem.

use super::*;

impl Planner {
    /// Room `r` as shape `s` at `p`, for a layout.
    pub(super) fn placed_room(&self, r: usize, s: u32, p: Point) -> PlacedRoom {
        let spec = &self.problem.rooms[r];
        let shape = &self.set.shapes[s as usize];
        PlacedRoom {
            name: spec.name.clone(),
            template: shape.template,
            template_name: self.problem.templates[shape.template].name.clone(),
            transform: shape.transform,
            position: p - shape.shift,
            min: p,
            outline: shape.outline.iter().map(|&q| q + p).collect(),
            corridor: spec.corridor,
        }
    }

    pub(super) fn finish(&self, seed: u64, attempts: u32, st: State) -> Layout {
        let nrooms = self.problem.rooms.len();
        let mut rooms = Vec::with_capacity(nrooms);
        for r in 0..nrooms {
            let (s, p) = st.placed[r].expect("a finished layout places every room");
            rooms.push(self.placed_room(r, s, p));
        }
        let mut links = Vec::with_capacity(self.problem.links.len());
        for (l, link) in self.problem.links.iter().enumerate() {
            if let Some(c) = st.corridors.iter().find(|c| c.link == l) {
                let (from_door, to_door) = if c.from_room == link.from {
                    (c.door_a, c.door_b)
                } else {
                    (c.door_b, c.door_a)
                };
                let mut cells = c.cells.clone();
                if c.from_room != link.from {
                    cells.reverse();
                }
                links.push(PlacedLink {
                    door_from: from_door,
                    door_to: to_door,
                    corridor: cells,
                });
                continue;
            }
            let (fs, fp) = st.placed[link.from].expect("placed");
            let (ts, tp) = st.placed[link.to].expect("placed");
            let t = self
                .touch(fs, ts, true, tp - fp)
                .expect("contact links touch in a finished layout");
            let d = &self.set.shapes[fs as usize].doors[t.0 as usize];
            let seg = Segment {
                a: d.a + fp,
                b: d.b + fp,
            };
            links.push(PlacedLink {
                door_from: seg,
                door_to: seg,
                corridor: Vec::new(),
            });
        }
        Layout {
            seed,
            attempts,
            rooms,
            links,
        }
    }

    /// Checks a layout against this planner's problem (see [`verify::check`]).
    pub fn check(&self, layout: &Layout) -> Result<(), verify::Violation> {
        verify::check(&self.problem, layout)
    }
}
