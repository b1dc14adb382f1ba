//! A counting allocator for one QuickJS runtime: O(1) heap size (the figure a
//! parked run reports) and an out-of-memory flag the guest cannot catch away.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use rquickjs::allocator::Allocator;

/// Shared between the allocator (inside QuickJS) and the host.
#[derive(Debug)]
pub struct Meter {
    used: AtomicUsize,
    limit: AtomicUsize,
    exhausted: AtomicBool,
}

impl Meter {
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            used: AtomicUsize::new(0),
            limit: AtomicUsize::new(limit),
            exhausted: AtomicBool::new(false),
        })
    }

    /// Bytes the runtime holds now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    pub fn set_limit(&self, limit: usize) {
        self.limit.store(limit, Ordering::Relaxed);
    }

    /// Whether an allocation was refused for the limit since the runtime started.
    pub fn exhausted(&self) -> bool {
        self.exhausted.load(Ordering::Relaxed)
    }

    fn admit(&self, extra: usize) -> bool {
        if self.used().saturating_add(extra) > self.limit.load(Ordering::Relaxed) {
            self.exhausted.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }
}

pub struct CountingAllocator {
    meter: Arc<Meter>,
}

impl CountingAllocator {
    pub fn new(meter: Arc<Meter>) -> Self {
        Self { meter }
    }

    fn charge(&self, ptr: *mut u8) -> *mut u8 {
        if !ptr.is_null() {
            // SAFETY: `ptr` was just returned by the system allocator.
            let size = unsafe { heap::usable_size(ptr) };
            self.meter.used.fetch_add(size, Ordering::Relaxed);
        }
        ptr
    }
}

// SAFETY: every call is forwarded to the system allocator (malloc and friends,
// whose pointers are aligned for any QuickJS value); this wrapper only counts
// usable sizes and refuses requests over the limit.
unsafe impl Allocator for CountingAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        if !self.meter.admit(size) {
            return std::ptr::null_mut();
        }
        // SAFETY: `heap::malloc` has no precondition.
        let ptr = unsafe { heap::malloc(size) };
        self.charge(ptr)
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        let Some(total) = count.checked_mul(size) else {
            return std::ptr::null_mut();
        };
        if !self.meter.admit(total) {
            return std::ptr::null_mut();
        }
        // SAFETY: `heap::calloc` has no precondition.
        let ptr = unsafe { heap::calloc(count, size) };
        self.charge(ptr)
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        // SAFETY: QuickJS only frees pointers this allocator returned.
        let size = unsafe { heap::usable_size(ptr) };
        self.meter.used.fetch_sub(size, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { heap::free(ptr) }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        // rquickjs forwards C `realloc` as is: NULL means allocate, size 0 means free.
        if ptr.is_null() {
            return self.alloc(new_size);
        }
        if new_size == 0 {
            // SAFETY: `ptr` is non-null and came from this allocator.
            unsafe { self.dealloc(ptr) };
            return std::ptr::null_mut();
        }
        // SAFETY: QuickJS only reallocates pointers this allocator returned.
        let old = unsafe { heap::usable_size(ptr) };
        if new_size > old && !self.meter.admit(new_size - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: as above; on failure the old block is untouched.
        let new = unsafe { heap::realloc(ptr, new_size) };
        if !new.is_null() {
            // SAFETY: `new` was just returned by the system allocator.
            let size = unsafe { heap::usable_size(new) };
            self.meter.used.fetch_sub(old, Ordering::Relaxed);
            self.meter.used.fetch_add(size, Ordering::Relaxed);
        }
        new
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: QuickJS only asks about blocks this allocator returned.
        unsafe { heap::usable_size(ptr) }
    }
}

/// The system allocator, with no per-block header: a parked VM is mostly many
/// small blocks, and a 16-byte header on each (as rquickjs's `RustAllocator`
/// adds) made a minimal parked run a third larger.
mod heap {
    use std::ffi::c_void;

    /// # Safety
    /// Plain `malloc`: always sound to call; the caller owns the block.
    pub unsafe fn malloc(size: usize) -> *mut u8 {
        // SAFETY: `malloc` accepts any size; 0 is bumped to 1 so a non-null
        // pointer always means a real block.
        unsafe { libc::malloc(size.max(1)) }.cast()
    }

    /// # Safety
    /// Plain `calloc`: always sound to call; the caller owns the block.
    pub unsafe fn calloc(count: usize, size: usize) -> *mut u8 {
        // SAFETY: `calloc` checks `count * size` for overflow itself.
        unsafe { libc::calloc(count.max(1), size.max(1)) }.cast()
    }

    /// # Safety
    /// `ptr` is null or a live block from this module.
    pub unsafe fn realloc(ptr: *mut u8, size: usize) -> *mut u8 {
        // SAFETY: the caller passes a block from `malloc`/`calloc`/`realloc`.
        unsafe { libc::realloc(ptr.cast::<c_void>(), size) }.cast()
    }

    /// # Safety
    /// `ptr` is a live block from this module, freed once.
    pub unsafe fn free(ptr: *mut u8) {
        // SAFETY: the caller passes a live block and never uses it again.
        unsafe { libc::free(ptr.cast::<c_void>()) }
    }

    /// # Safety
    /// `ptr` is a live block from this module.
    #[cfg(not(target_vendor = "apple"))]
    pub unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: the caller passes a live block of the system allocator.
        unsafe { libc::malloc_usable_size(ptr.cast::<c_void>()) }
    }

    /// # Safety
    /// `ptr` is a live block from this module.
    #[cfg(target_vendor = "apple")]
    pub unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: the caller passes a live block of the system allocator.
        unsafe { libc::malloc_size(ptr.cast::<c_void>().cast_const()) }
    }
}
