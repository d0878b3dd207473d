// The same client as client.mjs on the official TypeScript v2 client package
// (@modelcontextprotocol/client 2.x), pinned to protocol 2026-07-28: no initialize,
// `server/discover`, per-request `_meta`, and the server's questions arriving inside
// `input_required` results, which the SDK fulfils through the same elicitation handler
// and retries with `inputResponses` and the echoed `requestState`.
//
//   node client_v2.mjs SCRIPT_JSON -- COMMAND ARGS...
//
// Prints the same JSON lines as client.mjs.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const separator = process.argv.indexOf("--");
if (separator !== 3 || process.argv.length < 5) {
  console.error("usage: node client_v2.mjs SCRIPT_JSON -- COMMAND ARGS...");
  process.exit(2);
}
const script = JSON.parse(process.argv[2]);
const [command, ...args] = process.argv.slice(separator + 1);
const print = (line) => process.stdout.write(JSON.stringify(line) + "\n");

const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
// Every message, as the transport carries it.
const send = transport.send.bind(transport);
transport.send = async (message, options) => {
  print({ dir: "out", message });
  return send(message, options);
};
const client = new Client(
  { name: "elicit-ts-client-v2", version: "1.0.0" },
  {
    capabilities: { elicitation: { form: {}, url: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    inputRequired: { autoFulfill: true, maxRounds: 10 },
  },
);
let answers = [];
client.setRequestHandler("elicitation/create", async (request) => {
  print({ elicited: request.params });
  const answer = answers.shift();
  if (answer === undefined) {
    throw new Error("the script has no answer left for this elicitation");
  }
  return answer;
});
await client.connect(transport);
const receive = transport.onmessage;
transport.onmessage = (message, extra) => {
  print({ dir: "in", message });
  receive(message, extra);
};
print({ negotiated: client.getNegotiatedProtocolVersion?.() ?? null });

for (const step of script) {
  answers = [...step.answers];
  try {
    const result = await client.callTool({ name: step.tool, arguments: step.arguments ?? {} });
    print({ result: { tool: step.tool, result } });
  } catch (error) {
    print({ result: { tool: step.tool, error: String(error.message ?? error) } });
  }
}
await client.close();
