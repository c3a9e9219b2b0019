//! Flat variables: one per scalar element of every primitive instance, with attributes
//! (`start`, `fixed`, `nominal`, `min`, `max`, `unit`, `stateSelect`) and bindings. Bindings of
//! parameters stay symbolic in `Variable::binding`; bindings of other variables become
//! equations.

use super::Flattener;
use super::instance::{InstId, InstKind, unflatten};
use super::scalarize::Mode;
use super::tensor::{Elem, Val};
use crate::dae::{
    Causality, Equation, EquationKind, Expr, FlatModel, ScalarType, StateSelect, Variability,
    Variable,
};
use crate::diag::Diagnostic;
use crate::syntax::ast;

impl Flattener<'_> {
    /// Gives every primitive instance below `root` its variable ids, in declaration order.
    pub fn number_variables(&mut self, root: InstId, model: &mut FlatModel) {
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            match &self.insts[i].kind {
                InstKind::Struct {
                    children: Some(c), ..
                } => stack.extend(c.iter().rev()),
                InstKind::Array { elems, .. } => stack.extend(elems.iter().rev()),
                InstKind::Prim { ty, dims, .. } => {
                    let (ty, dims) = (*ty, dims.clone());
                    self.insts[i].var0 = model.variables.len();
                    self.prims.push(i);
                    if self.is_clock_instance(i) {
                        let v0 = model.variables.len();
                        let n: usize = dims.iter().product();
                        self.clocked.clock_vars.extend(v0..v0 + n);
                    }
                    let inst = &self.insts[i];
                    let n: usize = dims.iter().product();
                    let mut variability = match self.variability(i) {
                        ast::Variability::Constant => Variability::Constant,
                        ast::Variability::Parameter => Variability::Parameter,
                        ast::Variability::Discrete => Variability::Discrete,
                        ast::Variability::Continuous => Variability::Continuous,
                    };
                    if variability == Variability::Continuous && ty != ScalarType::Real {
                        // Integer, Boolean, String and enumeration variables are discrete.
                        variability = Variability::Discrete;
                    }
                    let causality = match inst.prefix.causality {
                        ast::Causality::Input => Causality::Input,
                        ast::Causality::Output => Causality::Output,
                        ast::Causality::None => Causality::Local,
                    };
                    let component = inst
                        .parent
                        .map(|p| self.insts[p].path.clone())
                        .unwrap_or_default();
                    let description = inst.elem.as_ref().and_then(|e| {
                        e.decl()
                            .comment
                            .description
                            .as_ref()
                            .map(|d| d.value.clone())
                    });
                    for k in 0..n {
                        let name = if dims.is_empty() {
                            inst.path.clone()
                        } else {
                            let idx = unflatten(k, &dims);
                            format!(
                                "{}[{}]",
                                inst.path,
                                idx.iter()
                                    .map(|x| (x + 1).to_string())
                                    .collect::<Vec<_>>()
                                    .join(",")
                            )
                        };
                        let mut v = Variable::real(name, inst.span);
                        v.ty = ty;
                        v.variability = variability;
                        v.causality = causality;
                        v.flow = inst.prefix.connection == ast::Connection::Flow;
                        v.component = component.clone();
                        v.description = description.clone();
                        self.var_names.push(v.name.clone());
                        model.variables.push(v);
                    }
                }
                _ => {}
            }
        }
        self.numbered = true;
    }

    /// Attributes and bindings of every variable; binding equations of non-parameters.
    pub fn variable_attributes(
        &mut self,
        model: &mut FlatModel,
        eqs: &mut Vec<Equation>,
    ) -> Result<(), Vec<Diagnostic>> {
        let mut errors = Vec::new();
        for i in self.prims.clone() {
            if let Err(d) = self.attributes_of(i, model, eqs) {
                errors.push(d);
                if errors.len() > super::MAX_ERRORS {
                    break;
                }
            }
        }
        super::ok_or_errors((), errors)
    }

    fn attributes_of(
        &mut self,
        i: InstId,
        model: &mut FlatModel,
        eqs: &mut Vec<Equation>,
    ) -> Result<(), Diagnostic> {
        let InstKind::Prim { dims, .. } = &self.insts[i].kind else {
            return Ok(());
        };
        let dims = dims.clone();
        // An empty array has no variables to give attributes or bindings to.
        if dims.contains(&0) {
            return Ok(());
        }
        let v0 = self.insts[i].var0;
        let mods = self.insts[i].mods.clone();
        for (attr, _) in &mods.subs {
            let Some(b) = mods.sub(attr).and_then(|m| m.binding.clone()) else {
                continue;
            };
            match attr.as_str() {
                "start" | "nominal" | "min" | "max" => {
                    let t = self.mod_value(&b, Mode::Symbolic, &dims)?;
                    for (k, x) in t.data.into_iter().enumerate() {
                        let v = &mut model.variables[v0 + k];
                        let x = match (v.ty, x) {
                            (ScalarType::Real, Expr::Integer(n)) => Expr::Real(n as f64),
                            (_, x) => x,
                        };
                        match attr.as_str() {
                            "start" => v.start = Some(x),
                            "nominal" => v.nominal = Some(x),
                            "min" => v.min = Some(x),
                            _ => v.max = Some(x),
                        }
                    }
                }
                "fixed" => {
                    let t = self.mod_value(&b, Mode::Structural, &dims)?;
                    for (k, x) in t.data.into_iter().enumerate() {
                        match x.to_val() {
                            Some(Val::Bool(f)) => model.variables[v0 + k].fixed = Some(f),
                            _ => {
                                return Err(Diagnostic::error(
                                    b.expr.span,
                                    "`fixed` must be a Boolean parameter expression",
                                ));
                            }
                        }
                    }
                }
                "stateSelect" => {
                    let t = self.mod_value(&b, Mode::Structural, &dims)?;
                    for (k, x) in t.data.into_iter().enumerate() {
                        let s = match x.to_val().and_then(|v| v.as_int()) {
                            Some(1) => StateSelect::Never,
                            Some(2) => StateSelect::Avoid,
                            Some(3) => StateSelect::Default,
                            Some(4) => StateSelect::Prefer,
                            Some(5) => StateSelect::Always,
                            _ => {
                                return Err(Diagnostic::error(
                                    b.expr.span,
                                    "`stateSelect` must be a StateSelect value",
                                ));
                            }
                        };
                        model.variables[v0 + k].state_select = s;
                    }
                }
                "unit" | "displayUnit" => {
                    let t = self.mod_value(&b, Mode::Structural, &dims)?;
                    let s = match t.data.first().and_then(|x| x.to_val()) {
                        Some(Val::Str(s)) => s,
                        _ => return Err(Diagnostic::error(b.expr.span, "a unit must be a string")),
                    };
                    for k in 0..t.data.len() {
                        let v = &mut model.variables[v0 + k];
                        if attr == "unit" {
                            v.unit = Some(s.clone());
                        } else {
                            v.display_unit = Some(s.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        // The binding: its element of an enclosing record bound as a whole by a function call
        // (`record_binding.rs`), which replaces a default written in the record; else its own.
        let (b, part) = match self.whole_record_binding(i)? {
            Some((b, offset, total)) => (b, Some((offset, total))),
            None => match mods.binding.clone() {
                Some(b) => (b, None),
                None => return Ok(()),
            },
        };
        self.check_not_enum_binding(i, &b)?;
        if part.is_none() {
            self.check_binding_type(i, &b)?;
        }
        let var = model.variables[v0].variability;
        match var {
            Variability::Constant => {
                let v = self.param_value(i)?;
                for (k, x) in v.data.iter().enumerate() {
                    model.variables[v0 + k].binding = Some(Expr::from_val(x.clone()));
                }
            }
            Variability::Parameter => {
                let t = self.binding_value(&b, part, Mode::Symbolic, &dims)?;
                let ty = model.variables[v0].ty;
                for (k, x) in t.data.into_iter().enumerate() {
                    let x = match (ty, x) {
                        (ScalarType::Real, Expr::Integer(n)) => Expr::Real(n as f64),
                        (_, x) => x,
                    };
                    model.variables[v0 + k].binding = Some(x);
                }
            }
            _ => {
                // A binding equation holds at all times, not only at events (MLS 4.5).
                if self.insts[i].prefix.variability == ast::Variability::Discrete
                    && model.variables[v0].ty == ScalarType::Real
                {
                    return Err(Diagnostic::error(
                        b.expr.span,
                        format!(
                            "`{}` is a `discrete` Real: it must be assigned in a when-clause, not by a binding equation (MLS 4.5)",
                            self.insts[i].path
                        ),
                    )
                    .with_help("assign it in a `when` equation, or drop `discrete`"));
                }
                let t = self.binding_value(&b, part, Mode::Symbolic, &dims)?;
                let component = model.variables[v0].component.clone();
                let span = b.expr.span;
                for (k, x) in t.data.into_iter().enumerate() {
                    eqs.push(Equation {
                        kind: EquationKind::Simple {
                            lhs: Expr::Var(v0 + k),
                            rhs: x,
                        },
                        component: component.clone(),
                        span,
                    });
                }
            }
        }
        Ok(())
    }

    /// Structural parameters get their evaluated value as binding; cyclic bindings are errors.
    pub fn finish_parameters(&mut self, model: &mut FlatModel) -> Result<(), Vec<Diagnostic>> {
        let mut structural: Vec<InstId> = self.structural.iter().copied().collect();
        structural.sort();
        for i in structural {
            let Some(v) = self.values.get(&i).cloned() else {
                continue;
            };
            let v0 = self.insts[i].var0;
            for (k, x) in v.data.iter().enumerate() {
                if let Some(var) = model.variables.get_mut(v0 + k) {
                    var.binding = Some(Expr::from_val(x.clone()));
                    var.structural = true;
                }
            }
        }
        select_structural_branches(model);
        // Cycles among parameter bindings (depth-first search, iterative).
        let n = model.variables.len();
        let deps = |v: &Variable| -> Vec<usize> {
            let mut out = Vec::new();
            if let Some(b) = &v.binding {
                b.visit(&mut |e| {
                    if let Expr::Var(x) = e {
                        out.push(*x);
                    }
                });
            }
            out
        };
        let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
        for s in 0..n {
            if state[s] != 0 || model.variables[s].variability != Variability::Parameter {
                continue;
            }
            let mut stack: Vec<(usize, Vec<usize>)> = vec![(s, deps(&model.variables[s]))];
            state[s] = 1;
            while let Some((v, ds)) = stack.last_mut() {
                match ds.pop() {
                    Some(d) if d < n => match state[d] {
                        0 => {
                            state[d] = 1;
                            let dd = deps(&model.variables[d]);
                            stack.push((d, dd));
                        }
                        1 => {
                            let pos = stack.iter().position(|(x, _)| *x == d).unwrap_or(0);
                            let mut chain: Vec<String> = stack[pos..]
                                .iter()
                                .map(|(x, _)| model.variables[*x].name.clone())
                                .collect();
                            chain.push(model.variables[d].name.clone());
                            let span = model.variables[d].span;
                            return Err(vec![
                                Diagnostic::error(
                                    span,
                                    format!("cyclic parameter binding: {}", chain.join(" -> ")),
                                )
                                .with_help("a parameter's value cannot depend on itself"),
                            ]);
                        }
                        _ => {}
                    },
                    Some(_) => {}
                    None => {
                        state[*v] = 2;
                        stack.pop();
                    }
                }
            }
        }
        Ok(())
    }
}

/// A binding `if c then a else b` whose condition reads structural parameters (now bound to
/// their values) keeps only the branch the condition selects. Media components write
/// `T_start = if use_T_start then T0 else T(h_start)` and `h_start = if use_T_start then
/// h(T_start) else h0`: a cycle only across branches that are never both taken, which is not
/// one once the evaluated condition has picked a branch.
fn select_structural_branches(model: &mut FlatModel) {
    let values: Vec<Option<Expr>> = model
        .variables
        .iter()
        .map(|v| v.structural.then(|| v.binding.clone()).flatten())
        .collect();
    let lookup = |x: usize| values.get(x).cloned().flatten();
    for var in &mut model.variables {
        let Some(b) = &var.binding else { continue };
        let mut structural_if = false;
        b.visit(&mut |e| {
            if let Expr::If { branches, .. } = e {
                structural_if |= branches
                    .iter()
                    .any(|(c, _)| crate::structure::expr::any_var(c, &|x| lookup(x).is_some()));
            }
        });
        if structural_if {
            let folded = crate::structure::expr::fold(&crate::structure::expr::subst(b, &lookup));
            var.binding = Some(folded);
        }
    }
}
