// Drives an MCP server over its standard input and output, or over
// Streamable HTTP when given the URL of its endpoint, with
// @modelcontextprotocol/sdk, the 1.x line of the MCP TypeScript SDK, as an
// agent does. That line speaks up to 2025-11-25 (its LATEST_PROTOCOL_VERSION,
// which its initialize asks for); it has no server/discover and no
// 2026-07-28. It prints one JSON line per step, with what the SDK saw on the
// wire, for the Go test that runs it (interop/mcpts_test.go) to check.
//
//	node sdk1.mjs path/to/mcpserver
//	node sdk1.mjs http://127.0.0.1:PORT/mcp
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const bin = process.argv[2];
if (!bin) {
	console.error('usage: node sdk1.mjs MCPSERVER|URL');
	process.exit(2);
}

// Every step is bounded: the whole session too.
const timer = setTimeout(() => {
	console.error('sdk1.mjs: the session did not end within 30 s');
	process.exit(1);
}, 30000);

function out(step, value) {
	console.log(JSON.stringify({ step, ...value }));
}

const wire = []; // every message read and written
const client = new Client({ name: 'interop-ts-sdk1', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
const elicited = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
	elicited.push(request.params.message);
	return { action: 'accept', content: { confirmed: true } };
});
let onUpdate = () => {};
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => onUpdate(n.params.uri));

const transport = bin.startsWith('http://')
	? new StreamableHTTPClientTransport(new URL(bin))
	: new StdioClientTransport({ command: bin, args: [], stderr: 'inherit' });
// Watch the wire from the start: the Client sets onmessage in connect.
const send = transport.send.bind(transport);
transport.send = (msg, opts) => {
	wire.push({ out: true, msg });
	return send(msg, opts);
};
let handler;
Object.defineProperty(transport, 'onmessage', {
	get: () => handler,
	set: (f) => {
		handler = f && ((msg, extra) => {
			wire.push({ out: false, msg });
			f(msg, extra);
		});
	},
});

async function main() {
	await client.connect(transport);
	const init = wire.find((w) => !w.out && w.msg.result?.protocolVersion !== undefined);
	const asked = wire.find((w) => w.out && w.msg.method === 'initialize');
	out('connect', { latest: LATEST_PROTOCOL_VERSION, asked: asked?.msg.params.protocolVersion, version: init?.msg.result.protocolVersion, server: client.getServerVersion(), discover: wire.filter((w) => w.out && w.msg.method === 'server/discover').length });

	await client.ping();
	out('ping', {});

	const tools = await client.listTools();
	out('tools', { names: tools.tools.map((t) => t.name) });

	const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello from TypeScript' } });
	out('echo', { text: echo.content[0]?.text, isError: !!echo.isError });

	const bad = await client.callTool({ name: 'echo', arguments: { txt: 'x' } });
	out('badargs', { isError: !!bad.isError });

	const reports = [];
	const slept = await client.callTool({ name: 'sleep', arguments: { ms: 1000 } }, undefined, { onprogress: (p) => reports.push(p.progress) });
	out('progress', { text: slept.content[0]?.text, reports });

	const abort = new AbortController();
	const began = Date.now();
	setTimeout(() => abort.abort('stopped by the test'), 150);
	try {
		await client.callTool({ name: 'sleep', arguments: { ms: 5000 } }, undefined, { signal: abort.signal });
		out('cancel', { ms: Date.now() - began, answered: true });
	} catch (e) {
		const cancels = wire.filter((w) => w.out && w.msg.method === 'notifications/cancelled');
		out('cancel', { ms: Date.now() - began, error: String(e), cancels: cancels.length });
	}

	const confirmed = await client.callTool({ name: 'confirm', arguments: { action: 'delete the draft' } });
	out('confirm', { text: confirmed.content[0]?.text, elicited, requests: wire.filter((w) => !w.out && w.msg.method === 'elicitation/create').length });

	const update = new Promise((resolve) => { onUpdate = resolve; });
	await client.subscribeResource({ uri: 'note://current' });
	await client.callTool({ name: 'note', arguments: { text: 'from TypeScript' } });
	out('subscribe', { uri: await update });

	const read = await client.readResource({ uri: 'note://current' });
	out('read', { text: read.contents[0]?.text });

	try {
		await client.callTool({ name: 'nope', arguments: {} });
		out('unknown', { answered: true });
	} catch (e) {
		out('unknown', { code: e.code ?? null });
	}

	await client.close();
	clearTimeout(timer);
}

main().catch((e) => {
	console.error('sdk1.mjs:', e);
	process.exit(1);
});
