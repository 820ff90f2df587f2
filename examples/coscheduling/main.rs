//! A custom edgesched with gang scheduling: the shipped command line plus the Coscheduling plugin
//! of `coscheduling.rs`, which reads scheduler-plugins' `PodGroup` objects (declared here, so the
//! scheduler lists and watches `podgroups.scheduling.x-k8s.io`). Enable it in a profile
//! (`multiPoint: {enabled: [{name: Coscheduling}]}`); the CRD and the RBAC it needs are in
//! `manifests/`.

mod coscheduling;

fn main() {
    let builder = edgesched::plugin::Builder::new()
        .with_plugin_args(coscheduling::NAME, coscheduling::Coscheduling::new)
        .with_custom_resource(coscheduling::NAME, coscheduling::pod_group_resource());
    std::process::exit(builder.run());
}
