//! [`Problems`]: what a server found wrong in an answer the schema accepted, or could
//! not check, in words for the person, each beside its field.

use std::fmt;

/// Problems the server found in an answer, each beside its field: what a check of the
/// server's own returns to have a form asked again (`elicit::rmcp::Dialog::form_checked`),
/// and what [`AskError::Unaccepted`](super::AskError::Unaccepted) reports after the last
/// attempt.
///
/// ```
/// use elicit::agent::Problems;
///
/// let problems = Problems::new().field("date", "must be in the future");
/// assert_eq!(problems.to_string(), "`date`: must be in the future");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems {
    problems: Vec<(Option<String>, String)>,
}

impl Problems {
    /// No problems yet.
    pub fn new() -> Self {
        Problems::default()
    }

    /// A problem with the property `name` (its wire name), in words for the person.
    #[must_use]
    pub fn field(mut self, name: impl Into<String>, problem: impl Into<String>) -> Self {
        self.problems.push((Some(name.into()), problem.into()));
        self
    }

    /// A problem with the answer as a whole.
    #[must_use]
    pub fn answer(mut self, problem: impl Into<String>) -> Self {
        self.problems.push((None, problem.into()));
        self
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.problems.len()
    }

    /// Each problem: the property (`None` for the answer as a whole) and the words.
    pub fn iter(&self) -> impl Iterator<Item = (Option<&str>, &str)> + '_ {
        self.problems
            .iter()
            .map(|(name, problem)| (name.as_deref(), problem.as_str()))
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, problem)) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            match name {
                Some(name) => write!(f, "`{name}`: {problem}")?,
                None => f.write_str(problem)?,
            }
        }
        Ok(())
    }
}
