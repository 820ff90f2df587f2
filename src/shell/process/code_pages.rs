//! Dropping the executable's start-up code pages from the resident set once start-up is over.
//!
//! On a read fault in a file mapping the kernel maps the cached pages around the faulting one
//! too ("fault-around", 64 KiB by default), so touching one function per 64 KiB window of the
//! ~3.7 MB of code maps all of it: tracing the page faults of an idle start showed 55 faults
//! in the code mapping (one per distinct 64 KiB window) leaving 3.5 MiB of it resident, most of
//! it code that only start-up runs (configuration, TLS set-up, the first lists). `MADV_RANDOM`
//! does not turn fault-around off (measured: no change). Once the caches are synced,
//! [`release_startup_code`] unmaps the read-only segments of the executable (`MADV_DONTNEED`):
//! their pages stay in the page cache and whatever runs afterwards faults back in, again with
//! fault-around, so the resident code becomes what the scheduler runs from then on.

/// Tell the kernel to unmap the executable's read-only (code and constant) pages from this
/// process; best effort, a failure only leaves them resident. Writable segments are never
/// touched: dropping them would bring back the file's initial data.
pub fn release_startup_code() {
    // SAFETY: dl_iterate_phdr calls `each` with valid program headers of each loaded object.
    unsafe {
        libc::dl_iterate_phdr(Some(each), std::ptr::null_mut());
    }
}

/// `dl_iterate_phdr` callback for the first object (the executable): advise its segments that
/// are loaded and not writable, then stop the iteration.
unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _size: libc::size_t, _data: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `info` is valid for the duration of the callback.
    let info = unsafe { &*info };
    // The kernel's page size, not an assumed 4 KiB: arm64 kernels also run with 16 KiB
    // (Raspberry Pi 5) and 64 KiB pages, where rounding to 4 KiB would advise part of a page
    // shared with a writable segment.
    let Some(page) = page_size() else { return 1 };
    for i in 0..usize::from(info.dlpi_phnum) {
        // SAFETY: `dlpi_phdr` points at `dlpi_phnum` headers.
        let ph = unsafe { &*info.dlpi_phdr.add(i) };
        if ph.p_type != libc::PT_LOAD || ph.p_flags & libc::PF_W != 0 {
            continue;
        }
        let start = (info.dlpi_addr as usize).wrapping_add(ph.p_vaddr as usize);
        let end = start.wrapping_add(ph.p_memsz as usize);
        // Whole pages only: a page shared with a writable segment keeps its mapping.
        let Some(start) = start.checked_next_multiple_of(page) else { continue };
        let end = end - end % page;
        if end > start {
            // SAFETY: the range is this executable's own read-only mapping; dropping it loses
            // nothing (the next access maps the same file pages again).
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
        }
    }
    1
}

/// The kernel's page size (`sysconf(_SC_PAGESIZE)`), or `None` if it cannot be read or is not a
/// power of two (then nothing is advised).
pub fn page_size() -> Option<usize> {
    // SAFETY: sysconf only reads a configuration value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page).ok().filter(|p| p.is_power_of_two())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_page_size_is_the_kernels() {
        let page = super::page_size().expect("a page size");
        // Whatever the kernel uses (4, 16 or 64 KiB), a sane power of two.
        assert!(page.is_power_of_two() && (4096..=65536).contains(&page), "{page}");
    }
}
