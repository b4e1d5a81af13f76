//! Which hosts a task's data may be downloaded from. A task's submitter names its data's
//! URI, and every worker drawn for the task requests it: on a live chain that URI must
//! not reach into the worker's own networks (the node's RPC on loopback, a cloud's
//! metadata service on a link-local address, a private LAN). So a worker that does not
//! read local data resolves the host itself and connects only to public addresses: a
//! name that resolves to any other address is refused before anything is sent, on
//! every redirect too, and environment proxies are not used (a proxy would reach those
//! networks for it).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// The reason a refused host's error carries.
pub const NOT_PUBLIC: &str = "resolves to an address that is not public (loopback, private, \
	link-local or reserved); only local data reads allow those";

/// A resolver that keeps only public addresses, and fails when none is left.
#[derive(Debug, Default)]
pub struct PublicOnly(DefaultResolver);

impl Resolver for PublicOnly {
	fn resolve(
		&self,
		uri: &ureq::http::Uri,
		config: &ureq::config::Config,
		timeout: NextTimeout,
	) -> Result<ResolvedSocketAddrs, ureq::Error> {
		let all = self.0.resolve(uri, config, timeout)?;
		// Any non-public address refuses the name: a host that resolves to both could
		// be rebound between lookups.
		if all.iter().any(|a| !is_public(a.ip())) {
			return Err(ureq::Error::Io(std::io::Error::new(
				std::io::ErrorKind::PermissionDenied,
				NOT_PUBLIC,
			)));
		}
		Ok(all)
	}
}

/// An agent for downloads of task data that may take `timeout` in all: public hosts
/// only, unless `private` hosts are allowed.
pub fn agent(timeout: Duration, private: bool) -> ureq::Agent {
	let config = ureq::Agent::config_builder().timeout_global(Some(timeout));
	if private {
		return config.build().new_agent();
	}
	let config = config.proxy(None).build();
	let connector = ureq::unversioned::transport::DefaultConnector::default();
	ureq::Agent::with_parts(config, connector, PublicOnly::default())
}

/// Whether `ip` is a public unicast address.
pub fn is_public(ip: IpAddr) -> bool {
	match ip {
		IpAddr::V4(v4) => is_public_v4(v4),
		IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
			Some(v4) => is_public_v4(v4),
			None => is_public_v6(v6),
		},
	}
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
	let [a, b, ..] = ip.octets();
	!(ip.is_unspecified()
		|| ip.is_loopback()
		|| ip.is_private()
		|| ip.is_link_local()
		|| ip.is_broadcast()
		|| ip.is_documentation()
		|| ip.is_multicast()
		|| a == 0
		// IETF protocol assignments, 192.0.0.0/24.
		|| (a == 192 && b == 0 && ip.octets()[2] == 0)
		// Shared address space (carrier-grade NAT), 100.64.0.0/10.
		|| (a == 100 && (64..128).contains(&b))
		// Benchmarking, 198.18.0.0/15.
		|| (a == 198 && (b == 18 || b == 19))
		// Reserved, 240.0.0.0/4.
		|| a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
	let s = ip.segments();
	let v4 = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
	// NAT64 (64:ff9b::/96) reaches the IPv4 address it embeds.
	if s[0] == 0x0064 && s[1] == 0xff9b && s[2..6].iter().all(|x| *x == 0) {
		return is_public_v4(v4(s[6], s[7]));
	}
	// Only global unicast (2000::/3) is public: loopback, link-local, site-local,
	// unique-local, IPv4-translated and every other form lie outside it.
	if s[0] & 0xe000 != 0x2000 {
		return false;
	}
	// 6to4 (2002::/16) reaches the IPv4 address it embeds.
	if s[0] == 0x2002 {
		return is_public_v4(v4(s[1], s[2]));
	}
	!(
		// Teredo (2001::/32) and benchmarking (2001:2::/48).
		(s[0] == 0x2001 && (s[1] == 0 || (s[1] == 2 && s[2] == 0)))
		// Documentation: 2001:db8::/32 and 3fff::/20.
		|| (s[0] == 0x2001 && s[1] == 0x0db8)
		|| (s[0] == 0x3fff && s[1] < 0x1000)
	)
}

#[cfg(test)]
mod tests {
	use super::*;

	#[test]
	fn only_public_unicast_addresses_are_public() {
		for private in [
			"127.0.0.1",
			"10.1.2.3",
			"172.16.0.1",
			"192.168.1.1",
			"169.254.169.254",
			"0.0.0.0",
			"100.64.0.1",
			"198.18.0.1",
			"255.255.255.255",
			"::1",
			"::",
			"fc00::1",
			"fe80::1",
			"::ffff:127.0.0.1",
			"::ffff:10.0.0.1",
			"2001:db8::1",
			"64:ff9b::a00:1",
			"2002:c0a8:101::1",
			"::ffff:0:a00:1",
			"64:ff9b:1::1",
			"fec0::1",
			"2001::1",
			"192.0.0.8",
		] {
			assert!(!is_public(private.parse().unwrap()), "{private}");
		}
		for public in
			["1.1.1.1", "8.8.8.8", "2606:4700:4700::1111", "::ffff:1.1.1.1", "64:ff9b::101:101"]
		{
			assert!(is_public(public.parse().unwrap()), "{public}");
		}
	}
}
