// The Specter inspector's page: plain JavaScript, no build step.
"use strict";

// state is what the page knows, also read by tests (window.inspector).
const state = window.inspector = { connected: false, inventory: null, progress: [], logs: 0, result: null, error: null };
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

function status(msg, isError) {
  $("status").textContent = msg || "";
  $("status").className = isError ? "error" : "";
  if (isError) state.error = msg;
}

async function api(path, body, signal) {
  const res = await fetch("api/" + path, {
    method: "POST", signal,
    headers: { "Content-Type": "application/json", "X-Specter-Inspector": "1" },
    body: JSON.stringify(body || {}),
  });
  const out = await res.json();
  if (out && out.error) throw new Error(out.error);
  return out;
}

// connect connects in the era chosen and lists what the server offers.
async function connect() {
  state.connected = false;
  status("connecting…");
  try {
    const inv = await api("connect", { era: $("era").value });
    state.inventory = inv;
    state.connected = true;
    $("server").textContent = `${inv.serverInfo.name} ${inv.serverInfo.version} · ${inv.target || ""}`;
    $("protocol").textContent = `${inv.protocolVersion} (${inv.era} era)`;
    $("protocol").dataset.version = inv.protocolVersion;
    list("tools", inv.tools, (t) => t.name, showTool);
    list("prompts", inv.prompts, (p) => p.name, showPrompt);
    list("resources", inv.resources, (r) => r.uri, showResource);
    list("templates", inv.resourceTemplates, (t) => t.uriTemplate, showTemplate);
    status("");
  } catch (e) {
    status("connect: " + e.message, true);
  }
}

function list(id, items, label, show) {
  const ul = $(id);
  ul.replaceChildren(...items.map((it) => el("li", {
    "data-name": label(it), title: it.description || label(it), text: label(it),
    onclick: (ev) => {
      for (const li of document.querySelectorAll("nav li.selected")) li.classList.remove("selected");
      ev.currentTarget.classList.add("selected");
      show(it);
    },
  })));
  $(id + "-count").textContent = `(${items.length})`;
}

function detail(...children) {
  $("detail").replaceChildren(...children);
}

// typeOf is a property's type name.
function typeOf(p) {
  let t = p.type;
  if (Array.isArray(t)) t = t.find((x) => x !== "null");
  if (!t && (p.enum || p.oneOf)) t = "string";
  return t || "any";
}

// field is the input of one property of a schema.
function field(name, p, required) {
  const t = typeOf(p);
  const label = p.title || name;
  let input;
  const choices = p.oneOf ? p.oneOf.map((o) => [o.const, o.title || o.const]) : p.enum ? p.enum.map((v) => [v, v]) : null;
  if (choices) {
    input = el("select", { name, required });
    if (!required) input.append(el("option", { value: "", text: "" }));
    for (const [v, l] of choices) input.append(el("option", { value: v, text: l }));
    if (p.default !== undefined) input.value = p.default;
  } else if (t === "boolean") {
    input = el("input", { type: "checkbox", name });
    input.checked = p.default === true;
  } else if (t === "number" || t === "integer") {
    input = el("input", { type: "number", name, required, min: p.minimum, max: p.maximum, step: t === "integer" ? "1" : "any" });
    if (p.default !== undefined) input.value = p.default;
  } else if (t === "string") {
    const type = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" }[p.format] || "text";
    input = el("input", { type, name, required, minlength: p.minLength, maxlength: p.maxLength, pattern: p.pattern });
    if (p.default !== undefined) input.value = p.default;
  } else {
    input = el("textarea", { name, required, rows: 3, placeholder: "JSON" });
    if (p.default !== undefined) input.value = JSON.stringify(p.default);
  }
  input.dataset.type = t;
  return el("label", {}, el("span", { text: label + (required ? " *" : "") }),
    p.description ? el("small", { class: "description", text: p.description }) : null, input);
}

// fields are the inputs of a schema's properties, in the server's order.
function fields(schema) {
  const props = (schema && schema.properties) || {};
  const req = new Set((schema && schema.required) || []);
  return Object.entries(props).map(([name, p]) => field(name, p || {}, req.has(name)));
}

// values reads a form's inputs as the schema's types; empty optional
// inputs are left out.
function values(form) {
  const out = {};
  for (const input of form.querySelectorAll("[name]")) {
    const t = input.dataset.type;
    if (t === "boolean") { out[input.name] = input.checked; continue; }
    const v = input.value;
    if (v === "") continue;
    if (t === "number" || t === "integer") out[input.name] = Number(v);
    else if (t === "string") out[input.name] = v;
    else { try { out[input.name] = JSON.parse(v); } catch { out[input.name] = v; } }
  }
  return out;
}

let callSeq = 0;

function showTool(tool) {
  const form = el("form", { class: "call", id: "call-form" }, ...fields(tool.inputSchema));
  const bar = el("progress", { id: "progress", value: 0, max: 1 });
  const barText = el("div", { id: "progress-text" });
  const result = el("pre", { id: "result" });
  const appBox = el("div", { id: "app" });
  const run = el("button", { type: "submit", id: "run", text: "Call" });
  const cancel = el("button", { type: "button", id: "cancel", text: "Cancel", disabled: true });
  form.append(el("menu", {}, run, cancel));
  let abort = null;
  cancel.addEventListener("click", () => abort && abort.abort());
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const id = "call-" + (++callSeq);
    state.currentCall = id;
    state.progress = [];
    state.result = null;
    bar.removeAttribute("value");
    barText.textContent = "";
    result.textContent = "calling…";
    appBox.replaceChildren();
    abort = new AbortController();
    run.disabled = true; cancel.disabled = false;
    try {
      const out = await api("call", { id, name: tool.name, arguments: values(form) }, abort.signal);
      state.result = out.result;
      result.className = out.result.isError ? "error" : "";
      result.textContent = render(out.result);
      if (out.app) appBox.append(frame(out.app.html, out.app.uri, { arguments: values(form), result: out.result }));
    } catch (e) {
      result.className = "error";
      result.textContent = e.name === "AbortError" ? "cancelled" : e.message;
      state.result = { error: result.textContent };
    } finally {
      run.disabled = false; cancel.disabled = true;
    }
  });
  detail(el("h2", { text: tool.title || tool.name }), el("p", { class: "description", text: tool.description || "" }),
    form, bar, barText, el("h3", { text: "Result" }), result, appBox,
    el("details", {}, el("summary", { text: "Input schema" }), el("pre", { text: JSON.stringify(tool.inputSchema, null, 2) })));
}

// render is a tool result for reading: its text, else its JSON.
function render(res) {
  const parts = (res.content || []).map((c) => c.type === "text" ? prettyJSON(c.text) : JSON.stringify(c, null, 2));
  if (parts.length === 0 && res.structuredContent) parts.push(JSON.stringify(res.structuredContent, null, 2));
  return parts.join("\n");
}

// frame renders a UI resource in a sandboxed iframe: scripts run, but in
// an opaque origin, away from the inspector's page and API. The page is
// the view's MCP Apps host: it answers ui/initialize over postMessage,
// sends the tool's input and result once the view is initialized, and
// carries the view's tools/call and resources/read to the server.
function frame(html, uri, call) {
  const iframe = el("iframe", { class: "app", sandbox: "allow-scripts allow-forms", srcdoc: html, title: uri, "data-uri": uri });
  hosted.set(iframe, { uri, call });
  return iframe;
}

// hosted are the views on the page, by iframe.
const hosted = new Map();
state.app = { initialized: [], sent: [], calls: [] };

window.addEventListener("message", async (ev) => {
  let iframe = null;
  for (const f of hosted.keys()) {
    if (!f.isConnected) hosted.delete(f);
    else if (f.contentWindow === ev.source) iframe = f;
  }
  const m = ev.data;
  if (!iframe || !m || m.jsonrpc !== "2.0" || typeof m.method !== "string") return;
  const view = hosted.get(iframe);
  const send = (msg) => iframe.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, msg), "*");
  const notify = (method, params) => { state.app.sent.push(method); send({ method, params }); };
  if (m.id === undefined) {
    if (m.method === "ui/notifications/initialized") {
      state.app.initialized.push(view.uri);
      if (view.call) {
        notify("ui/notifications/tool-input", { arguments: view.call.arguments });
        notify("ui/notifications/tool-result", view.call.result);
      }
    } else if (m.method === "ui/notifications/size-changed" && m.params && m.params.height) {
      iframe.style.height = Math.min(Math.max(m.params.height, 120), 2000) + "px";
    } else if (m.method === "notifications/message" && m.params) {
      log(Object.assign({ logger: "view" }, m.params));
    }
    return;
  }
  const reply = (result) => send({ id: m.id, result });
  const fail = (code, message) => send({ id: m.id, error: { code, message } });
  const p = m.params || {};
  try {
    switch (m.method) {
      case "ui/initialize":
        return reply({
          protocolVersion: p.protocolVersion,
          hostInfo: { name: "specter-inspector", version: "1.0.0" },
          hostCapabilities: { serverTools: {}, serverResources: {}, logging: {}, openLinks: {} },
          hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"] },
        });
      case "tools/call": {
        state.app.calls.push(p.name);
        const out = await api("call", { id: "view-" + (++callSeq), name: p.name, arguments: p.arguments || {} });
        return reply(out.result);
      }
      case "resources/read":
        return reply(await api("read", { uri: p.uri }));
      case "ui/open-link":
        window.open(p.url, "_blank", "noopener");
        return reply({});
      case "ui/request-display-mode":
        return reply({ mode: "inline" });
      case "ui/message":
      case "ui/update-model-context":
        log({ level: "info", logger: "view", data: m.method + " " + JSON.stringify(p) });
        return reply({});
      case "ping":
        return reply({});
    }
    fail(-32601, "the inspector does not handle " + m.method);
  } catch (e) {
    fail(-32603, e.message);
  }
});

function showPrompt(p) {
  const schema = { properties: {}, required: [] };
  for (const a of p.arguments || []) {
    schema.properties[a.name] = { type: "string", title: a.title || a.name, description: a.description };
    if (a.required) schema.required.push(a.name);
  }
  const form = el("form", { class: "call" }, ...fields(schema), el("menu", {}, el("button", { type: "submit", text: "Get" })));
  const out = el("pre", { id: "prompt-result" });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const res = await api("prompt", { name: p.name, arguments: values(form) });
      out.className = "";
      out.textContent = res.messages.map((m) => `[${m.role}]\n${m.content.type === "text" ? m.content.text : JSON.stringify(m.content)}`).join("\n\n");
    } catch (e) { out.className = "error"; out.textContent = e.message; }
  });
  detail(el("h2", { text: p.title || p.name }), el("p", { class: "description", text: p.description || "" }), form, out);
}

async function readInto(uri, box) {
  box.replaceChildren(el("p", { text: "reading…" }));
  try {
    const res = await api("read", { uri });
    box.replaceChildren(...res.contents.map((c) => {
      if (c.mimeType && c.mimeType.startsWith("text/html;profile=mcp-app") && c.text !== undefined) return frame(c.text, c.uri);
      if (c.text !== undefined) return el("pre", { class: "contents", text: prettyJSON(c.text) });
      return el("p", { text: `${c.uri}: ${c.mimeType || "blob"}, ${c.blob.length} bytes base64` });
    }));
  } catch (e) { box.replaceChildren(el("p", { class: "error", text: e.message })); }
}

function prettyJSON(text) {
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
}

function showResource(r) {
  const box = el("div", { id: "resource" });
  detail(el("h2", { text: r.title || r.name }), el("p", { class: "description", text: `${r.uri} · ${r.mimeType || ""}` }),
    el("p", { class: "description", text: r.description || "" }), box);
  readInto(r.uri, box);
}

function showTemplate(t) {
  const input = el("input", { type: "text", name: "uri", value: t.uriTemplate });
  const box = el("div", { id: "resource" });
  const form = el("form", { class: "call" }, el("label", {}, el("span", { text: "URI" }), input), el("menu", {}, el("button", { type: "submit", text: "Read" })));
  form.addEventListener("submit", (ev) => { ev.preventDefault(); readInto(input.value, box); });
  detail(el("h2", { text: t.title || t.name }), el("p", { class: "description", text: t.description || "" }), form, box);
}

// The event stream: progress, logs and the server's questions.
function listen() {
  const es = new EventSource("api/events");
  es.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (e.type === "progress" && e.call === state.currentCall) progress(e.progress);
    else if (e.type === "log") log(e.log);
    else if (e.type === "elicit") elicit(e.id, e.elicit);
    else if (e.type === "elicit-done" && pendingElicit === e.id) $("elicit").close("gone");
  };
}

function progress(p) {
  state.progress.push(p);
  const bar = $("progress");
  if (!bar) return;
  if (p.total) { bar.max = p.total; bar.value = p.progress; } else bar.removeAttribute("value");
  $("progress-text").textContent = `${p.progress}${p.total ? "/" + p.total : ""} ${p.message || ""}`;
}

function log(l) {
  state.logs++;
  const data = typeof l.data === "string" ? l.data : JSON.stringify(l.data);
  $("logs").append(el("li", { class: l.level, text: `${l.level}${l.logger ? " " + l.logger : ""}: ${data}` }));
  $("logs").lastChild.scrollIntoView({ block: "nearest" });
}

let pendingElicit = null;

function elicit(id, req) {
  pendingElicit = id;
  state.elicitation = req;
  const dlg = $("elicit");
  $("elicit-message").textContent = req.message;
  $("elicit-error").textContent = "";
  $("elicit-fields").replaceChildren(...(req.mode === "url"
    ? [el("a", { href: req.url, target: "_blank", rel: "noopener", text: req.url })]
    : fields(req.requestedSchema)));
  dlg.returnValue = "";
  if (!dlg.open) dlg.showModal();
}

$("elicit").addEventListener("close", async () => {
  const dlg = $("elicit");
  const id = pendingElicit;
  pendingElicit = null;
  if (!id || dlg.returnValue === "gone") return;
  const action = dlg.returnValue || "cancel";
  const body = { id, action };
  if (action === "accept") body.content = values($("elicit-fields"));
  try { await api("elicit", body); } catch (e) { status("answering: " + e.message, true); }
});

$("connect").addEventListener("click", connect);
$("era").addEventListener("change", connect);
listen();
connect();
