//! The search (upstream `Allocator.Allocate`, `validateDeviceRequest`, `allocateOne`,
//! `isSelectable`, `selectorsMatch`, `allocateDevice`; allocator_stable.go, kubernetes/kubernetes
//! v1.35): claims in order, their requests in order, each request's devices one after another,
//! each device tried from the pools in order (slices in order, devices in slice order), with
//! backtracking on a dead end. The first complete solution wins. A request with
//! `firstAvailable` tries its subrequests in order; results over the 32-device limit of a claim
//! make the search give up on the current branch early. Device/request matches are cached for
//! the call.

use super::constraint::MatchAttribute;
use super::pools::{self, GatherError, Pool};
use super::prepared::{DeviceId, NodeRef, PreparedDevice};
use super::{AllocError, Allocator, Deadline, SelectorEvaluator, SelectorFailure};
use crate::core::api::{self, DeviceClass, DeviceSelector, DeviceToleration, ExactDeviceRequest};
// Unseeded: keyed by device ids (names DRA drivers publish) and indices the search hands out.
use crate::core::fxhash::FxHashMap;
use crate::core::texts::dra_allocator::{self as texts, SelectorOwner};

const MAX_DEVICES: i64 = api::ALLOCATION_RESULTS_MAX_SIZE as i64;

/// A request with no `exactly` and no `firstAvailable` (never stored by the API server): read as
/// an exact request without a class, which is refused as upstream refuses a missing class name.
static NO_REQUEST: ExactDeviceRequest = ExactDeviceRequest {
    device_class_name: String::new(),
    selectors: Vec::new(),
    allocation_mode: String::new(),
    count: 0,
    admin_access: None,
    tolerations: Vec::new(),
    capacity: None,
};

/// A request or subrequest (upstream `requestAccessor`).
#[derive(Debug, Clone, Copy)]
pub(super) enum Request<'c> {
    Exact { name: &'c str, request: &'c ExactDeviceRequest },
    Sub(&'c api::DeviceSubRequest),
}

impl<'c> Request<'c> {
    fn exact(request: &'c api::DeviceRequest) -> Request<'c> {
        Request::Exact { name: &request.name, request: request.exactly.as_ref().unwrap_or(&NO_REQUEST) }
    }
    pub(super) fn name(&self) -> &'c str {
        match self {
            Request::Exact { name, .. } => name,
            Request::Sub(s) => &s.name,
        }
    }
    fn class_name(&self) -> &'c str {
        match self {
            Request::Exact { request, .. } => &request.device_class_name,
            Request::Sub(s) => &s.device_class_name,
        }
    }
    fn mode(&self) -> &'c str {
        match self {
            Request::Exact { request, .. } => &request.allocation_mode,
            Request::Sub(s) => &s.allocation_mode,
        }
    }
    fn count(&self) -> i64 {
        match self {
            Request::Exact { request, .. } => request.count,
            Request::Sub(s) => s.count,
        }
    }
    fn admin_access(&self) -> bool {
        match self {
            Request::Exact { request, .. } => request.admin_access.unwrap_or(false),
            Request::Sub(_) => false,
        }
    }
    fn has_admin_access(&self) -> bool {
        match self {
            Request::Exact { request, .. } => request.admin_access.is_some(),
            Request::Sub(_) => false,
        }
    }
    fn selectors(&self) -> &'c [DeviceSelector] {
        match self {
            Request::Exact { request, .. } => &request.selectors,
            Request::Sub(s) => &s.selectors,
        }
    }
    pub(super) fn tolerations(&self) -> &'c [DeviceToleration] {
        match self {
            Request::Exact { request, .. } => &request.tolerations,
            Request::Sub(s) => &s.tolerations,
        }
    }
}

/// A device of a pool: its slice (index into the [`super::SliceIndex`]) and place in the slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct DeviceRef {
    pub slice: u32,
    pub device: u32,
}

/// What was learned about one request or subrequest before the search (`requestData`).
pub(super) struct RequestData<'c> {
    pub request: Request<'c>,
    /// The name of the request holding this subrequest.
    pub parent: Option<&'c str>,
    pub class: &'c DeviceClass,
    /// How many devices (Go's `int`: a negative count allocates none).
    pub num_devices: i64,
    /// For `All`: the devices, decided up front.
    pub all_devices: Vec<DeviceRef>,
}

impl RequestData<'_> {
    /// `request` or `request/subrequest`.
    pub fn request_name(&self) -> String {
        match self.parent {
            Some(parent) => format!("{parent}/{}", self.request.name()),
            None => self.request.name().to_string(),
        }
    }
}

/// One top-level request: its data (one entry, or one per subrequest) and the subrequest picked.
pub(super) struct RequestEntry<'c> {
    pub subs: Vec<RequestData<'c>>,
    pub has_subrequests: bool,
    pub selected: usize,
}

/// One device in a claim's result so far.
#[derive(Debug, Clone)]
pub(super) struct DeviceResult {
    pub request: usize,
    pub sub: usize,
    pub device: DeviceRef,
    pub admin_access: bool,
}

/// Position in the search (`deviceIndices`).
#[derive(Debug, Clone, Copy, Default)]
struct At {
    claim: usize,
    request: usize,
    sub: usize,
    device: i64,
}

/// Why a search branch ends without a result.
enum Stop {
    /// `errAllocationResultMaxSizeExceeded`: the claim would exceed the device limit.
    MaxSize,
    Error(AllocError),
}

impl From<AllocError> for Stop {
    fn from(e: AllocError) -> Stop {
        Stop::Error(e)
    }
}

/// The state of one `Allocate` call. `'s` is the life of the inputs, `'m` the evaluator's.
pub(super) struct Search<'s, 'm> {
    pub alloc: &'s Allocator<'s>,
    node: NodeRef<'s>,
    pub claims: &'s [&'s api::ResourceClaim],
    pub pools: Vec<Pool>,
    selectors: &'m mut dyn SelectorEvaluator,
    deadline: &'s dyn Deadline,
    pub requests: Vec<Vec<RequestEntry<'s>>>,
    constraints: Vec<Vec<MatchAttribute>>,
    /// `deviceMatchesRequest`: device and (claim, request, subrequest) → selectable.
    matches: FxHashMap<(DeviceRef, usize, usize, usize), bool>,
    /// `allocatingDevices`: devices picked in this search, with the claims they were picked for.
    allocating: FxHashMap<DeviceId, Vec<usize>>,
    pub results: Vec<Vec<DeviceResult>>,
}

/// `klog.KObj` of a claim.
pub(super) fn claim_ref(claim: &api::ResourceClaim) -> String {
    if claim.metadata.namespace.is_empty() {
        claim.metadata.name.clone()
    } else {
        format!("{}/{}", claim.metadata.namespace, claim.metadata.name)
    }
}

/// Run the search; on success the returned state holds the solution ([`super::result::build`]
/// turns it into allocation results).
pub(super) fn search<'s, 'm>(
    alloc: &'s Allocator<'s>,
    node: NodeRef<'s>,
    claims: &'s [&'s api::ResourceClaim],
    selectors: &'m mut dyn SelectorEvaluator,
    deadline: &'s dyn Deadline,
) -> Result<Search<'s, 'm>, AllocError> {
    let pools = pools::gather(alloc.slices, node, &alloc.features).map_err(|e| {
        AllocError::input(match e {
            GatherError::Slice { slice, error } => texts::gather_slice(&slice, &error),
            GatherError::Device { slice, device, error } => texts::gather_device(&slice, &device, &error),
        })
    })?;
    let mut search = Search {
        alloc,
        node,
        claims,
        pools,
        selectors,
        deadline,
        requests: Vec::with_capacity(claims.len()),
        constraints: Vec::with_capacity(claims.len()),
        matches: FxHashMap::default(),
        allocating: FxHashMap::default(),
        results: vec![Vec::new(); claims.len()],
    };
    search.validate()?;
    match search.allocate_one(At::default(), false) {
        Ok(true) => {}
        Ok(false) | Err(Stop::MaxSize) => {
            // Only when nothing fits do invalid pools matter: other pools might have sufficed.
            return Err(if search.pools.iter().any(|p| p.invalid.is_some()) {
                AllocError::InvalidPools
            } else {
                AllocError::CannotAllocate
            });
        }
        Err(Stop::Error(e)) => return Err(e),
    }
    Ok(search)
}

impl<'s> Search<'s, '_> {
    /// Check every claim and request and learn how many devices each needs (the loop at the
    /// start of upstream's `Allocate`).
    fn validate(&mut self) -> Result<(), AllocError> {
        let claims = self.claims;
        for (ci, claim) in claims.iter().enumerate() {
            let kobj = claim_ref(claim);
            let mut min_devices: i64 = 0;
            let mut entries = Vec::with_capacity(claim.spec.devices.requests.len());
            for (ri, request) in claim.spec.devices.requests.iter().enumerate() {
                let has_subrequests = !request.first_available.is_empty();
                if !self.alloc.features.prioritized_list && has_subrequests {
                    return Err(AllocError::input(texts::subrequests_disabled(&kobj, &request.name)));
                }
                let mut subs = Vec::new();
                if has_subrequests {
                    let mut min = i64::MAX;
                    for (si, sub) in request.first_available.iter().enumerate() {
                        let data = self.validate_request((ci, ri, si), &kobj, Request::Sub(sub), Some(&request.name))?;
                        min = min.min(data.num_devices);
                        subs.push(data);
                    }
                    min_devices = min_devices.saturating_add(min);
                } else {
                    let data = self.validate_request((ci, ri, 0), &kobj, Request::exact(request), None)?;
                    min_devices = min_devices.saturating_add(data.num_devices);
                    subs.push(data);
                }
                entries.push(RequestEntry { subs, has_subrequests, selected: 0 });
            }
            if min_devices > MAX_DEVICES {
                return Err(AllocError::input(texts::too_many_devices(&kobj, min_devices, api::ALLOCATION_RESULTS_MAX_SIZE)));
            }
            let mut constraints = Vec::with_capacity(claim.spec.devices.constraints.len());
            for (i, c) in claim.spec.devices.constraints.iter().enumerate() {
                match &c.match_attribute {
                    Some(attribute) => constraints.push(MatchAttribute::new(&c.requests, attribute)),
                    None => return Err(AllocError::input(texts::empty_constraint(&kobj, i))),
                }
            }
            self.requests.push(entries);
            self.constraints.push(constraints);
        }
        Ok(())
    }

    /// `validateDeviceRequest` for the request or subrequest at `key`.
    fn validate_request(
        &mut self,
        key: (usize, usize, usize),
        kobj: &str,
        request: Request<'s>,
        parent: Option<&'s str>,
    ) -> Result<RequestData<'s>, AllocError> {
        let name = request.name();
        if let Some(i) = request.selectors().iter().position(|s| s.cel.is_none()) {
            return Err(AllocError::input(texts::empty_selector(kobj, name, i)));
        }
        if !self.alloc.features.admin_access && request.has_admin_access() {
            return Err(AllocError::input(texts::admin_access_disabled(kobj, name)));
        }
        let class_name = request.class_name();
        if class_name.is_empty() {
            return Err(AllocError::input(texts::missing_class_name(kobj, name)));
        }
        let classes = self.alloc.classes;
        let class = classes.get(class_name).ok_or_else(|| AllocError::input(texts::class_not_found(kobj, name, class_name)))?;
        let mut data = RequestData { request, parent, class, num_devices: 0, all_devices: Vec::new() };
        match request.mode() {
            api::ALLOCATION_MODE_EXACT_COUNT => data.num_devices = request.count(),
            api::ALLOCATION_MODE_ALL => {
                for p in 0..self.pools.len() {
                    let pool = &self.pools[p];
                    if pool.incomplete {
                        return Err(AllocError::input(texts::all_devices_pool_incomplete(kobj, name, &pool.id())));
                    }
                    if pool.invalid.is_some() {
                        return Err(AllocError::input(texts::all_devices_pool_invalid(kobj, name, &pool.id())));
                    }
                    for si in 0..self.pools[p].slices.len() {
                        let slice = self.pools[p].slices[si];
                        for d in 0..self.alloc.slices.slice(slice).devices.len() as u32 {
                            let device = DeviceRef { slice, device: d };
                            if self.is_selectable(key, class, request.selectors(), device)? {
                                data.all_devices.push(device);
                            }
                        }
                    }
                }
                data.num_devices = data.all_devices.len() as i64;
            }
            mode => return Err(AllocError::input(texts::unsupported_count_mode(kobj, name, mode))),
        }
        Ok(data)
    }

    pub(super) fn device(&self, d: DeviceRef) -> &'s PreparedDevice {
        let slices = self.alloc.slices;
        &slices.slice(d.slice).devices[d.device as usize]
    }

    /// `allocateOne`: allocate the device at `at` and everything after it; `Ok(true)` when a
    /// complete solution was found (and is kept), `Ok(false)` when this branch has none.
    /// `in_sub` is set while trying one particular subrequest.
    fn allocate_one(&mut self, at: At, in_sub: bool) -> Result<bool, Stop> {
        let invocations = &self.alloc.invocations;
        invocations.set(invocations.get() + 1);
        if self.deadline.expired() {
            return Err(Stop::Error(AllocError::TimedOut));
        }
        let Some(claim) = self.claims.get(at.claim) else {
            // Done: without scoring, the first solution is taken.
            return Ok(true);
        };
        if at.request >= claim.spec.devices.requests.len() {
            // Done with the claim, continue with the next one. Running over the device limit
            // there is not an error for this claim: another subrequest of an earlier claim may
            // need fewer devices.
            return match self.allocate_one(At { claim: at.claim + 1, ..At::default() }, false) {
                Err(Stop::MaxSize) => Ok(false),
                other => other,
            };
        }

        let entry = &self.requests[at.claim][at.request];
        if !in_sub && entry.has_subrequests {
            // Only one subrequest needs to be allocated: try them in order.
            let count = entry.subs.len();
            let mut all_exceeded = true;
            for sub in 0..count {
                match self.allocate_one(At { sub, ..at }, true) {
                    Err(Stop::MaxSize) => continue,
                    Err(e) => return Err(e),
                    Ok(success) => {
                        all_exceeded = false;
                        if success {
                            self.requests[at.claim][at.request].selected = sub;
                            return Ok(true);
                        }
                    }
                }
            }
            // No subrequest worked; if all of them only ran over the limit, no solution
            // involving the previous requests exists either.
            return if all_exceeded { Err(Stop::MaxSize) } else { Ok(false) };
        }

        let data = &entry.subs[at.sub];
        let all_mode = data.request.mode() == api::ALLOCATION_MODE_ALL;
        // At least one device is required for 'All'.
        if all_mode && data.all_devices.is_empty() {
            return Ok(false);
        }
        if at.device >= data.num_devices {
            // Done with the request (or subrequest), continue with the next request.
            return self.allocate_one(At { claim: at.claim, request: at.request + 1, ..At::default() }, false);
        }
        // Would the rest of this request exceed the claim's device limit?
        let after = (self.results[at.claim].len() as i64).saturating_add(data.num_devices).saturating_sub(at.device);
        if after > MAX_DEVICES {
            return Err(Stop::MaxSize);
        }

        let next = At { device: at.device + 1, ..at };
        if all_mode {
            // The devices are known; the order does not matter, so only the next one is tried.
            let device = data.all_devices[at.device as usize];
            let Some(undo) = self.allocate_device(at, device, true)? else {
                return Ok(false);
            };
            return match self.allocate_one(next, in_sub) {
                Ok(true) => Ok(true),
                other => {
                    self.deallocate(at, device, undo);
                    other.map(|_| false)
                }
            };
        }

        let admin = data.request.admin_access();
        for p in 0..self.pools.len() {
            // Devices of incomplete or invalid pools are not allocated; other pools may do.
            if self.pools[p].incomplete || self.pools[p].invalid.is_some() {
                continue;
            }
            for si in 0..self.pools[p].slices.len() {
                let slice = self.pools[p].slices[si];
                for d in 0..self.alloc.slices.slice(slice).devices.len() as u32 {
                    let device = DeviceRef { slice, device: d };
                    let id = &self.device(device).id;
                    // "In use" is cheap to check and comes first.
                    if admin && self.allocating_for_claim(id, at.claim) {
                        continue;
                    }
                    if !admin && self.in_use(id) {
                        continue;
                    }
                    let data = &self.requests[at.claim][at.request].subs[at.sub];
                    let (class, selectors) = (data.class, data.request.selectors());
                    if !self.is_selectable((at.claim, at.request, at.sub), class, selectors, device)? {
                        continue;
                    }
                    let Some(undo) = self.allocate_device(at, device, false)? else {
                        continue;
                    };
                    match self.allocate_one(next, in_sub) {
                        Ok(true) => return Ok(true),
                        Ok(false) => self.deallocate(at, device, undo),
                        Err(e) => {
                            self.deallocate(at, device, undo);
                            return Err(e);
                        }
                    }
                }
            }
        }
        Ok(false)
    }

    /// `isSelectable`: whether the device satisfies the class's and the request's selectors
    /// (and, with per-device node selection, is available on the node). Cached per call.
    fn is_selectable(
        &mut self,
        key: (usize, usize, usize),
        class: &'s DeviceClass,
        selectors: &'s [DeviceSelector],
        device_ref: DeviceRef,
    ) -> Result<bool, AllocError> {
        let device = self.device(device_ref);
        if !self.alloc.features.device_binding_and_status && device.has_binding_conditions {
            // Devices with binding conditions are not supported while the feature is off.
            return Ok(false);
        }
        let cache_key = (device_ref, key.0, key.1, key.2);
        if let Some(&known) = self.matches.get(&cache_key) {
            return Ok(known);
        }
        let claim = self.claims[key.0];
        let matches = self.selectors_match(SelectorOwner::Class(&class.metadata.name), &class.spec.selectors, device, true)?
            && self.selectors_match(SelectorOwner::Claim(&claim_ref(claim)), selectors, device, false)?
            && self.available_per_device(device_ref)?;
        self.matches.insert(cache_key, matches);
        Ok(matches)
    }

    /// With per-device node selection, whether the device is available on the node.
    fn available_per_device(&self, device_ref: DeviceRef) -> Result<bool, AllocError> {
        let slice = self.alloc.slices.slice(device_ref.slice);
        if slice.per_device_node_selection != Some(true) {
            return Ok(true);
        }
        self.device(device_ref).node_selection.matches(self.node).map_err(|e| AllocError::input(texts::device_node_selector(e)))
    }

    /// `selectorsMatch`: every selector must match; compile and runtime errors abort.
    fn selectors_match(
        &mut self,
        owner: SelectorOwner<'_>,
        selectors: &[DeviceSelector],
        device: &PreparedDevice,
        of_class: bool,
    ) -> Result<bool, AllocError> {
        for (i, selector) in selectors.iter().enumerate() {
            let Some(cel) = &selector.cel else {
                // Request selectors were checked before; a class selector without CEL comes
                // from a newer API.
                return Err(AllocError::input(match owner {
                    SelectorOwner::Class(class) if of_class => texts::class_selector_without_cel(class, i),
                    _ => texts::cel_compile_error(owner, i, "no CEL expression"),
                }));
            };
            match self.selectors.matches(&cel.expression, device) {
                Ok(true) => {}
                Ok(false) => return Ok(false),
                Err(SelectorFailure::Compile(e)) => return Err(AllocError::input(texts::cel_compile_error(owner, i, &e))),
                Err(SelectorFailure::Runtime(e)) => return Err(AllocError::input(texts::cel_runtime_error(owner, i, &e))),
            }
        }
        Ok(true)
    }

    fn in_use(&self, id: &DeviceId) -> bool {
        self.alloc.allocated.contains(id) || self.allocating.get(id).is_some_and(|claims| !claims.is_empty())
    }

    fn allocating_for_claim(&self, id: &DeviceId, claim: usize) -> bool {
        self.allocating.get(id).is_some_and(|claims| claims.contains(&claim))
    }

    /// `allocateDevice`: whether the selectable device can be taken (not in use, no untolerated
    /// taint, constraints satisfied); if so it is recorded and `Some(previous result length)` is
    /// returned for [`Search::deallocate`]. With `must` (an `All` request) a violated constraint
    /// is an error: such a claim can never be satisfied.
    fn allocate_device(&mut self, at: At, device_ref: DeviceRef, must: bool) -> Result<Option<usize>, AllocError> {
        let device = self.device(device_ref);
        let data = &self.requests[at.claim][at.request].subs[at.sub];
        let request = data.request;
        let parent = data.parent;
        let admin = request.admin_access();
        if admin && self.allocating_for_claim(&device.id, at.claim) {
            return Ok(None);
        }
        if !admin && self.in_use(&device.id) {
            return Ok(None);
        }
        // Devices that consume counters need the partitionable devices feature.
        if !self.alloc.features.partitionable_devices && device.consumes_counters {
            return Ok(None);
        }
        let (base, sub) = match parent {
            Some(parent) => (parent, Some(request.name())),
            None => (request.name(), None),
        };
        if self.alloc.features.device_taints && taint_prevents_allocation(device, request.tolerations()) {
            return Ok(None);
        }
        let constraints = &mut self.constraints[at.claim];
        for i in 0..constraints.len() {
            if !constraints[i].add(base, sub, device) {
                if must {
                    let claim = claim_ref(self.claims[at.claim]);
                    return Err(AllocError::input(texts::constraint_not_satisfied(
                        &claim,
                        request.name(),
                        &device.id.to_string(),
                    )));
                }
                for c in &mut constraints[..i] {
                    c.remove(base, sub);
                }
                return Ok(None);
            }
        }
        self.allocating.entry(device.id.clone()).or_default().push(at.claim);
        let previous = self.results[at.claim].len();
        self.results[at.claim].push(DeviceResult { request: at.request, sub: at.sub, device: device_ref, admin_access: admin });
        Ok(Some(previous))
    }

    /// Undo a successful [`Search::allocate_device`].
    fn deallocate(&mut self, at: At, device_ref: DeviceRef, previous: usize) {
        let device = self.device(device_ref);
        let data = &self.requests[at.claim][at.request].subs[at.sub];
        let (base, sub) = match data.parent {
            Some(parent) => (parent, Some(data.request.name())),
            None => (data.request.name(), None),
        };
        for c in &mut self.constraints[at.claim] {
            c.remove(base, sub);
        }
        if let Some(claims) = self.allocating.get_mut(&device.id) {
            claims.retain(|&c| c != at.claim);
        }
        self.results[at.claim].truncate(previous);
    }
}

/// `taintPreventsAllocation`: a `NoSchedule` or `NoExecute` taint the request does not
/// tolerate (other effects, `None` included, never prevent allocation).
fn taint_prevents_allocation(device: &PreparedDevice, tolerations: &[DeviceToleration]) -> bool {
    device
        .taints
        .iter()
        .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
        .any(|t| !tolerations.iter().any(|tol| tolerates(tol, t)))
}

/// `resourceclaim.ToleratesTaint`.
fn tolerates(toleration: &DeviceToleration, taint: &api::DeviceTaint) -> bool {
    if !toleration.effect.is_empty() && toleration.effect != taint.effect {
        return false;
    }
    if !toleration.key.is_empty() && toleration.key != taint.key {
        return false;
    }
    match toleration.operator.as_str() {
        "" | "Equal" => toleration.value == taint.value,
        "Exists" => true,
        _ => false,
    }
}
