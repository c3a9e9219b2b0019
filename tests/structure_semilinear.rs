//! `semiLinear` at zero flow (MLS 3.7.4.5, rule 1): a pump between an ambient and a pipe
//! stops; the port enthalpies along the stream are then determined by the rule's choice (the
//! upstream value), not left undetermined (a NaN or a singular loop).

mod flatten_common;
use flatten_common::sim_options;
use minimo::structure::{AnalyzeOptions, analyze};

const STREAM: &str = r#"
connector Port
  Real p;
  Real h;
  flow Real m_flow;
  flow Real H_flow;
end Port;
model Ambient
  parameter Real h0;
  Port port;
  Real h;
equation
  h = h0;
  port.p = 0;
  port.H_flow = semiLinear(port.m_flow, port.h, h);
end Ambient;
model Pump "massless, prescribed flow a -> b"
  Port a;
  Port b;
  Real h "enthalpy inside";
  Real m_flow;
  Real dp "pressure rise";
equation
  dp = b.p - a.p;
  m_flow = if time < 0.5 then 1 elseif time < 1 then 0 else -1;
  a.m_flow = m_flow;
  a.m_flow + b.m_flow = 0;
  a.H_flow + b.H_flow = 0;
  a.H_flow = semiLinear(a.m_flow, a.h, h);
  b.H_flow = semiLinear(b.m_flow, b.h, h);
end Pump;
model Pipe
  parameter Real M = 0.25;
  Port a;
  Port b;
  Real h(start = 10, fixed = true);
equation
  a.p - b.p = 2*a.m_flow;
  a.m_flow + b.m_flow = 0;
  M*der(h) = a.H_flow + b.H_flow;
  a.H_flow = semiLinear(a.m_flow, a.h, h);
  b.H_flow = semiLinear(b.m_flow, b.h, h);
end Pipe;
model Loop
  Ambient inlet(h0 = 2);
  Pump pump;
  Pipe pipe;
  Ambient outlet(h0 = 5);
equation
  connect(inlet.port, pump.a);
  connect(pump.b, pipe.a);
  connect(pipe.b, outlet.port);
end Loop;
"#;

#[test]
fn stopped_pump_leaves_the_enthalpies_determined() {
    let flat = minimo::flatten::flatten_source("loop.mo", STREAM, Some("Loop")).unwrap();
    let a = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let r = minimo::sim::simulate_analysis(&a, &sim_options(1.5, 0.05, 1e-9))
        .unwrap_or_else(|e| panic!("{e:?}"));
    let h = |t: f64| r.value_at("pipe.h", t).unwrap();
    let tau = 0.25; // M / |m_flow|
    // Flow 1 from the inlet: h relaxes from 10 to the inlet's 2.
    let h05 = 2.0 + 8.0 * (-0.5f64 / tau).exp();
    assert!((h(0.5) - h05).abs() < 1e-5, "pipe.h(0.5) = {}", h(0.5));
    // Zero flow: nothing moves, every value stays finite; the pump's enthalpy is the
    // upstream (inlet) value by rule 1.
    for t in [0.6, 0.75, 0.95] {
        assert!((h(t) - h05).abs() < 1e-5, "pipe.h({t}) = {}", h(t));
        let hp = r.value_at("pump.h", t).unwrap();
        assert!((hp - 2.0).abs() < 1e-9, "pump.h({t}) = {hp}");
        let hb = r.value_at("pump.b.h", t).unwrap();
        assert!((hb - 2.0).abs() < 1e-9, "pump.b.h({t}) = {hb}");
    }
    // Reversed flow: the outlet's 5 flows in through b.
    let h15 = 5.0 + (h05 - 5.0) * (-0.5f64 / tau).exp();
    assert!((h(1.5) - h15).abs() < 1e-5, "pipe.h(1.5) = {}", h(1.5));
    let hp = r.value_at("pump.h", 1.4).unwrap();
    assert!(
        (hp - h(1.4)).abs() < 1e-6,
        "pump.h(1.4) = {hp}, pipe.h = {}",
        h(1.4)
    );
}

/// The pump feeds two pipes in parallel, which join at the outlet: two junctions of three
/// ports each. While the pump stands still every flow is zero, and a junction's enthalpy
/// enters its equations only as `semiLinear(0, h, ...)` (no MLS rule applies to a junction):
/// its block's Jacobian is singular. The states are still determined (nothing flows, so they
/// stay put); the derivatives through the block are the least-squares ones, not NaN (which
/// made the integrator reject every step and the run end with `pipe1.h` NaN).
#[test]
fn stopped_pump_before_a_junction_keeps_the_states() {
    let text = format!(
        "{STREAM}
model Parallel
  Ambient inlet(h0 = 2);
  Pump pump;
  Pipe pipe1(M = 0.25);
  Pipe pipe2(M = 0.5);
  Ambient outlet(h0 = 5);
equation
  connect(inlet.port, pump.a);
  connect(pump.b, pipe1.a);
  connect(pump.b, pipe2.a);
  connect(pipe1.b, outlet.port);
  connect(pipe2.b, outlet.port);
end Parallel;
"
    );
    let flat = minimo::flatten::flatten_source("parallel.mo", &text, Some("Parallel")).unwrap();
    let a = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let r = minimo::sim::simulate_analysis(&a, &sim_options(1.5, 0.05, 1e-9))
        .unwrap_or_else(|e| panic!("{e:?}"));
    // Equal resistances: each pipe carries half the pump's flow, so h relaxes with
    // tau = M / 0.5, towards the inlet's 2, then (reversed) towards the outlet's 5.
    for (pipe, m) in [("pipe1.h", 0.25f64), ("pipe2.h", 0.5)] {
        let tau = m / 0.5;
        let h = |t: f64| r.value_at(pipe, t).unwrap();
        let h05 = 2.0 + 8.0 * (-0.5 / tau).exp();
        assert!((h(0.5) - h05).abs() < 1e-5, "{pipe}(0.5) = {}", h(0.5));
        for t in [0.6, 0.75, 0.95] {
            assert!((h(t) - h05).abs() < 1e-5, "{pipe}({t}) = {}", h(t));
        }
        let h15 = 5.0 + (h05 - 5.0) * (-0.5 / tau).exp();
        assert!((h(1.5) - h15).abs() < 1e-5, "{pipe}(1.5) = {}", h(1.5));
    }
}
