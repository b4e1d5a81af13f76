//! The proof store's server under a bounded load on 127.0.0.0/8 (its own test binary, so
//! that the memory it measures is its own): many clients that ask for a large blob and
//! never read it, from a few addresses, and requests with oversized heads. The server
//! stays up, its memory stays bounded, honest fetches from another address succeed, and
//! the stalled clients are dropped, freeing their places.

use gensyn_workers::hash;
use gensyn_workers::proof_store::serve::{serve_with, Limits};
use gensyn_workers::proof_store::{remote, CheckpointEntry, Journal, ProofStore};
use socket2::{Domain, SockAddr, Socket, Type};
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Bytes of the blob every client asks for.
const BLOB: usize = 8 << 20;
/// Addresses the slow readers come from (127.0.0.2 onwards).
const ATTACK_ADDRESSES: u8 = 4;
/// Slow readers per address, far more than the server admits from one.
const READERS_PER_ADDRESS: usize = 30;

/// This process's resident memory, in bytes (Linux).
fn rss() -> u64 {
	let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
	let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap();
	pages * 4096
}

/// A TCP connection to `to` from the loopback address `from`.
fn connect_from(from: Ipv4Addr, to: SocketAddr) -> TcpStream {
	let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
	socket.bind(&SockAddr::from(SocketAddr::from((from, 0)))).unwrap();
	socket.connect(&SockAddr::from(to)).unwrap();
	socket.into()
}

/// Opens a connection from `from`, asks for `path` and reads nothing; the receive
/// buffer is made small so that the server's writes stall soon.
fn slow_reader(from: Ipv4Addr, to: SocketAddr, path: &str) -> TcpStream {
	let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
	socket.set_recv_buffer_size(4096).unwrap();
	socket.bind(&SockAddr::from(SocketAddr::from((from, 0)))).unwrap();
	socket.connect(&SockAddr::from(to)).unwrap();
	let mut stream: TcpStream = socket.into();
	let request = format!("GET {path} HTTP/1.1\r\nHost: store\r\n\r\n");
	stream.write_all(request.as_bytes()).unwrap();
	stream
}

/// Everything the server sends on `stream` until it closes it (or `limit` passes).
fn drain(stream: &mut TcpStream, limit: Duration) -> Vec<u8> {
	stream.set_read_timeout(Some(limit)).unwrap();
	let mut got = Vec::new();
	let mut buf = [0u8; 64 * 1024];
	let start = Instant::now();
	while start.elapsed() < limit {
		match stream.read(&mut buf) {
			Ok(0) | Err(_) => break,
			Ok(n) => got.extend_from_slice(&buf[..n]),
		}
	}
	got
}

#[test]
fn the_store_outlasts_slow_readers_and_oversized_requests() {
	let dir = tempfile::tempdir().unwrap();
	let store = ProofStore::open(dir.path().join("solver")).unwrap();
	let blob: Vec<u8> = (0..BLOB).map(|i| (i * 7 + i / 4096) as u8).collect();
	let name = store.put(&blob).unwrap();
	let run_id = hash::to_hex(&[3; 32]);
	let entry = CheckpointEntry { step: 0, blob: hash::to_hex(&name), state_hash: "00".into() };
	let journal = Journal {
		run_id: run_id.clone(),
		backend: "tch".into(),
		total_steps: 1,
		checkpoints: vec![entry],
		complete: false,
		data: None,
	};
	store.save_journal(&journal).unwrap();
	let limits = Limits {
		connections: 64,
		per_address: 8,
		head_timeout: Duration::from_secs(2),
		stall: Duration::from_secs(3),
		lifetime: Duration::from_secs(120),
		min_rate: 1 << 20,
		chunk: 64 * 1024,
	};
	let (stall, per_address) = (limits.stall, limits.per_address);
	let server = serve_with(store, "127.0.0.1:0", limits).unwrap();
	let (addr, url) = (server.addr(), server.url());
	let blob_path = format!("/blob/{}", hash::to_hex(&name));

	// One honest fetch first, so the memory baseline includes the server's own.
	let fetched = ProofStore::open(dir.path().join("verifier")).unwrap();
	remote::fetch_blob(&url, &name, &fetched, true).unwrap();
	std::fs::remove_file(fetched.blob_path(&name)).unwrap();
	let before = rss();

	// 120 slow readers from four addresses; each address is admitted `per_address` times.
	let mut readers = Vec::new();
	for a in 0..ATTACK_ADDRESSES {
		let from = Ipv4Addr::new(127, 0, 0, 2 + a);
		for _ in 0..READERS_PER_ADDRESS {
			readers.push(slow_reader(from, addr, &blob_path));
		}
	}
	// Request heads far larger than the server reads, and one that never ends.
	let huge_head = format!("GET / HTTP/1.1\r\nX-Junk: {}\r\n\r\n", "x".repeat(1 << 20));
	let mut oversized = Vec::new();
	for _ in 0..4 {
		let mut s = connect_from(Ipv4Addr::new(127, 0, 0, 9), addr);
		// The server may close before it has read it all.
		let _ = s.write_all(huge_head.as_bytes());
		oversized.push(s);
	}
	let mut trickle = connect_from(Ipv4Addr::new(127, 0, 0, 10), addr);
	trickle.write_all(b"GET /blob/").unwrap();
	std::thread::sleep(Duration::from_millis(500));
	let grown = rss().saturating_sub(before);
	eprintln!("under load: memory grew by {:.1} MiB", grown as f64 / f64::from(1 << 20));
	// 32 admitted readers holding the blob would be 256 MiB; streamed, a chunk each.
	assert!(grown < 24 << 20, "memory grew by {} MiB under load", grown >> 20);

	// Meanwhile, a verifier on another address fetches the blob and the journal whole.
	for _ in 0..3 {
		remote::fetch_blob(&url, &name, &fetched, true).unwrap();
		assert!(fetched.contains(&name));
		std::fs::remove_file(fetched.blob_path(&name)).unwrap();
	}
	assert_eq!(remote::fetch_journal(&url, &run_id, true).unwrap(), journal);

	// Oversized heads are refused (431) or cut off; nothing is served for them.
	for mut s in oversized {
		let answer = drain(&mut s, Duration::from_secs(10));
		let text = String::from_utf8_lossy(&answer);
		assert!(answer.is_empty() || text.starts_with("HTTP/1.1 431"), "{text}");
	}
	// A head that never ends is cut off at its deadline.
	let answer = drain(&mut trickle, Duration::from_secs(10));
	assert!(!String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"));

	// Over the per-address bound, readers were told the store is busy; the admitted ones
	// are dropped once they stall, never having been sent the whole blob.
	std::thread::sleep(stall + Duration::from_secs(2));
	let (mut busy, mut cut, mut most) = (0, 0, 0);
	for mut r in readers {
		let got = drain(&mut r, Duration::from_secs(10));
		// A refused reader whose request reached the server before the close may see a
		// reset instead of the 503.
		if got.is_empty() || got.starts_with(b"HTTP/1.1 503") {
			busy += 1;
		} else {
			assert!(
				got.starts_with(b"HTTP/1.1 200"),
				"{:?}",
				String::from_utf8_lossy(&got[..got.len().min(64)])
			);
			assert!(got.len() < BLOB, "a stalled reader was sent the whole blob");
			most = most.max(got.len());
			cut += 1;
		}
	}
	let admitted = per_address * ATTACK_ADDRESSES as usize;
	eprintln!(
		"slow readers: {cut} admitted and dropped (at most {most} bytes sent), {busy} refused"
	);
	assert_eq!(cut, admitted, "admitted readers");
	assert_eq!(busy, ATTACK_ADDRESSES as usize * READERS_PER_ADDRESS - admitted);

	// Their places are free again: the first attacking address is admitted anew.
	let mut r = slow_reader(Ipv4Addr::new(127, 0, 0, 2), addr, &blob_path);
	r.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
	let mut head = [0u8; 12];
	r.read_exact(&mut head).unwrap();
	assert_eq!(&head, b"HTTP/1.1 200");
}
