//! Bindings of record components (MLS 7.2.3, 12.6): `parameter Params p = Params(k = 0.5)`
//! binds every field of `p`. The binding is distributed over the fields as field modifiers
//! before the record's children are created, so each field variable gets its own binding
//! (and a field the constructor call leaves out keeps its declared default):
//!
//! - a record constructor call: named and positional arguments to the fields they name;
//! - a component reference `q`: field `f` is bound to `q.f`;
//! - an if-expression: distributed branch by branch;
//! - an array constructor, for an element of an array of records: the element's expression.
//!
//! A function call returning a record (`R = Frames.nullRotation()`), or an if-expression
//! choosing between such calls, cannot be split in the syntax tree: it stays the record's binding, and each field variable takes its element of
//! the call's value (the record's scalars in declaration order) when its own binding is asked
//! for ([`Flattener::whole_record_binding`]). Anything else is refused with a located error:
//! dropping the binding would silently leave the fields at their defaults.

use super::Flattener;
use super::instance::{InstId, InstKind};
use super::modifier::ModExpr;
use super::scalarize::Mode;
use super::tensor::Tensor;
use crate::dae::Expr as FlatExpr;
use crate::diag::Diagnostic;
use crate::syntax::ast::{self, ClassKind, Expr, ExprKind};
use std::rc::Rc;

impl Flattener<'_> {
    /// Whether instances of `exp` hold a record's fields: a record, or a connector defined as a
    /// record with a causality (`connector ComplexOutput = output Complex`), whose binding
    /// `ComplexOutput i = c.i` binds the fields as a record's does.
    pub(super) fn is_record_like(&self, exp: &super::expand::Expanded) -> bool {
        let record = |k: &ClassKind| matches!(k, ClassKind::Record | ClassKind::OperatorRecord);
        record(&exp.kind)
            || (exp.is_connector() && exp.bases.iter().any(|&b| record(&self.tree.get(b).kind)))
    }

    /// Moves the binding of record instance `i` onto its fields (as field modifiers of the
    /// instance's own modifier). Fields that already have a binding in the modifier keep it.
    pub(super) fn distribute_record_binding(&mut self, i: InstId) -> Result<(), Diagnostic> {
        let exp = self.insts[i].exp.clone();
        if !self.is_record_like(&exp) {
            return Ok(());
        }
        let Some(b) = self.insts[i].mods.binding.take() else {
            return Ok(());
        };
        let fields: Vec<String> = exp
            .components
            .iter()
            // A final or constant field with a declaration binding computes its value from
            // the other fields, and may not be modified (MLS 7.2.6): it keeps its binding.
            .filter(|c| !c.protected && !is_fixed_by_declaration(c))
            .map(|c| c.name.clone())
            .collect();
        if let Some(d) = super::record_field_conflict::conflict(
            &self.insts[i].path,
            &self.insts[i].mods,
            &fields,
            &b,
        ) {
            return Err(d);
        }
        // A field value written further in than the binding of the whole gives way to it.
        for (name, m) in &mut self.insts[i].mods.subs {
            if fields.contains(name) && m.vs_record == super::modifier::VsRecord::RecordWins {
                m.binding = None;
            }
        }
        // An element of an array of records bound to an array constructor takes its element.
        let (expr, index) = select_element((*b.expr).clone(), &b.index);
        if self.bound_by_function(&expr, &b)? {
            // A function returning a record: bound as a whole (see the module comment).
            self.insts[i].mods.binding = Some(b);
            return Ok(());
        }
        let per_field = self.field_bindings(&b, expr, &fields, &exp)?;
        let mods = &mut self.insts[i].mods;
        for (name, e) in fields.iter().zip(per_field) {
            let Some(e) = e else { continue };
            let sub = mods.sub_mut(name);
            if sub.binding.is_none() {
                sub.binding = Some(ModExpr {
                    expr: Rc::new(e),
                    scope: b.scope,
                    index: index.clone(),
                    each: b.each,
                });
                sub.span.get_or_insert(b.expr.span);
            }
        }
        Ok(())
    }

    /// Whether `e` binds the record as a whole rather than field by field: anything but a
    /// record component, a record constructor call, or an if-expression choosing between
    /// those. A call of a function returning a record (`Frames.nullRotation()`), an operator
    /// on operator records (MLS 14: the operator function's result), an if-expression with
    /// such a branch (`if c then conj(u) else u`), an array comprehension of records
    /// (`{R(k) for k in 1:n}`) or `fill(..)` has no syntactic field parts: its value is the
    /// record's scalars, computed by the evaluator, whose size is checked there.
    fn bound_by_function(&mut self, e: &Expr, b: &ModExpr) -> Result<bool, Diagnostic> {
        match &e.kind {
            ExprKind::Ref(_) => Ok(false),
            ExprKind::Call { func, .. } => Ok(!self.is_record_constructor(func, b)?),
            ExprKind::If { branches, else_ } => {
                for (_, v) in branches {
                    if self.bound_by_function(v, b)? {
                        return Ok(true);
                    }
                }
                self.bound_by_function(else_, b)
            }
            _ => Ok(true),
        }
    }

    /// Whether `func` names a record class (a constructor call) rather than a function.
    fn is_record_constructor(
        &mut self,
        func: &ast::ComponentRef,
        b: &ModExpr,
    ) -> Result<bool, Diagnostic> {
        let name = func.as_name();
        let Ok(class) = self.lookup_class_name(&name, b.scope.lex, b.scope.inst) else {
            // A function reached through a component (`world.f()`): not a record class.
            return Ok(false);
        };
        let exp = self.expanded(class)?;
        // An overloaded constructor is a function (MLS 14.3).
        Ok(
            matches!(exp.kind, ClassKind::Record | ClassKind::OperatorRecord)
                && !exp.classes.contains_key("'constructor'"),
        )
    }

    /// The enclosing record bound as a whole that gives primitive instance `i` its value: its
    /// binding, the offset of `i`'s first scalar among the record's scalars and the number of
    /// those scalars. `None` when no enclosing record is bound as a whole, or when `i` keeps a
    /// binding of its own: one written outside the record, or a constant or final field's
    /// declaration. A default written inside the record (`parameter Real a = 1;` in its
    /// class) gives way: the record's binding is a modifier, applied over the declaration
    /// (MLS 7.2), so `CD c[2] = fill(cd, 2)` gives `c[1].a` the value of `cd.a`, not 1.
    pub(super) fn whole_record_binding(
        &mut self,
        i: InstId,
    ) -> Result<Option<(ModExpr, usize, Option<usize>)>, Diagnostic> {
        let mut p = self.insts[i].parent;
        while let Some(r) = p {
            if !self.is_record_like(&self.insts[r].exp) {
                return Ok(None);
            }
            if let Some(b) = self.insts[r].mods.binding.clone() {
                if !self.yields_to_record_binding(i, r) {
                    return Ok(None);
                }
                let mut scalars = Vec::new();
                self.record_prims(r, &mut scalars)?;
                let mut offset = None;
                let mut total = Some(0);
                for &(x, n) in &scalars {
                    if x == i {
                        // `i`'s value may size a later field, but not an earlier one: its
                        // place among the record's scalars depends on that size.
                        let Some(o) = total else {
                            return Err(Diagnostic::error(
                                self.insts[i].span,
                                format!(
                                    "`{}` takes its value from the binding of the whole \
                                     record, and its place there depends on the size of an \
                                     earlier field, which depends on `{}`",
                                    self.insts[i].path, self.insts[i].path
                                ),
                            ));
                        };
                        offset = Some(o);
                    }
                    total = total.zip(n).map(|(t, n)| t + n);
                }
                if offset.is_some() {
                    offset = self.offset_by_name(r, i, &b, &scalars)?.or(offset);
                }
                return Ok(offset.map(|o| (b, o, total)));
            }
            p = self.insts[r].parent;
        }
        Ok(None)
    }

    /// Where primitive `i` of record instance `r` (whose primitives are `scalars`) sits in
    /// the value of `r`'s binding when that value is of another record class: its field of
    /// the same name (MLS 6.4). `None` when the classes agree or cannot be told.
    fn offset_by_name(
        &mut self,
        r: InstId,
        i: InstId,
        b: &ModExpr,
        scalars: &[(InstId, Option<usize>)],
    ) -> Result<Option<usize>, Diagnostic> {
        let Some(from) = self.record_expr_value(&b.expr, b.scope, &[])? else {
            return Ok(None);
        };
        let to = self.insts[r].class;
        let Some(map) = self.record_value_map(&from, to, b.expr.span)? else {
            return Ok(None);
        };
        let j = scalars.iter().position(|(x, _)| *x == i);
        Ok(match j {
            Some(j) if map.pick.len() == scalars.len() => {
                Some(map.arg_sizes[..map.pick[j]].iter().sum())
            }
            _ => None,
        })
    }

    /// Whether `i`'s own binding (if any) was written inside record instance `r` and may be
    /// replaced by `r`'s binding of the whole.
    fn yields_to_record_binding(&self, i: InstId, r: InstId) -> bool {
        let Some(own) = &self.insts[i].mods.binding else {
            return true;
        };
        if self.insts[i]
            .elem
            .as_deref()
            .is_some_and(is_fixed_by_declaration)
        {
            return false;
        }
        let mut at = own.scope.inst;
        while let Some(x) = at {
            if x == r {
                return true;
            }
            at = self.insts[x].parent;
        }
        false
    }

    /// The value of the field at scalar `offset` (of `total`, `None` while a later field is
    /// being sized from this one's value) of a record bound as a whole.
    pub(super) fn field_value(
        &mut self,
        b: &ModExpr,
        (offset, total): (usize, Option<usize>),
        mode: Mode,
        dims: &[usize],
    ) -> Result<Tensor<FlatExpr>, Diagnostic> {
        // No scalar is spread over the fields here: a record's value is all its scalars, and
        // a Real bound to a record (`Complex c = 1`) is a type error, not `c.re = c.im = 1`.
        let t = self.mod_value_as_is(b, mode)?;
        let total = total.unwrap_or(t.data.len());
        // An array of records bound as a whole (`cellData[Ns, Np] = {{...}}`) has a value of
        // several dimensions whose row-major order is the order of its elements' scalars.
        if t.data.len() != total {
            return Err(Diagnostic::error(
                b.expr.span,
                format!(
                    "this record binding has a value of size {}, but the record has {total} \
                     scalar{}",
                    super::tensor::fmt_dims(&t.dims),
                    if total == 1 { "" } else { "s" }
                ),
            )
            .with_help("bind the record to a record of its own type"));
        }
        let n: usize = dims.iter().product();
        if offset + n > t.data.len() {
            return Err(Diagnostic::error(
                b.expr.span,
                "internal error: a record field lies outside its record's value",
            ));
        }
        Ok(Tensor {
            dims: dims.to_vec(),
            data: t.data[offset..offset + n].to_vec(),
        })
    }

    /// The primitive instances below record instance `r` with their sizes, depth first in
    /// declaration order (the order of a record's scalars as a value). A field being sized
    /// right now has no size yet (`None`): `T[:, 2] = [0, a; 1, 1]` asks for `a`, which asks
    /// for the record's scalars.
    fn record_prims(
        &mut self,
        r: InstId,
        out: &mut Vec<(InstId, Option<usize>)>,
    ) -> Result<(), Diagnostic> {
        for c in self.children(r)? {
            if matches!(self.insts[c].state, super::instance::State::Busy) {
                out.push((c, None));
                continue;
            }
            self.ready(c)?;
            match &self.insts[c].kind {
                InstKind::Prim { dims, .. } => out.push((c, Some(dims.iter().product()))),
                InstKind::Struct { .. } => self.record_prims(c, out)?,
                InstKind::Array { elems, .. } => {
                    for e in elems.clone() {
                        self.record_prims(e, out)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The expression of each field (`None`: the binding leaves that field at its default).
    fn field_bindings(
        &mut self,
        b: &ModExpr,
        e: Expr,
        fields: &[String],
        target: &super::expand::Expanded,
    ) -> Result<Vec<Option<Expr>>, Diagnostic> {
        match &e.kind {
            ExprKind::Ref(r) => Ok(fields
                .iter()
                .map(|f| {
                    let mut r = r.clone();
                    r.parts.push(ast::RefPart {
                        ident: ast::Ident {
                            name: f.clone(),
                            span: r.span,
                        },
                        subscripts: Vec::new(),
                    });
                    Some(Expr {
                        kind: ExprKind::Ref(r),
                        span: e.span,
                    })
                })
                .collect()),
            ExprKind::If { branches, else_ } => {
                let else_f = self.field_bindings(b, (**else_).clone(), fields, target)?;
                let mut per_branch = Vec::with_capacity(branches.len());
                for (c, v) in branches {
                    per_branch.push((
                        c.clone(),
                        self.field_bindings(b, v.clone(), fields, target)?,
                    ));
                }
                let mut out = Vec::with_capacity(fields.len());
                for (k, f) in fields.iter().enumerate() {
                    let mut bs = Vec::with_capacity(per_branch.len());
                    for (c, vals) in &per_branch {
                        bs.push((c.clone(), vals[k].clone()));
                    }
                    // Every branch and the else give the field, or none does.
                    let given: Option<Vec<(Expr, Expr)>> = bs
                        .iter()
                        .map(|(c, v)| Some((c.clone(), v.clone()?)))
                        .collect();
                    match (given, else_f[k].clone()) {
                        (Some(branches), Some(else_v)) => out.push(Some(Expr {
                            kind: ExprKind::If {
                                branches,
                                else_: Box::new(else_v),
                            },
                            span: e.span,
                        })),
                        _ if bs.iter().all(|(_, v)| v.is_none()) && else_f[k].is_none() => {
                            out.push(None);
                        }
                        _ => {
                            return Err(Diagnostic::error(
                                e.span,
                                format!(
                                    "the branches of this record binding do not all give field `{f}`"
                                ),
                            )
                            .with_help("give the field in every branch's record constructor"));
                        }
                    }
                }
                Ok(out)
            }
            ExprKind::Call { func, args } => {
                let name = func.as_name();
                let class = self.lookup_class_name(&name, b.scope.lex, b.scope.inst)?;
                let cexp = self.expanded(class)?;
                let is_record = matches!(cexp.kind, ClassKind::Record | ClassKind::OperatorRecord);
                if !is_record || cexp.classes.contains_key("'constructor'") {
                    return Err(unsupported(&e));
                }
                let mut given = record_constructor_args(&cexp, args, fields, &e)?;
                // A derived record's constructor (`Water()` for a `Medium`): its own defaults.
                if cexp.id != target.id {
                    for (f, slot) in fields.iter().zip(given.iter_mut()) {
                        if slot.is_none() {
                            *slot = super::constructor_defaults::default_of(&cexp, target, f, &e)?;
                        }
                    }
                }
                Ok(given)
            }
            _ => Err(unsupported(&e)),
        }
    }
}

/// Peels array constructors `{a, b, c}` along the element index `index` (0-based); returns the
/// expression reached and the part of the index left for it.
fn select_element(mut e: Expr, index: &[usize]) -> (Expr, Vec<usize>) {
    let mut k = 0;
    while k < index.len() {
        match &e.kind {
            ExprKind::Array(a) if a.iterators.is_empty() && a.named.is_empty() => {
                match a.positional.get(index[k]) {
                    Some(x) => e = x.clone(),
                    None => break,
                }
            }
            _ => break,
        }
        k += 1;
    }
    (e, index[k..].to_vec())
}

/// The fields a record constructor call gives (MLS 12.6.1: its inputs are the record's public
/// components in declaration order, positional first, then by name).
fn record_constructor_args(
    cexp: &super::expand::Expanded,
    args: &ast::FunctionArgs,
    fields: &[String],
    e: &Expr,
) -> Result<Vec<Option<Expr>>, Diagnostic> {
    let full = &cexp.components;
    let inputs: Vec<&str> = full
        .iter()
        .filter(|c| !c.protected && !is_fixed_by_declaration(c))
        .map(|c| c.name.as_str())
        .collect();
    if args.positional.len() > inputs.len() {
        return Err(Diagnostic::error(
            e.span,
            format!(
                "this record constructor takes at most {} arguments, {} are given",
                inputs.len(),
                args.positional.len()
            ),
        ));
    }
    let mut given: Vec<(String, Expr)> = inputs
        .iter()
        .zip(&args.positional)
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    for na in &args.named {
        if !inputs.contains(&na.name.name.as_str()) {
            let mut d = Diagnostic::error(
                na.name.span,
                format!("the record has no field `{}` to set", na.name.name),
            );
            if let Some(c) = crate::flatten::suggest(&na.name.name, inputs.iter().copied()) {
                d = d.with_help(format!("did you mean `{c}`?"));
            }
            return Err(d);
        }
        if given.iter().any(|(n, _)| n == &na.name.name) {
            return Err(Diagnostic::error(
                na.name.span,
                format!("field `{}` is given twice", na.name.name),
            ));
        }
        given.push((na.name.name.clone(), na.value.clone()));
    }
    if let Some((n, _)) = given.iter().find(|(n, _)| !fields.contains(n)) {
        return Err(Diagnostic::error(
            e.span,
            format!("the bound component's record has no field `{n}`"),
        )
        .with_help("a record binding must be a constructor of the component's own record"));
    }
    Ok(fields
        .iter()
        .map(|f| given.iter().find(|(n, _)| n == f).map(|(_, v)| v.clone()))
        .collect())
}

/// A `constant` or `final` field with a declaration binding is not a constructor input.
fn is_fixed_by_declaration(c: &super::expand::CompElem) -> bool {
    let fixed = c.clause.prefix.variability == ast::Variability::Constant
        || c.clause.element_prefixes.final_;
    fixed && c.decl().modification.as_ref().is_some_and(has_binding)
}

fn has_binding(m: &ast::Modification) -> bool {
    !matches!(m, ast::Modification::Class { binding: None, .. })
}

fn unsupported(e: &Expr) -> Diagnostic {
    Diagnostic::error(
        e.span,
        "this record binding cannot be split into its fields: only record constructor calls, \
         record components and if-expressions of them are supported here",
    )
    .with_help("bind the record's fields one by one (`p(k = ..., x0 = ...)`)")
}
