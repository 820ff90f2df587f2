//! SchedulingGates (pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go): a pod
//! with `spec.schedulingGates` waits outside the active queue until every gate is removed.

use crate::core::framework::{EventMask, Plugin, Points, Rejection};
use crate::core::model::PodInfo;

pub struct SchedulingGates;

impl Plugin for SchedulingGates {
    fn name(&self) -> &'static str {
        super::names::SCHEDULING_GATES
    }

    fn points(&self) -> Points {
        Points { pre_enqueue: true, ..Default::default() }
    }

    fn events(&self) -> EventMask {
        EventMask::POD_UPDATE
    }

    fn pre_enqueue(&self, _cache: &crate::core::cache::Cache, pod: &PodInfo) -> Result<(), Rejection> {
        if pod.scheduling_gates.is_empty() {
            return Ok(());
        }
        let gates: Vec<&str> = pod.scheduling_gates.iter().map(|g| &**g).collect();
        Err(Rejection::unresolvable(crate::core::texts::scheduling_gates::waiting_for_gates(&gates)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api;
    use crate::core::model::NoPriorityClasses;

    #[test]
    fn gated_pods_wait() {
        // scheduling_gates_test.go: "pod with gates" / "pod without gates".
        let mut p = api::Pod::default();
        assert!(SchedulingGates
            .pre_enqueue(&crate::core::cache::Cache::new(), &PodInfo::from_api(&p, &NoPriorityClasses))
            .is_ok());
        p.spec.scheduling_gates =
            vec![api::PodSchedulingGate { name: "foo".into() }, api::PodSchedulingGate { name: "bar".into() }];
        let r = SchedulingGates
            .pre_enqueue(&crate::core::cache::Cache::new(), &PodInfo::from_api(&p, &NoPriorityClasses))
            .expect_err("gated");
        assert_eq!(r.message(), "waiting for scheduling gates: [foo bar]");
    }
}
