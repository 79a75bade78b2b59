//! The sector pipeline's first steps (BSP geometry, the 3 x 3 cleanup, the sector graph),
//! checked against the spec's invariants by plain scans of the field.

use std::collections::BTreeSet;

use levelplan::recipes::sectors::{BspParams, Field, bsp_geometry, clean_up, sector_graph};
use proptest::prelude::*;

/// Brute force: every cell of a sector lies in a 3 x 3 block of that sector.
fn every_cell_in_a_block(field: &Field) -> Result<(), String> {
    for ((x, y), s) in field.iter() {
        let Some(s) = *s else { continue };
        let found = (0..3i64).any(|oy| {
            (0..3i64).any(|ox| {
                (0..3i64).all(|dy| {
                    (0..3i64).all(|dx| {
                        field.get(x as i64 - ox + dx, y as i64 - oy + dy) == Some(&Some(s))
                    })
                })
            })
        });
        if !found {
            return Err(format!(
                "cell ({x}, {y}) of sector {s} is in no 3 x 3 block"
            ));
        }
    }
    Ok(())
}

/// Brute force: the sectors each cell touches, as pairs.
fn touching_pairs(field: &Field) -> BTreeSet<(u32, u32)> {
    let mut out = BTreeSet::new();
    for ((x, y), s) in field.iter() {
        let Some(s) = *s else { continue };
        for (nx, ny) in [(x as i64 + 1, y as i64), (x as i64, y as i64 + 1)] {
            if let Some(&Some(o)) = field.get(nx, ny)
                && o != s
            {
                out.insert((s.min(o), s.max(o)));
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    #[test]
    fn bsp_levels_keep_the_spec_invariants(
        seed in any::<u64>(), width in 30usize..90, height in 24usize..70, depth in 1u32..6,
    ) {
        let params = BspParams { width, height, depth, ..BspParams::default() };
        let mut field = bsp_geometry(&params, &mut levelplan::seed::stream(seed, "sectors"));
        prop_assert_eq!((field.width(), field.height()), (width, height));
        let before = field.iter().filter(|(_, s)| s.is_some()).count();
        prop_assert!(before > 0);
        clean_up(&mut field);
        // Step 2-3: no sector part narrower than 3 x 3.
        every_cell_in_a_block(&field).map_err(TestCaseError::fail)?;
        let sectors = sector_graph(&mut field);
        // Step 4-5: one link per touching pair of kept sectors, and nothing else; connected.
        let pairs = touching_pairs(&field);
        let links: BTreeSet<(u32, u32)> = sectors
            .graph
            .links()
            .map(|(_, a, b, _)| {
                let (sa, sb) = (sectors.sectors[a.0 as usize], sectors.sectors[b.0 as usize]);
                (sa.min(sb), sa.max(sb))
            })
            .collect();
        prop_assert_eq!(&links, &pairs);
        prop_assert_eq!(sectors.graph.link_count(), pairs.len());
        prop_assert_eq!(levelplan::graph::component_count(&sectors.graph), 1);
        let present: BTreeSet<u32> = field.iter().filter_map(|(_, s)| *s).collect();
        prop_assert_eq!(present, sectors.sectors.iter().copied().collect::<BTreeSet<_>>());
        // Every contact is a pair of side-by-side cells of the two sectors.
        for (link, cells) in &sectors.contacts {
            let (a, b) = sectors.graph.endpoints(levelplan::LinkId(*link)).unwrap();
            let (sa, sb) = (sectors.sectors[a.0 as usize], sectors.sectors[b.0 as usize]);
            prop_assert!(!cells.is_empty());
            for &((x0, y0), (x1, y1)) in cells {
                prop_assert_eq!(x0.abs_diff(x1) + y0.abs_diff(y1), 1);
                let got: BTreeSet<u32> = [field.get(x0 as i64, y0 as i64), field.get(x1 as i64, y1 as i64)]
                    .into_iter()
                    .filter_map(|c| c.copied().flatten())
                    .collect();
                prop_assert_eq!(got, BTreeSet::from([sa, sb]));
            }
        }
        // Same seed, same field.
        let mut again = bsp_geometry(&params, &mut levelplan::seed::stream(seed, "sectors"));
        clean_up(&mut again);
        sector_graph(&mut again);
        prop_assert_eq!(again, field);
    }
}

#[test]
fn the_default_field_has_rooms_and_corridor_sections() {
    // A guard for the property above: fields are not trivial.
    let mut sizes = Vec::new();
    for seed in 0..20 {
        let mut field = bsp_geometry(
            &BspParams::default(),
            &mut levelplan::seed::stream(seed, "sectors"),
        );
        clean_up(&mut field);
        let sectors = sector_graph(&mut field);
        sizes.push((sectors.graph.room_count(), sectors.graph.link_count()));
    }
    let rooms: usize = sizes.iter().map(|s| s.0).sum();
    assert!(rooms / sizes.len() >= 8, "{sizes:?}");
    assert!(
        sizes.iter().all(|&(r, l)| l + 1 >= r),
        "connected: {sizes:?}"
    );
    // Loops happen (corridors cross rooms and each other).
    assert!(sizes.iter().any(|&(r, l)| l >= r), "{sizes:?}");
}

#[test]
fn a_sliver_between_two_sectors_is_cleaned_up() {
    // A 1-wide sector between two 3-wide ones: no cell of it lies in a 3 x 3 block of its own;
    // counting the sliver's other cells as the neighbour's, each fits sector 0 (the first
    // neighbour that takes it), so the sliver joins it; the 3-wide sectors stay whole.
    let mut field: Field = levelplan::tiles::Grid::new(10, 5, None);
    for y in 0..5 {
        for x in 0..3 {
            field.set(x, y, Some(0));
        }
        field.set(3, y, Some(1));
        for x in 4..7 {
            field.set(x, y, Some(2));
        }
    }
    clean_up(&mut field);
    every_cell_in_a_block(&field).unwrap();
    assert!(field.iter().all(|(_, s)| *s != Some(1)));
    for y in 0..5 {
        assert_eq!(field.get(3, y), Some(&Some(0)));
        assert_eq!(field.get(0, y), Some(&Some(0)));
        assert_eq!(field.get(6, y), Some(&Some(2)));
    }
    assert_eq!(field.iter().filter(|(_, s)| s.is_some()).count(), 35);
    // A 2-wide sector alone is wall: nothing can take it.
    let mut field: Field = levelplan::tiles::Grid::new(6, 2, Some(3));
    clean_up(&mut field);
    assert!(field.iter().all(|(_, s)| s.is_none()));
    // A cell that fits a neighbour is attached: a 4-wide sector 0 with one cell of sector 5
    // sticking into it.
    let mut field: Field = levelplan::tiles::Grid::new(4, 4, Some(0));
    field.set(1, 1, Some(5));
    clean_up(&mut field);
    assert!(field.iter().all(|(_, s)| *s == Some(0)));
}
