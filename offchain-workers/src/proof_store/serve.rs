//! Serving a proof store over HTTP, so verifiers can fetch a solver's checkpoints.
//!
//! Read-only and minimal: `GET /blob/<64 hex>` answers the blob's bytes and
//! `GET /run/<64 hex>` the run's journal (JSON); anything else is 404 (or 405 for
//! another method). Each connection is served on its own thread, one request per
//! connection. Clients must still check what they get: blob names are hashes, and
//! journals are only trusted as far as the commitments on chain agree with them.

use super::ProofStore;
use crate::hash;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

/// Largest request head read before giving up on a client.
const MAX_HEAD: usize = 8 * 1024;

/// A running proof-store server.
pub struct Server {
	addr: SocketAddr,
}

impl Server {
	/// The address it listens on.
	pub fn addr(&self) -> SocketAddr {
		self.addr
	}

	/// The base URL clients use (`http://addr`).
	pub fn url(&self) -> String {
		format!("http://{}", self.addr)
	}
}

/// Starts serving `store` on `addr` (port 0 picks a free one) on a background thread
/// that runs for the rest of the process.
pub fn serve(store: ProofStore, addr: &str) -> std::io::Result<Server> {
	let listener = TcpListener::bind(addr)?;
	let addr = listener.local_addr()?;
	std::thread::spawn(move || {
		for stream in listener.incoming().flatten() {
			let store = store.clone();
			std::thread::spawn(move || {
				if let Err(e) = handle(&store, stream) {
					tracing::debug!(target: "gensyn_ml", "proof store client: {e}");
				}
			});
		}
	});
	Ok(Server { addr })
}

fn respond(stream: &mut TcpStream, status: &str, kind: &str, body: &[u8]) -> std::io::Result<()> {
	let head = format!(
		"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
		body.len()
	);
	stream.write_all(head.as_bytes())?;
	stream.write_all(body)?;
	stream.flush()
}

fn handle(store: &ProofStore, mut stream: TcpStream) -> std::io::Result<()> {
	stream.set_read_timeout(Some(Duration::from_secs(10)))?;
	// The request line, then the rest of the head (all within MAX_HEAD bytes), read so
	// that the client sees a clean close.
	let mut reader = BufReader::new(stream.try_clone()?).take(MAX_HEAD as u64);
	let mut line = String::new();
	reader.read_line(&mut line)?;
	let mut header = String::new();
	loop {
		header.clear();
		if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
			break;
		}
	}
	let mut parts = line.split_whitespace();
	let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
	if method != "GET" {
		return respond(&mut stream, "405 Method Not Allowed", "text/plain", b"GET only\n");
	}
	let not_found =
		|stream: &mut TcpStream| respond(stream, "404 Not Found", "text/plain", b"not found\n");
	if let Some(name) = path.strip_prefix("/blob/") {
		let Some(h) = hash::from_hex(name) else { return not_found(&mut stream) };
		match store.get(&h) {
			Ok(bytes) => respond(&mut stream, "200 OK", "application/octet-stream", &bytes),
			Err(_) => not_found(&mut stream),
		}
	} else if let Some(id) = path.strip_prefix("/run/") {
		if hash::from_hex(id).is_none() {
			return not_found(&mut stream);
		}
		match store.journal(id) {
			Ok(Some(j)) => {
				let body = serde_json::to_vec(&j).expect("a journal serializes");
				respond(&mut stream, "200 OK", "application/json", &body)
			}
			_ => not_found(&mut stream),
		}
	} else {
		not_found(&mut stream)
	}
}
