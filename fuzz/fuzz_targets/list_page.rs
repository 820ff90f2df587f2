//! The list-page decoder (one object at a time, Go's null rules) for the kinds the scheduler
//! lists most, followed by the conversion into the scheduler's compact records. Whatever the
//! bytes: no panic; a page that decodes accounts for every element of its `items` (decoded, or
//! reported as undecodable); every decoded object has a name and survives a round trip.
#![no_main]

use edgesched::core::api::{Node, Object, Pod};
use edgesched::core::gojson;
use edgesched::core::model::{NoPriorityClasses, NodeSpecInfo, PodInfo};
use edgesched::shell::kube::decode::{decode_list, ListPage};
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;

/// The number of elements of the body's `items` array, when the body is a JSON object.
fn item_count(body: &[u8]) -> Option<usize> {
    #[derive(serde::Deserialize)]
    struct Items<'a> {
        #[serde(borrow, default)]
        items: Option<Vec<&'a RawValue>>,
    }
    let text = String::from_utf8_lossy(body);
    serde_json::from_str::<Items<'_>>(&text).ok().map(|i| i.items.map_or(0, |v| v.len()))
}

fn check<T: DeserializeOwned + Serialize + Object + 'static>(body: &[u8]) -> Option<ListPage<T>> {
    let page = decode_list::<T>(body).ok()?;
    if let Some(n) = item_count(body) {
        assert_eq!(page.items.len() + page.undecodable.len(), n, "every item is accounted for");
    }
    for obj in &page.items {
        assert!(!obj.name().is_empty());
        let again = serde_json::to_string(obj).expect("encodes");
        let back: T = gojson::from_str(&again).expect("a decoded object decodes again");
        assert_eq!(back.name(), obj.name());
    }
    Some(page)
}

fuzz_target!(|body: &[u8]| {
    if let Some(page) = check::<Pod>(body) {
        for pod in &page.items {
            let info = PodInfo::from_api(pod, &NoPriorityClasses);
            let _ = info.unschedulable_reason();
            let _ = info.requests_or_default();
        }
    }
    if let Some(page) = check::<Node>(body) {
        for node in &page.items {
            let _ = NodeSpecInfo::from_api(node);
        }
    }
});
