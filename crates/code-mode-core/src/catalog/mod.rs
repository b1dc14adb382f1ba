//! The run-scoped tool catalog (SPEC section 5). Filled in by the catalog work.
