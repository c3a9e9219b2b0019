//! The pest parser generated from `grammar/modelica.pest`.

use pest::Parser;
use pest::iterators::Pair;
use std::sync::Mutex;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/modelica.pest"]
pub(crate) struct ModelicaParser;

/// Serialises the slow, detailed re-parse of a failing file: pest's "error detail" switch is
/// process-wide, so it is only turned on while this lock is held.
static DETAIL_LOCK: Mutex<()> = Mutex::new(());

/// Parse a whole file into its `stored_definition` pair. On failure the file is parsed a second
/// time with pest's parse-attempt tracking on, which gives the expected tokens and the rule
/// stack at the failure point (too slow to leave on for files that parse).
pub(crate) fn parse_pairs(text: &str) -> Result<Pair<'_, Rule>, Box<pest::error::Error<Rule>>> {
    match ModelicaParser::parse(Rule::stored_definition, text) {
        Ok(mut pairs) => match pairs.next() {
            Some(p) => Ok(p),
            None => Err(Box::new(pest::error::Error::new_from_pos(
                pest::error::ErrorVariant::CustomError {
                    message: "empty parse".into(),
                },
                pest::Position::from_start(text),
            ))),
        },
        Err(fast) => {
            let _guard = DETAIL_LOCK.lock().unwrap_or_else(|p| p.into_inner());
            pest::set_error_detail(true);
            let detailed = ModelicaParser::parse(Rule::stored_definition, text);
            pest::set_error_detail(false);
            match detailed {
                Err(e) => Err(Box::new(e)),
                Ok(_) => Err(Box::new(fast)),
            }
        }
    }
}
