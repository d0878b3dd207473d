// An MCP server on the official TypeScript v2 server package (@modelcontextprotocol/server
// 2.x) over stdio, for tests/examples/three_hops.rs: the tools of tools.mjs, the same
// bodies as server.mjs serves on 2025-11-25.
//
// On MCP 2026-07-28 a server pushes nothing: a tool that needs the person answers
// `input_required` with its question under a key, and the client calls again with
// `inputResponses` (the answers by key) and the `requestState` the server gave. Here each
// tool body runs again from the start on every round; its earlier answers come back in
// `requestState` (plain JSON: this test server trusts its client, a real server must
// protect the state, as the SDK's docs say), the new ones in `inputResponses`, and the
// first question without an answer becomes the next round's input request.
//
// A 2025-era opening (`initialize`) is served too (serveStdio's default), the questions
// pushed with the SDK's `elicitInput`.
//
// With ELICIT_MCP_WIRE set, every message the server receives and sends is appended to
// that file.
import {
  CLIENT_CAPABILITIES_META_KEY,
  Server,
  inputRequired,
} from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { BODIES, TOOLS, errorValue, recordWire, reply } from "./tools.mjs";

/// Thrown by `ask` when the round has no answer for the question: the round's answer
/// is then `input_required` with it.
class NeedInput {
  constructor(key, params) {
    this.key = key;
    this.params = params;
  }
}

/// The embedded `elicitation/create` of an input request.
function inputRequest(params) {
  if (params.mode === "url") {
    const { mode: _mode, ...rest } = params;
    return inputRequired.elicitUrl(rest);
  }
  try {
    return inputRequired.elicit(params);
  } catch {
    // A schema the builder will not write (the invalid one): as a hand-built literal,
    // which the spec allows; the client is what must refuse it.
    return { method: "elicitation/create", params };
  }
}

async function callTool(server, request, ctx) {
  const name = request.params.name;
  const body = BODIES[name];
  if (!body) {
    return reply(errorValue({ code: -32602, message: `unknown tool ${name}` }));
  }
  const args = request.params.arguments ?? {};
  const capabilities = () =>
    ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities();
  const modern = ctx.mcpReq.envelope !== undefined;
  if (!modern) {
    // 2025 era: pushed and awaited.
    const ask = (_key, params, options = {}) => ctx.mcpReq.elicitInput(params, options);
    try {
      return reply(await body(ask, args, capabilities));
    } catch (error) {
      return reply(errorValue(error));
    }
  }
  const state = ctx.mcpReq.requestState();
  const answers = { ...(state ? JSON.parse(state) : {}), ...(ctx.mcpReq.inputResponses ?? {}) };
  const ask = async (key, params) => {
    if (key in answers) {
      return answers[key];
    }
    throw new NeedInput(key, params);
  };
  try {
    return reply(await body(ask, args, capabilities));
  } catch (error) {
    if (error instanceof NeedInput) {
      return inputRequired({
        inputRequests: { [error.key]: inputRequest(error.params) },
        requestState: JSON.stringify(answers),
      });
    }
    return reply(errorValue(error));
  }
}

serveStdio(
  () => {
    const server = new Server(
      { name: "elicit-ts-test-server-v2", version: "1.0.0" },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler("tools/list", async () => ({ tools: TOOLS }));
    server.setRequestHandler("tools/call", (request, ctx) => callTool(server, request, ctx));
    return server;
  },
  { transport: await recordWire(new StdioServerTransport()) },
);
