//! `rename_all` rules: the names serde gives them and the wire names they produce, so a
//! type deriving both `Elicit` and `Serialize`/`Deserialize` has one set of wire names.
//!
//! Field names are written in `snake_case` and variant names in `PascalCase`; each rule
//! converts from the convention its input is written in, as serde's rules do.

/// One `rename_all` rule, by the name serde uses for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    /// `lowercase`
    Lower,
    /// `UPPERCASE`
    Upper,
    /// `PascalCase`
    Pascal,
    /// `camelCase`
    Camel,
    /// `snake_case`
    Snake,
    /// `SCREAMING_SNAKE_CASE`
    ScreamingSnake,
    /// `kebab-case`
    Kebab,
    /// `SCREAMING-KEBAB-CASE`
    ScreamingKebab,
}

/// Every rule with its name, in the order messages list them.
const RULES: [(&str, RenameRule); 8] = [
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl RenameRule {
    /// The rule serde calls `name`.
    pub fn from_name(name: &str) -> Option<RenameRule> {
        RULES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, rule)| *rule)
    }

    /// The rule's name as written in the attribute.
    pub fn name(self) -> &'static str {
        RULES
            .iter()
            .find(|(_, rule)| *rule == self)
            .map_or("", |(n, _)| n)
    }

    /// The names of all rules, for the message about an unknown one.
    pub fn all_names() -> String {
        let names: Vec<String> = RULES.iter().map(|(n, _)| format!("`{n}`")).collect();
        names.join(", ")
    }

    /// The wire name of a field written in `snake_case`.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut out = String::with_capacity(field.len());
                let mut capitalize = true;
                for c in field.chars() {
                    if c == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.extend(c.to_uppercase());
                        capitalize = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            RenameRule::Camel => lower_first(&RenameRule::Pascal.apply_to_field(field)),
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// The wire name of a variant written in `PascalCase`.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => lower_first(variant),
            RenameRule::Snake => {
                let mut out = String::with_capacity(variant.len() + 4);
                for (i, c) in variant.char_indices() {
                    if i > 0 && c.is_uppercase() {
                        out.push('_');
                    }
                    out.extend(c.to_lowercase());
                }
                out
            }
            RenameRule::ScreamingSnake => RenameRule::Snake
                .apply_to_variant(variant)
                .to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake
                .apply_to_variant(variant)
                .replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule::{self, *};

    #[test]
    fn names_round_trip() {
        for (name, rule) in super::RULES {
            assert_eq!(RenameRule::from_name(name), Some(rule));
            assert_eq!(rule.name(), name);
        }
        assert_eq!(RenameRule::from_name("camelcase"), None);
    }

    #[test]
    fn fields() {
        let cases = [
            (Lower, "max_passes", "max_passes"),
            (Upper, "max_passes", "MAX_PASSES"),
            (Pascal, "max_passes", "MaxPasses"),
            (Camel, "max_passes", "maxPasses"),
            (Snake, "max_passes", "max_passes"),
            (ScreamingSnake, "max_passes", "MAX_PASSES"),
            (Kebab, "max_passes", "max-passes"),
            (ScreamingKebab, "max_passes", "MAX-PASSES"),
            (Camel, "a", "a"),
            (Pascal, "x2_y", "X2Y"),
        ];
        for (rule, input, expected) in cases {
            assert_eq!(rule.apply_to_field(input), expected, "{rule:?} {input}");
        }
    }

    #[test]
    fn variants() {
        let cases = [
            (Lower, "VeryFast", "veryfast"),
            (Upper, "VeryFast", "VERYFAST"),
            (Pascal, "VeryFast", "VeryFast"),
            (Camel, "VeryFast", "veryFast"),
            (Snake, "VeryFast", "very_fast"),
            (ScreamingSnake, "VeryFast", "VERY_FAST"),
            (Kebab, "VeryFast", "very-fast"),
            (ScreamingKebab, "VeryFast", "VERY-FAST"),
            (Snake, "A", "a"),
        ];
        for (rule, input, expected) in cases {
            assert_eq!(rule.apply_to_variant(input), expected, "{rule:?} {input}");
        }
    }
}
