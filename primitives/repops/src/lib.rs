//! Reproducible tensor operators (work in progress).
#![cfg_attr(not(feature = "std"), no_std)]
