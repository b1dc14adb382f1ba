#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| code_mode_fuzz::oom::run(data));
