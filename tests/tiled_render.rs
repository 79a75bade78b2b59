//! Our maps look right in Tiled: every recipe's `.tmj`, rendered by Tiled's own `tmxrasterizer`
//! with the tileset image `generate --tmj` writes beside it, shows the palette's colours, not
//! Tiled's missing-image pattern. Skipped (with a note) where Tiled is not installed; CI installs
//! it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn palette() -> BTreeSet<[u8; 3]> {
    use levelplan::export::svg::{BACKGROUND, tile_colour};
    use levelplan::tiles::Tile;
    let parse = |hex: &str| {
        let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
        [(v >> 16) as u8, (v >> 8) as u8, v as u8]
    };
    let mut out = BTreeSet::new();
    for c in Tile::ALL
        .iter()
        .filter_map(|&t| tile_colour(t))
        .chain([BACKGROUND])
    {
        let c = parse(c);
        out.insert(c);
        out.insert(c.map(|x| (u32::from(x) * 3 / 5) as u8));
    }
    out
}

fn rgb_pixels(path: &Path) -> Vec<[u8; 3]> {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    buf[..info.buffer_size()]
        .chunks(step)
        .map(|p| [p[0], p[1], p[2]])
        .collect()
}

#[test]
fn tiled_renders_every_recipe_in_the_palette() {
    let probe = Command::new("tmxrasterizer").arg("--version").output();
    if probe.is_err() {
        eprintln!("skipped: tmxrasterizer (Debian's tiled package) is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("levelplan-tiled-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The runtime directory Qt wants, private.
    let runtime = dir.join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let palette = palette();
    for args in [
        &["--recipe", "gungeon", "--flow", "hub_spokes", "--seed", "3"][..],
        &["--recipe", "isaac", "--level", "4", "--seed", "2"][..],
        &["--recipe", "caves", "--level", "9", "--seed", "1"][..],
    ] {
        let map = dir.join(format!("{}.tmj", args[1]));
        let o = Command::new(env!("CARGO_BIN_EXE_levelplan"))
            .arg("generate")
            .args(args)
            .arg("--tmj")
            .arg(&map)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(dir.join("levelplan_tiles.png").exists());
        let picture = dir.join(format!("{}.png", args[1]));
        // The tile layer alone (Tiled draws the object layer's rooms and doors over it in
        // colours of its own), at one pixel per pixel.
        let o = Command::new("tmxrasterizer")
            .args(["--show-layer", "tiles", "--no-smoothing"])
            .arg(&map)
            .arg(&picture)
            .env("QT_QPA_PLATFORM", "offscreen")
            .env("XDG_RUNTIME_DIR", &runtime)
            .output()
            .unwrap();
        assert!(
            o.status.success() && picture.exists(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let pixels = rgb_pixels(&picture);
        let in_palette = pixels.iter().filter(|p| palette.contains(*p)).count();
        let share = in_palette as f64 / pixels.len() as f64;
        assert!(
            share > 0.99,
            "{}: only {:.1}% of the picture is in the palette",
            args[1],
            share * 100.0
        );
        // Not one colour: the tiles are drawn, not a blank.
        let distinct: BTreeSet<_> = pixels.iter().filter(|p| palette.contains(*p)).collect();
        assert!(
            distinct.len() >= 4,
            "{}: {} colours",
            args[1],
            distinct.len()
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
