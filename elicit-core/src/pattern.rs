//! The `pattern` keyword ([F2](crate::rules#f2), [V4](crate::rules#v4), [D8](crate::rules#d8)): an ECMA-262 regular expression, matched unanchored,
//! run by the linear-time `regex` crate under a compiled-size limit.
//!
//! The dialect is the one JSON Schema 2020-12 validators apply: ECMA-262's
//! `Pattern[+UnicodeMode, +NamedCaptureGroups]` (the `u` flag: `\p{…}`, `\u{…}`, whole code
//! points, strict syntax), with ES2025 modifier groups `(?i:…)` and repeated group names in
//! separate alternatives, widened only by the identity escapes of patterns without `u`: a
//! backslash before any character that is not alphanumeric stands for that character. This
//! is the grammar the `jsonschema` crate checks for `format: regex`.
//!
//! The translation parses that grammar itself and builds the matcher's syntax tree
//! (`regex_syntax::hir`) directly, so every character class is computed with ECMA's
//! meaning rather than spelled in `regex` syntax and trusted to mean the same:
//! - `\d`, `\w` and `\b` are ASCII; `\s` is ECMA's white space and line terminators;
//! - `.` excludes `\n`, `\r`, U+2028 and U+2029 (all code points under the `s` modifier);
//! - `^` and `$` match only at the ends of the text (no `m` flag reaches a pattern);
//! - under the `i` modifier, classes are case-folded after complementing `\P{…}`, `\W`, …
//!   but before negating `[^…]`, as ECMA's `Canonicalize` does;
//! - lone surrogates (`\uD800`) match nothing, since the text is UTF-8.
//!
//! Refused as unsupported ([D8](crate::rules#d8): valid ECMA-262 beyond a linear-time engine): look-around,
//! back-references, `^`/`$` under an `m` modifier, and the one Unicode property the engine
//! lacks (`Changes_When_NFKC_Casefolded`). Refused as invalid: every syntax error, which
//! wins when a pattern has both. Refused as too large ([D12](crate::rules#d12)): groups nested more than 50
//! deep, counts past `u32::MAX`, programs past the caller's compiled-size limit.
//!
//! Known difference: under an `i` modifier ECMA also counts U+017F and U+212A as word
//! characters for `\b`; here `\b` stays ASCII.

use std::collections::HashSet;
use std::fmt;
use std::sync::OnceLock;

use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Look, Repetition};

/// Default limit on the compiled size of a pattern (bytes), see
/// [`regex::RegexBuilder::size_limit`] ([D8](crate::rules#d8), [D12](crate::rules#d12)).
///
/// Large enough for counted repetitions of Unicode classes that forms use
/// (`^[\p{L} '-]{1,100}$` needs about 4.3 MB), small enough that compiling the worst
/// pattern stays well under a second.
pub const DEFAULT_PATTERN_SIZE_LIMIT: usize = 8 * (1 << 20);

/// The lazy DFA's cache per compiled pattern (bytes), see
/// [`regex::RegexBuilder::dfa_size_limit`] ([D12](crate::rules#d12)). At `regex`'s default (2 MiB) the
/// lazy DFA cannot hold the states of the largest programs D12 admits, and the search
/// falls back to the PikeVM, whose cost is the text length times the program size
/// (≈ 47,000 instructions per byte for the worst allowed pattern). As large as the
/// program limit, the lazy DFA is available and the search strategies built on it
/// (suffix literals, reverse search) apply: ≈ 700 instructions for 1 KiB there. The
/// cache grows only as states are needed.
const LAZY_DFA_CACHE: usize = DEFAULT_PATTERN_SIZE_LIMIT;

/// Longest pattern source accepted (characters) ([D12](crate::rules#d12)).
///
/// [`compile_pattern`] does work linear in the source; the caller checks this bound first
/// so that the work, and the syntax tree it builds, stay small.
pub const DEFAULT_PATTERN_MAX_LEN: usize = 1024;

/// Why look-around and back-references are refused ([D8](crate::rules#d8)).
const LINEAR_TIME: &str = "matching must run in linear time; rewrite the pattern without it";

/// Deepest nesting of groups a pattern may use: keeps the parser's recursion and the
/// `regex` compiler's (which refuses more than 250 levels of its own syntax) bounded.
const MAX_NESTING: usize = 50;

/// Why a pattern cannot be enforced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    kind: PatternErrorKind,
    reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PatternErrorKind {
    /// Not an ECMA-262 regular expression.
    Invalid,
    /// Valid ECMA-262 that a linear-time engine cannot run ([D8](crate::rules#d8)).
    Unsupported,
    /// Valid, but past a size limit ([D8](crate::rules#d8), [D12](crate::rules#d12)).
    TooLarge,
}

impl PatternError {
    fn new(kind: PatternErrorKind, reason: String) -> Self {
        PatternError { kind, reason }
    }

    /// What is wrong and how to fix it, in one line.
    #[must_use]
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Whether the pattern is valid ECMA-262 that a linear-time engine cannot run
    /// (look-around, back-references, `^`/`$` under an `m` modifier, a Unicode property
    /// the engine has no table for): [D8](crate::rules#d8)'s lenient parse
    /// keeps such a pattern unenforced, the strict parse rejects it. `false` for syntax
    /// errors and for patterns past the size limits.
    #[must_use]
    pub fn is_unsupported(&self) -> bool {
        self.kind == PatternErrorKind::Unsupported
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for PatternError {}

/// Translate an ECMA-262 pattern to the regex crate's syntax and compile it ([V4](crate::rules#v4), [D8](crate::rules#d8)).
///
/// The regex searches (it is not anchored), as `pattern` requires: use
/// [`regex::Regex::is_match`]. `size_limit` bounds the compiled program in bytes
/// ([`DEFAULT_PATTERN_SIZE_LIMIT`] is the usual value); the caller bounds the source length
/// ([`DEFAULT_PATTERN_MAX_LEN`]).
///
/// # Errors
///
/// A [`PatternError`] when `source` is not an ECMA-262 regular expression, uses what a
/// linear-time engine cannot run ([`PatternError::is_unsupported`]), nests groups too
/// deeply, or compiles past `size_limit`.
pub fn compile_pattern(source: &str, size_limit: usize) -> Result<regex::Regex, PatternError> {
    let hir = Parser::new(source).parse()?;
    regex::RegexBuilder::new(&hir.to_string())
        .size_limit(size_limit)
        .dfa_size_limit(LAZY_DFA_CACHE)
        .build()
        .map_err(|error| match error {
            regex::Error::CompiledTooBig(limit) => PatternError::new(
                PatternErrorKind::TooLarge,
                format!(
                    "pattern compiles to more than {limit} bytes, the size limit; simplify it \
                     (counted repetitions of large classes are the usual cause)"
                ),
            ),
            // The translation only emits what `regex` parses, so this is a bug here; still
            // an error, never a panic.
            other => PatternError::new(
                PatternErrorKind::Invalid,
                format!(
                    "pattern could not be compiled: {}",
                    other
                        .to_string()
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            ),
        })
}

type Parsed<T> = Result<T, PatternError>;

/// The modifier flags in force (ES2025 `(?ims-ims:…)`); a pattern starts with none.
#[derive(Debug, Clone, Copy, Default)]
struct Flags {
    ignore_case: bool,
    multiline: bool,
    dot_all: bool,
}

/// Group names of one disjunction, kept to refuse a name used twice where both groups
/// might take part in one match (ES2025: only separate alternatives may share a name).
#[derive(Default)]
struct DisjunctionNames {
    /// Names in alternatives already finished.
    earlier: HashSet<String>,
    /// Names in the alternative being read, including those of groups closed inside it.
    current: HashSet<String>,
}

/// A back-reference, checked against the groups once the whole pattern is read (it may
/// refer forward).
struct Reference {
    at: usize,
    text: String,
    target: ReferenceTarget,
}

enum ReferenceTarget {
    Number(u64),
    Name(String),
}

/// One item of a character class.
enum ClassAtom {
    Char(u32),
    Set(ClassUnicode),
}

/// Recursive-descent reader of the pattern that builds the `regex` syntax tree as it goes.
struct Parser<'a> {
    source: &'a str,
    /// Byte offset of the next character.
    at: usize,
    depth: usize,
    flags: Flags,
    capturing_groups: u64,
    names: Vec<DisjunctionNames>,
    declared_names: HashSet<String>,
    references: Vec<Reference>,
    /// The first construct found that is valid but unsupported; reported only if the
    /// whole pattern turns out valid, so syntax errors win ([D8](crate::rules#d8)).
    unsupported: Option<PatternError>,
}

impl<'a> Parser<'a> {
    fn new(source: &'a str) -> Self {
        Parser {
            source,
            at: 0,
            depth: 0,
            flags: Flags::default(),
            capturing_groups: 0,
            names: Vec::new(),
            declared_names: HashSet::new(),
            references: Vec::new(),
            unsupported: None,
        }
    }

    fn parse(mut self) -> Parsed<Hir> {
        let hir = self.disjunction()?;
        if self.peek() == Some(')') {
            return Err(self.invalid(self.at, "unmatched `)`", "remove it or write `\\)`"));
        }
        for reference in &self.references {
            let missing = match &reference.target {
                ReferenceTarget::Number(number) => *number > self.capturing_groups,
                ReferenceTarget::Name(name) => !self.declared_names.contains(name),
            };
            if missing {
                let hint = match reference.target {
                    ReferenceTarget::Number(_) => format!(
                        "the pattern has {} capturing group(s), and unicode mode has no octal \
                         escapes: write a character as `\\xHH`",
                        self.capturing_groups
                    ),
                    ReferenceTarget::Name(_) => "no group has that name".to_owned(),
                };
                return Err(self.invalid(
                    reference.at,
                    &format!("back-reference `{}` refers to no group", reference.text),
                    &hint,
                ));
            }
        }
        match self.unsupported {
            Some(error) => Err(error),
            None => Ok(hir),
        }
    }

    // -- reading --------------------------------------------------------------------------

    fn rest(&self) -> &'a str {
        &self.source[self.at..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_second(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, expected: char) -> bool {
        let found = self.peek() == Some(expected);
        if found {
            self.at += expected.len_utf8();
        }
        found
    }

    /// The source from `start` to the cursor, for messages.
    fn text_from(&self, start: usize) -> &'a str {
        &self.source[start..self.at]
    }

    // -- errors ---------------------------------------------------------------------------

    /// 1-based position in characters, which is how a person counts.
    fn position(&self, at: usize) -> usize {
        self.source[..at].chars().count() + 1
    }

    fn invalid(&self, at: usize, what: &str, hint: &str) -> PatternError {
        PatternError::new(
            PatternErrorKind::Invalid,
            format!("{what} at character {}: {hint}", self.position(at)),
        )
    }

    fn note_unsupported(&mut self, at: usize, what: &str, why: &str) {
        if self.unsupported.is_none() {
            self.unsupported = Some(PatternError::new(
                PatternErrorKind::Unsupported,
                format!(
                    "{what} at character {} is not supported: {why}",
                    self.position(at)
                ),
            ));
        }
    }

    // -- structure ------------------------------------------------------------------------

    /// `Disjunction :: Alternative ( | Alternative )*`
    fn disjunction(&mut self) -> Parsed<Hir> {
        self.names.push(DisjunctionNames::default());
        let mut alternatives = vec![self.alternative()?];
        while self.eat('|') {
            if let Some(names) = self.names.last_mut() {
                let finished = std::mem::take(&mut names.current);
                names.earlier.extend(finished);
            }
            alternatives.push(self.alternative()?);
        }
        if let Some(DisjunctionNames { earlier, current }) = self.names.pop() {
            if let Some(enclosing) = self.names.last_mut() {
                enclosing.current.extend(earlier);
                enclosing.current.extend(current);
            }
        }
        Ok(Hir::alternation(alternatives))
    }

    /// `Alternative :: Term*`
    fn alternative(&mut self) -> Parsed<Hir> {
        let mut terms = Vec::new();
        while !matches!(self.peek(), None | Some('|' | ')')) {
            terms.push(self.term()?);
        }
        Ok(Hir::concat(terms))
    }

    /// `Term :: Assertion | Atom Quantifier?`. In unicode mode no assertion takes a
    /// quantifier, so one that follows an assertion finds nothing to repeat.
    fn term(&mut self) -> Parsed<Hir> {
        let start = self.at;
        let rest = self.rest();
        if rest.starts_with('^') || rest.starts_with('$') {
            self.at += 1;
            return Ok(self.anchor(start));
        }
        if rest.starts_with("\\b") {
            self.at += 2;
            return Ok(Hir::look(Look::WordAscii));
        }
        if rest.starts_with("\\B") {
            self.at += 2;
            return Ok(Hir::look(Look::WordAsciiNegate));
        }
        for (opener, what) in [
            ("(?=", "look-ahead"),
            ("(?!", "negative look-ahead"),
            ("(?<=", "look-behind"),
            ("(?<!", "negative look-behind"),
        ] {
            if rest.starts_with(opener) {
                self.at += opener.len();
                // D8: refused as unsupported, yet still read so a syntax error inside it
                // (or anywhere after it) is reported as invalid instead.
                self.note_unsupported(start, &format!("{what} `{opener}`"), LINEAR_TIME);
                self.group_body(start, self.flags)?;
                return Ok(Hir::empty());
            }
        }
        let atom = self.atom()?;
        self.quantified(atom)
    }

    /// `^` and `$` ([V4](crate::rules#v4)): the ends of the text, as without ECMA's `m` flag.
    fn anchor(&mut self, start: usize) -> Hir {
        if self.flags.multiline {
            self.note_unsupported(
                start,
                &format!("`{}` inside an `m` modifier group", self.text_from(start)),
                "the linear-time engine cannot match it at every line terminator; drop the `m` \
                 flag",
            );
            return Hir::empty();
        }
        Hir::look(if self.text_from(start) == "^" {
            Look::Start
        } else {
            Look::End
        })
    }

    fn atom(&mut self) -> Parsed<Hir> {
        let start = self.at;
        let Some(c) = self.bump() else {
            return Ok(Hir::empty());
        };
        match c {
            '.' => Ok(self.dot()),
            '(' => self.group(start),
            '[' => self.class(start),
            '\\' => self.atom_escape(start),
            '*' | '+' | '?' => Err(self.invalid(
                start,
                &format!("`{c}` has nothing to repeat"),
                &format!("write `\\{c}` for the character itself"),
            )),
            '{' => {
                self.at = start;
                let what = if self.braces().is_some() {
                    "quantifier `{` has nothing to repeat"
                } else {
                    "lone `{`"
                };
                Err(self.invalid(start, what, "write `\\{` for the character itself"))
            }
            '}' | ']' => Err(self.invalid(
                start,
                &format!("lone `{c}`"),
                &format!("write `\\{c}` for the character itself"),
            )),
            c => self.literal(u32::from(c)),
        }
    }

    /// `Quantifier :: (* | + | ? | {n} | {n,} | {n,m}) ?`
    fn quantified(&mut self, atom: Hir) -> Parsed<Hir> {
        let start = self.at;
        let (min, max) = match self.peek() {
            Some(c @ ('*' | '+' | '?')) => {
                self.at += 1;
                match c {
                    '*' => (0, None),
                    '+' => (1, None),
                    _ => (0, Some(1)),
                }
            }
            Some('{') => match self.braces() {
                Some(bounds) => bounds,
                None => {
                    return Err(self.invalid(
                        start,
                        "`{` does not start a quantifier `{n}`, `{n,}` or `{n,m}`",
                        "write `\\{` for the character itself",
                    ))
                }
            },
            _ => return Ok(atom),
        };
        // Laziness does not change whether a pattern matches somewhere.
        let greedy = !self.eat('?');
        if max.is_some_and(|max| max < min) {
            return Err(self.invalid(
                start,
                &format!(
                    "quantifier `{}` has its bounds out of order",
                    self.text_from(start)
                ),
                "write the smaller number first",
            ));
        }
        let (Ok(min), Ok(max)) = (u32::try_from(min), max.map(u32::try_from).transpose()) else {
            return Err(PatternError::new(
                PatternErrorKind::TooLarge,
                format!(
                    "quantifier `{}` at character {} repeats more than {} times",
                    self.text_from(start),
                    self.position(start),
                    u32::MAX
                ),
            ));
        };
        Ok(Hir::repetition(Repetition {
            min,
            max,
            greedy,
            sub: Box::new(atom),
        }))
    }

    /// Reads `{n}`, `{n,}` or `{n,m}` at the cursor; leaves the cursor alone when there is
    /// none. Counts saturate, which only matters past `u32::MAX`, refused anyway.
    fn braces(&mut self) -> Option<(u64, Option<u64>)> {
        let start = self.at;
        let bounds = (|| {
            if !self.eat('{') {
                return None;
            }
            let min = self.decimal()?;
            let max = if self.eat(',') {
                if self.peek() == Some('}') {
                    None
                } else {
                    Some(self.decimal()?)
                }
            } else {
                Some(min)
            };
            self.eat('}').then_some((min, max))
        })();
        if bounds.is_none() {
            self.at = start;
        }
        bounds
    }

    /// One or more decimal digits, saturating.
    fn decimal(&mut self) -> Option<u64> {
        let mut value: Option<u64> = None;
        while let Some(digit) = self.peek().and_then(|c| c.to_digit(10)) {
            self.at += 1;
            value = Some(
                value
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(u64::from(digit)),
            );
        }
        value
    }

    // -- groups ---------------------------------------------------------------------------

    /// `( … )`, `(?: … )`, `(?<name> … )`, `(?ims-ims: … )`; the `(` is read.
    fn group(&mut self, open: usize) -> Parsed<Hir> {
        let mut flags = self.flags;
        if !self.eat('?') {
            self.capturing_groups += 1;
        } else if self.eat('<') {
            let name = self.group_name(open)?;
            self.declare(open, name)?;
            self.capturing_groups += 1;
        } else {
            flags = self.modifiers(open)?;
        }
        self.group_body(open, flags)
    }

    /// The disjunction of a group whose opening is read, and its `)`.
    fn group_body(&mut self, open: usize, flags: Flags) -> Parsed<Hir> {
        if self.depth >= MAX_NESTING {
            return Err(PatternError::new(
                PatternErrorKind::TooLarge,
                format!(
                    "group at character {} nests deeper than {MAX_NESTING} levels",
                    self.position(open)
                ),
            ));
        }
        self.depth += 1;
        let outer = std::mem::replace(&mut self.flags, flags);
        let body = self.disjunction();
        self.flags = outer;
        self.depth -= 1;
        let body = body?;
        if !self.eat(')') {
            return Err(self.invalid(open, "group `(` is never closed", "add the missing `)`"));
        }
        Ok(body)
    }

    /// `(?` then ES2025 modifiers `ims`, optionally `-ims`, then `:`; plain `(?:` is the
    /// empty case.
    fn modifiers(&mut self, open: usize) -> Parsed<Flags> {
        let mut flags = self.flags;
        let mut seen = String::new();
        let mut removing = false;
        loop {
            match self.bump() {
                Some(':') => break,
                Some('-') if !removing => removing = true,
                Some(flag @ ('i' | 'm' | 's')) => {
                    if seen.contains(flag) {
                        return Err(self.invalid(
                            open,
                            &format!(
                                "modifier group `{}` names `{flag}` twice",
                                self.text_from(open)
                            ),
                            "name each flag once",
                        ));
                    }
                    seen.push(flag);
                    let value = !removing;
                    match flag {
                        'i' => flags.ignore_case = value,
                        'm' => flags.multiline = value,
                        _ => flags.dot_all = value,
                    }
                }
                Some(')') if !seen.is_empty() && !removing => {
                    return Err(self.invalid(
                        open,
                        &format!("inline flags `{}` are not ECMA-262", self.text_from(open)),
                        &format!("wrap what they apply to in `(?{seen}:…)`"),
                    ))
                }
                _ => {
                    return Err(self.invalid(
                        open,
                        &format!("unknown group syntax `{}`", self.text_from(open)),
                        "ECMA-262 groups open with `(`, `(?:`, `(?<name>` or a modifier such \
                         as `(?i:`",
                    ))
                }
            }
        }
        if removing && seen.is_empty() {
            return Err(self.invalid(open, "modifier group `(?-:` names no flag", "name a flag"));
        }
        Ok(flags)
    }

    /// `GroupName :: < RegExpIdentifierName >`, the `<` read: an identifier whose
    /// characters may be written as `\u` escapes.
    fn group_name(&mut self, open: usize) -> Parsed<String> {
        let mut name = String::new();
        loop {
            let char_start = self.at;
            let c = match self.bump() {
                Some('>') => break,
                Some('\\') if self.eat('u') => self.unicode_escape(char_start)?,
                Some(c) => u32::from(c),
                None => {
                    return Err(self.invalid(open, "group name is never closed", "end it with `>`"))
                }
            };
            let identifier = identifier_chars();
            let fits = char::from_u32(c).filter(|&c| {
                if name.is_empty() {
                    c == '$' || c == '_' || contains(&identifier.start, c)
                } else {
                    matches!(c, '$' | '\u{200C}' | '\u{200D}') || contains(&identifier.part, c)
                }
            });
            match fits {
                Some(c) => name.push(c),
                None => {
                    return Err(self.invalid(
                        char_start,
                        &format!(
                            "`{}` cannot appear in a group name",
                            self.text_from(char_start)
                        ),
                        "names are identifiers, such as `year` or `_1`",
                    ))
                }
            }
        }
        if name.is_empty() {
            return Err(self.invalid(open, "empty group name", "name the group, as in `(?<year>`"));
        }
        Ok(name)
    }

    fn declare(&mut self, open: usize, name: String) -> Parsed<()> {
        if self.names.iter().any(|names| names.current.contains(&name)) {
            return Err(self.invalid(
                open,
                &format!("group name `{name}` is used twice"),
                "two groups may share a name only in separate alternatives of a `|`",
            ));
        }
        if let Some(names) = self.names.last_mut() {
            names.current.insert(name.clone());
        }
        self.declared_names.insert(name);
        Ok(())
    }

    // -- escapes --------------------------------------------------------------------------

    /// `\` outside a class, the `\` read (`\b` and `\B` are assertions, read by `term`).
    fn atom_escape(&mut self, start: usize) -> Parsed<Hir> {
        let Some(c) = self.bump() else {
            return Err(self.invalid(
                start,
                "pattern ends with a lone `\\`",
                "write `\\\\` for a backslash",
            ));
        };
        match c {
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => self.class_hir(self.perl_class(c)?),
            'p' | 'P' => {
                let set = self.property(start, c == 'P')?;
                self.class_hir(set)
            }
            '1'..='9' => {
                self.at = start + 1;
                let number = self.decimal().unwrap_or(0);
                self.reference(start, ReferenceTarget::Number(number));
                Ok(Hir::empty())
            }
            'k' => {
                if !self.eat('<') {
                    return Err(self.invalid(start, "`\\k` names no group", "write `\\k<name>`"));
                }
                let name = self.group_name(start)?;
                self.reference(start, ReferenceTarget::Name(name));
                Ok(Hir::empty())
            }
            c => {
                let code_point = self.character_escape(start, c)?;
                self.literal(code_point)
            }
        }
    }

    fn reference(&mut self, start: usize, target: ReferenceTarget) {
        let text = self.text_from(start).to_owned();
        self.note_unsupported(start, &format!("back-reference `{text}`"), LINEAR_TIME);
        self.references.push(Reference {
            at: start,
            text,
            target,
        });
    }

    /// `CharacterEscape`, the `\` and `c` read: the code point it stands for.
    fn character_escape(&mut self, start: usize, c: char) -> Parsed<u32> {
        Ok(match c {
            'f' => 0x0C,
            'n' => 0x0A,
            'r' => 0x0D,
            't' => 0x09,
            'v' => 0x0B,
            '0' if self.peek().is_some_and(|c| c.is_ascii_digit()) => {
                return Err(self.invalid(
                    start,
                    "octal escape",
                    "unicode mode has none: write the character as `\\xHH` or `\\u{…}`",
                ))
            }
            '0' => 0,
            'c' => match self.peek() {
                Some(letter) if letter.is_ascii_alphabetic() => {
                    self.at += 1;
                    u32::from(letter) % 32
                }
                _ => {
                    return Err(self.invalid(
                        start,
                        "`\\c` is not followed by a letter",
                        "write a control character as `\\cA` … `\\cZ`",
                    ))
                }
            },
            'x' => match self.hex_digits(2) {
                Some(value) => value,
                None => {
                    return Err(self.invalid(
                        start,
                        "`\\x` is not followed by two hex digits",
                        "write `\\xHH`",
                    ))
                }
            },
            'u' => self.unicode_escape(start)?,
            // Identity escapes: the syntax characters and `/` in unicode mode, widened to
            // every other non-alphanumeric character as patterns without `u` allow.
            c if !c.is_alphanumeric() => u32::from(c),
            c => {
                return Err(self.invalid(
                    start,
                    &format!("unknown escape `\\{c}`"),
                    "only punctuation may follow `\\` to stand for itself",
                ))
            }
        })
    }

    /// `RegExpUnicodeEscapeSequence`, the `\u` read: `\u{H…}`, `\uHHHH`, or a surrogate
    /// pair `\uHHHH\uHHHH` that unicode mode reads as one code point. A lone surrogate is
    /// returned as is (it matches nothing).
    fn unicode_escape(&mut self, start: usize) -> Parsed<u32> {
        if self.eat('{') {
            let mut value: u32 = 0;
            let mut count = 0;
            while let Some(digit) = self.peek().and_then(|c| c.to_digit(16)) {
                self.at += 1;
                value = value.saturating_mul(16).saturating_add(digit);
                count += 1;
            }
            if count == 0 || !self.eat('}') || value > 0x10_FFFF {
                return Err(self.invalid(
                    start,
                    "malformed `\\u{…}` escape",
                    "write hex digits of a code point up to 10FFFF, as in `\\u{1F600}`",
                ));
            }
            return Ok(value);
        }
        let Some(lead) = self.hex_digits(4) else {
            return Err(self.invalid(
                start,
                "`\\u` is not followed by four hex digits",
                "write `\\uHHHH` or `\\u{…}`",
            ));
        };
        if (0xD800..=0xDBFF).contains(&lead) && self.rest().starts_with("\\u") {
            let before_trail = self.at;
            self.at += 2;
            match self.hex_digits(4) {
                Some(trail) if (0xDC00..=0xDFFF).contains(&trail) => {
                    return Ok(0x1_0000 + ((lead - 0xD800) << 10) + (trail - 0xDC00));
                }
                _ => self.at = before_trail,
            }
        }
        Ok(lead)
    }

    /// Exactly `count` hex digits, or `None` with the cursor left alone.
    fn hex_digits(&mut self, count: usize) -> Option<u32> {
        let digits = self.rest().get(..count)?;
        let value = digits
            .chars()
            .try_fold(0u32, |value, c| Some(value * 16 + c.to_digit(16)?))?;
        self.at += count;
        Some(value)
    }

    // -- characters and classes -----------------------------------------------------------

    /// One code point, case-folded under `i`. A lone surrogate cannot occur in UTF-8 text.
    fn literal(&self, code_point: u32) -> Parsed<Hir> {
        let Some(c) = char::from_u32(code_point) else {
            return Ok(Hir::fail());
        };
        if self.flags.ignore_case {
            return self.class_hir(ClassUnicode::new([ClassUnicodeRange::new(c, c)]));
        }
        Ok(Hir::literal(c.encode_utf8(&mut [0; 4]).as_bytes()))
    }

    /// `.`: any code point but a line terminator, or any at all under `s`.
    fn dot(&self) -> Hir {
        let mut set = ClassUnicode::new([ClassUnicodeRange::new('\0', char::MAX)]);
        if !self.flags.dot_all {
            set = ClassUnicode::new(LINE_TERMINATORS.map(|(a, b)| ClassUnicodeRange::new(a, b)));
            set.negate();
        }
        Hir::class(Class::Unicode(set))
    }

    /// A set used as a whole atom, folded under `i`.
    fn class_hir(&self, mut set: ClassUnicode) -> Parsed<Hir> {
        self.fold(&mut set)?;
        Ok(Hir::class(Class::Unicode(set)))
    }

    /// ECMA's `Canonicalize` under `i` with unicode mode is simple case folding: the set
    /// grows to every code point that folds like one of its members.
    fn fold(&self, set: &mut ClassUnicode) -> Parsed<()> {
        if self.flags.ignore_case {
            set.try_case_fold_simple().map_err(|_| {
                PatternError::new(
                    PatternErrorKind::Unsupported,
                    "case-insensitive matching is not available in this build".to_owned(),
                )
            })?;
        }
        Ok(())
    }

    /// `CharacterClass :: [ ^? ClassContents ]`, the `[` read. `[]` matches nothing and
    /// `[^]` any code point.
    fn class(&mut self, open: usize) -> Parsed<Hir> {
        let negated = self.eat('^');
        // Collected first and made a set once: adding ranges one by one is quadratic.
        let mut ranges = Vec::new();
        loop {
            let atom_start = self.at;
            match self.peek() {
                None => {
                    return Err(self.invalid(
                        open,
                        "class `[` is never closed",
                        "add the missing `]`",
                    ))
                }
                Some(']') => {
                    self.at += 1;
                    break;
                }
                Some(_) => {}
            }
            let first = self.class_atom(open)?;
            // A `-` right before `]` is a literal; otherwise it makes a range.
            if self.peek() == Some('-') && !matches!(self.peek_second(), Some(']') | None) {
                self.at += 1;
                let second = self.class_atom(open)?;
                let (ClassAtom::Char(low), ClassAtom::Char(high)) = (first, second) else {
                    return Err(self.invalid(
                        atom_start,
                        &format!(
                            "class range `{}` has a class escape as a bound",
                            self.text_from(atom_start)
                        ),
                        "write `\\-` for a literal hyphen",
                    ));
                };
                if low > high {
                    return Err(self.invalid(
                        atom_start,
                        &format!(
                            "class range `{}` is out of order",
                            self.text_from(atom_start)
                        ),
                        "write the lower bound first",
                    ));
                }
                push_code_points(&mut ranges, low, high);
            } else {
                match first {
                    ClassAtom::Char(c) => push_code_points(&mut ranges, c, c),
                    ClassAtom::Set(set) => ranges.extend_from_slice(set.ranges()),
                }
            }
        }
        let mut set = ClassUnicode::new(ranges);
        // Fold, then negate: `[^…]` under `i` excludes every case variant of its members.
        self.fold(&mut set)?;
        if negated {
            set.negate();
        }
        Ok(Hir::class(Class::Unicode(set)))
    }

    fn class_atom(&mut self, open: usize) -> Parsed<ClassAtom> {
        let start = self.at;
        match self.bump() {
            Some('\\') => self.class_escape(start),
            Some(c) => Ok(ClassAtom::Char(u32::from(c))),
            None => Err(self.invalid(open, "class `[` is never closed", "add the missing `]`")),
        }
    }

    /// `ClassEscape`, the `\` read.
    fn class_escape(&mut self, start: usize) -> Parsed<ClassAtom> {
        let Some(c) = self.bump() else {
            return Err(self.invalid(
                start,
                "pattern ends with a lone `\\`",
                "write `\\\\` for a backslash",
            ));
        };
        Ok(match c {
            'b' => ClassAtom::Char(0x08),
            '-' => ClassAtom::Char(u32::from('-')),
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => ClassAtom::Set(self.perl_class(c)?),
            'p' | 'P' => ClassAtom::Set(self.property(start, c == 'P')?),
            '1'..='9' => {
                return Err(self.invalid(
                    start,
                    &format!("`\\{c}` inside a class"),
                    "unicode mode has no octal escapes: write the character as `\\xHH`",
                ))
            }
            c => ClassAtom::Char(self.character_escape(start, c)?),
        })
    }

    /// `\d \D \s \S \w \W` with ECMA's sets, before any folding.
    fn perl_class(&self, kind: char) -> Parsed<ClassUnicode> {
        let ranges: &[(char, char)] = match kind.to_ascii_lowercase() {
            'd' => &[('0', '9')],
            's' => &WHITE_SPACE,
            _ => &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')],
        };
        let mut set = ClassUnicode::new(ranges.iter().map(|&(a, b)| ClassUnicodeRange::new(a, b)));
        // Under `i` the word characters are those that fold to one (U+017F, U+212A join),
        // so `\W` must complement the folded set.
        if kind.eq_ignore_ascii_case(&'w') {
            self.fold(&mut set)?;
        }
        if kind.is_ascii_uppercase() {
            set.negate();
        }
        Ok(set)
    }

    /// `\p{…}` / `\P{…}`, the `\` and `p` read: ECMA's names, spelled exactly.
    fn property(&mut self, start: usize, negated: bool) -> Parsed<ClassUnicode> {
        if !self.eat('{') {
            return Err(self.invalid(
                start,
                "`\\p` is not followed by a property in braces",
                "write it as in `\\p{Letter}` (or `\\\\p` for the text `\\p`)",
            ));
        }
        let body_start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '=')
        {
            self.at += 1;
        }
        let body = self.text_from(body_start);
        if !self.eat('}') {
            return Err(self.invalid(
                start,
                "`\\p{` is not closed by `}`",
                "a property name holds letters, digits, `_` and `=`",
            ));
        }
        let lookup = match body.split_once('=') {
            Some(("General_Category" | "gc", value)) => general_category(value),
            Some(("Script" | "sc", value)) => script(value, "sc"),
            Some(("Script_Extensions" | "scx", value)) => script(value, "scx"),
            Some(_) => None,
            None => general_category(body).or_else(|| binary_property(body)),
        };
        let mut set = match lookup {
            Some(Property::Query(expression)) => unicode_class(&expression).unwrap_or_else(|| {
                // Valid ECMA-262 that `regex-syntax` keeps no table for (today only
                // `Changes_When_NFKC_Casefolded`).
                self.note_unsupported(
                    start,
                    &format!("Unicode property `{}`", self.text_from(start)),
                    "the matching engine has no table for it; use another property",
                );
                ClassUnicode::empty()
            }),
            // Surrogates and `Katakana_Or_Hiragana` have no code points a string holds.
            Some(Property::Empty) => ClassUnicode::empty(),
            None => {
                return Err(self.invalid(
                    start,
                    &format!("unknown Unicode property `{}`", self.text_from(start)),
                    "use an ECMA-262 name, such as `\\p{Letter}`, `\\p{Lu}` or \
                     `\\p{Script=Greek}`",
                ))
            }
        };
        // Complemented before any folding, as ECMA's `\P` is.
        if negated {
            set.negate();
        }
        Ok(set)
    }
}

/// ECMA-262 `LineTerminator`: what `.` does not match without `s`.
const LINE_TERMINATORS: [(char, char); 3] = [('\n', '\n'), ('\r', '\r'), ('\u{2028}', '\u{2029}')];

/// ECMA-262 `\s`: `WhiteSpace` (TAB, VT, FF, ZWNBSP and every `Zs`, as of Unicode 16)
/// and `LineTerminator`.
const WHITE_SPACE: [(char, char); 10] = [
    ('\t', '\r'),
    (' ', ' '),
    ('\u{00A0}', '\u{00A0}'),
    ('\u{1680}', '\u{1680}'),
    ('\u{2000}', '\u{200A}'),
    ('\u{2028}', '\u{2029}'),
    ('\u{202F}', '\u{202F}'),
    ('\u{205F}', '\u{205F}'),
    ('\u{3000}', '\u{3000}'),
    ('\u{FEFF}', '\u{FEFF}'),
];

/// Adds the code points `low..=high`, leaving out surrogates, which UTF-8 text never holds.
fn push_code_points(ranges: &mut Vec<ClassUnicodeRange>, low: u32, high: u32) {
    for (low, high) in [(low, high.min(0xD7FF)), (low.max(0xE000), high)] {
        if let (true, Some(low), Some(high)) =
            (low <= high, char::from_u32(low), char::from_u32(high))
        {
            ranges.push(ClassUnicodeRange::new(low, high));
        }
    }
}

fn contains(set: &ClassUnicode, c: char) -> bool {
    set.ranges()
        .binary_search_by(|range| {
            if range.end() < c {
                std::cmp::Ordering::Less
            } else if range.start() > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The code points of a `\p{…}` expression from `regex-syntax`'s Unicode tables, or `None`
/// if it has no table for it.
fn unicode_class(expression: &str) -> Option<ClassUnicode> {
    match regex_syntax::parse(expression).ok()?.into_kind() {
        HirKind::Class(Class::Unicode(set)) => Some(set),
        // A set of one code point (`Zl`, `Zp`) comes back as that character.
        HirKind::Literal(literal) => {
            let text = std::str::from_utf8(&literal.0).ok()?;
            Some(ClassUnicode::new(
                text.chars().map(|c| ClassUnicodeRange::new(c, c)),
            ))
        }
        _ => None,
    }
}

/// `ID_Start` and `ID_Continue`, which group names are made of.
struct IdentifierChars {
    start: ClassUnicode,
    part: ClassUnicode,
}

fn identifier_chars() -> &'static IdentifierChars {
    static CHARS: OnceLock<IdentifierChars> = OnceLock::new();
    CHARS.get_or_init(|| IdentifierChars {
        start: unicode_class(r"\p{ID_Start}").unwrap_or_else(ClassUnicode::empty),
        part: unicode_class(r"\p{ID_Continue}").unwrap_or_else(ClassUnicode::empty),
    })
}

/// What a `\p{…}` name resolves to.
enum Property {
    /// A class expression `regex-syntax` resolves, in its own spelling.
    Query(String),
    /// A valid property with no code points in UTF-8 text.
    Empty,
}

/// ECMA-262 table "Value aliases and canonical values for `General_Category`"; each row's
/// first spelling is what `regex-syntax` is asked for.
const GENERAL_CATEGORIES: &[&[&str]] = &[
    &["C", "Other"],
    &["Cc", "Control", "cntrl"],
    &["Cf", "Format"],
    &["Cn", "Unassigned"],
    &["Co", "Private_Use"],
    &["Cs", "Surrogate"],
    &["L", "Letter"],
    &["LC", "Cased_Letter"],
    &["Ll", "Lowercase_Letter"],
    &["Lm", "Modifier_Letter"],
    &["Lo", "Other_Letter"],
    &["Lt", "Titlecase_Letter"],
    &["Lu", "Uppercase_Letter"],
    &["M", "Mark", "Combining_Mark"],
    &["Mc", "Spacing_Mark"],
    &["Me", "Enclosing_Mark"],
    &["Mn", "Nonspacing_Mark"],
    &["N", "Number"],
    &["Nd", "Decimal_Number", "digit"],
    &["Nl", "Letter_Number"],
    &["No", "Other_Number"],
    &["P", "Punctuation", "punct"],
    &["Pc", "Connector_Punctuation"],
    &["Pd", "Dash_Punctuation"],
    &["Pe", "Close_Punctuation"],
    &["Pf", "Final_Punctuation"],
    &["Pi", "Initial_Punctuation"],
    &["Po", "Other_Punctuation"],
    &["Ps", "Open_Punctuation"],
    &["S", "Symbol"],
    &["Sc", "Currency_Symbol"],
    &["Sk", "Modifier_Symbol"],
    &["Sm", "Math_Symbol"],
    &["So", "Other_Symbol"],
    &["Z", "Separator"],
    &["Zl", "Line_Separator"],
    &["Zp", "Paragraph_Separator"],
    &["Zs", "Space_Separator"],
];

/// ECMA-262 table "Binary Unicode property aliases"; each row's first spelling is the
/// canonical name.
const BINARY_PROPERTIES: &[&[&str]] = &[
    &["ASCII"],
    &["ASCII_Hex_Digit", "AHex"],
    &["Alphabetic", "Alpha"],
    &["Any"],
    &["Assigned"],
    &["Bidi_Control", "Bidi_C"],
    &["Bidi_Mirrored", "Bidi_M"],
    &["Case_Ignorable", "CI"],
    &["Cased"],
    &["Changes_When_Casefolded", "CWCF"],
    &["Changes_When_Casemapped", "CWCM"],
    &["Changes_When_Lowercased", "CWL"],
    &["Changes_When_NFKC_Casefolded", "CWKCF"],
    &["Changes_When_Titlecased", "CWT"],
    &["Changes_When_Uppercased", "CWU"],
    &["Dash"],
    &["Default_Ignorable_Code_Point", "DI"],
    &["Deprecated", "Dep"],
    &["Diacritic", "Dia"],
    &["Emoji"],
    &["Emoji_Component", "EComp"],
    &["Emoji_Modifier", "EMod"],
    &["Emoji_Modifier_Base", "EBase"],
    &["Emoji_Presentation", "EPres"],
    &["Extended_Pictographic", "ExtPict"],
    &["Extender", "Ext"],
    &["Grapheme_Base", "Gr_Base"],
    &["Grapheme_Extend", "Gr_Ext"],
    &["Hex_Digit", "Hex"],
    &["IDS_Binary_Operator", "IDSB"],
    &["IDS_Trinary_Operator", "IDST"],
    &["ID_Continue", "IDC"],
    &["ID_Start", "IDS"],
    &["Ideographic", "Ideo"],
    &["Join_Control", "Join_C"],
    &["Logical_Order_Exception", "LOE"],
    &["Lowercase", "Lower"],
    &["Math"],
    &["Noncharacter_Code_Point", "NChar"],
    &["Pattern_Syntax", "Pat_Syn"],
    &["Pattern_White_Space", "Pat_WS"],
    &["Quotation_Mark", "QMark"],
    &["Radical"],
    &["Regional_Indicator", "RI"],
    &["Sentence_Terminal", "STerm"],
    &["Soft_Dotted", "SD"],
    &["Terminal_Punctuation", "Term"],
    &["Unified_Ideograph", "UIdeo"],
    &["Uppercase", "Upper"],
    &["Variation_Selector", "VS"],
    &["White_Space", "space"],
    &["XID_Continue", "XIDC"],
    &["XID_Start", "XIDS"],
];

/// Script names and ISO 15924 codes ECMA-262 accepts for `Script` and `Script_Extensions`:
/// Unicode 16.0 `PropertyValueAliases.txt`, the version `regex-syntax` 0.8 ships.
const SCRIPTS: &str = "\
    Adlam Adlm Aghb Ahom Anatolian_Hieroglyphs Arab Arabic Armenian Armi Armn Avestan Avst \
    Bali Balinese Bamu Bamum Bass Bassa_Vah Batak Batk Beng Bengali Bhaiksuki Bhks Bopo \
    Bopomofo Brah Brahmi Brai Braille Bugi Buginese Buhd Buhid Cakm Canadian_Aboriginal \
    Cans Cari Carian Caucasian_Albanian Chakma Cham Cher Cherokee Chorasmian Chrs Common \
    Copt Coptic Cpmn Cprt Cuneiform Cypriot Cypro_Minoan Cyrillic Cyrl Deseret Deva \
    Devanagari Diak Dives_Akuru Dogr Dogra Dsrt Dupl Duployan Egyp Egyptian_Hieroglyphs \
    Elba Elbasan Elym Elymaic Ethi Ethiopic Gara Garay Geor Georgian Glag Glagolitic Gong \
    Gonm Goth Gothic Gran Grantha Greek Grek Gujarati Gujr Gukh Gunjala_Gondi Gurmukhi Guru \
    Gurung_Khema Han Hang Hangul Hani Hanifi_Rohingya Hano Hanunoo Hatr Hatran Hebr Hebrew \
    Hira Hiragana Hluw Hmng Hmnp Hrkt Hung Imperial_Aramaic Inherited Inscriptional_Pahlavi \
    Inscriptional_Parthian Ital Java Javanese Kaithi Kali Kana Kannada Katakana \
    Katakana_Or_Hiragana Kawi Kayah_Li Khar Kharoshthi Khitan_Small_Script Khmer Khmr Khoj \
    Khojki Khudawadi Kirat_Rai Kits Knda Krai Kthi Lana Lao Laoo Latin Latn Lepc Lepcha \
    Limb Limbu Lina Linb Linear_A Linear_B Lisu Lyci Lycian Lydi Lydian Mahajani Mahj Maka \
    Makasar Malayalam Mand Mandaic Mani Manichaean Marc Marchen Masaram_Gondi Medefaidrin \
    Medf Meetei_Mayek Mend Mende_Kikakui Merc Mero Meroitic_Cursive Meroitic_Hieroglyphs \
    Miao Mlym Modi Mong Mongolian Mro Mroo Mtei Mult Multani Myanmar Mymr Nabataean \
    Nag_Mundari Nagm Nand Nandinagari Narb Nbat New_Tai_Lue Newa Nko Nkoo Nshu Nushu \
    Nyiakeng_Puachue_Hmong Ogam Ogham Ol_Chiki Ol_Onal Olck Old_Hungarian Old_Italic \
    Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic \
    Old_Uyghur Onao Oriya Orkh Orya Osage Osge Osma Osmanya Ougr Pahawh_Hmong Palm \
    Palmyrene Pau_Cin_Hau Pauc Perm Phag Phags_Pa Phli Phlp Phnx Phoenician Plrd Prti \
    Psalter_Pahlavi Qaac Qaai Rejang Rjng Rohg Runic Runr Samaritan Samr Sarb Saur \
    Saurashtra Sgnw Sharada Shavian Shaw Shrd Sidd Siddham SignWriting Sind Sinh Sinhala \
    Sogd Sogdian Sogo Sora Sora_Sompeng Soyo Soyombo Sund Sundanese Sunu Sunuwar Sylo \
    Syloti_Nagri Syrc Syriac Tagalog Tagb Tagbanwa Tai_Le Tai_Tham Tai_Viet Takr Takri Tale \
    Talu Tamil Taml Tang Tangsa Tangut Tavt Telu Telugu Tfng Tglg Thaa Thaana Thai Tibetan \
    Tibt Tifinagh Tirh Tirhuta Tnsa Todhri Todr Toto Tulu_Tigalari Tutg Ugar Ugaritic \
    Unknown Vai Vaii Vith Vithkuqi Wancho Wara Warang_Citi Wcho Xpeo Xsux Yezi Yezidi Yi \
    Yiii Zanabazar_Square Zanb Zinh Zyyy Zzzz";

fn general_category(value: &str) -> Option<Property> {
    let row = GENERAL_CATEGORIES.iter().find(|row| row.contains(&value))?;
    Some(match row[0] {
        "Cs" => Property::Empty,
        short => Property::Query(format!("\\p{{gc={short}}}")),
    })
}

fn binary_property(name: &str) -> Option<Property> {
    let row = BINARY_PROPERTIES.iter().find(|row| row.contains(&name))?;
    Some(Property::Query(format!("\\p{{{}}}", row[0])))
}

fn script(value: &str, property: &str) -> Option<Property> {
    if !SCRIPTS.split_whitespace().any(|name| name == value) {
        return None;
    }
    Some(match value {
        // Listed by Unicode, but no code point has it as its script.
        "Katakana_Or_Hiragana" | "Hrkt" => Property::Empty,
        // Every code point no script claims: unassigned and private-use ones (surrogates
        // too, which text never holds). `regex-syntax` keeps no table for it.
        "Unknown" | "Zzzz" => Property::Query(r"[\p{gc=Cn}\p{gc=Co}]".to_owned()),
        value => Property::Query(format!("\\p{{{property}={value}}}")),
    })
}

#[cfg(test)]
mod tests {
    use super::{
        compile_pattern, PatternError, BINARY_PROPERTIES, DEFAULT_PATTERN_MAX_LEN,
        DEFAULT_PATTERN_SIZE_LIMIT, GENERAL_CATEGORIES, SCRIPTS,
    };

    fn compile(source: &str) -> Result<regex::Regex, PatternError> {
        compile_pattern(source, DEFAULT_PATTERN_SIZE_LIMIT)
    }

    /// Asserts which of `texts` the pattern matches: `+text` must match, `-text` must not.
    #[track_caller]
    fn assert_matches(source: &str, texts: &[&str]) {
        let regex = compile(source).unwrap_or_else(|error| panic!("{source:?}: {error}"));
        for text in texts {
            let (expected, text) = match text.strip_prefix('+') {
                Some(text) => (true, text),
                None => (
                    false,
                    text.strip_prefix('-').expect("texts start with + or -"),
                ),
            };
            assert_eq!(regex.is_match(text), expected, "{source:?} on {text:?}");
        }
    }

    #[track_caller]
    fn assert_invalid(source: &str, reason_part: &str) {
        match compile(source) {
            Ok(_) => panic!("{source:?} compiled"),
            Err(error) => {
                assert!(!error.is_unsupported(), "{source:?}: {error}");
                assert!(error.reason().contains(reason_part), "{source:?}: {error}");
            }
        }
    }

    #[track_caller]
    fn assert_unsupported(source: &str, reason_part: &str) {
        match compile(source) {
            Ok(_) => panic!("{source:?} compiled"),
            Err(error) => {
                assert!(error.is_unsupported(), "{source:?}: {error}");
                assert!(error.reason().contains(reason_part), "{source:?}: {error}");
            }
        }
    }

    #[test]
    fn matching_is_a_search_not_anchored() {
        // covers: V4
        assert_matches("a+", &["+xxaayy", "-xyz"]);
        assert_matches("^a*$", &["+aaa", "+", "-abc"]);
        assert_matches("", &["+", "+anything"]);
    }

    #[test]
    fn anchors_match_only_at_the_ends_of_the_text() {
        // covers: V4
        assert_matches("^abc$", &["+abc", "-abc\n", "-\nabc", "-xabc"]);
        assert_matches("a|b$", &["+a\n", "-b\n", "+xb"]);
    }

    #[test]
    fn dot_excludes_ecma_line_terminators() {
        // covers: V4
        assert_matches(
            "^.$",
            &[
                "+x",
                "+\u{1F432}",
                "+\u{85}",
                "-\n",
                "-\r",
                "-\u{2028}",
                "-\u{2029}",
            ],
        );
        assert_matches("^(?s:.)$", &["+\n", "+\r", "+\u{2028}", "+x"]);
        assert_matches("(?s:(?-s:.))", &["-\n", "+x"]);
    }

    #[test]
    fn class_escapes_have_ecma_meanings() {
        // covers: V4
        assert_matches(r"^\d$", &["+0", "+9", "-\u{0660}", "-\u{07C0}", "-a"]);
        assert_matches(r"^\D$", &["-0", "+\u{0660}", "+a"]);
        assert_matches(r"^\w$", &["+a", "+Z", "+_", "+5", "-é", "-\u{017F}", "--"]);
        assert_matches(r"^\W$", &["-a", "+é", "+-"]);
        let spaces = [
            "+ ",
            "+\t",
            "+\u{0B}",
            "+\u{0C}",
            "+\u{A0}",
            "+\u{FEFF}",
            "+\n",
            "+\r",
        ];
        assert_matches(r"^\s$", &spaces);
        assert_matches(
            r"^\s$",
            &[
                "+\u{2028}",
                "+\u{2029}",
                "+\u{2003}",
                "+\u{3000}",
                "+\u{1680}",
            ],
        );
        assert_matches(
            r"^\s$",
            &["-\u{85}", "-\u{180E}", "-\u{200B}", "-\u{1}", "-\u{2013}"],
        );
        assert_matches(r"^\S$", &["- ", "-\u{FEFF}", "+\u{85}", "+\u{2013}"]);
        assert_matches(r"^[\d\s]+$", &["+1 2", "-1a"]);
        assert_matches(r"^[^\d]$", &["-1", "+a"]);
        assert_matches(r"^[\D]$", &["-1", "+a"]);
    }

    #[test]
    fn word_boundaries_are_ascii() {
        // covers: V4
        assert_matches(r"\bfoo\b", &["+a foo b", "+éfooé", "-_foo_", "-foobar"]);
        assert_matches(r"\Bfoo", &["+xfoo", "-éfoo", "-foo"]);
    }

    #[test]
    fn character_escapes() {
        // covers: V4
        assert_matches(r"^\t\n\r\v\f$", &["+\t\n\r\u{0B}\u{0C}"]);
        assert_matches(r"^\cC\cc$", &["+\u{3}\u{3}", "-cCcc"]);
        assert_matches(r"^[\cJ]$", &["+\n"]);
        assert_matches(r"^\0$", &["+\0", "-0"]);
        assert_matches(r"^\x41\u0042\u{43}\u{000044}$", &["+ABCD"]);
        assert_matches(r"^\u{1F432}$", &["+\u{1F432}"]);
        assert_matches(r"^\uD83D\uDC32$", &["+\u{1F432}"]);
        assert_matches(r"^[\b]$", &["+\u{8}", "-b"]);
        assert_matches(r"^\/\-\@\#\_\ \.\*\\$", &["+/-@#_ .*\\"]);
        assert_matches(r"^\{\}\[\]\(\)\|\?\+\^\$$", &["+{}[]()|?+^$"]);
        assert_matches("^/$", &["+/"]);
    }

    #[test]
    fn lone_surrogates_match_nothing() {
        // covers: V4
        assert_matches(r"\uD83D", &["-\u{1F432}", "-"]);
        assert_matches(
            r"^[\uD800-\uDFFF]$",
            &["-\u{D7FF}", "-\u{E000}", "-\u{1F432}"],
        );
        assert_matches(r"^[^\uD800]$", &["+a", "+\u{1F432}"]);
        assert_matches(
            r"^[\u0000-\uFFFF]$",
            &["+\u{D7FF}", "+\u{E000}", "+\u{FFFF}", "-\u{1F432}"],
        );
        assert_matches(r"^\uD83Dx$", &["-\u{1F432}x"]);
    }

    #[test]
    fn classes() {
        // covers: V4
        assert_matches("^[]$", &["-a", "-"]);
        assert_matches("^[^]$", &["+a", "+\n", "+\u{1F432}", "-"]);
        assert_matches("^[a-c-e]+$", &["+a-e", "+b", "-d"]);
        assert_matches("^[--a]$", &["+-", "+A", "+a", "-b"]);
        assert_matches(r"^[\d-]$", &["+-", "+1", "-a"]);
        assert_matches("^[[]$", &["+["]);
        assert_matches(r"^[\]]$", &["+]"]);
        assert_matches("^[&&~~]+$", &["+&~", "-a"]);
        assert_matches("^[{}]+$", &["+{}"]);
        assert_matches("^[\u{1F432}]$", &["+\u{1F432}", "-\u{1F409}"]);
    }

    #[test]
    fn quantifiers() {
        // covers: V4
        assert_matches("^a{2}$", &["+aa", "-a", "-aaa"]);
        assert_matches("^a{2,}$", &["+aa", "+aaaa", "-a"]);
        assert_matches("^a{1,2}?$", &["+a", "+aa", "-aaa"]);
        assert_matches("^a{0}$", &["+", "-a"]);
        assert_matches("^(?:ab)*?$", &["+abab", "-aba"]);
        assert_matches(
            "^\u{1F432}*$",
            &["+", "+\u{1F432}\u{1F432}", "-\u{1F409}", "-D"],
        );
    }

    #[test]
    fn groups_and_names() {
        // covers: V4
        assert_matches(
            r"^(?<year>\d{4})-(?<month>\d{2})$",
            &["+2024-01", "-2024-1"],
        );
        assert_matches("^(?<a>x)|(?<a>y)$", &["+x", "+y"]);
        assert_matches("^(?:(?<a>x)|(?<a>y))$", &["+y"]);
        assert_matches(r"^(?<$>a)(?<_b>b)(?<\u0063>c)(?<é>d)$", &["+abcd"]);
        assert_matches("^(a|b)()(?:)$", &["+a"]);
        assert_invalid("(?<a>x)(?<a>y)", "used twice");
        assert_invalid("(?<a>(?<a>x))", "used twice");
        assert_invalid("(?:(?<a>x)|y)(?<a>z)", "used twice");
        assert_invalid("(?<>x)", "empty group name");
        assert_invalid("(?<1a>x)", "cannot appear in a group name");
        assert_invalid("(?<a-b>x)", "cannot appear in a group name");
        assert_invalid(r"(?<\uD800>x)", "cannot appear in a group name");
        assert_invalid("(?<a", "group name is never closed");
    }

    #[test]
    fn unicode_properties_use_ecma_names() {
        // covers: V4
        assert_matches(r"^\p{Letter}+$", &["+Hello", "+\u{03C0}", "-123"]);
        assert_matches(r"^\p{digit}+$", &["+42", "+\u{09EA}\u{09E8}", "--%#"]);
        assert_matches(r"^\p{Lu}$", &["+A", "-a"]);
        assert_matches(r"^\P{Lu}$", &["-A", "+a"]);
        assert_matches(r"^\p{gc=Nd}\p{General_Category=Decimal_Number}$", &["+12"]);
        assert_matches(
            r"^\p{Script=Greek}\p{sc=Grek}\p{scx=Grek}$",
            &["+\u{03B1}\u{03B2}\u{03B3}"],
        );
        assert_matches(r"^\p{Script_Extensions=Latin}$", &["+a", "-\u{03B1}"]);
        assert_matches(
            r"^\p{ASCII}\p{Any}\p{Assigned}\p{AHex}\p{space}$",
            &["+a\u{1F432}bc "],
        );
        assert_matches(r"^[\p{L}\P{L}]$", &["+a", "+1"]);
        assert_matches(r"\p{Cs}", &["-a", "-\u{1F432}"]);
        assert_matches(r"^\P{Cs}$", &["+a"]);
        assert_matches(r"\p{sc=Hrkt}", &["-\u{30A2}"]);
        assert_invalid(r"\p{letter}", "unknown Unicode property");
        assert_invalid(r"\p{Greek}", "unknown Unicode property");
        assert_invalid(r"\p{sc=greek}", "unknown Unicode property");
        assert_invalid(r"\p{Block=Basic_Latin}", "unknown Unicode property");
        assert_invalid(r"\p{RGI_Emoji}", "unknown Unicode property");
        assert_invalid(r"\p{L&}", "is not closed");
        assert_invalid(r"\p{L", "is not closed");
        assert_invalid(r"\pL", "is not followed by a property in braces");
        assert_invalid(r"\p", "is not followed by a property in braces");
    }

    #[test]
    fn every_listed_property_name_resolves() {
        // covers: V4
        for row in GENERAL_CATEGORIES.iter().chain(BINARY_PROPERTIES) {
            for name in *row {
                let result = compile(&format!(r"\p{{{name}}}"));
                if *name == "Changes_When_NFKC_Casefolded" || *name == "CWKCF" {
                    assert!(result.is_err_and(|error| error.is_unsupported()), "{name}");
                } else {
                    assert!(result.is_ok(), "{name}: {result:?}");
                }
            }
        }
        for name in SCRIPTS.split_whitespace() {
            for property in ["Script", "scx"] {
                let source = format!(r"\p{{{property}={name}}}");
                assert!(compile(&source).is_ok(), "{source}");
            }
        }
        // Aliases name the same set as the canonical spelling.
        let any_of = |source: &str, text: &str| compile(source).is_ok_and(|r| r.is_match(text));
        assert!(any_of(r"^\p{White_Space}$", "\u{85}") && any_of(r"^\p{space}$", "\u{85}"));
        assert!(any_of(r"^\p{cntrl}$", "\u{7}") && any_of(r"^\p{Combining_Mark}$", "\u{301}"));
    }

    #[test]
    fn unknown_script_is_what_no_script_claims() {
        // covers: V4
        let claimed = SCRIPTS
            .split_whitespace()
            .filter(|name| !matches!(*name, "Unknown" | "Zzzz" | "Katakana_Or_Hiragana" | "Hrkt"))
            .map(|name| format!(r"\p{{sc={name}}}"))
            .collect::<String>();
        let mut unclaimed = super::unicode_class(&format!("[{claimed}]")).expect("scripts resolve");
        unclaimed.negate();
        let unknown = super::script("Unknown", "sc").and_then(|property| match property {
            super::Property::Query(expression) => super::unicode_class(&expression),
            _ => None,
        });
        let mut difference = unknown.expect("`Unknown` resolves");
        difference.symmetric_difference(&unclaimed);
        assert_eq!(difference.ranges(), &[]);
        assert_matches(
            r"^\p{sc=Zzzz}$",
            &["+\u{E000}", "+\u{10FFFF}", "-a", "-\u{1F432}"],
        );
    }

    #[test]
    fn ignore_case_modifier_folds_like_ecma() {
        // covers: V4
        assert_matches("^(?i:abc)$", &["+ABC", "+aBc", "-abd"]);
        assert_matches("^(?i:k)$", &["+K", "+\u{212A}"]);
        assert_matches("^(?i:a(?-i:b))$", &["+Ab", "-AB"]);
        assert_matches(r"^(?i:\w)$", &["+\u{017F}", "+\u{212A}"]);
        assert_matches(r"^(?i:\W)$", &["-\u{017F}", "-\u{212A}", "-s", "+-"]);
        assert_matches("^(?i:[^k])$", &["-K", "-\u{212A}", "+x"]);
        // `\P{…}` is complemented before folding, `[^…]` after: ECMA-262 with `u`.
        assert_matches(r"^(?i:\P{Lu})$", &["+a", "+A"]);
        assert_matches(r"^(?i:[^\P{Ll}])$", &["-a", "-A"]);
        assert_matches(r"^(?i:\p{Lu})$", &["+a"]);
        assert_matches(r"^(?i:[a-c]\x41)$", &["+Ba"]);
    }

    #[test]
    fn modifier_syntax() {
        // covers: V4
        assert_matches("^(?i-s:a.)$", &["+Ax", "-A\n"]);
        assert_matches("^(?ims:a)$", &["+A"]);
        assert_matches("^(?i-:a)$", &["+A"]);
        assert_invalid("(?i)a", "inline flags `(?i)` are not ECMA-262");
        assert_invalid("(?-:a)", "names no flag");
        assert_invalid("(?ii:a)", "names `i` twice");
        assert_invalid("(?i-i:a)", "names `i` twice");
        assert_invalid("(?u:a)", "unknown group syntax");
        assert_invalid("(?P<n>a)", "unknown group syntax");
        assert_invalid("(?", "unknown group syntax");
        assert_matches("(?m:a)", &["+a"]);
        assert_unsupported("(?m:^a)", "`^` inside an `m` modifier group");
        assert_unsupported("(?m:a$)", "`$` inside an `m` modifier group");
    }

    #[test]
    fn syntax_errors_are_invalid() {
        // covers: V4, D8
        assert_invalid("^(abc]", "lone `]`");
        assert_invalid("(abc", "group `(` is never closed");
        assert_invalid("abc)", "unmatched `)`");
        assert_invalid("[abc", "class `[` is never closed");
        assert_invalid("[a-", "class `[` is never closed");
        assert_invalid("*a", "`*` has nothing to repeat");
        assert_invalid("a**", "`*` has nothing to repeat");
        assert_invalid("a|+", "`+` has nothing to repeat");
        assert_invalid("^*", "`*` has nothing to repeat");
        assert_invalid(r"\b+", "`+` has nothing to repeat");
        assert_invalid("{2}", "quantifier `{` has nothing to repeat");
        assert_invalid("a{", "`{` does not start a quantifier");
        assert_invalid("a{,5}", "`{` does not start a quantifier");
        assert_invalid("a{1", "`{` does not start a quantifier");
        assert_invalid("{", "lone `{`");
        assert_invalid("}", "lone `}`");
        assert_invalid("]", "lone `]`");
        assert_invalid("a{2,1}", "bounds out of order");
        assert_invalid("[z-a]", "out of order");
        assert_invalid(r"[\d-z]", "has a class escape as a bound");
        assert_invalid(r"[a-\d]", "has a class escape as a bound");
        assert_invalid(r"[\w-\d]", "has a class escape as a bound");
        assert_invalid("\\", "lone `\\`");
        assert_invalid("[\\", "lone `\\`");
        assert_invalid(r"\a", "unknown escape `\\a`");
        assert_invalid(r"\e", "unknown escape");
        assert_invalid(r"\z", "unknown escape");
        assert_invalid(r"\A", "unknown escape");
        assert_invalid(r"[\B]", "unknown escape");
        assert_invalid(r"[\k]", "unknown escape");
        assert_invalid(r"\é", "unknown escape");
        assert_invalid(r"\c1", "`\\c` is not followed by a letter");
        assert_invalid(r"\c", "`\\c` is not followed by a letter");
        assert_invalid(r"\x4", "two hex digits");
        assert_invalid(r"\xZZ", "two hex digits");
        assert_invalid(r"\u00", "four hex digits");
        assert_invalid(r"\u{}", "malformed `\\u{…}`");
        assert_invalid(r"\u{110000}", "malformed `\\u{…}`");
        assert_invalid(r"\u{41", "malformed `\\u{…}`");
        assert_invalid(r"\k", "`\\k` names no group");
        assert_invalid(r"\k<a>", "refers to no group");
        assert_invalid(r"(?<a>x)\k<b>", "refers to no group");
    }

    #[test]
    fn octal_like_escapes_are_invalid() {
        // covers: V4
        assert_invalid(r"\01", "octal escape");
        assert_invalid(r"[\00]", "octal escape");
        assert_invalid(r"\1", "back-reference `\\1` refers to no group");
        assert_invalid(r"(a)\2", "the pattern has 1 capturing group(s)");
        assert_invalid(r"\8", "refers to no group");
        assert_invalid(r"[\1]", "`\\1` inside a class");
    }

    #[test]
    fn look_around_and_back_references_are_unsupported() {
        // covers: D8
        assert_unsupported("a(?=b)", "look-ahead `(?=`");
        assert_unsupported("a(?!b)", "negative look-ahead `(?!`");
        assert_unsupported("(?<=a)b", "look-behind `(?<=`");
        assert_unsupported("(?<!a)b", "negative look-behind `(?<!`");
        assert_unsupported(r"(a)\1", "back-reference `\\1`");
        assert_unsupported(r"\1(a)", "back-reference `\\1`");
        assert_unsupported(r"(?<n>a)\k<n>", "back-reference `\\k<n>`");
        assert_unsupported(r"\k<n>(?<n>a)", "back-reference `\\k<n>`");
        assert_unsupported(r"\p{CWKCF}", "`\\p{CWKCF}`");
        let error = compile("x(?=y)").expect_err("look-ahead is refused");
        assert_eq!(
            error.to_string(),
            "look-ahead `(?=` at character 2 is not supported: matching must run in linear \
             time; rewrite the pattern without it"
        );
        // Groups inside a look-around still count for back-references.
        assert_unsupported(r"(?=(a))\1", "look-ahead");
    }

    #[test]
    fn syntax_errors_win_over_unsupported_constructs() {
        // covers: D8
        assert_invalid("(?=a)*", "`*` has nothing to repeat");
        assert_invalid("(?<=a)?", "`?` has nothing to repeat");
        assert_invalid("(?=a", "never closed");
        assert_invalid("(?=a)[", "never closed");
        assert_invalid(r"(a)\1\2", "refers to no group");
    }

    #[test]
    fn limits_are_errors_not_hangs() {
        // covers: D8, D12
        for source in [
            r"\p{L}{1000}",
            "(?:a{1000}){1000}",
            ".{1,100000}",
            "a{4294967295}",
        ] {
            let error = compile(source).expect_err(source);
            assert!(
                !error.is_unsupported() && error.reason().contains("size limit"),
                "{error}"
            );
        }
        let error = compile("a{4294967296}").expect_err("count too large");
        assert!(
            error
                .reason()
                .contains("repeats more than 4294967295 times"),
            "{error}"
        );
        assert!(
            compile("(?:){4294967295}").is_ok(),
            "an empty repetition compiles to nothing"
        );
        assert!(compile_pattern(r"\w{50}", 100).is_err_and(|e| e.reason().contains("size limit")));
        let deep = format!("{}a{}", "(".repeat(50), ")".repeat(50));
        assert!(compile(&deep).is_ok());
        let deep = format!("{}a{}", "(?:b|".repeat(50), ")*".repeat(50));
        assert!(
            compile(&deep).is_ok(),
            "the translation stays within regex's nesting limit"
        );
        let too_deep = format!("{}a{}", "(".repeat(51), ")".repeat(51));
        let error = compile(&too_deep).expect_err("too deep");
        assert!(
            !error.is_unsupported() && error.reason().contains("nests deeper"),
            "{error}"
        );
        let long = "a".repeat(DEFAULT_PATTERN_MAX_LEN);
        assert!(compile(&long).is_ok_and(|regex| regex.is_match(&long)));
    }

    #[test]
    fn errors_are_one_readable_line() {
        // covers: D8
        for source in [
            "(abc",
            r"\u{}",
            "a{2,1}",
            "(?=a)",
            r"\p{Nope}",
            "[z-a]",
            "(?i)",
        ] {
            let error = compile(source).expect_err(source);
            let text = error.to_string();
            assert_eq!(text, error.reason());
            assert!(
                !text.contains('\n') && text.contains("at character"),
                "{text}"
            );
            assert!(text.starts_with(|c: char| !c.is_uppercase()), "{text}");
        }
        let error = compile("ab\u{1F432}(").expect_err("unclosed");
        assert!(error.reason().contains("at character 4"), "{error}");
    }
}
