//! PrioritySort (pkg/scheduler/framework/plugins/queuesort/priority_sort.go): the queue order.
//! Higher `spec.priority` first; on equal priority, the pod that entered the queue earlier.

use crate::core::framework::{Plugin, Points};

pub struct PrioritySort;

impl Plugin for PrioritySort {
    fn name(&self) -> &'static str {
        super::names::PRIORITY_SORT
    }

    fn points(&self) -> Points {
        Points { queue_sort: true, ..Default::default() }
    }
}

/// `PrioritySort.Less`: `a` is scheduled before `b`. Timestamps are queue-entry times (any
/// monotonic unit); ties are broken by the caller's insertion sequence.
pub fn less(a_priority: i32, a_timestamp: u128, b_priority: i32, b_timestamp: u128) -> bool {
    a_priority > b_priority || (a_priority == b_priority && a_timestamp < b_timestamp)
}

#[cfg(test)]
mod tests {
    use super::less;

    #[test]
    fn higher_priority_then_older() {
        // priority_sort_test.go: "p1.priority less than p2.priority" / "equal priority, p1 added earlier".
        assert!(!less(1, 0, 2, 0));
        assert!(less(2, 5, 1, 0));
        assert!(less(1, 1, 1, 2));
        assert!(!less(1, 2, 1, 1));
    }
}
