//! Expressions in the instance tree: component references become flat variables (or, for
//! structural evaluation, parameter values), calls of user functions become `UserCall`s (or
//! are evaluated when their arguments are constant), and arrays are expanded to scalars.

use super::Flattener;
use super::classtree::ClassId;
use super::dyn_index::{self, DynFrame};
use super::eval::{self, Ctx, EResult, cref_name};
use super::func_eval;
use super::instance::{InstId, InstKind};
use super::modifier::{ModExpr, Scope};
use super::tensor::{Elem, Tensor, Val};
use crate::dae::{self, Expr};
use crate::diag::{Diagnostic, Span};
use crate::syntax::ast;
use std::rc::Rc;

/// The values of a call's inputs (`None`: the default) and the argument expression given for
/// each (for the sizes it gives).
type InputValues<'a> = (Vec<Option<Tensor<Expr>>>, Vec<Option<&'a ast::Expr>>);

/// Placeholder variable id for unknowns met while the tree is still being built.
pub const PLACEHOLDER: usize = usize::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Parameters are replaced by their values (array sizes, conditions, for ranges).
    Structural,
    /// Parameters stay symbolic; constants are inlined.
    Symbolic,
}

/// A node reached by a component reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Node {
    /// Element `k` (row-major) of a primitive instance.
    Var(InstId, usize),
    /// A structured instance (connector, record, model).
    Inst(InstId),
}

pub struct FCtx<'a, 'b> {
    pub f: &'a mut Flattener<'b>,
    pub scope: Scope,
    pub locals: Vec<(String, Tensor<Expr>)>,
    pub mode: Mode,
    ends: Vec<usize>,
    /// The last non-parameter variable met in structural mode (for error messages).
    pub last_var: Option<String>,
    /// Parameters whose value was used; they become structural when the context is dropped
    /// with `commit` set (a kept if-condition does not make its parameters structural).
    pub marked: Vec<InstId>,
    pub commit: bool,
    /// One frame per lookup in progress (variable subscripts, `dyn_index`).
    dyn_frames: Vec<DynFrame>,
    /// Whether references may name conditional components (only in `connect` and the
    /// built-ins about connectors, MLS 4.4.5).
    pub conditional_ok: bool,
    /// The instance of the last part a reference resolved (for implicit ranges).
    last_inst: Option<InstId>,
    /// The span of a call made for its effect (`effect_call.rs`): that call, and no call
    /// nested in its arguments, becomes the call of its wrapper.
    pub for_effect: Option<Span>,
}

impl Drop for FCtx<'_, '_> {
    fn drop(&mut self) {
        if self.commit {
            for m in self.marked.drain(..) {
                self.f.structural.insert(m);
            }
        }
    }
}

impl<'a, 'b> FCtx<'a, 'b> {
    pub fn new(f: &'a mut Flattener<'b>, scope: Scope, mode: Mode) -> Self {
        FCtx {
            f,
            scope,
            locals: Vec::new(),
            mode,
            ends: Vec::new(),
            last_var: None,
            marked: Vec::new(),
            commit: true,
            dyn_frames: Vec::new(),
            conditional_ok: false,
            last_inst: None,
            for_effect: None,
        }
    }

    /// Resolves a reference to instance nodes (subscripts applied).
    pub fn resolve(&mut self, cref: &ast::ComponentRef) -> EResult<Option<Tensor<Node>>> {
        let first = &cref.parts[0].ident.name;
        // Components of the instance.
        if !cref.global
            && let Some(inst) = self.scope.inst
            && self.f.element_in_scope(inst, self.scope.lex, first)
            && let Some(c) = self.f.child(inst, first)?
        {
            if let Some(next) = cref.parts.get(1)
                && self.f.insts[c].parent != Some(inst)
            {
                self.f.check_outer_member(inst, first, next)?;
            }
            return self.walk(c, cref, 0).map(Some);
        }
        // Constants of enclosing classes and imported constants.
        let mut cur = Some(self.scope.lex);
        while let Some(c) = cur {
            if !cref.global {
                let has = self
                    .f
                    .expanded(c)
                    .ok()
                    .and_then(|e| e.component(first).map(|ce| ce.clause.prefix.variability));
                if let Some(v) = has {
                    if v != ast::Variability::Constant {
                        // A non-constant of an enclosing class is not visible here (MLS 5.3.1).
                        break;
                    }
                    // Code a package inherits sees the constants as the package modifies them
                    // (MLS 7.2): `c` of `Base` is `W.c` in `Base.f` reached as `W.f`.
                    let context = self.f.derived_context(self.scope.lex, self.scope.inst);
                    let owner = self.f.derived_scope(context, c).unwrap_or(c);
                    let pi = self.f.package_inst(owner)?;
                    if let Some(ch) = self.f.child(pi, first)? {
                        return self.walk(ch, cref, 0).map(Some);
                    }
                }
                if let Some((pkg, name)) = self.f.import_constant(c, first)? {
                    let pi = self.f.package_inst(pkg)?;
                    if let Some(ch) = self.f.child(pi, &name)? {
                        return self.walk(ch, cref, 0).map(Some);
                    }
                }
            }
            let node = self.f.tree.get(c);
            if node.prefixes.encapsulated {
                break;
            }
            cur = node.parent;
        }
        // `P.Q.c`: a class path followed by a constant (or an enumeration literal).
        if cref.parts.len() >= 2 {
            let start = if cref.global {
                self.f.root_class(first)
            } else {
                self.f
                    .lookup_first(first, self.scope.lex, self.scope.inst)?
            };
            if let Some(mut class) = start {
                let lex = self.scope.lex;
                for k in 1..cref.parts.len() {
                    let name = &cref.parts[k].ident.name;
                    let span = cref.parts[k].ident.span;
                    if let Some(c) = self.f.member_class(class, name) {
                        self.f
                            .check_member_access(class, name, Some(c), lex, span)?;
                        class = c;
                        continue;
                    }
                    let pi = self.f.package_inst(class)?;
                    if let Some(ch) = self.f.child(pi, name)? {
                        self.f.check_member_access(class, name, None, lex, span)?;
                        self.f.check_not_partial_scope(class, span)?;
                        return self.walk(ch, cref, k).map(Some);
                    }
                    return Ok(None);
                }
            }
        }
        Ok(None)
    }

    /// Walks `cref.parts[k..]` starting at instance `c` (which is part `k`).
    fn walk(&mut self, c: InstId, cref: &ast::ComponentRef, k: usize) -> EResult<Tensor<Node>> {
        let mut cur = self.expand_node(c, &cref.parts[k], cref.span)?;
        for part in &cref.parts[k + 1..] {
            let mut items = Vec::with_capacity(cur.data.len());
            for n in cur.data.iter().copied() {
                let Node::Inst(i) = n else {
                    return Err(Diagnostic::error(
                        part.ident.span,
                        format!(
                            "`{}` is a variable of a built-in type: it has no element `{}`",
                            self.node_name(n),
                            part.ident.name
                        ),
                    ));
                };
                match self.f.child(i, &part.ident.name)? {
                    Some(ch) => {
                        let lex = self.scope.lex;
                        self.f
                            .check_public_component(i, &part.ident.name, part.ident.span, lex)?;
                        items.push(self.expand_node(ch, part, cref.span)?)
                    }
                    None => {
                        let names: Vec<String> = self
                            .f
                            .children(i)?
                            .iter()
                            .map(|x| self.f.insts[*x].name.clone())
                            .collect();
                        let mut d = Diagnostic::error(
                            part.ident.span,
                            format!(
                                "`{}` has no element `{}`",
                                self.f.insts[i].path, part.ident.name
                            ),
                        )
                        .with_label("unknown name")
                        .with_kind(crate::diag::Kind::UnknownName);
                        if let Some(best) = crate::flatten::suggest(
                            &part.ident.name,
                            names.iter().map(|s| s.as_str()),
                        ) {
                            d = d.with_help(format!("did you mean `{best}`?"));
                        } else {
                            let nested = self.f.nested_components(i, &part.ident.name);
                            if !nested.is_empty() {
                                let base = &self.f.insts[i].path;
                                let full: Vec<String> =
                                    nested.iter().map(|n| format!("{base}.{n}")).collect();
                                d = d.with_help(super::lookup::did_you_mean(&full));
                            }
                        }
                        return Err(d);
                    }
                }
            }
            let stacked = Tensor::stack(items).map_err(|m| Diagnostic::error(cref.span, m))?;
            let mut dims = cur.dims.clone();
            dims.extend_from_slice(&stacked.dims[1..]);
            cur = Tensor {
                dims,
                data: stacked.data,
            };
        }
        Ok(cur)
    }

    fn node_name(&self, n: Node) -> String {
        match n {
            Node::Var(i, _) | Node::Inst(i) => self.f.insts[i].path.clone(),
        }
    }

    fn expand_node(&mut self, c: InstId, part: &ast::RefPart, span: Span) -> EResult<Tensor<Node>> {
        if !self.conditional_ok {
            self.f.check_not_conditional(c, part.ident.span)?;
        }
        self.f.ready(c)?;
        self.last_inst = Some(c);
        let dims = match &self.f.insts[c].kind {
            InstKind::Prim { dims, .. } | InstKind::Array { dims, .. } => dims.clone(),
            InstKind::Struct { .. } => Vec::new(),
            InstKind::Removed if self.f.in_expandable(c) => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "`{}` is not present: no connection gives this element of an expandable connector",
                        self.f.insts[c].path
                    ),
                )
                .with_note("an element of an expandable connector is present only when a `connect` gives it (MLS 9.1.3)"));
            }
            InstKind::Removed => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "`{}` is a conditional component whose condition is false",
                        self.f.insts[c].path
                    ),
                ));
            }
            InstKind::Stub => return Err(Diagnostic::error(span, "internal: instance not ready")),
        };
        // Subscripts select flat element indices directly: `s[i]` of a large array must not
        // cost the size of the array.
        let (out_dims, flat): (Vec<usize>, Vec<usize>) = if part.subscripts.is_empty() {
            (dims.clone(), (0..dims.iter().product()).collect())
        } else {
            let types = self.f.insts[c].dim_types.clone();
            let subs = eval::subscripts_typed(self, &part.subscripts, &dims, &types)?;
            select_flat(&dims, &subs).map_err(|m| Diagnostic::error(span, m))?
        };
        let data = match &self.f.insts[c].kind {
            InstKind::Prim { .. } => flat.into_iter().map(|k| Node::Var(c, k)).collect(),
            InstKind::Array { elems, .. } => {
                flat.into_iter().map(|k| Node::Inst(elems[k])).collect()
            }
            _ => vec![Node::Inst(c)],
        };
        Ok(Tensor {
            dims: out_dims,
            data,
        })
    }

    /// The variables of record instance `i`, depth first in declaration order.
    fn record_scalars(&mut self, i: InstId, span: Span, out: &mut Vec<Expr>) -> EResult<()> {
        for c in self.f.children(i)? {
            self.f.ready(c)?;
            // A field declared constant is not part of the record's value (functions take
            // the others); the fields of a constant record (`constant Complex j`) are.
            let declared_constant = self.f.insts[c]
                .elem
                .as_ref()
                .is_some_and(|e| e.clause.prefix.variability == ast::Variability::Constant);
            if declared_constant {
                continue;
            }
            match &self.f.insts[c].kind {
                InstKind::Prim { dims, .. } => {
                    let n: usize = dims.iter().product();
                    for k in 0..n {
                        out.push(self.node_expr(Node::Var(c, k), span)?);
                    }
                }
                InstKind::Struct { .. } => self.record_scalars(c, span, out)?,
                InstKind::Array { elems, .. } => {
                    for e in elems.clone() {
                        self.record_scalars(e, span, out)?;
                    }
                }
                InstKind::Removed | InstKind::Stub => {}
            }
        }
        Ok(())
    }

    /// The expression for a node reached in an expression.
    fn node_expr(&mut self, n: Node, span: Span) -> EResult<Expr> {
        match n {
            Node::Inst(i) => Err(Diagnostic::error(
                span,
                format!(
                    "`{}` is a component, not a variable: use one of its variables",
                    self.f.insts[i].path
                ),
            )),
            Node::Var(i, k) => {
                let var = self.f.variability(i);
                match var {
                    ast::Variability::Constant => {
                        let v = self.f.param_value(i)?;
                        Ok(Expr::from_val(v.data[k].clone()))
                    }
                    // A parameter with `fixed = false` and no binding is an unknown of the
                    // initial system (MLS 8.6): known only at run time, like a discrete
                    // variable (`CVec[ind]` with `ind` found by an initial algorithm).
                    ast::Variability::Parameter
                        if self.mode == Mode::Structural
                            && !self.f.is_initial_unknown_parameter(i) =>
                    {
                        let v = self.f.param_value(i)?;
                        self.marked.push(i);
                        Ok(Expr::from_val(v.data[k].clone()))
                    }
                    _ => {
                        if self.f.numbered {
                            Ok(Expr::Var(self.f.insts[i].var0 + k))
                        } else {
                            self.last_var = Some(self.f.insts[i].path.clone());
                            Ok(Expr::Var(PLACEHOLDER))
                        }
                    }
                }
            }
        }
    }

    fn unknown(&mut self, cref: &ast::ComponentRef) -> Diagnostic {
        let first = &cref.parts[0].ident.name;
        let mut cands: Vec<String> = self.locals.iter().map(|(n, _)| n.clone()).collect();
        if let Some(i) = self.scope.inst
            && let Ok(ch) = self.f.children(i)
        {
            cands.extend(ch.iter().map(|c| self.f.insts[*c].name.clone()));
        }
        cands.push("time".into());
        let mut d = Diagnostic::error(cref.parts[0].ident.span, format!("unknown name `{first}`"))
            .with_label("not found in this scope")
            .with_kind(crate::diag::Kind::UnknownName);
        if let Some(best) = crate::flatten::suggest(first, cands.iter().map(|s| s.as_str())) {
            d = d.with_help(format!("did you mean `{best}`?"));
        } else if let Some(i) = self.scope.inst {
            let nested = self.f.nested_components(i, first);
            if !nested.is_empty() {
                d = d.with_help(super::lookup::did_you_mean(&nested));
            }
        }
        d
    }

    /// `c.f` (or `c.d.B.C.f`) where `c` (`c.d`) names a component and the rest classes of its
    /// class, ending with a function (MLS 5.3.2): the function and the component instance.
    fn component_function(
        &mut self,
        func: &ast::ComponentRef,
    ) -> EResult<Option<(ClassId, InstId)>> {
        let n = func.parts.len();
        if n < 2 || func.global {
            return Ok(None);
        }
        // The longest leading part that names one component.
        let mut found = None;
        for k in (1..n).rev() {
            let prefix = ast::ComponentRef {
                global: false,
                parts: func.parts[..k].to_vec(),
                span: func.span,
            };
            if let Ok(Some(nodes)) = self.resolve(&prefix)
                && let [Node::Inst(w)] = nodes.data.as_slice()
            {
                found = Some((k, *w));
                break;
            }
        }
        let Some((k, w)) = found else {
            return Ok(None);
        };
        // MLS 5.3.2: the components the function is found through are scalar components,
        // named without subscripts (not elements of arrays).
        if let Some(p) = func.parts[..k].iter().find(|p| !p.subscripts.is_empty()) {
            return Err(Diagnostic::error(
                p.ident.span,
                format!(
                    "a function cannot be looked up through the array element `{}[...]`: only through scalar components (MLS 5.3.2)",
                    p.ident.name
                ),
            )
            .with_help("call the function through its class, or through a scalar component"));
        }
        self.f.children(w)?;
        let lex = self.scope.lex;
        let first = &func.parts[k].ident;
        let Some(mut class) = self.f.insts[w]
            .overrides
            .get(&first.name)
            .or_else(|| self.f.insts[w].exp.classes.get(&first.name))
            .map(|c| c.id)
        else {
            return Ok(None);
        };
        self.f
            .check_public_class_of(w, &first.name, first.span, lex)?;
        for part in &func.parts[k + 1..] {
            self.f.check_not_operator(class, part.ident.span)?;
            let Some(c) = self.f.member_class(class, &part.ident.name) else {
                return Ok(None);
            };
            if !self.f.lexically_inside(lex, class)
                && self.f.member_protected(class, &part.ident.name)
            {
                return Err(Diagnostic::error(
                    part.ident.span,
                    format!(
                        "`{}` is a protected element of `{}`",
                        part.ident.name,
                        self.f.tree.get(class).full
                    ),
                ));
            }
            class = c;
        }
        self.f
            .check_not_operator(class, func.parts[n - 1].ident.span)?;
        Ok(Some((class, w)))
    }

    fn user_call(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<Option<Vec<Tensor<Expr>>>> {
        let effect = self.for_effect.take_if(|s| *s == span).is_some();
        let (class, mod_inst) = self.function_class(func)?;
        let exp = self.f.expanded(class)?;
        if !exp.is_function() {
            if matches!(
                exp.kind,
                ast::ClassKind::Record | ast::ClassKind::OperatorRecord
            ) {
                return self.record_constructor_value(class, args, span).map(Some);
            }
            return Err(Diagnostic::error(
                span,
                format!("`{}` is not a function", self.f.tree.get(class).full),
            ));
        }
        // A function with functional inputs: its specialization for the functions given.
        let specialized = if self.f.has_functional_inputs(class)? {
            Some(
                self.f
                    .specialize_call(class, args, span, self.scope.lex, self.scope.inst)?,
            )
        } else {
            None
        };
        let args = specialized.as_ref().map_or(args, |(_, a)| a);
        let mut fname = match &specialized {
            Some((name, _)) => name.clone(),
            None => self
                .f
                .function(class)
                .map_err(|d| super::functions::called_here(d, span))?,
        };
        let mut f = self
            .f
            .functions
            .get(&fname)
            .cloned()
            .ok_or_else(|| Diagnostic::error(span, "internal: function missing"))?;
        // The argument given for each input (not for record inputs, split into fields).
        let (mut vals, bound_exprs) = if f.input_groups.is_empty() {
            self.input_values(&mut f, &mut fname, args, span)?
        } else {
            self.record_input_values(&f, &fname, args, span)?
        };
        self.modifier_input_values(&exp, &f, &fname, mod_inst, &mut vals, span)?;
        // A scalar input given an array (MLS 12.4.6): the call applied to each element.
        if let Some(vd) = func_eval::vectorized_dims_of_fields(&f, &vals)
            .map_err(|m| Diagnostic::error(span, m))?
        {
            return func_eval::vectorized_call(
                &f,
                &vals,
                vd,
                |vi| self.call_values(&fname, &f, class, vi, &[], span),
                || func_eval::several_outputs(&fname, span),
            )
            .map(|t| Some(vec![t]));
        }
        if effect {
            return self.effect_values(&fname, &f, class, vals, &bound_exprs, span);
        }
        self.call_values(&fname, &f, class, vals, &bound_exprs, span)
            .map(Some)
    }

    /// A call for its effect (`effect_call.rs`): run now when its arguments are constants (a
    /// failure is the error), else one scalar: the call of its wrapper, true unless it fails.
    fn effect_values(
        &mut self,
        fname: &str,
        f: &crate::dae::Function,
        class: ClassId,
        mut vals: Vec<Option<Tensor<Expr>>>,
        bound_exprs: &[Option<&ast::Expr>],
        span: Span,
    ) -> EResult<Option<Vec<Tensor<Expr>>>> {
        // An impure call (a print) is made during the run, where it stands.
        if let Some(c) =
            constant_values(&vals).filter(|_| !super::external_object::is_unlinkable(f))
            && let Some(r) =
                super::if_pure(|| func_eval::call_with_defaults(&self.f.functions, fname, c))
        {
            return r
                .map(|_| Some(Vec::new()))
                .map_err(|m| Diagnostic::error(span, m));
        }
        let w = super::effect_call::wrapper(&mut self.f.functions, fname, span)?;
        let wf = self.f.functions[&w].clone();
        // The wrapper's last input, `active`: taken unless a branch around it says otherwise.
        vals.push(Some(Tensor::scalar(Expr::Boolean(true))));
        let mut bound = bound_exprs.to_vec();
        bound.resize(vals.len(), None);
        self.call_values(&w, &wf, class, vals, &bound, span)
            .map(Some)
    }

    /// The function class `func` names, and the instance its modifier's bindings refer to:
    /// the component for a function reached through one (`world.gravityAcceleration(r)`,
    /// MLS 5.3.2), else the calling instance.
    /// The values of the positional arguments of the operator `name`, which takes no named
    /// ones (a named argument is an error at its name).
    pub(super) fn positional_only(
        &mut self,
        name: &str,
        args: &ast::FunctionArgs,
    ) -> EResult<Vec<Tensor<Expr>>> {
        if let Some(na) = args.named.first() {
            return Err(Diagnostic::error(
                na.name.span,
                format!("`{name}` takes no named arguments"),
            ));
        }
        args.positional
            .iter()
            .map(|a| eval::eval(self, a))
            .collect()
    }

    pub(super) fn function_class(
        &mut self,
        func: &ast::ComponentRef,
    ) -> EResult<(ClassId, Option<InstId>)> {
        let name = func.as_name();
        let mut mod_inst = self.scope.inst;
        let class = match self
            .f
            .lookup_class_name(&name, self.scope.lex, self.scope.inst)
        {
            Ok(c) => c,
            Err(mut d) => match self.component_function(func)? {
                Some((c, w)) => {
                    mod_inst = Some(w);
                    c
                }
                None => {
                    d.message = format!("unknown function `{}`", cref_name(func));
                    return Err(d);
                }
            },
        };
        Ok((class, mod_inst))
    }

    /// The values of the inputs of `f` (no record inputs) from the call's arguments, and the
    /// argument given for each. A table access function becomes its specialization for the
    /// external object its first argument names (`f` and `fname` are replaced).
    fn input_values<'x>(
        &mut self,
        f: &mut crate::dae::Function,
        fname: &mut String,
        args: &'x ast::FunctionArgs,
        span: Span,
    ) -> EResult<InputValues<'x>> {
        let inputs: Vec<String> = f.inputs.iter().map(|v| v.name.clone()).collect();
        let mut vals = Vec::with_capacity(f.inputs.len());
        let mut bound = eval::bind_args(&inputs, args, fname, span)?;
        if super::external_object::needs_object(f) {
            // A table access function: its first argument names the external object.
            let object = match bound.first().copied().flatten() {
                Some(e) => match &e.kind {
                    ast::ExprKind::Ref(r) => match self.resolve(r)? {
                        Some(t) if t.data.len() == 1 => match t.data[0] {
                            Node::Inst(i) if self.f.is_external_object(i) => Some(i),
                            _ => None,
                        },
                        _ => None,
                    },
                    _ => None,
                },
                None => None,
            };
            let Some(object) = object else {
                return Err(Diagnostic::error(
                    span,
                    format!("the first argument of `{fname}` must name an external table object"),
                ));
            };
            let rest = bound[1..].to_vec();
            let (name, rest) = self.f.specialise_table_call(f, object, rest, span)?;
            *f = self.f.functions[&name].clone();
            *fname = name;
            bound = rest;
        }
        for b in &bound {
            vals.push(match b {
                Some(e) => Some(eval::eval(self, e)?),
                None => None,
            });
        }
        Ok((vals, bound))
    }

    /// The values of the inputs of `f` with record inputs: the argument's scalars split into
    /// the record's fields; and the argument of each non-record input.
    fn record_input_values<'x>(
        &mut self,
        f: &crate::dae::Function,
        fname: &str,
        args: &'x ast::FunctionArgs,
        span: Span,
    ) -> EResult<InputValues<'x>> {
        // Record inputs: the argument's scalars split into the record's fields.
        let names: Vec<String> = f.input_groups.iter().map(|g| g.name.clone()).collect();
        let bound = eval::bind_args(&names, args, fname, span)?;
        let mut vals = Vec::with_capacity(f.inputs.len());
        // The argument of each non-record input, for sizes its value gives.
        let mut bound_exprs = vec![None; f.inputs.len()];
        for (g, b) in f.input_groups.iter().zip(bound) {
            let v = match b {
                Some(e) => Some(eval::eval(self, e)?),
                None => None,
            };
            match (&g.fields, v) {
                (None, v) => {
                    if let Some(slot) = bound_exprs.get_mut(g.first) {
                        *slot = b;
                    }
                    vals.push(v);
                }
                (Some(_), None) => {
                    return Err(Diagnostic::error(
                        span,
                        format!("`{fname}`: the record input `{}` has no value", g.name),
                    ));
                }
                (Some(fields), Some(t)) => {
                    let n = g.scalars();
                    let t = match b {
                        Some(e) if g.record_dims == 0 => self.record_arg_by_name(e, t, f, g)?,
                        _ => t,
                    };
                    if g.record_dims > 0 {
                        // An array of records for an array-of-records input: each field
                        // gets the array of its values.
                        let lead = record_lead(&t, n)
                            .filter(|l| l.len() == g.record_dims)
                            .ok_or_else(|| {
                                Diagnostic::error(
                                    span,
                                    format!(
                                        "`{fname}`: the input `{}` takes an array of records with {} dimension(s)",
                                        g.name, g.record_dims
                                    ),
                                )
                            })?;
                        push_field_arrays(&mut vals, fields, &t, &lead, n);
                        continue;
                    }
                    if let Some(lead) = record_lead(&t, n) {
                        // An array of records for a scalar record input (MLS 12.4.6):
                        // each field gets the array of its values, and the call below
                        // is applied element by element.
                        push_field_arrays(&mut vals, fields, &t, &lead, n);
                        continue;
                    }
                    if t.len() != n {
                        return Err(Diagnostic::error(
                            span,
                            format!(
                                "`{fname}`: the record input `{}` takes {} scalars, the argument has {}",
                                g.name,
                                g.scalars(),
                                t.len()
                            ),
                        ));
                    }
                    let mut it = t.data.into_iter();
                    for dims in fields {
                        let n: usize = dims.iter().product();
                        vals.push(Some(Tensor {
                            dims: dims.clone(),
                            data: it.by_ref().take(n).collect(),
                        }));
                    }
                }
            }
        }
        Ok((vals, bound_exprs))
    }

    /// A record argument's scalars in the order of the record input's fields, matched by
    /// name when the argument is of another record class (MLS 6.4). The class is known for a
    /// record component and a record constructor; other values keep their order.
    fn record_arg_by_name(
        &mut self,
        e: &ast::Expr,
        t: Tensor<Expr>,
        f: &crate::dae::Function,
        g: &crate::dae::ArgGroup,
    ) -> EResult<Tensor<Expr>> {
        let Some(from) = self.f.record_expr_value(e, self.scope, &self.locals)? else {
            return Ok(t);
        };
        let inputs: Vec<String> = f.inputs.iter().map(|v| v.name.clone()).collect();
        let Some(map) = self.f.record_field_map(&from, g, &inputs, e.span)? else {
            return Ok(t);
        };
        if map.arg_sizes.iter().sum::<usize>() != t.len() {
            // An array of records: its fields are not one after the other.
            return Ok(t);
        }
        let data = map.permute_scalars(&t.data);
        Ok(Tensor {
            dims: vec![data.len()],
            data,
        })
    }

    /// Bindings of the function class's own modifier (`function g = f(k = 2)`) are the
    /// values of inputs not given in the call.
    fn modifier_input_values(
        &mut self,
        exp: &super::expand::Expanded,
        f: &crate::dae::Function,
        fname: &str,
        mod_inst: Option<InstId>,
        vals: &mut [Option<Tensor<Expr>>],
        span: Span,
    ) -> EResult<()> {
        for (input, m) in &exp.self_mod.subs {
            let Some(k) = f.inputs.iter().position(|v| v.name == *input) else {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "`{fname}`: the modifier of `{input}` is not supported (not an input of a built-in type)"
                    ),
                ));
            };
            let Some(b) = &m.binding else { continue };
            if !m.subs.is_empty() {
                return Err(Diagnostic::error(
                    span,
                    format!("`{fname}`: attribute modifiers of `{input}` are not supported"),
                ));
            }
            if vals.get(k).is_some_and(|v| v.is_none()) {
                // A modifier of a class redeclaration (`redeclare function g = f(phi =
                // latitude)` in the model holding `world`) names elements of the instance of
                // the class it was written in: the nearest enclosing one.
                let mut written_in = mod_inst;
                while let Some(i) = written_in {
                    if self.f.insts[i].class == b.scope.lex {
                        break;
                    }
                    written_in = self.f.insts[i].parent;
                }
                let scope = Scope {
                    inst: b.scope.inst.or(written_in).or(mod_inst),
                    lex: b.scope.lex,
                };
                let mut fc = FCtx::new(self.f, scope, self.mode);
                vals[k] = Some(eval::eval(&mut fc, &b.expr)?);
            }
        }
        Ok(())
    }

    /// A call of `fname` with the values of its inputs (`None`: the default): evaluated when
    /// constant, inlined when the function asks to be, else one `UserCall` per output scalar.
    fn call_values(
        &mut self,
        fname: &str,
        f: &crate::dae::Function,
        class: ClassId,
        mut vals: Vec<Option<Tensor<Expr>>>,
        bound_exprs: &[Option<&ast::Expr>],
        span: Span,
    ) -> EResult<Vec<Tensor<Expr>>> {
        // Constant arguments: evaluate now.
        if let Some(c) =
            constant_values(&vals).filter(|_| !super::external_object::is_unlinkable(f))
        {
            match func_eval::call_with_defaults(&self.f.functions, fname, c) {
                Ok(outs) => {
                    let outs = outs.into_iter().map(|o| o.map(Expr::from_val)).collect();
                    return Ok(group_outputs(f, outs));
                }
                // A value needed now (a size, a parameter's value): the failure is the error.
                Err(m) if self.mode == Mode::Structural => {
                    return Err(Diagnostic::error(span, m));
                }
                // Otherwise the call may sit in a branch that is never taken (MLS 3.3: only
                // the selected branch of an if-expression is evaluated): it stays a call,
                // which fails if and when the simulation evaluates it.
                Err(_) => {}
            }
        }
        let last_given = vals
            .iter()
            .rposition(|v| v.is_some())
            .map(|p| p + 1)
            .unwrap_or(0);
        // Defaults of inputs before the last one given: evaluate them here, with the inputs
        // before them bound (a default may refer to earlier inputs).
        for k in 0..last_given {
            if vals[k].is_some() {
                continue;
            }
            let Some(d) = f.inputs[k].default.clone() else {
                return Err(Diagnostic::error(
                    span,
                    format!("`{fname}`: input `{}` has no value", f.inputs[k].name),
                ));
            };
            let mut fc = FCtx::new(
                self.f,
                Scope {
                    inst: None,
                    lex: class,
                },
                self.mode,
            );
            for (j, v) in vals.iter().enumerate().take(k) {
                if let Some(t) = v {
                    fc.locals.push((f.inputs[j].name.clone(), t.clone()));
                }
            }
            vals[k] = Some(eval::eval(&mut fc, &d)?);
        }
        // A function that asks to be inlined becomes the expressions its algorithm computes.
        if self.mode == Mode::Symbolic
            && self.f.inline_before_index_reduction(class, f)
            && let Some(outs) = super::inline::inline_call(self, fname, vals.clone())
        {
            return Ok(group_outputs(f, outs));
        }
        // Inputs whose values give the outputs' sizes (`output Real y[n]`) must be known now
        // (MLS 12.4.1): a parameter argument is evaluated (and becomes structural).
        for k in size_inputs(f) {
            let symbolic = vals
                .get(k)
                .and_then(|v| v.as_ref())
                .is_some_and(|t| t.data.iter().any(|x| x.to_val().is_none()));
            if !symbolic {
                continue;
            }
            let Some(e) = bound_exprs.get(k).copied().flatten() else {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "`{fname}`: the size of its result depends on input `{}`, which must be a parameter or constant expression",
                        f.inputs[k].name
                    ),
                ));
            };
            let v = eval::eval_structural(self, e)?;
            if v.data.iter().any(|x| x.to_val().is_none()) {
                return Err(Diagnostic::error(
                    e.span,
                    format!(
                        "`{fname}`: the size of its result depends on input `{}`, so this must be a parameter or constant expression",
                        f.inputs[k].name
                    ),
                ));
            }
            vals[k] = Some(v);
        }
        let dims_args: Vec<Option<func_eval::Value>> = vals
            .iter()
            .map(|v| {
                v.as_ref().map(|t| {
                    let data = t
                        .data
                        .iter()
                        .map(|x| x.to_val().unwrap_or(Val::Real(0.0)))
                        .collect();
                    Tensor {
                        dims: t.dims.clone(),
                        data,
                    }
                })
            })
            .collect();
        let mut out_dims = func_eval::output_dims(&self.f.functions, fname, dims_args)
            .map_err(|m| Diagnostic::error(span, m))?;
        if let Some(d) = self.flexible_output_dims(f, &vals, bound_exprs, &out_dims)? {
            out_dims = d;
        }
        let outs = user_call_outputs(fname, &vals[..last_given], out_dims);
        Ok(group_outputs(f, outs))
    }
}

/// The values of call arguments when all are constants (`None` in the list: the default).
pub(super) fn constant_values(
    vals: &[Option<Tensor<Expr>>],
) -> Option<Vec<Option<func_eval::Value>>> {
    vals.iter()
        .map(|v| match v {
            Some(t) => t
                .data
                .iter()
                .map(|x| x.to_val())
                .collect::<Option<Vec<_>>>()
                .map(|d| Some(Tensor::new(t.dims.clone(), d))),
            None => Some(None),
        })
        .collect()
}

/// One `UserCall` element per element of each output of `function`, called with the given
/// argument values (scalars as themselves, arrays as array literals).
pub(super) fn user_call_outputs(
    function: &str,
    vals: &[Option<Tensor<Expr>>],
    out_dims: Vec<Vec<usize>>,
) -> Vec<Tensor<Expr>> {
    let args: Vec<Expr> = vals
        .iter()
        .flatten()
        .map(|t| {
            if t.is_scalar() {
                t.data[0].clone()
            } else {
                Expr::Array {
                    dims: t.dims.clone(),
                    elements: t.data.clone(),
                }
            }
        })
        .collect();
    out_dims
        .into_iter()
        .enumerate()
        .map(|(o, dims)| {
            let n: usize = dims.iter().product();
            let data = (0..n)
                .map(|k| Expr::UserCall {
                    function: function.to_string(),
                    args: args.clone(),
                    output: o,
                    element: k,
                })
                .collect();
            Tensor { dims, data }
        })
        .collect()
}

/// The inputs whose values (not only sizes) the outputs' declared sizes need: names in the
/// size expressions outside `size(x, ...)`, and, for an input with a default, the inputs its
/// default needs. `output Real y[:]` (size from the algorithm) needs none here.
fn size_inputs(f: &crate::dae::Function) -> Vec<usize> {
    let mut names = Vec::new();
    for v in &f.outputs {
        for e in v.dims.iter().flatten() {
            value_names(e, &mut names);
        }
    }
    let mut out: Vec<usize> = Vec::new();
    while let Some(n) = names.pop() {
        let Some(k) = f.inputs.iter().position(|v| v.name == n) else {
            continue;
        };
        if out.contains(&k) {
            continue;
        }
        out.push(k);
        if let Some(d) = &f.inputs[k].default {
            value_names(d, &mut names);
        }
    }
    out.sort_unstable();
    out
}

/// First names of the references in `e` whose values it reads (`size(u, 1)` reads only the
/// size of `u`).
pub(super) fn value_names(e: &ast::Expr, out: &mut Vec<String>) {
    use ast::ExprKind as K;
    let args = |a: &ast::FunctionArgs, out: &mut Vec<String>, skip_first: bool| {
        for (i, p) in a.positional.iter().enumerate() {
            if !(skip_first && i == 0) {
                value_names(p, out);
            }
        }
        for n in &a.named {
            value_names(&n.value, out);
        }
        for it in &a.iterators {
            if let Some(r) = &it.range {
                value_names(r, out);
            }
        }
    };
    match &e.kind {
        K::Ref(c) => {
            out.push(c.parts[0].ident.name.clone());
            for p in &c.parts {
                for s in &p.subscripts {
                    if let ast::Subscript::Expr(x) = s {
                        value_names(x, out);
                    }
                }
            }
        }
        K::Call { func, args: a } => {
            let name = cref_name(func);
            args(a, out, matches!(name.as_str(), "size" | "ndims"));
        }
        K::Array(a) => args(a, out, false),
        K::Matrix(rows) => rows.iter().flatten().for_each(|x| value_names(x, out)),
        K::Tuple(items) => items.iter().flatten().for_each(|x| value_names(x, out)),
        K::Range { start, step, stop } => {
            value_names(start, out);
            if let Some(s) = step {
                value_names(s, out);
            }
            value_names(stop, out);
        }
        K::Unary { operand, .. } => value_names(operand, out),
        K::Binary { lhs, rhs, .. } => {
            value_names(lhs, out);
            value_names(rhs, out);
        }
        K::If { branches, else_ } => {
            for (c, v) in branches {
                value_names(c, out);
                value_names(v, out);
            }
            value_names(else_, out);
        }
        K::PartialFunction { args: a, .. } => args(a, out, false),
        K::Integer(_) | K::Real(_) | K::String(_) | K::Boolean(_) | K::End => {}
    }
}

/// The outputs of a call as declared: the fields of a record output joined into one vector of
/// its scalars (the form a record component's variables have in equations).
fn group_outputs(f: &crate::dae::Function, outs: Vec<Tensor<Expr>>) -> Vec<Tensor<Expr>> {
    if f.output_groups.is_empty() {
        return outs;
    }
    let mut outs = outs.into_iter();
    let mut grouped = Vec::new();
    for g in &f.output_groups {
        let mut data = Vec::new();
        match g.fields {
            None => grouped.extend(outs.next()),
            Some(_) if g.record_dims > 0 => {
                let fields: Vec<Tensor<Expr>> = outs.by_ref().take(g.count()).collect();
                grouped.push(interleave_records(&fields, g.record_dims));
            }
            Some(_) => {
                for _ in 0..g.count() {
                    data.extend(outs.next().map(|t| t.data).unwrap_or_default());
                }
                grouped.push(Tensor {
                    dims: vec![data.len()],
                    data,
                });
            }
        }
    }
    grouped
}

/// An array of records from its field arrays (each with the `k` dimensions of the array
/// first): dims `lead ++ [scalars of one record]`, the form record arrays have in equations.
fn interleave_records(fields: &[Tensor<Expr>], k: usize) -> Tensor<Expr> {
    let lead: Vec<usize> = fields
        .first()
        .map(|f| f.dims.iter().take(k).copied().collect())
        .unwrap_or_default();
    let count: usize = lead.iter().product();
    let sizes: Vec<usize> = fields.iter().map(|f| f.data.len() / count.max(1)).collect();
    let mut data = Vec::new();
    for i in 0..count {
        for (f, &size) in fields.iter().zip(&sizes) {
            data.extend(f.data[i * size..(i + 1) * size].iter().cloned());
        }
    }
    let mut dims = lead;
    dims.push(sizes.iter().sum());
    Tensor { dims, data }
}

/// An event or derivative operator applied element by element to the first argument: `wrap`
/// around a variable element, `constant` of an element that is a known value.
fn on_each(
    args: &[Tensor<Expr>],
    constant: impl Fn(Expr) -> Expr,
    wrap: impl Fn(Box<Expr>) -> Expr,
) -> Tensor<Expr> {
    args[0].clone().map(|x| {
        if x.to_val().is_some() {
            constant(x)
        } else {
            wrap(Box::new(x))
        }
    })
}

impl FCtx<'_, '_> {
    /// `delay(expr, delayTime[, delayMax])` (MLS 3.7.4.1), element by element over `expr`:
    /// `delayMax` (`delayTime` when it is absent) must be a parameter expression, and a
    /// delay time known now must lie in `[0, delayMax]` (the simulator checks it otherwise).
    fn delay_call(&mut self, vals: &[Tensor<Expr>], span: Span) -> EResult<Tensor<Expr>> {
        if !(2..=3).contains(&vals.len()) {
            return Err(Diagnostic::error(
                span,
                format!("`delay` takes 2 or 3 arguments, got {}", vals.len()),
            ));
        }
        let scalar = |t: &Tensor<Expr>, what: &str| {
            t.clone().into_scalar().map_err(|_| {
                Diagnostic::error(span, format!("the {what} of `delay` must be a scalar"))
            })
        };
        let d = scalar(&vals[1], "delay time")?;
        let dmax = match vals.get(2) {
            Some(t) => scalar(t, "maximum delay")?,
            None => d.clone(),
        };
        if !self.f.is_parameter_expr(&dmax) {
            return Err(Diagnostic::error(
                span,
                if vals.len() == 2 {
                    "the delay time of `delay(expr, delayTime)` must be a parameter expression (MLS 3.7.4.1)"
                } else {
                    "the maximum delay `delayMax` of `delay` must be a parameter expression (MLS 3.7.4.1)"
                },
            )
            .with_help("a delay time that changes during simulation needs a maximum delay: `delay(expr, delayTime, delayMax)`"));
        }
        let known = |e: &Expr| e.to_val().and_then(|v| v.as_f64());
        if let (Some(a), Some(b)) = (known(&d), known(&dmax))
            && !(0.0..=b).contains(&a)
        {
            return Err(Diagnostic::error(
                span,
                format!(
                    "the delay time of `delay` is {a}: it must be between 0 and the maximum delay {b} (MLS 3.7.4.1)"
                ),
            ));
        }
        Ok(vals[0].clone().map(|x| {
            if x.to_val().is_some() {
                x
            } else {
                Expr::Call(dae::Builtin::Delay, vec![x, d.clone(), dmax.clone()])
            }
        }))
    }

    /// A lookup in which the first variable subscripts take the values `forced`; a further
    /// variable subscript makes it one lookup per value of that subscript, joined by a run-time
    /// choice.
    fn lookup_forced(
        &mut self,
        cref: &ast::ComponentRef,
        forced: Vec<usize>,
    ) -> EResult<Tensor<Expr>> {
        self.dyn_frames.push(DynFrame {
            forced: forced.clone(),
            ..DynFrame::default()
        });
        let r = self.lookup_static(cref);
        let frame = self.dyn_frames.pop().unwrap_or_default();
        let t = r?;
        let Some((index, n, span)) = frame.found else {
            return Ok(t);
        };
        let mut options = Vec::with_capacity(n);
        for i in 0..n {
            let mut f = forced.clone();
            f.push(i);
            options.push(self.lookup_forced(cref, f)?);
        }
        let what = match self.scope.inst.map(|i| self.f.insts[i].path.clone()) {
            Some(p) if !p.is_empty() => format!(
                "`{}` in `{p}`",
                crate::syntax::print_expr(&ast::Expr {
                    kind: ast::ExprKind::Ref(cref.clone()),
                    span: cref.span,
                })
            ),
            _ => format!(
                "`{}`",
                crate::syntax::print_expr(&ast::Expr {
                    kind: ast::ExprKind::Ref(cref.clone()),
                    span: cref.span,
                })
            ),
        };
        let func = dyn_index::check_function(&what, n, span)?;
        let check = Expr::UserCall {
            function: func.name.clone(),
            args: vec![index.clone()],
            output: 0,
            element: 0,
        };
        self.f.functions.entry(func.name.clone()).or_insert(func);
        dyn_index::choose(&index, options, check, span)
    }
}

impl FCtx<'_, '_> {
    fn lookup_static(&mut self, cref: &ast::ComponentRef) -> EResult<Tensor<Expr>> {
        let first = &cref.parts[0].ident.name;
        if !cref.global
            && let Some(pos) = self.locals.iter().rposition(|(n, _)| n == first)
        {
            let v = self.locals[pos].1.clone();
            if cref.parts.len() > 1 {
                return Err(Diagnostic::error(
                    cref.span,
                    format!("`{first}` is an iterator: it has no elements"),
                ));
            }
            if cref.parts[0].subscripts.is_empty() {
                return Ok(v);
            }
            let subs = eval::subscripts(self, &cref.parts[0].subscripts, &v.dims)?;
            return v.index(&subs).map_err(|m| Diagnostic::error(cref.span, m));
        }
        if first == "time" && cref.parts.len() == 1 && !cref.global {
            self.f.check_time_allowed(self.scope.lex, cref.span)?;
            return Ok(Tensor::scalar(Expr::Time));
        }
        let nodes = match self.resolve(cref)? {
            Some(n) => n,
            None => {
                // `E.lit` of an enumeration type.
                if cref.parts.len() >= 2 {
                    let cls = ast::Name {
                        global: cref.global,
                        parts: cref.parts[..cref.parts.len() - 1]
                            .iter()
                            .map(|p| p.ident.clone())
                            .collect(),
                        span: cref.span,
                    };
                    if let Ok(c) = self
                        .f
                        .lookup_class_name(&cls, self.scope.lex, self.scope.inst)
                        && let Some(v) = self
                            .f
                            .enum_literal(c, &cref.parts[cref.parts.len() - 1].ident.name)
                    {
                        return Ok(Tensor::scalar(Expr::from_val(v)));
                    }
                }
                // `E` or `Boolean` as a value (a `for` range): the type's values.
                let e = ast::Expr {
                    kind: ast::ExprKind::Ref(cref.clone()),
                    span: cref.span,
                };
                if let Some(v) = self.f.type_as_dimension(&e, self.scope) {
                    return Ok(v.map(Expr::from_val));
                }
                return Err(self.unknown(cref));
            }
        };
        let span = cref.span;
        let mut dims = nodes.dims.clone();
        let mut data = Vec::with_capacity(nodes.data.len());
        let mut record_len = None;
        for n in nodes.data {
            if let Node::Inst(i) = n
                && self.f.is_record_valued(self.f.insts[i].exp.id)
            {
                // A record as a value (a function argument, a record equation): its scalars
                // in declaration order, the order functions take record fields in.
                let k0 = data.len();
                self.record_scalars(i, span, &mut data)?;
                let k = data.len() - k0;
                if record_len.is_some_and(|r| r != k) {
                    return Err(Diagnostic::error(span, "records of different sizes"));
                }
                record_len = Some(k);
                continue;
            }
            data.push(self.node_expr(n, span)?);
        }
        if let Some(k) = record_len {
            dims.push(k);
        }
        Ok(Tensor { dims, data })
    }
}

impl Ctx for FCtx<'_, '_> {
    type E = Expr;
    fn dynamic_index(&mut self, index: Expr, n: usize, span: Span) -> EResult<usize> {
        match self.dyn_frames.last_mut() {
            Some(frame) => Ok(frame.next(index, n, span)),
            None => Err(Diagnostic::error(
                span,
                "a subscript must be a constant Integer here (variable indices are not supported)",
            )),
        }
    }
    fn lookup(&mut self, cref: &ast::ComponentRef) -> EResult<Tensor<Expr>> {
        self.lookup_forced(cref, Vec::new())
    }
    fn shadows_builtin(&mut self, func: &ast::ComponentRef) -> bool {
        !self
            .f
            .is_builtin_call(func, self.scope.lex, self.scope.inst)
    }

    fn call(
        &mut self,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<Option<Vec<Tensor<Expr>>>> {
        let name = cref_name(func);
        if let Some(out) = self.instance_query(&name, func, args, span)? {
            return Ok(Some(vec![out]));
        }
        // `sample(u)` and `sample(u, clock)` (MLS 16.5.2); `clock_operator` leaves
        // `sample(start, interval)` (MLS 3.7.5) to the code below.
        let clocked_sample = name == "sample" && matches!(args.positional.len(), 1 | 2);
        if func.parts.len() == 1
            && (super::clocked::is_clock_operator(&name) || clocked_sample)
            && let Some(out) = self.clock_operator(&name, args, span)?
        {
            return Ok(Some(vec![out]));
        }
        if !is_event_or_state_operator(&name) || func.parts.len() != 1 {
            return self.user_call(func, args, span);
        }
        let vals = self.positional_only(&name, args)?;
        let out = self.builtin_operator(&name, &vals, span)?;
        if self.mode == Mode::Structural
            && !self.f.numbered
            && out.data.iter().any(|x| x.to_val().is_none())
        {
            self.last_var = Some(format!("{name}(...)"));
        }
        Ok(Some(vec![out]))
    }

    fn push_local(&mut self, name: &str, v: Tensor<Expr>) {
        self.locals.push((name.to_string(), v));
    }
    fn enum_literals(&mut self, e: &ast::Expr) -> Option<Vec<String>> {
        let locals: Vec<String> = self.locals.iter().map(|(n, _)| n.clone()).collect();
        match self.f.static_type(e, self.scope, &locals) {
            Ok(super::expr_type::Ty::Enum(l)) => Some(l.to_vec()),
            _ => None,
        }
    }
    fn pop_local(&mut self) {
        self.locals.pop();
    }
    fn ends(&mut self) -> &mut Vec<usize> {
        &mut self.ends
    }
    fn implicit_range(
        &mut self,
        name: &ast::Ident,
        uses: &[super::implicit::Use],
    ) -> EResult<Tensor<Expr>> {
        let mut dims = Vec::new();
        for u in uses {
            let first = &u.cref.parts[0].ident.name;
            if u.part == 0
                && !u.cref.global
                && let Some(pos) = self.locals.iter().rposition(|(n, _)| n == first)
            {
                if let Some(n) = self.locals[pos].1.dims.get(u.sub) {
                    dims.push((*n, false, u.cref.span));
                }
                continue;
            }
            let s = super::implicit::stripped(u);
            self.last_inst = None;
            if self.resolve(&s)?.is_none() {
                return Err(self.unknown(&s));
            }
            let Some(i) = self.last_inst else { continue };
            let d = match &self.f.insts[i].kind {
                InstKind::Prim { dims, .. } | InstKind::Array { dims, .. } => dims.get(u.sub),
                _ => None,
            };
            let Some(n) = d.copied() else {
                return Err(Diagnostic::error(
                    u.cref.span,
                    format!("`{}` has no dimension {}", self.f.insts[i].path, u.sub + 1),
                ));
            };
            let b = self.f.insts[i].dim_types.get(u.sub) == Some(&eval::DimType::Boolean);
            dims.push((n, b, u.cref.span));
        }
        eval::agree_implicit(name, &dims)
    }
    fn overloaded(&mut self, e: &ast::Expr) -> EResult<Option<ast::Expr>> {
        if !self.f.op_records_seen {
            return Ok(None);
        }
        super::operator_record::desugar(self, e)
    }
    fn set_structural(&mut self, on: bool) -> bool {
        let prev = self.mode == Mode::Structural;
        self.mode = if on { Mode::Structural } else { Mode::Symbolic };
        prev
    }
}

impl FCtx<'_, '_> {
    /// The operators that ask about the instance tree rather than compute from values:
    /// `cardinality`, `inStream` / `actualStream`, `getInstanceName`, `Connections.isRoot` /
    /// `rooted`. `None` for any other call.
    fn instance_query(
        &mut self,
        name: &str,
        func: &ast::ComponentRef,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<Option<Tensor<Expr>>> {
        if name == "cardinality" && func.parts.len() == 1 {
            let Some(ast::Expr {
                kind: ast::ExprKind::Ref(c),
                ..
            }) = args.positional.first()
            else {
                return Err(Diagnostic::error(span, "`cardinality` needs a connector"));
            };
            let ids = self.ref_instances(c)?;
            let k = self.f.cardinality(&ids, span)?;
            return Ok(Some(Tensor::scalar(Expr::Integer(k))));
        }
        if (name == "inStream" || name == "actualStream") && func.parts.len() == 1 {
            return self.stream_operator(name, args, span).map(Some);
        }
        if name == "getInstanceName" && func.parts.len() == 1 && !func.global {
            if !args.positional.is_empty() || !args.named.is_empty() {
                return Err(Diagnostic::error(
                    span,
                    "`getInstanceName` takes no arguments",
                ));
            }
            return Ok(Some(Tensor::scalar(Expr::String(self.instance_name()))));
        }
        if name == "Connections.isRoot" || name == "Connections.rooted" {
            let Some(ast::Expr {
                kind: ast::ExprKind::Ref(c),
                ..
            }) = args.positional.first()
            else {
                return Err(Diagnostic::error(
                    span,
                    format!("`{name}` needs a component"),
                ));
            };
            let ids = self.ref_instances(c)?;
            let b = self.f.graph_query(name.ends_with("rooted"), &ids, span)?;
            return Ok(Some(Tensor::scalar(Expr::Boolean(b))));
        }
        Ok(None)
    }

    /// The built-in operators on values (`der`, `pre`, `edge`, `change`, `noEvent`, `smooth`,
    /// `initial`, `terminal`, `delay`, `sample`) applied to the argument values `vals`.
    fn builtin_operator(
        &mut self,
        name: &str,
        vals: &[Tensor<Expr>],
        span: Span,
    ) -> EResult<Tensor<Expr>> {
        let need = |n: usize| -> EResult<()> {
            if vals.len() != n {
                Err(Diagnostic::error(
                    span,
                    format!("`{name}` takes {n} argument(s), got {}", vals.len()),
                ))
            } else {
                Ok(())
            }
        };
        Ok(match name {
            "der" => {
                need(1)?;
                self.check_der_argument(&vals[0], span)?;
                on_each(vals, |_| Expr::Real(0.0), Expr::Der)
            }
            "pre" => {
                need(1)?;
                on_each(vals, |x| x, Expr::Pre)
            }
            "edge" => {
                need(1)?;
                on_each(vals, |_| Expr::Boolean(false), Expr::Edge)
            }
            "change" => {
                need(1)?;
                on_each(vals, |_| Expr::Boolean(false), Expr::Change)
            }
            "noEvent" => {
                need(1)?;
                on_each(vals, |x| x, Expr::NoEvent)
            }
            "smooth" => {
                need(2)?;
                let p = vals[0]
                    .clone()
                    .into_scalar()
                    .ok()
                    .and_then(|v| v.to_val())
                    .and_then(|v| v.as_int());
                let Some(p) = p.filter(|p| *p >= 0) else {
                    return Err(Diagnostic::error(
                        span,
                        "the first argument of `smooth` must be a non-negative Integer constant",
                    ));
                };
                on_each(&vals[1..], |x| x, |x| Expr::Smooth(p as u32, x))
            }
            "initial" => {
                need(0)?;
                Tensor::scalar(Expr::Initial)
            }
            "terminal" => {
                need(0)?;
                Tensor::scalar(Expr::Terminal)
            }
            "delay" => self.delay_call(vals, span)?,
            "sample" => {
                need(2)?;
                let a = vals[0]
                    .clone()
                    .into_scalar()
                    .map_err(|m| Diagnostic::error(span, m))?;
                let b = vals[1]
                    .clone()
                    .into_scalar()
                    .map_err(|m| Diagnostic::error(span, m))?;
                Tensor::scalar(Expr::Sample(Box::new(a), Box::new(b)))
            }
            other => {
                return Err(Diagnostic::error(
                    span,
                    format!("`{other}` is not supported"),
                ));
            }
        })
    }
}

impl FCtx<'_, '_> {
    /// `der(e)` needs a Real expression that may vary continuously (MLS 3.7.4): not an
    /// Integer or Boolean value, not a discrete variable.
    fn check_der_argument(&self, t: &Tensor<Expr>, span: Span) -> EResult<()> {
        for x in &t.data {
            let bad = match x {
                Expr::Integer(_) | Expr::Boolean(_) | Expr::String(_) => {
                    Some("an Integer, Boolean or String value".to_string())
                }
                Expr::Var(v) => self.f.var_inst(*v).and_then(|i| {
                    let discrete = self.f.variability(i) == ast::Variability::Discrete
                        || !matches!(
                            self.f.insts[i].kind,
                            InstKind::Prim {
                                ty: dae::ScalarType::Real,
                                ..
                            }
                        );
                    discrete.then(|| format!("the discrete variable `{}`", self.f.insts[i].path))
                }),
                _ => None,
            };
            if let Some(what) = bad {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "`der` needs a continuous-time Real expression (MLS 3.7.4), not {what}"
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl Flattener<'_> {
    /// Evaluates an expression that must be a constant or parameter expression.
    pub fn eval_structural(&mut self, e: &ast::Expr, scope: Scope) -> EResult<Tensor<Val>> {
        self.eval_structural_with(e, scope, &[])
    }

    pub fn eval_structural_with(
        &mut self,
        e: &ast::Expr,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
    ) -> EResult<Tensor<Val>> {
        let mut ctx = FCtx::new(self, scope, Mode::Structural);
        ctx.locals = locals.to_vec();
        let t = eval::eval(&mut ctx, e)?;
        let last = ctx.last_var.take();
        drop(ctx);
        let dims = t.dims.clone();
        let mut data = Vec::with_capacity(t.data.len());
        for x in t.data {
            match x.to_val() {
                Some(v) => data.push(v),
                None => {
                    let why = match (last, first_var(&x)) {
                        (_, Some(v)) if v != PLACEHOLDER && v < self.var_names.len() => {
                            format!(": it depends on `{}`", self.var_names[v])
                        }
                        (Some(n), _) => format!(": it depends on `{n}`"),
                        _ => String::new(),
                    };
                    return Err(Diagnostic::error(e.span, format!("this must be a parameter or constant expression{why}"))
                        .with_help("sizes, for-ranges, and conditions that select equations or components must be known before simulation"));
                }
            }
        }
        Ok(Tensor { dims, data })
    }

    /// The range of a `for` index written without one, from its uses as a subscript.
    pub fn implicit_for_range(
        &mut self,
        name: &ast::Ident,
        uses: &[super::implicit::Use],
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
    ) -> EResult<Tensor<Val>> {
        let mut ctx = FCtx::new(self, scope, Mode::Structural);
        ctx.locals = locals.to_vec();
        let t = eval::Ctx::implicit_range(&mut ctx, name, uses)?;
        Ok(t.map(|x| x.to_val().unwrap_or(Val::Int(0))))
    }

    /// Sizes of a binding's value (for `x[:] = ...`), evaluating only what is needed.
    pub fn binding_dims(&mut self, b: &ModExpr) -> EResult<Vec<usize>> {
        let mut ctx = FCtx::new(self, b.scope, Mode::Structural);
        let t = eval::eval(&mut ctx, &b.expr)?;
        Ok(t.dims[b.index.len().min(t.dims.len())..].to_vec())
    }

    /// Evaluates with parameters kept symbolic.
    pub fn eval_symbolic(
        &mut self,
        e: &ast::Expr,
        scope: Scope,
        locals: &[(String, Tensor<Expr>)],
    ) -> EResult<Tensor<Expr>> {
        let mut ctx = FCtx::new(self, scope, Mode::Symbolic);
        ctx.locals = locals.to_vec();
        eval::eval(&mut ctx, e)
    }

    /// A modifier binding's value for one instance (element selection applied, scalar
    /// bindings broadcast over arrays declared with `each`).
    pub fn mod_value(&mut self, b: &ModExpr, mode: Mode, dims: &[usize]) -> EResult<Tensor<Expr>> {
        let t = self.mod_value_as_is(b, mode)?;
        if t.dims == dims {
            return Ok(t);
        }
        if t.is_scalar() {
            let n: usize = dims.iter().product();
            return Ok(Tensor {
                dims: dims.to_vec(),
                data: vec![t.data[0].clone(); n],
            });
        }
        Err(Diagnostic::error(
            b.expr.span,
            format!(
                "the value has size {} but the component has size {}",
                super::tensor::fmt_dims(&t.dims),
                super::tensor::fmt_dims(dims)
            ),
        ))
    }

    /// A binding's value as the evaluator gives it (its element selected for an element of an
    /// array), without fitting it to the component's size.
    pub fn mod_value_as_is(&mut self, b: &ModExpr, mode: Mode) -> EResult<Tensor<Expr>> {
        let mut ctx = FCtx::new(self, b.scope, mode);
        let t = eval::eval(&mut ctx, &b.expr)?;
        select(t, &b.index, b.expr.span)
    }

    /// A binding's value for a component of size `dims`: the whole binding, or (`part` =
    /// offset and number of scalars) the component's share of a record bound as a whole.
    pub fn binding_value(
        &mut self,
        b: &ModExpr,
        part: Option<(usize, Option<usize>)>,
        mode: Mode,
        dims: &[usize],
    ) -> EResult<Tensor<Expr>> {
        match part {
            Some(p) => self.field_value(b, p, mode, dims),
            None => self.mod_value(b, mode, dims),
        }
    }

    /// A parameter without a binding whose `fixed` is false: the initial system determines it.
    pub(super) fn is_initial_unknown_parameter(&mut self, i: InstId) -> bool {
        if self.insts[i].mods.binding.is_some() {
            return false;
        }
        let Some(b) = self.insts[i]
            .mods
            .sub("fixed")
            .and_then(|m| m.binding.clone())
        else {
            return false;
        };
        let dims = match &self.insts[i].kind {
            InstKind::Prim { dims, .. } => dims.clone(),
            _ => return false,
        };
        matches!(self.whole_record_binding(i), Ok(None))
            && self.mod_value(&b, Mode::Structural, &dims).is_ok_and(|t| {
                t.data
                    .iter()
                    .all(|x| matches!(x.to_val(), Some(Val::Bool(false))))
            })
    }

    /// The value of a constant or parameter (its binding, else its `start`), cached.
    pub fn param_value(&mut self, i: InstId) -> EResult<Rc<Tensor<Val>>> {
        self.check_constant_uses_constants(i)?;
        if let Some(v) = self.values.get(&i) {
            return Ok(v.clone());
        }
        if let Some(pos) = self.evaluating.iter().position(|x| *x == i) {
            let chain: Vec<String> = self.evaluating[pos..]
                .iter()
                .chain(std::iter::once(&i))
                .map(|x| self.insts[*x].path.clone())
                .collect();
            return Err(Diagnostic::error(
                self.insts[i].span,
                format!("cyclic parameter binding: {}", chain.join(" -> ")),
            )
            .with_help("a parameter's value cannot depend on itself"));
        }
        self.ready(i)?;
        let dims = match &self.insts[i].kind {
            InstKind::Prim { dims, .. } => dims.clone(),
            _ => {
                return Err(Diagnostic::error(
                    self.insts[i].span,
                    "internal: not a variable",
                ));
            }
        };
        let whole = self.whole_record_binding(i)?;
        let binding = whole
            .as_ref()
            .map(|w| w.0.clone())
            .or_else(|| self.insts[i].mods.binding.clone())
            .or_else(|| {
                self.insts[i]
                    .mods
                    .sub("start")
                    .and_then(|m| m.binding.clone())
            });
        let Some(b) = binding else {
            let what = if self.variability(i) == ast::Variability::Constant {
                "constant"
            } else {
                "parameter"
            };
            return Err(Diagnostic::error(
                self.insts[i].span,
                format!("{what} `{}` has no value", self.insts[i].path),
            )
            .with_help("give it a binding (`= value`) or a `start` value"));
        };
        self.check_not_enum_binding(i, &b)?;
        self.evaluating.push(i);
        let part = whole.map(|(_, offset, total)| (offset, total));
        let r = self.binding_value(&b, part, Mode::Structural, &dims);
        self.evaluating.pop();
        let t = r?;
        let mut data = Vec::with_capacity(t.data.len());
        for x in &t.data {
            match x.to_val() {
                Some(v) => data.push(v),
                None => {
                    return Err(Diagnostic::error(
                        b.expr.span,
                        format!(
                            "the value of `{}` must be a parameter or constant expression",
                            self.insts[i].path
                        ),
                    ));
                }
            }
        }
        // Integer parameters bound to Real values and vice versa keep their declared type.
        let ty = match &self.insts[i].kind {
            InstKind::Prim { ty, .. } => *ty,
            _ => dae::ScalarType::Real,
        };
        let data = data
            .into_iter()
            .map(|v| match (ty, v) {
                (dae::ScalarType::Real, Val::Int(k)) => Val::Real(k as f64),
                (_, v) => v,
            })
            .collect();
        let v = Rc::new(Tensor { dims: t.dims, data });
        self.values.insert(i, v.clone());
        Ok(v)
    }

    /// Integer and Real variables do not take enumeration values (MLS 4.9.5: only
    /// `Integer(e)` converts them).
    pub fn check_not_enum_binding(&mut self, i: InstId, b: &ModExpr) -> EResult<()> {
        if let InstKind::Prim {
            ty: dae::ScalarType::Integer | dae::ScalarType::Real,
            ..
        } = self.insts[i].kind
            && self.is_enum_value(&b.expr, b.scope)
        {
            return Err(Diagnostic::error(
                b.expr.span,
                format!(
                    "`{}` is not an enumeration but gets an enumeration value: convert it with `Integer(...)` (MLS 4.9.5)",
                    self.insts[i].path
                ),
            ));
        }
        Ok(())
    }

    /// The variability of a primitive instance, including prefixes of enclosing records and
    /// connectors (`parameter Rec r` makes `r.x` a parameter).
    pub fn variability(&self, i: InstId) -> ast::Variability {
        use ast::Variability::*;
        let rank = |v: ast::Variability| match v {
            Constant => 3,
            Parameter => 2,
            Discrete => 1,
            Continuous => 0,
        };
        let mut v = self.insts[i].prefix.variability;
        let mut cur = self.insts[i].parent;
        while let Some(p) = cur {
            let inst = &self.insts[p];
            if inst.parent.is_none() {
                break;
            }
            if rank(inst.prefix.variability) > rank(v) {
                v = inst.prefix.variability;
            }
            cur = inst.parent;
        }
        if self.insts[i].package {
            v = Constant;
        }
        v
    }
}

fn select(t: Tensor<Expr>, index: &[usize], span: Span) -> EResult<Tensor<Expr>> {
    if index.is_empty() {
        return Ok(t);
    }
    if t.is_scalar() {
        // A scalar given to an array of components applies to each element.
        return Ok(t);
    }
    let take = index.len().min(t.dims.len());
    let subs: Vec<(Vec<usize>, bool)> = index[..take].iter().map(|k| (vec![*k], false)).collect();
    t.index(&subs).map_err(|m| Diagnostic::error(span, m))
}

fn first_var(e: &Expr) -> Option<usize> {
    let mut out = None;
    e.visit(&mut |x| {
        if let Expr::Var(v) = x
            && out.is_none()
        {
            out = Some(*v);
        }
    });
    out
}

/// The flat (row-major) indices selected by subscripts of an array of size `dims`, and the
/// dimensions of the selection.
pub fn select_flat(
    dims: &[usize],
    subs: &[(Vec<usize>, bool)],
) -> Result<(Vec<usize>, Vec<usize>), String> {
    if subs.len() > dims.len() {
        return Err(format!(
            "{} subscripts on an array with {} dimensions",
            subs.len(),
            dims.len()
        ));
    }
    for ((idx, _), d) in subs.iter().zip(dims) {
        if let Some(bad) = idx.iter().find(|i| **i >= *d) {
            return Err(format!("index {} out of bounds 1..{}", bad + 1, d));
        }
    }
    let rest = &dims[subs.len()..];
    let inner: usize = rest.iter().product();
    let mut out_dims: Vec<usize> = subs
        .iter()
        .filter(|(_, keep)| *keep)
        .map(|(i, _)| i.len())
        .collect();
    out_dims.extend_from_slice(rest);
    let count: usize = subs.iter().map(|(i, _)| i.len()).product();
    let mut flat = Vec::with_capacity(count * inner);
    let mut pos = vec![0usize; subs.len()];
    for _ in 0..count {
        let mut off = 0;
        for (k, (idx, _)) in subs.iter().enumerate() {
            off = off * dims[k] + idx[pos[k]];
        }
        flat.extend(off * inner..(off + 1) * inner);
        for k in (0..subs.len()).rev() {
            pos[k] += 1;
            if pos[k] < subs[k].0.len() {
                break;
            }
            pos[k] = 0;
        }
    }
    Ok((out_dims, flat))
}

impl FCtx<'_, '_> {
    /// `getInstanceName()` (MLS 3.7.4): the simulated model's name (its last identifier)
    /// followed by the path of the instance the call is in, `Vehicle.engine.controller`.
    fn instance_name(&self) -> String {
        let Some(inst) = self.scope.inst else {
            return self.f.tree.get(self.scope.lex).full.clone();
        };
        let mut root = inst;
        while let Some(p) = self.f.insts[root].parent {
            root = p;
        }
        let full = &self.f.tree.get(self.f.insts[root].class).full;
        let model = full.rsplit('.').next().unwrap_or(full).to_string();
        let path = &self.f.insts[inst].path;
        if root == inst || path.is_empty() || self.f.insts[root].package {
            model
        } else {
            format!("{model}.{path}")
        }
    }

    /// The instances a component reference names (one per array element), for the built-ins
    /// that ask about connectors (`cardinality`, `Connections.isRoot`/`rooted`).
    /// `inStream(v)` / `actualStream(v)` (MLS 15.2, 15.3): element-wise placeholders that
    /// `stream.rs` replaces once the connection sets are known.
    fn stream_operator(
        &mut self,
        name: &str,
        args: &ast::FunctionArgs,
        span: Span,
    ) -> EResult<Tensor<Expr>> {
        let (Some(arg), 1, true) = (
            args.positional.first(),
            args.positional.len(),
            args.named.is_empty(),
        ) else {
            return Err(Diagnostic::error(
                span,
                format!("`{name}` takes one argument: a stream variable"),
            ));
        };
        let not_stream = |what: String| {
            Diagnostic::error(
                arg.span,
                format!(
                    "the argument of `{name}` must be a stream variable of a connector, not {what}"
                ),
            )
            .with_note(
                "only variables declared with the `stream` prefix can be used (MLS 15.2, 15.3)",
            )
        };
        let ast::ExprKind::Ref(c) = &arg.kind else {
            return Err(not_stream("an expression".into()));
        };
        let nodes = self.resolve(c)?.ok_or_else(|| unknown_name(c))?;
        let mut data = Vec::with_capacity(nodes.data.len());
        for n in nodes.data.iter().copied() {
            let Node::Var(i, k) = n else {
                return Err(not_stream(format!("`{}`", self.node_name(n))));
            };
            if self.f.insts[i].prefix.connection != ast::Connection::Stream {
                return Err(not_stream(format!("`{}`", self.f.insts[i].path)));
            }
            if !self.f.numbered {
                self.last_var = Some(format!("{name}({})", self.f.insts[i].path));
                data.push(Expr::Var(PLACEHOLDER));
                continue;
            }
            let v = Expr::Var(self.f.insts[i].var0 + k);
            data.push(if name == "inStream" {
                super::stream::in_stream_placeholder(v)
            } else {
                let flow = self
                    .f
                    .stream_flow(i)?
                    .map(Expr::Var)
                    .unwrap_or(Expr::Real(0.0));
                super::stream::actual_stream_placeholder(v, flow)
            });
        }
        Ok(Tensor {
            dims: nodes.dims,
            data,
        })
    }

    fn ref_instances(&mut self, c: &ast::ComponentRef) -> Result<Vec<InstId>, Diagnostic> {
        let was = std::mem::replace(&mut self.conditional_ok, true);
        let r = self.resolve(c);
        self.conditional_ok = was;
        let nodes = r?.ok_or_else(|| unknown_name(c))?;
        Ok(nodes
            .data
            .iter()
            .map(|n| match n {
                Node::Inst(i) | Node::Var(i, _) => *i,
            })
            .collect())
    }
}

/// The leading dimensions of `t` when it is an array of records of `n` scalars each (the
/// record's scalars are the last dimension of a record value); `None` for one record.
fn record_lead(t: &Tensor<Expr>, n: usize) -> Option<Vec<usize>> {
    match t.dims.split_last() {
        Some((&last, lead)) if last == n && !lead.is_empty() && n > 0 => Some(lead.to_vec()),
        _ => None,
    }
}

/// Pushes, for each field (of sizes `fields`) of the records in `t` (dims `lead` followed by
/// the `n` scalars of one record), the array of that field over `lead`.
fn push_field_arrays(
    vals: &mut Vec<Option<Tensor<Expr>>>,
    fields: &[Vec<usize>],
    t: &Tensor<Expr>,
    lead: &[usize],
    n: usize,
) {
    let count: usize = lead.iter().product();
    let mut offset = 0;
    for dims in fields {
        let size: usize = dims.iter().product();
        let mut data = Vec::with_capacity(count * size);
        for k in 0..count {
            let start = k * n + offset;
            data.extend(t.data[start..start + size].iter().cloned());
        }
        let mut all = lead.to_vec();
        all.extend(dims.iter().copied());
        vals.push(Some(Tensor { dims: all, data }));
        offset += size;
    }
}

/// The error for a reference that names nothing in scope.
pub(super) fn unknown_name(c: &ast::ComponentRef) -> Diagnostic {
    Diagnostic::error(c.span, format!("unknown name `{}`", cref_name(c)))
        .with_kind(crate::diag::Kind::UnknownName)
}

/// The built-in operators on variables and events (`der`, `pre`, `sample`, ...) that a call
/// expression evaluates itself rather than as a function (MLS 3.7.4, 3.7.5).
pub(super) fn is_event_or_state_operator(name: &str) -> bool {
    matches!(
        name,
        "der"
            | "pre"
            | "edge"
            | "change"
            | "noEvent"
            | "smooth"
            | "initial"
            | "terminal"
            | "sample"
            | "delay"
            | "cardinality"
    )
}
