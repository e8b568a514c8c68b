// MCP servers built with the official TypeScript SDKs for the Go tests of
// this folder, each a few lines around what the test needs from a real
// peer:
//
//   node servers.mjs v2-stdio          the TypeScript SDK v2 on stdio,
//                                      speaking 2026-07-28 (and the
//                                      session era): a tool that works
//                                      until cancelled, and a tool that
//                                      counts the cancellations it saw.
//   node servers.mjs session-http      the TypeScript SDK v1 on Streamable
//                                      HTTP with sessions; a tool ends the
//                                      caller's session as an idle timeout
//                                      would, so that the SDK answers its
//                                      next request 404 Session not found.
//   node servers.mjs oidc              node-oidc-provider as the
//                                      authorization server of MCP
//                                      servers on loopback: dynamic
//                                      registration, resource indicators
//                                      with JWT access tokens (scope
//                                      "mcp"), and a user who logs in and
//                                      consents at once; it issues refresh
//                                      tokens for offline_access the
//                                      OpenID Connect way only.
//
// HTTP servers listen on 127.0.0.1 on a port of the system's choosing and
// print "listening <port>" on stderr once they accept connections.
import http from 'node:http';
import { randomUUID } from 'node:crypto';

const [kind] = process.argv.slice(2);

const text = (t) => ({ content: [{ type: 'text', text: t }] });

async function v2Stdio() {
  const { McpServer, fromJsonSchema } = await import('@modelcontextprotocol/server');
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  const stats = { started: 0, cancelled: 0 };
  const empty = fromJsonSchema({ type: 'object', properties: {} });
  serveStdio(() => {
    const s = new McpServer({ name: 'ts-v2-stdio', version: '1.0.0' }, { capabilities: { tools: {} } });
    // block reports progress once it runs, then works until the request
    // is cancelled.
    s.registerTool('block', { description: 'Works until cancelled', inputSchema: empty }, async (_args, ctx) => {
      stats.started++;
      const signal = ctx.mcpReq.signal;
      const cancelled = new Promise((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener('abort', resolve, { once: true });
      });
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 1 } });
      }
      await cancelled;
      stats.cancelled++;
      return text('cancelled');
    });
    s.registerTool('stats', { description: 'Counts the calls of block and their cancellations', inputSchema: empty }, async () => (
      { ...text(JSON.stringify(stats)), structuredContent: { ...stats } }));
    return s;
  });
}

async function sessionHTTP() {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const sessions = new Map();
  let initialized = 0;
  const newServer = () => {
    const s = new McpServer({ name: 'ts-session-http', version: '1.0.0' });
    let session;
    s.registerTool('echo', { description: 'Says hello' }, async () => text('hello'));
    s.registerTool('initialized', { description: 'Counts the sessions initialized' }, async () => text(String(initialized)));
    s.registerTool('expire', { description: 'Ends this session, as an idle timeout would' }, async (extra) => {
      sessions.get(extra.sessionId).expired = true;
      return text('expired');
    });
    return s;
  };
  const server = http.createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let s = id && sessions.get(id);
    if (id && !s) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      return;
    }
    if (s?.expired && !s.closed) {
      // The SDK answers every later request of a closed session 404.
      s.closed = true;
      await s.transport.close();
    }
    if (!s) {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => {
          initialized++;
          sessions.set(sid, { transport });
        },
      });
      await newServer().connect(transport);
      s = { transport };
    }
    await s.transport.handleRequest(req, res);
  });
  server.listen(0, '127.0.0.1', () => console.error(`listening ${server.address().port}`));
}

async function oidc() {
  const { default: Provider } = await import('oidc-provider');
  const server = http.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const loopback = (uri) => { try { return new URL(uri).hostname === '127.0.0.1'; } catch { return false; } };
  const provider = new Provider(issuer, {
    scopes: ['openid', 'offline_access', 'mcp'],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (!loopback(resource)) throw new Error(`unknown resource ${resource}`);
          return { scope: 'mcp', audience: resource, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['interop-cookie-key'] },
  });
  // The user: logs in as alice and grants what the client asks for.
  const interact = async (req, res) => {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: 'alice' } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  };
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.url.startsWith('/interaction/')) {
      interact(req, res).catch((err) => {
        console.error(err);
        res.writeHead(500).end(String(err));
      });
      return;
    }
    callback(req, res);
  });
  console.error(`listening ${server.address().port}`);
}

const servers = { 'v2-stdio': v2Stdio, 'session-http': sessionHTTP, oidc };
if (!servers[kind]) {
  console.error(`usage: node servers.mjs ${Object.keys(servers).join('|')}`);
  process.exit(2);
}
await servers[kind]();
