//! Dummy derivatives whose structural choice is singular at every point: three windings in star
//! with a zero-sequence inductance and a space phasor (the shape of the MSL's `SpacePhasor` in
//! a machine connected in star). The star point forces the zero-sequence current `i0` to 0, a
//! hidden constraint; the rows that say so have constant coefficients that cancel when all the
//! phase and pin currents are dummies, so `i0` cannot stay a state although it is declared first
//! (which the structural ranking prefers). The choice must keep both space-phasor currents.

mod flatten_common;

use flatten_common::{at, close, sim_options, simulate_text};

const STAR: &str = "
model Star
  parameter Real T[2, 3] = 2/3*[1, -1/2, -1/2; 0, sqrt(3)/2, -sqrt(3)/2];
  parameter Real r = 1;
  Real i0 \"zero-sequence current\";
  Real i[3] \"phase currents\";
  Real p[3] \"pin currents at the star point\";
  Real ia[2](each start = 0) \"space phasor (no fixed start: the ranking then prefers i0)\";
  Real v0 \"zero-sequence voltage\";
equation
  0.05*der(i0) = v0;
  -3*i0 = i[1] + i[2] + i[3];
  for k in 1:3 loop
    i[k]*r = -p[k];
  end for;
  p[1] + p[2] + p[3] = 0;
  -ia = T*i;
  for k in 1:2 loop
    0.1*der(ia[k]) + ia[k] = sin(time + k);
  end for;
end Star;
";

/// `0.1 y' + y = sin(t + phi)`, `y(0) = 0`.
fn lag(t: f64, phi: f64) -> f64 {
    let forced = |t: f64| ((t + phi).sin() - 0.1 * (t + phi).cos()) / 1.01;
    forced(t) - forced(0.0) * (-10.0 * t).exp()
}

#[test]
fn star_point_keeps_the_space_phasor_as_states() {
    let flat = flatten_common::flat_model(STAR, None);
    let analysis =
        minimo::structure::analyze(flat, &minimo::structure::AnalyzeOptions::default()).unwrap();
    let sys = &analysis.system;
    let mut states: Vec<String> = sys
        .states
        .iter()
        .map(|s| sys.model.variables[s.var].name.clone())
        .collect();
    states.sort();
    assert_eq!(states, ["ia[1]", "ia[2]"]);

    let r = simulate_text(STAR, &sim_options(1.0, 0.25, 1e-9)).unwrap();
    for t in [0.25, 1.0] {
        close(at(&r, "ia[1]", t), lag(t, 1.0), 1e-6, "ia[1]");
        close(at(&r, "ia[2]", t), lag(t, 2.0), 1e-6, "ia[2]");
        close(at(&r, "i0", t), 0.0, 1e-9, "i0");
        let sum: f64 = (1..=3).map(|k| at(&r, &format!("i[{k}]"), t)).sum();
        close(sum, 0.0, 1e-9, "sum of the phase currents");
    }
}
