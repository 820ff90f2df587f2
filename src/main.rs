//! The `edgesched` binary: the command line lives in [`edgesched::shell::app`], shared with
//! custom builds that add plugins ([`edgesched::plugin::Builder`]).

use edgesched::shell::process::alloc::SlabAlloc;

/// Small blocks are kept on free lists for reuse instead of musl's allocator handing their
/// pages back to the kernel and mapping them again (see [`edgesched::shell::process::alloc`]).
#[global_allocator]
static ALLOCATOR: SlabAlloc = SlabAlloc::new();

fn main() {
    std::process::exit(edgesched::shell::app::main());
}
