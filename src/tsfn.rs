//! A minimal threadsafe function that runs Rust on the JavaScript thread: the
//! only raw threadsafe-function code in the binding.
//!
//! Why not napi's typed `ThreadsafeFunction` (as rolldown uses): it is built
//! around one JavaScript function, and each value sent becomes that
//! function's arguments. Here a message is Rust work with no single callee:
//! a nested-call batch picks the executor of its agent run and calls
//! `host.js`'s `start`, an abort calls `abort`, and a failure is reported to
//! every call of the batch. So this is a small fork, as lightningcss keeps one
//! for its Node binding: no JavaScript callee, a Rust handler, and
//! unreferenced from the start so that it never keeps the process alive.
//!
//! Messages wait in the channel's own queue. While the JavaScript thread is
//! awake and polling it (a [`Poller`], called from `host.js` on each turn of
//! a busy event loop), sending one costs a lock and a push; only a thread
//! that is not polling is woken through the threadsafe function, once for
//! however many messages are waiting. Waking the event loop (a write to its
//! eventfd, and the thread's way back from `epoll_wait`) would otherwise be
//! paid on every nested call.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::{Arc, Weak};

use napi::{sys, Env, Result};
use parking_lot::Mutex;

type Handler<M> = Box<dyn Fn(&Env, M) + Send + Sync>;

/// The raw pointer; only used under [`Channel`]'s lock.
struct Raw(sys::napi_threadsafe_function);

// SAFETY: Node-API threadsafe functions may be called from any thread; the
// pointer is only used while the lock proves it was not released.
unsafe impl Send for Raw {}

struct Inner<M> {
    raw: Mutex<Option<Raw>>,
    handler: Handler<M>,
    queue: Mutex<Queue<M>>,
}

/// Messages not handled yet, and how the JavaScript thread will learn of
/// them: it polls, or a threadsafe call is already on its way.
struct Queue<M> {
    messages: Vec<M>,
    polling: bool,
    signalled: bool,
}

/// A queue from any thread to a handler on the JavaScript thread.
pub struct Channel<M: Send + 'static> {
    inner: Arc<Inner<M>>,
}

impl<M: Send + 'static> Channel<M> {
    /// Creates the channel on the JavaScript thread; `handler` runs there for
    /// each message sent, until the channel is closed or Node tears down.
    pub fn new(
        env: &Env,
        name: &str,
        handler: impl Fn(&Env, M) + Send + Sync + 'static,
    ) -> Result<Self> {
        let inner = Arc::new(Inner {
            raw: Mutex::new(None),
            handler: Box::new(handler),
            queue: Mutex::new(Queue {
                messages: Vec::new(),
                polling: false,
                signalled: false,
            }),
        });
        let js_name = env.create_string(name)?;
        let context = Arc::into_raw(inner.clone()) as *mut c_void;
        let mut raw = ptr::null_mut();
        // SAFETY: a Node-API call on the JS thread with valid arguments; the
        // context is the leaked `Arc`, reclaimed once by `finalize`.
        let status = unsafe {
            sys::napi_create_threadsafe_function(
                env.raw(),
                ptr::null_mut(),
                ptr::null_mut(),
                napi::JsValue::raw(&js_name),
                0,
                1,
                context,
                Some(finalize::<M>),
                context,
                Some(call_js::<M>),
                &mut raw,
            )
        };
        if status != sys::Status::napi_ok {
            // SAFETY: creation failed, so no finalizer will run: reclaim here.
            drop(unsafe { Arc::from_raw(context as *const Inner<M>) });
            return Err(napi::Error::from_status(napi::Status::from(status)));
        }
        // SAFETY: `raw` was just created on this thread.
        unsafe { sys::napi_unref_threadsafe_function(env.raw(), raw) };
        *inner.raw.lock() = Some(Raw(raw));
        Ok(Self { inner })
    }

    /// Queues `message` for the handler; dropped when the channel is closed.
    pub fn send(&self, message: M) {
        let guard = self.inner.raw.lock();
        let Some(raw) = guard.as_ref() else {
            return;
        };
        let signal = {
            let mut queue = self.inner.queue.lock();
            queue.messages.push(message);
            let signal = !queue.polling && !queue.signalled;
            queue.signalled |= signal;
            signal
        };
        if !signal {
            return;
        }
        // SAFETY: the pointer is live (checked under the lock); the call
        // carries no data.
        let status = unsafe {
            sys::napi_call_threadsafe_function(
                raw.0,
                ptr::null_mut(),
                sys::ThreadsafeFunctionCallMode::nonblocking,
            )
        };
        if status != sys::Status::napi_ok {
            // Node is tearing down: nothing will handle the queue.
            let mut queue = self.inner.queue.lock();
            queue.signalled = false;
            queue.messages.clear();
        }
    }

    /// A handle the JavaScript thread polls the queue with.
    pub fn poller(&self) -> Poller<M> {
        Poller {
            inner: Arc::downgrade(&self.inner),
        }
    }

    /// On the JavaScript thread: handles every message waiting now, whoever
    /// was to handle it (a result about to settle handles the aborts a
    /// worker sent before it, so that they come first).
    pub fn drain(&self, env: &Env) {
        self.inner.handle_waiting(env, Drain::Only);
    }

    /// Releases the threadsafe function. Queued messages are still handled.
    pub fn close(&self) {
        if let Some(raw) = self.inner.raw.lock().take() {
            // SAFETY: taken under the lock, so released exactly once.
            unsafe {
                sys::napi_release_threadsafe_function(
                    raw.0,
                    sys::ThreadsafeFunctionReleaseMode::release,
                )
            };
        }
    }
}

/// Lets the JavaScript thread take the channel's messages itself.
pub struct Poller<M> {
    inner: Weak<Inner<M>>,
}

impl<M> Poller<M> {
    /// On the JavaScript thread: handles every message waiting, and says
    /// whether this thread keeps polling (senders then do not wake it).
    pub fn poll(&self, env: &Env, keep_polling: bool) {
        if let Some(inner) = self.inner.upgrade() {
            inner.handle_waiting(env, Drain::Polling(keep_polling));
        }
    }
}

/// Who handles the waiting messages, and what that says about the channel.
enum Drain {
    /// The threadsafe function's call: the signal it answers is spent.
    Signal,
    /// A polling turn: whether this thread keeps polling.
    Polling(bool),
    /// Neither: the flags stay as they are.
    Only,
}

impl<M> Inner<M> {
    fn handle_waiting(&self, env: &Env, drain: Drain) {
        let messages = {
            let mut queue = self.queue.lock();
            match drain {
                Drain::Signal => queue.signalled = false,
                Drain::Polling(polling) => queue.polling = polling,
                Drain::Only => {}
            }
            std::mem::take(&mut queue.messages)
        };
        for message in messages {
            // A panic must not unwind into Node; the message is lost, nothing else.
            let _ = catch_unwind(AssertUnwindSafe(|| (self.handler)(env, message)));
        }
    }
}

unsafe extern "C" fn finalize<M>(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is the `Arc` leaked in `Channel::new`, reclaimed once here.
    let inner = unsafe { Arc::from_raw(data as *const Inner<M>) };
    inner.raw.lock().take();
}

unsafe extern "C" fn call_js<M>(
    env: sys::napi_env,
    _callback: sys::napi_value,
    context: *mut c_void,
    _data: *mut c_void,
) {
    // SAFETY: the context is the channel's `Inner`, alive until `finalize`,
    // after which Node calls this no more.
    let inner = unsafe { &*(context as *const Inner<M>) };
    if env.is_null() {
        inner.queue.lock().messages.clear();
        return;
    }
    let env = Env::from_raw(env);
    inner.handle_waiting(&env, Drain::Signal);
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// ARCHITECTURE.md "No Rust panic reaches Node": a handler that panics
    /// on the JavaScript thread loses its message, nothing else. The handler
    /// never touches the environment here, so a null one stands for Node's.
    #[test]
    fn a_panicking_handler_loses_its_message_only() {
        let handled = Arc::new(AtomicUsize::new(0));
        let count = handled.clone();
        let inner = Inner {
            raw: Mutex::new(None),
            handler: Box::new(move |_env: &Env, message: u32| {
                if message == 2 {
                    panic!("tsfn test: the handler panics");
                }
                count.fetch_add(1, Ordering::SeqCst);
            }),
            queue: Mutex::new(Queue {
                messages: vec![1, 2, 3],
                polling: false,
                signalled: true,
            }),
        };
        let env = Env::from_raw(ptr::null_mut());
        inner.handle_waiting(&env, Drain::Signal);
        assert_eq!(
            handled.load(Ordering::SeqCst),
            2,
            "messages 1 and 3 were handled"
        );
        let queue = inner.queue.lock();
        assert!(queue.messages.is_empty());
        assert!(!queue.signalled, "the signal was spent");
        drop(queue);
        // The channel keeps working after the panic.
        inner.queue.lock().messages.push(4);
        inner.handle_waiting(&env, Drain::Polling(true));
        assert_eq!(handled.load(Ordering::SeqCst), 3);
        assert!(inner.queue.lock().polling);
    }
}
