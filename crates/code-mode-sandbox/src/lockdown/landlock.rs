//! Landlock: the sandbox gives up every file access right (no rule grants
//! any back), TCP binds and connects, and reaching abstract Unix sockets or
//! signalling processes outside its own domain. Best effort: an older
//! kernel enforces what it knows ([`Landlock::Partial`]), and a kernel
//! without Landlock none ([`Landlock::Unavailable`]); the seccomp filter
//! refuses `open` and `socket` either way.

use landlock::{Access, AccessFs, AccessNet, RulesetAttr, RulesetStatus, Scope, ABI};

use super::{Error, Landlock};

/// The newest Landlock ABI this code asks for; the crate lowers it to the
/// running kernel's.
const ABI_WANTED: ABI = ABI::V6;

pub(super) fn restrict() -> Result<Landlock, Error> {
    let fail = |error: landlock::RulesetError| Error::new("landlock", error);
    let status = landlock::Ruleset::default()
        .handle_access(AccessFs::from_all(ABI_WANTED))
        .map_err(fail)?
        .handle_access(AccessNet::from_all(ABI_WANTED))
        .map_err(fail)?
        .scope(Scope::from_all(ABI_WANTED))
        .map_err(fail)?
        .create()
        .map_err(fail)?
        .restrict_self()
        .map_err(fail)?;
    Ok(match status.ruleset {
        RulesetStatus::FullyEnforced => Landlock::Full,
        RulesetStatus::PartiallyEnforced => Landlock::Partial,
        // The enum is non-exhaustive: anything else enforces nothing known.
        _ => Landlock::Unavailable,
    })
}
