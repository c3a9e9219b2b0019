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
