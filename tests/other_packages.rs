//! Features met in MSL packages beyond the four regression packages (Spice3, StateGraph,
//! Digital): constants of a record class read through a record variable (`card.level`).

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

