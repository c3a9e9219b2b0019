//! String-valued parameter expressions in numeric parameter bindings: `V/(if C == "D" then 1
//! else sqrt(3))` with `parameter String C` (MLS 3.5: relations compare Strings
//! lexicographically). The registers hold only numbers, so a String parameter is never a
//! register value; its binding (or start value) is read here as text when a relation needs it.

use super::Evaluator;
use crate::dae::{BinOp, Expr, ScalarType};
use std::cmp::Ordering;

/// How deep String bindings may refer to each other (a cycle is an error, not a hang).
const MAX_DEPTH: usize = 64;

impl Evaluator<'_> {
    /// Whether `e` is a String-valued expression.
    pub(super) fn is_string(&self, e: &Expr) -> bool {
        match e {
            Expr::String(_) | Expr::ToString(..) => true,
            Expr::Var(v) => self.model.variables[*v].ty == ScalarType::String,
            Expr::Binary(BinOp::Add, a, b) => self.is_string(a) || self.is_string(b),
            Expr::If { else_, .. } => self.is_string(else_),
            _ => false,
        }
    }

    /// A relation between two String expressions, as 1 (true) or 0 (false).
    pub(super) fn compare_strings(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Result<f64, String> {
        let (a, b) = (self.text(a, 0)?, self.text(b, 0)?);
        let o = a.cmp(&b);
        let r = match op {
            BinOp::Eq => o == Ordering::Equal,
            BinOp::Ne => o != Ordering::Equal,
            BinOp::Lt => o == Ordering::Less,
            BinOp::Le => o != Ordering::Greater,
            BinOp::Gt => o == Ordering::Greater,
            BinOp::Ge => o != Ordering::Less,
            _ => return Err(format!("`{}` cannot be applied to Strings", op.symbol())),
        };
        Ok(f64::from(u8::from(r)))
    }

    fn text(&mut self, e: &Expr, depth: usize) -> Result<String, String> {
        if depth > MAX_DEPTH {
            return Err("the bindings of String parameters refer to each other in a cycle".into());
        }
        match e {
            Expr::String(s) => Ok(s.clone()),
            Expr::Var(v) => {
                let var = &self.model.variables[*v];
                if var.is_unknown() {
                    return Err(format!("it depends on the variable `{}`", var.name));
                }
                let Some(b) = var.binding.as_ref().or(var.start.as_ref()) else {
                    return Err(format!("String parameter `{}` has no value", var.name));
                };
                self.text(&b.clone(), depth + 1)
            }
            Expr::Binary(BinOp::Add, a, b) => {
                Ok(self.text(a, depth + 1)? + &self.text(b, depth + 1)?)
            }
            Expr::If { branches, else_ } => {
                for (c, x) in branches {
                    if self.eval(c)? != 0.0 {
                        return self.text(x, depth + 1);
                    }
                }
                self.text(else_, depth + 1)
            }
            _ => Err("this String expression cannot be evaluated before simulation".into()),
        }
    }
}
