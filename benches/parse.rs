//! Benchmark: parse throughput (MB/s) on a generated multi-megabyte file made of realistic
//! models: connectors, partial models, components with modifications and annotations,
//! equations with for/if/when, functions with algorithms, and long annotation blocks.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::fmt::Write;
use std::hint::black_box;

/// One package of realistic models; `i` makes every name unique.
fn package(out: &mut String, i: usize) {
    let _ = write!(
        out,
        r#"package Lib{i} "generated library {i}"
  import SI = Modelica.Units.SI;
  import Modelica.Math.{{sin, cos}};
  connector Pin{i} "electrical pin"
    SI.Voltage v "potential at the pin";
    flow SI.Current i "current into the pin";
    annotation(Icon(graphics = {{Rectangle(extent = {{{{-100, 100}}, {{100, -100}}}}, lineColor = {{0, 0, 255}},
      fillColor = {{0, 0, 255}}, fillPattern = FillPattern.Solid)}}));
  end Pin{i};

  partial model OnePort{i} "component with two pins"
    SI.Voltage v "voltage drop";
    SI.Current i "current through";
    Pin{i} p annotation(Placement(transformation(extent = {{{{-110, -10}}, {{-90, 10}}}})));
    Pin{i} n annotation(Placement(transformation(extent = {{{{90, -10}}, {{110, 10}}}})));
  equation
    v = p.v - n.v;
    0 = p.i + n.i;
    i = p.i;
  end OnePort{i};

  model Resistor{i} "ideal resistor"
    extends OnePort{i};
    parameter SI.Resistance R(start = 1, min = 0) = {r} "resistance";
    parameter Real alpha = 0.004 "temperature coefficient";
    SI.Temperature T(start = 293.15, fixed = true);
  equation
    v = R * (1 + alpha * (T - 293.15)) * i;
    der(T) = (v * i - 0.1 * (T - 293.15)) / 10;
    annotation(Documentation(info = "<html><p>Resistor {i}: <em>v = R*i</em>.</p></html>"),
      Icon(graphics = {{Line(points = {{{{-90, 0}}, {{-70, 0}}}}, color = {{0, 0, 255}}),
        Rectangle(extent = {{{{-70, 30}}, {{70, -30}}}}, lineColor = {{0, 0, 255}}),
        Text(extent = {{{{-150, 90}}, {{150, 50}}}}, textString = "%name")}}));
  end Resistor{i};

  model Ladder{i} "RC ladder"
    parameter Integer n = 8;
    parameter Real c[n] = {{1e-3 * k for k in 1:n}};
    Real u[n](each start = 0, each fixed = true);
    Real q[n];
    Boolean saturated[n];
    discrete Integer hits(start = 0);
  equation
    for k in 1:n loop
      q[k] = c[k] * u[k];
      if k == 1 then
        der(q[k]) = (sin(2 * Modelica.Constants.pi * time) - u[k]) / 10 - (u[k] - u[k + 1]) / 10;
      elseif k < n then
        der(q[k]) = (u[k - 1] - u[k]) / 10 - (u[k] - u[k + 1]) / 10;
      else
        der(q[k]) = (u[k - 1] - u[k]) / 10;
      end if;
      saturated[k] = abs(u[k]) > 0.9 and not initial();
    end for;
    when saturated[n] then
      hits = pre(hits) + 1;
    end when;
    annotation(experiment(StopTime = 10, Interval = 0.01, Tolerance = 1e-6));
  end Ladder{i};

  function interpolate{i} "linear interpolation in a table"
    input Real table[:, 2];
    input Real x;
    output Real y;
  protected
    Integer k := 1;
    Real w;
  algorithm
    while k < size(table, 1) - 1 and x > table[k + 1, 1] loop
      k := k + 1;
    end while;
    w := (x - table[k, 1]) / (table[k + 1, 1] - table[k, 1]);
    y := (1 - w) * table[k, 2] + w * table[k + 1, 2];
    annotation(smoothOrder = 1, Inline = true);
  end interpolate{i};

  model Circuit{i} "a circuit with replaceable parts"
    replaceable model Load = Resistor{i} constrainedby OnePort{i} "load model";
    Resistor{i} r1(R = 10), r2(R = 20, T(start = 300));
    Load load(final R = 5);
    Ladder{i} ladder(n = 8, c = fill(2e-3, 8));
    Real y = interpolate{i}([0, 0; 1, 2; 2, 3], time);
  equation
    connect(r1.n, r2.p) annotation(Line(points = {{{{-40, 0}}, {{40, 0}}}}, color = {{0, 0, 255}}));
    connect(r2.n, load.p);
    connect(load.n, r1.p);
    r1.p.v = if time < 1 then 0 else 10 * cos(time) ^ 2;
  end Circuit{i};
end Lib{i};

"#,
        r = 100 + i % 7
    );
}

/// A file of at least `bytes` bytes.
fn generate(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 8192);
    let mut i = 0;
    while out.len() < bytes {
        package(&mut out, i);
        i += 1;
    }
    out
}

fn bench_parse(c: &mut Criterion) {
    let text = generate(4 << 20);
    // The input must be valid, or the benchmark would time the error path.
    if let Err(ds) = minimo::syntax::parse(&text, 0) {
        panic!("generated benchmark input does not parse: {ds:?}");
    }
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.bench_function(format!("generated_{}MB", text.len() >> 20), |b| {
        b.iter(|| minimo::syntax::parse(black_box(&text), 0))
    });
    group.finish();
}

criterion_group!(benches, bench_parse);
criterion_main!(benches);
