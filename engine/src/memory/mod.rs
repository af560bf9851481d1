//! Large zero-initialised buffers (the transposition table) backed by huge pages where the OS
//! offers them: a table of many megabytes otherwise spends much of a probe on TLB misses. And the
//! prefetch hint the transposition table issues ahead of a probe, its one `unsafe` kept here.

use std::alloc::{alloc, dealloc, Layout};
use std::mem::MaybeUninit;
use std::ops::Deref;
use std::ptr::NonNull;

use bytemuck::Zeroable;

use available::available_bytes;

mod available;

/// Huge-page size on x86-64 Linux; aligning to it lets the kernel back the buffer with them.
const HUGE_PAGE: usize = 2 << 20;

/// Buffers up to this size (the default hash table) are left to the allocator alone: refusing
/// them on the OS's figure would leave the engine no table at all, and the figure can be low
/// while the kernel could still reclaim enough.
const ALWAYS_TRIED: usize = 16 << 20;

/// Starts loading the cache line that holds `value`, so that a read of it shortly after finds it
/// there; a hint only, which never faults.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        let ptr = (value as *const T).cast::<i8>();
        // SAFETY: a prefetch reads nothing into the program and never faults; the pointer comes
        // from a valid reference.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr) };
    }
    // Elsewhere std has no stable prefetch: the read loads the line when it comes.
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

pub struct LargeBuffer<T: Zeroable> {
    ptr: NonNull<T>,
    len: usize,
    layout: Layout,
}

// SAFETY: the buffer owns its elements like a Box<[T]> does, so it is Send/Sync exactly when T is.
unsafe impl<T: Zeroable + Send> Send for LargeBuffer<T> {}
// SAFETY: as above; shared access only hands out &T.
unsafe impl<T: Zeroable + Sync> Sync for LargeBuffer<T> {}

impl<T: Zeroable> LargeBuffer<T> {
    /// `len.max(1)` zeroed elements, or `None` if the memory cannot be had: if the allocator
    /// refuses it, or if it is more than the OS says is available to this process. Under
    /// overcommit the allocator grants more than there is, and the shortfall only shows when
    /// the pages are zeroed: then the OOM killer ends the engine mid-game. `threads` threads
    /// share the zeroing: one alone writes about 4 GiB a second, and where memory is spread
    /// over NUMA nodes each page lands near a thread that touched it.
    pub fn zeroed(len: usize, threads: usize) -> Option<Self> {
        const {
            assert!(
                std::mem::size_of::<T>() != 0 && !std::mem::needs_drop::<T>(),
                "plain data only: a non-zero size, and nothing to drop"
            )
        };
        let size = std::mem::size_of::<T>().checked_mul(len.max(1))?;
        if size > ALWAYS_TRIED && available_bytes().is_some_and(|available| size > available) {
            return None;
        }
        let align = if size >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            std::mem::align_of::<T>()
        };
        let layout = Layout::from_size_align(size, align.max(std::mem::align_of::<T>())).ok()?;
        // SAFETY: the layout has a non-zero size (len.max(1) elements of a non-zero-sized T).
        let ptr = NonNull::new(unsafe { alloc(layout) }.cast::<T>())?;
        #[cfg(target_os = "linux")]
        if size >= HUGE_PAGE {
            // SAFETY: the range is exactly the allocation just made; madvise is only a hint.
            unsafe { libc::madvise(ptr.as_ptr().cast(), size, libc::MADV_HUGEPAGE) };
        }
        // Zeroed after the hint, not by the allocator: touching the pages first would back
        // them with small pages before the kernel heard that huge ones are wanted.
        // SAFETY: the allocation is `size` bytes we own; MaybeUninit bytes need no initial value.
        let bytes = unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr().cast(), size) };
        let part = size.div_ceil(threads.max(1));
        std::thread::scope(|scope| {
            for chunk in bytes.chunks_mut(part) {
                scope.spawn(|| chunk.fill(MaybeUninit::<u8>::new(0)));
            }
        });
        Some(Self {
            ptr,
            len: len.max(1),
            layout,
        })
    }
}

impl<T: Zeroable> Deref for LargeBuffer<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: ptr points to len initialised (all-zero is a valid T by Zeroable) elements we own.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> Drop for LargeBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout; T has no drop glue (asserted there).
        unsafe { dealloc(self.ptr.as_ptr().cast(), self.layout) };
    }
}
