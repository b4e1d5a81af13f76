//! Shared harness for the end-to-end tests: real `gensyn-node` processes on 127.0.0.1,
//! reached over plain JSON-RPC, each killed (by its own pid) when dropped.

#![allow(dead_code)]

use std::{
	io::{BufRead, BufReader, Read, Write},
	net::{TcpListener, TcpStream},
	path::PathBuf,
	process::{Child, Command, Stdio},
	sync::{
		atomic::{AtomicBool, Ordering},
		Arc, Mutex,
	},
	time::{Duration, Instant},
};

use serde_json::{json, Value};

/// The node binary cargo built for these tests.
pub fn node_bin() -> PathBuf {
	PathBuf::from(env!("CARGO_BIN_EXE_gensyn-node"))
}

/// The repository root.
pub fn repo_root() -> PathBuf {
	PathBuf::from(manifest_dir()).join("..")
}

/// A TCP port that was free a moment ago on 127.0.0.1.
pub fn free_port() -> u16 {
	TcpListener::bind("127.0.0.1:0")
		.and_then(|l| l.local_addr())
		.map(|a| a.port())
		.expect("a free port")
}

/// A running node: its process, RPC port and captured log.
pub struct Node {
	/// Name used in assertion messages.
	pub name: String,
	child: Option<Child>,
	/// JSON-RPC port on 127.0.0.1.
	pub rpc_port: u16,
	/// libp2p port on 127.0.0.1.
	pub p2p_port: u16,
	log: Arc<Mutex<String>>,
	/// Set once the process's output streams close, i.e. it exited.
	exited: Arc<AtomicBool>,
}

impl Node {
	/// Starts `gensyn-node` with `args` plus loopback ports; the log is captured.
	pub fn start<A: AsRef<std::ffi::OsStr>>(name: &str, args: &[A]) -> Node {
		let rpc_port = free_port();
		let p2p_port = free_port();
		let mut cmd = Command::new(node_bin());
		cmd.args(args)
			.args(["--rpc-port", &rpc_port.to_string()])
			.args(["--no-prometheus", "--no-telemetry", "--no-mdns", "--rpc-cors", "all"])
			.args(["--listen-addr", &format!("/ip4/127.0.0.1/tcp/{p2p_port}")])
			.env("RUST_LOG", "info")
			.stdin(Stdio::null())
			.stdout(Stdio::piped())
			.stderr(Stdio::piped());
		let mut child = cmd.spawn().expect("gensyn-node starts");
		let log = Arc::new(Mutex::new(String::new()));
		let exited = Arc::new(AtomicBool::new(false));
		for stream in [
			child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
			child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
		]
		.into_iter()
		.flatten()
		{
			let log = log.clone();
			let exited = exited.clone();
			let tag = name.to_string();
			std::thread::spawn(move || {
				for line in BufReader::new(stream).lines().map_while(Result::ok) {
					if std::env::var_os("GENSYN_TEST_VERBOSE").is_some() {
						eprintln!("[{tag}] {line}");
					}
					if let Ok(mut log) = log.lock() {
						log.push_str(&line);
						log.push('\n');
					}
				}
				exited.store(true, Ordering::SeqCst);
			});
		}
		Node { name: name.into(), child: Some(child), rpc_port, p2p_port, log, exited }
	}

	/// The libp2p peer id the node logs at start (waits up to a minute for it).
	pub fn peer_id(&self) -> String {
		let mut id = None;
		self.wait_until("local peer id in the log", Duration::from_secs(60), |n| {
			id = n.log().lines().find_map(|l| {
				l.split("Local node identity is: ").nth(1).map(|s| s.trim().to_string())
			});
			id.is_some()
		});
		id.unwrap_or_default()
	}

	/// Everything the node has printed so far.
	pub fn log(&self) -> String {
		self.log.lock().map(|l| l.clone()).unwrap_or_default()
	}

	/// The websocket URL of the RPC server.
	pub fn ws_url(&self) -> String {
		format!("ws://127.0.0.1:{}", self.rpc_port)
	}

	/// Whether the process is still running.
	pub fn is_running(&mut self) -> bool {
		matches!(self.child.as_mut().map(|c| c.try_wait()), Some(Ok(None)))
	}

	/// Kills the process (by its pid) and waits for it.
	pub fn kill(&mut self) {
		if let Some(mut child) = self.child.take() {
			let _ = child.kill();
			let _ = child.wait();
		}
	}

	/// One JSON-RPC call over HTTP; `None` while the server is not up.
	pub fn rpc(&self, method: &str, params: Value) -> Option<Value> {
		let body =
			json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
		let mut stream = TcpStream::connect(("127.0.0.1", self.rpc_port)).ok()?;
		stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
		let request = format!(
			"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
			body.len(),
			body
		);
		stream.write_all(request.as_bytes()).ok()?;
		let mut response = String::new();
		stream.read_to_string(&mut response).ok()?;
		let json_start = response.find("\r\n\r\n")? + 4;
		let value: Value = serde_json::from_str(response[json_start..].trim()).ok()?;
		value.get("result").cloned()
	}

	/// Best block number.
	pub fn best_number(&self) -> Option<u64> {
		let header = self.rpc("chain_getHeader", json!([]))?;
		parse_hex_u64(header.get("number")?.as_str()?)
	}

	/// Finalized block number.
	pub fn finalized_number(&self) -> Option<u64> {
		let hash = self.rpc("chain_getFinalizedHead", json!([]))?;
		let header = self.rpc("chain_getHeader", json!([hash]))?;
		parse_hex_u64(header.get("number")?.as_str()?)
	}

	/// BABE authority index that authored block `number` (from its pre-runtime digest).
	pub fn babe_author_index(&self, number: u64) -> Option<u32> {
		let hash = self.rpc("chain_getBlockHash", json!([number]))?;
		let header = self.rpc("chain_getHeader", json!([hash]))?;
		header
			.get("digest")?
			.get("logs")?
			.as_array()?
			.iter()
			.filter_map(|log| log.as_str())
			.find_map(babe_authority_from_log)
	}

	/// Waits until `check` holds for this node, or panics with the node's log tail.
	pub fn wait_until(&self, what: &str, timeout: Duration, mut check: impl FnMut(&Node) -> bool) {
		let start = Instant::now();
		let mut reason = format!("timed out after {timeout:?}");
		while start.elapsed() < timeout {
			if check(self) {
				return;
			}
			if self.exited.load(Ordering::SeqCst) {
				reason = "the node exited".into();
				break;
			}
			std::thread::sleep(Duration::from_millis(500));
		}
		let log = self.log();
		let tail: String = log
			.lines()
			.rev()
			.take(40)
			.collect::<Vec<_>>()
			.into_iter()
			.rev()
			.collect::<Vec<_>>()
			.join("\n");
		panic!("{}: {reason} waiting for {what}\n--- log tail ---\n{tail}", self.name);
	}
}

impl Drop for Node {
	fn drop(&mut self) {
		self.kill();
	}
}

/// Parses a `0x`-prefixed hex number.
pub fn parse_hex_u64(s: &str) -> Option<u64> {
	u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

/// Decodes the authority index from a BABE pre-runtime digest log (hex), if it is one:
/// `06` (PreRuntime) `42414245` ("BABE") compact-length, then the PreDigest variant byte
/// and the little-endian u32 authority index.
pub fn babe_authority_from_log(log_hex: &str) -> Option<u32> {
	let bytes = hex_decode(log_hex.trim_start_matches("0x"))?;
	if bytes.len() < 11 || bytes[0] != 6 || &bytes[1..5] != b"BABE" {
		return None;
	}
	let len_prefix = match bytes[5] & 0b11 {
		0 => 1,
		1 => 2,
		2 => 4,
		_ => return None,
	};
	let data = bytes.get(5 + len_prefix..)?;
	let index = data.get(1..5)?;
	Some(u32::from_le_bytes([index[0], index[1], index[2], index[3]]))
}

/// Bytes from hex digits (no `0x`); None when they are not.
pub fn hex_decode(s: &str) -> Option<Vec<u8>> {
	(0..s.len())
		.step_by(2)
		.map(|i| s.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok()))
		.collect()
}

/// Runs a polkadot.js script from scripts/js and returns (success, stdout, stderr).
pub fn run_js(script: &str, args: &[&str]) -> (bool, String, String) {
	let dir = repo_root().join("scripts/js");
	assert!(
		dir.join("node_modules/@polkadot/api").exists(),
		"scripts/js/node_modules is missing: run scripts/setup.sh first"
	);
	let out = Command::new("node")
		.arg(dir.join(script))
		.args(args)
		.current_dir(&dir)
		.output()
		.expect("node (Node.js) runs");
	(
		out.status.success(),
		String::from_utf8_lossy(&out.stdout).into_owned(),
		String::from_utf8_lossy(&out.stderr).into_owned(),
	)
}

/// The virtualenv's Python (scripts/setup-torch.sh: torch and the Python client's
/// packages), `$GENSYN_VENV` or ~/.cache/gensyn-node/venv.
pub fn venv_python() -> PathBuf {
	let venv = std::env::var("GENSYN_VENV").map(PathBuf::from).unwrap_or_else(|_| {
		PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cache/gensyn-node/venv")
	});
	let python = venv.join("bin/python");
	assert!(python.exists(), "{} is missing: run scripts/setup.sh first", python.display());
	python
}

/// Runs the Python client (scripts/py/gensyn_client.py) with `args`; returns (success,
/// stdout, stderr).
pub fn run_py(args: &[&str]) -> (bool, String, String) {
	let out = Command::new(venv_python())
		.arg(repo_root().join("scripts/py/gensyn_client.py"))
		.args(args)
		.current_dir(repo_root())
		.output()
		.expect("the virtualenv's python runs");
	(
		out.status.success(),
		String::from_utf8_lossy(&out.stdout).into_owned(),
		String::from_utf8_lossy(&out.stderr).into_owned(),
	)
}

/// Runs the Python client, which must succeed; its `RESULT` JSON and its stdout.
pub fn py_ok(args: &[&str]) -> (Value, String) {
	let (ok, stdout, stderr) = run_py(args);
	assert!(ok, "gensyn_client.py {args:?} failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
	(tagged_json(&stdout, "RESULT "), stdout)
}

/// The package directory of this checkout: cargo's variable at run time (a build reused
/// from another checkout through a shared target directory keeps the old compile-time
/// path), the compile-time one otherwise.
fn manifest_dir() -> String {
	std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string())
}

/// The JSON after the last line of `stdout` that starts with `prefix` (the scripts print
/// `RESULT {json}` last, and `--follow` adds `OUTCOME {json}`).
pub fn tagged_json(stdout: &str, prefix: &str) -> Value {
	let line = stdout
		.lines()
		.rev()
		.find_map(|l| l.strip_prefix(prefix))
		.unwrap_or_else(|| panic!("no `{prefix}` line in:\n{stdout}"));
	let line = line.trim();
	serde_json::from_str(line).unwrap_or_else(|e| panic!("`{prefix}` is not JSON ({e}): {line}"))
}

/// Runs a polkadot.js script that must succeed; its `RESULT` JSON and everything it
/// printed.
pub fn run_ok(script: &str, args: &[&str]) -> (Value, String) {
	let (ok, stdout, stderr) = run_js(script, args);
	assert!(ok, "{script} failed\nstdout:\n{stdout}\nstderr:\n{stderr}");
	(tagged_json(&stdout, "RESULT "), stdout)
}
