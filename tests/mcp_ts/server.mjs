// An MCP server on the official TypeScript SDK (@modelcontextprotocol/sdk 1.x, protocol
// 2025-11-25) over stdio, for tests/integration/rmcp_client_ts.rs. Each tool sends one
// elicitation through the SDK and answers with what it got back, as JSON text: the
// `action` and `content` the SDK handed it (already checked by the SDK against the
// schema it sent), or the JSON-RPC error the client answered with.
//
//   every_kind   a form with every kind of field, with defaults
//   hostile      a form whose message, title and description carry markup and controls
//   invalid      a schema a client must refuse (a nested object property)
//   url          a URL request, then its notifications/elicitation/complete
//   hop_*        the tools of tools.mjs (the three-hop tests), the same on server_v2.mjs
//
// With ELICIT_MCP_WIRE set, every message the server receives and sends is appended to
// that file (tools.mjs's recordWire).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { BODIES, TOOLS as HOP_TOOLS, errorValue, isHopTool, recordWire } from "./tools.mjs";

export const EVERY_KIND = {
  type: "object",
  properties: {
    nickname: {
      type: "string",
      title: "Nickname",
      description: "What we call you",
      minLength: 2,
      maxLength: 20,
      default: "sam",
    },
    email: { type: "string", title: "Email", format: "email" },
    age: { type: "integer", title: "Age", minimum: 0, maximum: 150, default: 30 },
    ratio: { type: "number", title: "Ratio", minimum: 0, maximum: 1, default: 0.5 },
    subscribe: { type: "boolean", title: "Subscribe", default: true },
    color: { type: "string", enum: ["red", "green", "blue"], default: "green" },
    size: {
      type: "string",
      title: "Size",
      oneOf: [
        { const: "s", title: "Small" },
        { const: "m", title: "Medium" },
      ],
      default: "m",
    },
    legacy: { type: "string", enum: ["a", "b"], enumNames: ["Alpha", "Beta"] },
    tags: {
      type: "array",
      items: { type: "string", enum: ["x", "y", "z"] },
      default: ["x"],
    },
    toppings: {
      type: "array",
      title: "Toppings",
      minItems: 1,
      items: {
        anyOf: [
          { const: "ch", title: "Cheese" },
          { const: "ol", title: "Olives" },
        ],
      },
      default: ["ch"],
    },
  },
  required: ["email", "toppings"],
};

export const HOSTILE_MESSAGE = "Sign <script>alert(1)</script>\u001b[2J here\u202e";
export const HOSTILE_TITLE = "<b>Name</b>\u001b[31m red\u0007\u202eevil";
export const HOSTILE_DESCRIPTION = "[click](javascript:alert(1)) <img src=x>\r\nfake line";

const tools = [
  ["every_kind", "Asks a form with every kind of field"],
  ["hostile", "Asks a form whose texts carry markup and control characters"],
  ["invalid", "Asks with a schema a client must refuse"],
  ["url", "Asks for a URL interaction, then reports it complete"],
].map(([name, description]) => ({
  name,
  description,
  inputSchema: { type: "object", properties: {} },
}));

const server = new Server(
  { name: "elicit-ts-test-server", version: "1.0.0" },
  { capabilities: { tools: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [...tools, ...HOP_TOOLS],
}));

let nextUrlId = 0;

/// A tool of tools.mjs on 2025-11-25: each ask is pushed to the client and awaited.
async function hopTool(name, args) {
  const ask = async (_key, params, options = {}) => {
    if (params.mode === "url") {
      nextUrlId += 1;
      const elicitationId = `hop-url-${nextUrlId}`;
      const result = await server.elicitInput({ ...params, elicitationId }, options);
      if (result.action === "accept") {
        await server.createElicitationCompletionNotifier(elicitationId)();
      }
      return result;
    }
    // The plain request (elicitInput would refuse a schema it cannot read before
    // sending it, and the bridge is what must refuse it here).
    return server.request(
      { method: "elicitation/create", params },
      ElicitResultSchema,
      options,
    );
  };
  try {
    return reply(await BODIES[name](ask, args ?? {}, () => server.getClientCapabilities()));
  } catch (error) {
    return reply(errorValue(error));
  }
}

const reply = (value) => ({ content: [{ type: "text", text: JSON.stringify(value) }] });

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (isHopTool(request.params.name)) {
    return hopTool(request.params.name, request.params.arguments);
  }
  try {
    switch (request.params.name) {
      case "every_kind": {
        const result = await server.elicitInput({
          message: "Tell us about yourself",
          requestedSchema: EVERY_KIND,
        });
        return reply({ action: result.action, content: result.content ?? null });
      }
      case "hostile": {
        const result = await server.elicitInput({
          message: HOSTILE_MESSAGE,
          requestedSchema: {
            type: "object",
            properties: {
              name: { type: "string", title: HOSTILE_TITLE, description: HOSTILE_DESCRIPTION },
            },
            required: ["name"],
          },
        });
        return reply({ action: result.action, content: result.content ?? null });
      }
      case "invalid": {
        // Sent with the SDK's plain request: elicitInput would send it the same way.
        const result = await server.request(
          {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: "Where do you live?",
              requestedSchema: {
                type: "object",
                properties: {
                  address: {
                    type: "object",
                    properties: { street: { type: "string" } },
                  },
                },
              },
            },
          },
          ElicitResultSchema,
        );
        return reply({ action: result.action, content: result.content ?? null });
      }
      case "url": {
        const elicitationId = "connect-7f3a";
        const result = await server.elicitInput({
          mode: "url",
          message: "Connect your account",
          url: "https://accounts.example.com/connect?state=7f3a",
          elicitationId,
        });
        if (result.action === "accept") {
          await server.createElicitationCompletionNotifier(elicitationId)();
        }
        return reply({ action: result.action, content: result.content ?? null });
      }
      default:
        throw new McpError(-32602, `unknown tool ${request.params.name}`);
    }
  } catch (error) {
    if (error instanceof McpError) {
      return reply({ error: { code: error.code, message: error.message, data: error.data ?? null } });
    }
    return reply({ error: { code: null, message: String(error) } });
  }
});

await server.connect(await recordWire(new StdioServerTransport()));
