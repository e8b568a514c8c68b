// A client of the official TypeScript SDK that starts an MCP server as a
// subprocess with StdioClientTransport, as desktop clients do, and drives
// it: list the tools, call one, get progress and log messages, answer a
// sampling, an elicitation and a roots request, close. It prints what it
// saw as one JSON object for the Go test that runs it
// (integration/stdio_ts_test.go).
//
//   node stdio-client.mjs <command> [args...]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
const report = { elicitations: [], samplings: [], progress: [], wireProgress: [], logs: [] };

const client = new Client({ name: 'specter-stdio-ts', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {}, roots: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  report.elicitations.push(req.params.message);
  return { action: 'accept', content: { username: 'ts', email: 'ts@example.com' } };
});
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  report.samplings.push(req.params.messages[0].content.text);
  return { role: 'assistant', model: 'ts-model', content: { type: 'text', text: 'Paris' } };
});

client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { report.logs.push(n.params.data); });
client.setRequestHandler(ListRootsRequestSchema, async () => {
  report.rootsAsked = (report.rootsAsked ?? 0) + 1;
  return { roots: [{ uri: 'file:///srv/notes', name: 'notes' }] };
});

const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
let stderr = '';
transport.stderr.on('data', (chunk) => { stderr += chunk; });

const text = (res) => res.content.map((c) => c.text).join('');
try {
  await client.connect(transport);
  report.server = client.getServerVersion();
  // What arrives over the pipe, before the SDK's own dispatch: the SDK
  // hands notifications to their handlers a tick later than responses,
  // so a progress notification read in the same chunk as its result
  // would never reach onprogress (the server lets the notifications be
  // read before it writes the result).
  const deliver = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    if (msg.method === 'notifications/progress') report.wireProgress.push(msg.params);
    deliver(msg, extra);
  };
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  report.tools = tools;
  report.simple = text(await client.callTool({ name: 'test_simple_text', arguments: {} }));
  report.progressResult = text(await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
    onprogress: (p) => report.progress.push(p),
  }));
  report.logging = text(await client.callTool({ name: 'test_tool_with_logging', arguments: {} }));
  report.elicitation = text(await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } }));
  report.sampling = text(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } }));
  report.roots = text(await client.callTool({ name: 'test_input_required_result_list_roots', arguments: {} }));
} catch (err) {
  report.error = String(err?.stack ?? err);
}
const proc = transport._process;
const closing = Date.now();
await client.close();
report.closeMs = Date.now() - closing;
report.exitCode = proc?.exitCode ?? null;
report.signal = proc?.signalCode ?? null;
report.stderr = stderr;
process.stdout.write(JSON.stringify(report) + '\n');
