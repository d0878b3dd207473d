//! The rules of elicitation this crate implements, each under a short id.
//!
//! An id is a letter naming the group of the rule and a number: C for capabilities,
//! E for creating an elicitation, F for form mode, U for URL mode, S for URL safety,
//! R for responses, K for the client's user interface, V for the meaning of
//! validation, M for the MCP dialect, and D for the decisions this project takes
//! where the protocol says nothing. The documentation of this crate and its error
//! messages cite the ids, for instance "(F5)", and link to the rule on this page; each
//! test names the ids it covers (`// covers: F5, F6`).
//!
//! The rules restate, in this crate's own words, the
//! [elicitation page of the Agent Client Protocol](https://agentclientprotocol.com/protocol/elicitation)
//! and the official ACP JSON Schema, versions v1 and v2. Where the two versions differ
//! v2 is the stricter one, and everything elicit writes is valid under both. The M
//! rules compare ACP with
//! [MCP's elicitation page](https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation).
//! MUST, MUST NOT, REQUIRED, SHOULD, SHOULD NOT and MAY keep the strength the
//! protocol gives them. The D rules are this project's own choices: they bind elicit,
//! not other implementations.
//!
//! Each rule ends, where it helps, with what elicit does about it.
//!
//! Each id also has a short title, which error messages give beside the id so that
//! it means something where it is read: [`cite`] renders "see F5 (form mode never asks
//! for a secret)", [`title`] gives the title alone and [`all`] lists every rule.
//!
//! ```
//! use elicit::rules;
//!
//! assert_eq!(rules::title("F5"), Some("form mode never asks for a secret"));
//! assert_eq!(rules::cite("F5"), "see F5 (form mode never asks for a secret)");
//! assert!(rules::all().iter().any(|rule| rule.id() == "D13"));
//! ```
//!
//! ## Capabilities (C)
//!
//! ### C1
//!
//! A client that supports elicitation announces it during `initialize`, in the
//! `clientCapabilities.elicitation` member: an object with one member per supported
//! mode, `{"form": {}, "url": {}}` for both.
//!
//! ### C2
//!
//! When the top-level `elicitation` member is missing or `null`, the client supports
//! no elicitation of any kind.
//!
//! ### C3
//!
//! A client supports form mode only when its `form` member is present and not `null`,
//! and URL mode only when its `url` member is present and not `null`. These mode
//! objects hold nothing except, optionally, `_meta`.
//!
//! ### C4
//!
//! A present `elicitation` object can declare no mode, one mode or both. `{}` and
//! `{"form": null, "url": null}` are both present objects that declare no mode at
//! all. elicit keeps "no capability" and "a capability without a mode" apart.
//!
//! ### C5
//!
//! ACP departs from MCP here on purpose. In MCP an empty `{}` capability still means
//! "form mode only", as it did before there were modes; in ACP a client names every
//! mode it supports. elicit reads MCP's capability with a separate type (M2), so the
//! two readings cannot be confused.
//!
//! ### C6
//!
//! The schema marks these optional members `x-deserialize-default-on-error`: a value
//! of the wrong shape, such as `"form": 5`, is read as if the member were absent
//! instead of making the whole message fail. Reading capabilities in elicit therefore
//! never fails.
//!
//! ### C7
//!
//! An agent MUST NOT send an elicitation in a mode the client has not declared, and
//! SHOULD fall back gracefully when the mode it needs is not available. `Elicitor`
//! refuses to build such a request and names the missing mode, so the caller can
//! degrade.
//!
//! ### C8
//!
//! A client that receives a request in a mode it has not declared answers with the
//! JSON-RPC error `-32602` (Invalid params). The client-side request check returns
//! that error object.
//!
//! ## Creating an elicitation (E)
//!
//! ### E1
//!
//! To elicit, the agent sends the client a JSON-RPC request with the method
//! `elicitation/create`.
//!
//! ### E2
//!
//! `mode` is REQUIRED and is either `"form"` or `"url"`. Unlike MCP, ACP gives a
//! request without `mode` no default: it is not a form request, it is malformed.
//!
//! ### E3
//!
//! The scope of a request sits directly in its params, not in a nested object. A
//! request that belongs to a session carries `sessionId`, and may also carry
//! `toolCallId` to tie it to a tool call in that session. A request made outside any
//! session, for instance during authentication before a session exists, carries
//! `requestId`, a JSON-RPC id: a string or an int64 integer. Schema v1 also admits
//! `null` as that id and v2 does not, so a `null` request id is accepted when reading
//! and never produced. Every request has exactly one scope.
//!
//! ### E4
//!
//! Every request carries a `message` string, which SHOULD be shown to the user.
//!
//! ### E5
//!
//! The agent MUST tie each elicitation, and all the state it keeps for it, to the
//! client connection the request went out on and, where users authenticate, to the
//! authenticated user. A `sessionId` on its own, or a client identity nobody has
//! verified, is not sufficient for either. elicit's URL registry records the
//! connection and the user of each URL elicitation, and only they can complete it.
//!
//! ### E6
//!
//! Modes can be added later: a `mode` other than `form` and `url` is either a custom
//! mode (its name starts with `_`) or one from a newer version of the protocol. A
//! client that does not understand it MUST keep the payload exactly as received
//! whenever it stores, replays, proxies or forwards the request, and MUST NOT present
//! it as one of the modes it knows. The same holds for a property `type` it does not
//! know inside a form schema and for an `action` it does not know in a response.
//! elicit keeps each of these as received, in a variant of its own that cannot be
//! taken for a known one, and writes it back unchanged.
//!
//! ### E7
//!
//! A `_meta` object can appear on requests, responses, schemas, property schemas,
//! options and capabilities. Implementations MUST NOT rely on anything about its
//! contents. elicit keeps `_meta` as received and never interprets it.
//!
//! ## Form mode (F)
//!
//! ### F1
//!
//! In form mode, `requestedSchema` is one flat object schema: `"type": "object"`, a
//! `properties` map from names to primitive property schemas, and optionally
//! `required` (a list of property names), `title` and `description`. Nothing is
//! nested: no object-valued property, no `$ref`, and no array except the multi-select
//! of F2. `type` and `properties` are always written, even when there is nothing to
//! put in them, since schema v2 requires both.
//!
//! ### F2
//!
//! Every property schema may carry `title`, `description`, `default` and `_meta`, and
//! is of one of these kinds:
//!
//! - a string, with optional `minLength` and `maxLength` (uint32), `pattern` (an
//!   ECMA-262 regular expression) and `format`, which is one of `email`, `uri`,
//!   `date` and `date-time`; its `default` is a string;
//! - a single choice: `"type": "string"` with either `enum`, a list of bare string
//!   values, or `oneOf`, a list of `{"const", "title", "description"?}` entries that
//!   label each value; the list has at least one entry (v2 requires it);
//! - a number (a double) or an integer (an int64), with optional `minimum` and
//!   `maximum`, both inclusive, and a numeric `default`;
//! - a boolean, with an optional `default`;
//! - a multiple choice: `"type": "array"` whose `items` is either
//!   `{"type": "string", "enum": […]}` or `{"anyOf": [{"const", "title"}…]}` (labelled
//!   items have no `type`), with optional `minItems` and `maxItems` (uint64) and a
//!   `default` that is an array of strings.
//!
//! elicit's strict parse accepts these kinds and nothing else.
//!
//! ### F3
//!
//! The client SHOULD check the submitted values before it responds, and the agent
//! SHOULD check them again when the response arrives. elicit's form engine checks each
//! answer as the user sets it, and the typed parse of a response validates the content
//! once more before it builds the value.
//!
//! ### F4
//!
//! A client that handles defaults SHOULD fill each field with its declared `default`
//! before the user edits the form. elicit's form engine pre-fills every valid default.
//!
//! ### F5
//!
//! Form mode MUST NOT be used to ask for secrets or credentials that give access to
//! something or authorize a transaction: passwords, API keys, access or refresh
//! tokens, private keys, recovery codes, payment credentials. Ordinary profile data,
//! such as a name, an email address or a username, is not forbidden by this rule.
//! `#[derive(Elicit)]` refuses such a field at compile time (unless the field states
//! why it is not a secret), and `Elicitor` refuses a schema built at run time that
//! asks for one; URL mode is the way (F6).
//!
//! ### F6
//!
//! Sensitive interactions MUST go through URL mode. When the client has not declared
//! URL mode, the agent MUST NOT fall back to form mode: it uses another secure flow,
//! or the operation fails. elicit offers no way to turn a URL-mode request into a
//! form-mode one.
//!
//! ### F7
//!
//! The agent SHOULD NOT put a clickable URL in any field of a form-mode request.
//! `Elicitor` refuses such a form, its `message` included, unless links were
//! explicitly allowed.
//!
//! ## URL mode (U)
//!
//! ### U1
//!
//! A URL-mode request carries `mode: "url"`, an `elicitationId` string, a `url` that
//! is a URI, a `message`, and a scope (E3).
//!
//! ### U2
//!
//! `accept` on a URL elicitation only means that the user agreed to open the URL. It
//! says nothing about whether the interaction behind the URL has finished. elicit's
//! agent side records it as consent, not as completion.
//!
//! ### U3
//!
//! URL mode does not stand in for authorizing the client to the agent. Credentials or
//! tokens obtained through URL mode MUST NOT be sent back over ACP, and MUST NOT be
//! put into the context of the client or of the model. elicit reads the answer to a
//! URL elicitation without looking at any content.
//!
//! ### U4
//!
//! The agent MUST keep each `elicitationId` distinct from the ids of every other URL
//! elicitation still outstanding on the same agent–client connection. Clients MUST
//! treat the ids as opaque. elicit's URL registry draws each id from 128 random bits,
//! and keeps ids unique across all the connections of an agent.
//!
//! ### U5
//!
//! When the external interaction has finished, the agent MAY send the notification
//! `elicitation/complete` with the params `{"elicitationId"}`. If it does, it MUST
//! send it only to the client that received the original request, and with the
//! original id. elicit's URL registry lets each URL elicitation complete once, on its
//! own connection and for its own user.
//!
//! ### U6
//!
//! A client MUST ignore a completion notification whose id it does not know or has
//! already seen completed. elicit's completion tracker reports such a notification as
//! one to ignore.
//!
//! ## URL safety (S)
//!
//! ### S1
//!
//! The agent MUST NOT put credentials, personal data or anything that grants
//! pre-authenticated access into the URL, and SHOULD use HTTPS everywhere except in
//! development. elicit's URL policy for agents (feature `url`) refuses such URLs, with
//! the reason, before they are sent.
//!
//! ### S2
//!
//! The client MUST NOT fetch the URL in advance, nor open it, unless the user has
//! explicitly agreed, and MUST show the whole URL before asking for that agreement.
//! Nothing in elicit fetches or resolves a URL; the URL review gives the full URL to
//! display.
//!
//! ### S3
//!
//! The client MUST open the URL in a secure context, one in which neither the
//! client's language model nor the agent's can inspect the page or what the user
//! enters there. This is the job of the client application; elicit's example
//! terminal client leaves the page to the user's own browser.
//!
//! ### S4
//!
//! The client SHOULD make the domain stand out, and warn about URLs that are
//! suspicious or ambiguous, domains written in Punycode included. elicit's URL review
//! gives the registrable domain to highlight and the list of warnings.
//!
//! ### S5
//!
//! The client SHOULD NOT make a URL clickable in any field of an elicitation, with one
//! exception: the `url` of a URL-mode request, handled under the rules above. elicit's
//! form engine hands out its texts to be rendered as plain text.
//!
//! ### S6
//!
//! The agent MUST check that the authenticated user who completed the external
//! interaction is the user who started the elicitation. elicit's URL registry refuses
//! a completion for a different user.
//!
//! ## Responses (R)
//!
//! ### R1
//!
//! The client responds with an `action`: `accept` when the user submitted the form or
//! gave consent, `decline` when the user explicitly refused, and `cancel` when the
//! user dismissed the request without deciding.
//!
//! ### R2
//!
//! `content` is optional on `accept`, and leaving it out means the same as `null`.
//! Content only has a meaning with `accept`; with `decline` or `cancel` it is ignored.
//!
//! ### R3
//!
//! The content of an accepted form SHOULD match the requested schema. Its values are
//! strings, integers (int64), numbers (double), booleans and arrays of strings.
//!
//! ### R4
//!
//! When it accepts a URL elicitation, the client normally sends no `content`, since
//! the interaction takes place elsewhere.
//!
//! ### R5
//!
//! The agent MUST NOT take success for granted. It MUST handle `decline`, `cancel` and
//! failure, by degrading safely, by retrying, or by failing the operation that needed
//! the answer. In elicit the typed outcome of a form must be used, has one variant for
//! each of the three actions, and an action elicit does not know is an error, never a
//! success.
//!
//! ## Client user interface (K)
//!
//! ### K1
//!
//! The client MUST make clear which agent is asking, MUST respect the user's privacy,
//! and MUST give the user explicit controls to decline and to cancel. elicit's form
//! engine carries the identity of the agent, and declining or cancelling is always
//! possible.
//!
//! ### K2
//!
//! In form mode, the client MUST let the user look over the answers, and change them,
//! before they are sent. elicit's form engine gives a review of every answer.
//!
//! ### K3
//!
//! In URL mode, the client MUST show the host the URL leads to, and get the user's
//! consent before navigating there. elicit's URL review gives the host to show.
//!
//! ### K4
//!
//! The client SHOULD display the request's `message`, so that the user understands
//! what is asked and why.
//!
//! ## Validation semantics (V)
//!
//! Content is valid exactly when a JSON Schema 2020-12 validator, with format
//! assertion turned on, finds it valid against the same schema. In particular:
//!
//! ### V1
//!
//! `minLength` and `maxLength` count Unicode code points, neither bytes nor UTF-16
//! code units.
//!
//! ### V2
//!
//! An `integer` property accepts any number whose fractional part is zero: `3.0` is an
//! integer.
//!
//! ### V3
//!
//! A `number` property accepts integers too.
//!
//! ### V4
//!
//! `pattern` is an ECMA-262 regular expression searched for anywhere in the string.
//! It is not anchored: it need not match the whole value.
//!
//! ### V5
//!
//! Content may hold keys that `properties` does not list, unless a caller asks for
//! strictness. Each name in `required` has to be present, and a `null` does not count
//! as present, since `null` is not a valid primitive value.
//!
//! ### V6
//!
//! A multi-select array may hold the same value more than once unless the schema
//! forbids it, and every item has to be one of the options.
//!
//! ### V7
//!
//! Formats are checked: `email` is a mailbox as defined by RFC 5321, `uri` an absolute
//! URI as defined by RFC 3986, `date` a full-date and `date-time` a date-time as
//! defined by RFC 3339.
//!
//! ## The MCP dialect (M)
//!
//! ACP took its elicitation data model from MCP. An agent that speaks MCP as well
//! meets the following differences, against MCP 2025-11-25 unless stated otherwise
//! (see [MCP's elicitation page](https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation)).
//!
//! ### M1
//!
//! MCP's `elicitation/create` has no scope members (`sessionId`, `requestId`), and a
//! form request may leave `mode` out.
//!
//! ### M2
//!
//! In MCP, an empty `elicitation: {}` capability declares form mode only (see C5).
//!
//! ### M3
//!
//! MCP calls the completion notification `notifications/elicitation/complete`.
//!
//! ### M4
//!
//! An MCP server that first needs the user to go through a URL elicitation says so
//! with the JSON-RPC error `-32042`.
//!
//! ### M5
//!
//! MCP still has an older form of the titled single choice: `enum` together with
//! `enumNames`. It is read as a titled choice, and never written into an ACP message.
//! In elicit the lenient parse reads it and the strict parse refuses it.
//!
//! ### M6
//!
//! MCP 2026-07-28 carries `elicitation/create` only inside
//! `InputRequiredResult.inputRequests`, under keys the server chooses, and the answers
//! come back in `inputResponses`. Its URL params have no `elicitationId`, there is no
//! completion notification and no `-32042` error, and the client's capabilities
//! travel with each request in `_meta["io.modelcontextprotocol/clientCapabilities"]`;
//! when they are missing, the error is `-32021`.
//!
//! ### M7
//!
//! MCP's schema has no `pattern`. The MCP version of a form schema leaves it out, and
//! the agent still enforces the pattern when it validates the answer.
//!
//! ## Decisions where the spec is silent (D)
//!
//! The protocol leaves the following points open. elicit settles them this way, on
//! the agent side and on the client side alike.
//!
//! ### D1
//!
//! A request with both scopes, or with neither, is invalid: an agent cannot build one,
//! and a client answers one with `-32602`. `toolCallId` is allowed only together with
//! `sessionId`.
//!
//! ### D2
//!
//! A `required` entry that names a property the schema does not define is a schema
//! error.
//!
//! ### D3
//!
//! A property that has both `enum` and `oneOf` is a schema error.
//!
//! ### D4
//!
//! An empty `enum`, `oneOf`, `items.enum` or `items.anyOf` is a schema error, and so is
//! an option value that appears more than once.
//!
//! ### D5
//!
//! An integer property accepts numbers whose fractional part is zero (V2), and the
//! typed parse converts them to integers. A value outside the range of the Rust type
//! is a validation error: it never wraps around and never panics.
//!
//! ### D6
//!
//! Lengths are counted in Unicode scalar values, which for any text a Rust string can
//! hold are its code points (V1).
//!
//! ### D7
//!
//! A `format` other than the four of F2 is refused by the strict parse, so what elicit
//! writes only ever uses those four. The lenient parse, which a client uses, keeps it
//! as an annotation that is not enforced.
//!
//! ### D8
//!
//! A `pattern` the regular expression engine cannot compile, such as one with
//! look-around or back-references, is refused by the strict parse, which gives the
//! reason; the lenient parse keeps it without enforcing it and reports that it does
//! so. Matching takes time linear in the input and is bounded in size, so no pattern
//! an agent sends can make a client hang.
//!
//! ### D9
//!
//! Validation allows content keys the schema does not define (V5). The typed parse
//! ignores them, unless the type asks for unknown fields to be refused.
//!
//! ### D10
//!
//! A `null` that is present is not a value: it is invalid for every property, the
//! optional ones included. An optional field is left empty by leaving its key out.
//!
//! ### D11
//!
//! A `default` has to be valid for its own property: its type, bounds, length, options
//! and format. The `default` of a multi-select also respects `minItems` and
//! `maxItems`.
//!
//! ### D12
//!
//! Limits against abuse have safe defaults that can be configured: the number of
//! properties and of options, the size of strings and of patterns, the nesting depth
//! of incoming JSON. Going past a limit gives a clear error, never a crash and never an
//! unbounded allocation.
//!
//! ### D13
//!
//! Field order is kept from end to end: the order of declaration in Rust, the order of
//! properties on the wire, and the order in which a client shows the fields.
//!
//! ### D14
//!
//! In the lenient parse, a malformed cosmetic member (`title`, `description`, `_meta`)
//! is read as absent, as C6 does for capabilities. A malformed constraint is an error
//! in both parses.

/// One rule: its id ("F5") and a short title ("form mode never asks for a secret").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rule {
    id: &'static str,
    title: &'static str,
}

impl Rule {
    const fn new(id: &'static str, title: &'static str) -> Self {
        Rule { id, title }
    }

    /// The id, as the documentation and messages cite it: "F5".
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// The short title: "form mode never asks for a secret".
    pub fn title(&self) -> &'static str {
        self.title
    }

    /// "see F5 (form mode never asks for a secret)", as messages cite it.
    pub fn cite(&self) -> String {
        format!("see {} ({})", self.id, self.title)
    }
}

const RULES: &[Rule] = &[
    Rule::new("C1", "a client declares its modes in `initialize`"),
    Rule::new("C2", "no `elicitation` member means no elicitation"),
    Rule::new("C3", "a mode is supported only when its member is present"),
    Rule::new("C4", "a capability may declare no mode at all"),
    Rule::new(
        "C5",
        "an empty ACP capability declares no mode, unlike MCP's",
    ),
    Rule::new("C6", "a malformed capability member reads as absent"),
    Rule::new("C7", "an agent asks only in a mode the client declared"),
    Rule::new("C8", "a client answers an undeclared mode with `-32602`"),
    Rule::new("E1", "an elicitation is an `elicitation/create` request"),
    Rule::new("E2", "`mode` is required: `form` or `url`"),
    Rule::new("E3", "the scope is a session or a request, in the params"),
    Rule::new("E4", "every request carries a message for the person"),
    Rule::new(
        "E5",
        "an elicitation belongs to its connection and its user",
    ),
    Rule::new("E6", "an unknown mode or kind is kept, never guessed at"),
    Rule::new("E7", "`_meta` is kept and never interpreted"),
    Rule::new("F1", "a form is one flat object schema"),
    Rule::new("F2", "each property is a primitive of a known kind"),
    Rule::new("F3", "answers are checked on both sides"),
    Rule::new("F4", "defaults are pre-filled"),
    Rule::new("F5", "form mode never asks for a secret"),
    Rule::new("F6", "secrets go through URL mode"),
    Rule::new("F7", "no clickable URL in a form"),
    Rule::new("U1", "a URL request carries its id, URL, message and scope"),
    Rule::new("U2", "accepting a URL is consent, not completion"),
    Rule::new(
        "U3",
        "nothing obtained through the URL comes back over the protocol",
    ),
    Rule::new("U4", "URL elicitation ids are unique and opaque"),
    Rule::new(
        "U5",
        "a completion goes only to the connection that was asked",
    ),
    Rule::new("U6", "a client ignores unknown and repeated completions"),
    Rule::new("S1", "no credentials or personal data in a URL, and HTTPS"),
    Rule::new("S2", "a URL is shown whole and opened only on consent"),
    Rule::new("S3", "a URL is opened in a secure context"),
    Rule::new("S4", "the domain stands out, with warnings"),
    Rule::new("S5", "no clickable URL but a URL request's own"),
    Rule::new("S6", "the user who completes is the user who was asked"),
    Rule::new("R1", "the answer is accept, decline or cancel"),
    Rule::new("R2", "content means something only with accept"),
    Rule::new("R3", "accepted content matches the schema"),
    Rule::new("R4", "an accepted URL request carries no content"),
    Rule::new("R5", "decline, cancel and failure are handled"),
    Rule::new("K1", "the person sees who asks and can decline or cancel"),
    Rule::new("K2", "answers are reviewed before they are sent"),
    Rule::new("K3", "the host is shown before a URL is opened"),
    Rule::new("K4", "the request's message is shown"),
    Rule::new("V1", "lengths count code points"),
    Rule::new("V2", "an integer may be written `3.0`"),
    Rule::new("V3", "a number accepts integers"),
    Rule::new("V4", "a pattern is searched for, not anchored"),
    Rule::new("V5", "required keys are present and not `null`"),
    Rule::new("V6", "multi-select items are options, repeats allowed"),
    Rule::new("V7", "formats are checked"),
    Rule::new("M1", "MCP requests have no scope"),
    Rule::new("M2", "an empty MCP capability means form mode"),
    Rule::new(
        "M3",
        "MCP's completion is `notifications/elicitation/complete`",
    ),
    Rule::new("M4", "MCP's `-32042` asks for a URL elicitation first"),
    Rule::new("M5", "MCP's `enumNames` is read, never written"),
    Rule::new("M6", "MCP 2026-07-28 asks inside `InputRequiredResult`"),
    Rule::new("M7", "MCP's schema has no `pattern`: the agent enforces it"),
    Rule::new("D1", "a request has exactly one scope"),
    Rule::new("D2", "`required` names defined properties only"),
    Rule::new("D3", "`enum` and `oneOf` together are an error"),
    Rule::new("D4", "options are not empty and not repeated"),
    Rule::new("D5", "integers are range-checked, never wrapped"),
    Rule::new("D6", "lengths are counted in Unicode scalar values"),
    Rule::new("D7", "only the four formats are written"),
    Rule::new("D8", "a pattern the engine cannot compile is refused"),
    Rule::new("D9", "content keys the schema does not define are allowed"),
    Rule::new("D10", "a present `null` is never a value"),
    Rule::new("D11", "a default is valid for its own property"),
    Rule::new("D12", "limits against abuse, with safe defaults"),
    Rule::new("D13", "field order is kept end to end"),
    Rule::new(
        "D14",
        "a malformed cosmetic member reads as absent when lenient",
    ),
];

/// Every rule of this page, in its order.
pub fn all() -> &'static [Rule] {
    RULES
}

/// The rule with this id ("F5"; case does not matter), if there is one.
pub fn get(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|rule| rule.id.eq_ignore_ascii_case(id))
}

/// The short title of the rule with this id ("F5"), if there is one.
pub fn title(id: &str) -> Option<&'static str> {
    get(id).map(Rule::title)
}

/// The citation of a rule as messages give it: `cite("F5")` is "see F5 (form mode
/// never asks for a secret)". An id this page does not have is cited bare ("see X9").
pub fn cite(id: &str) -> String {
    match get(id) {
        Some(rule) => rule.cite(),
        None => format!("see {id}"),
    }
}

/// Several citations in one: `cite_each(&["F5", "F6"])` is "see F5 (form mode never
/// asks for a secret) and F6 (secrets go through URL mode)".
pub fn cite_each(ids: &[&str]) -> String {
    let mut out = String::from("see ");
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == ids.len() { " and " } else { ", " });
        }
        match get(id) {
            Some(rule) => {
                out.push_str(rule.id);
                out.push_str(" (");
                out.push_str(rule.title);
                out.push(')');
            }
            None => out.push_str(id),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `### ID` heading of this page has a title, in the page's order, and no
    /// title names a rule the page does not state.
    #[test]
    fn every_rule_of_the_page_has_a_title_and_only_those() {
        let page = include_str!("rules.rs");
        let headings: Vec<&str> = page
            .lines()
            .filter_map(|line| line.strip_prefix("//! ### "))
            .map(str::trim)
            .collect();
        let ids: Vec<&str> = all().iter().map(Rule::id).collect();
        assert_eq!(headings, ids);
        assert!(all().iter().all(|rule| !rule.title().is_empty()
            && !rule.title().ends_with('.')
            && rule.title().len() < 70));
    }

    #[test]
    fn a_citation_carries_the_id_and_its_words() {
        assert_eq!(cite("F5"), "see F5 (form mode never asks for a secret)");
        assert_eq!(cite("d13"), "see D13 (field order is kept end to end)");
        assert_eq!(cite("Z1"), "see Z1");
        assert_eq!(
            cite_each(&["F5", "F6", "F7"]),
            "see F5 (form mode never asks for a secret), F6 (secrets go through URL mode) \
             and F7 (no clickable URL in a form)"
        );
        assert_eq!(title("Z1"), None);
    }
}
