//! The `edgesched` binary: the command line lives in [`edgesched::shell::app`], shared with
//! custom builds that add plugins ([`edgesched::plugin::Builder`]).

fn main() {
    std::process::exit(edgesched::shell::app::main());
}
