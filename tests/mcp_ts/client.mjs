// An MCP client on the official TypeScript SDK (@modelcontextprotocol/sdk 1.x, protocol
// 2025-11-25) over stdio, for tests/examples/mcp_server_ts.rs: it starts the server
// command it is given, calls the tools the script names and answers each elicitation
// with the next answer of that call's script, as a person would through the SDK's
// handler. The SDK itself checks each request it gets and each answer it gives.
//
//   node client.mjs SCRIPT_JSON -- COMMAND ARGS...
//
// SCRIPT_JSON: [{ "tool": NAME, "arguments": {...}, "answers": [ElicitResult...] }...]
// Prints one JSON line per message on the wire ({"dir":"in"|"out","message":...}), one
// {"elicited": params} per elicitation the handler saw, one {"completed": id} per
// completion notification, and one {"result": {tool, result | error}} per call.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const separator = process.argv.indexOf("--");
if (separator !== 3 || process.argv.length < 5) {
  console.error("usage: node client.mjs SCRIPT_JSON -- COMMAND ARGS...");
  process.exit(2);
}
const script = JSON.parse(process.argv[2]);
const [command, ...args] = process.argv.slice(separator + 1);
const print = (line) => process.stdout.write(JSON.stringify(line) + "\n");

const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client(
  { name: "elicit-ts-client", version: "1.0.0" },
  { capabilities: { elicitation: { form: {}, url: {} } } },
);

let answers = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  print({ elicited: request.params });
  const answer = answers.shift();
  if (answer === undefined) {
    throw new Error("the script has no answer left for this elicitation");
  }
  return answer;
});
const completions = [];
client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (notification) => {
  completions.push(notification.params.elicitationId);
  print({ completed: notification.params.elicitationId });
});

await client.connect(transport);
// Every message, as the transport carries it, once connected (the handshake included
// is not needed for the elicitation checks).
const send = transport.send.bind(transport);
transport.send = async (message) => {
  print({ dir: "out", message });
  return send(message);
};
const receive = transport.onmessage;
transport.onmessage = (message) => {
  print({ dir: "in", message });
  receive(message);
};

for (const step of script) {
  answers = [...step.answers];
  try {
    const result = await client.callTool({ name: step.tool, arguments: step.arguments ?? {} });
    print({ result: { tool: step.tool, result } });
  } catch (error) {
    print({ result: { tool: step.tool, error: String(error.message ?? error) } });
  }
}
// A completion may trail the tool's result: wait for it, bounded.
for (let i = 0; i < 50 && completions.length === 0 && script.some((s) => s.tool === "connect_account"); i++) {
  await new Promise((done) => setTimeout(done, 20));
}
await client.close();
