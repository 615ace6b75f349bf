// The page's glue: it starts the Go program (app.wasm), then wires the
// buttons to jsonrpcWasm.process and jsonrpcWasm.send. The state of the
// page is in the data-state attribute of #wasm: "loading", "ready" (waiting
// for the reader), "busy" (a request in flight) or "error" (the program did
// not start).
"use strict";

(() => {
  const root = document.getElementById("wasm");
  const $ = (id) => document.getElementById(id);
  const status = $("status");
  const endpoints = { http: "/rpc", ws: "/ws" };

  // show writes a result, or an error in red, to the pre element out.
  const show = (out, text, isError) => {
    out.textContent = text;
    out.classList.toggle("error", Boolean(isError));
  };

  // run shows what the promise of f resolves to in out, keeping the page
  // busy meanwhile.
  const run = async (out, f) => {
    root.dataset.state = "busy";
    try {
      const response = await f();
      show(out, response === "" ? "(no response: a notification)" : response, false);
    } catch (e) {
      show(out, String(e && e.message ? e.message : e), true);
    } finally {
      root.dataset.state = "ready";
    }
  };

  // serverURL resolves the endpoint against the page's address, with the
  // WebSocket scheme for the ws transport.
  const serverURL = (transport) => {
    const u = new URL($("endpoint").value, location.href);
    if (transport === "ws") u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    return u.href;
  };

  $("transport").addEventListener("change", (ev) => {
    const input = $("endpoint");
    if (Object.values(endpoints).includes(input.value)) input.value = endpoints[ev.target.value];
  });
  $("answer").addEventListener("click", () =>
    run($("answer-out"), () => jsonrpcWasm.process($("request").value)));
  $("send").addEventListener("click", () => {
    const transport = $("transport").value;
    run($("send-out"), () => jsonrpcWasm.send(transport, serverURL(transport), $("request").value));
  });

  window.addEventListener("jsonrpc-wasm-ready", () => {
    $("answer").disabled = false;
    $("send").disabled = false;
    status.textContent = "Ready: the library runs in this page.";
    root.dataset.state = "ready";
  }, { once: true });

  const go = new Go();
  WebAssembly.instantiateStreaming(fetch("app.wasm"), go.importObject)
    .then((result) => go.run(result.instance))
    .catch((e) => {
      status.textContent = "The WebAssembly program did not start: " + e;
      status.classList.add("error");
      root.dataset.state = "error";
      console.error(e);
    });
})();
