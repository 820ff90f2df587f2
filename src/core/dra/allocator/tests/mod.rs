//! The allocator's tests: upstream's shared allocator table transcribed ([`upstream`]), and
//! edgesched's own cases for the search order, backtracking and `All` mode ([`own`]). Selectors
//! are evaluated by the real CEL environment ([`crate::core::dra::cel`]).

mod harness;
mod own;
mod upstream;
