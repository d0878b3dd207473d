//! Numbers: lengths and item counts, `number` and `integer` bounds and kinds, and the
//! exact conversions of JSON numbers they need ([F2](crate::rules#f2), [V2](crate::rules#v2), [D5](crate::rules#d5)).

use serde_json::Value;

use super::property::{Kw, PropBuilder};
use super::{Parser, Ptr};
use crate::schema::error::SchemaErrorKind as K;
use crate::schema::{IntegerSchema, NumberSchema, PropertyKind};

impl Parser<'_> {
    /// A length (uint32) or an item count (uint64). Null reads as absent.
    #[inline]
    pub(super) fn count(&mut self, b: &mut PropBuilder<'_>, kw: Kw, max: u64) -> Option<u64> {
        let value = b.take(kw)?;
        match value {
            // The common case, without a call.
            Value::Number(n) => match n.as_u64() {
                Some(u) if u <= max => Some(u),
                _ => self.count_value(b, kw, value, max),
            },
            _ => self.count_value(b, kw, value, max),
        }
    }

    fn count_value(&mut self, b: &PropBuilder<'_>, kw: Kw, value: &Value, max: u64) -> Option<u64> {
        let keyword = kw.name();
        let at = &b.at.key(keyword);
        let range = if max == u64::from(u32::MAX) {
            "at most 4294967295 (uint32)"
        } else {
            "at most 18446744073709551615 (uint64)"
        };
        match value {
            Value::Null => None,
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    if u > max {
                        self.err(at, K::OutOfRange { keyword, range });
                        return None;
                    }
                    Some(u)
                } else if n.as_i64().is_some() {
                    self.err(at, K::Negative { keyword });
                    None
                } else {
                    let f = n.as_f64().unwrap_or(f64::NAN);
                    if f.fract() != 0.0 || !f.is_finite() {
                        self.err(at, K::NotAnInteger { keyword });
                    } else if f < 0.0 {
                        self.err(at, K::Negative { keyword });
                    } else if f > max as f64 || f >= 18446744073709551616.0 {
                        self.err(at, K::OutOfRange { keyword, range });
                    } else {
                        // A float with no fraction is an integer in JSON Schema (V2).
                        return Some(f as u64);
                    }
                    None
                }
            }
            _ => {
                self.err(
                    at,
                    K::WrongJsonType {
                        keyword,
                        expected: "a non-negative integer",
                    },
                );
                None
            }
        }
    }

    /// An `integer` bound or default: an int64. Null reads as absent.
    #[inline]
    fn int64(&mut self, b: &mut PropBuilder<'_>, kw: Kw) -> Option<i64> {
        let value = b.take(kw)?;
        // The common case, without a call.
        match value.as_number().and_then(serde_json::Number::as_i64) {
            Some(i) => Some(i),
            None => self.int64_value(b, kw, value),
        }
    }

    fn int64_value(&mut self, b: &PropBuilder<'_>, kw: Kw, value: &Value) -> Option<i64> {
        let keyword = kw.name();
        let at = &b.at.key(keyword);
        match value {
            Value::Null => None,
            Value::Number(n) => match value_to_i64(n) {
                Ok(i) => Some(i),
                Err(IntError::Fraction) => {
                    self.err(at, K::NotAnInteger { keyword });
                    None
                }
                Err(IntError::Range) => {
                    self.err(
                        at,
                        K::OutOfRange {
                            keyword,
                            range: "a 64-bit signed integer (int64)",
                        },
                    );
                    None
                }
            },
            _ => {
                self.err(
                    at,
                    K::WrongJsonType {
                        keyword,
                        expected: "an integer",
                    },
                );
                None
            }
        }
    }

    fn double(&mut self, b: &mut PropBuilder<'_>, kw: Kw) -> Option<f64> {
        let keyword = kw.name();
        let value = b.take(kw)?;
        let at = &b.at.key(keyword);
        match value {
            Value::Null => None,
            Value::Number(n) => match exact_f64(n) {
                Some(f) => Some(f),
                None => {
                    self.err(
                        at,
                        K::OutOfRange {
                            keyword,
                            range: "a double (integers beyond 2^53 are not exact)",
                        },
                    );
                    None
                }
            },
            _ => {
                self.err(
                    at,
                    K::WrongJsonType {
                        keyword,
                        expected: "a number",
                    },
                );
                None
            }
        }
    }

    pub(super) fn min_max<T: PartialOrd>(
        &mut self,
        at: &Ptr<'_>,
        min: &Option<T>,
        max: &Option<T>,
        names: (&'static str, &'static str),
    ) {
        if let (Some(lo), Some(hi)) = (min, max) {
            if lo > hi {
                self.err(
                    &at.key(names.0),
                    K::MinAboveMax {
                        min: names.0,
                        max: names.1,
                    },
                );
            }
        }
    }

    pub(super) fn number_kind(
        &mut self,
        b: &mut PropBuilder<'_>,
        out: &mut PropertyKind,
    ) -> Option<()> {
        let minimum = self.double(b, Kw::Minimum);
        let maximum = self.double(b, Kw::Maximum);
        self.min_max(b.at, &minimum, &maximum, ("minimum", "maximum"));
        b.misplace_string_and_array("number");
        super::place(
            out,
            PropertyKind::Number(NumberSchema {
                minimum,
                maximum,
                default: None,
            }),
        );
        Some(())
    }

    pub(super) fn integer_kind(
        &mut self,
        b: &mut PropBuilder<'_>,
        out: &mut PropertyKind,
    ) -> Option<()> {
        let minimum = self.int64(b, Kw::Minimum);
        let maximum = self.int64(b, Kw::Maximum);
        self.min_max(b.at, &minimum, &maximum, ("minimum", "maximum"));
        b.misplace_string_and_array("integer");
        super::place(
            out,
            PropertyKind::Integer(IntegerSchema {
                minimum,
                maximum,
                default: None,
            }),
        );
        Some(())
    }
}

/// A JSON number as a double, when the double is exact: `number` bounds and defaults
/// are doubles on the wire ([F2](crate::rules#f2)), and an integer past 2^53 would silently move.
pub(super) fn exact_f64(n: &serde_json::Number) -> Option<f64> {
    let f = n.as_f64().filter(|f| f.is_finite())?;
    if let Some(i) = n.as_i64() {
        return (f as i128 == i128::from(i)).then_some(f);
    }
    if let Some(u) = n.as_u64() {
        return (f as i128 == i128::from(u) && f < 18_446_744_073_709_551_616.0).then_some(f);
    }
    Some(f)
}

/// Why a JSON number is not an int64.
pub(crate) enum IntError {
    /// It has a fractional part.
    Fraction,
    /// It is outside the int64 range.
    Range,
}

/// A JSON number as an int64, accepting floats with no fractional part ([V2](crate::rules#v2), [D5](crate::rules#d5)).
pub(crate) fn value_to_i64(n: &serde_json::Number) -> Result<i64, IntError> {
    if let Some(i) = n.as_i64() {
        return Ok(i);
    }
    if n.as_u64().is_some() {
        return Err(IntError::Range);
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    if !f.is_finite() || f.fract() != 0.0 {
        return Err(IntError::Fraction);
    }
    // 2^63 is exactly representable; every float below it in magnitude with no
    // fraction converts exactly.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        Ok(f as i64)
    } else {
        Err(IntError::Range)
    }
}
