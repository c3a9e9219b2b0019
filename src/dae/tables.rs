//! Interpolation tables of the Modelica Standard Library, evaluated natively.
//!
//! MSL's `CombiTable1Ds/1Dv`, `CombiTable2Ds/2Dv` and `CombiTimeTable` keep their data in an
//! `ExternalObject` built and read by the C library ModelicaStandardTables. No C code can be
//! linked here, so flattening builds a [`Table`] from the constructor's (parameter) arguments and
//! the access functions, recognised by their `external "C"` names, run [`eval`] over it. The
//! semantics follow ModelicaStandardTables: constant and linear segments, cubic Hermite
//! splines whose slopes come from Akima's, the modified Akima ("makima"), Fritsch-Butland's or
//! Steffen's method, extrapolation by holding the end points, through the last two points, or periodically; time
//! events at the table's sample points (or only at its discontinuities) so that the integrator
//! never steps across a jump.

use serde::{Deserialize, Serialize};

use super::bicubic;

/// `Modelica.Blocks.Types.Smoothness`, in declaration order (enumeration value - 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Smoothness {
    LinearSegments,
    /// Akima spline.
    ContinuousDerivative,
    ConstantSegments,
    /// Fritsch-Butland monotone cubic Hermite spline.
    MonotoneContinuousDerivative1,
    /// Steffen monotone cubic Hermite spline.
    MonotoneContinuousDerivative2,
    /// Modified Akima ("makima") spline.
    ModifiedContinuousDerivative,
}

impl Smoothness {
    /// Whether the table is a cubic Hermite spline (only the slopes differ between them).
    pub fn is_spline(self) -> bool {
        matches!(
            self,
            Smoothness::ContinuousDerivative
                | Smoothness::MonotoneContinuousDerivative1
                | Smoothness::MonotoneContinuousDerivative2
                | Smoothness::ModifiedContinuousDerivative
        )
    }
}

/// `Modelica.Blocks.Types.Extrapolation`, in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Extrapolation {
    HoldLastPoint,
    LastTwoPoints,
    Periodic,
    NoExtrapolation,
}

/// `Modelica.Blocks.Types.TimeEvents`, in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeEvents {
    Always,
    AtDiscontinuities,
    NoTimeEvents,
}

/// One interpolated column: its values and, for splines, the slope at every sample point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub y: Vec<f64>,
    pub slopes: Option<Vec<f64>>,
}

/// A table with one abscissa (`CombiTable1D`, and `CombiTimeTable` whose abscissa is time).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table1D {
    pub x: Vec<f64>,
    /// The selected columns (`columns` parameter), in order.
    pub cols: Vec<Column>,
    pub smoothness: Smoothness,
    pub extrapolation: Extrapolation,
}

/// `CombiTimeTable`: a [`Table1D`] over (scaled) time with start/shift time and events.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimeTable {
    pub table: Table1D,
    pub start_time: f64,
    pub shift_time: f64,
    pub time_events: TimeEvents,
}

/// `CombiTable2D`: abscissas `u1` (first column), `u2` (first row), values `y[i][j]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table2D {
    pub u1: Vec<f64>,
    pub u2: Vec<f64>,
    pub y: Vec<Vec<f64>>,
    pub smoothness: Smoothness,
    pub extrapolation: Extrapolation,
    /// The Akima surface of smoothness `ContinuousDerivative`.
    pub spline: Option<Surface>,
}

/// An Akima surface (ModelicaStandardTables' `spline2DInit`): with a single abscissa in one
/// direction, the 1-D Akima spline along the other (the single one is then ignored);
/// otherwise Akima's bivariate method.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Surface {
    /// Slopes along u2 of the only row (one u1 value).
    AlongU2(Vec<f64>),
    /// Slopes along u1 of the only column (one u2 value).
    AlongU1(Vec<f64>),
    Bicubic(bicubic::Partials),
}

/// Value and derivatives of a 2-D table at a point: first partials `d1`, `d2` and second
/// partials `d11`, `d12`, `d22`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Value2D {
    pub y: f64,
    pub d1: f64,
    pub d2: f64,
    pub d11: f64,
    pub d12: f64,
    pub d22: f64,
}

/// Where a coordinate of a 2-D lookup lies: inside the table, beyond an edge by a distance
/// that LastTwoPoints extends over, or held at the edge (HoldLastPoint, or the only abscissa
/// of a 1-point axis, which the table ignores).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    Inside(f64),
    Extended { edge: f64, dist: f64 },
    Held(f64),
}

impl Axis {
    fn at(self) -> f64 {
        match self {
            Axis::Inside(x) | Axis::Held(x) | Axis::Extended { edge: x, .. } => x,
        }
    }
    fn dist(self) -> f64 {
        match self {
            Axis::Extended { dist, .. } => dist,
            _ => 0.0,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Table {
    OneD(Table1D),
    Time(TimeTable),
    TwoD(Table2D),
}

/// What `nextTimeEvent` returns when there is none (C's `DBL_MAX`, above `Modelica.Constants.inf`).
pub const NO_EVENT: f64 = f64::MAX;

/// Converts an enumeration value (1-based) to a [`Smoothness`].
pub fn smoothness(v: i64) -> Result<Smoothness, String> {
    match v {
        1 => Ok(Smoothness::LinearSegments),
        2 => Ok(Smoothness::ContinuousDerivative),
        3 => Ok(Smoothness::ConstantSegments),
        4 => Ok(Smoothness::MonotoneContinuousDerivative1),
        5 => Ok(Smoothness::MonotoneContinuousDerivative2),
        6 => Ok(Smoothness::ModifiedContinuousDerivative),
        _ => Err(format!("invalid smoothness value {v}")),
    }
}

pub fn extrapolation(v: i64) -> Result<Extrapolation, String> {
    match v {
        1 => Ok(Extrapolation::HoldLastPoint),
        2 => Ok(Extrapolation::LastTwoPoints),
        3 => Ok(Extrapolation::Periodic),
        4 => Ok(Extrapolation::NoExtrapolation),
        _ => Err(format!("invalid extrapolation value {v}")),
    }
}

pub fn time_events(v: i64) -> Result<TimeEvents, String> {
    match v {
        1 => Ok(TimeEvents::Always),
        2 => Ok(TimeEvents::AtDiscontinuities),
        3 => Ok(TimeEvents::NoTimeEvents),
        _ => Err(format!("invalid timeEvents value {v}")),
    }
}

/// A row-major matrix argument.
pub struct Matrix<'a> {
    pub rows: usize,
    pub cols: usize,
    pub data: &'a [f64],
}

impl Matrix<'_> {
    fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
    }
}

impl Table1D {
    /// Builds the table from the matrix and the 1-based `columns`; `strict` asks for strictly
    /// increasing abscissas (CombiTable1D), otherwise equal neighbours are allowed (a jump of a
    /// time table).
    pub fn new(
        m: &Matrix,
        columns: &[i64],
        smoothness: Smoothness,
        extrapolation: Extrapolation,
        strict: bool,
    ) -> Result<Table1D, String> {
        if m.rows == 0 || m.cols == 0 {
            return Err("the table is empty".into());
        }
        let x: Vec<f64> = (0..m.rows).map(|i| m.at(i, 0)).collect();
        // Through two points every spline is the straight line; ModelicaStandardTables
        // switches such tables to linear segments (which also extrapolate as lines).
        let smoothness = if smoothness.is_spline() && x.len() <= 2 {
            Smoothness::LinearSegments
        } else {
            smoothness
        };
        for i in 1..x.len() {
            if x[i] < x[i - 1] || (strict && x[i] == x[i - 1]) {
                return Err(format!(
                    "the first column of the table must be {} increasing: table[{}, 1] = {} follows {}",
                    if strict { "strictly" } else { "monotonically" },
                    i + 1,
                    x[i],
                    x[i - 1]
                ));
            }
        }
        let mut cols = Vec::new();
        for &c in columns {
            if c < 1 || c as usize > m.cols {
                return Err(format!(
                    "column {c} does not exist: the table has {} columns",
                    m.cols
                ));
            }
            let y: Vec<f64> = (0..m.rows).map(|i| m.at(i, c as usize - 1)).collect();
            let slopes = if smoothness.is_spline() {
                if x.windows(2).any(|w| w[0] == w[1]) {
                    return Err(format!(
                        "a spline (smoothness {smoothness:?}) cannot interpolate a table with repeated abscissa values (jumps)"
                    ));
                }
                Some(spline_slopes(smoothness, &x, &y))
            } else {
                None
            };
            cols.push(Column { y, slopes });
        }
        Ok(Table1D {
            x,
            cols,
            smoothness,
            extrapolation,
        })
    }

    pub fn min(&self) -> f64 {
        self.x[0]
    }
    pub fn max(&self) -> f64 {
        self.x[self.x.len() - 1]
    }

    /// Value, first and second derivative of column `icol` (1-based) at `u`. `left` asks for
    /// the limit from the left at the abscissa `left` (the segment ending there is used even at
    /// or beyond it): this is how a time table keeps the value before a jump until the event is
    /// handled.
    pub fn eval(&self, icol: i64, u: f64, left: Option<f64>) -> Result<(f64, f64, f64), String> {
        let col = self.column(icol)?;
        let n = self.x.len();
        if n == 1 {
            return Ok((col.y[0], 0.0, 0.0));
        }
        let (lo, hi) = (self.min(), self.max());
        let mut u = self.snap(u);
        let mut left = left.map(|b| self.snap(b));
        if self.extrapolation == Extrapolation::Periodic {
            let t = hi - lo;
            if let Some(b) = left {
                // Wrap the event point into (lo, hi] and move u along with it.
                let mut bw = self.snap(wrap(b, lo, t, true));
                if bw == lo {
                    // Wrapped a rounding error above the start of a period: the event
                    // there ends the previous period.
                    bw = hi;
                }
                u = bw + (u - b);
                left = Some(bw);
            } else {
                u = self.snap(wrap(u, lo, t, false));
                if u == hi {
                    // The end of one period is the start of the next.
                    u = lo;
                }
            }
        } else if left.is_none() && (u < lo || u > hi) {
            return self.extrapolate(col, u, u > hi);
        } else if let Some(b) = left
            && b <= lo
        {
            // Before the event at the table's first point: still extrapolating to the left.
            return self.extrapolate(col, u.min(lo), false);
        } else if let Some(b) = left
            && b > hi
        {
            if u > hi {
                return self.extrapolate(col, u, true);
            }
            left = None;
        }
        let i = match left {
            // The last segment that ends at or after b and starts before it.
            Some(b) => self.x[..n - 1].partition_point(|&x| x < b).max(1) - 1,
            None => self.x[..n - 1].partition_point(|&x| x <= u).max(1) - 1,
        };
        Ok(self.segment(col, i, u, left.is_some()))
    }

    /// `u` moved onto the table point it nearly equals (see [`nearly_equal`]), so that a
    /// time shifted or wrapped into the table with a rounding error still picks the segment
    /// on the proper side of a jump.
    fn snap(&self, u: f64) -> f64 {
        let k = self.x.partition_point(|&x| x < u);
        [k.saturating_sub(1), k.min(self.x.len() - 1)]
            .into_iter()
            .map(|i| self.x[i])
            .find(|&x| nearly_equal(x, u))
            .unwrap_or(u)
    }

    fn column(&self, icol: i64) -> Result<&Column, String> {
        if icol < 1 || icol as usize > self.cols.len() {
            return Err(format!(
                "column index {icol} is out of range 1..{}",
                self.cols.len()
            ));
        }
        Ok(&self.cols[icol as usize - 1])
    }

    /// Value, slope and curvature on segment `i` (between rows i and i+1) at u.
    fn segment(&self, col: &Column, i: usize, u: f64, left: bool) -> (f64, f64, f64) {
        let (x0, x1) = (self.x[i], self.x[i + 1]);
        let (y0, y1) = (col.y[i], col.y[i + 1]);
        if x1 == x0 {
            // A jump at the table's end: the right value.
            return (y1, 0.0, 0.0);
        }
        match self.smoothness {
            Smoothness::ConstantSegments => {
                if !left && u >= x1 {
                    (y1, 0.0, 0.0)
                } else {
                    (y0, 0.0, 0.0)
                }
            }
            Smoothness::LinearSegments => {
                let s = (y1 - y0) / (x1 - x0);
                (y0 + s * (u - x0), s, 0.0)
            }
            _ => {
                let d = col.slopes.as_deref().unwrap_or(&[]);
                hermite(x0, x1, y0, y1, d[i], d[i + 1], u)
            }
        }
    }

    /// Value, slope and curvature outside the table (the curvature of an extension is 0).
    fn extrapolate(&self, col: &Column, u: f64, right: bool) -> Result<(f64, f64, f64), String> {
        let n = self.x.len();
        let (k, x0) = if right {
            (n - 1, self.max())
        } else {
            (0, self.min())
        };
        match self.extrapolation {
            Extrapolation::HoldLastPoint => Ok((col.y[k], 0.0, 0.0)),
            Extrapolation::LastTwoPoints => {
                let slope = match &col.slopes {
                    Some(d) => d[k],
                    None => {
                        let (a, b) = if right { (n - 2, n - 1) } else { (0, 1) };
                        let h = self.x[b] - self.x[a];
                        if h == 0.0 {
                            0.0
                        } else {
                            (col.y[b] - col.y[a]) / h
                        }
                    }
                };
                Ok((col.y[k] + slope * (u - x0), slope, 0.0))
            }
            Extrapolation::NoExtrapolation => Err(format!(
                "extrapolation error: the abscissa value {u} must be {} the {} abscissa value {x0} defined in the table (extrapolation = NoExtrapolation)",
                if right {
                    "less or equal than"
                } else {
                    "greater or equal than"
                },
                if right { "maximum" } else { "minimum" }
            )),
            Extrapolation::Periodic => unreachable!("periodic tables wrap before extrapolating"),
        }
    }
}

/// Whether `a` and `b` agree to a relative 1e-10 (ModelicaStandardTables' `isNearlyEqual`):
/// table points and time events computed by shifting and wrapping differ from the exact ones
/// by rounding.
pub fn nearly_equal(a: f64, b: f64) -> bool {
    const EPS: f64 = 1e-10;
    let scale = a.abs().max(b.abs()).max(EPS);
    (a - b).abs() < EPS * scale
}

/// `u` moved by whole periods `t` into `[lo, lo + t)`, or into `(lo, lo + t]` with `left_closed`.
fn wrap(u: f64, lo: f64, t: f64, upper_closed: bool) -> f64 {
    if t <= 0.0 {
        return lo;
    }
    let k = ((u - lo) / t).floor();
    let mut w = u - k * t;
    if w >= lo + t {
        w -= t;
    }
    if w < lo {
        w += t;
    }
    if upper_closed && w <= lo {
        w += t;
    }
    w
}

/// Cubic Hermite interpolation on [x0, x1] with end slopes d0, d1: value, first and second
/// derivative.
fn hermite(x0: f64, x1: f64, y0: f64, y1: f64, d0: f64, d1: f64, u: f64) -> (f64, f64, f64) {
    let h = x1 - x0;
    let t = (u - x0) / h;
    let (t2, t3) = (t * t, t * t * t);
    let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
    let h10 = t3 - 2.0 * t2 + t;
    let h01 = -2.0 * t3 + 3.0 * t2;
    let h11 = t3 - t2;
    let y = h00 * y0 + h10 * h * d0 + h01 * y1 + h11 * h * d1;
    let dh00 = (6.0 * t2 - 6.0 * t) / h;
    let dh10 = 3.0 * t2 - 4.0 * t + 1.0;
    let dh01 = (-6.0 * t2 + 6.0 * t) / h;
    let dh11 = 3.0 * t2 - 2.0 * t;
    let d2 = ((12.0 * t - 6.0) * (y0 - y1) / h + (6.0 * t - 4.0) * d0 + (6.0 * t - 2.0) * d1) / h;
    (y, dh00 * y0 + dh10 * d0 + dh01 * y1 + dh11 * d1, d2)
}

/// The slopes at the sample points of the cubic Hermite spline `kind` through (x, y), as
/// ModelicaStandardTables computes them (the C code stores per-segment polynomial
/// coefficients, which are these Hermite segments). Two points give the straight line.
pub fn spline_slopes(kind: Smoothness, x: &[f64], y: &[f64]) -> Vec<f64> {
    let n = x.len();
    if n < 2 {
        return vec![0.0; n];
    }
    let secants: Vec<f64> = x
        .windows(2)
        .zip(y.windows(2))
        .map(|(x, y)| (y[1] - y[0]) / (x[1] - x[0]))
        .collect();
    if n == 2 {
        return vec![secants[0]; 2];
    }
    match kind {
        Smoothness::ModifiedContinuousDerivative => akima_from_secants(&secants, true),
        Smoothness::MonotoneContinuousDerivative1 => {
            monotone_slopes(x, &secants, fritsch_butland_slope)
        }
        Smoothness::MonotoneContinuousDerivative2 => monotone_slopes(x, &secants, steffen_slope),
        _ => akima_from_secants(&secants, false),
    }
}

/// Akima's slopes (1970), or with `modified` the modified Akima ("makima") ones: the secants
/// extended by two linearly extrapolated ones at each end, each slope a weighted mean of its
/// two neighbouring secants. Where both weights vanish, Akima takes the plain mean and makima 0.
fn akima_from_secants(secants: &[f64], modified: bool) -> Vec<f64> {
    let m = secants.len();
    // d[k + 2] is the secant of segment k.
    let mut d = vec![0.0; m + 4];
    d[2..m + 2].copy_from_slice(secants);
    d[1] = 2.0 * d[2] - d[3];
    d[0] = 3.0 * d[2] - 2.0 * d[3];
    d[m + 2] = 2.0 * d[m + 1] - d[m];
    d[m + 3] = 3.0 * d[m + 1] - 2.0 * d[m];
    (0..=m)
        .map(|p| {
            let (mut wa, mut wb) = ((d[p + 3] - d[p + 2]).abs(), (d[p + 1] - d[p]).abs());
            if modified {
                wa += 0.5 * (d[p + 3] + d[p + 2]).abs();
                wb += 0.5 * (d[p + 1] + d[p]).abs();
            }
            if wa + wb > 0.0 {
                let a = wb / (wa + wb);
                (1.0 - a) * d[p + 1] + a * d[p + 2]
            } else if modified {
                0.0
            } else {
                0.5 * d[p + 1] + 0.5 * d[p + 2]
            }
        })
        .collect()
}

/// Slopes of a monotone spline: the end secants at the ends; inside, 0 at a local extremum
/// (secants of opposite signs or one of them 0), else `interior(h_left, h_right, d_left,
/// d_right)`. Between two points of a monotone table the spline stays monotone.
fn monotone_slopes(
    x: &[f64],
    secants: &[f64],
    interior: fn(f64, f64, f64, f64) -> f64,
) -> Vec<f64> {
    let n = x.len();
    let mut s = vec![0.0; n];
    s[0] = secants[0];
    s[n - 1] = secants[n - 2];
    for p in 1..n - 1 {
        let (dl, dr) = (secants[p - 1], secants[p]);
        if dl == 0.0 || dr == 0.0 || (dl < 0.0) != (dr < 0.0) {
            continue;
        }
        s[p] = interior(x[p] - x[p - 1], x[p + 1] - x[p], dl, dr);
    }
    s
}

/// Fritsch and Butland (1984): a weighted harmonic mean of the two secants.
fn fritsch_butland_slope(hl: f64, hr: f64, dl: f64, dr: f64) -> f64 {
    3.0 * (hl + hr) / ((hl + 2.0 * hr) / dl + (hr + 2.0 * hl) / dr)
}

/// Steffen (1990): the slope of the parabola through the three points, limited to twice the
/// smaller secant.
fn steffen_slope(hl: f64, hr: f64, dl: f64, dr: f64) -> f64 {
    let p = (dl * hr + dr * hl) / (hl + hr);
    if 0.5 * p.abs() > dl.abs() || 0.5 * p.abs() > dr.abs() {
        2.0_f64.copysign(dl) * dl.abs().min(dr.abs())
    } else {
        p
    }
}

impl TimeTable {
    /// The first time event strictly after `t` (scaled time), or [`NO_EVENT`].
    pub fn next_event(&self, t: f64) -> f64 {
        let tab = &self.table;
        let mut next = NO_EVENT;
        if t < self.start_time {
            next = self.start_time;
        }
        if self.time_events == TimeEvents::NoTimeEvents || tab.x.len() < 2 {
            return next;
        }
        // Event points of one pass through the table, relative to the shift.
        let n = tab.x.len();
        let points: Vec<f64> = match self.time_events {
            TimeEvents::Always => {
                let mut p = tab.x.clone();
                p.dedup();
                p
            }
            _ => (0..n - 1)
                .filter(|&i| tab.x[i] == tab.x[i + 1])
                .map(|i| tab.x[i])
                .collect(),
        };
        if points.is_empty() {
            return next;
        }
        let s = t - self.shift_time;
        let cand = if tab.extrapolation == Extrapolation::Periodic {
            let (lo, hi) = (tab.min(), tab.max());
            let period = hi - lo;
            if period <= 0.0 {
                return next;
            }
            let k = ((s - lo) / period).floor();
            let base = k * period;
            // This period's points after s, else the next period's first.
            points
                .iter()
                .map(|p| p + base)
                .chain(points.iter().map(|p| p + base + period))
                .find(|&p| p > s && !nearly_equal(p, s))
        } else {
            points
                .iter()
                .copied()
                .find(|&p| p > s && !nearly_equal(p, s))
        };
        if let Some(c) = cand {
            let c = c + self.shift_time;
            // Events before the start time do not matter: the output is zero there.
            let c = if c < self.start_time {
                self.next_event(self.start_time)
            } else {
                c
            };
            next = next.min(c);
        }
        next
    }

    /// Value, first and second derivative of column `icol` at scaled time `t`. `next` and
    /// `pre_next` are the model's `nextTimeEventScaled` and its `pre`: until the event at
    /// `next` is handled, the segment before it is used, so a jump happens exactly at the event.
    pub fn eval(
        &self,
        icol: i64,
        t: f64,
        next: f64,
        pre_next: f64,
    ) -> Result<(f64, f64, f64), String> {
        self.table.column(icol)?;
        if t < self.start_time || (next < NO_EVENT && next == pre_next && self.start_time >= next) {
            return Ok((0.0, 0.0, 0.0));
        }
        let s = t - self.shift_time;
        let left = if self.time_events != TimeEvents::NoTimeEvents && next < NO_EVENT && t >= next {
            Some(next - self.shift_time)
        } else {
            None
        };
        self.table.eval(icol, s, left)
    }
}

impl Table2D {
    pub fn new(
        m: &Matrix,
        smoothness: Smoothness,
        extrapolation: Extrapolation,
    ) -> Result<Table2D, String> {
        if m.rows < 2 || m.cols < 2 {
            return Err("a 2-D table needs at least 2 rows and 2 columns (abscissas in the first row and column)".into());
        }
        if extrapolation == Extrapolation::Periodic {
            return Err("periodic extrapolation of a 2-D table is not supported".into());
        }
        let u1: Vec<f64> = (1..m.rows).map(|i| m.at(i, 0)).collect();
        let u2: Vec<f64> = (1..m.cols).map(|j| m.at(0, j)).collect();
        for (name, v) in [("first column", &u1), ("first row", &u2)] {
            if v.windows(2).any(|w| w[1] <= w[0]) {
                return Err(format!(
                    "the abscissas in the table's {name} must be strictly increasing"
                ));
            }
        }
        let y: Vec<Vec<f64>> = (1..m.rows)
            .map(|i| (1..m.cols).map(|j| m.at(i, j)).collect())
            .collect();
        let (n1, n2) = (u1.len(), u2.len());
        // As in ModelicaStandardTables: an Akima surface over at most 2 x 2 points is the
        // bilinear one; the other splines have no bivariate form there.
        let smoothness = if smoothness == Smoothness::ContinuousDerivative && n1 <= 2 && n2 <= 2 {
            Smoothness::LinearSegments
        } else {
            smoothness
        };
        if smoothness.is_spline()
            && smoothness != Smoothness::ContinuousDerivative
            && (n1, n2) != (1, 1)
        {
            return Err(format!(
                "smoothness {smoothness:?} is not implemented for 2-D tables (ModelicaStandardTables has no bivariate form of it; ContinuousDerivative gives Akima's surface)"
            ));
        }
        let spline = (smoothness == Smoothness::ContinuousDerivative).then(|| {
            if n1 == 1 {
                Surface::AlongU2(spline_slopes(smoothness, &u2, &y[0]))
            } else if n2 == 1 {
                let col: Vec<f64> = y.iter().map(|r| r[0]).collect();
                Surface::AlongU1(spline_slopes(smoothness, &u1, &col))
            } else {
                Surface::Bicubic(bicubic::akima_partials(&u1, &u2, &y))
            }
        });
        Ok(Table2D {
            u1,
            u2,
            y,
            smoothness,
            extrapolation,
            spline,
        })
    }

    /// Value and first and second partial derivatives at (a, b).
    pub fn eval(&self, a: f64, b: f64) -> Result<Value2D, String> {
        let Some(s) = &self.spline else {
            let (y, d1, d2, d12) = self.eval_linear(a, b)?;
            return Ok(Value2D {
                y,
                d1,
                d2,
                d12,
                ..Value2D::default()
            });
        };
        let ax = self.axis(a, &self.u1, "u1")?;
        let bx = self.axis(b, &self.u2, "u2")?;
        Ok(match s {
            Surface::AlongU2(d) => {
                let (y, d2, d22) = curve(&self.u2, &self.y[0], d, bx);
                Value2D {
                    y,
                    d2,
                    d22,
                    ..Value2D::default()
                }
            }
            Surface::AlongU1(d) => {
                let col: Vec<f64> = self.y.iter().map(|r| r[0]).collect();
                let (y, d1, d11) = curve(&self.u1, &col, d, ax);
                Value2D {
                    y,
                    d1,
                    d11,
                    ..Value2D::default()
                }
            }
            Surface::Bicubic(p) => self.eval_bicubic(p, ax, bx),
        })
    }

    /// The Akima surface at (a, b). Outside the table, LastTwoPoints continues it from the
    /// nearest point of the edge with the edge's partial derivatives (the mixed one too at a
    /// corner): p + p_1 e1 + p_2 e2 + p_12 e1 e2 for the distances e beyond the edges.
    fn eval_bicubic(&self, p: &bicubic::Partials, ax: Axis, bx: Axis) -> Value2D {
        let (a, b) = (ax.at(), bx.at());
        let ij = (cell(&self.u1, a), cell(&self.u2, b));
        let d = bicubic::patch(&self.u1, &self.u2, &self.y, p, ij, (a, b));
        let (e1, e2) = (ax.dist(), bx.dist());
        let (held1, held2) = (matches!(ax, Axis::Held(_)), matches!(bx, Axis::Held(_)));
        let (in1, in2) = (matches!(ax, Axis::Inside(_)), matches!(bx, Axis::Inside(_)));
        let zero_if = |c: bool, v: f64| if c { 0.0 } else { v };
        Value2D {
            y: d[0][0] + d[1][0] * e1 + d[0][1] * e2 + d[1][1] * e1 * e2,
            d1: zero_if(held1, d[1][0] + d[1][1] * e2),
            d2: zero_if(held2, d[0][1] + d[1][1] * e1),
            d11: zero_if(!in1, d[2][0] + d[2][1] * e2),
            d12: zero_if(held1 || held2, d[1][1]),
            d22: zero_if(!in2, d[0][2] + d[1][2] * e1),
        }
    }

    /// Where `x` lies on the abscissas `v` of the axis `name`, for the spline surfaces.
    fn axis(&self, x: f64, v: &[f64], name: &str) -> Result<Axis, String> {
        let (lo, hi) = (v[0], v[v.len() - 1]);
        if v.len() == 1 {
            return Ok(Axis::Held(lo));
        }
        if x >= lo && x <= hi {
            return Ok(Axis::Inside(x));
        }
        let edge = x.clamp(lo, hi);
        match self.extrapolation {
            Extrapolation::HoldLastPoint => Ok(Axis::Held(edge)),
            Extrapolation::NoExtrapolation => Err(format!(
                "extrapolation error: {name} = {x} is outside the table's range [{lo}, {hi}] (extrapolation = NoExtrapolation)"
            )),
            _ => Ok(Axis::Extended {
                edge,
                dist: x - edge,
            }),
        }
    }

    /// Value, partial derivatives and the mixed second partial at (a, b) of a table without
    /// spline: bilinear (or piecewise constant) over the cell holding the point (so the pure
    /// second partials vanish); outside, the edge cell is extended (LastTwoPoints) or the
    /// point clamped onto the table (HoldLastPoint).
    fn eval_linear(&self, a: f64, b: f64) -> Result<(f64, f64, f64, f64), String> {
        let (a, hold_a) = self.clamp(a, &self.u1, "u1")?;
        let (b, hold_b) = self.clamp(b, &self.u2, "u2")?;
        let (i, j) = (cell(&self.u1, a), cell(&self.u2, b));
        let (n1, n2) = (self.u1.len(), self.u2.len());
        let (i1, j1) = ((i + 1).min(n1 - 1), (j + 1).min(n2 - 1));
        let frac = |v: &[f64], k: usize, k1: usize, x: f64| -> (f64, f64) {
            if k1 == k {
                (0.0, 0.0)
            } else {
                let h = v[k1] - v[k];
                ((x - v[k]) / h, 1.0 / h)
            }
        };
        let (ta, da) = frac(&self.u1, i, i1, a);
        let (tb, db) = frac(&self.u2, j, j1, b);
        let (y00, y01, y10, y11) = (self.y[i][j], self.y[i][j1], self.y[i1][j], self.y[i1][j1]);
        // Outside the table, LastTwoPoints extends the edge cell bilinearly even for
        // constant segments (as 1-D constant tables extend through the last two points).
        let outside = !(self.u1[0]..=self.u1[n1 - 1]).contains(&a)
            || !(self.u2[0]..=self.u2[n2 - 1]).contains(&b);
        if self.smoothness == Smoothness::ConstantSegments
            && !(outside && self.extrapolation == Extrapolation::LastTwoPoints)
        {
            let pick_i = if ta >= 1.0 { i1 } else { i };
            let pick_j = if tb >= 1.0 { j1 } else { j };
            return Ok((self.y[pick_i][pick_j], 0.0, 0.0, 0.0));
        }
        let y = (1.0 - ta) * ((1.0 - tb) * y00 + tb * y01) + ta * ((1.0 - tb) * y10 + tb * y11);
        let dya = if hold_a {
            0.0
        } else {
            da * ((1.0 - tb) * (y10 - y00) + tb * (y11 - y01))
        };
        let dyb = if hold_b {
            0.0
        } else {
            db * ((1.0 - ta) * (y01 - y00) + ta * (y11 - y10))
        };
        let dyab = if hold_a || hold_b {
            0.0
        } else {
            da * db * (y11 - y10 - y01 + y00)
        };
        Ok((y, dya, dyb, dyab))
    }

    /// `x` on the axis `v`, and whether it is held there (no derivative along it). An axis
    /// with a single abscissa is ignored, as ModelicaStandardTables interpolates such a table
    /// along the other axis only (even with NoExtrapolation, and never extending it).
    fn clamp(&self, x: f64, v: &[f64], name: &str) -> Result<(f64, bool), String> {
        let (lo, hi) = (v[0], v[v.len() - 1]);
        if v.len() == 1 {
            return Ok((lo, true));
        }
        if x >= lo && x <= hi {
            return Ok((x, false));
        }
        match self.extrapolation {
            Extrapolation::HoldLastPoint => Ok((x.clamp(lo, hi), true)),
            Extrapolation::NoExtrapolation => Err(format!(
                "extrapolation error: {name} = {x} is outside the table's range [{lo}, {hi}] (extrapolation = NoExtrapolation)"
            )),
            _ => Ok((x, false)),
        }
    }
}

/// The segment of the abscissas `v` holding `x` (the first or last one beyond the ends).
fn cell(v: &[f64], x: f64) -> usize {
    if v.len() < 2 {
        0
    } else {
        v[..v.len() - 1].partition_point(|&p| p <= x).max(1) - 1
    }
}

/// Value, slope and curvature of the Hermite spline (x, y, slopes `d`) at the coordinate
/// `axis`: extended linearly beyond an edge, constant when held.
fn curve(x: &[f64], y: &[f64], d: &[f64], axis: Axis) -> (f64, f64, f64) {
    let u = axis.at();
    let i = cell(x, u);
    let (v, dv, ddv) = hermite(x[i], x[i + 1], y[i], y[i + 1], d[i], d[i + 1], u);
    match axis {
        Axis::Inside(_) => (v, dv, ddv),
        Axis::Extended { dist, .. } => (v + dv * dist, dv, 0.0),
        Axis::Held(_) => (v, 0.0, 0.0),
    }
}
