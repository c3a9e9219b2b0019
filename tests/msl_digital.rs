//! `Modelica.Electrical.Digital` examples whose tristate tables are read with run-time
//! subscripts: the check of discrete-time expressions (MLS 3.8.3) must not take minimo's own
//! subscript helper functions for user functions with continuous arguments. BUF3S follows its
//! truth table: output `y` equals input `x` while `enable` is '1', and is 'Z' (high impedance)
//! while `enable` is '0'.

mod flatten_common;

use flatten_common::{msl_library, simulate_with_library};

#[test]
fn buf3s_follows_its_truth_table() {
    let Some(lib) = msl_library() else {
        return;
    };
    let t = simulate_with_library(&lib, &["-m", "Modelica.Electrical.Digital.Examples.BUF3S"]);
    let (x, en, y) = (t.col("bUF3S.x"), t.col("bUF3S.enable"), t.col("bUF3S.y"));
    // Logic: 1 'U', 2 'X', 3 '0', 4 '1', 5 'Z'. The example's buffer delays its output by
    // 1 s (tLH = tHL = 1): rows whose inputs have not changed for 1.2 s are compared.
    let rows = &t.rows;
    let mut checked = 0;
    for (k, r) in rows.iter().enumerate() {
        let before = rows[..k].iter().rev().take_while(|s| s[0] >= r[0] - 1.2);
        if r[0] < 1.2 || !before.clone().all(|s| s[x] == r[x] && s[en] == r[en]) {
            continue;
        }
        if r[en] == 4.0 && (r[x] == 3.0 || r[x] == 4.0) {
            assert_eq!(r[y], r[x], "y follows x at t = {}", r[0]);
            checked += 1;
        } else if r[en] == 3.0 {
            assert_eq!(r[y], 5.0, "y is 'Z' at t = {}", r[0]);
            checked += 1;
        }
    }
    assert!(checked > 10, "only {checked} rows checked");
}
