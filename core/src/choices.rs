//! Every closed choice of the registration form. Order matters: it is the order the form shows
//! and, for the ordered ones (education, smoke, drink, tattoo), the order conditions compare in.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One option of a closed choice as the client shows it: the wire value and its translation key.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct ChoiceOption {
    /// What the payload carries.
    pub value: ChoiceValue,
    /// The translation key of the option's label (`choice.smoke.never`).
    pub key: String,
}

/// The wire value of an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub enum ChoiceValue {
    /// A string choice (`"FEMALE"`).
    Name(&'static str),
    /// A numeric choice (`0`).
    Code(u8),
}

/// A choice whose wire form is a small number.
pub trait NumericChoice: Sized {
    /// The choice of a wire code, if there is one.
    fn from_code(code: u8) -> Option<Self>;

    /// Parses the JSON text a form select holds ("0", "1", …, a JSON string
    /// the form parses): a JSON integer literal, so no sign, fraction, exponent or leading zero.
    fn from_json_text(text: &str) -> Option<Self> {
        let text = text.trim();
        let canonical = !text.is_empty()
            && text.bytes().all(|b| b.is_ascii_digit())
            && (text == "0" || !text.starts_with('0'));
        if !canonical {
            return None;
        }
        text.parse().ok().and_then(Self::from_code)
    }
}

/// Declares a choice whose wire form is a string.
macro_rules! string_choice {
    ($(#[$doc:meta])* $name:ident, $key:literal { $($variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $(#[doc = concat!("`\"", $wire, "\"` on the wire.")] $variant),+ }

        impl $name {
            /// Every option, in the order the form shows them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The wire value.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }

            /// The choice of a wire value, if there is one (exact, case-sensitive).
            pub fn parse(text: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|choice| choice.as_str() == text)
            }

            /// The options as the form shows them, with their translation keys.
            pub fn options() -> Vec<ChoiceOption> {
                Self::ALL.iter().map(|c| ChoiceOption {
                    value: ChoiceValue::Name(c.as_str()),
                    key: format!(concat!("choice.", $key, ".{}"), c.as_str()),
                }).collect()
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                $name::parse(&text).ok_or_else(|| serde::de::Error::unknown_variant(&text, &[$($wire),+]))
            }
        }

        #[cfg(feature = "ts")]
        const _: () = {
            #[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
            const TS: &'static str = concat!("export type ", stringify!($name), " = ", $("\"", $wire, "\" | ",)+ "never;");
        };
    };
}

/// Declares a choice whose wire form is a small number: the form keeps these as JSON strings
/// ("0", "1", …) and the payload carries the parsed number.
macro_rules! numeric_choice {
    ($(#[$doc:meta])* $name:ident, $key:literal { $($variant:ident = $wire:literal / $label:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $(#[doc = concat!("`", stringify!($wire), "` on the wire (", $label, ").")] $variant),+ }

        impl $name {
            /// Every option, in the order the form shows them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The wire code.
            pub fn code(self) -> u8 {
                match self { $($name::$variant => $wire),+ }
            }

            /// The choice of a wire code, if there is one.
            pub fn from_code(code: u8) -> Option<$name> {
                Self::ALL.iter().copied().find(|choice| choice.code() == code)
            }

            /// The last part of the option's translation key.
            pub fn label(self) -> &'static str {
                match self { $($name::$variant => $label),+ }
            }

            /// The options as the form shows them, with their translation keys.
            pub fn options() -> Vec<ChoiceOption> {
                Self::ALL.iter().map(|c| ChoiceOption {
                    value: ChoiceValue::Code(c.code()),
                    key: format!(concat!("choice.", $key, ".{}"), c.label()),
                }).collect()
            }
        }

        impl NumericChoice for $name {
            fn from_code(code: u8) -> Option<$name> {
                $name::from_code(code)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_u8(self.code())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let code = u8::deserialize(deserializer)?;
                $name::from_code(code).ok_or_else(|| {
                    serde::de::Error::invalid_value(serde::de::Unexpected::Unsigned(code.into()), &stringify!($name))
                })
            }
        }

        #[cfg(feature = "ts")]
        const _: () = {
            #[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
            const TS: &'static str = concat!("export type ", stringify!($name), " = ", $(stringify!($wire), " | ",)+ "never;");
        };
    };
}

string_choice!(
    /// The person's gender.
    Gender, "gender" { Male = "MALE", Female = "FEMALE", NonBinary = "NON_BINARY" }
);

string_choice!(
    /// Whom the person wants to be introduced to.
    MatchGender, "matchGender" { Male = "MALE", Female = "FEMALE", Any = "ANY" }
);

string_choice!(
    /// The field of work.
    OccupationType, "occupationType" {
    SoftwareEngineering = "SOFTWARE_ENGINEERING",
    HardwareEngineering = "HARDWARE_ENGINEERING",
    SemiconductorProcess = "SEMICONDUCTOR_PROCESS",
    DataAi = "DATA_AI",
    Product = "PRODUCT",
    Design = "DESIGN",
    Research = "RESEARCH",
    SalesMarketing = "SALES_MARKETING",
    Operations = "OPERATIONS",
    Finance = "FINANCE",
    HumanResources = "HUMAN_RESOURCES",
    Legal = "LEGAL",
    Management = "MANAGEMENT",
    Other = "OTHER",
});

string_choice!(
    /// Highest completed education, in ascending order.
    Education, "education" {
        HighSchool = "HIGH_SCHOOL",
        Associate = "ASSOCIATE",
        Bachelor = "BACHELOR",
        Master = "MASTER",
        Doctorate = "DOCTORATE",
    }
);

string_choice!(
    /// Yearly income before tax in units of 10,000 TWD (萬), the unit Taiwanese forms use.
    IncomeRange, "incomeRange" {
        Under60 = "INCOME_UNDER_60",
        From60To100 = "INCOME_60_100",
        From100To150 = "INCOME_100_150",
        From150To200 = "INCOME_150_200",
        From200To300 = "INCOME_200_300",
        Over300 = "INCOME_300_PLUS",
    }
);

impl IncomeRange {
    /// The lower bound in 10,000 TWD: what the person earns at least, which income conditions
    /// compare against.
    pub fn lower_bound(self) -> u32 {
        match self {
            IncomeRange::Under60 => 0,
            IncomeRange::From60To100 => 60,
            IncomeRange::From100To150 => 100,
            IncomeRange::From150To200 => 150,
            IncomeRange::From200To300 => 200,
            IncomeRange::Over300 => 300,
        }
    }
}

numeric_choice!(
    /// Marital history.
    MarriageRecord, "marriageRecord" {
    NeverMarried = 0 / "never_married",
    Divorced = 1 / "divorced",
    Widowed = 2 / "widowed",
});

numeric_choice!(
    /// Children, and whether they live with the person.
    HasChildren, "hasChildren" {
    No = 0 / "no",
    YesLivingTogether = 1 / "yes_living_together",
    YesLivingApart = 2 / "yes_living_apart",
});

numeric_choice!(
    /// Ascending by how much the person smokes, so "at most" conditions compare by order.
    Smoke, "smoke" {
        Never = 0 / "never",
        Quit = 1 / "quit",
        Socially = 2 / "socially",
        Regularly = 3 / "regularly",
    }
);

numeric_choice!(
    /// Ascending by how much the person drinks.
    Drink, "drink" {
        Never = 0 / "never",
        Socially = 1 / "socially",
        Regularly = 2 / "regularly",
    }
);

string_choice!(
    /// Ascending by visibility.
    Tattoo, "tattoo" { None = "NONE", Hidden = "HIDDEN", Visible = "VISIBLE" }
);

string_choice!(
    /// Myers–Briggs type.
    Mbti, "mbti" {
    Istj = "ISTJ", Isfj = "ISFJ", Infj = "INFJ", Intj = "INTJ",
    Istp = "ISTP", Isfp = "ISFP", Infp = "INFP", Intp = "INTP",
    Estp = "ESTP", Esfp = "ESFP", Enfp = "ENFP", Entp = "ENTP",
    Estj = "ESTJ", Esfj = "ESFJ", Enfj = "ENFJ", Entj = "ENTJ",
});

string_choice!(
    /// How the person proves where they work; each method requires its own fields.
    VerifyMethod, "verifyMethod" {
        CompanyEmail = "COMPANY_EMAIL",
        EmployeeId = "EMPLOYEE_ID",
        ReviewLink = "REVIEW_LINK",
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_choices_travel_as_their_wire_names() {
        assert_eq!(
            serde_json::to_value(Gender::NonBinary).unwrap(),
            "NON_BINARY"
        );
        assert_eq!(
            serde_json::from_value::<Tattoo>("HIDDEN".into()).unwrap(),
            Tattoo::Hidden
        );
        assert!(serde_json::from_value::<Tattoo>("hidden".into()).is_err());
    }

    #[test]
    fn numeric_choices_travel_as_their_codes() {
        assert_eq!(serde_json::to_value(Smoke::Socially).unwrap(), 2);
        assert_eq!(
            serde_json::from_value::<Drink>(1.into()).unwrap(),
            Drink::Socially
        );
        assert!(serde_json::from_value::<Drink>(3.into()).is_err());
        assert!(serde_json::from_value::<Drink>("1".into()).is_err());
    }

    #[test]
    fn json_text_codes_parse_only_as_canonical_integers() {
        assert_eq!(Smoke::from_json_text("2"), Some(Smoke::Socially));
        assert_eq!(Smoke::from_json_text(" 0 "), Some(Smoke::Never));
        for bad in ["", "02", "-1", "1.0", "1e0", "\"1\"", "9", "256", "true"] {
            assert_eq!(Smoke::from_json_text(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn there_are_sixteen_mbti_types() {
        assert_eq!(Mbti::ALL.len(), 16);
    }

    #[test]
    fn options_carry_translation_keys() {
        let options = Smoke::options();
        assert_eq!(options[0].value, ChoiceValue::Code(0));
        assert_eq!(options[0].key, "choice.smoke.never");
        assert_eq!(Gender::options()[1].key, "choice.gender.FEMALE");
    }
}
