//! The `edgesched` binary: the command line lives in [`edgesched::shell::app`], shared with
//! custom builds that add plugins ([`edgesched::plugin::Builder`]).

/// Small blocks are kept on free lists for reuse instead of musl's allocator handing their
/// pages back to the kernel and mapping them again (see [`edgesched::shell::process::alloc`]).
#[cfg(not(feature = "mimalloc"))]
#[global_allocator]
static ALLOCATOR: edgesched::shell::process::alloc::SlabAlloc = edgesched::shell::process::alloc::SlabAlloc::new();

/// `--features mimalloc`: a well-kept crate allocator in its place, built only to measure the two
/// side by side (docs/dependencies.md has the figures and the decision).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(edgesched::shell::app::main());
}
