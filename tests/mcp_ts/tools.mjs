// The tools of the three-hop tests (tests/examples/three_hops.rs), written once and
// served by both official TypeScript MCP servers: server.mjs (@modelcontextprotocol/sdk
// 1.x, MCP 2025-11-25, the server pushes `elicitation/create` and waits) and
// server_v2.mjs (@modelcontextprotocol/server 2.x, MCP 2026-07-28, the tool answers
// with `input_required` and runs again on the client's retry).
//
// A tool body is ordinary sequential code over `ask(key, request)`: on 2025-11-25 `ask`
// sends the request and waits; on 2026-07-28 it returns the answer the retry carries
// under `key` (or one of an earlier round, kept in `requestState`), and when there is
// none it stops the body and the server answers `input_required` with the request.
//
//   hop_form        one form (a name and an age)
//   hop_twice       asks a name, then a second question that depends on the answer
//   hop_url         a URL consent; on 2025-11-25 then notifications/elicitation/complete
//   hop_wait        a form the server waits for; with {"give_up_ms": N} (2025-11-25) the
//                   server gives up after N ms (the SDK sends notifications/cancelled)
//   hop_pattern     a form with a `pattern` field
//   hop_invalid     a form whose schema a client must refuse (a nested object property)
//   hop_caps        asks nothing: the elicitation capability the server sees
//
// Every tool answers with one JSON text: what it was answered, or the error it got.

export const PROFILE = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 1 },
    age: { type: "integer", title: "Age", minimum: 0, maximum: 150 },
  },
  required: ["name"],
};

export const NAME = {
  type: "object",
  properties: { name: { type: "string", title: "Name", minLength: 1 } },
  required: ["name"],
};

export const confirmSchema = (name) => ({
  type: "object",
  properties: { confirm: { type: "boolean", title: `Send the parcel to ${name}?` } },
  required: ["confirm"],
});

export const PHONE = {
  type: "object",
  properties: {
    phone: {
      type: "string",
      title: "Phone",
      description: "three digits, a dash, four digits",
      pattern: "^[0-9]{3}-[0-9]{4}$",
    },
  },
  required: ["phone"],
};

export const INVALID = {
  type: "object",
  properties: {
    address: { type: "object", properties: { street: { type: "string" } } },
  },
};

export const URL_TARGET = "https://accounts.example.com/connect?state=hop-7f3a";

export const TOOLS = [
  ["hop_form", "Asks one form"],
  ["hop_twice", "Asks a name, then a question that depends on it"],
  ["hop_url", "Asks for consent to open a URL"],
  ["hop_wait", "Asks a form and waits (give_up_ms: gives up after that long)"],
  ["hop_pattern", "Asks a phone number with a pattern"],
  ["hop_invalid", "Asks with a schema a client must refuse"],
  ["hop_caps", "Tells the elicitation capability the server sees"],
].map(([name, description]) => ({
  name,
  description,
  inputSchema: {
    type: "object",
    properties: name === "hop_wait" ? { give_up_ms: { type: "integer" } } : {},
  },
}));

export const isHopTool = (name) => TOOLS.some((tool) => tool.name === name);

const form = (message, requestedSchema) => ({ mode: "form", message, requestedSchema });

/// The tool bodies: `ask(key, request, options)` answers an `elicitation/create`
/// request's params with the client's result; `capabilities()` is what the client
/// declared. Each returns the value the tool answers with (as JSON text).
export const BODIES = {
  async hop_form(ask) {
    const answer = await ask("profile", form("Who are you?", PROFILE));
    return { action: answer.action, content: answer.content ?? null };
  },
  async hop_twice(ask) {
    const first = await ask("name", form("Whom is the parcel for?", NAME));
    if (first.action !== "accept") {
      return { first: first.action };
    }
    const name = first.content.name;
    const second = await ask("confirm", form(`Send it to ${name}?`, confirmSchema(name)));
    return { name, second: second.action, confirm: second.content?.confirm ?? null };
  },
  async hop_url(ask) {
    const answer = await ask("connect", {
      mode: "url",
      message: "Connect your account",
      url: URL_TARGET,
    });
    return { action: answer.action };
  },
  async hop_wait(ask, args) {
    const options = args.give_up_ms ? { timeout: args.give_up_ms } : {};
    const answer = await ask("wait", form("Take your time", NAME), options);
    return { action: answer.action, content: answer.content ?? null };
  },
  async hop_pattern(ask) {
    const answer = await ask("phone", form("Your phone number?", PHONE));
    return { action: answer.action, content: answer.content ?? null };
  },
  async hop_invalid(ask) {
    const answer = await ask("address", form("Where do you live?", INVALID));
    return { action: answer.action, content: answer.content ?? null };
  },
  async hop_caps(_ask, _args, capabilities) {
    return { elicitation: capabilities()?.elicitation ?? null };
  },
};

/// Appends every message of a transport to the file named by ELICIT_MCP_WIRE (one JSON
/// line each, `{"dir": "in"|"out", "message": …}` as the server received or sent it).
export function recordWire(transport) {
  const file = process.env.ELICIT_MCP_WIRE;
  if (!file) {
    return transport;
  }
  return import("node:fs").then(({ appendFileSync }) => {
    const log = (dir, message) =>
      appendFileSync(file, JSON.stringify({ dir, message }) + "\n");
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      log("out", message);
      return send(message, options);
    };
    let receive;
    Object.defineProperty(transport, "onmessage", {
      configurable: true,
      get: () => receive,
      set: (handler) => {
        receive =
          handler &&
          ((message, extra) => {
            log("in", message);
            return handler(message, extra);
          });
      },
    });
    return transport;
  });
}

export const reply = (value) => ({ content: [{ type: "text", text: JSON.stringify(value) }] });

/// An error as the JSON the tools answer with.
export const errorValue = (error) => ({
  error: { code: error?.code ?? null, message: String(error?.message ?? error), data: error?.data ?? null },
});
