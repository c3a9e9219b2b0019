//! Flat Modelica text of a [`FlatModel`] (used by `minimo flatten`).

use super::FlatModel;

/// Prints the flat model as Modelica-like flat text. (Filled in by the flattening work.)
pub fn print_flat(model: &FlatModel) -> String {
    format!("class {}\nend {};\n", model.name, model.name)
}
