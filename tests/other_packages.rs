//! Features met in MSL packages beyond the four regression packages (Spice3, StateGraph,
//! Digital): constants of a record class read through a record variable (`card.level`);
//! initial equations on Booleans that ordinary equations tie to a `pre` (StateGraph steps).

mod flatten_common;

const RECORD_CONSTANTS: &str = r#"
package RecConst
  record Card
    constant Integer level = 3 "a constant of the record class";
    parameter Real gain = 2;
  end Card;
  record Outer
    Card sub;
    constant Real offset = 0.5;
  end Outer;
  function use
    input Card c;
    input Outer o;
    output Real y;
  algorithm
    y := c.level * c.gain + o.offset + o.sub.level;
  end use;
  model M
    parameter Card card(gain = 4);
    parameter Outer out;
    Real y = use(card, out);
    Real z = card.level + out.offset;
  end M;
end RecConst;
"#;

/// A record constant is an element of the record: `c.level` inside a function (also through
/// a nested record field) and `card.level` in a model read its declared value.
#[test]
fn record_constant_through_record_variable() {
    let r = flatten_common::simulate_source("rc.mo", RECORD_CONSTANTS, "RecConst.M");
    flatten_common::close(
        flatten_common::last(&r, "y"),
        3.0 * 4.0 + 0.5 + 3.0,
        1e-12,
        "y",
    );
    flatten_common::close(flatten_common::last(&r, "z"), 3.5, 1e-12, "z");
}

/// Two steps of a state machine written as StateGraph writes them: `active = true` holds at
/// initialization through `active = la` and `la = pre(na)`, so it determines `pre(na)`; the
/// alias `pre(na) = pre(la)` then gives `pre(la)`, and the second step starts inactive.
const STEPS: &str = r#"
model Steps
  Boolean la, na, oa;
  Boolean lb, nb;
  Boolean active;
  Boolean go;
initial equation
  pre(na) = pre(la);
  pre(nb) = pre(lb);
  pre(oa) = pre(la);
  active = true;
equation
  go = time > 0.5;
  na = la and not go;
  la = pre(na);
  active = la;
  nb = lb or (la and go);
  lb = pre(nb);
  when go then
    oa = not la;
  end when;
end Steps;
"#;

#[test]
fn initial_step_through_pre_chain() {
    let r = flatten_common::simulate_source("steps.mo", STEPS, "Steps");
    let at = |n: &str, t: f64| flatten_common::at(&r, n, t);
    assert_eq!(at("active", 0.25), 1.0, "the initial step is active");
    assert_eq!(at("lb", 0.25), 0.0, "the second step waits");
    assert_eq!(at("oa", 0.25), 1.0, "pre(oa) = pre(la) = true");
    assert_eq!(
        at("active", 1.0),
        0.0,
        "the transition at 0.5 left the first step"
    );
    assert_eq!(at("lb", 1.0), 1.0, "and entered the second");
}

/// A complex number as the MSL writes it, reduced to what the tests below use.
const CPLX: &str = r#"
  operator record Cx
    Real re;
    Real im;
    encapsulated operator 'constructor'
      import P.Cx;
      function fromReal
        input Real re;
        input Real im = 0;
        output Cx c(re = re, im = im);
      algorithm
      end fromReal;
    end 'constructor';
    encapsulated operator '-'
      import P.Cx;
      function negate
        input Cx a;
        output Cx c;
      algorithm
        c := Cx(-a.re, -a.im);
      end negate;
      function minus
        input Cx a;
        input Cx b;
        output Cx c;
      algorithm
        c := Cx(a.re - b.re, a.im - b.im);
      end minus;
    end '-';
    encapsulated operator function '+'
      import P.Cx;
      input Cx a;
      input Cx b;
      output Cx c;
    algorithm
      c := Cx(a.re + b.re, a.im + b.im);
    end '+';
    encapsulated operator function '0'
      import P.Cx;
      output Cx z;
    algorithm
      z := Cx(0, 0);
    end '0';
  end Cx;
  package Consts
    constant Cx j = Cx(0, 1);
  end Consts;
"#;

/// `p.pin.v - n.pin.v` with `pin` an array whose `v` is an operator record (the shape of the
/// MSL's quasi-static polyphase plugs): element by element, the subscript goes on `pin`
/// (`p.pin[k].v`), the part that carries the dimension.
#[test]
fn operator_record_vector_through_connector_array() {
    let text = format!(
        r#"
package P
{CPLX}
  record Pin
    Cx v;
    Cx i;
  end Pin;
  model Plug
    parameter Integer m = 3;
    Pin pin[m];
  end Plug;
  model M
    parameter Integer m = 3;
    Plug p(final m = m), n(final m = m);
    Cx v[m];
    Cx i[m];
  equation
    v = p.pin.v - n.pin.v;
    i = p.pin.i;
    p.pin.i + n.pin.i = fill(Cx(0), m);
    for k in 1:m loop
      n.pin[k].v = Cx(k, -1);
      p.pin[k].v = Cx(2*k, 2*k);
      i[k] = Cx(k*time, 0);
    end for;
  end M;
end P;
"#
    );
    let r = flatten_common::simulate_source("plug.mo", &text, "P.M");
    for k in 1..=3 {
        let kf = k as f64;
        flatten_common::close(
            flatten_common::last(&r, &format!("v[{k}].re")),
            kf,
            1e-12,
            "re",
        );
        flatten_common::close(
            flatten_common::last(&r, &format!("v[{k}].im")),
            2.0 * kf + 1.0,
            1e-12,
            "im",
        );
        flatten_common::close(
            flatten_common::last(&r, &format!("n.pin[{k}].i.re")),
            -kf,
            1e-12,
            "p.pin.i + n.pin.i = 0",
        );
    }
}

/// A function reads a record constant from outside (a package constant, also imported into
/// the enclosing class) and chooses between record values with an if-expression, one branch
/// an operator call on the constant (the MSL's `powerOfJ` in `ComplexBlocks`).
#[test]
fn function_reads_outer_record_constant_in_if_expression() {
    let text = format!(
        r#"
package P
{CPLX}
  block B
    import P.Consts.j;
    parameter Integer k0 = 3;
    Cx y;
    Cx z;
    Real m;
    function powerOfJ
      input Integer k;
      output Cx x;
    protected
      Integer m = mod(k, 4);
    algorithm
      x := if m == 0 then Cx(1) elseif m == 1 then j elseif m == 2 then Cx(-1) else -j;
    end powerOfJ;
    function direct
      output Cx x;
    algorithm
      x := P.Consts.j;
    end direct;
  equation
    m = if time < 0.5 then 1 else 2;
    y = powerOfJ(k0 + integer(m));
    z = direct();
  end B;
end P;
"#
    );
    let r = flatten_common::simulate_source("powj.mo", &text, "P.B");
    let at = |n: &str, t: f64| flatten_common::at(&r, n, t);
    // k = 4: j^4 = 1; k = 5: j^5 = j.
    flatten_common::close(at("y.re", 0.25), 1.0, 1e-12, "j^4 re");
    flatten_common::close(at("y.im", 0.25), 0.0, 1e-12, "j^4 im");
    flatten_common::close(at("y.re", 1.0), 0.0, 1e-12, "j^5 re");
    flatten_common::close(at("y.im", 1.0), 1.0, 1e-12, "j^5 im");
    flatten_common::close(at("z.im", 1.0), 1.0, 1e-12, "the constant itself");
}

/// `-j` in a branch an if-expression does not take: with k = 3 it is taken (j^3 = -j).
#[test]
fn record_if_expression_takes_the_operator_branch() {
    let text = format!(
        r#"
package P
{CPLX}
  function powerOfJ
    input Integer k;
    output Cx x;
  algorithm
    x := if k == 0 then Cx(1) elseif k == 1 then Consts.j else -Consts.j;
  end powerOfJ;
  model M
    Cx y = powerOfJ(if time < 0.5 then 2 else 0);
  end M;
end P;
"#
    );
    let r = flatten_common::simulate_source("negj.mo", &text, "P.M");
    let at = |n: &str, t: f64| flatten_common::at(&r, n, t);
    flatten_common::close(at("y.im", 0.25), -1.0, 1e-12, "-j");
    flatten_common::close(at("y.re", 1.0), 1.0, 1e-12, "1");
}

/// An if-equation inside a when-equation whose branches assign the same variables (in any
/// order): evaluated when the `when` fires, with the values of that instant (MLS 8.3.5).
#[test]
fn if_equation_inside_when() {
    let text = r#"
model W
  Real x(start = 0, fixed = true);
  discrete Real a(start = 0, fixed = true);
  discrete Real b(start = 0, fixed = true);
equation
  der(x) = 1;
  when sample(0.1, 0.2) then
    if x < 0.2 then
      a = 1;
      b = 10;
    elseif x < 0.4 then
      b = 20 + pre(a);
      a = 2;
    else
      if x < 0.6 then
        a = 3;
        b = 30;
      else
        a = 4;
        b = 40;
      end if;
    end if;
  end when;
end W;
"#;
    let r = flatten_common::simulate_source("wif.mo", text, "W");
    let at = |n: &str, t: f64| flatten_common::at(&r, n, t);
    assert_eq!(at("a", 0.05), 0.0, "before the first sample");
    assert_eq!(at("a", 0.2), 1.0, "fired at 0.1");
    assert_eq!(at("b", 0.2), 10.0);
    assert_eq!(at("a", 0.35), 2.0, "fired at 0.3");
    assert_eq!(at("b", 0.35), 21.0, "pre(a) = 1 at that instant");
    assert_eq!(at("a", 0.55), 3.0, "fired at 0.5");
    assert_eq!(at("a", 0.95), 4.0, "fired at 0.7 and 0.9");
    assert_eq!(at("b", 0.95), 40.0);
}

/// `R = 1/G` solved for `G` (the MSL's flux tube leakage permeances): `G` enters only as a
/// denominator, so `G = 1/R` directly; Newton's method from the start value `G = 0` could not
/// begin (the residual is infinite there).
#[test]
fn reciprocal_solved_explicitly() {
    let text = r#"
model Rec
  Real R;
  Real G;
  Real x(start = 1, fixed = true);
equation
  der(x) = -x;
  R = 2 + x;
  R = 1/G;
end Rec;
"#;
    let r = flatten_common::simulate_source("rec.mo", text, "Rec");
    let x1 = flatten_common::last(&r, "x");
    flatten_common::close(x1, (-1.0f64).exp(), 1e-4, "x(1)");
    flatten_common::close(
        flatten_common::last(&r, "G"),
        1.0 / (2.0 + x1),
        1e-12,
        "G = 1/R",
    );
}

/// `Cx` with a product, and functions on its arrays in the shape of the MSL's quasi-static
/// `activePower`: a function of a record applied to an array comprehension of records whose
/// elements are operator calls (built in a loop).
const CPLX_MUL: &str = r#"
  operator record Cm
    Real re;
    Real im;
    encapsulated operator function '*'
      import P.Cm;
      input Cm a;
      input Cm b;
      output Cm c;
    algorithm
      c := Cm(a.re*b.re - a.im*b.im, a.re*b.im + a.im*b.re);
    end '*';
  end Cm;
  function real
    input Cm c;
    output Real r;
  algorithm
    r := c.re;
  end real;
  function conj
    input Cm c;
    output Cm r;
  algorithm
    r := Cm(c.re, -c.im);
  end conj;
  function activePower
    input Cm v[:];
    input Cm i[size(v, 1)];
    output Real p;
  algorithm
    p := sum(real({v[k]*conj(i[k]) for k in 1:size(v, 1)}));
  end activePower;
"#;

#[test]
fn record_array_comprehension_in_function() {
    let text = format!(
        r#"
package P
{CPLX_MUL}
  model M
    Cm v[3] = {{Cm(1, 2), Cm(time, 1), Cm(3, -1)}};
    Cm i[3] = {{Cm(2, 1), Cm(1, 1), Cm(-1, 2)}};
    Real p = activePower(v, i);
  end M;
end P;
"#
    );
    let r = flatten_common::simulate_source("ap.mo", &text, "P.M");
    let at = |n: &str, t: f64| flatten_common::at(&r, n, t);
    // Re(v1 conj(i1)) + ... = (2 + 2) + (t + 1) + (-3 - 2) = t.
    flatten_common::close(at("p", 0.25), 0.25, 1e-12, "p at 0.25");
    flatten_common::close(at("p", 1.0), 1.0, 1e-12, "p at 1");
}
