//! Reading a channel by whichever thread is awake: what both ends of a
//! sandbox's socket do with what arrives.
//!
//! Each end has a thread that waits for the socket to be readable. Threads
//! that are polling anyway (a sandbox worker waiting for a settlement, the
//! Node thread in its keep-hot turns) read it too, without waiting, so
//! that a frame seldom needs a sleeping thread woken to be handled. What
//! has been read and not handled yet is kept here, so whoever reads next
//! goes on from it; frames are handled in order, one reader at a time.

use std::os::fd::RawFd;

use parking_lot::Mutex;

use crate::wire;

/// How the channel ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The other end closed it (or it failed).
    Closed,
    /// It sent what cannot be read, or a frame its handler refused.
    Broken(String),
}

/// What one [`Inbound::pump`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Pumped {
    /// Another thread is reading: nothing done.
    Busy,
    /// Read what there was; `left` is whether a whole frame is left for a
    /// thread that may handle any frame (one longer than `light`).
    Read {
        left: bool,
    },
    Ended(Ended),
}

#[derive(Default)]
struct State {
    bytes: Vec<u8>,
    ended: Option<Ended>,
}

/// The bytes of one channel read and not handled yet.
#[derive(Default)]
pub struct Inbound {
    state: Mutex<State>,
}

impl Inbound {
    /// Bytes read before the frames began (after a start line).
    pub fn prepend(&self, bytes: &[u8]) {
        let mut state = self.state.lock();
        let mut all = bytes.to_vec();
        all.append(&mut state.bytes);
        state.bytes = all;
    }

    /// Reads what `fd` holds now, without waiting for more, and hands each
    /// whole frame's body to `handle`, in order. `wait` says whether to
    /// wait for a thread reading already (else [`Pumped::Busy`]). With
    /// `light`, a frame longer than that is left, with the ones after it,
    /// for a thread that may handle any.
    pub fn pump(
        &self,
        fd: RawFd,
        wait: bool,
        light: Option<usize>,
        mut handle: impl FnMut(&[u8]) -> Result<(), String>,
    ) -> Pumped {
        let mut state = match wait {
            true => self.state.lock(),
            false => match self.state.try_lock() {
                Some(state) => state,
                None => return Pumped::Busy,
            },
        };
        let mut chunk = [0u8; 16 * 1024];
        while state.ended.is_none() {
            // SAFETY: `chunk` is a live buffer of its length; `fd` is the
            // caller's open socket.
            let got = unsafe {
                libc::recv(
                    fd,
                    chunk.as_mut_ptr().cast(),
                    chunk.len(),
                    libc::MSG_DONTWAIT,
                )
            };
            match got {
                0 => state.ended = Some(Ended::Closed),
                n if n > 0 => state.bytes.extend_from_slice(&chunk[..n as usize]),
                _ => match std::io::Error::last_os_error().kind() {
                    std::io::ErrorKind::Interrupted => {}
                    std::io::ErrorKind::WouldBlock => break,
                    _ => state.ended = Some(Ended::Closed),
                },
            }
        }
        let mut at = 0;
        let mut left = false;
        while state.bytes.len() - at >= 4 {
            let mut header = [0; 4];
            header.copy_from_slice(&state.bytes[at..at + 4]);
            let len = match wire::frame_len(header) {
                Ok(len) => len,
                Err(error) => {
                    state.ended = Some(Ended::Broken(error.0));
                    break;
                }
            };
            if state.bytes.len() - at - 4 < len {
                break;
            }
            if light.is_some_and(|light| len > light) {
                left = true;
                break;
            }
            let handled = handle(&state.bytes[at + 4..at + 4 + len]);
            at += 4 + len;
            if let Err(reason) = handled {
                state.ended = Some(Ended::Broken(reason));
                break;
            }
        }
        state.bytes.drain(..at);
        match &state.ended {
            // Frames read before the end still count: the end is told
            // once nothing whole is left.
            Some(Ended::Closed) if left => Pumped::Read { left },
            Some(ended) => Pumped::Ended(ended.clone()),
            None => Pumped::Read { left },
        }
    }
}

/// Waits until one of `fds` has something to read (or has ended).
pub fn wait_readable(fds: &[RawFd]) {
    let mut polls: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: `polls` holds one pollfd per open descriptor; no timeout
    // (null), no signal mask (null).
    unsafe {
        libc::ppoll(
            polls.as_mut_ptr(),
            polls.len() as libc::nfds_t,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
}
