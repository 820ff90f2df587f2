//! The allocator's tests: upstream's shared allocator table transcribed ([`upstream`]), and
//! edgesched's own cases for the search order, backtracking and `All` mode ([`own`]).

mod harness;
mod own;
mod selectors;
mod upstream;
