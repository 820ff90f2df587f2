//! The allocator of the shipped binary (`src/shell/process/alloc.rs`), compiled alone: the same
//! source file, so its unit tests (free lists, class arithmetic, realloc across classes, blocks
//! freed on other threads, the multi-threaded stress test) run under Miri and the sanitizers,
//! which the whole scheduler (TLS, CEL, C code in `ring`) could not run under in reasonable time.
#![deny(unsafe_op_in_unsafe_fn)]

#[path = "../../src/shell/process/alloc.rs"]
pub mod alloc;
