// The person's side of the three-hop tests (tests/examples/three_hops.rs) and of the
// proxy tests (tests/examples/acp_proxy.rs): the official ACP TypeScript client
// (@agentclientprotocol/sdk, ACP v1 with its unstable elicitation methods) that starts an
// ACP agent (acp_mcp_agent hosting an MCP server, or acp_proxy in front of acp_agent),
// opens a session, sends prompts, and answers each `elicitation/create` as the person
// would, from a script.
//
//   node hop_client.mjs SCRIPT_JSON -- AGENT ARGS...
//
// SCRIPT_JSON: {
//   "capabilities": the clientCapabilities sent in `initialize`,
//   "prompts": ["call hop_form", ...], sent one after the other,
//   "answers": the answers to the elicitations, in order, each one of
//       {"action": ..., "content": ...}   answered as it is;
//       {"cancel_session": true}          `session/cancel` sent, the request held until
//                                         the agent withdraws it ($/cancel_request);
//       {"hold": true}                    held until the agent withdraws it.
// }
//
// Prints one JSON line per event: {"dir": "in"|"out", "message": …} for every message
// on the ACP wire (as the SDK read or wrote it), {"elicited": params, "id": …},
// {"withdrawn": id} when the agent withdrew a request, {"completed": params} for
// `elicitation/complete`, {"initialized": result}, {"session": id}, and {"response": {"prompt", "result"
// | "error"}} for each prompt.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const separator = process.argv.indexOf("--");
if (separator !== 3 || process.argv.length < 5) {
  console.error("usage: node hop_client.mjs SCRIPT_JSON -- AGENT ARGS...");
  process.exit(2);
}
const script = JSON.parse(process.argv[2]);
const [command, ...args] = process.argv.slice(separator + 1);
const print = (line) => process.stdout.write(JSON.stringify(line) + "\n");
// Every wait is bounded: a hang ends the run (and fails the test) instead of blocking.
const LIMIT_MS = 20000;

const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const wire = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const stream = {
  readable: wire.readable.pipeThrough(
    new TransformStream({
      transform(message, controller) {
        print({ dir: "in", message });
        controller.enqueue(message);
      },
    }),
  ),
  writable: new WritableStream({
    async write(message) {
      print({ dir: "out", message });
      const writer = wire.writable.getWriter();
      try {
        await writer.write(message);
      } finally {
        writer.releaseLock();
      }
    },
    async close() {
      await wire.writable.close();
    },
  }),
};

const answers = [...(script.answers ?? [])];
let sessionId;

/// Resolves when `signal` aborts (true), or after LIMIT_MS (false).
const aborted = (signal) =>
  new Promise((resolve) => {
    if (signal.aborted) {
      resolve(true);
      return;
    }
    const timer = setTimeout(() => resolve(false), LIMIT_MS);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });

const app = acp
  .client()
  .onRequest("elicitation/create", async ({ params, signal, requestId, agent }) => {
    print({ elicited: params, id: requestId });
    const answer = answers.shift();
    if (answer === undefined) {
      throw new Error("the script has no answer left for this elicitation");
    }
    if (answer.cancel_session || answer.hold) {
      if (answer.cancel_session) {
        await agent.notify("session/cancel", { sessionId });
      }
      if (await aborted(signal)) {
        print({ withdrawn: requestId });
      } else {
        print({ not_withdrawn: requestId });
      }
      return { action: "cancel" };
    }
    return answer;
  })
  .onNotification("elicitation/complete", ({ params }) => {
    print({ completed: params });
  })
  .onNotification("session/update", () => {});

const connection = app.connect(stream);
const agent = connection.agent;
const timeout = setTimeout(() => {
  print({ timeout: LIMIT_MS * 3 });
  child.kill();
  process.exit(3);
}, LIMIT_MS * 3);

const initialized = await agent.request("initialize", {
  protocolVersion: 1,
  clientCapabilities: script.capabilities ?? {},
  clientInfo: { name: "elicit-hop-client", version: "1.0.0" },
});
print({ initialized });
({ sessionId } = await agent.request("session/new", { cwd: process.cwd(), mcpServers: [] }));
print({ session: sessionId });
for (const text of script.prompts ?? []) {
  try {
    const result = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    print({ response: { prompt: text, result } });
  } catch (error) {
    print({ response: { prompt: text, error: { code: error.code, message: String(error.message) } } });
  }
}
// A completion may follow the turn's answer: give it a moment to arrive.
await new Promise((resolve) => setTimeout(resolve, 300));
clearTimeout(timeout);
connection.close();
child.stdin.end();
const exited = new Promise((resolve) => child.on("exit", resolve));
const killer = setTimeout(() => child.kill(), 5000);
await exited;
clearTimeout(killer);
