//! The `edgesched` binary: command-line parsing and wiring only.

fn main() {
    println!("edgesched {}", env!("CARGO_PKG_VERSION"));
}
