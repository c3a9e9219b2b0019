//! Stream connectors (MLS 15): `inStream` and `actualStream` from the connection sets, the
//! equations of outside stream connectors, and the declaration rules.

mod flatten_common;
use flatten_common::{assert_err, flat_model};
use minimo::sim::{SimOptions, simulate_analysis};
use minimo::structure::{AnalyzeOptions, analyze};

const LIB: &str = r#"
connector Port
  Real p;
  flow Real m_flow;
  stream Real h;
end Port;
model Source "pushes m flow at enthalpy h0 into its port"
  parameter Real m = 1;
  parameter Real h0 = 10;
  Port port;
  Real h_in = inStream(port.h);
equation
  port.m_flow = -m;
  port.h = h0;
end Source;
model Sink "takes whatever arrives; fixes the pressure"
  parameter Real h0 = 20;
  Port port;
  Real h_in = inStream(port.h);
  Real h_act = actualStream(port.h);
equation
  port.p = 1;
  port.h = h0;
end Sink;
model Pipe "passes the stream through"
  Port a;
  Port b;
equation
  a.m_flow + b.m_flow = 0;
  a.p - b.p = a.m_flow;
  a.h = inStream(b.h);
  b.h = inStream(a.h);
end Pipe;
model Wrapped "a pipe inside a component: outside stream equations"
  Port a;
  Port b;
  Pipe pipe;
equation
  connect(a, pipe.a);
  connect(pipe.b, b);
end Wrapped;
model Line
  Source src(m = 2);
  Wrapped w;
  Sink snk;
equation
  connect(src.port, w.a);
  connect(w.b, snk.port);
end Line;
model Mix "two sources into one sink: the mixing rule"
  Source s1(m = 1, h0 = 10);
  Source s2(m = 3, h0 = 30);
  Sink snk;
equation
  connect(s1.port, snk.port);
  connect(s2.port, snk.port);
end Mix;
"#;

fn simulate(model: &str) -> minimo::sim::SimResult {
    let flat = flat_model(LIB, Some(model));
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.5),
        ..Default::default()
    };
    simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn in_stream_passes_through_components_and_hierarchy() {
    let r = simulate("Line");
    // The sink sees the source's enthalpy through the wrapped pipe, and the reverse.
    assert_eq!(r.value_at("snk.h_in", 1.0), Some(10.0));
    assert_eq!(r.value_at("src.h_in", 1.0), Some(20.0));
    // Flow into the sink: actualStream is the incoming enthalpy.
    assert_eq!(r.value_at("snk.h_act", 1.0), Some(10.0));
    // The outside connectors of the wrapper get their stream equations.
    assert_eq!(r.value_at("w.a.h", 1.0), Some(20.0));
    assert_eq!(r.value_at("w.b.h", 1.0), Some(10.0));
}

#[test]
fn three_connected_ports_mix_by_flow() {
    let r = simulate("Mix");
    let h = r.value_at("snk.h_in", 1.0).unwrap();
    assert!((h - (1.0 * 10.0 + 3.0 * 30.0) / 4.0).abs() < 1e-9, "{h}");
    // For a source, the inflow comes from the other source only (the sink takes 4).
    let h1 = r.value_at("s1.h_in", 1.0).unwrap();
    assert!((h1 - 30.0).abs() < 1e-9, "{h1}");
}

#[test]
fn stream_declaration_rules() {
    assert_err(
        "model M\n  stream Real x = 1;\nend M;\n",
        Some("M"),
        &["declared `stream` outside a connector"],
    );
    assert_err(
        "connector S\n  Real p;\n  stream Real h;\nend S;\nmodel M\n  S s(p = 1, h = 2);\nend M;\n",
        Some("M"),
        &["connector `S` is not balanced: 0 flow variable(s) but 1 potential variable(s)"],
    );
    assert_err(
        "connector C\n  Real p;\n  flow Real f;\nend C;\nmodel M\n  C c(p = 1);\n  Real x = inStream(c.p);\nend M;\n",
        Some("M"),
        &["must be a stream variable"],
    );
}

/// A pump's steady-state energy balance `0 = a.m_flow*actualStream(a.h) +
/// b.m_flow*actualStream(b.h) + m_flow*dp/rho(h)`: the outflow gets the inflow's enthalpy plus
/// `dp/rho`. The flow is a state that initialization moves away from its start value 0.
const PUMP: &str = r#"
model PumpFlow
  connector Port
    Real p;
    flow Real m_flow;
    stream Real h;
  end Port;
  model Source
    parameter Real h0 = 1e5;
    Port port;
  equation
    port.p = 1e5;
    port.h = h0;
  end Source;
  model Pump
    parameter Real dp = 1e5;
    Port a;
    Port b;
    Real m_flow = a.m_flow;
    Real h(start = 3e5);
    Real rho = 1000 - h/1000 "density of the outflow";
  equation
    a.m_flow + b.m_flow = 0;
    a.h = h;
    b.h = h;
    0 = a.m_flow*actualStream(a.h) + b.m_flow*actualStream(b.h) + m_flow*dp/rho;
  end Pump;
  Source src;
  Source snk(h0 = 2e5);
  Pump pump;
  Real x(start = 0) "the flow";
equation
  connect(src.port, pump.a);
  connect(pump.b, snk.port);
  pump.m_flow = x;
  der(x) = -1;
initial equation
  x = 0.5;
end PumpFlow;
"#;

/// MLS 15.3: `m_flow*actualStream(h)` is continuous where `m_flow > 0` switches, so the
/// relation is evaluated without events. Frozen as an event relation, it kept its value at the
/// start point of zero flow (false) through the initial system's iterations, which made the
/// balance read `0 = m_flow*dp/rho` and the pump's loop unsolvable once the flow moved
/// ("could not be solved: Newton did not converge" at time 0, before this rule).
#[test]
fn a_flow_times_its_actual_stream_switches_without_events() {
    let flat = minimo::flatten::flatten_source("pump.mo", PUMP, None).unwrap();
    let analysis = analyze(flat, &AnalyzeOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    let opts = SimOptions {
        stop_time: Some(1.0),
        interval: Some(0.1),
        tolerance: Some(1e-8),
        ..Default::default()
    };
    let r = simulate_analysis(&analysis, &opts).unwrap_or_else(|e| panic!("{e:?}"));
    // h = h_in + sign(m_flow)*dp/rho(h) (the work m_flow*dp/rho per kg of what flows
    // through), by fixed-point iteration (a contraction: dp/rho is nearly flat).
    let pumped = |h_in: f64, sign: f64| {
        let mut h = h_in;
        for _ in 0..50 {
            h = h_in + sign * 1e5 / (1000.0 - h / 1000.0);
        }
        h
    };
    // Flow from src (1e5) at the start, from snk (2e5) after it reverses at t = 0.5.
    for (t, h_in, sign) in [
        (0.0, 1e5, 1.0),
        (0.3, 1e5, 1.0),
        (0.8, 2e5, -1.0),
        (1.0, 2e5, -1.0),
    ] {
        let h = r.value_at("pump.h", t).unwrap();
        assert!((h - pumped(h_in, sign)).abs() < 1e-6 * h, "t = {t}: {h}");
    }
    assert_eq!(r.stats.events, 0, "the flow reversal is no event");
}
