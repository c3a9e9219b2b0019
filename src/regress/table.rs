//! A result table read from CSV, or from minimo's JSON result: signal names and rows of numbers,
//! time in the first column.

use std::path::Path;

#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Column names; the first is time.
    pub names: Vec<String>,
    pub time: Vec<f64>,
    /// `columns[k]` holds the values of `names[k + 1]`.
    pub columns: Vec<Vec<f64>>,
}

impl Table {
    /// Reads a CSV file whose first line names the columns (quoted or not).
    pub fn read_csv(path: &Path) -> Result<Table, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        Table::parse_csv(&text).map_err(|e| format!("`{}`: {e}", path.display()))
    }

    pub fn parse_csv(text: &str) -> Result<Table, String> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header = lines.next().ok_or("empty file")?;
        // Names of array elements are quoted and hold commas: `"x[1,2]"`.
        let names: Vec<String> = crate::sim::results::split_csv(header)
            .into_iter()
            .map(|s| s.trim().to_string())
            .collect();
        if names.len() < 2 {
            return Err("no signal columns".into());
        }
        let mut t = Table {
            columns: vec![Vec::new(); names.len() - 1],
            names,
            time: Vec::new(),
        };
        for (k, line) in lines.enumerate() {
            let mut vals = line.split(',').map(|s| s.trim().parse::<f64>());
            let row = k + 2;
            let time = vals
                .next()
                .and_then(|v| v.ok())
                .ok_or_else(|| format!("line {row}: bad time value"))?;
            t.time.push(time);
            for (c, col) in t.columns.iter_mut().enumerate() {
                let v = vals
                    .next()
                    .ok_or_else(|| format!("line {row}: missing column {}", c + 2))?
                    .map_err(|_| format!("line {row}: bad number in column {}", c + 2))?;
                col.push(v);
            }
        }
        Ok(t)
    }

    /// Reads minimo's JSON result (`simulate -o x.json`): its trajectories, and its parameters
    /// as constant columns, since reference files list parameters among their signals (a
    /// CSV result holds only the trajectories).
    pub fn read_json(path: &Path) -> Result<Table, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        Table::parse_json(&text).map_err(|e| format!("`{}`: {e}", path.display()))
    }

    pub fn parse_json(text: &str) -> Result<Table, String> {
        use serde_json::Value;
        let doc: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        // NaN and infinities are written as `null`.
        let number = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
        let time: Vec<f64> = doc["time"]
            .as_array()
            .ok_or("no `time` array")?
            .iter()
            .map(number)
            .collect();
        let mut t = Table {
            names: vec!["time".to_string()],
            time,
            columns: Vec::new(),
        };
        if let Some(values) = doc["values"].as_object() {
            for (name, column) in values {
                let column: Vec<f64> = column
                    .as_array()
                    .ok_or_else(|| format!("`{name}`: not an array"))?
                    .iter()
                    .map(number)
                    .collect();
                if column.len() != t.time.len() {
                    return Err(format!(
                        "`{name}`: {} values for {} times",
                        column.len(),
                        t.time.len()
                    ));
                }
                t.names.push(name.clone());
                t.columns.push(column);
            }
        }
        for p in doc["parameters"].as_array().into_iter().flatten() {
            let (Some(name), value) = (p["name"].as_str(), number(&p["value"])) else {
                continue;
            };
            if t.names.iter().any(|n| n == name) {
                continue;
            }
            t.names.push(name.to_string());
            t.columns.push(vec![value; t.time.len()]);
        }
        Ok(t)
    }

    /// The values of the signal `name`.
    pub fn column(&self, name: &str) -> Option<&[f64]> {
        let k = self.names.iter().skip(1).position(|n| n == name)?;
        Some(&self.columns[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_result_gives_its_trajectories_and_its_parameters_as_constant_columns() {
        let t = Table::parse_json(
            r#"{"time": [0, 1], "values": {"x": [1, null]},
                "parameters": [{"name": "k[1]", "value": 2.5}]}"#,
        )
        .unwrap();
        assert_eq!(t.time, vec![0.0, 1.0]);
        assert_eq!(t.column("k[1]"), Some(&[2.5, 2.5][..]));
        let x = t.column("x").unwrap();
        assert!(x[0] == 1.0 && x[1].is_nan());
    }
}
