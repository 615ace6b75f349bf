// Drives examples/acpagent with the official ACP TypeScript SDK, as an
// editor does: it spawns the agent and speaks to it over its stdin and
// stdout, newline-delimited JSON-RPC. With "app" it uses the SDK's client
// app (@agentclientprotocol/sdk 2.x: client().connectWith); with "conn",
// its ClientSideConnection (1.x, the last line that has it). Each step
// prints one JSON line, {"step": ...}, for the Go test to check.
//
//	node client.mjs app|conn AGENT_BINARY DIR
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import path from "node:path";
import * as sdk2 from "@agentclientprotocol/sdk";
import * as sdk1 from "acp-sdk-1";

const [mode, bin, dir] = process.argv.slice(2);
const acp = mode === "app" ? sdk2 : sdk1;
const file = path.join(dir, "notes.txt");
const files = { [file]: "first line\nsecond line\n" };

const print = (step, v) => console.log(JSON.stringify({ step, ...v }));

// The client's side: the updates it was sent, the files it read, the
// permission requests it was asked, and how it answers them.
const seen = { updates: [], read: [], asked: [], aborted: 0 };
let permit = "allow"; // "" holds the request until the turn is cancelled
let releasePermission = () => {};

function onUpdate(params) {
  seen.updates.push(params);
}

function readTextFile(params) {
  seen.read.push(params.path);
  const content = files[params.path];
  if (content === undefined) {
    throw new acp.RequestError(-32002, "Resource not found");
  }
  return { content };
}

// requestPermission answers as permit says; when permit is "" it waits
// until the client cancels the turn (then it answers "cancelled", as ACP
// asks of a client), or the agent cancels the request with
// $/cancel_request (signal, where the SDK gives one).
function requestPermission(params, signal) {
  seen.asked.push(params);
  if (permit !== "") {
    return { outcome: { outcome: "selected", optionId: permit } };
  }
  return new Promise((resolve, reject) => {
    releasePermission = () => resolve({ outcome: { outcome: "cancelled" } });
    signal?.addEventListener("abort", () => {
      seen.aborted++;
      reject(signal.reason);
    });
  });
}

const kinds = (from) =>
  seen.updates
    .slice(from)
    .map((u) => u.update.sessionUpdate + (u.update.status ? ":" + u.update.status : ""));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(cond, what) {
  for (let i = 0; i < 2000 && !cond(); i++) await sleep(5);
  if (!cond()) throw new Error("timed out waiting for " + what);
}

// run is the test, over an agent: initialize, newSession, prompt(params,
// signal) and cancel(params).
async function run(agent) {
  const init = await agent.initialize({
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: false },
    clientInfo: { name: "interop-" + mode, version: "1.0.0" },
  });
  print("initialize", { protocolVersion: init.protocolVersion, agent: init.agentInfo?.name, authMethods: init.authMethods });

  const { sessionId } = await agent.newSession({ cwd: dir, mcpServers: [] });
  print("session", { sessionId });
  const text = (t) => ({ sessionId, prompt: [{ type: "text", text: t }] });

  // A turn that reads a file through the client, with its permission.
  let r = await agent.prompt(text("read notes.txt"));
  const last = seen.updates.at(-1).update;
  print("read", {
    stopReason: r.stopReason,
    updates: kinds(0),
    read: seen.read,
    toolCall: seen.updates[1].update.toolCallId === seen.asked[0].toolCall.toolCallId,
    options: seen.asked[0].options.map((o) => o.kind),
    content: seen.updates[3].update.content?.[0]?.content?.text,
    last: last.content.text,
  });

  // $/cancel_request of a running prompt, through an AbortSignal: the SDK
  // waits for the agent's answer, an error.
  let from = seen.updates.length;
  const ac = new AbortController();
  const p = agent.prompt(text("wait"), ac.signal);
  await until(() => seen.updates.length >= from + 2, "the wait turn's updates");
  const start = performance.now();
  ac.abort();
  try {
    r = await p;
    print("cancel_request", { result: r });
  } catch (e) {
    print("cancel_request", { code: e.code, message: e.message, ms: performance.now() - start });
  }

  // session/cancel while the turn streams.
  from = seen.updates.length;
  let pending = agent.prompt(text("wait"));
  await until(() => seen.updates.length >= from + 2, "the wait turn's updates");
  await agent.cancel({ sessionId });
  r = await pending;
  print("session_cancel", { stopReason: r.stopReason, updates: seen.updates.length - from });

  // session/cancel while the user is asked for permission: the client
  // answers the request "cancelled", and the agent cancels it.
  permit = "";
  const asked = seen.asked.length;
  pending = agent.prompt(text("read notes.txt"));
  await until(() => seen.asked.length > asked, "the permission request");
  await agent.cancel({ sessionId });
  if (mode === "app") {
    // The app gives the handler the request's signal: the agent's
    // $/cancel_request aborts it, and the SDK answers the request.
    await until(() => seen.aborted > 0, "the agent's $/cancel_request");
  } else {
    releasePermission();
  }
  r = await pending;
  print("permission_cancel", { stopReason: r.stopReason, read: seen.read.length, aborted: seen.aborted });

  permit = "allow";
  r = await agent.prompt(text("hello"));
  print("after", { stopReason: r.stopReason, last: seen.updates.at(-1).update.content.text });
}

const child = spawn(bin, [], { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

try {
  if (mode === "app") {
    await acp
      .client({ name: "interop" })
      .onNotification(acp.methods.client.session.update, (ctx) => onUpdate(ctx.params))
      .onRequest(acp.methods.client.session.requestPermission, (ctx) => requestPermission(ctx.params, ctx.signal))
      .onRequest(acp.methods.client.fs.readTextFile, (ctx) => readTextFile(ctx.params))
      .connectWith(stream, (agent) =>
        run({
          initialize: (p) => agent.request(acp.methods.agent.initialize, p),
          newSession: (p) => agent.request(acp.methods.agent.session.new, p),
          prompt: (p, signal) => agent.request(acp.methods.agent.session.prompt, p, { cancellationSignal: signal }),
          cancel: (p) => agent.notify(acp.methods.agent.session.cancel, p),
        }),
      );
  } else {
    const conn = new acp.ClientSideConnection(
      () => ({
        sessionUpdate: async (p) => onUpdate(p),
        requestPermission: async (p) => requestPermission(p),
        readTextFile: async (p) => readTextFile(p),
      }),
      stream,
    );
    await run({
      initialize: (p) => conn.initialize(p),
      newSession: (p) => conn.newSession(p),
      prompt: (p, signal) =>
        signal ? conn.request(acp.AGENT_METHODS.session_prompt, p, { cancellationSignal: signal }) : conn.prompt(p),
      cancel: (p) => conn.cancel(p),
    });
  }
} catch (e) {
  print("error", { message: String(e?.stack ?? e), code: e?.code, data: e?.data });
}
child.stdin.end();
print("exit", await exited);
