//! `levelplan stats`: a recipe's expressive range over many seeds. Levels are made in parallel
//! (each seed is independent), their metrics (`levelplan::stats`) written one line per seed in
//! seed order to `levels.jsonl` as they come (so Ctrl-C keeps what was written), then
//! `summary.json`, a histogram per metric and heatmaps of metric pairs as SVG, and an
//! `index.html` showing them with the summary table; `--compare` overlays an earlier run.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use levelplan::Recipe;
use levelplan::stats::{METRICS, Summary, metrics};
use serde_json::{Value, json};

use crate::RecipeArgs;

/// `levelplan stats` options.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct StatsArgs {
    #[command(flatten)]
    pub(crate) recipe: RecipeArgs,
    /// How many levels (seeds FROM to FROM + N - 1).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub(crate) seeds: u64,
    /// The first seed.
    #[arg(long, default_value_t = 0, value_name = "FROM")]
    pub(crate) from: u64,
    /// The folder to write into (made if missing).
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,
    /// An earlier run's folder, overlaid on every chart and beside every figure.
    #[arg(long, value_name = "DIR")]
    pub(crate) compare: Option<PathBuf>,
    /// Threads (default: every core). The output does not depend on it.
    #[arg(long, value_name = "K")]
    pub(crate) threads: Option<usize>,
}

/// Pairs of metrics drawn as heatmaps.
const PAIRS: &[(&str, &str)] = &[
    ("critical_path", "backtracking"),
    ("loops", "dead_ends"),
    ("rooms", "boss_depth"),
    ("locks", "lock_nesting"),
    ("critical_path", "walk_length"),
    ("floor_density", "corridor_share"),
];

/// One level's line.
struct Line {
    seed: u64,
    text: String,
    values: Option<Vec<f64>>,
    time_ms: f64,
    error: Option<String>,
}

fn make_line(recipe: &dyn Recipe, seed: u64) -> Line {
    let start = Instant::now();
    let made = recipe.generate(seed);
    let time_ms = start.elapsed().as_secs_f64() * 1000.0;
    match made {
        Ok(level) => {
            let m = metrics(&level);
            let values: Vec<f64> = METRICS
                .iter()
                .map(|(name, _)| m.get(name).unwrap_or(f64::NAN))
                .collect();
            let map: serde_json::Map<String, Value> = METRICS
                .iter()
                .zip(&values)
                .map(|((name, _), &v)| (name.to_string(), number(v)))
                .collect();
            let text = json!({"seed": seed, "ok": true, "time_ms": round(time_ms), "metrics": map})
                .to_string();
            Line {
                seed,
                text,
                values: Some(values),
                time_ms,
                error: None,
            }
        }
        Err(e) => {
            let error = e.to_string();
            let text =
                json!({"seed": seed, "ok": false, "time_ms": round(time_ms), "error": error})
                    .to_string();
            Line {
                seed,
                text,
                values: None,
                time_ms,
                error: Some(error),
            }
        }
    }
}

fn number(v: f64) -> Value {
    if v.is_finite() { json!(v) } else { Value::Null }
}

fn round(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// Runs `stats`.
pub(crate) fn run(args: &StatsArgs, recipe: Box<dyn Recipe>) -> Result<ExitCode, String> {
    if args.seeds == 0 {
        return Err("--seeds 0: give at least one seed".into());
    }
    let end = args
        .from
        .checked_add(args.seeds)
        .ok_or("--from + --seeds is past the last seed")?;
    let compare = match &args.compare {
        Some(dir) => Some(read_summary(dir)?),
        None => None,
    };
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("{}: cannot make the folder: {e}", args.out.display()))?;
    let lines_path = args.out.join("levels.jsonl");
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(&lines_path)
            .map_err(|e| format!("{}: cannot write: {e}", lines_path.display()))?,
    );
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let progress = std::io::stderr().is_terminal();
    let started = Instant::now();
    let next = AtomicU64::new(args.from);
    let (tx, rx) = std::sync::mpsc::channel::<Line>();
    let mut columns: Vec<Vec<f64>> = vec![Vec::new(); METRICS.len()];
    let mut times = Vec::new();
    let mut failures: BTreeMap<String, usize> = BTreeMap::new();
    let mut written = 0u64;
    let recipe = &*recipe;
    std::thread::scope(|scope| -> Result<(), String> {
        for _ in 0..threads {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= end || tx.send(make_line(recipe, seed)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Lines come in any order; they are written in seed order.
        let mut waiting: BTreeMap<u64, Line> = BTreeMap::new();
        let mut expect = args.from;
        let mut shown = Instant::now();
        for line in rx {
            waiting.insert(line.seed, line);
            while let Some(line) = waiting.remove(&expect) {
                writeln!(file, "{}", line.text)
                    .map_err(|e| format!("{}: cannot write: {e}", lines_path.display()))?;
                match (&line.values, &line.error) {
                    (Some(values), _) => {
                        for (column, &v) in columns.iter_mut().zip(values) {
                            column.push(v);
                        }
                    }
                    (None, Some(error)) => {
                        *failures.entry(reason(error)).or_default() += 1;
                    }
                    _ => {}
                }
                times.push(line.time_ms);
                written += 1;
                expect += 1;
            }
            file.flush()
                .map_err(|e| format!("{}: cannot write: {e}", lines_path.display()))?;
            if progress && shown.elapsed() > Duration::from_millis(200) {
                shown = Instant::now();
                let rate = written as f64 / started.elapsed().as_secs_f64().max(1e-9);
                let left = (args.seeds - written) as f64 / rate.max(1e-9);
                eprint!(
                    "\r  {written}/{} levels, {rate:.0} per second, {left:.0} s left   ",
                    args.seeds
                );
            }
        }
        Ok(())
    })?;
    if progress {
        eprintln!();
    }
    let summary = summarise(args, recipe.name(), &columns, &times, &failures);
    let summary_path = args.out.join("summary.json");
    std::fs::write(
        &summary_path,
        serde_json::to_string_pretty(&summary).expect("a summary serialises") + "\n",
    )
    .map_err(|e| format!("{}: cannot write: {e}", summary_path.display()))?;
    let mut charts = Vec::new();
    for (i, (name, what)) in METRICS.iter().enumerate() {
        let Some(s) = Summary::of(&columns[i]) else {
            continue;
        };
        let other = compare
            .as_ref()
            .and_then(|c| c["metrics"].get(*name))
            .and_then(|v| serde_json::from_value::<Summary>(v.clone()).ok());
        let file = format!("hist_{name}.svg");
        write(
            &args.out.join(&file),
            &histogram_svg(name, what, &s, other.as_ref()),
        )?;
        charts.push(file);
    }
    let index_of = |n: &str| METRICS.iter().position(|(m, _)| *m == n);
    for &(x, y) in PAIRS {
        let (Some(i), Some(j)) = (index_of(x), index_of(y)) else {
            continue;
        };
        if let Some(svg) = heatmap_svg(x, y, &columns[i], &columns[j]) {
            let file = format!("heat_{x}_x_{y}.svg");
            write(&args.out.join(&file), &svg)?;
            charts.push(file);
        }
    }
    write(
        &args.out.join("index.html"),
        &index_html(&summary, compare.as_ref(), &charts),
    )?;
    let made = columns.first().map_or(0, Vec::len);
    println!(
        "{} levels of {} (seeds {}..{}) in {:.2} s on {threads} threads: {made} made, {} failed; \
         wrote {}",
        args.seeds,
        recipe.name(),
        args.from,
        end - 1,
        started.elapsed().as_secs_f64(),
        args.seeds as usize - made,
        args.out.join("index.html").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// A failure's reason, without the numbers that differ from level to level.
fn reason(error: &str) -> String {
    let mut out: String = error
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    while out.contains("##") {
        out = out.replace("##", "#");
    }
    out.chars().take(160).collect()
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

fn read_summary(dir: &Path) -> Result<Value, String> {
    let path = dir.join("summary.json");
    let text = levelplan::read_text_file(&path)
        .map_err(|e| format!("--compare {}: cannot read: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("--compare {}: not a stats summary: {e}", path.display()))
}

fn summarise(
    args: &StatsArgs,
    recipe: &str,
    columns: &[Vec<f64>],
    times: &[f64],
    failures: &BTreeMap<String, usize>,
) -> Value {
    let metrics: serde_json::Map<String, Value> = METRICS
        .iter()
        .zip(columns)
        .filter_map(|((name, _), column)| {
            Summary::of(column).map(|s| (name.to_string(), serde_json::to_value(s).unwrap()))
        })
        .collect();
    json!({
        "recipe": recipe,
        "from": args.from,
        "seeds": args.seeds,
        "made": columns.first().map_or(0, Vec::len),
        "failures": failures.values().sum::<usize>(),
        "failure_reasons": failures,
        "time_ms": Summary::of(times),
        "metrics": metrics,
    })
}

fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn fmt(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e9 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// A histogram as SVG: bars of this run, and the other run's as an outline.
fn histogram_svg(name: &str, what: &str, s: &Summary, other: Option<&Summary>) -> String {
    let (w, h, left, top, bottom) = (480.0, 260.0, 50.0, 40.0, 40.0);
    let plot_w = w - left - 20.0;
    let plot_h = h - top - bottom;
    // Shared x range and bar width.
    let (lo, hi) = other.map_or((s.min, s.max + s.bin_width), |o| {
        (
            s.min.min(o.min),
            (s.max + s.bin_width).max(o.max + o.bin_width),
        )
    });
    let span = (hi - lo).max(1e-9);
    let x = |v: f64| left + (v - lo) / span * plot_w;
    let share = |count: usize, total: usize| count as f64 / total.max(1) as f64;
    let top_share = s
        .histogram
        .iter()
        .map(|&(_, c)| share(c, s.count))
        .chain(
            other
                .into_iter()
                .flat_map(|o| o.histogram.iter().map(|&(_, c)| share(c, o.count))),
        )
        .fold(0.0, f64::max)
        .max(1e-9);
    let y = |f: f64| top + plot_h - f / top_share * plot_h;
    let mut out = String::new();
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11"><rect width="{w}" height="{h}" fill="#ffffff"/><text x="{left}" y="16" font-size="13" font-weight="bold">{}</text><text x="{left}" y="30" fill="#555555">{}</text>"##,
        esc(name),
        esc(what)
    );
    for &(edge, count) in &s.histogram {
        let (x0, x1) = (x(edge), x(edge + s.bin_width));
        let _ = write!(
            out,
            r##"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="#4a7fc1"/>"##,
            x0,
            y(share(count, s.count)),
            (x1 - x0 - 1.0).max(0.5),
            top + plot_h - y(share(count, s.count))
        );
    }
    if let Some(o) = other {
        for &(edge, count) in &o.histogram {
            let (x0, x1) = (x(edge), x(edge + o.bin_width));
            let _ = write!(
                out,
                r##"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="none" stroke="#d9534f" stroke-width="1.5"/>"##,
                x0,
                y(share(count, o.count)),
                (x1 - x0 - 1.0).max(0.5),
                top + plot_h - y(share(count, o.count))
            );
        }
    }
    let _ = write!(
        out,
        r##"<line x1="{left}" y1="{0:.2}" x2="{1:.2}" y2="{0:.2}" stroke="#333333"/><text x="{left}" y="{2:.2}">{3}</text><text x="{1:.2}" y="{2:.2}" text-anchor="end">{4}</text><text x="{5:.2}" y="{2:.2}" text-anchor="middle" fill="#555555">mean {6}, median {7}{8}</text><text x="8" y="{9:.2}" fill="#555555">{10:.0}%</text></svg>"##,
        top + plot_h,
        left + plot_w,
        top + plot_h + 16.0,
        fmt(lo),
        fmt(hi),
        left + plot_w / 2.0,
        fmt(s.mean),
        fmt(s.p50),
        other.map_or(String::new(), |o| format!(
            " (other run, red: mean {})",
            fmt(o.mean)
        )),
        top + 10.0,
        top_share * 100.0
    );
    out
}

/// A 2D histogram of two metrics as SVG: a cell per pair of bins, darker for more levels.
fn heatmap_svg(xn: &str, yn: &str, xs: &[f64], ys: &[f64]) -> Option<String> {
    let pairs: Vec<(f64, f64)> = xs
        .iter()
        .zip(ys)
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .map(|(&a, &b)| (a, b))
        .collect();
    let sx = Summary::of(&pairs.iter().map(|p| p.0).collect::<Vec<_>>())?;
    let sy = Summary::of(&pairs.iter().map(|p| p.1).collect::<Vec<_>>())?;
    let (nx, ny) = (sx.histogram.len(), sy.histogram.len());
    let mut counts = vec![vec![0usize; nx]; ny];
    let bin = |v: f64, s: &Summary, n: usize| (((v - s.min) / s.bin_width) as usize).min(n - 1);
    for &(a, b) in &pairs {
        counts[bin(b, &sy, ny)][bin(a, &sx, nx)] += 1;
    }
    let most = counts.iter().flatten().copied().max().unwrap_or(1).max(1);
    let (w, h, left, top, bottom) = (480.0, 400.0, 60.0, 36.0, 44.0);
    let (cw, ch) = (
        (w - left - 20.0) / nx as f64,
        (h - top - bottom) / ny as f64,
    );
    let mut out = String::new();
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11"><rect width="{w}" height="{h}" fill="#ffffff"/><text x="{left}" y="16" font-size="13" font-weight="bold">{} x {}</text><text x="{left}" y="30" fill="#555555">{} levels; darker: more levels</text>"##,
        esc(xn),
        esc(yn),
        pairs.len()
    );
    for (row, line) in counts.iter().enumerate() {
        for (col, &c) in line.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let t = (c as f64 / most as f64).sqrt();
            let shade = (235.0 - 200.0 * t) as u8;
            let _ = write!(
                out,
                r##"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="rgb({shade},{shade},255)"><title>{c}</title></rect>"##,
                left + col as f64 * cw,
                top + (ny - 1 - row) as f64 * ch,
                cw,
                ch
            );
        }
    }
    let _ = write!(
        out,
        r##"<text x="{left}" y="{0:.2}">{1}</text><text x="{2:.2}" y="{0:.2}" text-anchor="end">{3}</text><text x="{4:.2}" y="{0:.2}" text-anchor="middle">{5}</text><text x="{6:.2}" y="{7:.2}" text-anchor="end">{8}</text><text x="{6:.2}" y="{9:.2}" text-anchor="end">{10}</text><text x="12" y="{11:.2}" transform="rotate(-90 12 {11:.2})" text-anchor="middle">{12}</text></svg>"##,
        h - bottom + 16.0,
        fmt(sx.min),
        w - 20.0,
        fmt(sx.max),
        left + (w - left - 20.0) / 2.0,
        esc(xn),
        left - 4.0,
        h - bottom,
        fmt(sy.min),
        top + 10.0,
        fmt(sy.max),
        top + (h - top - bottom) / 2.0,
        esc(yn)
    );
    Some(out)
}

fn index_html(summary: &Value, compare: Option<&Value>, charts: &[String]) -> String {
    let mut rows = String::new();
    for (name, what) in METRICS {
        let Some(s) = summary["metrics"].get(*name) else {
            continue;
        };
        let cell = |v: &Value| v.as_f64().map_or("-".to_string(), fmt);
        let other = compare
            .and_then(|c| c["metrics"].get(*name))
            .map_or("-".to_string(), |o| cell(&o["mean"]));
        let _ = writeln!(
            rows,
            "<tr><td title=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}</tr>",
            esc(what),
            esc(name),
            cell(&s["count"]),
            cell(&s["mean"]),
            cell(&s["min"]),
            cell(&s["p10"]),
            cell(&s["p50"]),
            cell(&s["p90"]),
            cell(&s["max"]),
            if compare.is_some() {
                format!("<td>{other}</td>")
            } else {
                String::new()
            }
        );
    }
    let mut images = String::new();
    for c in charts {
        let _ = writeln!(images, "<img src=\"{}\" alt=\"{}\"/>", esc(c), esc(c));
    }
    let failures = summary["failure_reasons"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("<li>{v} × {}</li>", esc(k)))
                .collect::<String>()
        })
        .unwrap_or_default();
    format!(
        "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>levelplan stats: {recipe}</title>\n<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}td:first-child{{text-align:left}}img{{margin:4px;border:1px solid #eee}}</style>\n</head>\n<body>\n<h1>{recipe}: {made} levels (seeds {from} to {last}), {failed} failed</h1>\n<ul>{failures}</ul>\n<table>\n<tr><th>metric</th><th>levels</th><th>mean</th><th>min</th><th>p10</th><th>median</th><th>p90</th><th>max</th>{cmp}</tr>\n{rows}</table>\n<div>\n{images}</div>\n</body>\n</html>\n",
        recipe = esc(summary["recipe"].as_str().unwrap_or("?")),
        made = summary["made"],
        from = summary["from"],
        last = summary["from"].as_u64().unwrap_or(0) + summary["seeds"].as_u64().unwrap_or(1) - 1,
        failed = summary["failures"],
        cmp = if compare.is_some() {
            "<th>other run's mean</th>"
        } else {
            ""
        },
    )
}
