//! A custom edgesched whose binding cycle is extended by the `Handoff` plugin of `handoff.rs`:
//! PreBind reads the live pod and holds pods marked for it, Bind binds the pods it owns itself
//! (the DefaultBinder binds the others), PostBind reports each binding.

mod handoff;

fn main() {
    let builder = edgesched::plugin::Builder::new().with_plugin(handoff::NAME, || handoff::Handoff);
    std::process::exit(builder.run());
}
