//! The structural views for teaching: the text view's incidence matrices and Pantelides steps,
//! the JSON report, and the self-contained HTML page checked in a real headless Chromium (the
//! DOM after its script ran: matrix cells, block outlines, legends; and a screenshot).
//!
//! Chromium is required: without it the browser test fails and says how to install it
//! (`.ci/run` installs it with apt-get). `MINIMO_CHROMIUM` may name the executable.

use std::path::{Path, PathBuf};
use std::process::Command;

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_minimo"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run minimo");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("minimo-views-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn text_view_shows_matrices_and_pantelides_steps() {
    let (code, out, err) = cli(&["structure", "examples/pendulum.mo"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Incidence matrix as stated"), "{out}");
    assert!(out.contains("Incidence matrix in BLT order"), "{out}");
    // Step 1: the length constraint alone; step 2: its derivative with the two kinematic
    // equations, short of one unknown.
    assert!(
        out.contains(
            "step 1: `x^2 + y^2 = L^2` cannot be matched: it involves no highest-derivative unknown"
        ),
        "{out}"
    );
    assert!(
        out.contains("with 2 other equation(s) it involves only the 2 highest-derivative unknown(s) {der(x), der(y)}"),
        "{out}"
    );
    assert!(
        out.contains("new unknowns: der(der(x)), der(der(y))"),
        "{out}"
    );
}

#[test]
fn json_sorted_matrix_is_block_lower_triangular() {
    let (code, out, err) = cli(&["structure", "examples/pendulum.mo", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let m = &v["incidence"];
    let rows: Vec<usize> = serde_json::from_value(m["sorted_rows"].clone()).unwrap();
    let cols: Vec<usize> = serde_json::from_value(m["sorted_cols"].clone()).unwrap();
    assert_eq!(rows.len(), 9);
    assert_eq!(cols.len(), 9);
    let mut rpos = [0; 9];
    let mut cpos = [0; 9];
    for (p, &r) in rows.iter().enumerate() {
        rpos[r] = p;
    }
    for (p, &c) in cols.iter().enumerate() {
        cpos[c] = p;
    }
    // The end of the block of each sorted position.
    let mut end = [0; 9];
    for b in m["blocks"].as_array().unwrap() {
        let (s, n) = (
            b["start"].as_u64().unwrap() as usize,
            b["size"].as_u64().unwrap() as usize,
        );
        for e in end.iter_mut().skip(s).take(n) {
            *e = s + n;
        }
    }
    let mut matched = 0;
    for e in m["entries"].as_array().unwrap() {
        let (r, c) = (
            rpos[e["row"].as_u64().unwrap() as usize],
            cpos[e["col"].as_u64().unwrap() as usize],
        );
        assert!(c < end[r], "entry right of its block: {e}");
        if e["matched"].as_bool().unwrap() {
            matched += 1;
            assert_eq!(end[r], end[c], "a matched pair lies in one block: {e}");
        }
    }
    assert_eq!(matched, 9);
    assert_eq!(v["pantelides_steps"].as_array().unwrap().len(), 2);
}

fn chromium() -> PathBuf {
    if let Ok(p) = std::env::var("MINIMO_CHROMIUM") {
        return PathBuf::from(p);
    }
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::var("PATH").unwrap_or_default().split(':') {
            let p = Path::new(dir).join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!(
        "the HTML views are tested in a headless Chromium, and none was found: install it \
         (`apt-get install -y chromium`, as .ci/run does) or set MINIMO_CHROMIUM to its path"
    );
}

fn headless(profile: &Path, extra: &[&str], page: &Path) -> std::process::Output {
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("start chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `name="value"` of every `<tag ...>` whose class attribute starts with `class_prefix`.
fn elements<'a>(dom: &'a str, tag: &str, class_prefix: &str) -> Vec<&'a str> {
    let open = format!("<{tag} class=\"{class_prefix}");
    dom.match_indices(&open)
        .map(|(i, _)| {
            let rest = &dom[i..];
            &rest[..rest.find('>').unwrap_or(rest.len())]
        })
        .collect()
}

fn attr(el: &str, name: &str) -> f64 {
    let key = format!(" {name}=\"");
    let i = el.find(&key).unwrap_or_else(|| panic!("no {name} in {el}")) + key.len();
    el[i..i + el[i..].find('"').unwrap()].parse().unwrap()
}

#[test]
fn html_page_in_headless_chromium() {
    let dir = scratch("html");
    let page = dir.join("pendulum.html");
    let (code, _, err) = cli(&[
        "structure",
        "examples/pendulum.mo",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    for remote in ["http://", "https://", "src=", "<link"] {
        let outside_svg_ns = html.replace("http://www.w3.org/2000/svg", "");
        assert!(
            !outside_svg_ns.contains(remote),
            "the page must be self-contained: {remote}"
        );
    }
    let (_, json, _) = cli(&["structure", "examples/pendulum.mo", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let n_entries = v["incidence"]["entries"].as_array().unwrap().len();
    let n_blocks = v["incidence"]["blocks"].as_array().unwrap().len();

    let profile = dir.join("profile");
    let dom = String::from_utf8(headless(&profile, &["--dump-dom"], &page).stdout).unwrap();
    assert!(
        dom.contains("data-ready=\"yes\""),
        "the page's script did not run to its end"
    );
    // The two matrices, each with one cell per incidence.
    let sorted = &dom[dom.find("id=\"matrix-sorted\"").expect("sorted matrix")..];
    let stated = &dom[dom.find("id=\"matrix-stated\"").expect("stated matrix")..];
    let sorted = &sorted[..sorted.find("</svg>").unwrap()];
    let stated = &stated[..stated.find("</svg>").unwrap()];
    assert_eq!(elements(stated, "rect", "cell").len(), n_entries);
    let cells = elements(sorted, "rect", "cell");
    assert_eq!(cells.len(), n_entries);
    // One outline per block, along the diagonal; every matched cell inside its block, no cell
    // right of the block of its row (block lower triangular).
    let blocks = elements(sorted, "rect", "block");
    assert_eq!(blocks.len(), n_blocks);
    let boxes: Vec<(f64, f64, f64)> = blocks
        .iter()
        .map(|b| {
            assert_eq!(
                attr(b, "x") - attr(b, "y"),
                blocks.first().map(|f| attr(f, "x") - attr(f, "y")).unwrap()
            );
            (
                attr(b, "y"),
                attr(b, "y") + attr(b, "height"),
                attr(b, "x") + attr(b, "width"),
            )
        })
        .collect();
    for c in &cells {
        let (x, y) = (attr(c, "x"), attr(c, "y"));
        let &(_, _, right) = boxes
            .iter()
            .find(|(top, bottom, _)| y > *top && y < *bottom)
            .expect("every row lies in a block");
        assert!(x < right, "a cell right of its row's block: {c}");
        if c.contains("cell matched") {
            let inside = boxes.iter().any(|(top, bottom, r)| {
                y > *top && y < *bottom && x < *r && x > r - (bottom - top)
            });
            assert!(inside, "matched cell outside its block: {c}");
        }
    }
    assert_eq!(dom.matches("rect class=\"cell matched").count(), 2 * 9);
    // Legends: the matrix legend twice (with the block swatch once), the graph legend.
    assert_eq!(dom.matches("class=\"swatch sw-matched\"").count(), 2);
    assert_eq!(dom.matches("class=\"swatch sw-block\"").count(), 2);
    assert!(dom.contains("id=\"graph-legend\""));
    assert_eq!(dom.matches("<line class=\"edge").count(), n_entries);
    assert_eq!(
        dom.matches("class=\"step\"").count(),
        2,
        "two Pantelides steps"
    );
    assert!(dom.contains("Dummy derivatives (4)"));

    // A screenshot: a PNG of the window's size, not a blank page.
    let shot = dir.join("pendulum.png");
    headless(
        &profile,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1200,1600",
        ],
        &page,
    );
    let png = std::fs::read(&shot).expect("screenshot written");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let be = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
    assert_eq!((be(16), be(20)), (1200, 1600));
    assert!(
        png.len() > 50_000,
        "the screenshot looks blank ({} bytes)",
        png.len()
    );
}
