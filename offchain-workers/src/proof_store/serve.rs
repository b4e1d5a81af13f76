//! Serving a proof store over HTTP, so verifiers can fetch a solver's checkpoints.
//!
//! Read-only: `GET /blob/<64 hex>` answers the blob's bytes and `GET /run/<64 hex>` the
//! run's journal (JSON); anything else is 404 (or 405 for another method). Clients must
//! check what they get: blob names are hashes (a blob is streamed as it lies on disk, so
//! a corrupted one reaches the client, whose hash check refuses it), and journals are
//! only trusted as far as the commitments on chain agree with them.
//!
//! The store faces the open internet, and a solver that cannot serve its checkpoints in
//! time loses its task, so the server is built to outlast its clients (hyper on one
//! thread of its own, with [`Limits`]): connections are admitted up to a total and a
//! per-address bound (over either, a `503` and a close), a request head must arrive
//! whole and small within a deadline, blobs are streamed from disk in small chunks (a
//! client holds one chunk of memory, never a blob), a connection on which nothing moves
//! for a while is dropped, and so is one that lives too long.

use super::ProofStore;
use crate::hash;
use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{combinators::BoxBody, BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{HeaderValue, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How much the server gives its clients.
#[derive(Clone, Debug)]
pub struct Limits {
	/// Connections served at once, in all.
	pub connections: usize,
	/// Connections served at once from one IPv4 address or one IPv6 /64 (what one
	/// subscriber gets).
	pub per_address: usize,
	/// Time for a request head to arrive whole.
	pub head_timeout: Duration,
	/// A connection on which no response bytes move for this long is dropped.
	pub stall: Duration,
	/// The longest a connection lives, whatever it does, plus the time its blob takes
	/// at `min_rate`.
	pub lifetime: Duration,
	/// Bytes per second a blob is given time for beyond `lifetime`: a data file many
	/// times a checkpoint's size still crosses whole (a client that stops reading is
	/// dropped by `stall` all the same).
	pub min_rate: u64,
	/// Bytes of a blob read from disk and handed on at a time.
	pub chunk: usize,
}

impl Default for Limits {
	/// Sized for a solver on an ordinary host: a few verifiers and whistleblowers fetch
	/// two checkpoints per segment, one after the other, and the largest checkpoint the
	/// spec bounds allow (256 MiB) crosses a 1 MB/s link within the client's own 5-minute
	/// timeout.
	fn default() -> Self {
		Self {
			connections: 256,
			per_address: 16,
			head_timeout: Duration::from_secs(10),
			stall: Duration::from_secs(30),
			lifetime: Duration::from_secs(360),
			min_rate: 1 << 20,
			chunk: 64 * 1024,
		}
	}
}

/// Bytes of a request head read before the request is refused (`431`).
const MAX_HEAD: usize = 16 * 1024;

/// What an over-limit client reads before its connection is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 5\r\nRetry-After: 5\r\nConnection: close\r\n\r\nbusy\n";

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

/// Starts serving `store` on `addr` (port 0 picks a free one) with the default
/// [`Limits`], on a background thread that runs for the rest of the process.
pub fn serve(store: ProofStore, addr: &str) -> std::io::Result<Server> {
	serve_with(store, addr, Limits::default())
}

/// [`serve`] with the given limits.
pub fn serve_with(store: ProofStore, addr: &str, limits: Limits) -> std::io::Result<Server> {
	// Bound here, so that a taken port is the caller's error.
	let listener = std::net::TcpListener::bind(addr)?;
	listener.set_nonblocking(true)?;
	let addr = listener.local_addr()?;
	let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
	std::thread::Builder::new().name("proof-store".into()).spawn(move || {
		runtime.block_on(async move {
			match tokio::net::TcpListener::from_std(listener) {
				Ok(listener) => accept_loop(listener, store, limits).await,
				Err(e) => tracing::error!(target: "gensyn_ml", "proof store: {e}"),
			}
		})
	})?;
	Ok(Server { addr })
}

async fn accept_loop(listener: tokio::net::TcpListener, store: ProofStore, limits: Limits) {
	let admission = Arc::new(Admission::new(&limits));
	loop {
		let (stream, peer) = match listener.accept().await {
			Ok(accepted) => accepted,
			Err(e) => {
				// Out of file descriptors, most likely: wait for some to close.
				tracing::debug!(target: "gensyn_ml", "proof store accept: {e}");
				tokio::time::sleep(Duration::from_millis(100)).await;
				continue;
			}
		};
		let Some(ticket) = admission.admit(peer_key(peer.ip())) else {
			// A best-effort answer, never waited for.
			let _ = stream.try_write(BUSY);
			continue;
		};
		let (store, limits) = (store.clone(), limits.clone());
		tokio::spawn(async move {
			serve_connection(stream, store, &limits).await;
			drop(ticket);
		});
	}
}

/// Serves one connection (one request) until it ends, stalls or outlives its time.
async fn serve_connection(stream: tokio::net::TcpStream, store: ProofStore, limits: &Limits) {
	let progress = Arc::new(Progress::new());
	let service = {
		let progress = progress.clone();
		let (chunk, min_rate) = (limits.chunk, limits.min_rate);
		hyper::service::service_fn(move |req| {
			let (store, progress) = (store.clone(), progress.clone());
			async move { Ok::<_, Infallible>(respond(req, &store, progress, chunk, min_rate).await) }
		})
	};
	let mut builder = hyper::server::conn::http1::Builder::new();
	builder
		.timer(TokioTimer::new())
		.header_read_timeout(limits.head_timeout)
		.max_buf_size(MAX_HEAD)
		.keep_alive(false);
	let connection = builder.serve_connection(TokioIo::new(stream), service);
	tokio::select! {
		done = connection => if let Err(e) = done {
			tracing::debug!(target: "gensyn_ml", "proof store client: {e}");
		},
		_ = progress.stalled_for(limits.stall) => {
			tracing::debug!(target: "gensyn_ml", "proof store: dropped a client that stopped reading");
		}
		_ = progress.outlived(limits.lifetime) => {
			tracing::debug!(target: "gensyn_ml", "proof store: dropped a client past its time");
		}
	}
}

type Body = BoxBody<Bytes, std::io::Error>;

async fn respond(
	req: Request<Incoming>,
	store: &ProofStore,
	progress: Arc<Progress>,
	chunk: usize,
	min_rate: u64,
) -> Response<Body> {
	progress.touch();
	if req.method() != Method::GET {
		return small(StatusCode::METHOD_NOT_ALLOWED, "text/plain", b"GET only\n".to_vec());
	}
	let path = req.uri().path();
	if let Some(name) = path.strip_prefix("/blob/") {
		match hash::from_hex(name) {
			Some(h) => blob(store, &h, progress, chunk, min_rate).await,
			None => not_found(),
		}
	} else if let Some(id) = path.strip_prefix("/run/") {
		if hash::from_hex(id).is_none() {
			return not_found();
		}
		let (store, id) = (store.clone(), id.to_string());
		// Journal files are read whole; off the serving thread.
		let journal = tokio::task::spawn_blocking(move || store.journal(&id)).await;
		match journal {
			Ok(Ok(Some(j))) => match serde_json::to_vec(&j) {
				Ok(body) => small(StatusCode::OK, "application/json", body),
				Err(_) => not_found(),
			},
			_ => not_found(),
		}
	} else {
		not_found()
	}
}

/// The blob `name` streamed from disk in `chunk`-byte pieces, each one marking progress;
/// the connection is given the time its length takes at `min_rate` on top of its
/// lifetime.
async fn blob(
	store: &ProofStore,
	name: &hash::Hash,
	progress: Arc<Progress>,
	chunk: usize,
	min_rate: u64,
) -> Response<Body> {
	let Ok(file) = tokio::fs::File::open(store.blob_path(name)).await else { return not_found() };
	let len = match file.metadata().await {
		Ok(meta) if meta.is_file() => meta.len(),
		_ => return not_found(),
	};
	progress.extend(Duration::from_secs(len / min_rate.max(1)));
	let frames = tokio_util::io::ReaderStream::with_capacity(file, chunk).map(move |piece| {
		progress.touch();
		piece.map(Frame::data)
	});
	let mut response = Response::new(BodyExt::boxed(StreamBody::new(frames)));
	let headers = response.headers_mut();
	headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/octet-stream"));
	headers.insert(CONTENT_LENGTH, HeaderValue::from(len));
	response
}

fn small(status: StatusCode, kind: &'static str, body: Vec<u8>) -> Response<Body> {
	let full = Full::new(Bytes::from(body)).map_err(|never: Infallible| match never {});
	let mut response = Response::new(BodyExt::boxed(full));
	*response.status_mut() = status;
	response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(kind));
	response
}

fn not_found() -> Response<Body> {
	small(StatusCode::NOT_FOUND, "text/plain", b"not found\n".to_vec())
}

/// When a connection last moved: its start, its request, each chunk handed on.
struct Progress {
	start: Instant,
	last_ms: AtomicU64,
	/// Time granted beyond the lifetime (for a large blob).
	extra_ms: AtomicU64,
}

impl Progress {
	fn new() -> Self {
		Self { start: Instant::now(), last_ms: AtomicU64::new(0), extra_ms: AtomicU64::new(0) }
	}

	fn extend(&self, by: Duration) {
		self.extra_ms.store(by.as_millis() as u64, Ordering::Relaxed);
	}

	/// Ends once the connection has lived `lifetime` plus any time granted since.
	async fn outlived(&self, lifetime: Duration) {
		loop {
			let extra = Duration::from_millis(self.extra_ms.load(Ordering::Relaxed));
			let left = (lifetime + extra).saturating_sub(self.start.elapsed());
			if left.is_zero() {
				return;
			}
			tokio::time::sleep(left).await;
		}
	}

	fn touch(&self) {
		let ms = self.start.elapsed().as_millis() as u64;
		self.last_ms.store(ms, Ordering::Relaxed);
	}

	fn idle(&self) -> Duration {
		let last = Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
		self.start.elapsed().saturating_sub(last)
	}

	/// Ends once nothing has moved for `stall`. A chunk is pulled only when the last
	/// one left for the client, so a client that stops reading stops the chunks.
	async fn stalled_for(&self, stall: Duration) {
		loop {
			let idle = self.idle();
			if idle >= stall {
				return;
			}
			tokio::time::sleep(stall - idle).await;
		}
	}
}

/// The address a peer is counted under: an IPv4 address, or an IPv6 address's /64 (a
/// single subscriber is handed a whole /64, so counting its addresses one by one would
/// bound nothing).
fn peer_key(ip: IpAddr) -> IpAddr {
	match ip {
		IpAddr::V4(_) => ip,
		IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
			Some(v4) => IpAddr::V4(v4),
			None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
		},
	}
}

/// Connections open, in all and per address, within the [`Limits`].
struct Admission {
	connections: usize,
	per_address: usize,
	open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// One admitted connection; dropping it frees its place.
struct Ticket {
	admission: Arc<Admission>,
	ip: IpAddr,
}

impl Admission {
	fn new(limits: &Limits) -> Self {
		Self {
			connections: limits.connections,
			per_address: limits.per_address,
			open: Mutex::new((0, HashMap::new())),
		}
	}

	fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Ticket> {
		let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
		let (total, by_address) = &mut *open;
		let mine = by_address.entry(ip).or_insert(0);
		if *total >= self.connections || *mine >= self.per_address {
			if *mine == 0 {
				by_address.remove(&ip);
			}
			return None;
		}
		*total += 1;
		*mine += 1;
		Some(Ticket { admission: self.clone(), ip })
	}
}

impl Drop for Ticket {
	fn drop(&mut self) {
		let mut open = self.admission.open.lock().unwrap_or_else(|e| e.into_inner());
		let (total, by_address) = &mut *open;
		*total = total.saturating_sub(1);
		if let Some(mine) = by_address.get_mut(&self.ip) {
			*mine = mine.saturating_sub(1);
			if *mine == 0 {
				by_address.remove(&self.ip);
			}
		}
	}
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn an_ipv6_64_is_one_peer_and_admission_frees_its_places() {
		let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
		let other_of_same: IpAddr = "2001:db8:1:2:ffff::7".parse().unwrap();
		let next_64: IpAddr = "2001:db8:1:3::1".parse().unwrap();
		assert_eq!(peer_key(one), peer_key(other_of_same));
		assert_ne!(peer_key(one), peer_key(next_64));
		let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
		assert_eq!(peer_key(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());

		let limits = Limits { connections: 3, per_address: 2, ..Limits::default() };
		let admission = Arc::new(Admission::new(&limits));
		let a = admission.admit(peer_key(one)).unwrap();
		let _b = admission.admit(peer_key(other_of_same)).unwrap();
		assert!(admission.admit(peer_key(one)).is_none(), "the /64's bound");
		let _c = admission.admit(peer_key(next_64)).unwrap();
		assert!(admission.admit("192.0.2.1".parse().unwrap()).is_none(), "the total bound");
		drop(a);
		assert!(admission.admit(peer_key(one)).is_some(), "a dropped ticket frees its place");
	}

	/// A connection outlives its lifetime by the time its blob takes at the minimum rate
	/// (a large data file crosses whole), and no longer.
	#[tokio::test]
	async fn a_large_blob_extends_a_connections_life_by_its_length() {
		let lifetime = Duration::from_millis(200);
		let plain = Progress::new();
		let ended = tokio::time::timeout(Duration::from_secs(5), plain.outlived(lifetime)).await;
		assert!(ended.is_ok(), "dropped at its lifetime");

		let granted = Progress::new();
		granted.extend(Duration::from_millis(1_500));
		let early = tokio::time::timeout(Duration::from_millis(900), granted.outlived(lifetime));
		assert!(early.await.is_err(), "still alive past its lifetime");
		let late = tokio::time::timeout(Duration::from_secs(5), granted.outlived(lifetime));
		assert!(late.await.is_ok(), "dropped once the granted time is over");
	}
}
