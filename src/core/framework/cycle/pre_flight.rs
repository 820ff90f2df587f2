//! PreBindPreFlight (upstream `RunPreBindPreFlights` in pkg/scheduler/framework/runtime/
//! framework.go, v1.35, called by `bindingCycle` in pkg/scheduler/schedule_one.go at commit
//! 003b4460edb52bc9a9fe6cf54294e5b3e4681610): whether any PreBind plugin has work for the pod on
//! its chosen node. Upstream asks at the start of the binding cycle; every answer depends only on
//! what the scheduling cycle decided, so edgesched asks right after Permit, where the core still
//! holds the pod and the planned writes.

use crate::core::cache::Cache;
use crate::core::framework::instrument::{point, status_label, CycleRecorder, Rec, SKIP};
use crate::core::framework::{Framework, PreBindAction, PreFlight};
use crate::core::model::PodInfo;

impl Framework {
    /// RunPreBindPreFlights: [`PreFlight::Work`] when one or more PreBind plugins have work,
    /// [`PreFlight::Skip`] when all skip (so also without PreBind plugins), and the plugins that
    /// skipped (upstream `SetSkipPreBindPlugins`: their PreBind does not run; listed when the
    /// profile has out-of-tree binding-cycle plugins, the only ones the binder calls). Records the
    /// extension point (`Success` / `Skip`) and, in sampled cycles, each plugin's call.
    pub fn run_pre_bind_pre_flights(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        node: &str,
        planned: &[PreBindAction],
        recorder: Option<&CycleRecorder<'_>>,
    ) -> (PreFlight, Vec<&'static str>) {
        let rec = Rec(recorder);
        let start = rec.start();
        let mut result = PreFlight::Skip;
        let mut skipped = Vec::new();
        for &i in &self.pre_bind {
            let pl = &self.plugins[i];
            let answer = rec.plugin(
                i,
                pl.name(),
                point::PRE_BIND_PRE_FLIGHT,
                || pl.pre_bind_pre_flight(cache, pod, node, planned),
                |a| label(*a),
            );
            match answer {
                PreFlight::Work => result = PreFlight::Work,
                // Only out-of-tree PreBind plugins are called at PreBind: an in-tree one that
                // skips has no planned write anyway (and the common profile allocates nothing).
                PreFlight::Skip if self.binding.is_some() => skipped.push(pl.name()),
                PreFlight::Skip => {}
            }
        }
        rec.point(point::PRE_BIND_PRE_FLIGHT, label(result), start);
        (result, skipped)
    }
}

/// The status label of an answer (`fwk.Code.String()`: a nil status is `Success`).
fn label(answer: PreFlight) -> &'static str {
    match answer {
        PreFlight::Work => status_label(None),
        PreFlight::Skip => SKIP,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config;
    use crate::core::framework::plugins::test_util::PodBuilder;
    use crate::core::framework::plugins::PluginContext;
    use crate::core::framework::registry::{Factory, Registry};
    use crate::core::framework::{Plugin, Points};
    use std::sync::Arc;

    /// A PreBind plugin answering `answer` at PreBindPreFlight.
    struct Answers {
        name: &'static str,
        answer: PreFlight,
    }

    impl Plugin for Answers {
        fn name(&self) -> &'static str {
            self.name
        }
        fn points(&self) -> Points {
            Points { pre_bind: true, ..Default::default() }
        }
        fn pre_bind_pre_flight(&self, _: &Cache, _: &PodInfo, _: &str, _: &[PreBindAction]) -> PreFlight {
            self.answer
        }
    }

    /// A framework whose only PreBind plugins are `plugins`, in order.
    fn framework(plugins: &[(&'static str, PreFlight)]) -> Framework {
        let mut registry = Registry::default();
        let mut enabled = String::new();
        for &(name, answer) in plugins {
            let f: Factory = Arc::new(move |_| Ok(Arc::new(Answers { name, answer }) as Arc<dyn Plugin>));
            registry.register(name, f).expect("register");
            enabled.push_str(&format!("      - name: {name}\n"));
        }
        let yaml = format!(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: s\n  plugins:\n    preBind:\n      disabled:\n      - name: '*'\n      enabled:\n{enabled}"
        );
        let yaml = if plugins.is_empty() { yaml.replace("      enabled:\n", "") } else { yaml };
        let cfg = config::load_str(&yaml, "test").expect("config").config;
        Framework::new(&cfg.profiles[0], &PluginContext { registry, features: Default::default() }).expect("profile")
    }

    #[test]
    fn pre_bind_pre_flight_plugins() {
        // pkg/scheduler/framework/runtime/framework_test.go TestPreBindPreFlightPlugins (v1.35):
        // the cases without an error status (a plugin here cannot fail its PreBindPreFlight).
        use PreFlight::{Skip, Work};
        /// (name, plugins with their answers, the answer, the plugins skipped)
        type Case<'a> = (&'a str, &'a [(&'static str, PreFlight)], PreFlight, &'a [&'a str]);
        let cases: [Case<'_>; 3] = [
            ("Skip when there's no PreBind Plugin", &[], Skip, &[]),
            (
                "Success when PreBindPreFlight returns Success",
                &[("TestPlugin1", Skip), ("TestPlugin2", Work)],
                Work,
                &["TestPlugin1"],
            ),
            (
                "Skip when all PreBindPreFlight returns Skip",
                &[("TestPlugin1", Skip), ("TestPlugin2", Skip)],
                Skip,
                &["TestPlugin1", "TestPlugin2"],
            ),
        ];
        let cache = Cache::new();
        let pod = PodBuilder::new("p").info();
        for (name, plugins, want, skipped) in cases {
            let fw = framework(plugins);
            let (got, got_skipped) = fw.run_pre_bind_pre_flights(&cache, &pod, "n1", &[], None);
            assert_eq!(got, want, "{name}");
            assert_eq!(got_skipped, skipped, "{name}");
        }
    }
}
