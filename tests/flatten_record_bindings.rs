//! Bindings of record components (MLS 7.2.3, 12.6): a record constructor, another record, an
//! if-expression of them, an array constructor for an array of records, and a function call
//! returning a record bind every field; a field the binding leaves out keeps its default.
//! Before, such bindings were dropped and the fields silently kept their defaults.

mod flatten_common;

const LIB: &str = r#"
package P
  record Params
    Real k = 1;
    Real x0 = 2;
  end Params;
  record Orient
    Real T[2, 2];
    Real w;
  end Orient;
  function rot
    input Real a;
    output Orient R;
  algorithm
    R.T := [cos(a), sin(a); -sin(a), cos(a)];
    R.w := a;
  end rot;
  model Decay "x(t) = x0 exp(-k t) with k = 0.5, x0 = 1 from the record binding"
    parameter Params p = Params(k = 0.5, x0 = 1);
    Real x(start = p.x0, fixed = true);
  equation
    der(x) = -p.k*x;
  end Decay;
  model Kinds
    parameter Params a = Params(k = 0.5);
    parameter Params b = a;
    parameter Params c[2] = {Params(k = 2, x0 = 3), Params(4)};
    parameter Boolean useA = false;
    parameter Params d = if useA then Params(k = 7, x0 = 8) else Params(k = 9, x0 = 10);
    parameter Orient R0 = rot(0.3);
    Orient R = rot(time);
    Real sumK = b.k + c[1].k + c[2].k + d.k;
    Real sumX0 = b.x0 + c[1].x0 + c[2].x0 + d.x0;
    Real y = R0.T[1, 2] + R.T[2, 1] + R0.w;
  end Kinds;
  record Loss "kRef is computed from the other fields and may not be modified"
    parameter Real P = 2;
    parameter Real w = 4;
    final parameter Real kRef = if w > 0 then P/w else 0;
  end Loss;
  model FinalField "a whole-record binding leaves the final field its own declaration"
    parameter Loss data = Loss(P = 6, w = 3);
    parameter Loss copy = data;
    Real r = copy.kRef;
  end FinalField;
  model WrongField
    parameter Params p = Params(kk = 0.5);
  end WrongField;
  record Cell "a field sized by its default, and a final one computed from the others"
    parameter Real a = 1;
    parameter Real T[:, 2] = [0, a; 1, 1];
    final parameter Real twice = 2*a;
  end Cell;
  model WholeArrays "arrays of records bound by fill, a comprehension, a comprehension of if"
    parameter Cell co(a = 3);
    parameter Cell cd(a = 5);
    parameter Cell f[2] = fill(cd, 2);
    parameter Cell g[3] = {if i == 2 then cd else co for i in 1:3};
    Real sumA = f[1].a + f[2].a + g[1].a + g[2].a + g[3].a;
    Real sumT = f[2].T[1, 2] + g[2].T[1, 2] + g[3].T[1, 2];
    Real twice = g[2].twice;
  end WholeArrays;
  record Long
    parameter Real a = 1;
    parameter Real T[:, 2] = [0, a; 1, 1];
  end Long;
  model WrongSize "the bound record's table has 3 rows, the declaration's default 2"
    parameter Long src(T = [0, 1; 1, 2; 2, 3]);
    parameter Long l[1] = fill(src, 1);
    Real y = l[1].T[1, 2];
  end WrongSize;
end P;
"#;

fn simulate(model: &str) -> minimo::sim::SimResult {
    flatten_common::simulate_source("p.mo", LIB, model)
}

#[test]
fn a_record_constructor_binding_sets_the_fields() {
    let r = simulate("P.Decay");
    for &t in &[0.25, 0.5, 1.0f64] {
        let x = r.value_at("x", t).expect("x");
        assert!((x - (-0.5 * t).exp()).abs() < 1e-5, "x({t}) = {x}");
    }
}

#[test]
fn every_kind_of_record_binding_reaches_the_fields() {
    let r = simulate("P.Kinds");
    let get = |n: &str, t: f64| r.value_at(n, t).unwrap_or_else(|| panic!("no {n}"));
    // b = a = Params(k = 0.5, x0 = default 2); c = {(2, 3), (4, 2)}; d = (9, 10).
    assert!((get("sumK", 0.5) - (0.5 + 2.0 + 4.0 + 9.0)).abs() < 1e-12);
    assert!((get("sumX0", 0.5) - (2.0 + 3.0 + 2.0 + 10.0)).abs() < 1e-12);
    for &t in &[0.25, 1.0f64] {
        let want = 0.3f64.sin() - t.sin() + 0.3;
        assert!((get("y", t) - want).abs() < 1e-9, "y({t})");
    }
}

#[test]
fn a_constructor_argument_that_names_no_field_is_a_located_error() {
    let e = minimo::flatten::flatten_source("p.mo", LIB, Some("P.WrongField")).unwrap_err();
    assert!(e.contains("the record has no field `kk`"), "{e}");
    assert!(e.contains("did you mean `k`?"), "{e}");
    assert!(e.contains("p.mo:"), "{e}");
}

#[test]
fn a_record_reference_binding_leaves_final_fields_to_their_declarations() {
    // Before, `copy = data` was split into a modifier of every field, final `kRef` included,
    // and the model was refused with "cannot modify `kRef`: it is declared `final`".
    let r = simulate("P.FinalField");
    let v = r.value_at("r", 0.5).expect("r");
    assert!((v - 2.0).abs() < 1e-12, "r = {v}");
}

#[test]
fn fill_and_comprehensions_of_records_replace_the_fields_defaults() {
    // Before, every field of `f` and `g` kept its declaration default (a = 1) with exit 0:
    // the whole-record binding lost to the default written in the record.
    let r = simulate("P.WholeArrays");
    let get = |n: &str| r.value_at(n, 0.5).unwrap_or_else(|| panic!("no {n}"));
    assert!(
        (get("sumA") - (5.0 + 5.0 + 3.0 + 5.0 + 3.0)).abs() < 1e-12,
        "{}",
        get("sumA")
    );
    assert!(
        (get("sumT") - (5.0 + 5.0 + 3.0)).abs() < 1e-12,
        "{}",
        get("sumT")
    );
    // A final field keeps its declaration, computed from the record's own `a`.
    assert!((get("twice") - 10.0).abs() < 1e-12, "{}", get("twice"));
}

#[test]
fn a_whole_record_binding_of_another_size_is_an_error_not_a_default() {
    // `l[1].T` is sized by its default (2 rows) while the bound record's table has 3: the
    // values cannot be placed, so the model is refused rather than run on the default.
    let e = minimo::flatten::flatten_source("p.mo", LIB, Some("P.WrongSize")).unwrap_err();
    assert!(
        e.contains("this record binding has a value of size [7], but the record has 5 scalars"),
        "{e}"
    );
    assert!(e.contains("p.mo:"), "{e}");
}

/// A connector defined as a record with a causality (`connector ComplexOutput = output
/// Complex`, MSL ComplexBlocks): its declaration binding binds the fields, for a scalar, an
/// array, and through a conditional component and `connect` (the MSL's `SaliencyCageWinding`
/// output `i[2] = electroMagneticConverter.i`, which was dropped: 4 equations missing).
const RECORD_CONNECTOR: &str = r#"
package Q
  operator record Cm
    Real re;
    Real im;
  end Cm;
  connector CO = output Cm;
  model Conv
    Cm i[2];
  equation
    i[1] = Cm(time, 1);
    i[2] = Cm(2, 3*time);
  end Conv;
  model Cage
    CO i[2] = conv.i;
    CO j = conv.i[2];
    Conv conv;
  end Cage;
  model M
    parameter Boolean use = true;
    Cage c if use;
    CO o[2] if use;
  equation
    connect(o, c.i);
  end M;
end Q;
"#;

#[test]
fn a_record_connector_binding_sets_the_fields() {
    let r = flatten_common::simulate_source("q.mo", RECORD_CONNECTOR, "Q.M");
    let at = |n: &str| flatten_common::at(&r, n, 0.5);
    flatten_common::close(at("c.i[1].re"), 0.5, 1e-12, "c.i[1].re");
    flatten_common::close(at("c.i[2].im"), 1.5, 1e-12, "c.i[2].im");
    flatten_common::close(at("c.j.im"), 1.5, 1e-12, "c.j.im");
    flatten_common::close(at("o[1].im"), 1.0, 1e-12, "o[1].im");
    flatten_common::close(at("o[2].re"), 2.0, 1e-12, "o[2].re");
}
