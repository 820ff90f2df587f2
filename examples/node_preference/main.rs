//! A custom edgesched that prefers nodes by a label — e.g. the zone or the measured latency class
//! of edge sites — through the Score plugin of `node_preference.rs`.

mod node_preference;

fn main() {
    let builder = edgesched::plugin::Builder::new().with_plugin_args(node_preference::NAME, node_preference::NodePreference::new);
    std::process::exit(builder.run());
}
