//! A vector with a compile-time upper bound on its length.
//!
//! SCALE decoding and JSON deserialisation both refuse a vector longer than `N`, so a
//! decoded spec can never hold an unbounded list, and [`MaxEncodedLen`] is known.

use alloc::vec::Vec;
use codec::{Compact, Decode, DecodeWithMemTracking, Encode, EncodeLike, Input, MaxEncodedLen};
use scale_info::{build::Fields, Path, Type, TypeInfo, TypeParameter};

/// A `Vec<T>` holding at most `N` elements. SCALE-encoded exactly like a `Vec<T>`.
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub struct BoundedVec<T, const N: u32>(Vec<T>);

impl<T, const N: u32> BoundedVec<T, N> {
	/// The largest number of elements this type may hold.
	pub const BOUND: u32 = N;

	/// Wraps `v` if it holds at most `N` elements, else gives it back.
	pub fn try_from_vec(v: Vec<T>) -> Result<Self, Vec<T>> {
		if v.len() <= N as usize {
			Ok(Self(v))
		} else {
			Err(v)
		}
	}

	/// The elements as a slice.
	pub fn as_slice(&self) -> &[T] {
		&self.0
	}

	/// The number of elements.
	pub fn len(&self) -> usize {
		self.0.len()
	}

	/// Whether there is no element.
	pub fn is_empty(&self) -> bool {
		self.0.is_empty()
	}

	/// Appends `x`, or gives it back when the vector is full.
	pub fn try_push(&mut self, x: T) -> Result<(), T> {
		if self.0.len() < N as usize {
			self.0.push(x);
			Ok(())
		} else {
			Err(x)
		}
	}

	/// Unwraps the inner vector.
	pub fn into_inner(self) -> Vec<T> {
		self.0
	}
}

impl<T, const N: u32> core::ops::Deref for BoundedVec<T, N> {
	type Target = [T];
	fn deref(&self) -> &[T] {
		&self.0
	}
}

impl<T, const N: u32> TryFrom<Vec<T>> for BoundedVec<T, N> {
	type Error = Vec<T>;
	fn try_from(v: Vec<T>) -> Result<Self, Vec<T>> {
		Self::try_from_vec(v)
	}
}

impl<T: Encode, const N: u32> Encode for BoundedVec<T, N> {
	fn size_hint(&self) -> usize {
		self.0.size_hint()
	}
	fn encode_to<O: codec::Output + ?Sized>(&self, dest: &mut O) {
		self.0.encode_to(dest)
	}
}

impl<T: Encode, const N: u32> EncodeLike for BoundedVec<T, N> {}
impl<T: Encode, const N: u32> EncodeLike<Vec<T>> for BoundedVec<T, N> {}

impl<T: Decode, const N: u32> Decode for BoundedVec<T, N> {
	fn decode<I: Input>(input: &mut I) -> Result<Self, codec::Error> {
		let len = <Compact<u32>>::decode(input)?.0;
		if len > N {
			return Err("BoundedVec: length over its bound".into());
		}
		let mut v = Vec::with_capacity(len as usize);
		for _ in 0..len {
			v.push(T::decode(input)?);
		}
		Ok(Self(v))
	}
}

impl<T: Decode, const N: u32> DecodeWithMemTracking for BoundedVec<T, N> {}

impl<T: MaxEncodedLen, const N: u32> MaxEncodedLen for BoundedVec<T, N> {
	fn max_encoded_len() -> usize {
		<Compact<u32>>::max_encoded_len()
			.saturating_add((N as usize).saturating_mul(T::max_encoded_len()))
	}
}

impl<T: TypeInfo + 'static, const N: u32> TypeInfo for BoundedVec<T, N> {
	type Identity = Self;
	fn type_info() -> Type {
		Type::builder()
			.path(Path::new("BoundedVec", module_path!()))
			.type_params([TypeParameter::new("T", Some(scale_info::meta_type::<T>()))])
			.docs(&["A vector with a bounded number of elements."])
			.composite(Fields::unnamed().field(|f| f.ty::<Vec<T>>()))
	}
}

impl<T: serde::Serialize, const N: u32> serde::Serialize for BoundedVec<T, N> {
	fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
		self.0.serialize(s)
	}
}

impl<'de, T: serde::Deserialize<'de>, const N: u32> serde::Deserialize<'de> for BoundedVec<T, N> {
	fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
		let v = Vec::<T>::deserialize(d)?;
		let len = v.len();
		Self::try_from_vec(v)
			.map_err(|_| serde::de::Error::invalid_length(len, &"a list no longer than its bound"))
	}
}
