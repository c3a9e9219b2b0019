//! Flattening snapshot tests: each model's flat Modelica text is compared with the reviewed
//! snapshot in `tests/snapshots/`. The comment on each test says what the snapshot must show.

mod flatten_common;
use flatten_common::flat;
#[path = "flatten/chain.rs"]
mod chain;
use chain::mass_spring_chain;

macro_rules! snap {
    ($name:ident, $model:expr, $text:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), flat($text, $model));
        }
    };
}

// ---- 2. lookup: enclosing scopes, imports, encapsulated ----

// A nested package's model uses a sibling class and a package constant through enclosing scopes.
snap!(
    lookup_enclosing_scopes,
    Some("P.M"),
    r#"
package P
  constant Real c = 2;
  connector C Real e; flow Real f; end C;
  model M
    C a;
    Real y;
  equation
    a.e = c*y;
    y = 1;
  end M;
end P;
"#
);

// Named, aliased, unqualified and multiple imports.
snap!(
    lookup_imports,
    Some("Top"),
    r#"
package Lib
  package Consts constant Real pi2 = 6.28; end Consts;
  model A Real x = 1; end A;
  model B Real y = 2; end B;
  model C Real z = 3; end C;
end Lib;
model Top
  import Lib.A;
  import BB = Lib.B;
  import Lib.Consts.*;
  import Lib.{C};
  A a; BB b; C c;
  Real w = pi2;
end Top;
"#
);

// An encapsulated model still finds built-in types and imports, and local names first.
snap!(
    lookup_encapsulated,
    Some("Outer.Inner"),
    r#"
package Outer
  constant Real k = 5;
  encapsulated model Inner
    import Outer.k;
    Real x = k;
  end Inner;
end Outer;
"#
);

// ---- 3. inheritance ----

// Several extends, an extends modifier, inherited equations.
snap!(
    inherit_multiple_extends,
    Some("M"),
    r#"
partial model HasX Real x; end HasX;
partial model HasK parameter Real k = 1; end HasK;
model M
  extends HasX;
  extends HasK(k = 3);
equation
  der(x) = -k*x;
end M;
"#
);

// A diamond: the same declaration inherited twice is merged into one variable.
snap!(
    inherit_identical_duplicates_merged,
    Some("D"),
    r#"
partial model A Real a; end A;
partial model B extends A; end B;
partial model C extends A; end C;
model D
  extends B;
  extends C;
equation
  a = 1;
end D;
"#
);

// Modifiers on inherited components, nested through two levels of extends.
snap!(
    inherit_modifier_on_inherited_component,
    Some("Top"),
    r#"
model Base
  parameter Real p = 1;
  Real x(start = 0);
equation
  der(x) = p;
end Base;
model Mid extends Base(p = 2); end Mid;
model Top
  Mid m(p = 5, x(start = 1));
end Top;
"#
);

// ---- 4. modifiers ----

// Outer overrides inner, nested modifiers, each on arrays, final kept.
snap!(
    modifiers_outer_over_inner,
    Some("Top"),
    r#"
model Inner
  parameter Real a = 1;
  parameter Real b = a + 1;
end Inner;
model Mid
  Inner i(a = 2, b = 10);
end Mid;
model Top
  Mid m(i(a = 3));
  Mid n(i.b = 7);
end Top;
"#
);

// `each` gives every element the same value; without it, elements get elements.
snap!(
    modifiers_each_and_split,
    Some("Top"),
    r#"
model Cell parameter Real v = 0; Real x[2]; equation x = {v, 2*v}; end Cell;
model Top
  Cell a[3](each v = 4);
  Cell b[3](v = {1, 2, 3});
end Top;
"#
);

// Attribute modifiers: start, fixed, nominal, min, max, unit, displayUnit, stateSelect.
snap!(
    modifiers_attributes,
    Some("M"),
    r#"
model M
  Real x(start = 1, fixed = true, nominal = 10, min = -5, max = 5, unit = "m", displayUnit = "mm",
    stateSelect = StateSelect.prefer) "position";
  Real v[2](each start = 0.5, each unit = "m/s");
  parameter Real k(min = 0) = 2;
equation
  der(x) = v[1];
  der(v) = {-k*x, 0};
end M;
"#
);

// Type aliases with attributes (short classes of Real) and arrays on the type.
snap!(
    modifiers_short_type_with_attributes,
    Some("M"),
    r#"
type Length = Real(unit = "m", min = 0);
type Position3 = Real[3](each unit = "m");
model M
  Length l(start = 1) = 2;
  Position3 r = {1, 2, 3};
end M;
"#
);

// ---- 5. class parameters ----

// A replaceable model redeclared by a modifier with its own modifier, in one line.
snap!(
    class_param_redeclare_in_modifier,
    Some("Top"),
    r#"
partial model Law input Real v; output Real f; end Law;
model Viscous extends Law; parameter Real d = 1; equation f = d*v; end Viscous;
model Coulomb extends Law; parameter Real mu = 0.5; equation f = mu*noEvent(tanh(100*v)); end Coulomb;
model Slider
  replaceable model L = Viscous constrainedby Law;
  L law(v = vel);
  Real vel(start = 1);
  parameter Real m = 1;
equation
  m*der(vel) = -law.f;
end Slider;
model Top
  Slider a;
  Slider b(redeclare model L = Coulomb(mu = 0.3));
end Top;
"#
);

// A short class definition with a redeclaration (`model SliderCoulomb = Slider(redeclare ...)`).
snap!(
    class_param_short_class_with_redeclare,
    Some("SliderCoulomb"),
    r#"
partial model Law input Real v; output Real f; end Law;
model Viscous extends Law; parameter Real d = 1; equation f = d*v; end Viscous;
model Coulomb extends Law; parameter Real mu = 0.5; equation f = mu*v/(abs(v) + 0.01); end Coulomb;
model Slider
  replaceable model L = Viscous constrainedby Law;
  parameter Real muS = 0.2;
  L law(v = vel);
  Real vel(start = 1);
equation
  der(vel) = -law.f;
end Slider;
model SliderCoulomb = Slider(redeclare model L = Coulomb(mu = muS), muS = 0.3);
"#
);

// Redeclaring a replaceable component with a compatible type.
snap!(
    class_param_redeclare_component,
    Some("Top"),
    r#"
model Source Real y = 1; end Source;
model Sine Real y = sin(time); end Sine;
model Holder replaceable Source s; Real z = 2*s.y; end Holder;
model Top Holder h(redeclare Sine s); end Top;
"#
);

// `redeclare` as an element in a derived class, and constrainedby modifiers kept.
snap!(
    class_param_redeclare_element,
    Some("Derived"),
    r#"
partial model Law input Real v; output Real f; end Law;
model Viscous extends Law; parameter Real d = 1; equation f = d*v; end Viscous;
model Stiff extends Law; parameter Real d = 100; equation f = d*v; end Stiff;
model Base
  replaceable model L = Viscous constrainedby Law;
  L law(v = 1);
end Base;
model Derived
  extends Base;
  redeclare model L = Stiff(d = 50);
end Derived;
"#
);

// A redeclaration passed down two levels (`redeclare model L = L` of the enclosing class).
snap!(
    class_param_passed_down,
    Some("Top"),
    r#"
partial model Law input Real v; output Real f; end Law;
model Viscous extends Law; parameter Real d = 1; equation f = d*v; end Viscous;
model Quadratic extends Law; equation f = v*abs(v); end Quadratic;
model Wheel replaceable model L = Viscous constrainedby Law; L law(v = 2); end Wheel;
model Vehicle
  replaceable model L = Viscous constrainedby Law;
  Wheel w[2](redeclare each model L = L);
end Vehicle;
model Top Vehicle car(redeclare model L = Quadratic); end Top;
"#
);

// ---- 6. parameters ----

// Structural parameters (sizes, for ranges, if conditions, conditional components) are
// evaluated; other parameters stay symbolic with their bindings.
snap!(
    parameters_structural_and_symbolic,
    Some("M"),
    r#"
model M
  parameter Integer n = 3;
  parameter Boolean useDamper = false;
  parameter Real k = 2;
  parameter Real k2 = 2*k;
  Real x[n];
  Real d if useDamper;
equation
  for i in 1:n loop
    der(x[i]) = -k2*x[i];
  end for;
  if useDamper then
    d = 1;
  end if;
end M;
"#
);

// Parameter expressions through modifiers and enclosing instances.
snap!(
    parameters_from_modifiers,
    Some("Top"),
    r#"
model Chain parameter Integer n = 2; parameter Real L = 1; Real s[n]; equation s = {L*i for i in 1:n}; end Chain;
model Top parameter Integer m = 4; Chain c(n = m - 1, L = 0.5); end Top;
"#
);

// ---- 7. arrays ----

// Component arrays, subscripts, slices and array equations.
snap!(
    arrays_of_components_and_slices,
    Some("Top"),
    r#"
model P Real x[3]; end P;
model Top
  P p[2];
  Real a[2, 3];
  Real b[3];
equation
  p[1].x = {1, 2, 3};
  p[2].x[2:3] = {4, 5};
  p[2].x[1] = 0;
  a[1, :] = p[1].x;
  a[2, :] = p[2].x;
  b = a[:, 2] * a;
end Top;
"#
);

// Array constructors with iterators, ranges, and the array built-ins.
snap!(
    arrays_builtins,
    Some("M"),
    r#"
model M
  parameter Integer n = 3;
  Real a[n] = {i^2 for i in 1:n};
  Real z[2] = zeros(2);
  Real o[2] = ones(2);
  Real f[2, 2] = fill(7, 2, 2);
  Real I[2, 2] = identity(2);
  Real D[2, 2] = diagonal({1, 2});
  Real T[2, 2] = transpose([1, 2; 3, 4]);
  Real s = sum(a);
  Real p = product({1, 2, 3});
  Real mn = min({3, 1, 2});
  Real mx = max(a);
  Real c[4] = cat(1, {1, 2}, {3, 4});
  Real l[3] = linspace(0, 1, 3);
  Integer sz = size(a, 1);
end M;
"#
);

// cross, skew, matrix-vector and matrix-matrix products, element-wise operators.
snap!(
    arrays_vector_algebra,
    Some("M"),
    r#"
model M
  Real u[3] = {1, 2, 3};
  Real w[3];
  Real c[3] = cross(u, w);
  Real S[3, 3] = skew(w);
  Real Su[3] = S*u;
  Real A[2, 2] = [1, 2; 3, 4];
  Real AA[2, 2] = A*A;
  Real e[3] = u .* w;
  Real q[3] = u ./ 2;
  Real dotp = u*w;
equation
  w = {time, 2*time, 3};
end M;
"#
);

// ---- 8. functions and operators ----

// A user function with inputs with defaults, several outputs, protected locals and loops.
snap!(
    functions_user_defined,
    Some("M"),
    r#"
function stats
  input Real x[:];
  input Real scale = 1;
  output Real mean;
  output Real maxAbs;
protected
  Real s;
  Integer i;
algorithm
  s := 0;
  maxAbs := 0;
  for k in 1:size(x, 1) loop
    s := s + x[k];
    if abs(x[k]) > maxAbs then
      maxAbs := abs(x[k]);
    end if;
  end for;
  mean := scale*s/size(x, 1);
  i := 0;
  while i < 3 loop
    i := i + 1;
  end while;
end stats;
model M
  Real v[3] = {time, 2, -5};
  Real m;
  Real a;
  Real c = stats({1, 2, 3}, 2);
equation
  (m, a) = stats(v);
end M;
"#
);

// A function returning an array, called with a non-constant argument, and recursion.
snap!(
    functions_array_output_and_recursion,
    Some("M"),
    r#"
function scaled input Real x[3]; input Real k; output Real y[3]; algorithm y := k*x; end scaled;
function fact input Integer n; output Integer f; algorithm if n <= 1 then f := 1; else f := n*fact(n - 1); end if; end fact;
model M
  parameter Integer n = fact(4);
  Real r[3] = scaled({time, 1, 2}, 2);
  Real x[n];
equation
  x = fill(1, n);
end M;
"#
);

// The event and operator built-ins are kept for the simulator.
snap!(
    functions_operators,
    Some("M"),
    r#"
model M
  Real x(start = 1, fixed = true);
  Real y;
  discrete Real z(start = 0);
  Boolean b;
  Integer k(start = 0);
equation
  der(x) = -x;
  y = noEvent(if x > 0.5 then x else 0.5) + smooth(1, abs(x));
  b = x < 0.3;
  when edge(b) then
    z = pre(z) + 1;
  end when;
  when change(b) or initial() then
    k = pre(k) + 1;
  end when;
  when terminal() then
    assert(x > 0, "x must stay positive");
  end when;
end M;
"#
);

// Built-in math functions and their constant folding.
snap!(
    functions_math_builtins,
    Some("M"),
    r#"
model M
  Real a = sin(time) + cos(time) + tan(0.1*time) + exp(-time) + log(1 + time) + sqrt(1 + time);
  Real b = atan2(time, 1) + abs(time - 1) + sign(time) + max(time, 1) + min(time, 2);
  Real c = floor(2.5) + ceil(2.5) + div(7, 2) + mod(7, 3) + rem(-7, 3) + integer(2.7);
  Real d = sinh(time) + cosh(0) + tanh(time) + asin(0.5) + acos(0.5) + atan(1) + log10(100);
end M;
"#
);

// ---- 9. connections ----

// A resistor-capacitor circuit from the built-in library: potentials equal, flows sum to zero,
// and the ground reference.
snap!(
    connect_rc_circuit,
    Some("RC"),
    r#"
model RC
  import Minimo.Electrical.Analog.Basic.*;
  import Minimo.Electrical.Analog.Sources.ConstantVoltage;
  Resistor r(R = 100);
  Capacitor c(C = 1e-3, v(start = 0, fixed = true));
  ConstantVoltage src(V = 5);
  Ground gnd;
equation
  connect(src.p, r.p);
  connect(r.n, c.p);
  connect(c.n, src.n);
  connect(src.n, gnd.p);
end RC;
"#
);

// Inside and outside connectors: a sub-circuit connects its own pins (outside, sign -) to its
// parts (inside, sign +); unconnected flows of inside connectors become zero.
snap!(
    connect_inside_outside_signs,
    Some("Top"),
    r#"
connector Pin Real v; flow Real i; end Pin;
model R parameter Real R = 1; Pin p; Pin n; equation p.v - n.v = R*p.i; p.i + n.i = 0; end R;
model Pair
  Pin a; Pin b;
  R r1; R r2;
equation
  connect(a, r1.p);
  connect(r1.n, r2.p);
  connect(r2.n, b);
end Pair;
model Src Pin p; Pin n; equation p.v - n.v = 1; p.i + n.i = 0; end Src;
model G Pin p; equation p.v = 0; end G;
model Top
  Pair pair;
  R load;
  Src src;
  G g;
equation
  connect(src.p, pair.a);
  connect(pair.b, load.p);
  connect(load.n, src.n);
  connect(src.n, g.p);
end Top;
"#
);

// Hierarchical connectors (a connector holding connectors) and arrays of connectors, with
// connect inside for.
snap!(
    connect_hierarchical_and_arrays,
    Some("Top"),
    r#"
connector Pin Real v; flow Real i; end Pin;
connector Plug Pin p[2]; end Plug;
model Load Plug plug; equation for k in 1:2 loop plug.p[k].v = 2*plug.p[k].i; end for; end Load;
model Supply Plug plug; equation plug.p[1].v = 1; plug.p[2].v = 2; end Supply;
model Top
  parameter Integer n = 2;
  Supply s[n];
  Load l[n];
equation
  for k in 1:n loop
    connect(s[k].plug, l[k].plug);
  end for;
end Top;
"#
);

// A mass-spring chain built from connectors in a for loop.
snap!(
    connect_mass_spring_chain,
    Some("Chain"),
    &mass_spring_chain(4)
);

// A conditional component: connections to a disabled component are dropped.
snap!(
    connect_conditional_component,
    Some("Top"),
    r#"
connector Pin Real v; flow Real i; end Pin;
model Ground Pin p; equation p.v = 0; end Ground;
model Res Pin p; Pin n; equation p.v - n.v = 2*p.i; p.i + n.i = 0; end Res;
model Top
  parameter Boolean withGround = true;
  parameter Boolean withExtra = false;
  Res r;
  Ground g if withGround;
  Ground extra if withExtra;
equation
  connect(r.n, g.p);
  connect(r.p, extra.p);
end Top;
"#
);

// ---- 10. if- and when-equations ----

// A parameter condition selects its branch; a time condition keeps the if-equation.
snap!(
    if_equations_parameter_and_variable,
    Some("M"),
    r#"
model M
  parameter Boolean linear = false;
  Real x(start = 1);
  Real y;
equation
  if linear then
    der(x) = -x;
  else
    der(x) = -x^3;
  end if;
  if time < 1 then
    y = x;
  elseif time < 2 then
    y = 2*x;
  else
    y = 0;
  end if;
end M;
"#
);

// A bouncing ball: when-equation with reinit kept for the simulator.
snap!(
    when_reinit_bouncing_ball,
    Some("Ball"),
    r#"
model Ball
  parameter Real e = 0.8;
  Real h(start = 1, fixed = true);
  Real v(start = 0, fixed = true);
equation
  der(h) = v;
  der(v) = -9.81;
  when h < 0 then
    reinit(v, -e*pre(v));
  end when;
end Ball;
"#
);

// Initial equations and the experiment annotation.
snap!(
    initial_equations_and_experiment,
    Some("M"),
    r#"
model M
  Real x;
  Real v;
initial equation
  x = 1;
  v = 0;
equation
  der(x) = v;
  der(v) = -x;
  annotation(experiment(StartTime = 0, StopTime = 10, Interval = 0.01, Tolerance = 1e-6));
end M;
"#
);

// ---- 12. the flat data type keeps origins ----

// Variables record their component and equations their component of origin (shown in JSON).
#[test]
fn flat_model_records_components_and_spans() {
    let m = flatten_common::flat_model(
        r#"
model Inner Real x; equation x = 1; end Inner;
model Top Inner a; Inner b[2]; end Top;
"#,
        Some("Top"),
    );
    let names: Vec<(&str, &str)> = m
        .variables
        .iter()
        .map(|v| (v.name.as_str(), v.component.as_str()))
        .collect();
    assert_eq!(
        names,
        vec![("a.x", "a"), ("b[1].x", "b[1]"), ("b[2].x", "b[2]")]
    );
    let comps: Vec<&str> = m.equations.iter().map(|e| e.component.as_str()).collect();
    assert_eq!(comps, vec!["a", "b[1]", "b[2]"]);
    // Spans point at the declaration and the equation in the source.
    assert!(!m.variables[0].span.is_dummy());
    assert!(!m.equations[0].span.is_dummy());
    let json = serde_json::to_string(&m).expect("serializes");
    let back: minimo::dae::FlatModel = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(back, m);
}

// Modifiers of a constrainedby clause apply to the default class and to the replacement.
snap!(
    class_param_constrainedby_modifiers,
    Some("Top"),
    r#"
partial model Law parameter Real scale = 1; input Real v; output Real f; end Law;
model Viscous extends Law; equation f = scale*v; end Viscous;
model Cubic extends Law; equation f = scale*v^3; end Cubic;
model Holder
  replaceable model L = Viscous constrainedby Law(scale = 2);
  L law(v = 1);
end Holder;
model Top
  Holder a;
  Holder b(redeclare model L = Cubic);
end Top;
"#
);

// Enumerations, Boolean and String parameters, if-expressions on parameters, records.
snap!(
    types_enumerations_records,
    Some("M"),
    r#"
type Mode = enumeration(off, slow, fast);
record Params parameter Real k = 1; parameter Real d = 0.1; end Params;
model M
  parameter Mode mode = Mode.fast;
  parameter Boolean on = true;
  parameter String label = "demo";
  parameter Params p(k = 3);
  Real x(start = 1);
  Real gain = if mode == Mode.fast then 10 else 1;
equation
  der(x) = if on then -p.k*x - p.d else 0;
end M;
"#
);

// A parameter in a condition that stays symbolic (it also depends on time) keeps its binding
// expression; one in a condition known before simulation is evaluated (its binding becomes the
// value).
snap!(
    parameters_in_kept_and_selected_conditions,
    Some("M"),
    r#"
model M
  parameter Real T = 1;
  parameter Real t0 = 2*T;
  parameter Real lim = 3*T;
  Real y;
equation
  if time > t0 then
    y = 1;
  elseif lim > 2 then
    y = 2;
  else
    y = 3;
  end if;
end M;
"#
);
