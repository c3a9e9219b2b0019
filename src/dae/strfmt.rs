//! `String(x, ...)` formatting (MLS 3.7.1), shared by flattening (constant arguments) and the
//! simulator (run-time values in `assert`/`terminate` messages), so both print alike.

use serde::{Deserialize, Serialize};

/// The options of one `String(...)` call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StringFormat {
    /// `significantDigits` (Real only; default 6).
    pub significant_digits: u32,
    /// `format` (Real and Integer): a C-like specification without `%`, e.g. `"10.4f"`.
    pub format: Option<String>,
    /// `minimumLength`: the result is padded with blanks to at least this length.
    pub min_length: usize,
    /// `leftJustified`: pad on the right (true) or on the left.
    pub left_justified: bool,
    /// The literals of an enumeration being converted (MLS 3.7.1: `String(E.a)` is `"a"`).
    #[serde(default)]
    pub literals: Option<Vec<String>>,
}

impl Default for StringFormat {
    fn default() -> Self {
        StringFormat {
            significant_digits: 6,
            format: None,
            min_length: 0,
            left_justified: true,
            literals: None,
        }
    }
}

/// What kind of value is being converted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    Real,
    Integer,
    Boolean,
}

impl StringFormat {
    /// Formats `x`; `Err` for a `format` string this implementation does not understand.
    pub fn apply(&self, x: f64, kind: ValueKind) -> Result<String, String> {
        if let Some(l) = &self.literals {
            let name = (x >= 1.0)
                .then(|| l.get(x as usize - 1))
                .flatten()
                .ok_or_else(|| format!("{x} is not a value of enumeration({})", l.join(", ")))?;
            return Ok(self.pad(name.clone()));
        }
        let body = match (kind, &self.format) {
            (ValueKind::Boolean, _) => (if x != 0.0 { "true" } else { "false" }).to_string(),
            (_, Some(f)) => return c_format(f, x),
            (ValueKind::Integer, None) => format!("{}", x as i64),
            (ValueKind::Real, None) => format_g(x, self.significant_digits.max(1) as usize),
        };
        Ok(self.pad(body))
    }

    fn pad(&self, s: String) -> String {
        let n = s.chars().count();
        if n >= self.min_length {
            return s;
        }
        let fill = " ".repeat(self.min_length - n);
        if self.left_justified {
            s + &fill
        } else {
            fill + &s
        }
    }
}

/// C's `%.{digits}g`: the shorter of fixed and exponent notation, trailing zeros removed.
pub fn format_g(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if x == 0.0 {
        return "0".into();
    }
    // The decimal exponent after rounding to `digits` significant digits.
    let sci = format!("{:.*e}", digits - 1, x);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= digits as i32 {
        let mant = strip_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (digits as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// A C format specification without `%`: `[-][0][width][.precision](f|e|E|g|G|d|i)`.
fn c_format(spec: &str, x: f64) -> Result<String, String> {
    let bad = || {
        format!(
            "String: the format \"{spec}\" is not supported (use e.g. \"10.4f\", \".3e\", \"g\", \"d\")"
        )
    };
    let mut rest = spec.strip_prefix('%').unwrap_or(spec);
    let left = rest.starts_with('-');
    rest = rest.trim_start_matches('-');
    let zero = rest.starts_with('0');
    let conv = rest.chars().last().ok_or_else(bad)?;
    let body = &rest[..rest.len() - conv.len_utf8()];
    let (w, p) = match body.split_once('.') {
        Some((w, p)) => (w, Some(p)),
        None => (body, None),
    };
    let width: usize = if w.is_empty() {
        0
    } else {
        w.parse().map_err(|_| bad())?
    };
    let prec: Option<usize> = match p {
        Some("") => Some(0),
        Some(p) => Some(p.parse().map_err(|_| bad())?),
        None => None,
    };
    let s = match conv {
        'f' | 'F' => format!("{x:.*}", prec.unwrap_or(6)),
        'e' | 'E' => {
            let s = format!("{:.*e}", prec.unwrap_or(6), x);
            let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
            let e: i32 = e.parse().unwrap_or(0);
            let sign = if e < 0 { '-' } else { '+' };
            let t = format!("{m}e{sign}{:02}", e.abs());
            if conv == 'E' { t.to_uppercase() } else { t }
        }
        'g' | 'G' => {
            let t = format_g(x, prec.unwrap_or(6).max(1));
            if conv == 'G' { t.to_uppercase() } else { t }
        }
        'd' | 'i' => format!("{}", x.round() as i64),
        _ => return Err(bad()),
    };
    let n = s.chars().count();
    Ok(if n >= width {
        s
    } else if left {
        s + &" ".repeat(width - n)
    } else if zero {
        let (sign, digits) = match s.strip_prefix('-') {
            Some(d) => ("-", d.to_string()),
            None => ("", s.clone()),
        };
        format!("{sign}{}{digits}", "0".repeat(width - n))
    } else {
        " ".repeat(width - n) + &s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_like_c() {
        assert_eq!(format_g(0.1 + 0.2, 6), "0.3");
        assert_eq!(format_g(1234567.0, 6), "1.23457e+06");
        assert_eq!(format_g(0.0001234, 6), "0.0001234");
        assert_eq!(format_g(0.00001234, 6), "1.234e-05");
        assert_eq!(format_g(100.0, 6), "100");
        assert_eq!(format_g(-2.5, 3), "-2.5");
        assert_eq!(format_g(999999.5, 6), "1e+06");
    }

    #[test]
    fn c_formats() {
        assert_eq!(c_format("10.4f", 1.23456).unwrap(), "    1.2346");
        assert_eq!(c_format("-8.2f", 1.0).unwrap(), "1.00    ");
        assert_eq!(c_format(".3e", 12345.0).unwrap(), "1.234e+04");
        assert_eq!(c_format("05d", 42.0).unwrap(), "00042");
        assert!(c_format("q", 1.0).is_err());
    }
}
