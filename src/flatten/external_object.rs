//! External objects (MLS 12.9.7) and the external functions minimo evaluates natively.
//!
//! A class extending `ExternalObject` has a `constructor` and a `destructor` function; a
//! component of such a class is bound to a constructor call. No C code can be linked, so only
//! the objects of ModelicaStandardTables (the MSL's interpolation tables) are supported: their
//! constructor is run at flattening on parameter arguments (the table becomes part of the flat
//! model, see `dae::tables`), and every call of an access function (`getTable1DValue`...) with
//! the object as first argument becomes a call of a *specialised* function that carries the
//! table itself and takes the remaining arguments. That keeps `Expr::UserCall` and the
//! interpreter unchanged: constant calls are evaluated while flattening (`u_min`), the others at
//! run time, and derivatives come from the generic partial derivatives of user functions.

use super::Flattener;
use super::expand::Prim;
use super::func_eval::{self, Value};
use super::instance::{InstId, InstKind};
use super::tensor::{Tensor, Val};
use crate::dae::tables::{self, Matrix, Table, Table1D, Table2D, TimeTable};
use crate::dae::{Function, Native};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, ExprKind};
use std::rc::Rc;

const PREFIX: &str = "ModelicaStandardTables_";

/// The ModelicaStandardTables functions minimo implements (without the common prefix).
const ACCESS: &[&str] = &[
    "CombiTimeTable_getValue",
    "CombiTimeTable_getDerValue",
    "CombiTimeTable_getDer2Value",
    "CombiTimeTable_minimumTime",
    "CombiTimeTable_maximumTime",
    "CombiTimeTable_nextTimeEvent",
    "CombiTable1D_getValue",
    "CombiTable1D_getDerValue",
    "CombiTable1D_getDer2Value",
    "CombiTable1D_minimumAbscissa",
    "CombiTable1D_maximumAbscissa",
    "CombiTable2D_getValue",
    "CombiTable2D_getDerValue",
    "CombiTable2D_getDer2Value",
    "CombiTable2D_minimumAbscissa",
    "CombiTable2D_maximumAbscissa",
];

fn is_constructor(c_name: &str) -> bool {
    c_name.strip_prefix(PREFIX).is_some_and(|r| {
        [
            "CombiTimeTable_init",
            "CombiTable1D_init",
            "CombiTable2D_init",
        ]
        .iter()
        .any(|p| r.starts_with(p))
    })
}

fn is_destructor(c_name: &str) -> bool {
    c_name
        .strip_prefix(PREFIX)
        .is_some_and(|r| r.ends_with("_close"))
}

/// Whether minimo evaluates the C function `c_name` itself.
pub fn is_native(c_name: &str) -> bool {
    super::native::is_builtin(c_name)
        || is_constructor(c_name)
        || is_destructor(c_name)
        || c_name
            .strip_prefix(PREFIX)
            .is_some_and(|r| ACCESS.contains(&r))
}

/// Whether `c_name` reads a table object passed as the function's first input.
fn is_access(c_name: &str) -> bool {
    c_name
        .strip_prefix(PREFIX)
        .is_some_and(|r| ACCESS.contains(&r))
}

impl Flattener<'_> {
    /// Whether instance `i` is an external object.
    pub fn is_external_object(&self, i: InstId) -> bool {
        matches!(self.insts[i].exp.prim, Some(Prim::ExternalObject))
            && matches!(self.insts[i].kind, InstKind::Struct { .. })
    }

    /// The table of the external object instance `i`, built from its binding (a constructor
    /// call with parameter arguments) on first use.
    pub fn external_table(&mut self, i: InstId, use_span: Span) -> Result<Rc<Table>, Diagnostic> {
        if let Some(t) = self.ext_tables.get(&i) {
            return Ok(t.clone());
        }
        let path = self.insts[i].path.clone();
        let Some(b) = self.insts[i].mods.binding.clone() else {
            return Err(Diagnostic::error(
                use_span,
                format!(
                    "external object `{path}` has no binding: it must be bound to a constructor call"
                ),
            ));
        };
        let span = b.expr.span;
        let ExprKind::Call { func, args } = &b.expr.kind else {
            return Err(Diagnostic::error(
                span,
                format!(
                    "external object `{path}` must be bound to a constructor call such as `{}(...)`",
                    self.tree.get(self.insts[i].class).full
                ),
            ));
        };
        let name = func.as_name();
        let class = self.lookup_class_name(&name, b.scope.lex, b.scope.inst)?;
        let exp = self.expanded(class)?;
        if !matches!(exp.prim, Some(Prim::ExternalObject)) {
            return Err(Diagnostic::error(
                span,
                format!(
                    "external object `{path}` must be bound to a call of its class's constructor, not `{}`",
                    self.tree.get(class).full
                ),
            ));
        }
        let Some(ctor) = exp.classes.get("constructor").map(|c| c.id) else {
            return Err(Diagnostic::error(
                span,
                format!(
                    "external object class `{}` has no `constructor` function",
                    self.tree.get(class).full
                ),
            ));
        };
        let fname = self.function(ctor)?;
        let f = self.functions[&fname].clone();
        let Some(native) = f.native.as_ref().filter(|n| is_constructor(&n.c_name)) else {
            return Err(Diagnostic::error(
                span,
                format!(
                    "the constructor `{fname}` of external object `{path}` is not one of the ModelicaStandardTables constructors minimo implements"
                ),
            ));
        };
        let inputs: Vec<String> = f.inputs.iter().map(|v| v.name.clone()).collect();
        let bound = super::eval::bind_args(&inputs, args, &fname, span)?;
        let mut vals = Vec::with_capacity(bound.len());
        for e in bound {
            vals.push(match e {
                Some(e) => Some(self.eval_structural(e, b.scope)?),
                None => None,
            });
        }
        let named = func_eval::inputs_with_defaults(&self.functions, &fname, vals)
            .map_err(|m| Diagnostic::error(span, m))?;
        let table = construct(&native.c_name, &named).map_err(|m| {
            Diagnostic::error(span, format!("table `{path}`: {m}"))
                .with_label("external object constructed here")
        })?;
        let t = Rc::new(table);
        self.ext_tables.insert(i, t.clone());
        Ok(t)
    }

    /// The function `f` specialised to `table` (of the object at `path`), created on first use,
    /// with its declared derivative (and that one's) specialised too: the derivative function
    /// also takes the object as first input, and only the specialised one fits the call's
    /// arguments, so that `der` of a table output uses the table's own slope instead of a
    /// difference quotient across the table's jumps.
    fn specialise_table_function(&mut self, f: &Function, table: &Rc<Table>, path: &str) -> String {
        let name = format!("{}#{}", f.name, path);
        if self.functions.contains_key(&name) {
            return name;
        }
        let mut g = f.clone();
        g.name = name.clone();
        g.inputs.remove(0);
        if let Some(n) = &mut g.native {
            n.table = Some((**table).clone());
        }
        // Inserted before the derivative chain is followed, so a cycle ends here.
        self.functions.insert(name.clone(), g.clone());
        let der = g
            .derivative
            .as_ref()
            .and_then(|d| self.functions.get(&d.name).cloned());
        if let Some(df) = der.filter(needs_object) {
            let dname = self.specialise_table_function(&df, table, path);
            if let Some(d) = self
                .functions
                .get_mut(&name)
                .and_then(|g| g.derivative.as_mut())
            {
                d.name = dname;
            }
        }
        name
    }

    /// For a call of a native table access function, the name of the function specialised to
    /// the object given as first argument (created on first use) and the remaining arguments.
    pub fn specialise_table_call<'a>(
        &mut self,
        f: &Function,
        object: InstId,
        rest: Vec<Option<&'a ast::Expr>>,
        span: Span,
    ) -> Result<(String, Vec<Option<&'a ast::Expr>>), Diagnostic> {
        let table = self.external_table(object, span)?;
        let path = self.insts[object].path.clone();
        let name = self.specialise_table_function(f, &table, &path);
        Ok((name, rest))
    }
}

thread_local! {
    /// Whether a call reached an external C function minimo cannot link (see [`take_unlinked`]).
    static UNLINKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a call reached an external C function minimo cannot link since the last call of
/// this: a function called for its effect that only fails for that (it writes a file) is
/// skipped with a warning (`sim/funcall.rs`), while its asserts still run.
pub fn take_unlinked() -> bool {
    UNLINKED.with(|u| u.replace(false))
}

/// Whether `f` is an external function minimo cannot evaluate (its calls are kept symbolic,
/// so that only a call actually evaluated fails).
pub fn is_unlinkable(f: &Function) -> bool {
    f.native.as_ref().is_some_and(|n| !is_native(&n.c_name))
}

/// Whether `f` reads a table object given as its first input (not yet specialised).
pub fn needs_object(f: &Function) -> bool {
    f.native
        .as_ref()
        .is_some_and(|n| n.table.is_none() && is_access(&n.c_name))
}

fn input<'a>(named: &'a [(String, Value)], name: &str) -> Result<&'a Value, String> {
    named
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
        .ok_or_else(|| format!("the constructor has no input `{name}`"))
}

fn string(named: &[(String, Value)], name: &str) -> Result<String, String> {
    match input(named, name)?.data.first() {
        Some(Val::Str(s)) => Ok(s.clone()),
        _ => Err(format!("`{name}` must be a String")),
    }
}

fn number(named: &[(String, Value)], name: &str) -> Result<f64, String> {
    input(named, name)?
        .as_f64()
        .ok_or_else(|| format!("`{name}` must be a number"))
}

fn integer(named: &[(String, Value)], name: &str) -> Result<i64, String> {
    input(named, name)?
        .data
        .first()
        .and_then(|v| v.as_int())
        .ok_or_else(|| format!("`{name}` must be an Integer or enumeration value"))
}

/// Runs a ModelicaStandardTables constructor on its (named) arguments.
fn construct(c_name: &str, named: &[(String, Value)]) -> Result<Table, String> {
    let file = string(named, "fileName")?;
    let table_name = string(named, "tableName")?;
    if file != "NoName" {
        return Err(format!(
            "tables read from files are not supported (fileName = \"{file}\"): give the data in the `table` parameter with tableOnFile = false"
        ));
    }
    if table_name != "NoName" {
        return Err(format!(
            "the table \"{table_name}\" would come from a file or a compiled usertab.c, which minimo cannot read: give the data in the `table` parameter with tableOnFile = false"
        ));
    }
    let t = input(named, "table")?;
    let data = t
        .to_f64s()
        .ok_or("the `table` argument must be a Real matrix")?;
    let (rows, cols) = match t.dims.as_slice() {
        [r, c] => (*r, *c),
        _ => return Err("the `table` argument must be a matrix".into()),
    };
    let m = Matrix {
        rows,
        cols,
        data: &data,
    };
    let smoothness = tables::smoothness(integer(named, "smoothness")?)?;
    let extrapolation = tables::extrapolation(integer(named, "extrapolation")?)?;
    let columns = || -> Result<Vec<i64>, String> {
        input(named, "columns")?
            .data
            .iter()
            .map(|v| {
                v.as_int()
                    .ok_or_else(|| "`columns` must be Integers".to_string())
            })
            .collect()
    };
    let r = c_name.strip_prefix(PREFIX).unwrap_or(c_name);
    if r.starts_with("CombiTimeTable_init") {
        Ok(Table::Time(TimeTable {
            table: Table1D::new(&m, &columns()?, smoothness, extrapolation, false)?,
            start_time: number(named, "startTime")?,
            shift_time: number(named, "shiftTime")?,
            time_events: tables::time_events(integer(named, "timeEvents")?)?,
        }))
    } else if r.starts_with("CombiTable1D_init") {
        Ok(Table::OneD(Table1D::new(
            &m,
            &columns()?,
            smoothness,
            extrapolation,
            true,
        )?))
    } else {
        Ok(Table::TwoD(Table2D::new(&m, smoothness, extrapolation)?))
    }
}

/// Evaluates a native function on its inputs (the table object already removed).
pub fn call_native(n: &Native, name: &str, inputs: &[&Value]) -> Result<Vec<Value>, String> {
    if n.builtin
        && let Some(b) = super::eval::builtin_of(&n.c_name)
    {
        let args: Vec<Val> = inputs
            .iter()
            .map(|v| v.data.first().cloned().ok_or("an empty argument"))
            .collect::<Result<_, _>>()
            .map_err(|m| format!("`{name}`: {m}"))?;
        let y = super::tensor::val_builtin(b, &args).map_err(|m| format!("`{name}`: {m}"))?;
        return Ok(vec![Value::scalar(y)]);
    }
    if !is_native(&n.c_name) {
        UNLINKED.with(|u| u.set(true));
        return Err(format!(
            "`{name}` calls the C function `{}`, which minimo cannot link (no C code is linked; only the ModelicaStandardTables table functions, a few ModelicaStrings and ModelicaRandom functions (with the impure generator), the real FFT ModelicaFFT_kiss_fftr, Streams.print and Streams.error, and the LAPACK routines dgesv, dgetrf, dgetrs, dgelsy and dgglse are built in)",
            n.c_name
        ));
    }
    if super::native::is_builtin(&n.c_name) {
        return super::native::call(&n.c_name, name, inputs);
    }
    let Some(table) = &n.table else {
        return Err(format!(
            "`{name}` (C function `{}`) can only be called with an external table object as its first argument",
            n.c_name
        ));
    };
    let x = |k: usize| -> Result<f64, String> {
        inputs
            .get(k)
            .and_then(|v| v.as_f64())
            .ok_or_else(|| format!("`{name}`: argument {} must be a number", k + 2))
    };
    let icol = |k: usize| -> Result<i64, String> {
        inputs
            .get(k)
            .and_then(|v| v.data.first())
            .and_then(|v| v.as_int())
            .ok_or_else(|| format!("`{name}`: the column index must be an Integer"))
    };
    let r = n.c_name.strip_prefix(PREFIX).unwrap_or(&n.c_name);
    let wrong = || {
        format!(
            "`{name}`: C function `{}` does not apply to this table",
            n.c_name
        )
    };
    let err = |m: String| format!("{name}: {m}");
    let y = match (r, table) {
        ("CombiTable1D_getValue", Table::OneD(t)) => t.eval(icol(0)?, x(1)?, None).map_err(err)?.0,
        ("CombiTable1D_getDerValue", Table::OneD(t)) => {
            t.eval(icol(0)?, x(1)?, None).map_err(err)?.1 * x(2)?
        }
        ("CombiTable1D_getDer2Value", Table::OneD(t)) => {
            let (_, d1, d2) = t.eval(icol(0)?, x(1)?, None).map_err(err)?;
            d2 * x(2)?.powi(2) + d1 * x(3)?
        }
        ("CombiTable1D_minimumAbscissa", Table::OneD(t)) => t.min(),
        ("CombiTable1D_maximumAbscissa", Table::OneD(t)) => t.max(),
        ("CombiTimeTable_getValue", Table::Time(t)) => {
            t.eval(icol(0)?, x(1)?, x(2)?, x(3)?).map_err(err)?.0
        }
        ("CombiTimeTable_getDerValue", Table::Time(t)) => {
            t.eval(icol(0)?, x(1)?, x(2)?, x(3)?).map_err(err)?.1 * x(4)?
        }
        ("CombiTimeTable_getDer2Value", Table::Time(t)) => {
            let (_, d1, d2) = t.eval(icol(0)?, x(1)?, x(2)?, x(3)?).map_err(err)?;
            d2 * x(4)?.powi(2) + d1 * x(5)?
        }
        ("CombiTimeTable_minimumTime", Table::Time(t)) => t.table.min(),
        ("CombiTimeTable_maximumTime", Table::Time(t)) => t.table.max(),
        ("CombiTimeTable_nextTimeEvent", Table::Time(t)) => t.next_event(x(0)?),
        ("CombiTable2D_getValue", Table::TwoD(t)) => t.eval(x(0)?, x(1)?).map_err(err)?.y,
        ("CombiTable2D_getDerValue", Table::TwoD(t)) => {
            let v = t.eval(x(0)?, x(1)?).map_err(err)?;
            v.d1 * x(2)? + v.d2 * x(3)?
        }
        ("CombiTable2D_getDer2Value", Table::TwoD(t)) => {
            let v = t.eval(x(0)?, x(1)?).map_err(err)?;
            let (du1, du2) = (x(2)?, x(3)?);
            v.d11 * du1 * du1
                + 2.0 * v.d12 * du1 * du2
                + v.d22 * du2 * du2
                + v.d1 * x(4)?
                + v.d2 * x(5)?
        }
        ("CombiTable2D_minimumAbscissa", Table::TwoD(t)) => {
            return Ok(vec![Tensor::reals(vec![2], &[t.u1[0], t.u2[0]])]);
        }
        ("CombiTable2D_maximumAbscissa", Table::TwoD(t)) => {
            return Ok(vec![Tensor::reals(
                vec![2],
                &[t.u1[t.u1.len() - 1], t.u2[t.u2.len() - 1]],
            )]);
        }
        _ => return Err(wrong()),
    };
    Ok(vec![Value::real(y)])
}
