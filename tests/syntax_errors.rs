//! Malformed inputs: each must give one diagnostic with the expected message, at the expected
//! line and column (1-based, as printed by `minimo check`).

use minimo::diag::{Diagnostic, SourceMap, render};
use minimo::syntax::parse;

fn error_of(text: &str) -> (Diagnostic, SourceMap) {
    let mut sources = SourceMap::new();
    let file = sources.add("bad.mo", text);
    match parse(text, file) {
        Ok(_) => panic!("expected a syntax error for:\n{text}"),
        Err(mut ds) => {
            assert_eq!(ds.len(), 1, "{ds:#?}");
            (ds.remove(0), sources)
        }
    }
}

/// Asserts message, line and column of the error in `text`; returns the rendered diagnostic.
#[track_caller]
fn check(text: &str, line: usize, col: usize, message: &str) -> String {
    let (d, sources) = error_of(text);
    let file = sources.get(d.span.file).expect("span in the file");
    assert!(
        d.span.start <= d.span.end && d.span.end as usize <= text.len(),
        "bad span {:?}",
        d.span
    );
    let (l, c) = file.line_col(d.span.start);
    assert_eq!(
        (d.message.as_str(), l, c),
        (message, line, col),
        "for:\n{text}"
    );
    let rendered = render(&sources, &d);
    assert!(
        rendered.starts_with(&format!("bad.mo:{line}:{col}: error: {message}")),
        "{rendered}"
    );
    rendered
}

#[test]
fn missing_semicolon_after_component() {
    let r = check(
        "model A\n  Real x\n  Real y;\nend A;\n",
        2,
        9,
        "expected `;` after the component declaration",
    );
    assert!(r.contains("add `;` here"), "{r}");
}

#[test]
fn missing_semicolon_after_equation() {
    check(
        "model A\n  Real x;\nequation\n  der(x) = -x\nend A;\n",
        4,
        14,
        "expected `;` after the equation",
    );
}

#[test]
fn missing_semicolon_after_statement() {
    check(
        "model A\n  Real x;\nalgorithm\n  x := 1\n  x := 2;\nend A;\n",
        4,
        9,
        "expected `;` after the statement",
    );
}

#[test]
fn missing_semicolon_after_import_and_extends() {
    check(
        "package P\n  import Modelica.Math\n  Real x;\nend P;\n",
        2,
        23,
        "expected `;` after the import",
    );
    check(
        "model A\n  extends B\n  Real x;\nend A;\n",
        2,
        12,
        "expected `;` after the `extends` clause",
    );
}

#[test]
fn missing_semicolon_after_class_and_within() {
    check(
        "model A\n  Real x;\nend A\nmodel B\nend B;\n",
        3,
        6,
        "expected `;` after the class definition",
    );
    check(
        "within Modelica\nmodel A\nend A;\n",
        1,
        16,
        "expected `;` after the `within` clause",
    );
}

#[test]
fn missing_end_at_end_of_file() {
    let r = check(
        "model A\n  Real x;\nequation\n  x = 1;\n",
        5,
        1,
        "unexpected end of file: expected `end A;`",
    );
    assert!(r.contains("the class starts here"), "{r}");
}

#[test]
fn end_name_mismatch() {
    let r = check(
        "model A\n  Real x;\nend B;\n",
        3,
        5,
        "`end B` does not match the class name `A`",
    );
    assert!(r.contains("help: write `end A;`"), "{r}");
}

#[test]
fn end_without_name() {
    check("model A\n  Real x;\nend;\n", 3, 4, "expected `end A;`");
}

#[test]
fn wrong_end_of_block() {
    check(
        "model A\n  Real x[3];\nequation\n  for i in 1:3 loop\n    x[i] = i;\n  end if;\nend A;\n",
        6,
        7,
        "expected `end for;` to close the `for` loop",
    );
    check(
        "model A\n  Real x;\nequation\n  when x > 1 then\n    reinit(x, 0);\n  end;\nend A;\n",
        6,
        6,
        "expected `end when;` to close the `when`",
    );
}

#[test]
fn missing_expression() {
    check(
        "model A\n  Real x;\nequation\n  x = (1 + );\nend A;\n",
        4,
        12,
        "unexpected `)`: missing expression",
    );
    check(
        "model A\n  Real x;\nequation\n  x = ;\nend A;\n",
        4,
        7,
        "unexpected `;`: missing expression",
    );
    check(
        "model A\n  Real x(start = );\nend A;\n",
        2,
        18,
        "unexpected `)`: missing expression",
    );
    check(
        "model A\n  Real x = f(1, , 2);\nend A;\n",
        2,
        17,
        "unexpected `,`: missing expression",
    );
    check(
        "model A\n  Real x = ();\nend A;\n",
        2,
        13,
        "unexpected `)`: missing expression",
    );
    check(
        "model A\n  Real x = 1 +",
        2,
        15,
        "unexpected end of file: missing expression",
    );
}

#[test]
fn unterminated_tokens() {
    check(
        "model A\n  String s = \"abc;\nend A;\n",
        2,
        14,
        "unterminated string",
    );
    check(
        "model A\n  /* comment\n  Real x;\nend A;\n",
        2,
        3,
        "unterminated comment",
    );
    check(
        "model A\n  Real 'x;\nend A;\n",
        2,
        8,
        "unterminated quoted name",
    );
}

#[test]
fn equals_in_algorithm_and_assign_in_equation() {
    let r = check(
        "model A\n  Real x;\nalgorithm\n  x = 1;\nend A;\n",
        4,
        5,
        "`=` is not allowed in an algorithm: use `:=`",
    );
    assert!(r.contains("assignment needs `:=`"), "{r}");
    check(
        "model A\n  Real x;\nequation\n  x := 1;\nend A;\n",
        4,
        5,
        "`:=` is not allowed in an equation: use `=`",
    );
}

#[test]
fn equals_as_comparison() {
    check(
        "model A\n  Real x;\nequation\n  if x = 1 then x = 2; end if;\nend A;\n",
        4,
        8,
        "`=` is not a comparison: use `==`",
    );
}

#[test]
fn sign_after_operator() {
    let r = check(
        "model A\n  Real x;\nequation\n  x = 2 * -3;\nend A;\n",
        4,
        11,
        "a sign `-` cannot follow another operator",
    );
    assert!(r.contains("2 * (-3)"), "{r}");
}

#[test]
fn chained_comparison_and_power() {
    check(
        "model A\n  Boolean b;\nequation\n  b = 1 < 2 < 3;\nend A;\n",
        4,
        13,
        "comparisons cannot be chained",
    );
    check(
        "model A\n  Real x;\nequation\n  x = 2 ^ 3 ^ 2;\nend A;\n",
        4,
        13,
        "`^` cannot be chained: add parentheses",
    );
}

#[test]
fn reserved_word_as_name() {
    check(
        "model A\n  Real end;\nend A;\n",
        2,
        8,
        "`end` is a reserved word and cannot be used as a name",
    );
    check(
        "model A\n  Real x, inner;\nend A;\n",
        2,
        11,
        "`inner` is a reserved word and cannot be used as a name",
    );
}

#[test]
fn missing_then_and_loop() {
    check(
        "model A\n  Real x;\nequation\n  if x > 1 x = 2; end if;\nend A;\n",
        4,
        12,
        "expected `then` after the condition, found `x`",
    );
    check(
        "model A\n  Real x[3];\nequation\n  for i in 1:3\n    x[i] = i;\n  end for;\nend A;\n",
        5,
        5,
        "expected `loop`, found `x`",
    );
}

#[test]
fn unclosed_brackets() {
    check(
        "model A\n  Real x;\nequation\n  x = (1 + 2;\nend A;\n",
        4,
        13,
        "expected `)`, found `;`",
    );
    check(
        "model A\n  Real x[3];\nequation\n  x[1 = 2;\nend A;\n",
        4,
        7,
        "expected `]`, found `=`",
    );
    check(
        "model A\n  Real x[3] = {1, 2, 3;\nend A;\n",
        2,
        23,
        "expected `}`, found `;`",
    );
}

#[test]
fn equation_among_declarations() {
    let r = check(
        "model A\n  Real x;\n  x = 1;\nend A;\n",
        3,
        5,
        "unexpected `=`: a declaration needs a type and a name",
    );
    assert!(r.contains("after the keyword `equation`"), "{r}");
}

#[test]
fn equation_without_equals() {
    check(
        "model A\n  Real x;\nequation\n  x + 1;\nend A;\n",
        4,
        8,
        "expected `=` in the equation: an equation has the form `a = b`",
    );
}

#[test]
fn stray_characters() {
    check(
        "model A\n  Real x = 1 $ 2;\nend A;\n",
        2,
        14,
        "unexpected character `$`",
    );
    check("%%%", 1, 1, "unexpected character `%`");
}

#[test]
fn misspelled_class_keyword() {
    let r = check(
        "modle A\nend A;\n",
        1,
        1,
        "unexpected `modle`: expected a class definition (`model`, `package`, `function`, ...)",
    );
    assert!(r.contains("did you mean `model`?"), "{r}");
}

#[test]
fn semantic_syntax_errors() {
    check(
        "model A\n  Real x = 1.2.3;\nend A;\n",
        2,
        12,
        "malformed number `1.2.3`",
    );
    check(
        "model A\n  String s = \"a\\qb\";\nend A;\n",
        2,
        16,
        "unknown escape `\\q` in string",
    );
    check(
        "model A\n  Real x = f(a = 1, 2);\nend A;\n",
        2,
        21,
        "a positional argument cannot follow a named argument",
    );
    check(
        "function f\n  output Real a;\nalgorithm\n  (a + 1, b) := g(1);\nend f;\n",
        4,
        4,
        "only variables may appear on the left of `:=`",
    );
}

#[test]
fn too_deep_nesting_is_an_error_not_a_crash() {
    let text = format!(
        "model A\n  Real x = {}1{};\nend A;\n",
        "(".repeat(300),
        ")".repeat(300)
    );
    check(&text, 2, 212, "expression nested too deeply");
}

#[test]
fn unclosed_class_before_the_next_one() {
    let r = check(
        "package P\n  model A\n    Real x;\n  equation\n    x = 1;\n  model B\n  end B;\nend P;\n",
        6,
        3,
        "expected `end A;` before this `model`",
    );
    assert!(r.contains("the class starts here"), "{r}");
}

#[test]
fn misplaced_and_repeated_prefixes() {
    check(
        "model A\n  parameter parameter Real k = 1;\nend A;\n",
        2,
        13,
        "`parameter` is given twice",
    );
    check(
        "model A\n  partial Real k = 1;\nend A;\n",
        2,
        3,
        "`partial` is not allowed on a component declaration",
    );
    check(
        "model A\n  parameter constant Real k = 1;\nend A;\n",
        2,
        13,
        "`constant` cannot be combined with `parameter`",
    );
    check(
        "parameter model A\nend A;\n",
        1,
        1,
        "`parameter` is not allowed on a top-level class",
    );
}

#[test]
fn malformed_modifiers_and_calls() {
    check(
        "model A\n  Real x(start = 1, );\nend A;\n",
        2,
        21,
        "unexpected `)`: expected a modifier such as `start = 0`",
    );
    check(
        "model A\n  Real x;\nequation\n  connect(a.p b.n);\nend A;\n",
        4,
        15,
        "unexpected `b`: expected `,`",
    );
    check(
        "model A\n  Real x;\nequation\n  x = sin(time;\nend A;\n",
        4,
        15,
        "expected `)`, found `;`",
    );
    check(
        "model A\n  M m(redeclare x = 1);\nend A;\n",
        2,
        7,
        "`redeclare` must be followed by a declaration",
    );
    check(
        "model A\n  M m(each Real x = 1);\nend A;\n",
        2,
        12,
        "a declaration in a modifier needs `redeclare`",
    );
}

// ---- several errors in one file ----

fn all_errors(text: &str) -> Vec<(String, usize, usize)> {
    let mut sources = SourceMap::new();
    let file = sources.add("bad.mo", text);
    let ds = parse(text, file).expect_err("syntax errors");
    let f = sources.get(file).expect("file");
    ds.iter()
        .map(|d| {
            let (l, c) = f.line_col(d.span.start);
            (d.message.clone(), l, c)
        })
        .collect()
}

#[test]
fn independent_errors_are_all_reported() {
    let text = "model A\n  Real x = 1 +;\n  Real y\n  Real z;\n  Real w;\nequation\n  x = 2 * ;\n  y = 3;\n  z = (4;\n  w = 5;\nend A;\n";
    let errs = all_errors(text);
    let lines: Vec<usize> = errs.iter().map(|e| e.1).collect();
    // Line 2 (missing operand), line 3 (missing `;`), line 7 (missing operand); the unclosed
    // bracket on line 9 is reported, but nothing is invented after it.
    assert_eq!(&lines[..3], &[2, 3, 7], "{errs:#?}");
    assert!(errs.len() <= 4, "{errs:#?}");
    assert!(errs[1].0.contains("expected `;`"), "{errs:#?}");
}

#[test]
fn errors_in_block_structure_stop_the_report() {
    // A broken `for` header: skipping it would unbalance `end for`, so only one error.
    let text = "model A\n  Real x[2];\nequation\n  for i in 1: loop\n    x[i] = 1;\n  end for;\n  x[1] = 2 * ;\nend A;\n";
    let errs = all_errors(text);
    assert_eq!(errs.len(), 1, "{errs:#?}");
}

#[test]
fn whitespace_inside_names_and_before_subscripts() {
    let text = "model A\n  Minimo . Mechanics.Translational . Mass m(m = 1);\n  Real x [2];\nequation\n  x [1] = m . s;\n  x[2] = m /* c */ . v + x [ 1 ];\nend A;\n";
    let mut sources = SourceMap::new();
    let file = sources.add("ok.mo", text);
    let def = parse(text, file).unwrap_or_else(|e| panic!("{e:#?}"));
    let printed = minimo::syntax::print(&def);
    assert!(
        printed.contains("Minimo.Mechanics.Translational.Mass m"),
        "{printed}"
    );
    assert!(printed.contains("x[1] = m.s"), "{printed}");
    assert!(printed.contains("x[2] = m.v + x[1]"), "{printed}");
    // Element-wise operators after a name still parse as operators.
    let text = "model B Real a[2] = {1, 2}; Real b[2] = a .* a; Real c[2] = a ./ a; end B;";
    let file = sources.add("ops.mo", text);
    let def = parse(text, file).unwrap_or_else(|e| panic!("{e:#?}"));
    let printed = minimo::syntax::print(&def);
    assert!(
        printed.contains("a .* a") && printed.contains("a ./ a"),
        "{printed}"
    );
}

#[test]
fn equations_among_declarations_are_reported_once() {
    // `equation` misspelled: every later equation is in the wrong section, which one message
    // says; the rest would repeat it.
    let text =
        "model A\n  Real x;\n  Real y;\nequaton\n  der(x) = 1;\n  y = 2;\n  x = 3;\nend A;\n";
    let errs = all_errors(text);
    assert_eq!(errs.len(), 1, "{errs:#?}");
}
