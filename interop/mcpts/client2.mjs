// Drives an MCP server over its standard input and output, or over
// Streamable HTTP when given the URL of its endpoint, with
// @modelcontextprotocol/client, the 2.x line of the MCP TypeScript SDK, as
// an agent does, at the version given: "2026-07-28" (pinned: the SDK
// probes with server/discover and then sends each request with its _meta)
// or "legacy" (the SDK's default, the initialize handshake of 2025-11-25).
// It prints one JSON line per step, with what the SDK saw on the wire, for
// the Go test that runs it (interop/mcpts_test.go) to check.
//
//	node client2.mjs path/to/mcpserver 2026-07-28
//	node client2.mjs http://127.0.0.1:PORT/mcp legacy
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [bin, mode] = process.argv.slice(2);
if (!bin || (mode !== '2026-07-28' && mode !== 'legacy')) {
	console.error('usage: node client2.mjs MCPSERVER|URL 2026-07-28|legacy');
	process.exit(2);
}
const modern = mode === '2026-07-28';

// Every step is bounded: the whole session too.
const timer = setTimeout(() => {
	console.error('client2.mjs: the session did not end within 30 s');
	process.exit(1);
}, 30000);

function out(step, value) {
	console.log(JSON.stringify({ step, ...value }));
}

const wire = []; // every message read and written after the connect
const client = new Client(
	{ name: 'interop-ts-client2', version: '1.0.0' },
	{
		capabilities: { elicitation: { form: {} } },
		...(modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
	},
);
const elicited = [];
client.setRequestHandler('elicitation/create', async (request) => {
	elicited.push(request.params.message);
	return { action: 'accept', content: { confirmed: true } };
});
let onUpdate = () => {};
client.setNotificationHandler('notifications/resources/updated', (n) => onUpdate(n.params.uri));

const transport = bin.startsWith('http://')
	? new StreamableHTTPClientTransport(new URL(bin))
	: new StdioClientTransport({ command: bin, args: [], stderr: 'inherit' });

async function main() {
	await client.connect(transport);
	// Watch the session's wire from here on.
	const send = transport.send.bind(transport);
	transport.send = (msg, opts) => {
		wire.push({ out: true, msg });
		return send(msg, opts);
	};
	const onmessage = transport.onmessage;
	transport.onmessage = (msg, extra) => {
		wire.push({ out: false, msg });
		onmessage(msg, extra);
	};
	out('connect', { version: client.getNegotiatedProtocolVersion(), server: client.getServerVersion(), capabilities: client.getServerCapabilities() });

	const tools = await client.listTools();
	out('tools', { names: tools.tools.map((t) => t.name) });

	const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello from TypeScript' } });
	const echoWire = wire.filter((w) => !w.out && w.msg.result && JSON.stringify(w.msg.result).includes('hello from TypeScript'));
	out('echo', { text: echo.content[0]?.text, isError: !!echo.isError, raw: echoWire.map((w) => w.msg.result) });
	const sent = wire.filter((w) => w.out && w.msg.method === 'tools/call');
	out('meta', { meta: sent[0]?.msg.params?._meta ?? null });

	const bad = await client.callTool({ name: 'echo', arguments: { txt: 'x' } });
	out('badargs', { isError: !!bad.isError });

	const reports = [];
	const slept = await client.callTool({ name: 'sleep', arguments: { ms: 1000 } }, { onprogress: (p) => reports.push(p.progress) });
	out('progress', { text: slept.content[0]?.text, reports });

	const abort = new AbortController();
	const began = Date.now();
	setTimeout(() => abort.abort('stopped by the test'), 150);
	try {
		await client.callTool({ name: 'sleep', arguments: { ms: 5000 } }, { signal: abort.signal });
		out('cancel', { ms: Date.now() - began, answered: true });
	} catch (e) {
		const cancels = wire.filter((w) => w.out && w.msg.method === 'notifications/cancelled');
		out('cancel', { ms: Date.now() - began, error: String(e), cancels: cancels.length });
	}

	const confirmed = await client.callTool({ name: 'confirm', arguments: { action: 'delete the draft' } });
	out('confirm', {
		text: confirmed.content[0]?.text,
		elicited,
		inputRequired: wire.filter((w) => !w.out && w.msg.result?.resultType === 'input_required').length,
		retries: wire.filter((w) => w.out && w.msg.params?.inputResponses !== undefined && w.msg.params?.requestState !== undefined).length,
		requests: wire.filter((w) => !w.out && w.msg.method === 'elicitation/create').length,
	});

	const update = new Promise((resolve) => { onUpdate = resolve; });
	let sub;
	if (modern) {
		sub = await client.listen({ resourceSubscriptions: ['note://current'], toolsListChanged: true });
	} else {
		await client.subscribeResource({ uri: 'note://current' });
	}
	await client.callTool({ name: 'note', arguments: { text: 'from TypeScript' } });
	const uri = await update;
	const updates = wire.filter((w) => !w.out && w.msg.method === 'notifications/resources/updated');
	const listens = wire.filter((w) => w.out && w.msg.method === 'subscriptions/listen');
	out('subscribe', {
		honored: sub?.honoredFilter ?? null,
		uri,
		listenId: listens[0]?.msg.id ?? null,
		subscriptionIds: updates.map((w) => w.msg.params?._meta?.['io.modelcontextprotocol/subscriptionId'] ?? null),
	});
	if (sub) {
		await sub.close();
		out('unsubscribe', { closed: await sub.closed });
	}

	const read = await client.readResource({ uri: 'note://current' });
	out('read', { text: read.contents[0]?.text });

	try {
		await client.callTool({ name: 'nope', arguments: {} });
		out('unknown', { answered: true });
	} catch (e) {
		out('unknown', { code: e.code ?? null });
	}

	const results = wire.filter((w) => !w.out && w.msg.result !== undefined);
	out('results', { count: results.length, withResultType: results.filter((w) => w.msg.result.resultType !== undefined).length });

	await client.close();
	clearTimeout(timer);
}

main().catch((e) => {
	console.error('client2.mjs:', e);
	process.exit(1);
});
