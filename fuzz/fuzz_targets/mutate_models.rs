//! Structure-aware: the input picks a valid model (examples/, tests/) and a list of token-level
//! edits; the edited model goes through the whole pipeline.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = minimo_fuzz::mutate(data);
    minimo_fuzz::pipeline(&text);
});
