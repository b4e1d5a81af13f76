//! Embeds the git commit and rebuild triggers into the node's version string, and
//! libtorch's directory into the binary's run path.

use substrate_build_script_utils::{generate_cargo_keys, rerun_if_git_head_changed};

fn main() {
	generate_cargo_keys();
	rerun_if_git_head_changed();
	// torch-sys (`links = "tch"`) tells the crates that depend on it where libtorch is.
	// As the run path, `gensyn-node` starts from any shell, without `LD_LIBRARY_PATH`.
	if let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
		println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{dir}");
	}
}
