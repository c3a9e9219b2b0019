//! Reading an `Analysis` in the structure tests: names of variables, states, differentiations
//! and block kinds, so each test states only what it checks.
#![allow(dead_code)]

use minimo::structure::Analysis;

/// The flat names of variables `vs`.
pub fn names(a: &Analysis, vs: &[usize]) -> Vec<String> {
    vs.iter()
        .map(|&v| a.system.model.variables[v].name.clone())
        .collect()
}

/// The states in the order the sorted system keeps them.
pub fn states(a: &Analysis) -> Vec<String> {
    a.system
        .states
        .iter()
        .map(|s| a.system.model.variables[s.var].name.clone())
        .collect()
}

/// The index of the variable called `name`.
pub fn var_id(a: &Analysis, name: &str) -> usize {
    a.system
        .model
        .variables
        .iter()
        .position(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

/// Each differentiated equation with how many times it was differentiated.
pub fn diffs(a: &Analysis) -> Vec<(String, u32)> {
    a.report
        .differentiations
        .iter()
        .map(|d| (d.equation.clone(), d.times))
        .collect()
}

/// How many times the equation printed as `eq` was differentiated.
pub fn times(a: &Analysis, eq: &str) -> Option<u32> {
    a.report
        .differentiations
        .iter()
        .find(|d| d.equation == eq)
        .map(|d| d.times)
}

/// Each block of the report as (kind, number of equations).
pub fn block_kinds(a: &Analysis) -> Vec<(String, usize)> {
    a.report
        .blocks
        .iter()
        .map(|b| (b.kind.clone(), b.equations.len()))
        .collect()
}

/// The blocks the report shows solved symbolically, as `var := expression`.
pub fn solved(a: &Analysis) -> Vec<String> {
    a.report
        .blocks
        .iter()
        .filter_map(|b| b.solved.clone())
        .collect()
}
