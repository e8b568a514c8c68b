// A web host of MCP Apps for the browser test, built on the official
// pieces: the TypeScript MCP client talks to the server over Streamable
// HTTP (the session era, or 2026-07-28 with ?era=stateless), and the
// ext-apps AppBridge talks to the view through a sandbox proxy of another
// origin (sandbox.html), as web hosts such as Claude do. The test bundles
// it with esbuild at test time and reads window.host to follow it.
//
// Query parameters: token (the bearer token), era, sandbox (the proxy's
// URL), tool (the tool to call) and args (its arguments, as JSON).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const query = new URLSearchParams(location.search);
const era = query.get("era") || "session";
const info = { name: "specter-test-host", version: "1.0.0" };

// host is what the test reads: each step as it happens, and the first
// error.
const host = (window.host = { era, steps: [], appCalls: [], refusedAppCalls: [], error: null });

function step(name, detail) {
  host.steps.push(name);
  const line = document.createElement("div");
  line.textContent = name + (detail === undefined ? "" : " " + JSON.stringify(detail));
  document.getElementById("log").appendChild(line);
}

// visibility is a tool's _meta.ui.visibility, default both.
function visibility(tool) {
  const v = tool._meta && tool._meta.ui && tool._meta.ui.visibility;
  return Array.isArray(v) ? v : ["model", "app"];
}

async function main() {
  const client = new Client(info, {
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
    versionNegotiation: era === "stateless" ? { mode: { pin: "2026-07-28" } } : { mode: "legacy" },
  });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", location.origin), {
    requestInit: { headers: { Authorization: "Bearer " + query.get("token") } },
  });
  await client.connect(transport);
  host.protocolVersion = client.getNegotiatedProtocolVersion();
  host.serverUI = (client.getServerCapabilities() || {}).extensions?.["io.modelcontextprotocol/ui"] || null;
  step("connected", { protocolVersion: host.protocolVersion, serverUI: host.serverUI });

  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  host.tools = tools.map((t) => t.name);
  // What the model is given: tools whose visibility includes "model".
  const modelTools = tools.filter((t) => visibility(t).includes("model"));
  host.modelTools = modelTools.map((t) => t.name);
  document.getElementById("model-tools").textContent = "Tools for the model: " + host.modelTools.join(", ");

  // The model calls the tool; its UI is rendered while it runs.
  const tool = tools.find((t) => t.name === query.get("tool"));
  if (!tool) throw new Error("no tool " + query.get("tool") + " in " + host.tools);
  const uri = getToolUiResourceUri(tool);
  host.resourceUri = uri;
  const args = JSON.parse(query.get("args") || "{}");
  const read = await client.readResource({ uri });
  const content = read.contents[0];
  if (content.mimeType !== RESOURCE_MIME_TYPE) throw new Error("the UI resource is " + content.mimeType);
  const listing = (await client.listResources()).resources.find((r) => r.uri === uri);
  const uiMeta = (content._meta && content._meta.ui) || (listing && listing._meta && listing._meta.ui) || {};
  host.uiMeta = uiMeta;
  step("read the UI resource", { uri, uiMeta });

  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  iframe.setAttribute("title", tool.title || tool.name);
  if (uiMeta.prefersBorder === false) iframe.style.border = "0";
  document.getElementById("apps").appendChild(iframe);

  const bridge = new AppBridge(client, info, { serverTools: {}, serverResources: {}, logging: {}, openLinks: {} }, {
    hostContext: { theme: "light", displayMode: "inline", platform: "web", toolInfo: { tool }, containerDimensions: { maxHeight: 900 } },
  });
  bridge.onsandboxready = () => {
    step("sandbox ready");
    bridge.sendSandboxResourceReady({ html: content.text, csp: uiMeta.csp, permissions: uiMeta.permissions });
  };
  // The view grows up to the container's maxHeight, then scrolls.
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = Math.min(height, 900) + "px";
  };
  bridge.onloggingmessage = (p) => step("app log", p);
  const called = client.callTool({ name: tool.name, arguments: args });
  bridge.oninitialized = async () => {
    host.appInfo = bridge.getAppVersion();
    step("app initialized", host.appInfo);
    await bridge.sendToolInput({ arguments: args });
    const result = await called;
    await bridge.sendToolResult(result);
    host.toolResultSent = true;
    step("tool result sent");
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  // A host forwards the app's tools/call to the app's own server, and
  // only for tools whose visibility includes "app".
  bridge.oncalltool = async (params) => {
    const target = tools.find((t) => t.name === params.name);
    if (!target || !visibility(target).includes("app")) {
      host.refusedAppCalls.push(params.name);
      throw new Error("the app may not call " + params.name);
    }
    const result = await client.callTool(params);
    host.appCalls.push({ name: params.name, arguments: params.arguments, isError: !!result.isError });
    step("app called", params.name);
    return result;
  };
  iframe.src = query.get("sandbox");
}

main().catch((err) => {
  host.error = String((err && err.stack) || err);
  step("error", host.error);
});
