// Drives a language server over its standard input and output with
// vscode-jsonrpc, the JSON-RPC library of Visual Studio Code's language
// client, as an editor does: initialize, didOpen, hover, workspace/symbol
// with partial results, a command with
// work-done progress, a command cancelled through a CancellationToken,
// shutdown and exit. It prints one JSON line per step, for the Go test that
// runs it (interop/lsp_test.go) to check.
//
//	node client.js path/to/langserver
'use strict';

const { spawn } = require('node:child_process');
const rpc = require('vscode-jsonrpc/node');

const bin = process.argv[2];
if (!bin) {
	console.error('usage: node client.js LANGSERVER');
	process.exit(2);
}

// Every step is bounded: the whole session too.
const timer = setTimeout(() => {
	console.error('client.js: the session did not end within 20 s');
	process.exit(1);
}, 20000);

const child = spawn(bin, [], { stdio: ['pipe', 'pipe', 'inherit'] });
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
const conn = rpc.createMessageConnection(
	new rpc.StreamMessageReader(child.stdout),
	new rpc.StreamMessageWriter(child.stdin),
);
conn.listen();

function out(step, value) {
	console.log(JSON.stringify({ step, ...value }));
}

const uri = 'file:///notes/main.txt';

async function main() {
	const init = await conn.sendRequest('initialize', {
		processId: process.pid,
		rootUri: null,
		clientInfo: { name: 'vscode-jsonrpc' },
		capabilities: { window: { workDoneProgress: true } },
	});
	out('initialize', { result: init });
	await conn.sendNotification('initialized', {});

	await conn.sendNotification('textDocument/didOpen', {
		textDocument: { uri, languageId: 'plaintext', version: 1, text: 'let größe = 42 // 日本語\n' },
	});
	for (const character of [6, 19]) {
		const hover = await conn.sendRequest('textDocument/hover', {
			textDocument: { uri },
			position: { line: 0, character },
		});
		out('hover', { character, result: hover });
	}

	// workspace/symbol with partial results on a token of the client's:
	// the symbols arrive in $/progress batches, and the answer is empty.
	const partialType = new rpc.ProgressType();
	const partial = [];
	const psub = conn.onProgress(partialType, 'symbols-e', (batch) => partial.push(...batch));
	const symbols = await conn.sendRequest('workspace/symbol', { query: 'e', partialResultToken: 'symbols-e' });
	psub.dispose();
	out('symbols', { result: symbols, partial: partial.map((s) => `${s.name}@${s.location.range.start.character}`) });

	// A command with work-done progress on a token of the client's.
	const progress = new rpc.ProgressType();
	const kinds = [];
	const sub = conn.onProgress(progress, 'wait-300', (value) => kinds.push(value.kind));
	const waited = await conn.sendRequest('workspace/executeCommand', {
		command: 'wait',
		arguments: [300],
		workDoneToken: 'wait-300',
	});
	sub.dispose();
	out('progress', { result: waited, kinds });

	// A command cancelled through a CancellationToken after 150 ms:
	// vscode-jsonrpc sends $/cancelRequest, and the call ends with the
	// server's answer.
	const source = new rpc.CancellationTokenSource();
	const began = Date.now();
	setTimeout(() => source.cancel(), 150);
	try {
		const result = await conn.sendRequest('workspace/executeCommand', {
			command: 'wait',
			arguments: [5000],
		}, source.token);
		out('cancel', { result, ms: Date.now() - began });
	} catch (e) {
		out('cancel', { code: e.code, message: e.message, ms: Date.now() - began });
	}

	const shutdown = await conn.sendRequest('shutdown');
	out('shutdown', { result: shutdown === undefined ? 'undefined' : shutdown });
	await conn.sendNotification('exit');
	const { code, signal } = await exited;
	out('exit', { code, signal });
	conn.dispose();
	clearTimeout(timer);
}

main().catch((e) => {
	console.error('client.js:', e);
	process.exit(1);
});
