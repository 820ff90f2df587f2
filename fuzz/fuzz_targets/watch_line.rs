//! The watch-event line decoder, for the object types the scheduler watches, followed by the
//! conversion into the scheduler's compact records (quantities, taints, tolerations, labels).
#![no_main]

use edgesched::core::api::{Node, Pod};
use edgesched::shell::kube::watch_stream::{decode_watch_line, WatchEvent};
use edgesched::core::model::{NoPriorityClasses, NodeSpecInfo, PodInfo};
use libfuzzer_sys::fuzz_target;

fn object<T>(event: WatchEvent<T>) -> Option<T> {
    match event {
        WatchEvent::Added(o) | WatchEvent::Modified(o) | WatchEvent::Deleted(o) => Some(o),
        WatchEvent::Bookmark { .. } | WatchEvent::Error(_) => None,
    }
}

fuzz_target!(|line: &[u8]| {
    if let Ok(pod) = decode_watch_line::<Pod>(line) {
        if let Some(pod) = object(pod) {
            let info = PodInfo::from_api(&pod, &NoPriorityClasses);
            let _ = info.unschedulable_reason();
            let _ = info.requests_or_default();
        }
    }
    if let Ok(node) = decode_watch_line::<Node>(line) {
        if let Some(node) = object(node) {
            let _ = NodeSpecInfo::from_api(&node);
        }
    }
});
