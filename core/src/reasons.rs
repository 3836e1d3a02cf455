//! The macro behind the code catalogues (reject, suspend and report reasons, distance bands):
//! a closed set of stable SCREAMING_SNAKE codes, each with a translation key and, where it
//! applies, the registration fields it concerns.

use serde::Serialize;

/// Declares a code catalogue: an enum with `ALL`, `code`, `key`, `fields`, `parse`, `entries`
/// and serde as the code string.
macro_rules! code_catalogue {
    (
        $(#[$doc:meta])*
        $name:ident, $prefix:literal {
            $(
                $(#[$variant_doc:meta])*
                $variant:ident = $code:literal $(=> [$($field:literal),* $(,)?])?
            ),+ $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$variant_doc])* $variant),+
        }

        impl $name {
            /// Every entry, in the order the catalogue lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stable wire code.
            pub fn code(self) -> &'static str {
                match self { $($name::$variant => $code),+ }
            }

            /// The translation key of the entry's label.
            pub fn key(self) -> &'static str {
                match self { $($name::$variant => concat!($prefix, $code)),+ }
            }

            /// The registration fields (wire names of `UserProfileCreate`) the entry concerns, so
            /// the edit form can point at them; empty when none.
            pub fn fields(self) -> &'static [&'static str] {
                match self { $($name::$variant => &[$($($field),*)?]),+ }
            }

            /// The entry with this exact code.
            pub fn parse(code: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|entry| entry.code() == code)
            }

            /// The catalogue as the client shows it.
            pub fn entries() -> Vec<$crate::reasons::CodeEntry> {
                Self::ALL
                    .iter()
                    .map(|entry| $crate::reasons::CodeEntry {
                        code: entry.code(),
                        key: entry.key(),
                        fields: entry.fields(),
                    })
                    .collect()
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.code())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.code())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let code = <String as ::serde::Deserialize>::deserialize(deserializer)?;
                $name::parse(&code).ok_or_else(|| {
                    ::serde::de::Error::unknown_variant(&code, &[$($code),+])
                })
            }
        }
    };
}

pub(crate) use code_catalogue;

/// One entry of a code catalogue (reasons, distance bands) as the client shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct CodeEntry {
    /// The stable SCREAMING_SNAKE code the API carries.
    pub code: &'static str,
    /// The translation key of its label.
    pub key: &'static str,
    /// The registration fields it concerns (wire names), for reject reasons; omitted when none.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    #[cfg_attr(feature = "ts", tsify(optional))]
    pub fields: &'static [&'static str],
}
