//! Plots of result files (`minimo plot`): SVG or PNG, drawn with plotters.
//!
//! Text is laid out with an embedded DejaVu Sans (Bitstream Vera license, see
//! `DejaVuSans-LICENSE.txt`), so PNG output needs no system fonts or libraries.

use crate::diag::closest_name;
use crate::sim::results::read_csv;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

// plotters has neither fonts to register nor PNG files in WebAssembly (the playground plots in
// the page instead).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
static FONT: &[u8] = include_bytes!("DejaVuSans.ttf");

/// Image size in pixels.
pub const SIZE: (u32, u32) = (1000, 600);

/// A problem in the user's request, in words.
#[derive(Debug)]
pub struct PlotError {
    pub message: String,
    pub help: Option<String>,
}

impl PlotError {
    fn new(message: impl Into<String>) -> PlotError {
        PlotError {
            message: message.into(),
            help: None,
        }
    }
}

/// Series to draw: `(name, times, values)`.
pub type Series = Vec<(String, Vec<f64>, Vec<f64>)>;

/// Selects the variables from a CSV result text (all but `time` when `vars` is empty).
pub fn series_from_csv(text: &str, vars: &[String]) -> Result<Series, PlotError> {
    let (names, cols) =
        read_csv(text).map_err(|m| PlotError::new(format!("cannot read the result file: {m}")))?;
    if names.first().map(String::as_str) != Some("time") {
        return Err(PlotError::new(
            "the first column of the result file must be `time`",
        ));
    }
    let wanted: Vec<String> = if vars.is_empty() {
        names[1..].to_vec()
    } else {
        vars.to_vec()
    };
    let mut out = Vec::new();
    for w in &wanted {
        let Some(i) = names.iter().position(|n| n == w) else {
            let mut e = PlotError::new(format!("the result file has no variable `{w}`"));
            if let Some(c) = closest_name(w, names.iter().map(String::as_str)) {
                e.help = Some(format!("did you mean `{c}`?"));
            }
            return Err(e);
        };
        out.push((w.clone(), cols[0].clone(), cols[i].clone()));
    }
    if out.is_empty() {
        return Err(PlotError::new("the result file has no variables to plot"));
    }
    Ok(out)
}

/// Draws the series to `path` (`.svg` or `.png`).
pub fn plot(series: &Series, title: &str, path: &Path) -> Result<(), PlotError> {
    #[cfg(not(target_arch = "wasm32"))]
    let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("svg") => {
            let root = SVGBackend::new(path, SIZE).into_drawing_area();
            draw(&root, series, title)?;
            root.present()
                .map_err(|e| PlotError::new(format!("cannot write {}: {e}", path.display())))
        }
        #[cfg(not(target_arch = "wasm32"))]
        Some("png") => {
            let root = BitMapBackend::new(path, SIZE).into_drawing_area();
            draw(&root, series, title)?;
            root.present()
                .map_err(|e| PlotError::new(format!("cannot write {}: {e}", path.display())))
        }
        _ => Err(PlotError {
            message: format!("cannot tell the image format of `{}`", path.display()),
            help: Some("name the output file .svg or .png".into()),
        }),
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    series: &Series,
    title: &str,
) -> Result<(), PlotError> {
    let err =
        |e: DrawingAreaErrorKind<DB::ErrorType>| PlotError::new(format!("drawing failed: {e}"));
    root.fill(&WHITE).map_err(err)?;
    let (mut t0, mut t1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for (_, t, y) in series {
        for (&a, &b) in t.iter().zip(y) {
            if a.is_finite() && b.is_finite() {
                t0 = t0.min(a);
                t1 = t1.max(a);
                y0 = y0.min(b);
                y1 = y1.max(b);
            }
        }
    }
    if !t0.is_finite() {
        return Err(PlotError::new("there are no finite values to plot"));
    }
    if t1 <= t0 {
        t1 = t0 + 1.0;
    }
    // Some margin so that flat lines stay visible.
    let pad = if y1 > y0 {
        0.05 * (y1 - y0)
    } else {
        0.5 * y0.abs().max(1.0)
    };
    let (y0, y1) = (y0 - pad, y1 + pad);
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(t0..t1, y0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("time")
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(err)?;
    for (i, (name, t, y)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = t
            .iter()
            .copied()
            .zip(y.iter().copied())
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .collect();
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(err)?;
    Ok(())
}
