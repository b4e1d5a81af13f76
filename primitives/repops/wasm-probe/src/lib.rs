//! Exports `run() -> *const u8`: 33 bytes, a status byte (1 = ok) then
//! `gensyn_repops::selftest::probe()`.

static mut OUT: [u8; 33] = [0u8; 33];

/// Runs the probe and returns a pointer to its result.
#[no_mangle]
pub extern "C" fn run() -> *const u8 {
	let mut out = [0u8; 33];
	if let Ok(h) = gensyn_repops::selftest::probe() {
		out[0] = 1;
		out[1..].copy_from_slice(&h);
	}
	// SAFETY: single-threaded wasm; nothing else touches OUT.
	unsafe {
		OUT = out;
		core::ptr::addr_of!(OUT) as *const u8
	}
}
