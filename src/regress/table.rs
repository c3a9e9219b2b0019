//! A result table read from CSV: signal names and rows of numbers, time in the first column.

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

    /// The values of the signal `name`.
    pub fn column(&self, name: &str) -> Option<&[f64]> {
        let k = self.names.iter().skip(1).position(|n| n == name)?;
        Some(&self.columns[k])
    }
}
