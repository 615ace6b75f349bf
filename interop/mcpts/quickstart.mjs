// Drives the README's MCP quick start over Streamable HTTP with
// @modelcontextprotocol/client, the 2.x line of the MCP TypeScript SDK, at
// the version given: "2026-07-28" (pinned: server/discover, then each
// request with its _meta) or "legacy" (the initialize handshake of
// 2025-11-25). It prints one JSON line per step for the Go test that runs
// it (interop/mcpquickstart_test.go) to check.
//
//	node quickstart.mjs http://127.0.0.1:PORT/mcp 2026-07-28
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, mode] = process.argv.slice(2);
if (!url || (mode !== '2026-07-28' && mode !== 'legacy')) {
	console.error('usage: node quickstart.mjs URL 2026-07-28|legacy');
	process.exit(2);
}
const timer = setTimeout(() => {
	console.error('quickstart.mjs: the session did not end within 30 s');
	process.exit(1);
}, 30000);

function out(step, value) {
	console.log(JSON.stringify({ step, ...value }));
}

const client = new Client(
	{ name: 'interop-quickstart', version: '1.0.0' },
	mode === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
);

async function main() {
	await client.connect(new StreamableHTTPClientTransport(new URL(url)));
	out('connect', { version: client.getNegotiatedProtocolVersion(), server: client.getServerVersion() });
	const tools = await client.listTools();
	out('tools', { tools: tools.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema })) });
	const upper = await client.callTool({ name: 'upper', arguments: { text: 'hello, world' } });
	out('upper', { text: upper.content[0]?.text, isError: !!upper.isError });
	const count = await client.callTool({ name: 'count', arguments: { text: 'one two three' } });
	out('count', { structured: count.structuredContent, isError: !!count.isError });
	await client.close();
}

main().then(
	() => {
		clearTimeout(timer);
		process.exit(0);
	},
	(err) => {
		console.error('quickstart.mjs:', err);
		process.exit(1);
	},
);
