//! Embeds the git commit and rebuild triggers into the node's version string.

use substrate_build_script_utils::{generate_cargo_keys, rerun_if_git_head_changed};

fn main() {
	generate_cargo_keys();
	rerun_if_git_head_changed();
}
