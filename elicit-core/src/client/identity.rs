//! Who is asking: the agent a client shows beside every elicitation ([K1](crate::rules#k1)).

use std::fmt;

use serde_json::Value;

/// The agent that sent an elicitation, as the client knows it from `initialize`
/// (`agentInfo`: `name`, `title`, `version`). A client shows it with every request so
/// the user knows which agent is asking ([K1](crate::rules#k1)).
///
/// Identify the agent by the connection the request came in on, never by anything in
/// the request itself: an agent could claim to be another.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AgentIdentity {
    name: String,
    title: Option<String>,
    version: Option<String>,
}

impl AgentIdentity {
    /// An agent known by this name (its programmatic `name`).
    pub fn new(name: impl Into<String>) -> Self {
        AgentIdentity {
            name: name.into(),
            title: None,
            version: None,
        }
    }

    /// Sets the human-readable title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the version.
    #[must_use]
    pub fn with_version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// Reads the `agentInfo` of an `initialize` response: `None` without a string
    /// `name`; a `title` or `version` that is not a string reads as absent.
    pub fn from_agent_info(agent_info: &Value) -> Option<Self> {
        let name = agent_info.get("name")?.as_str()?;
        let text = |key: &str| {
            agent_info
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Some(AgentIdentity {
            name: name.to_owned(),
            title: text("title"),
            version: text("version"),
        })
    }

    /// The programmatic name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The human-readable title, if the agent gave one.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The version, if known.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    /// What to call the agent in one word: the title, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}

impl fmt::Display for AgentIdentity {
    /// `Title (name version)`, or `name version` without a title: the name is always
    /// shown, since a title is free text any agent can choose.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let version = self
            .version
            .as_deref()
            .map(|v| format!(" {v}"))
            .unwrap_or_default();
        match &self.title {
            Some(title) if *title != self.name => write!(f, "{title} ({}{version})", self.name),
            _ => write!(f, "{}{version}", self.name),
        }
    }
}
