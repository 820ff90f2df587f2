//! The shipped binary's global allocator: freed small blocks are kept on per-size free lists and
//! handed out again, instead of being returned to the kernel.
//!
//! Why: the shipped binary is static musl, whose allocator (mallocng) gives the pages of a slot
//! group back to the kernel as soon as the group empties, and maps new ones when it is needed
//! again. Start-up is a producer/consumer pattern — the pod-list thread decodes ~25 small
//! objects per pod, the scheduler thread frees them once it has built its own records — so groups
//! empty and refill all the time: one start against 5,000 nodes / 50,000 pods made 11,495 `mmap`
//! and 8,717 `munmap` calls, 36 % of its CPU samples were in the kernel (page faults, clearing new
//! pages, TLB-shootdown interrupts that `munmap` sends to the other threads' cores) and 13 % in
//! mallocng itself; CPU to ready was 0.82 s for 0.86 s of wall time. With this allocator the
//! memory of a freed small block stays with the process, so the resident size of small blocks
//! settles at the peak of those alive at once (the README has the measured numbers).
//!
//! The design is deliberately plain:
//! - 24 size classes up to [`MAX_SMALL`] bytes: 16-byte steps up to 128, then four steps per
//!   doubling (160, 192, 224, 256, 320, ...). Every class size is a multiple of 16, so every block
//!   is 16-byte aligned.
//! - A block's class is a function of its `Layout`, which `GlobalAlloc` passes back to `dealloc`
//!   and `realloc`; blocks carry no header.
//! - Each class has an intrusive singly linked list of free blocks (the link lives in the free
//!   block itself) behind a small spin lock: blocks are usually freed on another thread than the
//!   one that allocated them, and a lock per class keeps that obviously correct (no lock-free
//!   stack and its ABA problem). Critical sections are a few instructions.
//! - An empty list is refilled one block at a time from a bump region in 1 MiB chunks obtained
//!   from [`System`] and never freed. The chunks are mapped lazily by the kernel, so untouched
//!   parts of a chunk cost no resident memory.
//! - Larger blocks and alignments above 16 bytes go to [`System`] unchanged (musl maps big
//!   blocks with `mmap` and grows them with `mremap`, which is what they need).
//!
//! Nothing here allocates. A custom build made with [`crate::plugin::Builder`] can register the
//! same allocator in its `main` (`#[global_allocator] static A: SlabAlloc = SlabAlloc::new();`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};

/// Alignment every small block has (the largest one small blocks serve).
const ALIGN: usize = 16;
/// Number of size classes; the last one is [`MAX_SMALL`] bytes.
const CLASSES: usize = 24;
/// The largest size served from the free lists; larger blocks go to [`System`].
pub const MAX_SMALL: usize = 2048;
/// Size of the chunks small blocks are carved from.
const CHUNK: usize = 1 << 20;

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
/// have been preempted on this 2-core class of machine). Used for a few instructions at a time.
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

/// The bump region new small blocks are carved from: `next..end` of the current chunk.
struct Bump {
    next: *mut u8,
    end: *mut u8,
}

/// The global allocator of the shipped binary (see the module documentation).
pub struct SlabAlloc {
    /// Per class: the head of the free list (null when empty).
    free: [Spin<*mut u8>; CLASSES],
    bump: Spin<Bump>,
}

impl Default for SlabAlloc {
    fn default() -> Self {
        Self::new()
    }
}

impl SlabAlloc {
    /// An allocator with empty free lists; it takes memory from [`System`] when first used.
    pub const fn new() -> Self {
        SlabAlloc {
            free: [const { Spin::new(ptr::null_mut()) }; CLASSES],
            bump: Spin::new(Bump { next: ptr::null_mut(), end: ptr::null_mut() }),
        }
    }

    /// A block of class `c`: the head of its free list, else a new one from the bump region
    /// (null when the system is out of memory).
    fn alloc_small(&self, c: usize) -> *mut u8 {
        let head = self.free[c].with(|head| {
            let block = *head;
            if !block.is_null() {
                // SAFETY: a block on the list is free, 16-aligned and at least 16 bytes; its first
                // word is the link written by `dealloc`.
                *head = unsafe { block.cast::<*mut u8>().read() };
            }
            block
        });
        if !head.is_null() {
            return head;
        }
        let size = class_size(c);
        self.bump.with(|b| {
            if (b.end as usize) - (b.next as usize) < size {
                // The old chunk's tail (less than MAX_SMALL bytes) is left unused.
                // SAFETY: CHUNK is non-zero and ALIGN a power of two.
                let chunk = unsafe { System.alloc(Layout::from_size_align_unchecked(CHUNK, ALIGN)) };
                if chunk.is_null() {
                    return chunk;
                }
                b.next = chunk;
                // SAFETY: one past the end of the chunk just allocated.
                b.end = unsafe { chunk.add(CHUNK) };
            }
            let block = b.next;
            // SAFETY: `size` bytes remain in the chunk (checked above).
            b.next = unsafe { block.add(size) };
            block
        })
    }

    /// Put a block of class `c` on its free list.
    ///
    /// # Safety
    /// `block` was returned for class `c` by this allocator and is not used any more.
    unsafe fn free_small(&self, c: usize, block: *mut u8) {
        self.free[c].with(|head| {
            // SAFETY: the block is ours, free, 16-aligned and at least 16 bytes: room for the link.
            unsafe { block.cast::<*mut u8>().write(*head) };
            *head = block;
        });
    }
}

// SAFETY: small blocks are 16-aligned (chunks are, and every class size is a multiple of 16) and
// class_size(small_class(layout)) >= layout.size(); a block is on at most one free list and is
// never handed out while on it (list operations hold the class's lock); blocks go back to the
// list of the class their layout maps to, which is the one they were carved for. Everything else
// is forwarded to System with the caller's own layout.
unsafe impl GlobalAlloc for SlabAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match small_class(layout) {
            Some(c) => self.alloc_small(c),
            // SAFETY: the caller's contract is System's.
            None => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match small_class(layout) {
            Some(c) => {
                // A reused block holds old data (and the list link): zero it.
                let block = self.alloc_small(c);
                if !block.is_null() {
                    // SAFETY: the block has at least `layout.size()` bytes.
                    unsafe { block.write_bytes(0, layout.size()) };
                }
                block
            }
            // SAFETY: the caller's contract is System's.
            None => unsafe { System.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match small_class(layout) {
            // SAFETY: the caller allocated `ptr` with this layout, hence from class `c`.
            Some(c) => unsafe { self.free_small(c, ptr) },
            // SAFETY: the caller's contract is System's (`ptr` came from System with `layout`).
            None => unsafe { System.dealloc(ptr, layout) },
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size`, rounded up to `layout.align()`, does not overflow.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (small_class(layout), small_class(new_layout)) {
            (Some(a), Some(b)) if a == b => ptr,
            // SAFETY: both layouts are System's, as when `ptr` was allocated.
            (None, None) => unsafe { System.realloc(ptr, layout, new_size) },
            _ => {
                // SAFETY: `new_layout` is valid (see above) and non-zero like the caller's.
                let new = unsafe { self.alloc(new_layout) };
                if !new.is_null() {
                    // SAFETY: distinct blocks, each at least as long as the bytes copied; `ptr`
                    // was allocated with `layout` and is not used after this call.
                    unsafe {
                        ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                }
                new
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).expect("valid layout")
    }

    /// A byte pattern that depends on the block's identity, to catch blocks handed out twice.
    fn pattern(seed: usize, i: usize) -> u8 {
        (seed.wrapping_mul(31).wrapping_add(i.wrapping_mul(7)) % 251) as u8
    }

    fn fill(p: *mut u8, len: usize, seed: usize) {
        for i in 0..len {
            // SAFETY: the tests own `len` bytes at `p`.
            unsafe { p.add(i).write(pattern(seed, i)) };
        }
    }

    fn check(p: *const u8, len: usize, seed: usize) {
        for i in 0..len {
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
        for size in (1..=MAX_SMALL).step_by(7).chain((0..CLASSES).map(class_size)) {
            for align in [1, 2, 4, 8, 16] {
                let l = layout(size, align);
                // SAFETY: non-zero size.
                let p = unsafe { a.alloc(l) };
                assert!(!p.is_null());
                assert_eq!(p as usize % 16, 0, "size {size} align {align}");
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
    fn a_freed_block_is_handed_out_again() {
        let a = SlabAlloc::new();
        for c in 0..CLASSES {
            let l = layout(class_size(c), 8);
            // SAFETY: non-zero sizes; each block is freed once, after its last use.
            unsafe {
                let p = a.alloc(l);
                a.dealloc(p, l);
                // Any size of the same class gets the same block back.
                let smaller = layout(class_size(c) - 3, 4);
                let q = a.alloc(smaller);
                assert_eq!(p, q, "class {c}");
                a.dealloc(q, smaller);
            }
        }
    }

    #[test]
    fn alloc_zeroed_zeroes_a_reused_block() {
        let a = SlabAlloc::new();
        for c in 0..CLASSES {
            let l = layout(class_size(c), 16);
            // SAFETY: non-zero sizes; blocks are freed once, after their last use.
            unsafe {
                let p = a.alloc(l);
                p.write_bytes(0xAB, l.size());
                a.dealloc(p, l);
                let q = a.alloc_zeroed(l);
                assert_eq!(p, q);
                assert!(std::slice::from_raw_parts(q, l.size()).iter().all(|&b| b == 0), "class {c}");
                a.dealloc(q, l);
            }
        }
    }

    #[test]
    fn realloc_keeps_contents_across_classes_and_into_system_blocks() {
        let a = SlabAlloc::new();
        let sizes = [1, 15, 16, 17, 100, 128, 129, 700, 2047, 2048, 2049, 5000, 70_000, 3000, 300, 24, 8];
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
        for (size, align) in [(MAX_SMALL + 1, 8), (1 << 20, 16), (8, 32), (100, 64), (3000, 4096)] {
            let l = layout(size, align);
            assert_eq!(small_class(l), None);
            // SAFETY: non-zero sizes; freed once with the same layout.
            unsafe {
                let p = a.alloc(l);
                assert!(!p.is_null());
                assert_eq!(p as usize % align, 0);
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
    fn blocks_freed_on_other_threads_keep_their_contents_and_are_reused() {
        static A: SlabAlloc = SlabAlloc::new();
        const PRODUCERS: usize = 3;
        const PER_PRODUCER: usize = 20_000;
        let (tx, rx) = mpsc::sync_channel::<(usize, usize, usize)>(256);
        let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
        let consumers: Vec<_> = (0..2)
            .map(|_| {
                let rx = rx.clone();
                std::thread::spawn(move || loop {
                    let msg = rx.lock().expect("receiver lock").recv();
                    let Ok((addr, size, seed)) = msg else { return };
                    let p = addr as *mut u8;
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
                        tx.send((p as usize, size, seed)).expect("consumers alive");
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
        // Everything was freed: a block of a class the threads used comes from its free list,
        // not from the bump region.
        // SAFETY: non-zero size; freed once.
        unsafe {
            let l = layout(40, 8);
            let next = A.bump.with(|b| b.next);
            let p = A.alloc(l);
            assert_eq!(A.bump.with(|b| b.next), next, "reused, not carved");
            let q = A.alloc(l);
            assert_ne!(p, q);
            A.dealloc(q, l);
            A.dealloc(p, l);
            assert_eq!(A.alloc(l), p);
            A.dealloc(p, l);
        }
    }
}
