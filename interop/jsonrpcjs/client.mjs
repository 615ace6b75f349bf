// Drives cmd/jsonrpcd with the npm package json-rpc-2.0, as a Node program
// would: its JSONRPCClient over HTTP with fetch, then its two-way
// JSONRPCServerAndClient over a TCP connection, one message per line.
// Usage: node client.mjs HTTP_URL TCP_HOST:PORT. Each step prints one line
// of JSON, {"step": name, ...}, for the Go test to check.
import net from "node:net";
import {
  JSONRPCClient,
  JSONRPCServer,
  JSONRPCServerAndClient,
  createJSONRPCRequest,
  createJSONRPCNotification,
} from "json-rpc-2.0";

const [httpURL, tcpAddr] = process.argv.slice(2);
const out = (step, fields) => console.log(JSON.stringify({ step, ...fields }));
const failure = (e) => ({ code: e.code, message: e.message, data: e.data });

// Over HTTP: one POST a request, notification or batch; lastPost is the
// one under way (notify does not return it).
let lastPost;
const http = new JSONRPCClient((payload) => {
  lastPost = (async () => {
    const res = await fetch(httpURL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
    });
    const text = await res.text();
    if (text.length > 0) {
      http.receive(JSON.parse(text));
    }
    return { status: res.status, body: text };
  })();
  return lastPost;
});

out("add", { result: await http.request("add", [1, 2]) });
out("subtract", { result: await http.request("subtract", { minuend: 42, subtrahend: 23 }) });
try {
  await http.request("nope", [1]);
  out("nope", { result: "answered" });
} catch (e) {
  out("nope", { error: failure(e) });
}
const batch = await http.requestAdvanced([
  createJSONRPCRequest(10, "add", [2, 2]),
  createJSONRPCNotification("add", [0, 0]),
  createJSONRPCRequest(11, "subtract", { minuend: 1 }),
]);
out("batch", { responses: batch.sort((a, b) => a.id - b.id) });
http.notify("add", [5, 5]);
out("notify", await lastPost);

// Over TCP: both ends call, one line a message.
const [host, port] = tcpAddr.split(":");
const sock = net.connect({ host, port: Number(port) });
await new Promise((resolve, reject) => {
  sock.once("connect", resolve);
  sock.once("error", reject);
});
const peer = new JSONRPCServerAndClient(
  new JSONRPCServer(),
  new JSONRPCClient((payload) => {
    sock.write(JSON.stringify(payload) + "\n");
  }),
);
const pushed = [];
let pushedOne;
peer.addMethod("subscription", (params) => {
  pushed.push(params);
  pushedOne?.();
});
peer.addMethod("echo", (params) => ({ echoed: params }));
let rest = "";
sock.setEncoding("utf8");
sock.on("data", (chunk) => {
  rest += chunk;
  let nl;
  while ((nl = rest.indexOf("\n")) >= 0) {
    const line = rest.slice(0, nl);
    rest = rest.slice(nl + 1);
    if (line.trim() !== "") {
      peer.receiveAndSend(JSON.parse(line));
    }
  }
});

const sub = await peer.request("subscribe");
const delivered = new Promise((resolve) => {
  pushedOne = resolve;
});
const queued = await peer.request("publish", { s: "héllo", n: 2 });
await delivered;
out("subscription", { id: sub, queued, pushed });
out("callback", { result: await peer.request("callback", { method: "echo", params: { x: [1, 2] } }) });
out("unsubscribe", { result: await peer.request("unsubscribe", { id: sub }) });
sock.end();
