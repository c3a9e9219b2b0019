//! Arbitrary text through parse -> flatten -> structure -> a short simulation.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        minimo_fuzz::pipeline(text);
    }
});
