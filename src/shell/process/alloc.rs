//! The shipped binary's global allocator: freed small blocks are kept on per-size free lists and
//! handed out again, instead of being returned to the kernel.
//!
//! Why: the shipped binary is static musl, whose allocator (mallocng) gives the pages of a slot
//! group back to the kernel as soon as the group empties, and maps new ones when it is needed
//! again. Start-up is a producer/consumer pattern — the pod-list thread decodes ~25 small
//! objects per pod, the scheduler thread frees them once it has built its own records — so groups
//! empty and refill all the time: one start against 5,000 nodes / 50,000 pods made 11,775 `mmap`
//! and 9,000 `munmap` calls, 36 % of its CPU samples were in the kernel (page faults, clearing new
//! pages, TLB-shootdown interrupts that `munmap` sends to the other threads' cores) and 13 % in
//! mallocng itself (0.84 s of CPU to ready; 0.53 s with this allocator). With this allocator the
//! memory of a freed small block stays with the process, so the resident size of small blocks
//! settles at the peak of those alive at once (`docs/dependencies.md` has the measured numbers).
//!
//! The design is deliberately plain:
//! - 24 size classes up to [`MAX_SMALL`] bytes: 16-byte steps up to 128, then four steps per
//!   doubling (160, 192, 224, 256, 320, ...). Every class size is a multiple of 16, so every block
//!   is 16-byte aligned.
//! - At first use the allocator reserves one range of address space ([`REGION`], no access, no
//!   memory behind it) and gives each class its own [`SUB`]-byte part of it. A class carves new
//!   blocks from its part with a bump pointer, making [`STEP`] bytes at a time accessible; the
//!   kernel backs a page with memory when it is first written. Nothing is ever given back.
//! - So the class of a block is its address: `dealloc` and `realloc` need nothing else, and
//!   callers of `dealloc` need not pass a size and alignment (a first version that took the class
//!   from the `Layout` added 12 KiB of argument set-up at the program's ~500 drop sites).
//! - Each class has an intrusive singly linked list of free blocks (the link lives in the free
//!   block itself) behind a small spin lock: blocks are usually freed on another thread than the
//!   one that allocated them, and a lock per class keeps that obviously correct (no lock-free
//!   stack and its ABA problem). Critical sections are a few instructions.
//! - Larger blocks, alignments above 16 bytes, and small blocks when the reservation failed or a
//!   class's part is full go to [`System`] unchanged (musl maps big blocks with `mmap` and grows
//!   them with `mremap`, which is what they need).
//!
//! Nothing here allocates. A custom build made with [`crate::plugin::Builder`] can register the
//! same allocator in its `main` (`#[global_allocator] static A: SlabAlloc = SlabAlloc::new();`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// Alignment every small block has (the largest one small blocks serve).
const ALIGN: usize = 16;
/// Number of size classes; the last one is [`MAX_SMALL`] bytes.
const CLASSES: usize = 24;
/// The largest size served from the free lists; larger blocks go to [`System`]. Serving up to
/// 8 KiB as well (the sizes of most of musl's remaining `mmap` calls at start-up) measured no
/// gain: ready CPU 0.59–0.64 s against 0.51–0.56 s.
pub const MAX_SMALL: usize = 2048;
/// Address space reserved per class (128 MiB: more than the 78 MiB of anonymous memory the whole
/// process has with 150,000 pods; a full class falls back to [`System`]).
#[cfg(not(miri))]
const SUB: usize = 1 << 27;
/// Under Miri the reservation is real memory of the interpreter (it has no `PROT_NONE` mappings
/// or `mprotect`): 2 MiB per class, still several [`STEP`]s, so the carving logic is the same.
#[cfg(miri)]
const SUB: usize = 1 << 21;
/// Address space reserved in all (3 GiB; a 64-bit process has hundreds of GiB, and it costs no memory).
const REGION: usize = CLASSES * SUB;
/// How much of a class's part is made accessible at a time (a multiple of every page size).
const STEP: usize = 1 << 18;

/// The class serving `size` bytes (`size <= MAX_SMALL`): `(size - 1) / 16` up to 128 bytes,
/// above that four classes per power of two.
const fn class_index(size: usize) -> usize {
    if size <= 128 {
        size.saturating_sub(1) / 16
    } else {
        let s = size - 1;
        // floor(log2(s)), at least 7 here.
        let log = (usize::BITS - 1 - s.leading_zeros()) as usize;
        8 + (log - 7) * 4 + ((s >> (log - 2)) - 4)
    }
}

/// The block size of class `index`: the inverse of [`class_index`] at the class's upper end.
const fn class_size(index: usize) -> usize {
    if index < 8 {
        (index + 1) * 16
    } else {
        (5 + (index - 8) % 4) << (5 + (index - 8) / 4)
    }
}

/// The small class a layout is served from, or `None` for [`System`].
fn small_class(layout: Layout) -> Option<usize> {
    (layout.size() <= MAX_SMALL && layout.align() <= ALIGN).then(|| class_index(layout.size()))
}

/// A value behind a test-and-set spin lock that spins briefly, then yields the CPU (the holder may
/// have been preempted on a machine with few cores). Used for a few instructions at a time. One
/// per cache line, so that threads working on different classes do not contend for a line.
#[repr(align(64))]
struct Spin<T> {
    locked: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: `value` is only reached through `with`, which holds the lock (mutual exclusion); the
// raw pointers inside are plain addresses of memory this allocator owns.
unsafe impl<T> Sync for Spin<T> {}

impl<T> Spin<T> {
    const fn new(value: T) -> Self {
        Spin { locked: AtomicBool::new(false), value: UnsafeCell::new(value) }
    }

    /// Run `f` on the value with the lock held.
    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut spins = 0u32;
        while self.locked.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            while self.locked.load(Ordering::Relaxed) {
                if spins < 100 {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
        // SAFETY: the lock is held, so this is the only reference to the value until it is released.
        let r = f(unsafe { &mut *self.value.get() });
        self.locked.store(false, Ordering::Release);
        r
    }
}

/// One size class: its free list and the bump region of its part of the reservation.
struct Class {
    /// Head of the free list (null when empty); each free block's first word links the next.
    free: *mut u8,
    /// Where the next new block starts (null until the class is first used).
    next: *mut u8,
    /// End of the accessible part of the class's range (`next <= committed`).
    committed: *mut u8,
}

/// The global allocator of the shipped binary (see the module documentation).
pub struct SlabAlloc {
    /// Start of the reserved range; null until reserved (or when reserving failed).
    base: AtomicPtr<u8>,
    /// Whether reserving was tried, so that a failure is not retried on every allocation.
    reserve: Spin<bool>,
    classes: [Spin<Class>; CLASSES],
}

impl Default for SlabAlloc {
    fn default() -> Self {
        Self::new()
    }
}

impl SlabAlloc {
    /// An allocator that has reserved nothing yet; it does at its first small allocation.
    pub const fn new() -> Self {
        SlabAlloc {
            base: AtomicPtr::new(ptr::null_mut()),
            reserve: Spin::new(false),
            classes: [const { Spin::new(Class { free: ptr::null_mut(), next: ptr::null_mut(), committed: ptr::null_mut() }) };
                CLASSES],
        }
    }

    /// The start of the reserved range, reserving it on first use; null if that failed.
    fn base(&self) -> *mut u8 {
        let base = self.base.load(Ordering::Acquire);
        if !base.is_null() {
            return base;
        }
        self.reserve.with(|tried| {
            if !*tried {
                *tried = true;
                if let Some(p) = reserve_region() {
                    self.base.store(p, Ordering::Release);
                }
            }
            self.base.load(Ordering::Acquire)
        })
    }

    /// The class of a block this allocator carved, or `None` for a block of [`System`]'s. A
    /// block reaching `dealloc` was handed out after the range was reserved, and the thread
    /// freeing it got it through some synchronisation, so it sees `base`.
    fn class_of(&self, block: *mut u8) -> Option<usize> {
        let base = self.base.load(Ordering::Acquire);
        let offset = (block as usize).wrapping_sub(base as usize);
        (!base.is_null() && offset < REGION).then_some(offset / SUB)
    }

    /// A block of class `c`: the head of its free list, else a new one from the class's range;
    /// null when there is no range or it is full (the caller then asks [`System`]).
    fn alloc_small(&self, c: usize) -> *mut u8 {
        let base = self.base();
        if base.is_null() {
            return base;
        }
        let size = class_size(c);
        self.classes[c].with(|class| {
            let block = class.free;
            if !block.is_null() {
                // SAFETY: a block on the list is free, 16-aligned and at least 16 bytes; its
                // first word is the link written by `free_small`.
                class.free = unsafe { block.cast::<*mut u8>().read() };
                return block;
            }
            if class.next.is_null() {
                // SAFETY: c < CLASSES, so the class's range lies inside the reservation.
                class.next = unsafe { base.add(c * SUB) };
                class.committed = class.next;
            }
            if (class.committed as usize) - (class.next as usize) < size {
                // SAFETY: (c + 1) * SUB <= REGION: one past the end of the class's range.
                let end = unsafe { base.add((c + 1) * SUB) };
                // SAFETY: when the check passes, `committed..committed + STEP` is a
                // page-aligned part of the class's reserved range.
                if (end as usize) - (class.committed as usize) < STEP || !unsafe { commit(class.committed) } {
                    return ptr::null_mut();
                }
                // SAFETY: still inside the class's range (checked above); STEP >= MAX_SMALL, so
                // `size` bytes now fit.
                class.committed = unsafe { class.committed.add(STEP) };
            }
            let block = class.next;
            // SAFETY: `size` bytes from `block` are accessible and inside the range (above).
            class.next = unsafe { block.add(size) };
            block
        })
    }

    /// Put a block of class `c` on its free list.
    ///
    /// # Safety
    /// `block` was carved for class `c` by this allocator and is not used any more.
    unsafe fn free_small(&self, c: usize, block: *mut u8) {
        self.classes[c].with(|class| {
            // SAFETY: the block is ours, free, 16-aligned and at least 16 bytes: room for the link.
            unsafe { block.cast::<*mut u8>().write(class.free) };
            class.free = block;
        });
    }
}

/// Reserve [`REGION`] bytes of address space with no access and no memory behind them, at an
/// address of the kernel's choosing (page-aligned); `None` if the kernel refuses.
#[cfg(not(miri))]
fn reserve_region() -> Option<*mut u8> {
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    // SAFETY: a fresh anonymous mapping at an address of the kernel's choosing; no access until
    // `commit` makes parts of it accessible.
    let p = unsafe { libc::mmap(ptr::null_mut(), REGION, libc::PROT_NONE, flags, -1, 0) };
    (p != libc::MAP_FAILED).then_some(p.cast())
}

/// Make `STEP` bytes from `at` accessible; false if the kernel refuses.
///
/// # Safety
/// `at..at + STEP` is a page-aligned part of the reserved range.
#[cfg(not(miri))]
unsafe fn commit(at: *mut u8) -> bool {
    // SAFETY: the caller's contract: a page-aligned part of our own mapping.
    unsafe { libc::mprotect(at.cast(), STEP, libc::PROT_READ | libc::PROT_WRITE) == 0 }
}

/// Give the reserved range back.
///
/// # Safety
/// `base` is what [`reserve_region`] returned and nothing in the range is used any more.
#[cfg(not(miri))]
unsafe fn release_region(base: *mut u8) {
    // SAFETY: the caller's contract: our own mapping, no longer used.
    unsafe { libc::munmap(base.cast(), REGION) };
}

/// Under Miri: the range is an ordinary (page-aligned) allocation of the interpreter, already
/// accessible, so Miri checks every access the free lists and the carving make against it.
#[cfg(miri)]
fn reserve_region() -> Option<*mut u8> {
    let layout = Layout::from_size_align(REGION, 1 << 16).ok()?;
    // SAFETY: a non-zero size.
    let p = unsafe { System.alloc(layout) };
    (!p.is_null()).then_some(p)
}

/// Under Miri the whole range is accessible from the start.
///
/// # Safety
/// As the real `commit`.
#[cfg(miri)]
unsafe fn commit(_at: *mut u8) -> bool {
    true
}

/// Under Miri: the allocation [`reserve_region`] made.
///
/// # Safety
/// As the real `release_region`.
#[cfg(miri)]
unsafe fn release_region(base: *mut u8) {
    if let Ok(layout) = Layout::from_size_align(REGION, 1 << 16) {
        // SAFETY: allocated by `reserve_region` with this layout, no longer used.
        unsafe { System.dealloc(base, layout) };
    }
}

impl Drop for SlabAlloc {
    /// Only allocators that are not the global one are ever dropped (tests); their blocks are
    /// gone with them.
    fn drop(&mut self) {
        let base = *self.base.get_mut();
        if !base.is_null() {
            // SAFETY: the range this allocator reserved; nothing in it is in use any more.
            unsafe { release_region(base) };
        }
    }
}

// The entry points are not inlined: every allocation site of the program would otherwise get
// its own copy of the class arithmetic.
//
// SAFETY: small blocks are 16-aligned (the reservation is page-aligned, class ranges are
// multiples of the page size and every class size is a multiple of 16) and
// class_size(small_class(layout)) >= layout.size(); a block is on at most one free list and is
// never handed out while on it (list operations hold the class's lock); a block goes back to the
// list of the class whose range holds it, the one it was carved for. Everything else is
// System's, allocated, resized and freed there with the caller's own layout.
unsafe impl GlobalAlloc for SlabAlloc {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if let Some(c) = small_class(layout) {
            let block = self.alloc_small(c);
            if !block.is_null() {
                return block;
            }
        }
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if let Some(c) = small_class(layout) {
            let block = self.alloc_small(c);
            if !block.is_null() {
                // A reused block holds old data (and the list link): zero it.
                // SAFETY: the block has at least `layout.size()` bytes.
                unsafe { block.write_bytes(0, layout.size()) };
                return block;
            }
        }
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc_zeroed(layout) }
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match self.class_of(ptr) {
            // SAFETY: carved for class `c` (its range holds it); the caller gives it up.
            Some(c) => unsafe { self.free_small(c, ptr) },
            // SAFETY: the caller's contract is System's (`ptr` came from System with `layout`).
            None => unsafe { System.dealloc(ptr, layout) },
        }
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size`, rounded up to `layout.align()`, does not overflow.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let old = self.class_of(ptr);
        let new = small_class(new_layout);
        if old.is_some() && old == new {
            return ptr;
        }
        if old.is_none() && new.is_none() {
            // SAFETY: `ptr` is System's, allocated with `layout`; the new layout is valid.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // SAFETY: `new_layout` is valid (see above) and non-zero like the caller's.
        let block = unsafe { self.alloc(new_layout) };
        if !block.is_null() {
            // SAFETY: distinct blocks, each at least as long as the bytes copied; `ptr` was
            // allocated with `layout` and is not used after this call.
            unsafe {
                ptr::copy_nonoverlapping(ptr, block, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).expect("valid layout")
    }

    /// A block handed to another thread (a pointer keeps its provenance, which Miri checks;
    /// an address cast back to a pointer would not).
    struct Block(*mut u8);

    // SAFETY: the tests hand a block to exactly one other thread, which then owns it.
    unsafe impl Send for Block {}

    /// A byte pattern that depends on the block's identity, to catch blocks handed out twice.
    fn pattern(seed: usize, i: usize) -> u8 {
        (seed.wrapping_mul(31).wrapping_add(i.wrapping_mul(7)) % 251) as u8
    }

    /// The bytes of a block the tests write and check: all of them, or under Miri (which
    /// interprets every access) the first 32 and every 29th. The choice depends on the index
    /// only, so checking a prefix of a block reads bytes that filling the block wrote.
    fn probed(len: usize) -> impl Iterator<Item = usize> {
        (0..len).filter(|&i| !cfg!(miri) || i < 32 || i % 29 == 0)
    }

    fn fill(p: *mut u8, len: usize, seed: usize) {
        for i in probed(len) {
            // SAFETY: the tests own `len` bytes at `p`.
            unsafe { p.add(i).write(pattern(seed, i)) };
        }
    }

    fn check(p: *const u8, len: usize, seed: usize) {
        for i in probed(len) {
            // SAFETY: the tests own `len` initialised bytes at `p`.
            assert_eq!(unsafe { p.add(i).read() }, pattern(seed, i), "byte {i} of a {len}-byte block");
        }
    }

    #[test]
    fn classes_cover_every_size_with_their_boundaries() {
        assert_eq!(class_size(CLASSES - 1), MAX_SMALL);
        assert_eq!(class_index(MAX_SMALL), CLASSES - 1);
        let sizes: Vec<usize> = (0..CLASSES).map(class_size).collect();
        assert_eq!(&sizes[..12], &[16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256]);
        for c in 0..CLASSES {
            assert_eq!(class_size(c) % ALIGN, 0);
            assert_eq!(class_index(class_size(c)), c, "upper boundary of class {c}");
            let lower = if c == 0 { 1 } else { class_size(c - 1) + 1 };
            assert_eq!(class_index(lower), c, "lower boundary of class {c}");
        }
        for size in 1..=MAX_SMALL {
            let c = class_index(size);
            assert!(class_size(c) >= size && (c == 0 || class_size(c - 1) < size), "size {size}");
        }
    }

    #[test]
    fn every_class_returns_aligned_distinct_blocks_that_hold_their_bytes() {
        let a = SlabAlloc::new();
        let mut blocks = Vec::new();
        // Miri interprets every byte written: fewer sizes there, every class still.
        let step = if cfg!(miri) { 151 } else { 7 };
        for size in (1..=MAX_SMALL).step_by(step).chain((0..CLASSES).map(class_size)) {
            for align in [1, 2, 4, 8, 16] {
                let l = layout(size, align);
                // SAFETY: non-zero size.
                let p = unsafe { a.alloc(l) };
                assert!(!p.is_null());
                assert_eq!(p as usize % 16, 0, "size {size} align {align}");
                assert_eq!(a.class_of(p), Some(class_index(size)));
                fill(p, size, blocks.len());
                blocks.push((p, l));
            }
        }
        let mut ranges: Vec<(usize, usize)> = blocks.iter().map(|(p, l)| (*p as usize, *p as usize + l.size())).collect();
        ranges.sort();
        assert!(ranges.windows(2).all(|w| w[0].1 <= w[1].0), "blocks overlap");
        for (seed, (p, l)) in blocks.into_iter().enumerate() {
            check(p, l.size(), seed);
            // SAFETY: allocated above with `l`.
            unsafe { a.dealloc(p, l) };
        }
    }

    #[test]
    fn a_freed_block_is_handed_out_again_and_zeroed_when_asked() {
        let a = SlabAlloc::new();
        for c in 0..CLASSES {
            let l = layout(class_size(c), 16);
            // SAFETY: non-zero sizes; each block is freed once, after its last use.
            unsafe {
                let p = a.alloc(l);
                p.write_bytes(0xAB, l.size());
                a.dealloc(p, l);
                // Any size of the same class gets the same block back.
                let smaller = layout(class_size(c) - 3, 4);
                let q = a.alloc(smaller);
                assert_eq!(p, q, "class {c}");
                a.dealloc(q, smaller);
                // A reused block holds old bytes and the list link: alloc_zeroed clears them.
                let z = a.alloc_zeroed(l);
                assert_eq!(p, z, "class {c}");
                assert!(std::slice::from_raw_parts(z, l.size()).iter().all(|&b| b == 0), "class {c}");
                a.dealloc(z, l);
            }
        }
    }

    #[test]
    fn realloc_keeps_contents_across_classes_and_into_system_blocks() {
        let a = SlabAlloc::new();
        let sizes =
            [1, 15, 16, 17, 100, 128, 129, 700, 2047, 2048, 2049, 5000, if cfg!(miri) { 9000 } else { 70_000 }, 3000, 300, 24, 8];
        // SAFETY: every pointer is used with the layout it currently has and freed once.
        unsafe {
            let mut l = layout(sizes[0], 8);
            let mut p = a.alloc(l);
            fill(p, l.size(), 1);
            for &size in &sizes[1..] {
                let same_class = small_class(l).is_some() && small_class(l) == small_class(layout(size, 8));
                let q = a.realloc(p, l, size);
                assert!(!q.is_null());
                assert_eq!(q as usize % 8, 0);
                if same_class {
                    assert_eq!(p, q, "{} -> {size} stays in its class", l.size());
                }
                check(q, l.size().min(size), 1);
                l = layout(size, 8);
                p = q;
                fill(p, size, 1);
            }
            a.dealloc(p, l);
        }
    }

    #[test]
    fn large_and_over_aligned_blocks_go_to_the_system_allocator() {
        let a = SlabAlloc::new();
        // A megabyte is musl's `mmap` path; Miri interprets every byte, so 16 KiB there.
        let big = if cfg!(miri) { 1 << 14 } else { 1 << 20 };
        for (size, align) in [(MAX_SMALL + 1, 8), (big, 16), (8, 32), (100, 64), (3000, 4096)] {
            let l = layout(size, align);
            assert_eq!(small_class(l), None);
            assert_eq!(a.class_of(ptr::null_mut()), None);
            // SAFETY: non-zero sizes; freed once with the same layout.
            unsafe {
                let p = a.alloc(l);
                assert!(!p.is_null());
                assert_eq!(p as usize % align, 0);
                assert_eq!(a.class_of(p), None);
                fill(p, size, size);
                let z = a.alloc_zeroed(l);
                assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                let q = a.realloc(p, l, size * 2);
                assert_eq!(q as usize % align, 0);
                check(q, size, size);
                a.dealloc(q, layout(size * 2, align));
                a.dealloc(z, l);
            }
        }
    }

    #[test]
    fn a_full_class_falls_back_to_the_system_allocator() {
        let a = SlabAlloc::new();
        let l = layout(100, 8);
        let c = class_index(100);
        // SAFETY: non-zero sizes; every block is freed once with its layout.
        unsafe {
            let ours = a.alloc(l);
            assert_eq!(a.class_of(ours), Some(c));
            // Pretend the class's whole range is carved.
            let base = a.base();
            a.classes[c].with(|class| {
                class.next = base.add((c + 1) * SUB);
                class.committed = class.next;
            });
            let theirs = a.alloc(l);
            assert!(!theirs.is_null());
            assert_eq!(a.class_of(theirs), None);
            fill(theirs, 100, 3);
            // Freed blocks of the class are still reused, and a System block goes back there.
            a.dealloc(ours, l);
            assert_eq!(a.alloc(l), ours);
            let grown = a.realloc(theirs, l, 110);
            check(grown, 100, 3);
            a.dealloc(grown, layout(110, 8));
            a.dealloc(ours, l);
            // Other classes are unaffected.
            let other = a.alloc(layout(20, 8));
            assert_eq!(a.class_of(other), Some(1));
            a.dealloc(other, layout(20, 8));
        }
    }

    #[test]
    fn blocks_freed_on_other_threads_keep_their_contents_and_are_reused() {
        static A: SlabAlloc = SlabAlloc::new();
        const PRODUCERS: usize = 3;
        const PER_PRODUCER: usize = if cfg!(miri) { 15 } else { 20_000 };
        let (tx, rx) = mpsc::sync_channel::<(Block, usize, usize)>(256);
        let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
        let consumers: Vec<_> = (0..2)
            .map(|_| {
                let rx = rx.clone();
                std::thread::spawn(move || loop {
                    let msg = rx.lock().expect("receiver lock").recv();
                    let Ok((Block(p), size, seed)) = msg else { return };
                    check(p, size, seed);
                    // SAFETY: the producer allocated it with this layout and gave it up.
                    unsafe { A.dealloc(p, layout(size, 8)) };
                })
            })
            .collect();
        let producers: Vec<_> = (0..PRODUCERS)
            .map(|t| {
                let tx = tx.clone();
                std::thread::spawn(move || {
                    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ t as u64;
                    for i in 0..PER_PRODUCER {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let size = 1 + (x % MAX_SMALL as u64) as usize / if i % 4 == 0 { 1 } else { 16 };
                        // SAFETY: non-zero size.
                        let p = unsafe { A.alloc(layout(size, 8)) };
                        assert!(!p.is_null());
                        let seed = t * PER_PRODUCER + i;
                        fill(p, size, seed);
                        tx.send((Block(p), size, seed)).expect("consumers alive");
                    }
                })
            })
            .collect();
        drop(tx);
        for p in producers {
            p.join().expect("producer");
        }
        for c in consumers {
            c.join().expect("consumer");
        }
        // Everything was freed: a block of a class the threads used (class 2, 33 to 48 bytes)
        // comes from its free list, not from the class's range.
        // SAFETY: non-zero size; freed once.
        unsafe {
            let l = layout(40, 8);
            let next = A.classes[2].with(|class| class.next);
            let p = A.alloc(l);
            assert_eq!(A.classes[2].with(|class| class.next), next, "reused, not carved");
            let q = A.alloc(l);
            assert_ne!(p, q);
            A.dealloc(q, l);
            A.dealloc(p, l);
            assert_eq!(A.alloc(l), p);
            A.dealloc(p, l);
        }
    }

    /// Every thread allocates blocks of every class and of the large-block path, grows and shrinks
    /// some with `realloc` (within a class, across classes, into and out of System blocks), hands
    /// half of them to the next thread, which checks their bytes, reallocates and frees them.
    /// Run by `cargo test` and, in CI, under Miri and Address/ThreadSanitizer (`sanitize/`).
    #[test]
    fn threads_allocate_reallocate_and_free_every_class_and_large_blocks_concurrently() {
        static A: SlabAlloc = SlabAlloc::new();
        const THREADS: usize = 4;
        // Miri interprets every instruction of every thread: one round over every fourth class
        // there (still every path), forty rounds over all of them natively.
        let (rounds, class_step) = if cfg!(miri) { (1, 4) } else { (40, 1) };
        // Each class's largest and smallest size, sizes just above the small limit and a block
        // of several pages (System's `mmap` path in musl).
        let mut sizes: Vec<usize> =
            (0..CLASSES).step_by(class_step).flat_map(|c| [class_size(c), class_size(c).saturating_sub(15).max(1)]).collect();
        sizes.extend([MAX_SMALL + 1, 3 * MAX_SMALL, if cfg!(miri) { 8_000 } else { 300_000 }]);
        let sizes = std::sync::Arc::new(sizes);
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..THREADS).map(|_| mpsc::channel::<Vec<(Block, usize, usize)>>()).unzip();
        let threads: Vec<_> = receivers
            .into_iter()
            .enumerate()
            .map(|(t, rx)| {
                let next = senders[(t + 1) % THREADS].clone();
                let sizes = sizes.clone();
                std::thread::spawn(move || {
                    let mut x = 0x2545_F491_4F6C_DD1Du64 ^ (t as u64 + 1);
                    for round in 0..rounds {
                        let mut mine = Vec::new();
                        for (k, &size) in sizes.iter().enumerate() {
                            let seed = (t * 1000 + round) * 100 + k;
                            let l = layout(size, 8);
                            // SAFETY: non-zero size.
                            let p = unsafe { A.alloc(l) };
                            assert!(!p.is_null());
                            fill(p, size, seed);
                            // Resize a third of them to another size of the table.
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            let (p, size) = if x % 3 == 0 {
                                let to = sizes[(x as usize / 3) % sizes.len()];
                                // SAFETY: `p` was allocated with `l`; `to` is non-zero.
                                let q = unsafe { A.realloc(p, l, to) };
                                assert!(!q.is_null());
                                check(q, size.min(to), seed);
                                fill(q, to, seed);
                                (q, to)
                            } else {
                                (p, size)
                            };
                            mine.push((Block(p), size, seed));
                        }
                        // Half go to the next thread, half are freed here.
                        let theirs = mine.split_off(mine.len() / 2);
                        next.send(theirs).expect("next thread alive");
                        for (Block(p), size, seed) in mine {
                            check(p, size, seed);
                            // SAFETY: allocated (or reallocated) with this size; freed once.
                            unsafe { A.dealloc(p, layout(size, 8)) };
                        }
                        // What the previous thread handed over: checked, grown once, freed.
                        let got = rx.recv().expect("previous thread alive");
                        for (Block(p), size, seed) in got {
                            check(p, size, seed);
                            // SAFETY: the sender gave the block up; it has `size` bytes.
                            let q = unsafe { A.realloc(p, layout(size, 8), size + 24) };
                            assert!(!q.is_null());
                            check(q, size, seed);
                            // SAFETY: now `size + 24` bytes; freed once.
                            unsafe { A.dealloc(q, layout(size + 24, 8)) };
                        }
                    }
                })
            })
            .collect();
        drop(senders);
        for t in threads {
            t.join().expect("stress thread");
        }
    }
}
