//! The model-visible surface (SPEC section 4). Filled in by the catalog work.
