//! `connect` to one element of a vector connector (MLS 9.1): `connect(u, product.u[1])` joins a
//! scalar input to the first element of a vector input, as `Modelica.Blocks.Math.RootMeanSquare`
//! does.

mod flatten_common;
use flatten_common::flat;

#[test]
fn a_scalar_connector_connects_to_one_element_of_a_vector_connector() {
    let text = "connector RealInput = input Real;\nconnector RealOutput = output Real;\n\
block Product\n  parameter Integer nu = 2;\n  RealInput u[nu];\n  RealOutput y;\nequation\n  y = product(u);\nend Product;\n\
block Square\n  RealInput u;\n  RealOutput y;\n  Product p(nu = 2);\nequation\n  connect(u, p.u[1]);\n  connect(u, p.u[2]);\n  connect(p.y, y);\nend Square;\n\
model M\n  Square s;\nequation\n  s.u = time;\nend M;\n";
    let f = flat(text, Some("M"));
    // One connection set {s.u, s.p.u[1], s.p.u[2]}: two equalities chain its members.
    assert!(f.contains("s.u = s.p.u[1];"), "{f}");
    assert!(
        f.contains("s.p.u[1] = s.p.u[2];") || f.contains("s.u = s.p.u[2];"),
        "{f}"
    );
}
