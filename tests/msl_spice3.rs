//! `Modelica.Electrical.Spice3` examples. Their pulse sources have the default width `inf`,
//! so the pulse's last phase divides by a zero-length fall: the relations must have their
//! values (`time < TD`) before any loop is solved at initialization (`events::init_relations`).
//! No reference results exist for Spice3 here; the checks are the circuits' logic.

mod flatten_common;

use flatten_common::{Table, msl_library, simulate_with_library};

/// The value of column `name` at the last row with time <= `t`.
fn at(t: &Table, name: &str, time: f64) -> f64 {
    let c = t.col(name);
    t.rows
        .iter()
        .rev()
        .find(|r| r[0] <= time + 1e-12)
        .map(|r| r[c])
        .unwrap_or_else(|| panic!("no row at or before t = {time}"))
}

#[test]
fn nor_gate_follows_its_truth_table() {
    let Some(lib) = msl_library() else {
        return;
    };
    let t = simulate_with_library(
        &lib,
        &[
            "-m",
            "Modelica.Electrical.Spice3.Examples.Nor",
            "--interval",
            "0.05",
            "--vars",
            r"^(vin1\.v|vin2\.v|v\.v|mp2\.S\.v)$",
        ],
    );
    // Supply v: 0 until 0.5 s, 5 V from 0.6 s. vin2 (gates mp2, mn1): 5 V on [1.001, 3.001];
    // vin1 (gates mp1, mn2): 5 V on [2.001, 4.001]. The output node mp2.S charges and
    // discharges through 1e-5 F capacitances, so each level is checked once it has settled
    // to within 1 V of a rail (0.4 s or more after the last input change).
    for (time, v1, v2) in [
        (1.0, 0.0, 0.0),
        (2.0, 0.0, 5.0),
        (3.0, 5.0, 5.0),
        (5.0, 0.0, 0.0),
    ] {
        assert!((at(&t, "vin1.v", time) - v1).abs() < 1e-9, "vin1 at {time}");
        assert!((at(&t, "vin2.v", time) - v2).abs() < 1e-9, "vin2 at {time}");
        let out = at(&t, "mp2.S.v", time);
        if v1 == 0.0 && v2 == 0.0 {
            assert!(
                out > 3.9 && out <= 5.0 + 1e-6,
                "NOR(0, 0) at {time}: {out} V"
            );
        } else {
            assert!(out.abs() < 0.1, "NOR({v1}, {v2}) at {time}: {out} V");
        }
    }
    // Between the rails throughout (a CMOS gate cannot leave them by more than rounding).
    let c = t.col("mp2.S.v");
    assert!(t.rows.iter().all(|r| r[c] > -1e-6 && r[c] < 5.0 + 1e-6));
}
