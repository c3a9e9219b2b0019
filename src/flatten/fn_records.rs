//! Records in functions (MLS 12.6): a record input, output or local is passed and stored field
//! by field. The function's variables become one entry per field (`R.T`, `R.w`), so the
//! interpreter and the simulator only ever see arrays of built-in types; this module rewrites
//! the record-valued parts of a function body into field-wise statements: `R := Orientation(T =
//! A, w = b)` -> `R.T := A; R.w := b`, `g(R)` -> `g(R.T, R.w)`, and a record-valued call inside
//! an expression is first assigned to a temporary record (`($rec1.T, $rec1.w) := f(x)`).

use super::Flattener;
use super::classtree::ClassId;
use super::expand::Prim;
use super::modifier::Scope;
use super::record_by_name::group_field_names;
use crate::dae::{ArgGroup, FunctionVar, ScalarType};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast::{self, ExprKind, StatementKind};

/// One primitive field of a record, flattened (`T` or `sub.x`).
pub struct Field {
    pub name: String,
    pub ty: ScalarType,
    pub dims: Vec<usize>,
}

/// The record variables of the function being built.
#[derive(Default)]
pub struct FnRecords {
    /// Record variable (or nested record field, `R.sub`) -> its flat field names (`R.sub.x`).
    pub vars: std::collections::HashMap<String, Vec<String>>,
    /// Record variable -> its declared record class, where its constants are looked up.
    pub classes: std::collections::HashMap<String, ClassId>,
    /// Record variable declared as an array of records -> its number of dimensions.
    pub arrays: std::collections::HashMap<String, usize>,
    /// Statements that must run before the statement being rewritten (temporaries).
    pub pre: Vec<ast::Statement>,
    /// Temporary record fields to add to the function's locals.
    pub temps: Vec<FunctionVar>,
    pub next_temp: usize,
}

fn ref_expr(name: &str, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ExprKind::Ref(ast::ComponentRef::single(name, span)),
        span,
    }
}

/// The fields of a record value (as `record_value` gives it) in the order of the field
/// names `wanted`, when the value names its fields: every element is a field variable of one
/// record (`b.y`, `b.x`, or a call's temporary `$rec1.y`). Values whose fields cannot be told
/// by name, or whose names are not a reordering of `wanted`, are left as they are.
pub(super) fn by_field_names(vals: Vec<ast::Expr>, wanted: &[&str]) -> Vec<ast::Expr> {
    let names: Option<Vec<&str>> = vals
        .iter()
        .map(|v| match &v.kind {
            ExprKind::Ref(c) if c.parts.len() == 1 && c.parts[0].subscripts.is_empty() => {
                Some(c.parts[0].ident.name.as_str())
            }
            _ => None,
        })
        .collect();
    let Some(names) = names else { return vals };
    // The record's own prefix: the longest common prefix that ends at a `.`.
    let Some(first) = names.first() else {
        return vals;
    };
    let mut cut = first.len();
    for n in &names {
        cut = cut.min(
            first
                .bytes()
                .zip(n.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    let Some(dot) = first[..cut].rfind('.') else {
        return vals;
    };
    let fields: Vec<&str> = names.iter().map(|n| &n[dot + 1..]).collect();
    if fields == wanted || fields.len() != wanted.len() {
        return vals;
    }
    let pick: Option<Vec<usize>> = wanted
        .iter()
        .map(|w| fields.iter().position(|f| f == w))
        .collect();
    match pick {
        Some(pick) => pick.into_iter().map(|k| vals[k].clone()).collect(),
        None => vals,
    }
}

pub(super) fn int_expr(k: usize, span: Span) -> ast::Expr {
    ast::Expr {
        kind: ExprKind::Integer(k as i64),
        span,
    }
}

impl Flattener<'_> {
    /// Whether `class` is a record.
    pub fn is_record(&mut self, class: ClassId) -> Result<bool, Diagnostic> {
        Ok(matches!(
            self.expanded(class)?.kind,
            ast::ClassKind::Record | ast::ClassKind::OperatorRecord
        ))
    }

    /// The primitive fields of record `rec` in declaration order, nested records flattened
    /// (`prefix` is prepended to each name). Sizes must be fixed by constants or parameters of
    /// the record's scope.
    pub fn record_fields(
        &mut self,
        rec: ClassId,
        prefix: &str,
        nested: &mut Vec<(String, Vec<String>)>,
    ) -> Result<Vec<Field>, Diagnostic> {
        let exp = self.expanded(rec)?;
        let mut out = Vec::new();
        for c in &exp.components {
            if c.clause.prefix.variability == ast::Variability::Constant {
                continue;
            }
            let name = format!("{prefix}{}", c.name);
            let ty_class = self.lookup_class_name(&c.clause.type_name, c.lex, None)?;
            let te = self.expanded(ty_class)?;
            let mut dims = Vec::new();
            for d in c.dims_with_type(&te) {
                let ast::Subscript::Expr(e) = d else {
                    return Err(Diagnostic::error(
                        c.decl().name.span,
                        format!(
                            "record field `{name}` of a function argument needs a fixed size, not `:`"
                        ),
                    ));
                };
                let v = self.record_scope_value(
                    rec,
                    e,
                    Scope {
                        inst: None,
                        lex: c.lex,
                    },
                )?;
                let n = v.as_f64().filter(|x| *x >= 0.0).ok_or_else(|| {
                    Diagnostic::error(e.span, "an array size must be a non-negative Integer")
                })?;
                dims.push(n as usize);
            }
            match &te.prim {
                Some(Prim::Scalar(t)) => out.push(Field { name, ty: *t, dims }),
                Some(Prim::Enum(_)) => out.push(Field {
                    name,
                    ty: ScalarType::Enumeration,
                    dims,
                }),
                // A table handle inside a record is passed as the handle it is.
                Some(Prim::ExternalObject) => out.push(Field {
                    name,
                    ty: ScalarType::Integer,
                    dims,
                }),
                None if matches!(
                    te.kind,
                    ast::ClassKind::Record | ast::ClassKind::OperatorRecord
                ) && dims.is_empty() =>
                {
                    let sub = self.record_fields(ty_class, &format!("{name}."), nested)?;
                    nested.push((name.clone(), sub.iter().map(|f| f.name.clone()).collect()));
                    out.extend(sub);
                }
                None => {
                    return Err(Diagnostic::error(
                        c.decl().name.span,
                        format!(
                            "record field `{name}` has type `{}`: only built-in types, their arrays and nested records are supported in function arguments",
                            self.tree.get(ty_class).full
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Declares the function variable `name` of record type `rec`: one [`FunctionVar`] per
    /// field, registered in `self.fn_records`; returns the variables and the group.
    /// An array of records (`rec_dims` not empty, `None` for `:`) has those dimensions first
    /// in each field variable (`Complex v[:]` -> `v.re[:]`, `v.im[:]`).
    pub fn record_variable(
        &mut self,
        name: &str,
        rec: ClassId,
        first: usize,
        rec_dims: &[Option<ast::Expr>],
        span: Span,
    ) -> Result<(Vec<FunctionVar>, ArgGroup), Diagnostic> {
        let mut nested = Vec::new();
        let fields = self.record_fields(rec, &format!("{name}."), &mut nested)?;
        let vars: Vec<FunctionVar> = fields
            .iter()
            .map(|f| FunctionVar {
                name: f.name.clone(),
                ty: f.ty,
                dims: rec_dims
                    .iter()
                    .cloned()
                    .chain(f.dims.iter().map(|&k| Some(int_expr(k, span))))
                    .collect(),
                default: None,
            })
            .collect();
        if rec_dims.is_empty() {
            self.fn_records.arrays.remove(name);
        } else {
            self.fn_records
                .arrays
                .insert(name.to_string(), rec_dims.len());
        }
        self.fn_records.vars.insert(
            name.to_string(),
            fields.iter().map(|f| f.name.clone()).collect(),
        );
        self.fn_records.classes.insert(name.to_string(), rec);
        for (n, fs) in nested {
            self.fn_records.vars.insert(n, fs);
        }
        let group = ArgGroup {
            name: name.to_string(),
            first,
            fields: Some(fields.into_iter().map(|f| f.dims).collect()),
            record_dims: rec_dims.len(),
        };
        Ok((vars, group))
    }

    /// A reference into a record variable, `R.T[1, 2]`, as the single name of the field
    /// variable (`R.T` with the subscripts of the last part); `None` when `c` does not start
    /// with a record variable.
    pub fn record_field_ref(
        &self,
        c: &ast::ComponentRef,
    ) -> Result<Option<ast::ComponentRef>, Diagnostic> {
        let Some(first) = c.parts.first().map(|p| &p.ident.name) else {
            return Ok(None);
        };
        if c.global || !self.fn_records.vars.contains_key(first) {
            return Ok(None);
        }
        let [_, .., last] = c.parts.as_slice() else {
            return Err(Diagnostic::error(
                c.span,
                format!(
                    "record `{first}` used as a value: a whole record can only be assigned to a record or passed to a record input here"
                ),
            ));
        };
        let lead = self.record_subscripts(c)?;
        let name: Vec<&str> = c.parts.iter().map(|p| p.ident.name.as_str()).collect();
        let name = name.join(".");
        let known = self
            .fn_records
            .vars
            .get(first)
            .is_some_and(|fs| fs.contains(&name));
        if !known {
            return Err(Diagnostic::error(
                c.span,
                if self.fn_records.vars.contains_key(&name) {
                    format!(
                        "record `{name}` used as a value: a whole record can only be assigned to a record or passed to a record input here"
                    )
                } else {
                    format!(
                        "record `{first}` has no field `{}`",
                        &name[first.len() + 1..]
                    )
                },
            ));
        }
        let mut r = ast::ComponentRef::single(&name, c.span);
        r.parts[0].subscripts = lead;
        r.parts[0]
            .subscripts
            .extend(last.subscripts.iter().cloned());
        Ok(Some(r))
    }

    /// `size(v, k)` of an array of records `v`: the same of its first field variable, whose
    /// leading dimensions are the array's. `None` otherwise (`size(v)` and `ndims(v)` would
    /// count the field's own dimensions too, so they stay refused).
    pub fn record_array_size_args(
        &self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
    ) -> Option<ast::FunctionArgs> {
        if func.parts[0].ident.name != "size" || args.positional.len() != 2 {
            return None;
        }
        let ExprKind::Ref(c) = &args.positional[0].kind else {
            return None;
        };
        if c.global || c.parts.len() != 1 || !c.parts[0].subscripts.is_empty() {
            return None;
        }
        let name = &c.parts[0].ident.name;
        self.fn_records.arrays.get(name)?;
        let first = self.fn_records.vars.get(name)?.first()?;
        let mut a = args.clone();
        a.positional[0] = ref_expr(first, c.span);
        Some(a)
    }

    /// The subscripts of the record part of a reference into an array of records (`v[i]` in
    /// `v[i].re`): they select along the leading dimensions of each field variable. Only the
    /// first part may have them, and then one per dimension of the array.
    fn record_subscripts(&self, c: &ast::ComponentRef) -> Result<Vec<ast::Subscript>, Diagnostic> {
        let n = c.parts.len() - 1;
        let unsupported = || {
            Diagnostic::error(
                c.span,
                "arrays of records inside records are not supported in functions",
            )
        };
        if c.parts[1..n].iter().any(|p| !p.subscripts.is_empty()) {
            return Err(unsupported());
        }
        self.leading_subscripts(&c.parts[0], c.span)
    }

    /// The subscripts of `first`, the first part of a reference, as leading subscripts of
    /// the fields of the array of records it names (none for a whole record or array).
    pub fn leading_subscripts(
        &self,
        first: &ast::RefPart,
        span: Span,
    ) -> Result<Vec<ast::Subscript>, Diagnostic> {
        if first.subscripts.is_empty() {
            return Ok(vec![]);
        }
        match self.fn_records.arrays.get(&first.ident.name) {
            Some(&k) if k == first.subscripts.len() => Ok(first.subscripts.clone()),
            Some(&k) => Err(Diagnostic::error(
                span,
                format!(
                    "`{}` is an array of records with {k} dimension(s): give one subscript per dimension",
                    first.ident.name
                ),
            )),
            None => Err(Diagnostic::error(
                span,
                format!("`{}` is not an array", first.ident.name),
            )),
        }
    }

    /// `R.c` (or `R.sub.c`) for a constant `c` declared in the record class of function
    /// variable `R`: constants are elements of the record class (MLS 4.4.4, 12.6) but no
    /// field variables of the function, so their value is inlined. `None` for anything else.
    pub fn record_constant(
        &mut self,
        c: &ast::ComponentRef,
    ) -> Result<Option<ast::Expr>, Diagnostic> {
        let [head, path @ .., last] = c.parts.as_slice() else {
            return Ok(None);
        };
        if c.global {
            return Ok(None);
        }
        let Some(&first_rec) = self.fn_records.classes.get(&head.ident.name) else {
            return Ok(None);
        };
        let mut rec = first_rec;
        for p in path {
            if !p.subscripts.is_empty() {
                return Ok(None);
            }
            let exp = self.expanded(rec)?;
            let Some(&i) = exp.comp_index.get(&p.ident.name) else {
                return Ok(None);
            };
            let comp = &exp.components[i];
            let ty = self.lookup_class_name(&comp.clause.type_name, comp.lex, None)?;
            if !self.is_record(ty)? {
                return Ok(None);
            }
            rec = ty;
        }
        let exp = self.expanded(rec)?;
        let is_const = exp.comp_index.get(&last.ident.name).is_some_and(|&i| {
            exp.components[i].clause.prefix.variability == ast::Variability::Constant
        });
        if !is_const {
            return Ok(None);
        }
        let mut r = ast::ComponentRef::single(&last.ident.name, c.span);
        r.parts[0].subscripts = last.subscripts.clone();
        let e = ast::Expr {
            kind: ExprKind::Ref(r),
            span: c.span,
        };
        let v = self.eval_structural(
            &e,
            Scope {
                inst: None,
                lex: rec,
            },
        )?;
        Ok(Some(super::functions::literal(&v, c.span)))
    }

    /// The record class a call's name denotes (a record constructor), if any.
    pub fn record_constructor(
        &mut self,
        func: &ast::ComponentRef,
        class: ClassId,
    ) -> Option<ClassId> {
        let n = func.as_name();
        let id = self.lookup_class_name(&n, class, None).ok()?;
        self.is_record(id).ok()?.then_some(id)
    }

    /// `data[i]` or `data[i].field`: a constant vector of records of an enclosing package (an
    /// ideal-gas mixture's `data`, `fluidConstants`) subscripted by the function's own
    /// variables. The constant becomes a local array of records initialised with its value (one
    /// local per field), and the reference names that local; `None` when `c` is not such a
    /// reference. Only the subscripts are run-time values, so the table is read, not copied
    /// element by element into the body.
    pub fn record_array_constant_local(
        &mut self,
        c: &ast::ComponentRef,
        class: ClassId,
        bound: &[String],
    ) -> Result<Option<ast::ComponentRef>, Diagnostic> {
        if c.global || bound.contains(&c.parts[0].ident.name) {
            return Ok(None);
        }
        let Some(k) = c.parts.iter().position(|p| !p.subscripts.is_empty()) else {
            return Ok(None);
        };
        let reads_local = super::functions::subscripts_read(&c.parts[k].subscripts, bound);
        if !reads_local || c.parts[k + 1..].iter().any(|p| !p.subscripts.is_empty()) {
            return Ok(None);
        }
        let mut base = c.clone();
        base.parts.truncate(k + 1);
        base.parts[k].subscripts.clear();
        let Some(t) = self.outer_constant_type(&base, class) else {
            return Ok(None);
        };
        let super::operator_record::OTy::Rec(rec) = t.ty else {
            return Ok(None);
        };
        if t.ndims != 1 {
            return Ok(None);
        }
        let Some(n) = self.outer_constant_size(&base, class) else {
            return Ok(None);
        };
        self.fn_records.next_temp += 1;
        let name = format!("$const{}", self.fn_records.next_temp);
        let span = c.span;
        let size = Some(int_expr(n, span));
        let (mut vars, _) = self.record_variable(&name, rec, 0, &[size], span)?;
        let scope = Scope {
            inst: None,
            lex: class,
        };
        for v in &mut vars {
            // The field's values over the vector: `base[j].field` for j = 1..n, stacked.
            let mut items = Vec::with_capacity(n);
            for j in 1..=n {
                let mut r = base.clone();
                r.parts[k].subscripts = vec![ast::Subscript::Expr(int_expr(j, span))];
                for part in v.name[name.len() + 1..].split('.') {
                    r.parts.push(ast::RefPart {
                        ident: ast::Ident {
                            name: part.to_string(),
                            span,
                        },
                        subscripts: vec![],
                    });
                }
                let e = ast::Expr {
                    kind: ExprKind::Ref(r),
                    span,
                };
                items.push(self.eval_structural(&e, scope)?);
            }
            let value = super::tensor::Tensor::stack(items).map_err(|m| {
                Diagnostic::error(span, format!("field `{}` of the constant: {m}", v.name))
            })?;
            v.default = Some(super::functions::literal(&value, span));
        }
        self.fn_records.temps.extend(vars);
        let mut r = c.clone();
        r.parts.drain(..k);
        r.parts[0].ident.name = name;
        Ok(Some(r))
    }

    /// The value of record expression `e` as one rewritten expression per flat field.
    pub fn record_value(
        &mut self,
        e: &ast::Expr,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<Vec<ast::Expr>, Diagnostic> {
        if let Some(call) = self.fn_desugar(e, class)? {
            return self.record_value(&call, class, bound);
        }
        if let ExprKind::Ref(c) = &e.kind
            && let Some(r) = self.record_array_constant_local(c, class, bound)?
        {
            let local = ast::Expr {
                kind: ExprKind::Ref(r),
                span: e.span,
            };
            return self.record_value(&local, class, bound);
        }
        match &e.kind {
            ExprKind::Ref(c)
                if !c.global
                    && c.parts.len() == 1
                    && !c.parts[0].subscripts.is_empty()
                    && self.fn_records.arrays.contains_key(&c.parts[0].ident.name) =>
            {
                // `v[i]` of an array of records: each field at those leading subscripts.
                let subs = self.leading_subscripts(&c.parts[0], c.span)?;
                let fs = self.fn_records.vars[&c.parts[0].ident.name].clone();
                let mut out = Vec::new();
                for f in fs {
                    let mut r = ast::ComponentRef::single(&f, e.span);
                    r.parts[0].subscripts = subs.clone();
                    let r = self.rewrite_cref_subs(&r, class, bound)?;
                    out.push(ast::Expr {
                        kind: ExprKind::Ref(r),
                        span: e.span,
                    });
                }
                Ok(out)
            }
            ExprKind::Ref(c) if !c.global && c.parts.iter().all(|p| p.subscripts.is_empty()) => {
                let name: Vec<&str> = c.parts.iter().map(|p| p.ident.name.as_str()).collect();
                let name = name.join(".");
                if let Some(fs) = self.fn_records.vars.get(&name) {
                    return Ok(fs.iter().map(|f| ref_expr(f, e.span)).collect());
                }
                if let Some(vals) = self.outer_record_constant(c, class)? {
                    return Ok(vals);
                }
                Err(Diagnostic::error(
                    e.span,
                    format!("`{name}` is not a record variable of this function"),
                ))
            }
            ExprKind::Call { func, args } => {
                if let Some(rec) = self.record_constructor(func, class) {
                    return self.constructor_fields(rec, args, class, bound, e.span);
                }
                let fcall = self.rewrite_expr_call(func, args, class, bound, true)?;
                let ExprKind::Call { func: full, .. } = &fcall.kind else {
                    unreachable!("a call stays a call");
                };
                let fname = super::eval::cref_name(full);
                let f = self.functions.get(&fname);
                let group = f.and_then(|f| f.output_groups.first().cloned());
                let Some(group) = group.filter(|g| g.fields.is_some()) else {
                    return Err(Diagnostic::error(
                        e.span,
                        format!("`{fname}` does not return a record"),
                    ));
                };
                let f = &self.functions[&fname];
                let outs: Vec<FunctionVar> =
                    f.outputs[group.first..group.first + group.count()].to_vec();
                self.fn_records.next_temp += 1;
                let tmp = format!("$rec{}", self.fn_records.next_temp);
                let mut targets = Vec::new();
                let mut refs = Vec::new();
                for mut o in outs {
                    let n = format!("{tmp}{}", &o.name[group.name.len()..]);
                    targets.push(Some(ast::ComponentRef::single(&n, e.span)));
                    refs.push(ref_expr(&n, e.span));
                    // The sizes of an array of records may name the callee's inputs: the
                    // temporary takes them from the value assigned.
                    for d in o.dims.iter_mut().take(group.record_dims) {
                        *d = None;
                    }
                    self.fn_records.temps.push(FunctionVar { name: n, ..o });
                }
                self.fn_records.pre.push(ast::Statement {
                    kind: StatementKind::MultiAssign {
                        targets,
                        value: fcall,
                    },
                    comment: ast::Comment::default(),
                    span: e.span,
                });
                Ok(refs)
            }
            ExprKind::If { branches, else_ } => self.record_if_value(branches, else_, class, bound),
            ExprKind::Array(args) if !args.iterators.is_empty() => {
                self.record_comprehension(args, class, bound, e.span)
            }
            ExprKind::Array(args) if args.named.is_empty() && !args.positional.is_empty() => {
                self.record_array_literal(&args.positional, class, bound, e.span)
            }
            _ => Err(Diagnostic::error(
                e.span,
                "expected a record value (a record variable, a record constructor or a call of a function returning a record)",
            )),
        }
    }

    /// A record constant the function reads from outside (`Modelica.ComplexMath.j`, a
    /// constant of an enclosing class or an imported one): its flat fields as literals.
    /// `None` when `c` names no such constant.
    fn outer_record_constant(
        &mut self,
        c: &ast::ComponentRef,
        class: ClassId,
    ) -> Result<Option<Vec<ast::Expr>>, Diagnostic> {
        let Some(t) = self.outer_constant_type(c, class) else {
            return Ok(None);
        };
        let super::operator_record::OTy::Rec(rec) = t.ty else {
            return Ok(None);
        };
        if t.ndims != 0 {
            return Ok(None);
        }
        let mut nested = Vec::new();
        let fields = self.record_fields(rec, "", &mut nested)?;
        let scope = Scope {
            inst: None,
            lex: class,
        };
        let mut out = Vec::with_capacity(fields.len());
        for f in fields {
            let mut r = c.clone();
            for name in f.name.split('.') {
                r.parts.push(ast::RefPart {
                    ident: ast::Ident {
                        name: name.to_string(),
                        span: c.span,
                    },
                    subscripts: vec![],
                });
            }
            let field = ast::Expr {
                kind: ExprKind::Ref(r),
                span: c.span,
            };
            let v = self.eval_structural(&field, scope)?;
            out.push(super::functions::literal(&v, c.span));
        }
        Ok(Some(out))
    }

    /// `if c1 then r1 elseif c2 then r2 else r3` of records: per field the if-expression of
    /// the branches' fields. Temporaries a branch needs (a record-valued call) are computed
    /// only under that branch's condition, so a call the condition rules out never runs.
    fn record_if_value(
        &mut self,
        branches: &[(ast::Expr, ast::Expr)],
        else_: &ast::Expr,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<Vec<ast::Expr>, Diagnostic> {
        let outer_pre = std::mem::take(&mut self.fn_records.pre);
        let mut conds = Vec::with_capacity(branches.len());
        for (c, _) in branches {
            conds.push(self.rewrite_expr(c, class, bound)?);
        }
        // Conditions are evaluated before any branch (they may need temporaries of their own).
        let mut pre = outer_pre;
        pre.append(&mut self.fn_records.pre);
        let mut values = Vec::with_capacity(branches.len() + 1);
        let mut guarded = Vec::new();
        for (k, (_, v)) in branches.iter().enumerate() {
            values.push(self.record_value(v, class, bound)?);
            let stmts = std::mem::take(&mut self.fn_records.pre);
            if !stmts.is_empty() {
                guarded.push((k, stmts));
            }
        }
        values.push(self.record_value(else_, class, bound)?);
        let else_pre = std::mem::take(&mut self.fn_records.pre);
        if !guarded.is_empty() || !else_pre.is_empty() {
            // One if-statement with every branch: its own temporaries under its condition.
            let mut arms: Vec<(ast::Expr, Vec<ast::Statement>)> =
                conds.iter().map(|c| (c.clone(), vec![])).collect();
            for (k, stmts) in guarded {
                arms[k].1 = stmts;
            }
            let span = else_.span;
            pre.push(ast::Statement {
                kind: StatementKind::If {
                    branches: arms,
                    else_: else_pre,
                },
                comment: ast::Comment::default(),
                span,
            });
        }
        self.fn_records.pre = pre;
        let n = values[0].len();
        if let Some(bad) = values.iter().find(|v| v.len() != n) {
            return Err(Diagnostic::error(
                else_.span,
                format!(
                    "the branches of this if-expression are records of {n} and {} fields",
                    bad.len()
                ),
            ));
        }
        let mut out = Vec::with_capacity(n);
        for f in 0..n {
            let bs = conds
                .iter()
                .zip(&values)
                .map(|(c, v)| (c.clone(), v[f].clone()))
                .collect();
            out.push(ast::Expr {
                kind: ExprKind::If {
                    branches: bs,
                    else_: Box::new(values[branches.len()][f].clone()),
                },
                span: else_.span,
            });
        }
        Ok(out)
    }

    /// `Rec(a, f = b)`: the flat fields from positional and named arguments, defaults from
    /// the field declarations.
    fn constructor_fields(
        &mut self,
        rec: ClassId,
        args: &ast::FunctionArgs,
        class: ClassId,
        bound: &mut Vec<String>,
        span: Span,
    ) -> Result<Vec<ast::Expr>, Diagnostic> {
        let exp = self.expanded(rec)?;
        let comps: Vec<_> = exp
            .components
            .iter()
            .filter(|c| c.clause.prefix.variability != ast::Variability::Constant)
            .cloned()
            .collect();
        let names: Vec<String> = comps.iter().map(|c| c.name.clone()).collect();
        let rname = self.tree.get(rec).full.clone();
        let given = super::eval::bind_args(&names, args, &rname, span)?;
        let mut out = Vec::new();
        for (c, g) in comps.iter().zip(given) {
            let (arg, scope) = match g {
                Some(a) => (a.clone(), class),
                // The record's own `extends` modifiers come before the declaration's binding.
                None => match Self::field_binding(&exp, &c.name) {
                    Some(b) => ((*b.expr).clone(), b.scope.lex),
                    None => {
                        return Err(Diagnostic::error(
                            span,
                            format!(
                                "record constructor `{rname}`: field `{}` has no value",
                                c.name
                            ),
                        ));
                    }
                },
            };
            let ty = self.lookup_class_name(&c.clause.type_name, c.lex, None)?;
            if self.is_record(ty)? {
                out.extend(self.record_value(&arg, scope, bound)?);
            } else {
                out.push(self.rewrite_expr(&arg, scope, bound)?);
            }
        }
        Ok(out)
    }

    /// The record class of a record value in a function body, where it is declared: a
    /// record variable of the function or a record constructor call; `None` otherwise.
    pub(super) fn record_value_class(&mut self, e: &ast::Expr, class: ClassId) -> Option<ClassId> {
        match &e.kind {
            ExprKind::Ref(c)
                if !c.global && c.parts.len() == 1 && c.parts[0].subscripts.is_empty() =>
            {
                self.fn_records.classes.get(&c.parts[0].ident.name).copied()
            }
            // A function's record output is not followed here (model level: `record_expr_value`).
            ExprKind::Call { func, .. } => self.record_constructor(func, class),
            _ => None,
        }
    }

    /// Arguments of a call of `fname`, with record inputs passed field by field.
    pub fn record_call_args(
        &mut self,
        fname: &str,
        args: &ast::FunctionArgs,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<Option<ast::FunctionArgs>, Diagnostic> {
        let Some(f) = self.functions.get(fname) else {
            return Ok(None);
        };
        if f.input_groups.is_empty() || !args.iterators.is_empty() {
            return Ok(None);
        }
        let groups = f.input_groups.clone();
        let inputs: Vec<String> = f.inputs.iter().map(|v| v.name.clone()).collect();
        let names: Vec<String> = groups.iter().map(|g| g.name.clone()).collect();
        let given = super::eval::bind_args(&names, args, fname, args.span)?;
        // Everything is passed by name after the first missing input, so defaults apply.
        let mut positional = Vec::new();
        let mut named = Vec::new();
        let mut by_name = false;
        for (g, a) in groups.iter().zip(given) {
            let Some(a) = a else {
                by_name = true;
                continue;
            };
            let vals = match g.fields {
                Some(_) => {
                    let vals = self.record_value(a, class, bound)?;
                    match self.record_value_class(a, class) {
                        Some(rec) if g.record_dims == 0 => {
                            let rec = self.record_class_value(rec)?;
                            match self.record_field_map(&rec, g, &inputs, a.span)? {
                                Some(map) if map.pick.len() <= vals.len() => {
                                    map.permute_fields(&vals)
                                }
                                _ => vals,
                            }
                        }
                        _ => by_field_names(vals, &group_field_names(g, &inputs)),
                    }
                }
                None => vec![self.rewrite_expr(a, class, bound)?],
            };
            if vals.len() != g.count() {
                return Err(Diagnostic::error(
                    a.span,
                    format!(
                        "input `{}` of `{fname}` takes a record of {} fields, got {}",
                        g.name,
                        g.count(),
                        vals.len()
                    ),
                ));
            }
            for (k, v) in vals.into_iter().enumerate() {
                if by_name {
                    named.push(ast::NamedArg {
                        name: ast::Ident {
                            name: inputs[g.first + k].clone(),
                            span: a.span,
                        },
                        value: v,
                    });
                } else {
                    positional.push(v);
                }
            }
        }
        Ok(Some(ast::FunctionArgs {
            positional,
            named,
            iterators: vec![],
            span: args.span,
        }))
    }

    /// `{a, b, c}` of records: per field the array of the elements' fields (MLS 10.4), so an
    /// array of records is its field arrays, as a declared one is.
    fn record_array_literal(
        &mut self,
        items: &[ast::Expr],
        class: ClassId,
        bound: &mut Vec<String>,
        span: Span,
    ) -> Result<Vec<ast::Expr>, Diagnostic> {
        let mut values = Vec::with_capacity(items.len());
        for it in items {
            values.push(self.record_value(it, class, bound)?);
        }
        let n = values[0].len();
        if values.iter().any(|v| v.len() != n) {
            return Err(Diagnostic::error(
                span,
                "the elements of this array are records with different numbers of fields",
            ));
        }
        Ok((0..n)
            .map(|f| {
                super::operator_record::array(values.iter().map(|v| v[f].clone()).collect(), span)
            })
            .collect())
    }

    /// `{e for i in r}` of records (MLS 10.4.1): per field the comprehension of `e`'s field,
    /// when `e`'s fields are expressions of `i`. When `e` needs temporaries (a record-valued
    /// call such as an operator), they depend on `i`: the array is built in a loop instead,
    /// into a temporary array of records whose fields the value then reads.
    fn record_comprehension(
        &mut self,
        args: &ast::FunctionArgs,
        class: ClassId,
        bound: &mut Vec<String>,
        span: Span,
    ) -> Result<Vec<ast::Expr>, Diagnostic> {
        let [body] = args.positional.as_slice() else {
            return Err(Diagnostic::error(
                span,
                "an array comprehension has one expression",
            ));
        };
        let n0 = bound.len();
        let r = self.record_comprehension_in(body, &args.iterators, class, bound, span);
        bound.truncate(n0);
        r
    }

    fn record_comprehension_in(
        &mut self,
        body: &ast::Expr,
        iterators: &[ast::ForIndex],
        class: ClassId,
        bound: &mut Vec<String>,
        span: Span,
    ) -> Result<Vec<ast::Expr>, Diagnostic> {
        let mut idx = Vec::with_capacity(iterators.len());
        for i in iterators {
            let Some(r) = &i.range else {
                return Err(Diagnostic::error(
                    i.name.span,
                    "an array comprehension of records needs the range of its iterator (`for i in 1:n`)",
                ));
            };
            let r = self.rewrite_expr(r, class, bound)?;
            idx.push(ast::ForIndex {
                name: i.name.clone(),
                range: Some(r),
            });
            bound.push(i.name.name.clone());
        }
        // Temporaries of the ranges run before the comprehension; the body's are its own.
        let before = std::mem::take(&mut self.fn_records.pre);
        let vals = self.record_value(body, class, bound);
        let inner = std::mem::replace(&mut self.fn_records.pre, before);
        let vals = vals?;
        if inner.is_empty() {
            return Ok(vals
                .into_iter()
                .map(|v| ast::Expr {
                    kind: ExprKind::Array(ast::FunctionArgs {
                        positional: vec![v],
                        named: vec![],
                        iterators: idx.clone(),
                        span,
                    }),
                    span,
                })
                .collect());
        }
        let [index] = idx.as_slice() else {
            return Err(Diagnostic::error(
                span,
                "an array comprehension of records computed by record-valued calls takes one iterator here",
            ));
        };
        self.record_comprehension_loop(body, index, inner, vals, class, span)
    }

    /// The loop form of [`Self::record_comprehension`]: `$recN.f := fill(0, size(r, 1))`, then
    /// `for i in r loop <temporaries>; $cN := $cN + 1; $recN.f[$cN] := value.f; end for`.
    /// The position counter makes any range (`{2, 5}`, `3:-1:1`) fill the array from 1.
    fn record_comprehension_loop(
        &mut self,
        body: &ast::Expr,
        index: &ast::ForIndex,
        mut inner: Vec<ast::Statement>,
        vals: Vec<ast::Expr>,
        class: ClassId,
        span: Span,
    ) -> Result<Vec<ast::Expr>, Diagnostic> {
        let t = super::operator_record::expr_type(
            &mut super::operator_record::FnScope { f: self, class },
            body,
        )?;
        let (super::operator_record::OTy::Rec(rec), 0) = (t.ty, t.ndims) else {
            return Err(Diagnostic::error(
                body.span,
                "the record type of the elements of this array comprehension is not known here",
            ));
        };
        let mut nested = Vec::new();
        self.fn_records.next_temp += 1;
        let tmp = format!("$rec{}", self.fn_records.next_temp);
        let count = format!("$cnt{}", self.fn_records.next_temp);
        let fields = self.record_fields(rec, &format!("{tmp}."), &mut nested)?;
        if fields.len() != vals.len() {
            return Err(Diagnostic::error(
                body.span,
                format!(
                    "the elements of this array comprehension have {} fields, their record type {}",
                    vals.len(),
                    fields.len()
                ),
            ));
        }
        let range = index.range.clone().ok_or_else(|| {
            Diagnostic::error(span, "an array comprehension of records needs a range")
        })?;
        let stmt = |kind| ast::Statement {
            kind,
            comment: ast::Comment::default(),
            span,
        };
        let call = |name: &str, positional: Vec<ast::Expr>| {
            super::operator_record::call_expr(
                ast::ComponentRef::single(name, span),
                positional,
                span,
            )
        };
        let n = call("size", vec![range, int_expr(1, span)]);
        self.fn_records.temps.push(FunctionVar {
            name: count.clone(),
            ty: ScalarType::Integer,
            dims: vec![],
            default: None,
        });
        self.fn_records.pre.push(stmt(StatementKind::Assign {
            target: ast::ComponentRef::single(&count, span),
            value: int_expr(0, span),
        }));
        inner.push(stmt(StatementKind::Assign {
            target: ast::ComponentRef::single(&count, span),
            value: ast::Expr {
                kind: ExprKind::Binary {
                    op: ast::BinOp::Add,
                    lhs: Box::new(ref_expr(&count, span)),
                    rhs: Box::new(int_expr(1, span)),
                },
                span,
            },
        }));
        let mut out = Vec::with_capacity(fields.len());
        for (f, v) in fields.into_iter().zip(vals) {
            let zero = match f.ty {
                ScalarType::Real => ExprKind::Real(0.0),
                ScalarType::Integer | ScalarType::Enumeration => ExprKind::Integer(0),
                ScalarType::Boolean => ExprKind::Boolean(false),
                ScalarType::String => ExprKind::String(String::new()),
            };
            let mut fill_args = vec![ast::Expr { kind: zero, span }, n.clone()];
            fill_args.extend(f.dims.iter().map(|&d| int_expr(d, span)));
            self.fn_records.pre.push(stmt(StatementKind::Assign {
                target: ast::ComponentRef::single(&f.name, span),
                value: call("fill", fill_args),
            }));
            let mut target = ast::ComponentRef::single(&f.name, span);
            target.parts[0].subscripts = vec![ast::Subscript::Expr(ref_expr(&count, span))];
            inner.push(stmt(StatementKind::Assign { target, value: v }));
            self.fn_records.temps.push(FunctionVar {
                name: f.name.clone(),
                ty: f.ty,
                dims: std::iter::once(None)
                    .chain(f.dims.iter().map(|&d| Some(int_expr(d, span))))
                    .collect(),
                default: None,
            });
            out.push(ref_expr(&f.name, span));
        }
        self.fn_records.pre.push(stmt(StatementKind::For {
            indices: vec![index.clone()],
            body: inner,
        }));
        Ok(out)
    }
}
