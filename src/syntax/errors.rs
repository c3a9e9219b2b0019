//! Translation of pest's parse failures into diagnostics in the modeler's words.
//!
//! pest reports the farthest position it reached and what it would have accepted there
//! (rule names and, with error detail on, literal tokens). That alone reads like a grammar dump,
//! so this module also looks at the text: a small lexer finds the offending token, the token
//! before it, the class being defined and the section (elements, equations, algorithm) the
//! error is in, and a list of rules turns the combination into a sentence a modeler
//! understands ("expected `;` after the component declaration").

use super::parser::Rule;
use crate::diag::{Diagnostic, FileId, Kind, Span};
use pest::error::{Error, ErrorVariant, InputLocation};
use std::collections::BTreeSet;

pub(crate) fn translate(text: &str, file: FileId, e: &Error<Rule>) -> Diagnostic {
    let rule_pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    // pest places its error at the start of the farthest rule that failed; the parse-attempt
    // tracker knows the farthest token tried. The token position is better for a missing `;`
    // after a complete construct (`end A` + newline), but it is unreliable otherwise (keyword
    // checks inside identifiers are nested negative lookaheads, which pest counts as attempts).
    let attempts = e.parse_attempts();
    let (max_pos, tokens): (usize, BTreeSet<String>) = match attempts {
        Some(a) => (
            a.max_position,
            a.expected_tokens()
                .into_iter()
                .map(|t| t.to_string())
                // Whitespace and comment starters are possible everywhere: not worth listing.
                .filter(|t| {
                    !t.starts_with(char::is_whitespace) && !matches!(t.as_str(), "/" | "//" | "/*")
                })
                .collect(),
        ),
        None => (rule_pos, BTreeSet::new()),
    };
    // Tokens made only of name characters can be fragments of the keyword check inside names;
    // punctuation (`;`, `,`, `)`...) is a reliable sign of real progress.
    let structural = tokens
        .iter()
        .filter(|t| *t != "*/")
        .any(|t| t.chars().any(|c| ";,()[]{}=:<>+-*/^".contains(c)));
    let use_tokens = max_pos == rule_pos || (max_pos > rule_pos && structural);
    let pos = if use_tokens { max_pos } else { rule_pos }.min(text.len());
    let mut expected = if use_tokens { tokens } else { BTreeSet::new() };
    // After whitespace, `.` and `[` are only the grammar's way of allowing `a . b` and `x [1]`:
    // naming them beside a real expectation (`,` in `connect(a.p b.n)`) only adds noise.
    if pos > 0
        && text.as_bytes()[pos - 1].is_ascii_whitespace()
        && expected.iter().any(|t| t != "." && t != "[")
    {
        expected.retain(|t| t != "." && t != "[");
    }
    let positives: BTreeSet<Rule> = match &e.variant {
        ErrorVariant::ParsingError { .. } if pos != rule_pos => BTreeSet::new(),
        ErrorVariant::ParsingError { positives, .. } => positives.iter().copied().collect(),
        ErrorVariant::CustomError { message } => {
            // pest's own limits ("call limit reached", "stack limit reached").
            return Diagnostic::error(
                Span::new(file, pos, pos),
                format!("the parser gave up: {message}"),
            )
            .with_help("the model is nested too deeply; split long expressions");
        }
    };
    let ctx = Context::scan(text, pos);
    let mut d = explain(text, file, pos, &positives, &expected, &ctx);
    if d.help.is_none()
        && let Some(class) = ctx.classes.last()
        && d.kind == Kind::UnexpectedEof
    {
        d = d.with_help(format!(
            "the class `{}` needs `end {};`",
            class.name, class.name
        ));
    }
    d
}

/// The parse error's site: what was found where, what the grammar expected, and the
/// surrounding context. `explain` asks its checks in turn; the first that recognises a known
/// mistake gives the message.
struct Site<'a> {
    text: &'a str,
    file: FileId,
    positives: &'a BTreeSet<Rule>,
    expected: &'a BTreeSet<String>,
    ctx: &'a Context,
    found: Tok,
    /// The found token's span.
    at: Span,
    /// Just after the previous token (where a missing `;` goes).
    after_prev: Span,
}

fn explain(
    text: &str,
    file: FileId,
    pos: usize,
    positives: &BTreeSet<Rule>,
    expected: &BTreeSet<String>,
    ctx: &Context,
) -> Diagnostic {
    let found = ctx.found.clone();
    let site = Site {
        text,
        file,
        positives,
        expected,
        ctx,
        at: Span::new(file, found.start, found.end.max(found.start)),
        after_prev: match &ctx.prev {
            Some(p) => Span::new(file, p.end, p.end),
            None => Span::new(file, pos, pos),
        },
        found,
    };
    site.lexical()
        .or_else(|| site.assignment())
        .or_else(|| site.unclosed_at_eof())
        .or_else(|| site.expression())
        .or_else(|| site.name_or_modifier())
        .or_else(|| site.class_or_block_end())
        .or_else(|| site.misplaced())
        .or_else(|| site.missing_token())
        .unwrap_or_else(|| site.unexpected())
}

impl Site<'_> {
    /// Whether the parser was at the start of an expression.
    fn in_expr_start(&self) -> bool {
        let exp = |t: &str| self.expected.contains(t);
        let has = |r: Rule| self.positives.contains(&r);
        (has(Rule::IDENT) && has(Rule::number) && has(Rule::paren_expr))
            || has(Rule::simple_expression)
            || (exp("{") && exp("0..9") && exp("("))
    }

    /// An unterminated token or a malformed number.
    fn lexical(&self) -> Option<Diagnostic> {
        let found = &self.found;
        let at = self.at;
        let file = self.file;
        let f = self.found.text.as_str();
        // Unterminated tokens: the lexer saw the opening character but no closing one.
        if found.kind == TokKind::Unterminated {
            let (what, closer) = match f.chars().next() {
                Some('"') => ("string", "\""),
                Some('\'') => ("quoted name", "'"),
                _ => ("comment", "*/"),
            };
            return Some(
                Diagnostic::error(
                    Span::new(file, found.start, found.start + closer.len().min(2)),
                    format!("unterminated {what}"),
                )
                .with_label(format!("this {what} is never closed"))
                .with_help(format!("add the closing `{closer}`")),
            );
        }

        if found.kind == TokKind::Number && found.text.matches('.').count() > 1 {
            return Some(
                Diagnostic::error(at, format!("malformed number `{f}`"))
                    .with_label("a number has at most one `.`")
                    .with_help("write e.g. `1.25` or `1.2e3`"),
            );
        }
        None
    }

    /// `=` and `:=` in the wrong section, `=` for a comparison.
    fn assignment(&self) -> Option<Diagnostic> {
        let at = self.at;
        let ctx = self.ctx;
        let f = self.found.text.as_str();
        let exp = |t: &str| self.expected.contains(t);
        let has = |r: Rule| self.positives.contains(&r);
        // `=` in an algorithm.
        if f == "=" && (has(Rule::assign_rhs) || ctx.section == Sec::Algorithm && exp(":=")) {
            return Some(
                Diagnostic::error(at, "`=` is not allowed in an algorithm: use `:=`")
                    .with_label("assignment needs `:=`")
                    .with_help(
                        "an algorithm section runs statements in order; `x := e` assigns e to x",
                    ),
            );
        }
        // `:=` in an equation section.
        if f == ":=" && ctx.section == Sec::Equation {
            return Some(
                Diagnostic::error(at, "`:=` is not allowed in an equation: use `=`")
                    .with_label("equations use `=`")
                    .with_help("use `:=` only in an `algorithm` section"),
            );
        }
        // `=` where a comparison is meant.
        if f == "=" && (exp("then") || exp("loop")) {
            return Some(
                Diagnostic::error(at, "`=` is not a comparison: use `==`")
                    .with_label("write `==` here"),
            );
        }
        None
    }

    /// The file ends inside a class.
    fn unclosed_at_eof(&self) -> Option<Diagnostic> {
        let found = &self.found;
        let at = self.at;
        let ctx = self.ctx;
        let file = self.file;
        let exp = |t: &str| self.expected.contains(t);
        // Missing `end Name;` at the end of the file.
        let after_operator = ctx
            .prev
            .as_ref()
            .is_some_and(|p| p.kind == TokKind::Punct && p.text != ";");
        if found.kind == TokKind::Eof
            && exp("end")
            && !after_operator
            && let Some(c) = ctx.classes.last()
        {
            return Some(
                Diagnostic::error(
                    at,
                    format!("unexpected end of file: expected `end {};`", c.name),
                )
                .with_kind(Kind::UnexpectedEof)
                .with_label(format!("the class `{}` is not closed", c.name))
                .with_secondary(
                    Span::new(file, c.start, c.start + c.name.len()),
                    "the class starts here",
                )
                .with_help(format!("add `end {};`", c.name)),
            );
        }
        None
    }

    /// A missing operand, chained comparisons or powers.
    fn expression(&self) -> Option<Diagnostic> {
        let found = &self.found;
        let at = self.at;
        let f = self.found.text.as_str();
        let has = |r: Rule| self.positives.contains(&r);
        let in_expr_start = self.in_expr_start();
        // Missing operand.
        if in_expr_start {
            if matches!(f, ")" | "]" | "}" | "," | ";") {
                return Some(
                    Diagnostic::error(at, format!("unexpected `{f}`: missing expression"))
                        .with_label("an expression is needed before this"),
                );
            }
            if matches!(f, "-" | "+" | ".-" | ".+") {
                return Some(
                    Diagnostic::error(at, format!("a sign `{f}` cannot follow another operator"))
                        .with_label("put the signed operand in parentheses")
                        .with_help(format!("write e.g. `2 * ({f}3)` instead of `2 * {f}3`")),
                );
            }
            if found.kind == TokKind::Eof {
                return Some(
                    Diagnostic::error(at, "unexpected end of file: missing expression")
                        .with_kind(Kind::UnexpectedEof),
                );
            }
            if found.kind == TokKind::Keyword {
                return Some(
                    Diagnostic::error(
                        at,
                        format!("unexpected keyword `{f}`: expected an expression"),
                    )
                    .with_label("an expression is needed here"),
                );
            }
            return Some(
                Diagnostic::error(
                    at,
                    format!("unexpected {}: expected an expression", found.describe()),
                )
                .with_label("an expression is needed here"),
            );
        }
        if matches!(f, "<" | "<=" | ">" | ">=" | "==" | "<>") && has(Rule::binop) {
            return Some(
                Diagnostic::error(at, "comparisons cannot be chained")
                    .with_label("second comparison")
                    .with_help("write `a < b and b < c`"),
            );
        }
        if matches!(f, "^" | ".^") && has(Rule::binop) {
            return Some(
                Diagnostic::error(at, format!("`{f}` cannot be chained: add parentheses"))
                    .with_help("write `(a ^ b) ^ c` or `a ^ (b ^ c)`"),
            );
        }
        None
    }

    /// A reserved word as a name, a malformed modifier.
    fn name_or_modifier(&self) -> Option<Diagnostic> {
        let found = &self.found;
        let at = self.at;
        let ctx = self.ctx;
        let f = self.found.text.as_str();
        let exp = |t: &str| self.expected.contains(t);
        let has = |r: Rule| self.positives.contains(&r);
        // A reserved word where a name is expected.
        if has(Rule::IDENT) && found.kind == TokKind::Keyword && !exp(f) {
            return Some(
                Diagnostic::error(
                    at,
                    format!("`{f}` is a reserved word and cannot be used as a name"),
                )
                .with_label("a name is expected here")
                .with_help(format!("rename it, e.g. `{f}_`")),
            );
        }
        // Inside a modification `( ... )`, an argument is missing or malformed.
        if exp("each") && exp("redeclare") && ctx.open_brackets > 0 {
            let what = if matches!(f, ")" | ",") {
                format!("unexpected `{f}`")
            } else {
                format!("unexpected {}", found.describe())
            };
            return Some(
                Diagnostic::error(
                    at,
                    format!("{what}: expected a modifier such as `start = 0`"),
                )
                .with_label("a modifier is expected here")
                .pipe_if(f == ")", |d| {
                    d.with_help("remove the trailing `,` or `each`/`final`")
                }),
            );
        }
        None
    }

    /// A class or block statement left open.
    fn class_or_block_end(&self) -> Option<Diagnostic> {
        let found = &self.found;
        let at = self.at;
        let ctx = self.ctx;
        let file = self.file;
        let f = self.found.text.as_str();
        let exp = |t: &str| self.expected.contains(t);
        // A new class starts while the previous one is still open.
        if matches!(ctx.section, Sec::Equation | Sec::Algorithm)
            && CLASS_KINDS.contains(&f)
            && let Some(c) = ctx.classes.last()
        {
            return Some(
                Diagnostic::error(at, format!("expected `end {};` before this `{f}`", c.name))
                    .with_label(format!("the class `{}` is not closed", c.name))
                    .with_secondary(
                        Span::new(file, c.start, c.start + c.name.len()),
                        "the class starts here",
                    )
                    .with_help(format!(
                        "add `end {};` to finish the class `{}`",
                        c.name, c.name
                    )),
            );
        }
        // `end` of a block statement/equation or of the class.
        if ctx.prev.as_ref().is_some_and(|p| p.text == "end") {
            for (kw, what) in [
                ("for", "`for` loop"),
                ("if", "`if`"),
                ("when", "`when`"),
                ("while", "`while` loop"),
            ] {
                if exp(kw) {
                    return Some(
                        Diagnostic::error(at, format!("expected `end {kw};` to close the {what}"))
                            .with_label(format!("found {}", found.describe())),
                    );
                }
            }
            if let Some(c) = ctx.classes.last() {
                return Some(
                    Diagnostic::error(at, format!("expected `end {};`", c.name))
                        .with_label(format!("found {}", found.describe()))
                        .with_help(format!(
                            "the class `{}` must end with `end {};`",
                            c.name, c.name
                        )),
                );
            }
        }
        None
    }

    /// A stray character, an equation among the declarations.
    fn misplaced(&self) -> Option<Diagnostic> {
        let found = &self.found;
        let at = self.at;
        let ctx = self.ctx;
        let f = self.found.text.as_str();
        if found.kind == TokKind::Other {
            return Some(
                Diagnostic::error(at, format!("unexpected character {}", found.describe()))
                    .with_label("not part of Modelica's syntax"),
            );
        }
        // An equation among the declarations.
        if ctx.section == Sec::Elements
            && ctx.open_brackets == 0
            && matches!(f, "=" | ":=")
            && ctx.prev.as_ref().is_some_and(|p| p.kind == TokKind::Ident)
        {
            return Some(
                Diagnostic::error(
                    at,
                    format!("unexpected `{f}`: a declaration needs a type and a name"),
                )
                .with_label("equations are not allowed among the declarations")
                .with_help("put equations after the keyword `equation`"),
            );
        }
        None
    }

    /// A missing keyword, `;` or closing bracket, or the end of the file.
    fn missing_token(&self) -> Option<Diagnostic> {
        let found = &self.found;
        let at = self.at;
        let after_prev = self.after_prev;
        let ctx = self.ctx;
        let expected = self.expected;
        let positives = self.positives;
        let exp = |t: &str| self.expected.contains(t);
        if exp("then") && !exp(";") {
            return Some(
                Diagnostic::error(
                    at,
                    format!(
                        "expected `then` after the condition, found {}",
                        found.describe()
                    ),
                )
                .with_label("`then` expected here"),
            );
        }
        if exp("loop") && !exp(";") {
            return Some(
                Diagnostic::error(at, format!("expected `loop`, found {}", found.describe()))
                    .with_label("`loop` expected here")
                    .with_help("write `for i in 1:n loop ... end for;`"),
            );
        }
        // Missing `;`.
        if exp(";") {
            let what = ctx.construct();
            let mut d = Diagnostic::error(after_prev, format!("expected `;` after {what}"))
                .with_label("add `;` here");
            if found.kind == TokKind::Ident && found.line_starts_before {
                d = d.with_secondary(
                    at,
                    format!(
                        "the next {} starts here",
                        what.split(' ').next_back().unwrap_or("part")
                    ),
                );
            } else if found.kind != TokKind::Eof {
                d = d.with_secondary(at, format!("unexpected {}", found.describe()));
            }
            return Some(d);
        }
        if exp(")") && !exp("]") && !exp("}") {
            return Some(
                Diagnostic::error(at, format!("expected `)`, found {}", found.describe()))
                    .with_label("unclosed parenthesis or missing `,`"),
            );
        }
        if exp("]") && !exp(")") {
            return Some(
                Diagnostic::error(at, format!("expected `]`, found {}", found.describe()))
                    .with_label("unclosed `[`"),
            );
        }
        if exp("}") && !exp(")") {
            return Some(
                Diagnostic::error(at, format!("expected `}}`, found {}", found.describe()))
                    .with_label("unclosed `{`"),
            );
        }
        if found.kind == TokKind::Eof {
            return Some(
                Diagnostic::error(
                    at,
                    format!(
                        "unexpected end of file: expected {}",
                        list(expected, positives)
                    ),
                )
                .with_kind(Kind::UnexpectedEof),
            );
        }
        None
    }

    /// The general message: what was found and what was expected instead.
    fn unexpected(&self) -> Diagnostic {
        let found = &self.found;
        let at = self.at;
        let ctx = self.ctx;
        let text = self.text;
        let expected = self.expected;
        let positives = self.positives;
        let f = self.found.text.as_str();
        let exp = |t: &str| self.expected.contains(t);
        let class_expected = exp("model") && exp("package");
        let wanted = if class_expected
            && ctx.open_brackets == 0
            && matches!(ctx.section, Sec::Top | Sec::Elements)
        {
            if ctx.section == Sec::Top {
                "a class definition (`model`, `package`, `function`, ...)".to_string()
            } else {
                "a declaration (`Real x;`, `model M ... end M;`, ...)".to_string()
            }
        } else {
            list(expected, positives)
        };
        let keywords: Vec<&str> = expected
            .iter()
            .map(String::as_str)
            .filter(|t| KEYWORDS.contains(t))
            .collect();
        // A typo of a keyword: close in spelling, or the same letters swapped (`modle`).
        let anagram = |k: &&str| {
            let (mut a, mut b): (Vec<char>, Vec<char>) = (f.chars().collect(), k.chars().collect());
            a.sort_unstable();
            b.sort_unstable();
            a == b
        };
        let suggestion = (found.kind == TokKind::Ident)
            .then(|| {
                crate::diag::closest_name(f, keywords.iter().copied())
                    .or_else(|| keywords.iter().copied().find(anagram))
            })
            .flatten();
        Diagnostic::error(
            at,
            format!("unexpected {}: expected {wanted}", found.describe()),
        )
        .with_label("not expected here")
        .pipe_if(suggestion.is_some(), |d| {
            d.with_help(format!(
                "did you mean `{}`?",
                suggestion.unwrap_or_default()
            ))
        })
        .with_note(match ctx.section {
            Sec::Equation => "this is in an equation section",
            Sec::Algorithm => "this is in an algorithm section",
            Sec::Elements => "this is in a declaration section",
            Sec::Top => "this is at the top level of the file",
        })
        .pipe_if(text.is_empty(), |d| d.with_help("the file is empty"))
    }
}

trait PipeIf: Sized {
    fn pipe_if(self, cond: bool, f: impl FnOnce(Self) -> Self) -> Self {
        if cond { f(self) } else { self }
    }
}
impl PipeIf for Diagnostic {}

/// The expected tokens as prose: "`;`, `=` or a name".
fn list(expected: &BTreeSet<String>, positives: &BTreeSet<Rule>) -> String {
    let mut items: Vec<String> = Vec::new();
    let mut name = false;
    let mut number = false;
    for t in expected {
        match t.as_str() {
            "a..z" | "A..Z" | "_" | "'" => name = true,
            "0..9" => number = true,
            "\"" => items.push("a string".into()),
            _ => items.push(format!("`{t}`")),
        }
    }
    if expected.is_empty() {
        for r in positives {
            let phrase = rule_phrase(*r);
            if !phrase.is_empty() && !items.iter().any(|i| i == phrase) {
                items.push(phrase.to_string());
            }
        }
    }
    if name {
        items.push("a name".into());
    }
    if number {
        items.push("a number".into());
    }
    items.dedup();
    if items.len() > 8 {
        items.truncate(8);
        return format!("{}, ...", items.join(", "));
    }
    match items.len() {
        0 => "something else".into(),
        1 => items.remove(0),
        n => format!("{} or {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

fn rule_phrase(r: Rule) -> &'static str {
    match r {
        Rule::IDENT => "a name",
        Rule::number => "a number",
        Rule::STRING => "a string",
        Rule::modification => "a modification",
        Rule::array_subscripts => "`[`",
        Rule::function_call_args => "`(`",
        Rule::kw_end => "`end`",
        Rule::equation => "an equation",
        Rule::statement => "a statement",
        Rule::element => "a declaration",
        Rule::class_definition | Rule::top_class => "a class definition",
        Rule::kw_annotation => "`annotation`",
        _ => "",
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TokKind {
    Ident,
    Keyword,
    Number,
    Str,
    Punct,
    Unterminated,
    Other,
    Eof,
}

#[derive(Clone, Debug)]
struct Tok {
    kind: TokKind,
    start: usize,
    end: usize,
    text: String,
    /// The token is the first on its line (a missing `;` is then at the end of the line before).
    line_starts_before: bool,
}

impl Tok {
    fn describe(&self) -> String {
        match self.kind {
            TokKind::Eof => "end of file".into(),
            TokKind::Str => "a string".into(),
            TokKind::Number => format!("number `{}`", self.text),
            TokKind::Keyword => format!("keyword `{}`", self.text),
            TokKind::Ident => format!("`{}`", self.text),
            _ => format!("`{}`", self.text),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sec {
    Top,
    Elements,
    Equation,
    Algorithm,
}

#[derive(Clone, Debug)]
struct OpenClass {
    name: String,
    start: usize,
    section: Sec,
}

/// What the text says about the place of the error.
struct Context {
    /// The token at the error position.
    found: Tok,
    /// The token before it.
    prev: Option<Tok>,
    /// Classes opened and not yet closed before the error (innermost last).
    classes: Vec<OpenClass>,
    section: Sec,
    /// First token of the declaration/equation/statement the error is in.
    first: Option<Tok>,
    /// Brackets open at the error position.
    open_brackets: usize,
}

const KEYWORDS: &[&str] = &[
    "algorithm",
    "and",
    "annotation",
    "block",
    "break",
    "class",
    "connect",
    "connector",
    "constant",
    "constrainedby",
    "discrete",
    "each",
    "else",
    "elseif",
    "elsewhen",
    "encapsulated",
    "end",
    "enumeration",
    "equation",
    "expandable",
    "extends",
    "external",
    "false",
    "final",
    "flow",
    "for",
    "function",
    "if",
    "import",
    "impure",
    "in",
    "initial",
    "inner",
    "input",
    "loop",
    "model",
    "not",
    "operator",
    "or",
    "outer",
    "output",
    "package",
    "parameter",
    "partial",
    "protected",
    "public",
    "pure",
    "record",
    "redeclare",
    "replaceable",
    "return",
    "stream",
    "then",
    "true",
    "type",
    "when",
    "while",
    "within",
];
/// The words that start a class definition (also read by `skeleton.rs`).
pub(super) const CLASS_KINDS: &[&str] = &[
    "class",
    "model",
    "record",
    "block",
    "connector",
    "type",
    "package",
    "function",
    "operator",
];

impl Context {
    fn scan(text: &str, pos: usize) -> Context {
        let mut lx = Lexer { text, i: 0 };
        let mut toks: Vec<Tok> = Vec::new();
        let found = loop {
            let t = lx.next();
            if t.kind == TokKind::Eof || t.end > pos || t.start >= pos {
                break t;
            }
            toks.push(t);
        };
        let mut classes: Vec<OpenClass> = Vec::new();
        let mut section = Sec::Top;
        let mut first_idx: Option<usize> = None;
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            let next = toks.get(i + 1);
            let next2 = toks.get(i + 2);
            match t.text.as_str() {
                kw if CLASS_KINDS.contains(&kw) => {
                    // `model Name` opens a class unless it is a short class `model Name = ...`
                    // or the partial application `function f(...)`.
                    let name_tok = match next {
                        Some(n) if n.text == "extends" => next2,
                        other => other,
                    };
                    if let Some(n) = name_tok
                        && matches!(n.kind, TokKind::Ident)
                    {
                        let offset = usize::from(next.is_some_and(|x| x.text == "extends"));
                        let after = toks.get(i + 2 + offset);
                        if !after.is_some_and(|a| a.text == "=" || a.text == "(") {
                            classes.push(OpenClass {
                                name: n.text.clone(),
                                start: n.start,
                                section,
                            });
                            section = Sec::Elements;
                            first_idx = None;
                            i += 2 + offset;
                            continue;
                        }
                    }
                }
                "end" => {
                    if let Some(n) = next
                        && n.kind == TokKind::Ident
                    {
                        if let Some(c) = classes.pop() {
                            section = c.section;
                        }
                        i += 2;
                        continue;
                    }
                }
                "equation" => {
                    section = Sec::Equation;
                    first_idx = None;
                    i += 1;
                    continue;
                }
                "algorithm" => {
                    section = Sec::Algorithm;
                    first_idx = None;
                    i += 1;
                    continue;
                }
                "public" | "protected" => {
                    section = Sec::Elements;
                    first_idx = None;
                    i += 1;
                    continue;
                }
                ";" => {
                    first_idx = None;
                    i += 1;
                    continue;
                }
                _ => {}
            }
            if first_idx.is_none() {
                first_idx = Some(i);
            }
            i += 1;
        }
        let first = first_idx.and_then(|i| toks.get(i).cloned());
        let mut depth = 0usize;
        for t in &toks[first_idx.unwrap_or(toks.len())..] {
            match t.text.as_str() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        Context {
            found,
            prev: toks.last().cloned(),
            classes,
            section,
            first,
            open_brackets: depth,
        }
    }

    /// "the component declaration", "the equation"... for "expected `;` after ...".
    fn construct(&self) -> String {
        let first = self.first.as_ref().map(|t| t.text.as_str()).unwrap_or("");
        match (self.section, first) {
            (_, "import") => "the import".into(),
            (_, "extends") => "the `extends` clause".into(),
            (_, "annotation") => "the annotation".into(),
            (_, "external") => "the external clause".into(),
            (Sec::Top, "within") => "the `within` clause".into(),
            (Sec::Top, _) => "the class definition".into(),
            (Sec::Elements, kw) if CLASS_KINDS.contains(&kw) => "the class definition".into(),
            (Sec::Elements, "end") => "the class definition".into(),
            (Sec::Elements, _) => "the component declaration".into(),
            (Sec::Equation, "end") => "`end ...`".into(),
            (Sec::Equation, _) => "the equation".into(),
            (Sec::Algorithm, "end") => "`end ...`".into(),
            (Sec::Algorithm, _) => "the statement".into(),
        }
    }
}

/// Just enough of a Modelica lexer to find token boundaries for messages.
struct Lexer<'t> {
    text: &'t str,
    i: usize,
}

impl Lexer<'_> {
    fn next(&mut self) -> Tok {
        let b = self.text.as_bytes();
        let mut newline = self.i == 0;
        // Skip whitespace and comments.
        loop {
            while self.i < b.len() && b[self.i].is_ascii_whitespace() {
                newline |= b[self.i] == b'\n';
                self.i += 1;
            }
            if b[self.i..].starts_with(b"//") {
                while self.i < b.len() && b[self.i] != b'\n' {
                    self.i += 1;
                }
                continue;
            }
            if b[self.i..].starts_with(b"/*") {
                match self.text[self.i + 2..].find("*/") {
                    Some(k) => {
                        newline |= self.text[self.i..self.i + 2 + k].contains('\n');
                        self.i += k + 4;
                        continue;
                    }
                    None => return self.tok(TokKind::Unterminated, self.i, b.len(), newline),
                }
            }
            break;
        }
        let start = self.i;
        if start >= b.len() {
            return self.tok(TokKind::Eof, start, start, newline);
        }
        let c = b[start];
        if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = start;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            let kind = if KEYWORDS.contains(&&self.text[start..j]) {
                TokKind::Keyword
            } else {
                TokKind::Ident
            };
            return self.tok(kind, start, j, newline);
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(start + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let mut j = start;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
                j += 1;
            }
            if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
                j += 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
            }
            return self.tok(TokKind::Number, start, j, newline);
        }
        if c == b'"' || c == b'\'' {
            let mut j = start + 1;
            while j < b.len() {
                if b[j] == b'\\' {
                    j += 2;
                    continue;
                }
                if b[j] == c {
                    let kind = if c == b'"' {
                        TokKind::Str
                    } else {
                        TokKind::Ident
                    };
                    return self.tok(kind, start, j + 1, newline);
                }
                if c == b'\'' && b[j] == b'\n' {
                    break;
                }
                j += 1;
            }
            return self.tok(TokKind::Unterminated, start, b.len().min(j), newline);
        }
        for op in [":=", "==", "<=", ">=", "<>", ".+", ".-", ".*", "./", ".^"] {
            if b[start..].starts_with(op.as_bytes()) {
                return self.tok(TokKind::Punct, start, start + 2, newline);
            }
        }
        if b"()[]{};,.=+-*/^<>:".contains(&c) {
            return self.tok(TokKind::Punct, start, start + 1, newline);
        }
        let len = self.text[start..]
            .chars()
            .next()
            .map(char::len_utf8)
            .unwrap_or(1);
        self.tok(TokKind::Other, start, start + len, newline)
    }

    fn tok(&mut self, kind: TokKind, start: usize, end: usize, newline: bool) -> Tok {
        self.i = end
            .max(start + usize::from(kind != TokKind::Eof))
            .min(self.text.len());
        let text = self.text.get(start..end).unwrap_or("").to_string();
        Tok {
            kind,
            start,
            end,
            text,
            line_starts_before: newline,
        }
    }
}
