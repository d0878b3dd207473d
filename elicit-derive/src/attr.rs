//! The `#[elicit(..)]` grammar, plus the serde attributes and doc comments that decide
//! wire names and descriptions.
//!
//! Each attribute is read key by key. A mistake in one key (unknown, repeated, a value of
//! the wrong kind, a value out of range) is recorded and the next key is read, so every
//! mistake is reported at once. Only a syntax error ends the reading of one attribute;
//! the other attributes are still read.
//!
//! What this module checks is what one key can tell on its own: its value's kind and
//! range, that a `pattern` compiles, that a `format` exists. Rules between keys and
//! between fields are in `check.rs`.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, LitBool, LitFloat, LitInt, LitStr, Meta, Token};

use elicit_core::rules;
use elicit_core::schema::Format;
use elicit_core::schema::{Limits, Pattern};

use crate::case::RenameRule;
use crate::ctxt::Ctxt;

/// One key's value and where it was written: `key` for errors about the key, `tokens`
/// (the value as written) for errors about the value.
#[derive(Clone)]
pub struct Setting<T> {
    pub key: Ident,
    pub value: T,
    pub tokens: TokenStream,
}

impl<T> Setting<T> {
    fn map<U>(self, f: impl FnOnce(T) -> U) -> Setting<U> {
        Setting {
            key: self.key,
            value: f(self.value),
            tokens: self.tokens,
        }
    }
}

/// A numeric literal (`minimum`, `maximum`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Float(x) => write!(f, "{x:?}"),
        }
    }
}

/// A `default = <literal>`.
#[derive(Debug, Clone, PartialEq)]
pub enum DefaultLit {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    List(Vec<String>),
}

/// A `pattern`: its source and the expression compiled by the runtime's own rules.
#[derive(Clone)]
pub struct PatternLit {
    pub source: String,
    pub compiled: Pattern,
}

/// A doc comment or `description`, whichever the schema uses.
#[derive(Clone)]
pub struct Text {
    pub value: String,
    /// The literal (for `description`) or the first doc attribute: where errors point.
    pub tokens: TokenStream,
}

// ---- attributes of the struct or enum ------------------------------------------------

/// Attributes on the struct or enum.
#[derive(Default)]
pub struct Container {
    pub title: Option<Setting<String>>,
    pub description: Option<Setting<String>>,
    pub doc: Option<Text>,
    pub rename_all: Option<Setting<RenameRule>>,
    pub serde_rename_all: Option<Setting<RenameRule>>,
    pub deny_unknown_fields: Option<Ident>,
    pub url_mode: Option<Ident>,
    pub krate: Option<Setting<syn::Path>>,
}

/// Which item the attributes are on, for the keys it allows and for messages.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Struct,
    Enum,
    Field,
    Variant,
}

impl Position {
    fn noun(self) -> &'static str {
        match self {
            Position::Struct => "struct",
            Position::Enum => "enum",
            Position::Field => "field",
            Position::Variant => "variant",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Position::Struct => &[
                "title",
                "description",
                "rename_all",
                "deny_unknown_fields",
                "url_mode",
                "crate",
            ],
            Position::Enum => &["rename_all", "crate"],
            Position::Field => &[
                "rename",
                "title",
                "description",
                "default",
                "min_length",
                "max_length",
                "pattern",
                "format",
                "minimum",
                "maximum",
                "min_items",
                "max_items",
                "skip",
                "allow_secret",
            ],
            Position::Variant => &["rename", "title", "description"],
        }
    }
}

impl Container {
    pub fn from_ast(cx: &Ctxt, attrs: &[Attribute], position: Position) -> Container {
        let mut c = Container::default();
        for entry in elicit_entries(cx, attrs) {
            let key = entry.key.to_string();
            match key.as_str() {
                // #[elicit(title = "...")]
                "title" if position == Position::Struct => set(cx, &mut c.title, entry.string(cx)),
                // #[elicit(description = "...")]
                "description" if position == Position::Struct => {
                    set(cx, &mut c.description, entry.string(cx))
                }
                // #[elicit(rename_all = "camelCase")]
                "rename_all" => set(cx, &mut c.rename_all, entry.rename_rule(cx)),
                // #[elicit(deny_unknown_fields)]
                "deny_unknown_fields" if position == Position::Struct => {
                    if entry.flag(cx) {
                        set_flag(cx, &mut c.deny_unknown_fields, entry.key);
                    }
                }
                // #[elicit(url_mode)]: for the agent's own URL-mode page only.
                "url_mode" if position == Position::Struct => {
                    if entry.flag(cx) {
                        set_flag(cx, &mut c.url_mode, entry.key);
                    }
                }
                // #[elicit(crate = "path::to::elicit")]
                "crate" => {
                    let path = entry.string(cx).and_then(|s| parse_crate_path(cx, s));
                    set(cx, &mut c.krate, path);
                }
                "url_mode" => cx.error_spanned_by(
                    &entry.key,
                    "`url_mode` applies to a form struct: it marks the whole form for the agent's own URL-mode page, and a select is only one of a form's fields",
                ),
                "title" | "description" | "deny_unknown_fields" => cx.error_spanned_by(
                    &entry.key,
                    format!(
                        "`{key}` applies to a form struct, not to an enum; a select field takes its title and description from the field that uses the enum"
                    ),
                ),
                _ => unknown_key(cx, &entry.key, position),
            }
        }
        read_serde(attrs, |entry| {
            // #[serde(rename_all = "...")], #[serde(rename_all(deserialize = "..."))]
            if entry.key == "rename_all" {
                if let Some(s) = entry.deserialize_name() {
                    if let Some(rule) = RenameRule::from_name(&s.value) {
                        c.serde_rename_all = Some(Setting {
                            key: s.key,
                            value: rule,
                            tokens: s.tokens,
                        });
                    }
                }
            }
        });
        if position == Position::Struct {
            c.doc = doc_comment(attrs);
        }
        c
    }
}

// ---- attributes of a field ------------------------------------------------------------

/// Attributes on a field.
#[derive(Default)]
pub struct Field {
    pub rename: Option<Setting<String>>,
    pub serde_rename: Option<Setting<String>>,
    pub title: Option<Setting<String>>,
    pub description: Option<Setting<String>>,
    pub doc: Option<Text>,
    pub default: Option<Setting<DefaultLit>>,
    pub min_length: Option<Setting<u32>>,
    pub max_length: Option<Setting<u32>>,
    pub pattern: Option<Setting<PatternLit>>,
    pub format: Option<Setting<Format>>,
    pub minimum: Option<Setting<Num>>,
    pub maximum: Option<Setting<Num>>,
    pub min_items: Option<Setting<u64>>,
    pub max_items: Option<Setting<u64>>,
    pub skip: Option<Ident>,
    pub serde_skip: Option<Ident>,
    pub allow_secret: Option<Setting<String>>,
}

impl Field {
    pub fn from_ast(cx: &Ctxt, attrs: &[Attribute]) -> Field {
        let mut f = Field::default();
        for entry in elicit_entries(cx, attrs) {
            let key = entry.key.to_string();
            match key.as_str() {
                // #[elicit(rename = "...")]
                "rename" => set(cx, &mut f.rename, entry.string(cx)),
                // #[elicit(title = "...")]
                "title" => set(cx, &mut f.title, entry.string(cx)),
                // #[elicit(description = "...")]
                "description" => set(cx, &mut f.description, entry.string(cx)),
                // #[elicit(default = "x" | 3 | -1.5 | true | ["a", "b"])]
                "default" => set(cx, &mut f.default, entry.default(cx)),
                // #[elicit(min_length = 1)]
                "min_length" => set(cx, &mut f.min_length, entry.uint32(cx)),
                // #[elicit(max_length = 100)]
                "max_length" => set(cx, &mut f.max_length, entry.uint32(cx)),
                // #[elicit(pattern = "^[a-z]+$")]
                "pattern" => {
                    let pattern = entry.string(cx).and_then(|s| compile_pattern(cx, s));
                    set(cx, &mut f.pattern, pattern)
                }
                // #[elicit(format = "email")]
                "format" => {
                    let format = entry.string(cx).and_then(|s| parse_format(cx, s));
                    set(cx, &mut f.format, format)
                }
                // #[elicit(minimum = 0)]
                "minimum" => set(cx, &mut f.minimum, entry.number(cx)),
                // #[elicit(maximum = 10)]
                "maximum" => set(cx, &mut f.maximum, entry.number(cx)),
                // #[elicit(min_items = 1)]
                "min_items" => set(
                    cx,
                    &mut f.min_items,
                    entry.unsigned(cx, u64::MAX.into(), "a uint64"),
                ),
                // #[elicit(max_items = 3)]
                "max_items" => set(
                    cx,
                    &mut f.max_items,
                    entry.unsigned(cx, u64::MAX.into(), "a uint64"),
                ),
                // #[elicit(skip)]
                "skip" => {
                    if entry.flag(cx) {
                        set_flag(cx, &mut f.skip, entry.key);
                    }
                }
                // #[elicit(allow_secret = "why this is not a secret")]
                "allow_secret" => {
                    let reason = entry.string(cx).and_then(|s| {
                        if s.value.trim().is_empty() {
                            cx.error_spanned_by(
                                &s.tokens,
                                "`allow_secret` needs the reason this field is not a secret: `allow_secret = \"...\"`",
                            );
                            None
                        } else {
                            Some(s)
                        }
                    });
                    set(cx, &mut f.allow_secret, reason)
                }
                _ => unknown_key(cx, &entry.key, Position::Field),
            }
        }
        read_serde(attrs, |entry| match entry.key.to_string().as_str() {
            // #[serde(rename = "...")], #[serde(rename(deserialize = "..."))]
            "rename" => f.serde_rename = entry.deserialize_name(),
            // #[serde(skip)]
            "skip" if entry.value.is_none() => f.serde_skip = Some(entry.key),
            _ => {}
        });
        f.doc = doc_comment(attrs);
        f
    }
}

// ---- attributes of a variant ----------------------------------------------------------

/// Attributes on an enum variant.
#[derive(Default)]
pub struct Variant {
    pub rename: Option<Setting<String>>,
    pub serde_rename: Option<Setting<String>>,
    pub title: Option<Setting<String>>,
    pub description: Option<Setting<String>>,
    pub doc: Option<Text>,
    pub serde_skip: Option<Ident>,
}

impl Variant {
    pub fn from_ast(cx: &Ctxt, attrs: &[Attribute]) -> Variant {
        let mut v = Variant::default();
        for entry in elicit_entries(cx, attrs) {
            match entry.key.to_string().as_str() {
                // #[elicit(rename = "...")]
                "rename" => set(cx, &mut v.rename, entry.string(cx)),
                // #[elicit(title = "...")]
                "title" => set(cx, &mut v.title, entry.string(cx)),
                // #[elicit(description = "...")]
                "description" => set(cx, &mut v.description, entry.string(cx)),
                _ => unknown_key(cx, &entry.key, Position::Variant),
            }
        }
        read_serde(attrs, |entry| match entry.key.to_string().as_str() {
            // #[serde(rename = "...")]
            "rename" => v.serde_rename = entry.deserialize_name(),
            // #[serde(skip)]: refused in check.rs, every variant is an option
            "skip" if entry.value.is_none() => v.serde_skip = Some(entry.key),
            _ => {}
        });
        v.doc = doc_comment(attrs);
        v
    }
}

// ---- setting values ---------------------------------------------------------------------

fn set<T>(cx: &Ctxt, slot: &mut Option<Setting<T>>, value: Option<Setting<T>>) {
    let Some(value) = value else { return };
    if slot.is_some() {
        cx.error_spanned_by(
            &value.key,
            format!("duplicate elicit attribute `{}`", value.key),
        );
    } else {
        *slot = Some(value);
    }
}

fn set_flag(cx: &Ctxt, slot: &mut Option<Ident>, key: Ident) {
    if slot.is_some() {
        cx.error_spanned_by(&key, format!("duplicate elicit attribute `{key}`"));
    } else {
        *slot = Some(key);
    }
}

fn unknown_key(cx: &Ctxt, key: &Ident, position: Position) {
    let name = key.to_string();
    let elsewhere = [Position::Struct, Position::Field, Position::Variant]
        .into_iter()
        .filter(|p| *p != position && p.keys().contains(&name.as_str()))
        .map(Position::noun)
        .collect::<Vec<_>>();
    let message = if !elsewhere.is_empty() {
        format!(
            "`{name}` is not an elicit {} attribute; it goes on a {}",
            position.noun(),
            elsewhere.join(" or a ")
        )
    } else if let Some(close) = closest(&name, position.keys()) {
        format!(
            "unknown elicit {} attribute `{name}`; did you mean `{close}`",
            position.noun()
        )
    } else {
        let known: Vec<String> = position.keys().iter().map(|k| format!("`{k}`")).collect();
        format!(
            "unknown elicit {} attribute `{name}`; expected one of {}",
            position.noun(),
            known.join(", ")
        )
    };
    cx.error_spanned_by(key, message);
}

/// The known key nearest to a misspelt one, if it is a typo away (edit distance ≤ 2).
fn closest<'k>(name: &str, keys: &[&'k str]) -> Option<&'k str> {
    keys.iter()
        .map(|k| (edit_distance(name, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

fn compile_pattern(cx: &Ctxt, s: Setting<String>) -> Option<Setting<PatternLit>> {
    // D8, D12: the pattern a client will compile must compile here, by the same rules
    // and under the same limits, or the form could never be answered.
    let limit = Limits::default().max_pattern_len;
    let len = s.value.chars().count();
    if len > limit {
        cx.error_spanned_by(
            &s.tokens,
            format!(
                "`pattern` is {len} characters long; clients refuse patterns longer than {limit}; {}",
                rules::cite("D12")
            ),
        );
        return None;
    }
    match Pattern::new(s.value.clone()) {
        Ok(compiled) => Some(Setting {
            key: s.key,
            value: PatternLit {
                source: s.value,
                compiled,
            },
            tokens: s.tokens,
        }),
        Err(e) => {
            cx.error_spanned_by(&s.tokens, format!("`pattern` does not compile: {e}"));
            None
        }
    }
}

fn parse_format(cx: &Ctxt, s: Setting<String>) -> Option<Setting<Format>> {
    match Format::from_name(&s.value) {
        Some(format) => Some(Setting {
            key: s.key,
            value: format,
            tokens: s.tokens,
        }),
        None => {
            let known: Vec<String> = Format::ALL
                .iter()
                .map(|f| format!("`{}`", f.name()))
                .collect();
            cx.error_spanned_by(
                &s.tokens,
                format!(
                    "unknown `format` `{}`; elicitation forms allow {}; {}",
                    s.value,
                    known.join(", "),
                    rules::cite("F2")
                ),
            );
            None
        }
    }
}

fn parse_crate_path(cx: &Ctxt, s: Setting<String>) -> Option<Setting<syn::Path>> {
    let lit = LitStr::new(&s.value, span_of(&s.tokens));
    match lit.parse::<syn::Path>() {
        Ok(path) => Some(Setting {
            key: s.key,
            value: path,
            tokens: s.tokens,
        }),
        Err(_) => {
            cx.error_spanned_by(
                &s.tokens,
                format!(
                    "`crate` must be a path such as `\"::elicit\"`, found `\"{}\"`",
                    s.value
                ),
            );
            None
        }
    }
}

fn span_of(tokens: &TokenStream) -> Span {
    tokens
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span())
}

// ---- the entries of one attribute -------------------------------------------------------

/// One `key` or `key = value` inside `#[elicit(..)]` or `#[serde(..)]`.
struct Entry {
    key: Ident,
    value: Option<Value>,
}

/// A value as written, classified by literal kind; `tokens` is the value for spans.
struct Value {
    kind: ValueKind,
    tokens: TokenStream,
}

enum ValueKind {
    Str(LitStr),
    /// An integer literal, with its sign applied; `i128` holds every int64 and uint64.
    Int(i128, LitInt),
    Float(f64, LitFloat),
    Bool(bool),
    List(Vec<LitStr>),
    /// `key(..)`: serde's `rename(serialize = .., deserialize = ..)` form.
    Nested(Vec<Entry>),
    /// Anything else: not a literal.
    Other,
}

impl Entry {
    fn what(&self) -> String {
        format!("`{}`", self.key)
    }

    fn string(self, cx: &Ctxt) -> Option<Setting<String>> {
        match self.value {
            Some(Value {
                kind: ValueKind::Str(lit),
                tokens,
            }) => Some(Setting {
                key: self.key,
                value: lit.value(),
                tokens,
            }),
            _ => {
                self.expected(cx, "a string literal", &format!("{} = \"...\"", self.key));
                None
            }
        }
    }

    fn rename_rule(self, cx: &Ctxt) -> Option<Setting<RenameRule>> {
        let s = self.string(cx)?;
        match RenameRule::from_name(&s.value) {
            Some(rule) => Some(Setting {
                key: s.key,
                value: rule,
                tokens: s.tokens,
            }),
            None => {
                cx.error_spanned_by(
                    &s.tokens,
                    format!(
                        "unknown `rename_all` rule `{}`; expected one of {}",
                        s.value,
                        RenameRule::all_names()
                    ),
                );
                None
            }
        }
    }

    /// A bare key: `skip`, not `skip = true`.
    fn flag(&self, cx: &Ctxt) -> bool {
        match &self.value {
            None => true,
            Some(v) => {
                cx.error_spanned_by(
                    &v.tokens,
                    format!("{} takes no value: write `{}` alone", self.what(), self.key),
                );
                false
            }
        }
    }

    fn uint32(self, cx: &Ctxt) -> Option<Setting<u32>> {
        // In range after `unsigned`; the fallback is never taken.
        self.unsigned(cx, u32::MAX.into(), "a uint32")
            .map(|s| s.map(|v| u32::try_from(v).unwrap_or(u32::MAX)))
    }

    fn unsigned(self, cx: &Ctxt, max: u128, wire: &str) -> Option<Setting<u64>> {
        match &self.value {
            Some(Value {
                kind: ValueKind::Int(i, lit),
                tokens,
            }) => {
                if !no_suffix(cx, &self.key, lit.suffix(), tokens) {
                    return None;
                }
                if *i < 0 || *i as u128 > max {
                    cx.error_spanned_by(
                        tokens,
                        format!(
                            "{} must be between 0 and {max} ({wire} on the wire)",
                            self.what()
                        ),
                    );
                    return None;
                }
                Some(Setting {
                    value: *i as u64,
                    tokens: tokens.clone(),
                    key: self.key,
                })
            }
            _ => {
                self.expected(cx, "an integer literal", &format!("{} = 1", self.key));
                None
            }
        }
    }

    fn number(self, cx: &Ctxt) -> Option<Setting<Num>> {
        let num = match &self.value {
            Some(Value {
                kind: ValueKind::Int(i, lit),
                tokens,
            }) => no_suffix(cx, &self.key, lit.suffix(), tokens)
                .then(|| safe_integer(cx, &self.key, *i, tokens).map(Num::Int))
                .flatten(),
            Some(Value {
                kind: ValueKind::Float(f, lit),
                tokens,
            }) => no_suffix(cx, &self.key, lit.suffix(), tokens)
                .then(|| finite(cx, &self.key, *f, tokens).map(Num::Float))
                .flatten(),
            _ => {
                self.expected(cx, "a number literal", &format!("{} = 0", self.key));
                return None;
            }
        }?;
        let tokens = self.value.map(|v| v.tokens).unwrap_or_default();
        Some(Setting {
            key: self.key,
            value: num,
            tokens,
        })
    }

    fn default(self, cx: &Ctxt) -> Option<Setting<DefaultLit>> {
        let Some(Value { kind, tokens }) = &self.value else {
            self.expected(
                cx,
                "a literal",
                "default = \"text\"`, `default = 3`, `default = true` or `default = [\"a\", \"b\"]",
            );
            return None;
        };
        let value = match kind {
            ValueKind::Str(s) => DefaultLit::Str(s.value()),
            ValueKind::Int(i, lit) => {
                if !no_suffix(cx, &self.key, lit.suffix(), tokens) {
                    return None;
                }
                DefaultLit::Int(safe_integer(cx, &self.key, *i, tokens)?)
            }
            ValueKind::Float(f, lit) => {
                if !no_suffix(cx, &self.key, lit.suffix(), tokens) {
                    return None;
                }
                DefaultLit::Float(finite(cx, &self.key, *f, tokens)?)
            }
            ValueKind::Bool(b) => DefaultLit::Bool(*b),
            ValueKind::List(items) => DefaultLit::List(items.iter().map(LitStr::value).collect()),
            ValueKind::Nested(_) | ValueKind::Other => {
                self.expected(
                    cx,
                    "a literal",
                    "default = \"text\"`, `default = 3`, `default = true` or `default = [\"a\", \"b\"]",
                );
                return None;
            }
        };
        Some(Setting {
            tokens: tokens.clone(),
            key: self.key,
            value,
        })
    }

    fn expected(&self, cx: &Ctxt, what: &str, example: &str) {
        let message = format!("{} takes {what}: `{example}`", self.what());
        match &self.value {
            Some(v) => cx.error_spanned_by(&v.tokens, message),
            None => cx.error_spanned_by(&self.key, message),
        }
    }

    /// The name serde deserializes with: `key = "x"` or `key(deserialize = "x")`.
    fn deserialize_name(self) -> Option<Setting<String>> {
        match self.value {
            Some(Value {
                kind: ValueKind::Str(lit),
                tokens,
            }) => Some(Setting {
                key: self.key,
                value: lit.value(),
                tokens,
            }),
            Some(Value {
                kind: ValueKind::Nested(entries),
                ..
            }) => entries
                .into_iter()
                .find(|e| e.key == "deserialize")
                .and_then(|e| match e.value {
                    Some(Value {
                        kind: ValueKind::Str(lit),
                        tokens,
                    }) => Some(Setting {
                        key: self.key.clone(),
                        value: lit.value(),
                        tokens,
                    }),
                    _ => None,
                }),
            _ => None,
        }
    }
}

fn no_suffix(cx: &Ctxt, key: &Ident, suffix: &str, tokens: &TokenStream) -> bool {
    if suffix.is_empty() {
        return true;
    }
    cx.error_spanned_by(
        tokens,
        format!(
            "remove the `{suffix}` suffix from `{key}`: the field's type decides the number's type"
        ),
    );
    false
}

/// The largest integer a JSON number carries exactly to every client (2^53 − 1, as
/// `elicit_core::typed::MAX_SAFE_INTEGER`): a JavaScript client reads larger ones
/// rounded, so an integer literal beyond ±this could not mean what it says.
const MAX_SAFE_INTEGER: i128 = (1 << 53) - 1;

fn safe_integer(cx: &Ctxt, key: &Ident, i: i128, tokens: &TokenStream) -> Option<i64> {
    if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i) {
        // In range of an i64 by the bound above.
        return i64::try_from(i).ok();
    }
    cx.error_spanned_by(
        tokens,
        format!(
            "`{key}` must be within -{MAX_SAFE_INTEGER}..={MAX_SAFE_INTEGER} (2^53 - 1): \
             a JavaScript client reads a larger integer rounded, so the form would not \
             say what you wrote; integer fields are limited to this range"
        ),
    );
    None
}

fn finite(cx: &Ctxt, key: &Ident, f: f64, tokens: &TokenStream) -> Option<f64> {
    if f.is_finite() {
        Some(f)
    } else {
        cx.error_spanned_by(tokens, format!("`{key}` must be a finite double"));
        None
    }
}

/// The entries of every `#[elicit(..)]` attribute, in order. Syntax errors are recorded
/// and end the reading of their attribute only.
fn elicit_entries(cx: &Ctxt, attrs: &[Attribute]) -> Vec<Entry> {
    let mut entries = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("elicit")) {
        let list = match &attr.meta {
            Meta::List(list) => list,
            Meta::Path(_) | Meta::NameValue(_) => {
                cx.error_spanned_by(
                    attr,
                    "expected `#[elicit(...)]`, for example `#[elicit(title = \"...\")]`",
                );
                continue;
            }
        };
        let parser = |input: ParseStream| parse_entries(input, &mut entries);
        if let Err(e) = parser.parse2(list.tokens.clone()) {
            cx.syn_error(e);
        }
    }
    entries
}

/// The entries of `#[serde(..)]` attributes that this crate honours. Anything serde
/// accepts and this crate does not read is skipped; a serde attribute that does not
/// parse is left for serde to report.
fn read_serde(attrs: &[Attribute], mut each: impl FnMut(Entry)) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        if let Meta::List(list) = &attr.meta {
            let mut entries = Vec::new();
            let parser = |input: ParseStream| parse_entries(input, &mut entries);
            // Entries read before a syntax error still count; serde reports the error.
            let _ = parser.parse2(list.tokens.clone());
            entries.into_iter().for_each(&mut each);
        }
    }
}

fn parse_entries(input: ParseStream, entries: &mut Vec<Entry>) -> syn::Result<()> {
    while !input.is_empty() {
        // `crate` is a keyword; attribute keys may be keywords.
        let key = input.call(Ident::parse_any)?;
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(parse_value(input, &key)?)
        } else if input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in input);
            let mut nested = Vec::new();
            // Only serde's `rename(...)` forms are nested; a nested elicit key is then
            // refused as a value of the wrong kind.
            let tokens = content.fork().parse::<TokenStream>()?;
            parse_entries(&content, &mut nested)?;
            Some(Value {
                kind: ValueKind::Nested(nested),
                tokens,
            })
        } else if input.is_empty() || input.peek(Token![,]) {
            None
        } else {
            return Err(input.error(format!("expected `=` or `,` after `{key}`")));
        };
        entries.push(Entry { key, value });
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(())
}

/// Everything up to the next top-level comma is the value; then it is classified.
fn parse_value(input: ParseStream, key: &Ident) -> syn::Result<Value> {
    let mut tokens = TokenStream::new();
    while !input.is_empty() && !input.peek(Token![,]) {
        tokens.extend([input.parse::<TokenTree>()?]);
    }
    if tokens.is_empty() {
        return Err(syn::Error::new(
            key.span(),
            format!("expected a value after `{key} =`"),
        ));
    }
    let kind = classify.parse2(tokens.clone()).unwrap_or(ValueKind::Other);
    Ok(Value { kind, tokens })
}

fn classify(input: ParseStream) -> syn::Result<ValueKind> {
    if input.peek(LitStr) {
        return Ok(ValueKind::Str(input.parse()?));
    }
    if input.peek(LitBool) {
        return Ok(ValueKind::Bool(input.parse::<LitBool>()?.value()));
    }
    if input.peek(syn::token::Bracket) {
        let content;
        syn::bracketed!(content in input);
        let items = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
        return Ok(ValueKind::List(items.into_iter().collect()));
    }
    let negative = input.parse::<Option<Token![-]>>()?.is_some();
    if input.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        // Anything past the int64 and uint64 ranges saturates; the key's own range check
        // then reports it.
        let magnitude = i128::try_from(lit.base10_parse::<u128>()?).unwrap_or(i128::MAX);
        let value = if negative { -magnitude } else { magnitude };
        return Ok(ValueKind::Int(value, lit));
    }
    if input.peek(LitFloat) {
        let lit: LitFloat = input.parse()?;
        let magnitude = lit.base10_parse::<f64>()?;
        return Ok(ValueKind::Float(
            if negative { -magnitude } else { magnitude },
            lit,
        ));
    }
    Err(input.error("expected a literal"))
}

// ---- doc comments -------------------------------------------------------------------------

/// The doc comment, as one description: lines of a paragraph joined by a space,
/// paragraphs by a blank line (hard-wrapped source lines are not line breaks).
fn doc_comment(attrs: &[Attribute]) -> Option<Text> {
    let mut lines = Vec::new();
    let mut first = None;
    for attr in attrs {
        let Meta::NameValue(nv) = &attr.meta else {
            continue;
        };
        if !nv.path.is_ident("doc") {
            continue;
        }
        // `#[doc = include_str!(..)]` and other non-literals cannot be read here.
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = &nv.value
        else {
            continue;
        };
        first.get_or_insert_with(|| attr.to_token_stream());
        // `split`, not `lines`: an empty `///` line is an empty string, and it is the
        // paragraph break.
        lines.extend(s.value().split('\n').map(|l| l.trim().to_owned()));
    }
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in lines {
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(&line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    let value = paragraphs.join("\n\n");
    (!value.is_empty()).then(|| Text {
        value,
        tokens: first.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_typos() {
        assert_eq!(edit_distance("minimun", "minimum"), 1);
        assert_eq!(edit_distance("titel", "title"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(
            closest("max_lenght", Position::Field.keys()),
            Some("max_length")
        );
        assert_eq!(closest("zzz", Position::Field.keys()), None);
    }

    #[test]
    fn doc_comments_join_paragraphs() {
        let attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[doc = " First line"]),
            syn::parse_quote!(#[doc = " continues."]),
            syn::parse_quote!(#[doc = ""]),
            syn::parse_quote!(#[doc = " Second."]),
        ];
        let doc = doc_comment(&attrs).map(|t| t.value);
        assert_eq!(doc.as_deref(), Some("First line continues.\n\nSecond."));
    }

    #[test]
    fn values_are_classified() {
        let attr: Attribute = syn::parse_quote!(#[elicit(minimum = -5, maximum = 2.5, default = ["a", "b"], skip, title = 3)]);
        let cx = Ctxt::new();
        let entries = elicit_entries(&cx, &[attr]);
        assert!(cx.check().is_ok());
        assert!(matches!(
            entries[0].value,
            Some(Value {
                kind: ValueKind::Int(-5, _),
                ..
            })
        ));
        assert!(
            matches!(entries[1].value, Some(Value { kind: ValueKind::Float(f, _), .. }) if f == 2.5)
        );
        assert!(
            matches!(&entries[2].value, Some(Value { kind: ValueKind::List(v), .. }) if v.len() == 2)
        );
        assert!(entries[3].value.is_none());
        assert!(matches!(
            entries[4].value,
            Some(Value {
                kind: ValueKind::Int(3, _),
                ..
            })
        ));
    }
}
