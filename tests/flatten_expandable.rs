//! Expandable connectors (MLS 9.1.3): elements added by `connect`, augmentation sets,
//! potentially present elements, and the errors of the section.

mod flatten_common;
use flatten_common::{assert_err, flat};

const SIGNALS: &str = "connector RealInput = input Real;\nconnector RealOutput = output Real;\n\
block Source\n  RealOutput y = 2*time;\nend Source;\n\
block Gain\n  RealInput u;\n  RealOutput y = 3*u;\nend Gain;\n";

#[test]
fn a_connect_adds_an_element_with_the_other_sides_causality() {
    let text = format!(
        "{SIGNALS}expandable connector Bus\nend Bus;\n\
model M\n  Bus bus;\n  Source s;\n  Gain g;\nequation\n  connect(s.y, bus.speed);\n  connect(bus.speed, g.u);\nend M;\n"
    );
    let f = flat(&text, Some("M"));
    assert!(f.contains("output Real bus.speed;"), "{f}");
    assert!(f.contains("s.y = bus.speed;"), "{f}");
    assert!(f.contains("bus.speed = g.u;"), "{f}");
}

#[test]
fn connected_buses_get_the_union_of_their_elements() {
    // The sensor's bus gets `speed`, the actuator's bus gets it through the top-level bus.
    let text = format!(
        "{SIGNALS}expandable connector Bus\nend Bus;\n\
model Sensor\n  Bus bus;\n  Source s;\nequation\n  connect(s.y, bus.speed);\nend Sensor;\n\
model Actuator\n  Bus bus;\n  Gain g;\nequation\n  connect(bus.speed, g.u);\nend Actuator;\n\
model Engine\n  Bus bus;\n  Sensor sensor;\n  Actuator actuator;\nequation\n  connect(bus, sensor.bus);\n  connect(bus, actuator.bus);\nend Engine;\n"
    );
    let f = flat(&text, Some("Engine"));
    for v in ["bus.speed", "sensor.bus.speed", "actuator.bus.speed"] {
        assert!(f.contains(&format!("Real {v};")), "{v}:\n{f}");
    }
    assert!(f.contains("actuator.bus.speed = actuator.g.u;"), "{f}");
}

#[test]
fn declared_elements_nothing_connects_are_removed() {
    let text = format!(
        "{SIGNALS}expandable connector Bus\n  Real speed;\n  Real unused;\nend Bus;\n\
model M\n  Bus bus;\n  Source s;\n  Real y = bus.speed;\nequation\n  connect(s.y, bus.speed);\nend M;\n"
    );
    let f = flat(&text, Some("M"));
    assert!(f.contains("bus.speed"), "{f}");
    assert!(!f.contains("bus.unused"), "{f}");
}

#[test]
fn reading_an_element_that_is_not_present_is_an_error() {
    let text = format!(
        "{SIGNALS}expandable connector Bus\n  Real speed;\n  Real unused;\nend Bus;\n\
model M\n  Bus bus;\n  Source s;\n  Real y = bus.unused;\nequation\n  connect(s.y, bus.speed);\nend M;\n"
    );
    assert_err(&text, Some("M"), &["`bus.unused` is not present"]);
}

#[test]
fn subscripted_elements_make_an_array_and_nested_buses_are_augmented() {
    let text = format!(
        "{SIGNALS}expandable connector Sub\nend Sub;\nexpandable connector Bus\nend Bus;\n\
model Cyl\n  Sub sub;\n  Source s;\nequation\n  connect(s.y, sub.spark);\nend Cyl;\n\
model M\n  Bus bus;\n  Cyl cyl[2];\n  Gain g;\nequation\n  for i in 1:2 loop\n    connect(cyl[i].sub, bus.cyl[i]);\n  end for;\n  connect(bus.cyl[2].spark, g.u);\nend M;\n"
    );
    let f = flat(&text, Some("M"));
    assert!(f.contains("Real bus.cyl[1].spark;"), "{f}");
    assert!(f.contains("Real bus.cyl[2].spark;"), "{f}");
    assert!(f.contains("bus.cyl[2].spark = g.u;"), "{f}");
}

#[test]
fn an_element_of_unknown_size_takes_the_size_of_its_connection() {
    let text = format!(
        "{SIGNALS}expandable connector Bus\n  Real x[:];\nend Bus;\n\
model M\n  Bus bus;\n  Source s[3];\nequation\n  connect(s.y, bus.x);\nend M;\n"
    );
    let f = flat(&text, Some("M"));
    assert!(f.contains("bus.x[3]"), "{f}");
}

#[test]
fn physical_connectors_in_a_bus_keep_their_flows() {
    let text = "connector Pin\n  Real v;\n  flow Real i;\nend Pin;\n\
expandable connector Bus\nend Bus;\n\
model R\n  Pin p;\nequation\n  p.v = 10*p.i;\nend R;\n\
model M\n  Bus bus;\n  R r;\nequation\n  connect(r.p, bus.pin);\nend M;\n";
    let f = flat(text, Some("M"));
    assert!(f.contains("flow Real bus.pin.i;"), "{f}");
    assert!(f.contains("r.p.i - bus.pin.i = 0"), "{f}");
}

#[test]
fn the_errors_of_expandable_connectors_are_located() {
    // Flow directly in an expandable connector.
    assert_err(
        "expandable connector Bus\n  flow Real i;\nend Bus;\nmodel M\n  Bus bus;\nend M;\n",
        Some("M"),
        &["is a `flow` component directly in expandable connector"],
    );
    // Connected to a non-expandable connector.
    assert_err(
        "expandable connector Bus\nend Bus;\nconnector Pin\n  Real v;\n  flow Real i;\nend Pin;\n\
model M\n  Bus bus;\n  Pin p;\nequation\n  connect(p, bus);\n  p.v = 0;\nend M;\n",
        Some("M"),
        &["is not an expandable connector"],
    );
    // Neither side declared.
    assert_err(
        "expandable connector Bus\nend Bus;\nmodel M\n  Bus a;\n  Bus b;\nequation\n  connect(a.x, b.x);\nend M;\n",
        Some("M"),
        &["neither side of this `connect` is a declared component"],
    );
    // An input nothing provides.
    assert_err(
        &format!(
            "{SIGNALS}expandable connector Bus\nend Bus;\n\
model Inner\n  Bus bus;\n  Gain g;\nequation\n  connect(g.u, bus.u);\nend Inner;\nmodel M\n  Inner i;\nend M;\n"
        ),
        Some("M"),
        &["`u` is only an input"],
    );
}
