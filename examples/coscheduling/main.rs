//! A custom edgesched with gang scheduling: the shipped command line plus the Coscheduling plugin
//! of `coscheduling.rs`. Enable it in a profile (`multiPoint: {enabled: [{name: Coscheduling}]}`).

mod coscheduling;

fn main() {
    let builder = edgesched::plugin::Builder::new().with_plugin_args(coscheduling::NAME, coscheduling::Coscheduling::new);
    std::process::exit(builder.run());
}
