//! The allocator of one QuickJS runtime: it counts (an O(1) heap size, the
//! figure a parked run reports), refuses past the limit (an out-of-memory
//! flag the guest cannot catch away), and keeps every block it handed out on
//! a list, so that a runtime QuickJS could not free in full (a reference
//! leaked inside the engine) is still released in full when it is dropped.
//!
//! QuickJS serves small blocks from arenas of its own and asks this
//! allocator for arenas and for blocks over 512 bytes, so the list's 16-byte
//! header sits on comparatively few, large blocks.

use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use rquickjs::allocator::Allocator;

/// Shared between the allocator (inside QuickJS) and the host.
#[derive(Debug)]
pub struct Meter {
    used: AtomicUsize,
    limit: AtomicUsize,
    exhausted: AtomicBool,
    /// Set to 1 by the vendored `JS_FreeRuntime` when objects were still
    /// alive after its last collection (`JS_SetTeardownLeakFlag`).
    leaked: AtomicI32,
    /// Blocks and bytes the allocator released itself when it was dropped
    /// (QuickJS had not freed them).
    reclaimed: AtomicUsize,
    reclaimed_bytes: AtomicUsize,
    /// Tests and fuzzing only (feature `test-hooks`): the engine's
    /// allocations counted since a fault was planned, the ordinal of the one
    /// to refuse, and whether it was (`JS_SetAllocationFault`).
    #[cfg(feature = "test-hooks")]
    allocations: AtomicU64,
    fail_at: AtomicU64,
    faulted: AtomicI32,
}

impl Meter {
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            used: AtomicUsize::new(0),
            limit: AtomicUsize::new(limit),
            exhausted: AtomicBool::new(false),
            leaked: AtomicI32::new(0),
            reclaimed: AtomicUsize::new(0),
            reclaimed_bytes: AtomicUsize::new(0),
            #[cfg(feature = "test-hooks")]
            allocations: AtomicU64::new(0),
            fail_at: AtomicU64::new(0),
            faulted: AtomicI32::new(0),
        })
    }

    /// Bytes the runtime holds now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    pub fn set_limit(&self, limit: usize) {
        self.limit.store(limit, Ordering::Relaxed);
    }

    /// Whether an allocation was refused for the limit since the runtime
    /// started (or failed by a planned fault, which stands for it).
    pub fn exhausted(&self) -> bool {
        self.exhausted.load(Ordering::Relaxed) || self.faulted.load(Ordering::Relaxed) != 0
    }

    /// The word the vendored QuickJS sets when its teardown found leaked
    /// objects; valid while this meter lives (the allocator holds it until
    /// after `JS_FreeRuntime`).
    pub fn leak_flag(&self) -> *mut i32 {
        self.leaked.as_ptr()
    }

    /// Whether the runtime was retired: QuickJS's teardown found objects it
    /// could not free, or left blocks the allocator released itself.
    pub fn retired(&self) -> bool {
        self.leaked.load(Ordering::Relaxed) != 0 || self.reclaimed.load(Ordering::Relaxed) != 0
    }

    /// Blocks (and their bytes) the allocator released at its drop.
    #[cfg(test)]
    pub fn reclaimed(&self) -> (usize, usize) {
        (
            self.reclaimed.load(Ordering::Relaxed),
            self.reclaimed_bytes.load(Ordering::Relaxed),
        )
    }

    /// Plans a fault: the engine's allocation number `nth` from now (the
    /// first is number 1) fails. Returns the words `JS_SetAllocationFault`
    /// takes: the count, the ordinal and the hit flag, valid while the meter
    /// lives.
    #[cfg(feature = "test-hooks")]
    pub fn plan_fault(&self, nth: u64) -> (*mut u64, *const u64, *mut i32) {
        self.allocations.store(0, Ordering::Relaxed);
        self.fail_at.store(nth, Ordering::Relaxed);
        (
            self.allocations.as_ptr(),
            self.fail_at.as_ptr().cast_const(),
            self.faulted.as_ptr(),
        )
    }

    /// Fails nothing more for a planned fault (allocations are still counted
    /// when one was planned): the VM's teardown never fails.
    pub fn disarm(&self) {
        self.fail_at.store(u64::MAX, Ordering::Relaxed);
    }

    /// The engine's allocations since the fault was planned.
    #[cfg(feature = "test-hooks")]
    pub fn allocations(&self) -> u64 {
        self.allocations.load(Ordering::Relaxed)
    }

    fn admit(&self, extra: usize) -> bool {
        if self.used().saturating_add(extra) > self.limit.load(Ordering::Relaxed) {
            self.exhausted.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }
}

/// The links every block carries in front of what QuickJS sees. 16 bytes,
/// so the pointer handed out keeps `malloc`'s alignment.
#[repr(C, align(16))]
struct Links {
    prev: *mut Links,
    next: *mut Links,
}

const HEADER: usize = std::mem::size_of::<Links>();

pub struct CountingAllocator {
    meter: Arc<Meter>,
    /// The list's sentinel, boxed so the list survives the allocator moving.
    blocks: Box<Links>,
}

// SAFETY: the raw pointers are the allocator's own list of blocks, which only
// the allocator touches; a runtime (and with it its allocator) is used by one
// thread at a time and moves between threads as one unit (`sandbox::vm::Vm`).
unsafe impl Send for CountingAllocator {}

impl CountingAllocator {
    pub fn new(meter: Arc<Meter>) -> Self {
        let mut blocks = Box::new(Links {
            prev: ptr::null_mut(),
            next: ptr::null_mut(),
        });
        let sentinel: *mut Links = &mut *blocks;
        blocks.prev = sentinel;
        blocks.next = sentinel;
        Self { meter, blocks }
    }

    fn sentinel(&mut self) -> *mut Links {
        &mut *self.blocks
    }

    /// Links a block fresh from the system allocator, counts it, and returns
    /// the pointer QuickJS gets.
    ///
    /// # Safety
    /// `block` is null or a live block of `heap` of at least `HEADER` bytes,
    /// not on the list.
    unsafe fn adopt(&mut self, block: *mut u8) -> *mut u8 {
        if block.is_null() {
            return ptr::null_mut();
        }
        let links = block.cast::<Links>();
        let sentinel = self.sentinel();
        // SAFETY: the sentinel is a live node.
        let first = unsafe { links::next(sentinel) };
        // SAFETY: `links` is the header of the caller's fresh block, suitably
        // aligned (`malloc`'s alignment is at least `Links`'s).
        unsafe {
            links.write(Links {
                prev: sentinel,
                next: first,
            })
        };
        // SAFETY: `first` is a live node (a linked block, or the sentinel).
        unsafe { links::set_prev(first, links) };
        // SAFETY: the sentinel is a live node.
        unsafe { links::set_next(sentinel, links) };
        // SAFETY: `block` is a live block of `heap`.
        let size = unsafe { heap::usable_size(block) };
        self.meter.used.fetch_add(size, Ordering::Relaxed);
        block.wrapping_add(HEADER)
    }

    /// Takes a block handed out to QuickJS off the list and uncounts it;
    /// returns the system allocator's block.
    ///
    /// # Safety
    /// `ptr` is a pointer this allocator returned and has not freed.
    unsafe fn release(&mut self, ptr: *mut u8) -> *mut u8 {
        // The header sits `HEADER` bytes before what QuickJS got.
        let block = ptr.wrapping_sub(HEADER);
        let links = block.cast::<Links>();
        // SAFETY: the caller passes a block of this allocator: its header is
        // a live node, whose neighbours are live nodes.
        unsafe { links::unlink(links) };
        // SAFETY: as above, `block` is a live block of `heap`.
        let size = unsafe { heap::usable_size(block) };
        self.meter.used.fetch_sub(size, Ordering::Relaxed);
        block
    }
}

impl Drop for CountingAllocator {
    /// Releases what QuickJS did not free: nothing, after a clean
    /// `JS_FreeRuntime`; the blocks of leaked objects after a retired one.
    fn drop(&mut self) {
        let sentinel = self.sentinel();
        let (mut count, mut bytes) = (0, 0);
        // SAFETY: the sentinel is a live node.
        let mut links = unsafe { links::next(sentinel) };
        while links != sentinel {
            // SAFETY: every node but the sentinel is the header of a live
            // block of `heap` that QuickJS no longer uses: the runtime is
            // gone when its allocator drops.
            let next = unsafe { links::next(links) };
            let block = links.cast::<u8>();
            // SAFETY: as above.
            bytes += unsafe { heap::usable_size(block) };
            count += 1;
            // SAFETY: as above; the block is freed once, and never read again.
            unsafe { heap::free(block) };
            links = next;
        }
        // The list is empty again.
        self.blocks.prev = sentinel;
        self.blocks.next = sentinel;
        if count != 0 {
            self.meter.used.fetch_sub(bytes, Ordering::Relaxed);
            self.meter.reclaimed.fetch_add(count, Ordering::Relaxed);
            self.meter
                .reclaimed_bytes
                .fetch_add(bytes, Ordering::Relaxed);
        }
    }
}

/// The list's node operations, one pointer access each.
mod links {
    use super::Links;

    /// # Safety
    /// `node` is a live node.
    pub unsafe fn next(node: *mut Links) -> *mut Links {
        // SAFETY: the caller's.
        unsafe { (*node).next }
    }

    /// # Safety
    /// `node` is a live node.
    pub unsafe fn set_next(node: *mut Links, next: *mut Links) {
        // SAFETY: the caller's.
        unsafe { (*node).next = next }
    }

    /// # Safety
    /// `node` is a live node.
    pub unsafe fn set_prev(node: *mut Links, prev: *mut Links) {
        // SAFETY: the caller's.
        unsafe { (*node).prev = prev }
    }

    /// Takes `node` off the list.
    ///
    /// # Safety
    /// `node` is a live node other than the sentinel.
    pub unsafe fn unlink(node: *mut Links) {
        // SAFETY: the caller's: a live node.
        let Links { prev, next } = unsafe { node.read() };
        // SAFETY: the neighbours of a live node are live nodes.
        unsafe { set_next(prev, next) };
        // SAFETY: as above.
        unsafe { set_prev(next, prev) };
    }
}

// SAFETY: every block comes from the system allocator (malloc and friends,
// whose pointers are aligned for any QuickJS value) with a 16-byte header in
// front, so the pointer handed out keeps that alignment; this wrapper counts
// usable sizes, refuses requests over the limit, and links each block.
unsafe impl Allocator for CountingAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        let Some(total) = size.checked_add(HEADER) else {
            return ptr::null_mut();
        };
        if !self.meter.admit(total) {
            return ptr::null_mut();
        }
        // SAFETY: `heap::malloc` has no precondition.
        let block = unsafe { heap::malloc(total) };
        // SAFETY: null, or a fresh block of `total` bytes.
        unsafe { self.adopt(block) }
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        let Some(total) = count.checked_mul(size).and_then(|n| n.checked_add(HEADER)) else {
            return ptr::null_mut();
        };
        if !self.meter.admit(total) {
            return ptr::null_mut();
        }
        // SAFETY: `heap::calloc` has no precondition.
        let block = unsafe { heap::calloc(1, total) };
        // SAFETY: null, or a fresh zeroed block of `total` bytes (the header
        // is overwritten by `adopt`).
        unsafe { self.adopt(block) }
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        // SAFETY: QuickJS only frees pointers this allocator returned, once.
        let block = unsafe { self.release(ptr) };
        // SAFETY: the block is off the list and never used again.
        unsafe { heap::free(block) }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        // rquickjs forwards C `realloc` as is: NULL means allocate, size 0 means free.
        if ptr.is_null() {
            return self.alloc(new_size);
        }
        if new_size == 0 {
            // SAFETY: `ptr` is non-null and came from this allocator.
            unsafe { self.dealloc(ptr) };
            return ptr::null_mut();
        }
        let Some(total) = new_size.checked_add(HEADER) else {
            return ptr::null_mut();
        };
        // SAFETY: QuickJS only reallocates pointers this allocator returned.
        let old = unsafe { heap::usable_size(ptr.wrapping_sub(HEADER)) };
        if total > old && !self.meter.admit(total - old) {
            return ptr::null_mut();
        }
        // The block leaves the list while the system allocator moves it; on
        // failure it is untouched and goes back on the list.
        // SAFETY: as above.
        let block = unsafe { self.release(ptr) };
        // SAFETY: `block` is a live block of `heap`, off the list.
        let moved = unsafe { heap::realloc(block, total) };
        if moved.is_null() {
            // SAFETY: the untouched block, off the list.
            unsafe { self.adopt(block) };
            return ptr::null_mut();
        }
        // SAFETY: the moved block, of `total` bytes, off the list.
        unsafe { self.adopt(moved) }
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: QuickJS only asks about blocks this allocator returned.
        unsafe { heap::usable_size(ptr.wrapping_sub(HEADER)) - HEADER }
    }
}

/// The system allocator, with no header of its own.
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
