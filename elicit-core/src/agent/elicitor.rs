//! The [`Elicitor`]: what an agent asks a client through, one per client connection.
//!
//! It holds what the client declared during `initialize` and refuses, before anything
//! is sent, every request the spec forbids: a mode the client did not declare ([C7](crate::rules#c7)), a
//! form that asks for a secret ([F5](crate::rules#f5), [F6](crate::rules#f6)) or carries a link ([F7](crate::rules#f7)), an unsafe URL ([S1](crate::rules#s1)).
//! URL-mode requests get an unguessable id and are recorded, bound to the connection
//! and the user, so that only that connection and that user can complete them ([E5](crate::rules#e5), [S6](crate::rules#s6),
//! [U4](crate::rules#u4), [U5](crate::rules#u5)).

use std::fmt;

use crate::protocol::{CreateElicitation, ElicitationCapabilities, Mode, ParamsError, Scope};
use crate::schema::{Finding, FindingKind, RequestedSchema, SchemaError};
use crate::typed::Elicit;
use crate::vocab::find_url;

use super::ids::{ConnectionId, UserId};
#[cfg(feature = "url")]
use super::registry::{CompletionError, PendingUrl, RegistryError, UrlRegistry, UrlState};
#[cfg(feature = "url")]
use super::store::StoreError;
#[cfg(feature = "url")]
use super::url_check::{UnsafeUrlError, UrlPolicy};
#[cfg(feature = "url")]
use super::UrlOutcome;
#[cfg(feature = "url")]
use crate::protocol::{CompleteElicitation, ElicitationResponse};

/// Why an [`Elicitor`] refused to build a request. Nothing was sent.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RefusedError {
    /// The client did not declare this mode ([C7](crate::rules#c7)). Degrade: use the other mode if it
    /// is allowed for this interaction, another flow, or fail the operation. A refused
    /// URL-mode request must never be retried in form mode ([F6](crate::rules#f6)).
    ModeNotSupported(Mode),
    /// The form asks for a secret or a credential, which form mode must never do ([F5](crate::rules#f5)).
    /// Use URL mode ([F6](crate::rules#f6)); if the client has no URL mode, use another secure flow or
    /// fail, but do not ask in a form.
    SecretInForm(Vec<Finding>),
    /// The form's texts or the message contain a URL a user could click ([F7](crate::rules#f7)). Allowed
    /// with [`Elicitor::allow_links_in_forms`].
    LinkInForm(Vec<Finding>),
    /// The schema breaks the rules of the strict parse ([F1](crate::rules#f1), [F2](crate::rules#f2), [D2](crate::rules#d2)–[D14](crate::rules#d14)): only a
    /// schema a client can read may be sent.
    InvalidSchema(SchemaError),
    /// The scope has a `null` request id, which ACP v2 forbids and this crate never
    /// builds ([E3](crate::rules#e3)).
    NullRequestId,
    /// The URL must not be sent ([S1](crate::rules#s1), [U3](crate::rules#u3)).
    #[cfg(feature = "url")]
    UnsafeUrl(UnsafeUrlError),
    /// The params break a wire rule ([U1](crate::rules#u1)).
    InvalidParams(ParamsError),
    /// This connection already has as many outstanding URL elicitations as the
    /// registry allows; complete, answer or forget some first.
    #[cfg(feature = "url")]
    TooManyOutstanding {
        /// The limit per connection.
        limit: usize,
    },
    /// The operating system's random number generator failed, so no unguessable
    /// `elicitationId` could be made ([U4](crate::rules#u4)).
    #[cfg(feature = "url")]
    RandomnessUnavailable(String),
    /// The registry's [`Store`](super::Store) failed, so the URL elicitation could not
    /// be recorded; nothing may be sent. The [`StoreError`] is the source.
    #[cfg(feature = "url")]
    Store(StoreError),
}

/// The former name of [`RefusedError`]: a request an [`Elicitor`] refused to build,
/// nothing sent (beside [`AskError`](super::AskError), an ask that failed).
#[deprecated(
    since = "0.2.0",
    note = "renamed `RefusedError`: a request refused before sending"
)]
pub type ElicitError = RefusedError;

impl RefusedError {
    /// Whether the client did not declare the mode ([C7](crate::rules#c7)): the caller should degrade.
    pub fn is_unsupported_mode(&self) -> bool {
        matches!(self, RefusedError::ModeNotSupported(_))
    }

    /// The mode the client did not declare, if that is the error ([C7](crate::rules#c7)).
    pub fn unsupported_mode(&self) -> Option<Mode> {
        match self {
            RefusedError::ModeNotSupported(mode) => Some(*mode),
            _ => None,
        }
    }
}

fn write_findings(f: &mut fmt::Formatter<'_>, findings: &[Finding]) -> fmt::Result {
    for (i, finding) in findings.iter().enumerate() {
        f.write_str(if i == 0 { ": " } else { "; " })?;
        write!(f, "{finding}")?;
    }
    Ok(())
}

/// The text of [`RefusedError::SecretInForm`], shared with `AskError::SecretInForm`.
pub(super) fn write_secret_in_form(
    f: &mut fmt::Formatter<'_>,
    findings: &[Finding],
) -> fmt::Result {
    f.write_str("form mode must not ask for secrets or credentials; use URL mode")?;
    write_findings(f, findings)?;
    write!(f, "; {}", crate::rules::cite_each(&["F5", "F6"]))
}

/// The text of [`RefusedError::LinkInForm`], shared with `AskError::LinkInForm`.
pub(super) fn write_link_in_form(f: &mut fmt::Formatter<'_>, findings: &[Finding]) -> fmt::Result {
    f.write_str("a form-mode request should not carry clickable URLs")?;
    write_findings(f, findings)?;
    write!(f, "; {}", crate::rules::cite("F7"))
}

impl fmt::Display for RefusedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefusedError::ModeNotSupported(mode) => write!(
                f,
                "the client did not declare the `{mode}` elicitation mode; degrade to another flow \
                 or fail the operation; {}",
                crate::rules::cite("C7")
            ),
            RefusedError::SecretInForm(findings) => write_secret_in_form(f, findings),
            RefusedError::LinkInForm(findings) => write_link_in_form(f, findings),
            RefusedError::InvalidSchema(_) => f.write_str("the form's schema is invalid"),
            RefusedError::NullRequestId => f.write_str(
                "the scope's request id is `null`, which ACP v2 forbids; use a string or an integer",
            ),
            #[cfg(feature = "url")]
            RefusedError::UnsafeUrl(_) => f.write_str("refusing to send the URL"),
            RefusedError::InvalidParams(error) => error.fmt(f),
            #[cfg(feature = "url")]
            RefusedError::TooManyOutstanding { limit } => write!(
                f,
                "this connection already has {limit} outstanding URL elicitations, the most allowed"
            ),
            #[cfg(feature = "url")]
            RefusedError::RandomnessUnavailable(reason) => write!(
                f,
                "no elicitation id could be made: the system's random number generator failed ({reason})"
            ),
            #[cfg(feature = "url")]
            RefusedError::Store(_) => f.write_str("the URL elicitation could not be recorded"),
        }
    }
}

impl std::error::Error for RefusedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RefusedError::InvalidSchema(error) => Some(error),
            #[cfg(feature = "url")]
            RefusedError::UnsafeUrl(error) => Some(error),
            #[cfg(feature = "url")]
            RefusedError::Store(error) => Some(error),
            // `InvalidParams` is transparent: its `Display` is the params error's, which
            // has no source of its own. The others have no cause.
            _ => None,
        }
    }
}

#[cfg(feature = "url")]
impl From<RegistryError> for RefusedError {
    fn from(error: RegistryError) -> Self {
        match error {
            RegistryError::TooManyOutstanding { limit } => {
                RefusedError::TooManyOutstanding { limit }
            }
            RegistryError::RandomnessUnavailable(reason) => {
                RefusedError::RandomnessUnavailable(reason)
            }
            RegistryError::Store(error) => RefusedError::Store(error),
        }
    }
}

/// What an agent asks one client through ([C7](crate::rules#c7), [E5](crate::rules#e5), [F5](crate::rules#f5)–[F7](crate::rules#f7), [S1](crate::rules#s1), [S6](crate::rules#s6), [U4](crate::rules#u4), [U5](crate::rules#u5)).
///
/// Make one per client connection, from the `elicitation` capability the client
/// declared in `initialize`, that connection's [`ConnectionId`], and, once the agent
/// has authenticated the user, their [`UserId`].
///
/// ```
/// use elicit::agent::{ConnectionId, Elicitor};
/// use elicit::protocol::{ElicitationCapabilities, Mode, Scope};
/// use elicit::RequestedSchema;
/// use serde_json::json;
///
/// let caps = ElicitationCapabilities::from_json(Some(&json!({ "form": {} })));
/// let elicitor = Elicitor::new(caps, ConnectionId::new());
///
/// let schema = RequestedSchema::from_json(&json!({
///     "type": "object", "properties": { "ok": { "type": "boolean" } }
/// }))?;
/// let request = elicitor.form_schema(Scope::session("s1"), "Proceed?", &schema)?;
/// assert_eq!(request.to_json()["mode"], "form");
///
/// // C7: this client has no URL mode; the caller degrades instead of sending.
/// # #[cfg(feature = "url")] {
/// let refused = elicitor.url(Scope::session("s1"), "Sign in", "https://auth.example.com/");
/// assert_eq!(refused.unwrap_err().unsupported_mode(), Some(Mode::Url));
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Threads
///
/// Every method that builds or completes a request takes `&self`, so one `Elicitor`
/// can be shared (in an `Arc`) by all the tasks serving its connection. The only
/// shared state, the record of URL elicitations, is a `UrlRegistry`, with a mutex and
/// a `Store` inside; it is shared by design between the connections of an agent, so
/// that a completion attempted on the wrong connection is recognised as such ([E5](crate::rules#e5)).
#[derive(Debug, Clone)]
pub struct Elicitor {
    capabilities: ElicitationCapabilities,
    connection: ConnectionId,
    user: Option<UserId>,
    allow_links: bool,
    #[cfg(feature = "url")]
    policy: UrlPolicy,
    #[cfg(feature = "url")]
    registry: UrlRegistry,
}

impl Elicitor {
    /// The elicitor of one connection, knowing what its client declared ([C1](crate::rules#c1)–[C6](crate::rules#c6)), with
    /// no authenticated user and, with the `url` feature, the default `UrlPolicy`
    /// and a registry of its own: share one `UrlRegistry` between all connections
    /// with `with_registry`.
    pub fn new(capabilities: ElicitationCapabilities, connection: ConnectionId) -> Self {
        Elicitor {
            capabilities,
            connection,
            user: None,
            allow_links: false,
            #[cfg(feature = "url")]
            policy: UrlPolicy::new(),
            #[cfg(feature = "url")]
            registry: UrlRegistry::new(),
        }
    }

    /// Sets the authenticated user ([E5](crate::rules#e5), [S6](crate::rules#s6)).
    #[must_use]
    pub fn with_user(mut self, user: UserId) -> Self {
        self.user = Some(user);
        self
    }

    /// Changes the authenticated user, e.g. once `authenticate` succeeded. URL
    /// elicitations already sent stay bound to the user who was current then ([S6](crate::rules#s6)).
    pub fn set_user(&mut self, user: Option<UserId>) {
        self.user = user;
    }

    /// Lets form texts and the message contain URLs. [F7](crate::rules#f7) says an agent *should not*
    /// put clickable URLs in a form-mode request, so they are refused by default.
    #[must_use]
    pub fn allow_links_in_forms(mut self, allow: bool) -> Self {
        self.allow_links = allow;
        self
    }

    /// Sets the policy URL-mode URLs are checked against ([S1](crate::rules#s1)).
    #[cfg(feature = "url")]
    #[must_use]
    pub fn with_url_policy(mut self, policy: UrlPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Records URL elicitations in this registry, shared with the agent's other
    /// connections ([E5](crate::rules#e5)).
    #[cfg(feature = "url")]
    #[must_use]
    pub fn with_registry(mut self, registry: &UrlRegistry) -> Self {
        self.registry = registry.clone();
        self
    }

    /// The same elicitor for a request that declares `capabilities` itself (MCP
    /// 2026-07-28 declares them per request, [M6](crate::rules#m6)): connection, user,
    /// link rule, URL policy and registry kept.
    #[must_use]
    pub fn with_capabilities(mut self, capabilities: ElicitationCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// What the client declared.
    pub fn capabilities(&self) -> &ElicitationCapabilities {
        &self.capabilities
    }

    /// Whether the client declared this mode ([C3](crate::rules#c3)): check it to choose a flow before
    /// asking ([C7](crate::rules#c7)).
    pub fn supports(&self, mode: Mode) -> bool {
        self.capabilities.supports(mode)
    }

    /// The connection this elicitor belongs to.
    pub fn connection(&self) -> ConnectionId {
        self.connection
    }

    /// The authenticated user, if any.
    pub fn user(&self) -> Option<&UserId> {
        self.user.as_ref()
    }

    /// The URL policy ([S1](crate::rules#s1)).
    #[cfg(feature = "url")]
    pub fn url_policy(&self) -> &UrlPolicy {
        &self.policy
    }

    /// The registry of URL elicitations.
    #[cfg(feature = "url")]
    pub fn registry(&self) -> &UrlRegistry {
        &self.registry
    }

    /// A form-mode request for the form `T` ([F1](crate::rules#f1), [F2](crate::rules#f2)). Its schema is a compile-time
    /// constant and is sent without being copied.
    ///
    /// Refused when the form carries a link ([F7](crate::rules#f7), unless allowed) or the client did
    /// not declare form mode ([C7](crate::rules#c7)).
    ///
    /// Secrets ([F5](crate::rules#f5)) are refused when `T` is compiled: `#[derive(Elicit)]` reads the
    /// names, titles and descriptions with the same vocabulary as
    /// [`RequestedSchema::lint`], and a field that only looks like a secret is let
    /// through there with a stated reason (`allow_secret = "…"`). Linting again here
    /// would find nothing new in a derived form but would refuse, at run time, exactly
    /// the exceptions a reviewer accepted, so typed forms are not linted for secrets.
    /// Implement [`Elicit`] by hand only for a schema that passes
    /// [`RequestedSchema::secret_findings`]. A form marked `#[elicit(url_mode)]`
    /// ([`Elicit::URL_MODE`]) is always refused as
    /// [`RefusedError::SecretInForm`]: it is for the agent's own page.
    pub fn form<T: Elicit>(
        &self,
        scope: Scope,
        message: impl Into<String>,
    ) -> Result<CreateElicitation, RefusedError> {
        let message = message.into();
        let schema = T::requested_schema();
        // F5, F6: a form for the agent's own URL-mode page is never sent as a form,
        // whether or not the lint finds the secret it was made for.
        if T::URL_MODE {
            return Err(RefusedError::SecretInForm(schema.secret_findings()));
        }
        // A derived schema was checked when it was compiled (rules and F5); links
        // and the capability remain.
        self.check_form(&scope, &message, schema, false)?;
        Ok(CreateElicitation::form_static(scope, message, schema))
    }

    /// A form-mode request for a schema built at run time.
    ///
    /// Refused, in this order: a schema that breaks the strict rules (what a client
    /// may refuse to read), a form that asks for a secret ([F5](crate::rules#f5)), a link ([F7](crate::rules#f7), unless
    /// allowed), a client that did not declare form mode ([C7](crate::rules#c7)).
    pub fn form_schema(
        &self,
        scope: Scope,
        message: impl Into<String>,
        schema: &RequestedSchema,
    ) -> Result<CreateElicitation, RefusedError> {
        let message = message.into();
        // A schema from the lenient parse can hold unknown types and unenforced
        // constraints; an agent must send only what every client can read.
        schema.check().map_err(RefusedError::InvalidSchema)?;
        self.check_form(&scope, &message, schema, true)?;
        Ok(CreateElicitation::form(scope, message, schema.clone()))
    }

    /// The checks every form-mode request passes. Content rules come before the
    /// capability so that a form that must never be sent is found even while testing
    /// against clients without form mode.
    fn check_form(
        &self,
        scope: &Scope,
        message: &str,
        schema: &RequestedSchema,
        refuse_secrets: bool,
    ) -> Result<(), RefusedError> {
        check_scope(scope)?;
        let (secrets, links): (Vec<Finding>, Vec<Finding>) =
            schema.lint().into_iter().partition(Finding::is_secret);
        // F5, F6: never in a form, whatever the client supports.
        if refuse_secrets && !secrets.is_empty() {
            return Err(RefusedError::SecretInForm(secrets));
        }
        if !self.allow_links {
            // F7: "any field of a form-mode request", so the message too.
            let mut links = links;
            if let Some(range) = find_url(message) {
                links.push(Finding {
                    property: None,
                    field: "message",
                    kind: FindingKind::Url {
                        text: message.get(range).unwrap_or(message).to_owned(),
                    },
                });
            }
            if !links.is_empty() {
                return Err(RefusedError::LinkInForm(links));
            }
        }
        // C7.
        if !self.capabilities.supports(Mode::Form) {
            return Err(RefusedError::ModeNotSupported(Mode::Form));
        }
        Ok(())
    }

    /// A URL-mode request ([U1](crate::rules#u1)) sending the user to `url`, recorded as outstanding on
    /// this connection for the current user ([E5](crate::rules#e5), [S6](crate::rules#s6)).
    ///
    /// Refused when the client did not declare URL mode ([C7](crate::rules#c7)), the URL breaks the
    /// policy ([S1](crate::rules#s1)), the connection has too many outstanding, or the registry's
    /// store fails ([`RefusedError::Store`]). The `elicitationId` is 128 bits from the operating system's
    /// random number generator, unique among the registry's URL elicitations, so
    /// among this connection's outstanding ones too ([U4](crate::rules#u4)). The request carries the URL
    /// as the policy serialized it, which is what was checked.
    #[cfg(feature = "url")]
    pub fn url(
        &self,
        scope: Scope,
        message: impl Into<String>,
        url: &str,
    ) -> Result<PendingUrl, RefusedError> {
        check_scope(&scope)?;
        // C7; and F6: a URL-mode request is never turned into a form.
        if !self.capabilities.supports(Mode::Url) {
            return Err(RefusedError::ModeNotSupported(Mode::Url));
        }
        // S1.
        let checked = self.policy.check(url).map_err(RefusedError::UnsafeUrl)?;
        let message = message.into();
        self.registry
            .register(self.connection, self.user.clone(), |elicitation_id| {
                CreateElicitation::url(scope, message, elicitation_id, checked)
                    .map_err(RefusedError::InvalidParams)
            })
    }

    /// Records the client's response to a URL elicitation sent on this connection.
    ///
    /// `accept` is the user's consent to open the URL, not the end of the external
    /// interaction ([U2](crate::rules#u2)): the elicitation stays outstanding until
    /// [`complete`](Self::complete). `decline` and `cancel` close it ([R5](crate::rules#r5)). The content
    /// is never read ([U3](crate::rules#u3), [R4](crate::rules#r4)).
    #[cfg(feature = "url")]
    pub fn record_response(
        &self,
        elicitation_id: &str,
        response: &ElicitationResponse,
    ) -> Result<UrlOutcome, CompletionError> {
        self.registry
            .record_response(self.connection, elicitation_id, response)
    }

    /// The `elicitation/complete` notification for a URL elicitation whose external
    /// interaction finished ([U5](crate::rules#u5)), to send on this connection.
    ///
    /// `user` is who the agent's authentication says finished the interaction; it
    /// must be the user who started it ([S6](crate::rules#s6)), `None` only for an elicitation started
    /// without one. Refused for an id this registry never issued, one issued on
    /// another connection ([E5](crate::rules#e5)), another user ([S6](crate::rules#s6)), one already completed ([U5](crate::rules#u5)), and one
    /// the user declined or cancelled, and when the registry's store fails
    /// ([`CompletionError::Store`]).
    #[cfg(feature = "url")]
    pub fn complete(
        &self,
        elicitation_id: &str,
        user: Option<&UserId>,
    ) -> Result<CompleteElicitation, CompletionError> {
        self.registry
            .complete(self.connection, elicitation_id, user)
    }

    /// The state of a URL elicitation of this connection; `None` when the id is
    /// unknown here (never issued, issued on another connection, or forgotten), and
    /// when the registry's store fails.
    #[cfg(feature = "url")]
    pub fn url_state(&self, elicitation_id: &str) -> Option<UrlState> {
        self.registry.state(self.connection, elicitation_id)
    }

    /// Forgets an outstanding URL elicitation of this connection the agent gave up
    /// on (a timeout, the operation it served was cancelled). Returns whether there
    /// was one. A later completion of it is refused as unknown. `false` also when the
    /// registry's store fails: the elicitation may then still be there.
    #[cfg(feature = "url")]
    pub fn forget(&self, elicitation_id: &str) -> bool {
        self.registry.forget(self.connection, elicitation_id)
    }

    /// Forgets every URL elicitation of this connection; call it when the
    /// connection closes ([E5](crate::rules#e5): its elicitations cannot complete on another one).
    #[cfg(feature = "url")]
    pub fn disconnect(&self) {
        self.registry.close_connection(self.connection);
    }
}

/// [E3](crate::rules#e3): a `null` request id can be read (v1) but is never built.
fn check_scope(scope: &Scope) -> Result<(), RefusedError> {
    match scope.request_id() {
        Some(id) if id.is_null() => Err(RefusedError::NullRequestId),
        _ => Ok(()),
    }
}
