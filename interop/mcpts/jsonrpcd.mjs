// Drives jsonrpcd -mcp over Streamable HTTP, given the URL of its /mcp,
// with @modelcontextprotocol/sdk, the 1.x line of the MCP TypeScript SDK,
// as an agent does: the initialize handshake of 2025-11-25, the demo
// methods as tools, and the feed's notifications on the session's GET
// stream. It prints one JSON line per step for the Go test that runs it
// (interop/jsonrpcd_test.go) to check.
//
//	node jsonrpcd.mjs http://127.0.0.1:PORT/mcp
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = process.argv[2];
if (!url?.startsWith('http://')) {
	console.error('usage: node jsonrpcd.mjs URL');
	process.exit(2);
}

// Every step is bounded: the whole session too.
const timer = setTimeout(() => {
	console.error('jsonrpcd.mjs: the session did not end within 30 s');
	process.exit(1);
}, 30000);

function out(step, value) {
	console.log(JSON.stringify({ step, ...value }));
}

// The GET stream is open once its GET is answered 200: the server makes
// the stream before it answers, and drops a notification outside any call
// while there is none.
let getOpen;
const opened = new Promise((resolve) => { getOpen = resolve; });
const transport = new StreamableHTTPClientTransport(new URL(url), {
	fetch: async (input, init) => {
		const resp = await fetch(input, init);
		if (init?.method === 'GET' && resp.status === 200) getOpen();
		return resp;
	},
});

const client = new Client({ name: 'interop-ts-jsonrpcd', version: '1.0.0' });
// subscription is no MCP notification: the SDK hands it to its fallback.
const notified = [];
let onNotification = () => {};
client.fallbackNotificationHandler = async (n) => {
	notified.push(n);
	onNotification();
};

async function main() {
	await client.connect(transport);
	out('connect', { version: transport.protocolVersion, server: client.getServerVersion(), session: transport.sessionId ?? '' });

	const tools = await client.listTools();
	out('tools', { names: tools.tools.map((t) => t.name), types: tools.tools.map((t) => t.inputSchema?.type ?? null) });

	const sub = await client.callTool({ name: 'subtract', arguments: { minuend: 42, subtrahend: 23 } });
	out('subtract', { text: sub.content[0]?.text, isError: !!sub.isError });

	const failed = await client.callTool({ name: 'subtract', arguments: { minuend: 'x' } });
	out('toolerror', { text: failed.content[0]?.text, isError: !!failed.isError });

	try {
		await client.callTool({ name: 'nope', arguments: {} });
		out('unknown', { answered: true });
	} catch (e) {
		out('unknown', { code: e.code ?? null, error: String(e) });
	}

	const subscribed = await client.callTool({ name: 'subscribe', arguments: {} });
	out('subscribe', { text: subscribed.content[0]?.text, isError: !!subscribed.isError });

	await opened;
	const delivered = new Promise((resolve) => { onNotification = resolve; });
	const published = await client.callTool({ name: 'publish', arguments: { s: 'ab', n: 2 } });
	await delivered;
	out('publish', { text: published.content[0]?.text, isError: !!published.isError, notifications: notified });

	await client.close();
	clearTimeout(timer);
}

main().catch((e) => {
	console.error('jsonrpcd.mjs:', e);
	process.exit(1);
});
