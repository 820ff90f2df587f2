//! A stand-in for the CEL environment in the allocator's own tests: it answers exactly the
//! expression shapes the transcribed upstream cases use (a driver comparison, a capacity
//! comparison against a quantity, an undeclared variable), so the search can be tested on its
//! own. The real environment (`crate::core::dra::cel`) is tested with upstream's CEL tables.

use super::super::{PreparedDevice, SelectorEvaluator, SelectorFailure};
use crate::core::quantity::Quantity;

#[derive(Default)]
pub struct TestSelectors {
    /// How many evaluations were asked for.
    pub evaluations: usize,
}

impl SelectorEvaluator for TestSelectors {
    fn matches(&mut self, expression: &str, device: &PreparedDevice) -> Result<bool, SelectorFailure> {
        self.evaluations += 1;
        let e = expression.trim();
        if let Some(driver) = e.strip_prefix("device.driver == \"").and_then(|r| r.strip_suffix('"')) {
            return Ok(&*device.id.driver == driver);
        }
        if let Some(rest) = e.strip_prefix("device.capacity[\"") {
            // device.capacity["<domain>"].<name>.compareTo(quantity("<q>")) >= 0
            let (domain, rest) = rest.split_once("\"].").ok_or_else(|| unknown(e))?;
            let (name, rest) = rest.split_once(".compareTo(quantity(\"").ok_or_else(|| unknown(e))?;
            let (q, op) = rest.split_once("\")) ").ok_or_else(|| unknown(e))?;
            let want = Quantity::parse(q).map_err(|err| SelectorFailure::Runtime(err.to_string()))?;
            let key = format!("{domain}/{name}");
            let have = device
                .capacity
                .iter()
                .find(|(n, _)| **n == *key)
                .map(|(_, q)| *q)
                .ok_or_else(|| SelectorFailure::Runtime(format!("no such key: {name}")))?;
            let ord = have.milli_value().cmp(&want.milli_value());
            return match op {
                ">= 0" => Ok(ord.is_ge()),
                "== 0" => Ok(ord.is_eq()),
                _ => Err(unknown(e)),
            };
        }
        if e == "noSuchVar" {
            return Err(SelectorFailure::Compile(
                "ERROR: <input>:1:1: undeclared reference to 'noSuchVar' (in container '')".into(),
            ));
        }
        Err(unknown(e))
    }
}

fn unknown(expression: &str) -> SelectorFailure {
    SelectorFailure::Compile(format!("test selectors do not know {expression:?}"))
}
