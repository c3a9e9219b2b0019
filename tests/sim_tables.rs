//! External objects and the natively evaluated ModelicaStandardTables functions: 1-D tables with
//! each smoothness and extrapolation against hand-computed values, a time table with a jump
//! that must be located as an event, and the errors for file tables and other C functions.
//! The Modelica side mirrors the MSL's declarations (Blocks.Types, Blocks.Tables.Internal).

use minimo::sim::{SimOptions, SimResult, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};

/// The external object classes and access functions, as the MSL declares them.
const LIB: &str = r#"
package T
  type Smoothness = enumeration(LinearSegments, ContinuousDerivative, ConstantSegments,
    MonotoneContinuousDerivative1, MonotoneContinuousDerivative2, ModifiedContinuousDerivative);
  type Extrapolation = enumeration(HoldLastPoint, LastTwoPoints, Periodic, NoExtrapolation);
  type TimeEvents = enumeration(Always, AtDiscontinuities, NoTimeEvents);
  class Table1D
    extends ExternalObject;
    function constructor
      input String tableName;
      input String fileName;
      input Real table[:, :];
      input Integer columns[:];
      input Smoothness smoothness;
      input Extrapolation extrapolation = Extrapolation.LastTwoPoints;
      input Boolean verboseRead = true;
      input String delimiter = ",";
      input Integer nHeaderLines = 0;
      output Table1D t;
    external "C" t = ModelicaStandardTables_CombiTable1D_init3(fileName, tableName, table,
      size(table, 1), size(table, 2), columns, size(columns, 1), smoothness, extrapolation,
      verboseRead, delimiter, nHeaderLines);
    end constructor;
    function destructor
      input Table1D t;
    external "C" ModelicaStandardTables_CombiTable1D_close(t);
    end destructor;
  end Table1D;
  class TimeTable
    extends ExternalObject;
    function constructor
      input String tableName;
      input String fileName;
      input Real table[:, :];
      input Real startTime;
      input Integer columns[:];
      input Smoothness smoothness;
      input Extrapolation extrapolation;
      input Real shiftTime = 0.0;
      input TimeEvents timeEvents = TimeEvents.Always;
      input Boolean verboseRead = true;
      input String delimiter = ",";
      input Integer nHeaderLines = 0;
      output TimeTable t;
    external "C" t = ModelicaStandardTables_CombiTimeTable_init3(fileName, tableName, table,
      size(table, 1), size(table, 2), startTime, columns, size(columns, 1), smoothness,
      extrapolation, shiftTime, timeEvents, verboseRead, delimiter, nHeaderLines);
    end constructor;
    function destructor
      input TimeTable t;
    external "C" ModelicaStandardTables_CombiTimeTable_close(t);
    end destructor;
  end TimeTable;
  pure function value1D
    input Table1D t;
    input Integer icol;
    input Real u;
    output Real y;
    external "C" y = ModelicaStandardTables_CombiTable1D_getValue(t, icol, u);
  end value1D;
  pure function umax
    input Table1D t;
    output Real u;
    external "C" u = ModelicaStandardTables_CombiTable1D_maximumAbscissa(t);
  end umax;
  pure function timeValue
    input TimeTable t;
    input Integer icol;
    input Real timeIn;
    input Real nextTimeEvent;
    input Real pre_nextTimeEvent;
    output Real y;
    external "C" y = ModelicaStandardTables_CombiTimeTable_getValue(t, icol, timeIn,
      nextTimeEvent, pre_nextTimeEvent);
    annotation(derivative(noDerivative = nextTimeEvent, noDerivative = pre_nextTimeEvent) = timeDer);
  end timeValue;
  pure function timeDer
    input TimeTable t;
    input Integer icol;
    input Real timeIn;
    input Real nextTimeEvent;
    input Real pre_nextTimeEvent;
    input Real der_timeIn;
    output Real der_y;
    external "C" der_y = ModelicaStandardTables_CombiTimeTable_getDerValue(t, icol, timeIn,
      nextTimeEvent, pre_nextTimeEvent, der_timeIn);
    annotation(derivative(order = 2, noDerivative = nextTimeEvent,
      noDerivative = pre_nextTimeEvent) = timeDer2);
  end timeDer;
  pure function timeDer2
    input TimeTable t;
    input Integer icol;
    input Real timeIn;
    input Real nextTimeEvent;
    input Real pre_nextTimeEvent;
    input Real der_timeIn;
    input Real der2_timeIn;
    output Real der2_y;
    external "C" der2_y = ModelicaStandardTables_CombiTimeTable_getDer2Value(t, icol, timeIn,
      nextTimeEvent, pre_nextTimeEvent, der_timeIn, der2_timeIn);
  end timeDer2;
  pure function nextEvent
    input TimeTable t;
    input Real timeIn;
    output Real next;
    external "C" next = ModelicaStandardTables_CombiTimeTable_nextTimeEvent(t, timeIn);
  end nextEvent;
  class Table2D
    extends ExternalObject;
    function constructor
      input String tableName;
      input String fileName;
      input Real table[:, :];
      input Smoothness smoothness;
      input Extrapolation extrapolation = Extrapolation.LastTwoPoints;
      input Boolean verboseRead = true;
      input String delimiter = ",";
      input Integer nHeaderLines = 0;
      output Table2D t;
    external "C" t = ModelicaStandardTables_CombiTable2D_init3(fileName, tableName, table,
      size(table, 1), size(table, 2), smoothness, extrapolation, verboseRead, delimiter,
      nHeaderLines);
    end constructor;
    function destructor
      input Table2D t;
    external "C" ModelicaStandardTables_CombiTable2D_close(t);
    end destructor;
  end Table2D;
  pure function value2D
    input Table2D t;
    input Real u1;
    input Real u2;
    output Real y;
    external "C" y = ModelicaStandardTables_CombiTable2D_getValue(t, u1, u2);
  end value2D;
  pure function value2Dd "value2D with the derivatives MSL declares"
    input Table2D t;
    input Real u1;
    input Real u2;
    output Real y;
    external "C" y = ModelicaStandardTables_CombiTable2D_getValue(t, u1, u2);
    annotation(derivative = der2D);
  end value2Dd;
  pure function der2D
    input Table2D t;
    input Real u1;
    input Real u2;
    input Real der_u1;
    input Real der_u2;
    output Real der_y;
    external "C" der_y = ModelicaStandardTables_CombiTable2D_getDerValue(t, u1, u2, der_u1,
      der_u2);
    annotation(derivative(order = 2) = der2D2);
  end der2D;
  pure function der2D2
    input Table2D t;
    input Real u1;
    input Real u2;
    input Real der_u1;
    input Real der_u2;
    input Real der2_u1;
    input Real der2_u2;
    output Real der2_y;
    external "C" der2_y = ModelicaStandardTables_CombiTable2D_getDer2Value(t, u1, u2, der_u1,
      der_u2, der2_u1, der2_u2);
  end der2D2;
  model Lookup "y = f(u) for one smoothness and extrapolation"
    parameter Real table[:, :] = [0, 0; 1, 1; 2, 4];
    parameter Smoothness smoothness = Smoothness.LinearSegments;
    parameter Extrapolation extrapolation = Extrapolation.LastTwoPoints;
    parameter Table1D tab = Table1D("NoName", "NoName", table, {2}, smoothness, extrapolation);
    final parameter Real u_max = umax(tab);
    input Real u;
    Real y = value1D(tab, 1, u);
    Real umax_copy = u_max;
  end Lookup;
  block TimeSource "Like Modelica.Blocks.Sources.CombiTimeTable"
    parameter Real table[:, :];
    parameter Smoothness smoothness = Smoothness.LinearSegments;
    parameter Extrapolation extrapolation = Extrapolation.LastTwoPoints;
    parameter Real startTime = 0;
    parameter Real shiftTime = startTime;
    parameter TimeTable tab = TimeTable("NoName", "NoName", table, startTime, {2}, smoothness,
      extrapolation, shiftTime, TimeEvents.Always);
    discrete Real next(start = 0, fixed = true);
    Real y;
  equation
    when {time >= pre(next), initial()} then
      next = nextEvent(tab, time);
    end when;
    y = timeValue(tab, 1, time, next, pre(next));
  end TimeSource;
end T;
"#;

fn sim(model: &str, stop: f64) -> Result<SimResult, String> {
    let text = format!("{LIB}\n{model}");
    let flat = minimo::flatten::flatten_source("tables.mo", &text, Some("M"))?;
    let analysis = analyze(flat, &AnalyzeOptions::default()).map_err(|e| format!("{e:?}"))?;
    let opts = SimOptions {
        stop_time: Some(stop),
        interval: Some(0.01),
        tolerance: Some(1e-8),
        ..Default::default()
    };
    simulate_analysis(&analysis, &opts).map_err(|e| format!("{e:?}"))
}

fn at(r: &SimResult, name: &str, t: f64) -> f64 {
    r.value_at(name, t)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

/// One lookup per (smoothness, extrapolation), the input running over u = time - 1 in [-1, 3]
/// across the table x = {0, 1, 2}, y = x^2.
const LOOKUPS: &str = r#"
model M
  import T.Smoothness;
  import T.Extrapolation;
  T.Lookup lh(smoothness = Smoothness.LinearSegments, extrapolation = Extrapolation.HoldLastPoint, u = time - 1);
  T.Lookup ll(smoothness = Smoothness.LinearSegments, extrapolation = Extrapolation.LastTwoPoints, u = time - 1);
  T.Lookup lp(smoothness = Smoothness.LinearSegments, extrapolation = Extrapolation.Periodic, u = time - 1);
  T.Lookup ch(smoothness = Smoothness.ConstantSegments, extrapolation = Extrapolation.HoldLastPoint, u = time - 1);
  T.Lookup cl(smoothness = Smoothness.ConstantSegments, extrapolation = Extrapolation.LastTwoPoints, u = time - 1);
  T.Lookup cp(smoothness = Smoothness.ConstantSegments, extrapolation = Extrapolation.Periodic, u = time - 1);
  T.Lookup ah(smoothness = Smoothness.ContinuousDerivative, extrapolation = Extrapolation.HoldLastPoint, u = time - 1);
  T.Lookup al(smoothness = Smoothness.ContinuousDerivative, extrapolation = Extrapolation.LastTwoPoints, u = time - 1);
  T.Lookup ap(smoothness = Smoothness.ContinuousDerivative, extrapolation = Extrapolation.Periodic, u = time - 1);
end M;
"#;

#[test]
fn one_dimensional_tables_each_smoothness_and_extrapolation() {
    let r = sim(LOOKUPS, 4.0).unwrap_or_else(|e| panic!("{e}"));
    // (component, [y at u = -0.5, 0.5, 1.5, 2.5]), computed by hand:
    // linear: segments of slope 1 and 3; the last two points extend with slope 1 / 3;
    // periodic with period 2 maps -0.5 to 1.5 and 2.5 to 0.5.
    // constant: the value of the previous point; outside, LastTwoPoints is still the line
    // through the last two points.
    // Akima on y = x^2: slopes (0, 2, 4) are exact, so the spline is x^2 itself; outside it
    // continues with the end slope (0 on the left, 4 on the right).
    let expected: [(&str, [f64; 4]); 9] = [
        ("lh", [0.0, 0.5, 2.5, 4.0]),
        ("ll", [-0.5, 0.5, 2.5, 5.5]),
        ("lp", [2.5, 0.5, 2.5, 0.5]),
        ("ch", [0.0, 0.0, 1.0, 4.0]),
        ("cl", [-0.5, 0.0, 1.0, 5.5]),
        ("cp", [1.0, 0.0, 1.0, 0.0]),
        ("ah", [0.0, 0.25, 2.25, 4.0]),
        ("al", [0.0, 0.25, 2.25, 6.0]),
        ("ap", [2.25, 0.25, 2.25, 0.25]),
    ];
    for (c, ys) in expected {
        for (u, y) in [-0.5, 0.5, 1.5, 2.5].iter().zip(ys) {
            let got = at(&r, &format!("{c}.y"), u + 1.0);
            assert!((got - y).abs() < 1e-9, "{c}: y({u}) = {got}, expected {y}");
        }
        // The access function with a constant argument is evaluated while flattening.
        assert!((at(&r, &format!("{c}.umax_copy"), 0.0) - 2.0).abs() < 1e-12);
    }
}

#[test]
fn no_extrapolation_stops_with_the_abscissa() {
    let m = r#"
model M
  T.Lookup l(extrapolation = T.Extrapolation.NoExtrapolation, u = time - 1);
end M;
"#;
    let e = sim(m, 2.0).expect_err("extrapolation must fail");
    assert!(e.contains("extrapolation error"), "{e}");
    assert!(e.contains("minimum abscissa value 0"), "{e}");
}

#[test]
fn time_table_jump_is_an_event() {
    // y = 0 until t = 1, then 1 (a jump given by the repeated time point); x integrates y.
    // Stepping across the jump would smear it; as an event, x(t) = t - 1 exactly after it.
    let m = r#"
model M
  T.TimeSource src(table = [0, 0; 1, 0; 1, 1; 3, 1]);
  Real x(start = 0, fixed = true);
equation
  der(x) = src.y;
end M;
"#;
    let r = sim(m, 2.0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(at(&r, "src.y", 0.99), 0.0);
    assert_eq!(at(&r, "src.y", 1.01), 1.0);
    for t in [0.5, 1.25, 1.5, 2.0] {
        let exact = (t - 1.0f64).max(0.0);
        let got = at(&r, "x", t);
        assert!(
            (got - exact).abs() < 1e-6,
            "x({t}) = {got}, expected {exact}"
        );
    }
    assert!(
        r.time.iter().any(|&t| (t - 1.0).abs() < 1e-9),
        "no result point at the jump"
    );
}

#[test]
fn time_table_start_shift_and_periodic_constant_segments() {
    // Period 2 starting at t = 0.5 (shift = start): y = 0 before the start, then 1 on the
    // first half of each period and 2 on the second. The model has no states: the events of
    // `time >= pre(next)` must be found without an integrator.
    let m = r#"
model M
  T.TimeSource src(table = [0, 1; 1, 2; 2, 3], smoothness = T.Smoothness.ConstantSegments,
    extrapolation = T.Extrapolation.Periodic, startTime = 0.5);
end M;
"#;
    let r = sim(m, 5.0).unwrap_or_else(|e| panic!("{e}"));
    for (t, y) in [
        (0.25, 0.0),
        (0.75, 1.0),
        (1.75, 2.0),
        (2.75, 1.0),
        (3.75, 2.0),
        (4.75, 1.0),
    ] {
        assert_eq!(at(&r, "src.y", t), y, "y({t})");
    }
}

#[test]
fn time_table_derivatives_use_the_declared_derivative_functions() {
    // Akima through y = t^2 at t = 1, 2, 3 reproduces t^2 (its slopes 2, 4, 6 are exact);
    // before t = 1 the last two points extend it with slope 2. startTime = 0 puts a jump of
    // the output (0 before, -1 at t = 0) at the start: a difference quotient across it gave
    // der(y) = -1/(2h) at t = 0 instead of the slope 2 of getDerValue.
    let m = r#"
model M
  T.TimeSource src(table = [1, 1; 2, 4; 3, 9],
    smoothness = T.Smoothness.ContinuousDerivative, shiftTime = 0);
  Real dy = der(src.y);
  Real d2y = der(dy);
end M;
"#;
    let r = sim(m, 2.5).unwrap_or_else(|e| panic!("{e}"));
    for (t, y, dy, d2y) in [
        (0.0, -1.0, 2.0, 0.0),
        (0.5, 0.0, 2.0, 0.0),
        (1.5, 2.25, 3.0, 2.0),
    ] {
        for (name, want) in [("src.y", y), ("dy", dy), ("d2y", d2y)] {
            let got = at(&r, name, t);
            assert!(
                (got - want).abs() < 1e-9,
                "{name}({t}) = {got}, expected {want}"
            );
        }
    }
}

#[test]
fn periodic_time_table_events_survive_rounding() {
    // Period 0.4 from t = 0.6: the event times k*0.4 + 0.7 computed by wrapping come out a
    // few ulps off; an event "after" t that nearly equals t was taken as the next one and
    // then never fired, so the output kept the segment before 0.7 (1) after t = 1.9.
    let m = r#"
model M
  T.TimeSource src(table = [0.6, 1; 0.7, 2; 0.7, 3; 1.0, 4],
    smoothness = T.Smoothness.ConstantSegments, extrapolation = T.Extrapolation.Periodic);
end M;
"#;
    let r = sim(m, 2.5).unwrap_or_else(|e| panic!("{e}"));
    for (t, y) in [
        (0.65, 1.0),
        (0.75, 3.0),
        (1.05, 1.0),
        (1.15, 3.0),
        (1.85, 1.0),
        (1.91, 3.0),
        (2.25, 1.0),
        (2.35, 3.0),
    ] {
        assert_eq!(at(&r, "src.y", t), y, "y({t})");
    }
}

#[test]
fn constant_2d_table_extends_the_edge_cell_linearly() {
    // u1 = {2, 3}, u2 = {0, 1}; y = u1 + 10 u2 at the corners. Inside, constant segments
    // give the lower-left corner's value; outside, LastTwoPoints extends the edge cell
    // bilinearly, as a 1-D constant table extends through its last two points.
    let m = r#"
model M
  parameter T.Table2D tab = T.Table2D("NoName", "NoName", [0, 0, 1; 2, 2, 12; 3, 3, 13],
    T.Smoothness.ConstantSegments, T.Extrapolation.LastTwoPoints);
  Real inside = T.value2D(tab, 2.5, 0.5);
  Real below = T.value2D(tab, 2.5 - 3*time, 0.5);
  Real beyond = T.value2D(tab, 2.5, 0.5 + time);
end M;
"#;
    let r = sim(m, 1.0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(at(&r, "inside", 0.5), 2.0);
    // u1 = 1 (time 0.5), u2 = 0.5: 1 + 5.
    assert!((at(&r, "below", 0.5) - 6.0).abs() < 1e-9);
    // u1 = 2.5, u2 = 1.5 (time 1): 2.5 + 15.
    assert!((at(&r, "beyond", 1.0) - 17.5).abs() < 1e-9);
}

#[test]
fn file_tables_are_refused_with_the_file_name() {
    let m = r#"
model M
  parameter T.Table1D tab = T.Table1D("tab1", "data.txt", fill(0.0, 0, 2), {2}, T.Smoothness.LinearSegments);
  Real y = T.value1D(tab, 1, time);
end M;
"#;
    let e = sim(m, 1.0).expect_err("a file table must fail");
    assert!(
        e.contains("tables read from files are not supported"),
        "{e}"
    );
    assert!(e.contains("data.txt"), "{e}");
    assert!(e.contains("tables.mo:"), "the error is located: {e}");
}

#[test]
fn other_external_functions_name_the_c_function() {
    let m = r#"
function f
  input Real x;
  output Real y;
  external "C" y = my_c_function(x);
end f;
model M
  Real y = f(time);
end M;
"#;
    let e = sim(m, 1.0).expect_err("an external C function must fail");
    assert!(e.contains("my_c_function"), "{e}");
    assert!(e.contains("cannot link"), "{e}");
}

#[test]
fn external_call_in_a_branch_not_taken_is_harmless() {
    // MSL's tables call `Strings.isEmpty(fileName)` (a C function) only when tableOnFile.
    let m = r#"
function f
  input Real x;
  output Real y;
  external "C" y = my_c_function(x);
end f;
model M
  parameter Boolean useC = false;
  Real y = if useC then f(time) else 2*time;
end M;
"#;
    let r = sim(m, 1.0).unwrap_or_else(|e| panic!("{e}"));
    assert!((at(&r, "y", 0.5) - 1.0).abs() < 1e-12);
}

/// The table x = {0, 1, 2, 3}, y = {0, 0, 1, 10} (flat, then steep) looked up at u = time - 0.5
/// with each of the newer spline kinds.
const SPLINES: &str = r#"
model M
  import T.Smoothness;
  parameter Real tab[:, :] = [0, 0; 1, 0; 2, 1; 3, 10];
  T.Lookup fb(table = tab, smoothness = Smoothness.MonotoneContinuousDerivative1, u = time - 0.5);
  T.Lookup st(table = tab, smoothness = Smoothness.MonotoneContinuousDerivative2, u = time - 0.5);
  T.Lookup mk(table = tab, smoothness = Smoothness.ModifiedContinuousDerivative, u = time - 0.5);
  T.Lookup ak(table = tab, smoothness = Smoothness.ContinuousDerivative, u = time - 0.5);
end M;
"#;

/// Cubic Hermite value on [x0, x0 + 1] at x0 + t (unit spacing), written out independently.
fn hermite_unit(y0: f64, y1: f64, d0: f64, d1: f64, t: f64) -> f64 {
    let (t2, t3) = (t * t, t * t * t);
    (2.0 * t3 - 3.0 * t2 + 1.0) * y0
        + (t3 - 2.0 * t2 + t) * d0
        + (-2.0 * t3 + 3.0 * t2) * y1
        + (t3 - t2) * d1
}

#[test]
fn monotone_and_modified_akima_splines() {
    let r = sim(SPLINES, 4.0).unwrap_or_else(|e| panic!("{e}"));
    // Secants 0, 1, 9. Slopes at x = 0, 1, 2, 3, by hand:
    // Fritsch-Butland: ends take the end secants; at x = 1 a secant is 0, so 0; at x = 2
    // 3 (1 + 1) / ((1 + 2) / 1 + (1 + 2) / 9) = 1.8.
    // Steffen: at x = 2 the parabola slope (1 + 9) / 2 = 5 exceeds twice the smaller secant,
    // so 2 * 1 = 2.
    // makima: secants extended to -2, -1 | 0, 1, 9 | 17, 25; weights |d_{k+1} - d_k| +
    // |d_{k+1} + d_k| / 2 give -0.375, 1.5 / 14.5, 34.5 / 22.5 and 482 / 42.
    let slopes: [(&str, [f64; 4]); 3] = [
        ("fb", [0.0, 0.0, 1.8, 9.0]),
        ("st", [0.0, 0.0, 2.0, 9.0]),
        ("mk", [-0.375, 1.5 / 14.5, 34.5 / 22.5, 482.0 / 42.0]),
    ];
    let ys = [0.0, 0.0, 1.0, 10.0];
    for (c, d) in slopes {
        for u in [0.25, 0.5, 1.5, 2.25, 2.75] {
            let k = (u as usize).min(2);
            let want = hermite_unit(ys[k], ys[k + 1], d[k], d[k + 1], u - k as f64);
            let got = at(&r, &format!("{c}.y"), u + 0.5);
            assert!(
                (got - want).abs() < 1e-9,
                "{c}: y({u}) = {got}, expected {want}"
            );
        }
        // Outside, the last two points extend the spline with its end slopes.
        let left = at(&r, &format!("{c}.y"), 0.0);
        assert!((left - (-0.5 * d[0])).abs() < 1e-9, "{c}: y(-0.5) = {left}");
        let right = at(&r, &format!("{c}.y"), 4.0);
        assert!(
            (right - (10.0 + 0.5 * d[3])).abs() < 1e-9,
            "{c}: y(3.5) = {right}"
        );
    }
    // The monotone splines never decrease over the table; Akima's undershoots on [0, 1].
    for c in ["fb", "st"] {
        let y = r.column(&format!("{c}.y")).expect("column");
        let t = &r.time;
        for k in 1..y.len() {
            if t[k] >= 0.5 && t[k] <= 3.5 {
                assert!(y[k] >= y[k - 1] - 1e-12, "{c} decreases at t = {}", t[k]);
            }
        }
    }
    assert!(
        at(&r, "ak.y", 1.0) < -1e-3,
        "Akima's spline dips below 0 on [0, 1]"
    );
}

#[test]
fn monotone_spline_derivatives_of_a_time_table() {
    // The same table over time; der(y) comes from getDerValue (the Hermite slope):
    // at t = 1.5, -0.25 d1 + 1.5 (y1 - y0) - 0.25 d2 with d1 = 0.
    let m = r#"
model M
  T.TimeSource fb(table = [0, 0; 1, 0; 2, 1; 3, 10],
    smoothness = T.Smoothness.MonotoneContinuousDerivative1);
  T.TimeSource st(table = [0, 0; 1, 0; 2, 1; 3, 10],
    smoothness = T.Smoothness.MonotoneContinuousDerivative2);
  Real dfb = der(fb.y);
  Real dst = der(st.y);
end M;
"#;
    let r = sim(m, 3.0).unwrap_or_else(|e| panic!("{e}"));
    for (name, want) in [
        ("fb.y", 0.275),
        ("st.y", 0.25),
        ("dfb", 1.5 - 0.25 * 1.8),
        ("dst", 1.5 - 0.25 * 2.0),
    ] {
        let got = at(&r, name, 1.5);
        assert!(
            (got - want).abs() < 1e-9,
            "{name}(1.5) = {got}, expected {want}"
        );
    }
}

#[test]
fn akima_surface_reproduces_u1_squared_times_u2() {
    // y = u1^2 u2 on the grid {0, 1, 2, 3}^2. Akima's bivariate method gets the exact partial
    // derivatives of such data (quadratic along u1 with even spacing, linear along u2, and
    // the extrapolated border rows and columns are exact too), and a bicubic patch through
    // exact values and derivatives is the function itself. Outside, LastTwoPoints continues
    // from the nearest edge point: p + p_1 e1 + p_2 e2 + p_12 e1 e2.
    let m = r#"
model M
  parameter Real grid[5, 5] = [0, 0, 1, 2, 3; 0, 0, 0, 0, 0; 1, 0, 1, 2, 3; 2, 0, 4, 8, 12;
    3, 0, 9, 18, 27];
  parameter T.Table2D tab = T.Table2D("NoName", "NoName", grid,
    T.Smoothness.ContinuousDerivative, T.Extrapolation.LastTwoPoints);
  parameter T.Table2D hold = T.Table2D("NoName", "NoName", grid,
    T.Smoothness.ContinuousDerivative, T.Extrapolation.HoldLastPoint);
  parameter T.Table2D row = T.Table2D("NoName", "NoName", [0, 0, 1, 2, 3; 5, 0, 1, 4, 9],
    T.Smoothness.ContinuousDerivative, T.Extrapolation.NoExtrapolation);
  Real inside = T.value2Dd(tab, 1.5, 2.5);
  Real beyond1 = T.value2Dd(tab, 3.5, 1.5);
  Real below2 = T.value2Dd(tab, 2, -1);
  Real heldCorner = T.value2Dd(hold, 3.5, 3.5);
  Real heldEdge = T.value2Dd(hold, 3.5, 1.5);
  Real alongRow = T.value2Dd(row, 100, 1.5);
  Real ya = T.value2Dd(tab, time, 2);
  Real yb = T.value2Dd(tab, time, time);
  Real yh = T.value2Dd(hold, time, time);
  Real dya = der(ya);
  Real d2ya = der(dya);
  Real dyb = der(yb);
  Real d2yb = der(dyb);
  Real dyh = der(yh);
end M;
"#;
    let r = sim(m, 4.0).unwrap_or_else(|e| panic!("{e}"));
    let checks: [(&str, f64, f64); 20] = [
        ("inside", 0.0, 2.25 * 2.5),
        // p(3, 1.5) = 13.5, p_1 = 9, e1 = 0.5.
        ("beyond1", 0.0, 18.0),
        // p(2, 0) = 0, p_2 = 4, e2 = -1.
        ("below2", 0.0, -4.0),
        ("heldCorner", 0.0, 27.0),
        ("heldEdge", 0.0, 13.5),
        // One row: the 1-D Akima spline along u2 (u2^2 exactly); u1 is not looked at.
        ("alongRow", 0.0, 2.25),
        // u1 = t, u2 = 2: 2 t^2 inside, 18 + 12 (t - 3) beyond.
        ("ya", 1.5, 4.5),
        ("dya", 1.5, 6.0),
        ("d2ya", 1.5, 4.0),
        ("ya", 3.5, 24.0),
        ("dya", 3.5, 12.0),
        ("d2ya", 3.5, 0.0),
        // u1 = u2 = t: t^3 inside; at the corner 27 + 18 e + 9 e + 6 e^2 with e = t - 3.
        ("yb", 1.5, 3.375),
        ("dyb", 1.5, 6.75),
        ("d2yb", 1.5, 9.0),
        ("yb", 3.5, 42.0),
        ("dyb", 3.5, 33.0),
        ("d2yb", 3.5, 12.0),
        ("yh", 3.5, 27.0),
        ("dyh", 3.5, 0.0),
    ];
    for (name, t, want) in checks {
        let got = at(&r, name, t);
        assert!(
            (got - want).abs() < 1e-9,
            "{name}({t}) = {got}, expected {want}"
        );
    }
}

#[test]
fn monotone_smoothness_of_a_2d_table_is_refused() {
    let m = r#"
model M
  parameter T.Table2D tab = T.Table2D("NoName", "NoName", [0, 0, 1, 2; 0, 0, 1, 2; 1, 1, 2, 3;
    2, 2, 3, 4], T.Smoothness.MonotoneContinuousDerivative1, T.Extrapolation.LastTwoPoints);
  Real y = T.value2D(tab, time, time);
end M;
"#;
    let e = sim(m, 1.0).expect_err("no bivariate monotone spline");
    assert!(e.contains("not implemented for 2-D tables"), "{e}");
}

#[test]
fn a_2d_table_with_one_u2_value_ignores_u2() {
    // One u2 value (1): the table is the 1-D one over u1 = {2, 3, 4}, whatever u2 is. With
    // constant segments u1 = 2.5 gives 4; u2 = 2.5 lies beyond the single u2 value, which
    // extended the edge "cell" linearly in u1 (4 + 5 * 0.5) before. NoExtrapolation does not
    // look at u2 either.
    let m = r#"
model M
  parameter T.Table2D c = T.Table2D("NoName", "NoName", [1, 1; 2, 4; 3, 9; 4, 16],
    T.Smoothness.ConstantSegments, T.Extrapolation.LastTwoPoints);
  parameter T.Table2D l = T.Table2D("NoName", "NoName", [1, 1; 2, 4; 3, 9; 4, 16],
    T.Smoothness.LinearSegments, T.Extrapolation.NoExtrapolation);
  Real yc = T.value2D(c, 2 + time, 2 + time);
  Real yl = T.value2D(l, 2 + time, 2 + time);
end M;
"#;
    let r = sim(m, 1.0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(at(&r, "yc", 0.5), 4.0);
    assert!((at(&r, "yl", 0.5) - 6.5).abs() < 1e-9);
}

#[test]
fn periodic_time_table_never_shows_a_hidden_middle_value() {
    // Three values at t = 0.6 (and 0.7, 1.0): the middle one (-20) is never the output; the
    // left limit at an event is the end of the previous period. At t = 2.2 = 0.6 + 4 * 0.4
    // the wrapped event point came out a rounding error above 0.6, was snapped onto 0.6 and
    // taken as the start of a period, so the output showed -20 there.
    let m = r#"
model M
  T.TimeSource src(table = [0.6, -2; 0.6, -20; 0.6, -3; 0.7, -2; 0.7, 0; 0.7, -2; 1, -5;
    1, -6; 1, -4], smoothness = T.Smoothness.ConstantSegments,
    extrapolation = T.Extrapolation.Periodic);
end M;
"#;
    let r = sim(m, 2.5).unwrap_or_else(|e| panic!("{e}"));
    let y = r.column("src.y").expect("column");
    for (t, y) in r.time.iter().zip(&y) {
        assert!(*y != -20.0, "the hidden value shows at t = {t}");
    }
    assert_eq!(at(&r, "src.y", 2.25), -3.0);
}
