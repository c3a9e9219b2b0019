//! User functions (MLS 12): a function class becomes a [`dae::Function`] whose algorithm
//! refers only to its own variables, literal values of the constants it uses, and fully
//! qualified names of the functions it calls, so it can run without the class tree.

use super::Flattener;
use super::classtree::ClassId;
use super::expand::Prim;
use super::modifier::Scope;
use super::tensor::{Tensor, Val};
use crate::dae::{Function, FunctionVar, Native};
use crate::diag::{Diagnostic, Kind, Span};
use crate::syntax::ast::{self, ExprKind, StatementKind};

impl Flattener<'_> {
    /// Makes sure the function class `class` is in `self.functions`; returns its name.
    pub fn function(&mut self, class: ClassId) -> Result<String, Diagnostic> {
        let name = self.tree.get(class).full.clone();
        if self.functions.contains_key(&name) || self.fn_building.contains(&name) {
            return Ok(name);
        }
        self.fn_building.insert(name.clone());
        // A function called while another is built has its own record variables.
        let outer_records = std::mem::take(&mut self.fn_records);
        let outer_functional = std::mem::take(&mut self.fn_functional);
        let outer_function = self.building_function.replace(class);
        let outer_body_lex = self.fn_body_lex.take();
        let r = self.build_function(class, &name);
        self.fn_body_lex = outer_body_lex;
        self.building_function = outer_function;
        self.fn_functional = outer_functional;
        self.fn_records = outer_records;
        self.fn_building.remove(&name);
        match r {
            Ok(mut f) => {
                f.folded = super::func_eval::fold_bindings(&self.functions, &f);
                self.functions.insert(name.clone(), f);
                Ok(name)
            }
            Err(d) => {
                // The signature registered while the body was rewritten goes with it.
                self.functions.remove(&name);
                Err(d)
            }
        }
    }

    pub(super) fn build_function(
        &mut self,
        class: ClassId,
        name: &str,
    ) -> Result<Function, Diagnostic> {
        let exp = self.expanded(class)?;
        let span = self.tree.get(class).span;
        let native = self.native_of(class);
        if exp.partial {
            return Err(Diagnostic::error(
                span,
                format!("cannot call `{name}`: it is declared `partial`"),
            )
            .with_kind(Kind::Partial));
        }
        let mut bound: Vec<String> = exp.components.iter().map(|c| c.name.clone()).collect();
        let mut f = Function {
            name: name.to_string(),
            inputs: vec![],
            outputs: vec![],
            locals: vec![],
            body: vec![],
            span,
            native,
            derivative: None,
            input_groups: vec![],
            output_groups: vec![],
            folded: Vec::new(),
            inline_after_index_reduction: false,
        };
        // Bindings of record outputs and locals, run before the algorithm.
        let mut record_bindings = Vec::new();
        // The record variables those bindings fill.
        let mut records_bound: Vec<String> = Vec::new();
        for c in &exp.components {
            let ty_class = self.lookup_class_name(&c.clause.type_name, c.lex, None)?;
            let te = self.expanded(ty_class)?;
            let causality = declared_causality(c, &te);
            let ty = match &te.prim {
                Some(Prim::Scalar(t)) => *t,
                Some(Prim::Enum(_)) => crate::dae::ScalarType::Enumeration,
                Some(Prim::ExternalObject) => crate::dae::ScalarType::Integer,
                None if matches!(
                    te.kind,
                    ast::ClassKind::Record | ast::ClassKind::OperatorRecord
                ) =>
                {
                    let span = c.decl().name.span;
                    // An array of records: its dimensions lead each field's (`v.re[:]`).
                    let mut rec_dims = Vec::new();
                    for d in c.decl().dims.iter().chain(&c.clause.type_dims) {
                        rec_dims.push(match d {
                            ast::Subscript::Colon(_) => None,
                            ast::Subscript::Expr(e) => {
                                Some(self.rewrite_expr(e, class, &mut bound)?)
                            }
                        });
                    }
                    let list = match causality {
                        ast::Causality::Input => &f.inputs,
                        ast::Causality::Output => &f.outputs,
                        ast::Causality::None => &f.locals,
                    };
                    let (vars, group) =
                        self.record_variable(&c.name, ty_class, list.len(), &rec_dims, span)?;
                    bound.extend(vars.iter().map(|v| v.name.clone()));
                    let whole = matches!(
                        c.decl().modification,
                        Some(
                            ast::Modification::Binding { .. }
                                | ast::Modification::Class {
                                    binding: Some(_),
                                    ..
                                }
                        )
                    );
                    let before = record_bindings.len();
                    if causality != ast::Causality::Input && !whole && rec_dims.is_empty() {
                        record_bindings
                            .extend(self.record_field_defaults(&c.name, ty_class, span)?);
                    }
                    record_bindings.extend(record_binding(name, c, causality)?);
                    if record_bindings.len() > before {
                        records_bound.push(c.name.clone());
                    }
                    match causality {
                        ast::Causality::Input => {
                            f.input_groups.push(group);
                            f.inputs.extend(vars);
                        }
                        ast::Causality::Output => {
                            f.output_groups.push(group);
                            f.outputs.extend(vars);
                        }
                        ast::Causality::None => f.locals.extend(vars),
                    }
                    continue;
                }
                None if te.is_function() && causality == ast::Causality::Input => {
                    self.functional_input(name, c, &mut f, &mut bound)?;
                    continue;
                }
                None => {
                    return Err(Diagnostic::error(
                        c.decl().name.span,
                        format!(
                            "function `{name}`: `{}` has type `{}`; only built-in types and their arrays are supported in functions",
                            c.name,
                            self.tree.get(ty_class).full
                        ),
                    ));
                }
            };
            let v = self.plain_var(class, c, &te, ty, &mut bound)?;
            match causality {
                ast::Causality::Input => {
                    f.input_groups.push(plain_group(&v.name, f.inputs.len()));
                    f.inputs.push(v);
                }
                ast::Causality::Output => {
                    f.output_groups.push(plain_group(&v.name, f.outputs.len()));
                    f.outputs.push(v);
                }
                ast::Causality::None => f.locals.push(v),
            }
        }
        if f.input_groups
            .iter()
            .chain(&f.output_groups)
            .all(|g| g.fields.is_none())
        {
            f.input_groups.clear();
            f.output_groups.clear();
        }
        // The signature is known before the body is rewritten: a function called from its own
        // body or from its derivative function (`resolve2` and `resolve2_der`) passes its
        // record arguments field by field too.
        self.functions.insert(name.to_string(), f.clone());
        f.body = self.rewrite_block(&record_bindings, class, &mut bound)?;
        let late = late_bindings(&mut f, records_bound);
        let has_body =
            !exp.algorithms.is_empty() || !record_bindings.is_empty() || !late.is_empty();
        f.body.extend(late);
        for (lex, alg) in &exp.algorithms {
            self.fn_body_lex = (*lex != class).then_some(*lex);
            let b = self.rewrite_block(alg, class, &mut bound);
            self.fn_body_lex = None;
            f.body.extend(b?);
        }
        f.locals.append(&mut self.fn_records.temps);
        if f.native.is_none() && !has_body && !f.outputs.iter().all(|o| o.default.is_some()) {
            return Err(Diagnostic::error(
                span,
                format!("function `{name}` has no algorithm section"),
            ));
        }
        f.derivative = self.derivative_annotation(class)?;
        f.inline_after_index_reduction = self.annotation_flag(class, "InlineAfterIndexReduction");
        self.mark_builtin_external(class, &mut f);
        Ok(f)
    }

    /// The foreign function an `external` class calls, if it is one. Any external function
    /// becomes native: the ModelicaStandardTables ones are evaluated by minimo, the others
    /// fail with their C name when (and only when) a call is evaluated, so a call in a branch
    /// not taken (`if tableOnFile then Strings.length(fileName)`) does no harm.
    fn native_of(&self, class: ClassId) -> Option<Native> {
        self.tree
            .get(class)
            .long()
            .and_then(|b| b.external_name.clone())
            .map(|c_name| Native {
                c_name,
                table: None,
                builtin: false,
            })
    }

    /// A function variable of a built-in type `ty` (or an array of it) declared by `c`, its
    /// dimensions and default rewritten in terms of the function's own variables.
    fn plain_var(
        &mut self,
        class: ClassId,
        c: &super::expand::CompElem,
        te: &super::expand::Expanded,
        ty: crate::dae::ScalarType,
        bound: &mut Vec<String>,
    ) -> Result<FunctionVar, Diagnostic> {
        let mut dims = Vec::new();
        for d in c.dims_with_type(te) {
            let scope = Scope {
                inst: None,
                lex: class,
            };
            dims.push(match d {
                ast::Subscript::Colon(_) => None,
                // `Real x[E]`: as many elements as the type has values.
                ast::Subscript::Expr(e) => match self.type_as_dimension(e, scope) {
                    Some(v) => Some(ast::Expr {
                        kind: ExprKind::Integer(v.len() as i64),
                        span: e.span,
                    }),
                    None => Some(self.rewrite_expr(e, class, bound)?),
                },
            });
        }
        let default = match &c.decl().modification {
            Some(ast::Modification::Binding { expr, .. })
            | Some(ast::Modification::Assign { expr, .. }) => Some(expr.clone()),
            Some(ast::Modification::Class {
                binding: Some(expr),
                ..
            }) => Some(expr.clone()),
            _ => None,
        };
        let default = match default {
            Some(e) => Some(self.rewrite_default(&e, class, c.lex, bound)?),
            None => None,
        };
        Ok(FunctionVar {
            name: c.name.clone(),
            ty,
            dims,
            default,
        })
    }

    /// A default value of a function variable, its names looked up in the function (where
    /// a redeclared package constant is seen), else where the declaration is written (`lex`):
    /// an inherited input's default may read a name imported by the base function's package
    /// (`crossArea = pi*diameter^2/4` in `PartialWallFriction`, which imports `pi`), and
    /// imports are not inherited (MLS 13.2.1) while a modification is looked up in the scope
    /// of its declaration (MLS 5.3).
    fn rewrite_default(
        &mut self,
        e: &ast::Expr,
        class: ClassId,
        lex: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<ast::Expr, Diagnostic> {
        match self.rewrite_expr(e, class, bound) {
            Err(d) if lex != class && d.kind == Kind::UnknownName => {
                self.rewrite_expr(e, lex, bound).map_err(|_| d)
            }
            r => r,
        }
    }

    /// A functional input of the specialization being built: the values its partial
    /// application binds are inputs `formal.name` (`functional_args.rs`).
    fn functional_input(
        &mut self,
        name: &str,
        c: &super::expand::CompElem,
        f: &mut Function,
        bound: &mut Vec<String>,
    ) -> Result<(), Diagnostic> {
        let Some(v) = self.fn_functional.get(&c.name).cloned() else {
            return Err(Diagnostic::error(
                c.decl().name.span,
                format!(
                    "function `{name}`: the functional input `{}` is given a function only in a call (MLS 12.4.2)",
                    c.name
                ),
            ));
        };
        let actual = self.function(v.class)?;
        for p in &v.bound {
            if let Some(rec) = self.record_input_class(v.class, p)? {
                // A record bound by the partial application (`function f_nonlinear(data =
                // data, h = h)` in the MSL's ideal gases) is a record input of the
                // specialization, passed field by field like any record argument.
                let span = c.decl().name.span;
                let (vars, group) = self.record_variable(
                    &format!("{}.{p}", c.name),
                    rec,
                    f.inputs.len(),
                    &[],
                    span,
                )?;
                bound.extend(vars.iter().map(|v| v.name.clone()));
                f.input_groups.push(group);
                f.inputs.extend(vars);
                continue;
            }
            let Some(input) = self
                .functions
                .get(&actual)
                .and_then(|g| g.inputs.iter().find(|i| i.name == *p))
                .cloned()
            else {
                return Err(Diagnostic::error(
                    c.decl().name.span,
                    format!("`{actual}` has no input `{p}` of a built-in or record type to bind"),
                ));
            };
            let var = FunctionVar {
                name: format!("{}.{p}", c.name),
                ty: input.ty,
                // Sizes come with the value passed (the declared ones name the inputs of
                // the function passed, not of this one).
                dims: input.dims.iter().map(|_| None).collect(),
                default: None,
            };
            bound.push(var.name.clone());
            f.input_groups.push(plain_group(&var.name, f.inputs.len()));
            f.inputs.push(var);
        }
        Ok(())
    }

    /// The record class of input `name` of function `class`, when that input is a scalar
    /// record (an array of records is not bound by a partial application here).
    fn record_input_class(
        &mut self,
        class: ClassId,
        name: &str,
    ) -> Result<Option<ClassId>, Diagnostic> {
        let exp = self.expanded(class)?;
        let Some(c) = exp.components.iter().find(|c| c.name == name) else {
            return Ok(None);
        };
        if !c.decl().dims.is_empty() || !c.clause.type_dims.is_empty() {
            return Ok(None);
        }
        let ty = self.lookup_class_name(&c.clause.type_name, c.lex, None)?;
        let te = self.expanded(ty)?;
        let record = te.prim.is_none()
            && matches!(
                te.kind,
                ast::ClassKind::Record | ast::ClassKind::OperatorRecord
            );
        Ok(record.then_some(ty))
    }

    /// `external "builtin"` calling one of minimo's built-in functions with the function's
    /// inputs in declared order and one Real output (MLS 12.9.1) is that built-in; any other
    /// mapping stays a foreign call that fails with its name when evaluated.
    fn mark_builtin_external(&self, class: ClassId, f: &mut Function) {
        let Some(args) = self
            .tree
            .get(class)
            .long()
            .and_then(|b| b.builtin_args.clone())
        else {
            return;
        };
        let Some(n) = f.native.as_mut() else {
            return;
        };
        let in_order = match &args {
            None => true,
            Some(a) => a.iter().eq(f.inputs.iter().map(|v| &v.name)),
        };
        let scalar = |v: &crate::dae::FunctionVar| v.dims.is_empty();
        n.builtin = in_order
            && super::eval::builtin_of(&n.c_name).is_some()
            && f.outputs.len() == 1
            && f.inputs.iter().all(scalar)
            && f.outputs.iter().all(scalar);
    }

    /// `annotation(derivative(order = 2, noDerivative = u, zeroDerivative = y) = fder)` of a
    /// function class; the derivative function is flattened too.
    fn derivative_annotation(
        &mut self,
        class: ClassId,
    ) -> Result<Option<crate::dae::FunctionDerivative>, Diagnostic> {
        let Some(ann) = self
            .tree
            .get(class)
            .long()
            .and_then(|b| b.annotation.clone())
        else {
            return Ok(None);
        };
        for a in &ann.modification.args {
            let ast::Argument::Modify {
                name,
                modification: Some(m),
                ..
            } = a
            else {
                continue;
            };
            if name.parts.len() != 1 || name.parts[0].name != "derivative" {
                continue;
            }
            let (opts, target) = match m {
                ast::Modification::Class { args, binding, .. } => (Some(args), binding.as_ref()),
                ast::Modification::Binding { expr, .. } => (None, Some(expr)),
                ast::Modification::Assign { .. } => continue,
            };
            let Some(ast::Expr {
                kind: ast::ExprKind::Ref(cref),
                ..
            }) = target
            else {
                return Err(Diagnostic::error(
                    m_span(m),
                    "the `derivative` annotation must name a function: `derivative = f_der`",
                ));
            };
            let fname = cref.as_name();
            let target = self.lookup_class_name(&fname, class, None)?;
            let mut d = crate::dae::FunctionDerivative {
                name: self.function(target)?,
                order: 1,
                no_derivative: Vec::new(),
                zero_derivative: Vec::new(),
            };
            for o in opts.map(|o| o.args.as_slice()).unwrap_or(&[]) {
                let ast::Argument::Modify {
                    name,
                    modification: Some(ast::Modification::Binding { expr, .. }),
                    ..
                } = o
                else {
                    continue;
                };
                let value = match &expr.kind {
                    ast::ExprKind::Ref(r) => Some(r.parts[0].ident.name.clone()),
                    _ => None,
                };
                match (name.parts[0].name.as_str(), value, &expr.kind) {
                    ("noDerivative", Some(v), _) => d.no_derivative.push(v),
                    ("zeroDerivative", Some(v), _) => d.zero_derivative.push(v),
                    ("order", _, ast::ExprKind::Integer(k)) if *k >= 1 => d.order = *k as u32,
                    _ => {}
                }
            }
            return Ok(Some(d));
        }
        Ok(None)
    }

    fn rewrite_block(
        &mut self,
        body: &[ast::Statement],
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<Vec<ast::Statement>, Diagnostic> {
        let mut out = Vec::new();
        for s in body {
            self.rewrite_stmt(s, class, bound, &mut out)?;
        }
        Ok(out)
    }

    /// Rewrites `s` into `out`, preceded by the assignments of the record temporaries its
    /// expressions need.
    fn rewrite_stmt(
        &mut self,
        s: &ast::Statement,
        class: ClassId,
        bound: &mut Vec<String>,
        out: &mut Vec<ast::Statement>,
    ) -> Result<(), Diagnostic> {
        let stmt = |kind| ast::Statement {
            kind,
            comment: ast::Comment::default(),
            span: s.span,
        };
        let kind = match &s.kind {
            StatementKind::Assign { target, value }
                if target.parts.len() == 1
                    && !target.global
                    && self
                        .fn_records
                        .vars
                        .contains_key(&target.parts[0].ident.name) =>
            {
                return self.rewrite_record_assign(s, target, value, class, bound, out);
            }
            StatementKind::Assign { target, value } => StatementKind::Assign {
                target: self.rewrite_target(target, class, bound)?,
                value: self.rewrite_expr(value, class, bound)?,
            },
            StatementKind::MultiAssign { targets, value } => {
                self.rewrite_multi_assign(targets, value, class, bound)?
            }
            StatementKind::Call { func, args } => {
                let call = self.rewrite_expr_call(func, args, class, bound, true)?;
                let ExprKind::Call { func, args } = call.kind else {
                    unreachable!("a call stays a call");
                };
                StatementKind::Call { func, args }
            }
            StatementKind::If { branches, else_ } => {
                let mut bs = Vec::new();
                for (c, body) in branches {
                    let c = self.rewrite_expr(c, class, bound)?;
                    let body = self.rewrite_block(body, class, bound)?;
                    bs.push((c, body));
                }
                let else_ = self.rewrite_block(else_, class, bound)?;
                StatementKind::If {
                    branches: bs,
                    else_,
                }
            }
            StatementKind::For { indices, body } => {
                let mut idx = Vec::new();
                let n0 = bound.len();
                for i in indices {
                    let range = match &i.range {
                        Some(r) => Some(self.rewrite_expr(r, class, bound)?),
                        None => None,
                    };
                    idx.push(ast::ForIndex {
                        name: i.name.clone(),
                        range,
                    });
                    bound.push(i.name.name.clone());
                }
                let body = self.rewrite_block(body, class, bound);
                bound.truncate(n0);
                StatementKind::For {
                    indices: idx,
                    body: body?,
                }
            }
            StatementKind::While { condition, body } => {
                let condition = self.rewrite_expr(condition, class, bound)?;
                if !self.fn_records.pre.is_empty() {
                    return Err(Diagnostic::error(
                        condition.span,
                        "a call returning a record is not supported in a `while` condition",
                    ));
                }
                StatementKind::While {
                    condition,
                    body: self.rewrite_block(body, class, bound)?,
                }
            }
            StatementKind::When { .. } => {
                return Err(Diagnostic::error(
                    s.span,
                    "`when` statements are not allowed in functions",
                ));
            }
            StatementKind::Return => StatementKind::Return,
            StatementKind::Break => StatementKind::Break,
        };
        out.append(&mut self.fn_records.pre);
        out.push(stmt(kind));
        Ok(())
    }

    /// `R := record value`: field by field (`v[i] := ...` of an array of records at those
    /// leading subscripts), into `out`.
    fn rewrite_record_assign(
        &mut self,
        s: &ast::Statement,
        target: &ast::ComponentRef,
        value: &ast::Expr,
        class: ClassId,
        bound: &mut Vec<String>,
        out: &mut Vec<ast::Statement>,
    ) -> Result<(), Diagnostic> {
        let fields = self.fn_records.vars[&target.parts[0].ident.name].clone();
        let lead = self.leading_subscripts(&target.parts[0], target.span)?;
        let mut vals = self.record_value(value, class, bound)?;
        out.append(&mut self.fn_records.pre);
        // Another record class is assigned field by field by name (MLS 6.4).
        let to = self
            .fn_records
            .classes
            .get(&target.parts[0].ident.name)
            .copied();
        let from = self.record_value_class(value, class);
        if let (Some(to), Some(from), true) = (to, from, target.parts.len() == 1)
            && let Some(map) = self.record_class_map(from, to, value.span)?
            && map.arg_sizes.len() == vals.len()
        {
            vals = map.permute_fields(&vals);
        } else if from.is_none() {
            let wanted =
                super::record_by_name::field_names_under(&target.parts[0].ident.name, &fields);
            vals = super::fn_records::by_field_names(vals, &wanted);
        }
        if vals.len() != fields.len() {
            return Err(Diagnostic::error(
                s.span,
                format!(
                    "record assignment: `{}` has {} fields, the value {}",
                    target.parts[0].ident.name,
                    fields.len(),
                    vals.len()
                ),
            ));
        }
        for (f, v) in fields.iter().zip(vals) {
            let t = ast::ComponentRef {
                global: false,
                parts: vec![ast::RefPart {
                    ident: ast::Ident {
                        name: f.clone(),
                        span: target.span,
                    },
                    subscripts: lead.clone(),
                }],
                span: target.span,
            };
            out.push(ast::Statement {
                kind: StatementKind::Assign {
                    target: self.rewrite_cref_subs(&t, class, bound)?,
                    value: v,
                },
                comment: ast::Comment::default(),
                span: s.span,
            });
        }
        Ok(())
    }

    /// `(a, b) := f(...)`: outputs that are records are assigned field by field.
    fn rewrite_multi_assign(
        &mut self,
        targets: &[Option<ast::ComponentRef>],
        value: &ast::Expr,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<StatementKind, Diagnostic> {
        let (value, groups) = match &value.kind {
            ExprKind::Call { func, args } => {
                let v = self.rewrite_expr_call(func, args, class, bound, true)?;
                let groups = match &v.kind {
                    ExprKind::Call { func, .. } => self
                        .functions
                        .get(&super::eval::cref_name(func))
                        .map(|f| f.output_groups.clone())
                        .unwrap_or_default(),
                    _ => vec![],
                };
                (v, groups)
            }
            _ => (self.rewrite_expr(value, class, bound)?, vec![]),
        };
        let mut ts = Vec::new();
        for (k, t) in targets.iter().enumerate() {
            let g = groups.get(k).filter(|g| g.fields.is_some());
            match (t, g) {
                (Some(t), Some(_)) => {
                    let name: Vec<&str> = t.parts.iter().map(|p| p.ident.name.as_str()).collect();
                    let Some(fields) = self.fn_records.vars.get(&name.join(".")) else {
                        return Err(Diagnostic::error(
                            t.span,
                            "this output is a record: assign it to a record variable",
                        ));
                    };
                    for f in fields {
                        ts.push(Some(ast::ComponentRef {
                            global: false,
                            parts: vec![ast::RefPart {
                                ident: ast::Ident {
                                    name: f.clone(),
                                    span: t.span,
                                },
                                subscripts: vec![],
                            }],
                            span: t.span,
                        }));
                    }
                }
                (None, Some(g)) => ts.extend((0..g.count()).map(|_| None)),
                (Some(t), None) => ts.push(Some(self.rewrite_target(t, class, bound)?)),
                (None, None) => ts.push(None),
            }
        }
        Ok(StatementKind::MultiAssign { targets: ts, value })
    }

    /// An assignment target: a field of a record variable becomes its field variable.
    fn rewrite_target(
        &mut self,
        t: &ast::ComponentRef,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<ast::ComponentRef, Diagnostic> {
        match self.record_field_ref(t)? {
            Some(r) => self.rewrite_cref_subs(&r, class, bound),
            None => self.rewrite_cref_subs(t, class, bound),
        }
    }

    /// A call inside a function body: record inputs passed field by field. A call returning
    /// a record is only allowed where a record is expected (`record_ok`).
    pub(super) fn rewrite_expr_call(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        class: ClassId,
        bound: &mut Vec<String>,
        record_ok: bool,
    ) -> Result<ast::Expr, Diagnostic> {
        let builtin = self.is_builtin_call(func, class, None);
        if builtin && let Some(a) = self.record_array_size_args(func, args) {
            return self.rewrite_expr_call(func, &a, class, bound, record_ok);
        }
        if !builtin && let Some(rec) = self.record_constructor(func, class) {
            return Err(Diagnostic::error(
                func.span,
                format!(
                    "record constructor `{}` used as a value: it can only be assigned to a record or passed to a record input here",
                    self.tree.get(rec).full
                ),
            ));
        }
        if !builtin {
            if let Some((id, a)) = self.functional_input_call(func, args)? {
                let full = self.function(id)?;
                // Records the partial application bound are passed field by field.
                let args = self.call_args(&full, &a, class, bound)?;
                return Ok(ast::Expr {
                    kind: ExprKind::Call {
                        func: super::functional_args::name_ref(&full, func.span),
                        args,
                    },
                    span: func.span,
                });
            }
            if let Some(call) = self.specialized_call(func, args, class, bound)? {
                return Ok(call);
            }
        }
        let full = self.rewrite_func_name(func, class)?;
        let fname = super::eval::cref_name(&full);
        let args = self.call_args(&fname, args, class, bound)?;
        let returns_record = self
            .functions
            .get(&fname)
            .and_then(|f| f.output_groups.first())
            .is_some_and(|g| g.fields.is_some());
        if returns_record && !record_ok {
            return Err(Diagnostic::error(
                func.span,
                format!(
                    "`{fname}` returns a record: assign it to a record variable or pass it to a record input"
                ),
            ));
        }
        Ok(ast::Expr {
            kind: ExprKind::Call { func: full, args },
            span: func.span,
        })
    }

    /// A call of a function with functional inputs inside a function body: a call of its
    /// specialization (`functional_args.rs`).
    fn specialized_call(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<Option<ast::Expr>, Diagnostic> {
        let Ok(id) = self.lookup_class_name(&func.as_name(), class, None) else {
            return Ok(None);
        };
        if !self.expanded(id)?.is_function() || !self.has_functional_inputs(id)? {
            return Ok(None);
        }
        let (spec, a) = self.specialize_call(id, args, func.span, class, None)?;
        let args = self.call_args(&spec, &a, class, bound)?;
        Ok(Some(ast::Expr {
            kind: ExprKind::Call {
                func: super::functional_args::name_ref(&spec, func.span),
                args,
            },
            span: func.span,
        }))
    }

    /// `T.table[i]`: a constant array of an enclosing package (or import) subscripted by the
    /// function's own variables. The array is a constant, the subscripts are not, so the array
    /// becomes a local initialised with its value and the reference subscripts that local.
    /// `None` when the last subscripts read none of the function's variables (the whole
    /// reference is then a constant).
    fn constant_array_local(
        &mut self,
        c: &ast::ComponentRef,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<Option<ast::ComponentRef>, Diagnostic> {
        let Some((last, init)) = c.parts.split_last() else {
            return Ok(None);
        };
        let local_subs = subscripts_read(&last.subscripts, bound);
        if !local_subs || init.iter().any(|p| !p.subscripts.is_empty()) {
            return Ok(None);
        }
        let mut whole = c.clone();
        if let Some(p) = whole.parts.last_mut() {
            p.subscripts.clear();
        }
        let span = c.span;
        let scope = Scope {
            inst: None,
            lex: class,
        };
        let expr = ast::Expr {
            kind: ExprKind::Ref(whole),
            span,
        };
        let v = self.eval_structural(&expr, scope)?;
        let ty = match v.data.first() {
            Some(Val::Real(_)) => crate::dae::ScalarType::Real,
            Some(Val::Int(_)) => crate::dae::ScalarType::Integer,
            Some(Val::Bool(_)) => crate::dae::ScalarType::Boolean,
            Some(Val::Str(_)) | None => crate::dae::ScalarType::String,
        };
        self.fn_records.next_temp += 1;
        let name = format!("$const{}", self.fn_records.next_temp);
        self.fn_records.temps.push(FunctionVar {
            name: name.clone(),
            ty,
            dims: v
                .dims
                .iter()
                .map(|&d| Some(super::fn_records::int_expr(d, span)))
                .collect(),
            default: Some(literal(&v, span)),
        });
        let mut r = ast::ComponentRef::single(&name, span);
        r.parts[0].subscripts = last.subscripts.clone();
        self.rewrite_cref_subs(&r, class, bound).map(Some)
    }

    pub(super) fn rewrite_cref_subs(
        &mut self,
        c: &ast::ComponentRef,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<ast::ComponentRef, Diagnostic> {
        let mut c = c.clone();
        for p in &mut c.parts {
            for s in &mut p.subscripts {
                if let ast::Subscript::Expr(e) = s {
                    *e = self.rewrite_expr(e, class, bound)?;
                }
            }
        }
        Ok(c)
    }

    fn rewrite_func_name(
        &mut self,
        func: &ast::ComponentRef,
        class: ClassId,
    ) -> Result<ast::ComponentRef, Diagnostic> {
        let name = super::eval::cref_name(func);
        let keep = func.parts.len() == 1
            && (self.is_builtin_call(func, class, None)
                || matches!(
                    name.as_str(),
                    "assert"
                        | "terminate"
                        | "noEvent"
                        | "smooth"
                        | "der"
                        | "pre"
                        | "edge"
                        | "change"
                        | "initial"
                        | "terminal"
                        | "sample"
                        | "reinit"
                ));
        if keep {
            return Ok(func.clone());
        }
        let n = func.as_name();
        let found = self
            .lookup_class_name(&n, class, None)
            .or_else(|d| match self.fn_body_lex {
                Some(lex) => self.lookup_class_name(&n, lex, None).map_err(|_| d),
                None => Err(d),
            });
        let id = match found {
            Ok(id) => self.nested_through_view(class, id),
            Err(mut d) => {
                d.message = format!("unknown function `{name}`");
                return Err(d);
            }
        };
        if !self.expanded(id)?.is_function() {
            return Err(Diagnostic::error(
                func.span,
                format!("`{name}` is not a function"),
            ));
        }
        let full = self.function(id).map_err(|d| called_here(d, func.span))?;
        if !full.contains('.') && super::eval::is_generic_builtin(&full) {
            // Function bodies hold resolved names, and a one-word name there is the built-in.
            return Err(Diagnostic::error(
                func.span,
                format!(
                    "a top-level function named like the built-in `{full}` is not supported: put it in a package"
                ),
            ));
        }
        Ok(ast::ComponentRef {
            global: false,
            parts: full
                .split('.')
                .map(|p| ast::RefPart {
                    ident: ast::Ident {
                        name: p.to_string(),
                        span: func.span,
                    },
                    subscripts: vec![],
                })
                .collect(),
            span: func.span,
        })
    }

    /// Arguments of a call of `fname` inside a function body: record inputs passed field by
    /// field (`record_call_args`), the others rewritten as they are.
    fn call_args(
        &mut self,
        fname: &str,
        args: &ast::FunctionArgs,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<ast::FunctionArgs, Diagnostic> {
        match self.record_call_args(fname, args, class, bound)? {
            Some(a) => Ok(a),
            None => self.rewrite_args(args, class, bound),
        }
    }

    fn rewrite_args(
        &mut self,
        a: &ast::FunctionArgs,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<ast::FunctionArgs, Diagnostic> {
        let n0 = bound.len();
        let mut iterators = Vec::new();
        for i in &a.iterators {
            let range = match &i.range {
                Some(r) => Some(self.rewrite_expr(r, class, bound)?),
                None => None,
            };
            iterators.push(ast::ForIndex {
                name: i.name.clone(),
                range,
            });
            bound.push(i.name.name.clone());
        }
        let r = (|| -> Result<ast::FunctionArgs, Diagnostic> {
            let positional = a
                .positional
                .iter()
                .map(|e| self.rewrite_expr(e, class, bound))
                .collect::<Result<_, _>>()?;
            let mut named = Vec::new();
            for na in &a.named {
                named.push(ast::NamedArg {
                    name: na.name.clone(),
                    value: self.rewrite_expr(&na.value, class, bound)?,
                });
            }
            Ok(ast::FunctionArgs {
                positional,
                named,
                iterators: iterators.clone(),
                span: a.span,
            })
        })();
        bound.truncate(n0);
        r
    }

    pub(super) fn rewrite_expr(
        &mut self,
        e: &ast::Expr,
        class: ClassId,
        bound: &mut Vec<String>,
    ) -> Result<ast::Expr, Diagnostic> {
        let span = e.span;
        if let Some(call) = self.fn_desugar(e, class)? {
            return self.rewrite_expr(&call, class, bound);
        }
        let kind = match &e.kind {
            ExprKind::Ref(c) => {
                let first = &c.parts[0].ident.name;
                if let Some(v) = self.record_constant(c)? {
                    return Ok(v);
                }
                if let Some(r) = self.record_array_constant_local(c, class, bound)? {
                    let local = ast::Expr {
                        kind: ExprKind::Ref(r),
                        span,
                    };
                    return self.rewrite_expr(&local, class, bound);
                }
                if let Some(r) = self.record_field_ref(c)? {
                    ExprKind::Ref(self.rewrite_cref_subs(&r, class, bound)?)
                } else if !c.global && bound.iter().any(|b| b == first) {
                    ExprKind::Ref(self.rewrite_cref_subs(c, class, bound)?)
                } else if let Some(r) = self.constant_array_local(c, class, bound)? {
                    ExprKind::Ref(r)
                } else {
                    // A constant of an enclosing package (or an enumeration literal): inline it.
                    let scope = Scope {
                        inst: None,
                        lex: class,
                    };
                    let v = match (self.eval_structural(e, scope), self.fn_body_lex) {
                        (Err(d), Some(lex)) if d.kind == Kind::UnknownName => self
                            .eval_structural(e, Scope { inst: None, lex })
                            .map_err(|_| d),
                        (r, _) => r,
                    };
                    let v = v.map_err(|mut d| {
                        if d.kind == Kind::UnknownName {
                            d.message = format!(
                                "unknown name `{first}` in function `{}`",
                                self.tree.get(class).full
                            );
                        }
                        d
                    })?;
                    return Ok(literal(&v, span));
                }
            }
            ExprKind::Call { func, args } => {
                return self
                    .rewrite_expr_call(func, args, class, bound, false)
                    .map(|mut e| {
                        e.span = span;
                        e
                    });
            }
            ExprKind::Array(args) => ExprKind::Array(self.rewrite_args(args, class, bound)?),
            ExprKind::Matrix(rows) => {
                let mut out = Vec::new();
                for r in rows {
                    out.push(
                        r.iter()
                            .map(|x| self.rewrite_expr(x, class, bound))
                            .collect::<Result<_, _>>()?,
                    );
                }
                ExprKind::Matrix(out)
            }
            ExprKind::Tuple(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(match i {
                        Some(x) => Some(self.rewrite_expr(x, class, bound)?),
                        None => None,
                    });
                }
                ExprKind::Tuple(out)
            }
            ExprKind::Range { start, step, stop } => ExprKind::Range {
                start: Box::new(self.rewrite_expr(start, class, bound)?),
                step: match step {
                    Some(s) => Some(Box::new(self.rewrite_expr(s, class, bound)?)),
                    None => None,
                },
                stop: Box::new(self.rewrite_expr(stop, class, bound)?),
            },
            ExprKind::Unary { op, operand } => ExprKind::Unary {
                op: *op,
                operand: Box::new(self.rewrite_expr(operand, class, bound)?),
            },
            ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
                op: *op,
                lhs: Box::new(self.rewrite_expr(lhs, class, bound)?),
                rhs: Box::new(self.rewrite_expr(rhs, class, bound)?),
            },
            ExprKind::If { branches, else_ } => {
                let mut bs = Vec::new();
                for (c, v) in branches {
                    bs.push((
                        self.rewrite_expr(c, class, bound)?,
                        self.rewrite_expr(v, class, bound)?,
                    ));
                }
                ExprKind::If {
                    branches: bs,
                    else_: Box::new(self.rewrite_expr(else_, class, bound)?),
                }
            }
            other => other.clone(),
        };
        Ok(ast::Expr { kind, span })
    }
}

/// The group of a declared input or output of a built-in type.
fn plain_group(name: &str, first: usize) -> crate::dae::ArgGroup {
    crate::dae::ArgGroup {
        name: name.to_string(),
        first,
        fields: None,
        record_dims: 0,
    }
}

/// A value as a literal expression (arrays as nested `{...}`).
pub fn literal(v: &Tensor<Val>, span: Span) -> ast::Expr {
    fn scalar(v: &Val, span: Span) -> ast::Expr {
        let kind = match v {
            Val::Real(x) => ExprKind::Real(*x),
            Val::Int(i) => ExprKind::Integer(*i),
            Val::Bool(b) => ExprKind::Boolean(*b),
            Val::Str(s) => ExprKind::String(s.clone()),
        };
        ast::Expr { kind, span }
    }
    if v.is_scalar() {
        return scalar(&v.data[0], span);
    }
    let items = (0..v.dims[0]).map(|k| literal(&v.row(k), span)).collect();
    super::operator_record::array(items, span)
}

fn m_span(m: &ast::Modification) -> crate::diag::Span {
    match m {
        ast::Modification::Class { span, .. }
        | ast::Modification::Binding { span, .. }
        | ast::Modification::Assign { span, .. } => *span,
    }
}

/// A component's causality: its own prefix, else the one its type carries (`type InArg =
/// input Real`, MLS 4.5.2).
pub(super) fn declared_causality(
    c: &super::expand::CompElem,
    te: &super::expand::Expanded,
) -> ast::Causality {
    match c.clause.prefix.causality {
        ast::Causality::None => te.type_prefix.causality,
        given => given,
    }
}

/// Whether any of `subs` reads one of the function's own variables `bound` (so the
/// subscripted constant must be read at run time).
pub(super) fn subscripts_read(subs: &[ast::Subscript], bound: &[String]) -> bool {
    subs.iter().any(|s| match s {
        ast::Subscript::Expr(e) => {
            let mut hit = false;
            super::initial_algorithm::visit_refs(e, &mut |r| {
                hit |= !r.global && bound.contains(&r.parts[0].ident.name);
            });
            hit
        }
        ast::Subscript::Colon(_) => false,
    })
}

/// The bindings of plain outputs and locals that cannot run before the body in declaration
/// order, taken out of the variables and returned as assignments to run after the record
/// binding statements: those that read a record variable the statements fill
/// (`SaturationProperties sat(psat = p); Real hl = bubbleEnthalpy(sat)`), those that read a
/// variable whose binding is declared later (`Real b = 2*a; Real a = p;`), and those that read
/// one of these. MLS 12.4.4: bindings are evaluated in the order of their dependencies.
/// Returned in dependency order, then declaration order.
fn late_bindings(f: &mut Function, mut written: Vec<String>) -> Vec<ast::Statement> {
    let n_out = f.outputs.len();
    let mut late: Vec<usize> = Vec::new();
    let all = n_out + f.locals.len();
    fn get(f: &Function, k: usize) -> &FunctionVar {
        f.outputs
            .get(k)
            .unwrap_or_else(|| &f.locals[k - f.outputs.len()])
    }
    // The names each binding reads (none without a binding), found once.
    let reads: Vec<Vec<String>> = (0..all)
        .map(|k| {
            let mut names = Vec::new();
            if let Some(d) = &get(f, k).default {
                super::scalarize::value_names(d, &mut names);
            }
            names
        })
        .collect();
    loop {
        let before = late.len();
        for (k, names) in reads.iter().enumerate() {
            if late.contains(&k) {
                continue;
            }
            // Record fields are variables of their own after rewriting (`sat.psat`).
            let of_written = |n: &String| {
                written.iter().any(|w| {
                    n.strip_prefix(w.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
                })
            };
            // A plain variable whose binding is evaluated after this one's.
            let bound_later = |n: &String| {
                (k + 1..all).any(|j| {
                    let w = get(f, j);
                    w.default.is_some() && w.name == *n
                })
            };
            if names.iter().any(|n| of_written(n) || bound_later(n)) {
                late.push(k);
                written.push(get(f, k).name.clone());
            }
        }
        if late.len() == before {
            break;
        }
    }
    // Dependency order among the late ones: each after the late bindings it reads.
    let mut order: Vec<usize> = Vec::with_capacity(late.len());
    late.sort_unstable();
    while order.len() < late.len() {
        let ready = late.iter().copied().find(|&k| {
            !order.contains(&k)
                && late
                    .iter()
                    .all(|&j| j == k || order.contains(&j) || !reads[k].contains(&get(f, j).name))
        });
        // A cycle: the rest in declaration order (the algorithm's own assignments decide).
        let Some(k) = ready.or_else(|| late.iter().copied().find(|k| !order.contains(k))) else {
            break;
        };
        order.push(k);
    }
    order
        .into_iter()
        .filter_map(|k| {
            let v = if k < n_out {
                &mut f.outputs[k]
            } else {
                &mut f.locals[k - n_out]
            };
            let value = v.default.take()?;
            let span = value.span;
            Some(ast::Statement {
                kind: StatementKind::Assign {
                    target: ast::ComponentRef {
                        global: false,
                        parts: vec![ast::RefPart {
                            ident: ast::Ident {
                                name: v.name.clone(),
                                span,
                            },
                            subscripts: vec![],
                        }],
                        span,
                    },
                    value,
                },
                comment: ast::Comment::default(),
                span,
            })
        })
        .collect()
}

/// The statements that give a record output or local of function `name` its binding and its
/// field modifiers, run before the algorithm. A record input's default is refused.
fn record_binding(
    name: &str,
    c: &super::expand::CompElem,
    causality: ast::Causality,
) -> Result<Vec<ast::Statement>, Diagnostic> {
    let mut out = Vec::new();
    if let Some(
        ast::Modification::Binding { expr, .. }
        | ast::Modification::Class {
            binding: Some(expr),
            ..
        },
    ) = &c.decl().modification
    {
        if causality == ast::Causality::Input {
            return Err(Diagnostic::error(
                expr.span,
                format!(
                    "function `{name}`: a default value of the record input `{}` is not supported",
                    c.name
                ),
            ));
        }
        out.push(ast::Statement {
            kind: StatementKind::Assign {
                target: ast::ComponentRef {
                    global: false,
                    parts: vec![ast::RefPart {
                        ident: c.decl().name.clone(),
                        subscripts: vec![],
                    }],
                    span: c.decl().name.span,
                },
                value: expr.clone(),
            },
            comment: ast::Comment::default(),
            span: expr.span,
        });
    }
    if causality != ast::Causality::Input {
        out.extend(super::operator_record::field_modifiers(c));
    }
    Ok(out)
}

/// A function that cannot be called (declared `partial`: a replaceable function the medium or
/// library did not redeclare) is reported at its declaration; the call, possibly deep inside
/// library code, is where the user learns which use reached it.
pub(super) fn called_here(d: Diagnostic, call: Span) -> Diagnostic {
    if d.kind == Kind::Partial {
        d.with_secondary(call, "called here")
    } else {
        d
    }
}
