// McpApp: the view's side of MCP Apps (io.modelcontextprotocol/ui,
// 2026-01-26). A view runs in a sandboxed iframe of its host and talks
// JSON-RPC 2.0 to it over postMessage: ui/initialize, then the tool's
// input and result as notifications, and tools/call, resources/read and
// the ui/ requests of the extension back to the host, which forwards
// them to the view's own MCP server.
//
//   const app = new McpApp({ name: "dashboard", version: "1.0.0" });
//   app.on("toolresult", (result) => render(result.structuredContent));
//   await app.connect();
//   const res = await app.callTool("update_item", { id: 7, done: true });
//
// From package appview of Specter (github.com/specter-mcp/specter).
(function (global) {
  "use strict";

  var PROTOCOL_VERSION = "2026-01-26";

  // Events the host sends as notifications, and the last value of each
  // sticky one, handed to a listener that subscribes after it came.
  var NOTIFICATIONS = {
    "ui/notifications/tool-input": "toolinput",
    "ui/notifications/tool-input-partial": "toolinputpartial",
    "ui/notifications/tool-result": "toolresult",
    "ui/notifications/tool-cancelled": "toolcancelled",
    "ui/notifications/host-context-changed": "hostcontextchanged",
  };
  var STICKY = { toolinput: true, toolresult: true, toolcancelled: true };

  // McpAppError is a JSON-RPC error the host answered with.
  function McpAppError(error) {
    var e = new Error(error && error.message ? error.message : "MCP App request failed");
    e.name = "McpAppError";
    e.code = error && error.code;
    e.data = error && error.data;
    return e;
  }

  // McpApp connects a view to its host. info names the view ({name,
  // version}); options: capabilities (appCapabilities of ui/initialize),
  // autoResize (default true: report the document's size to the host),
  // applyHostStyles (default true: set the host's theme, CSS variables
  // and fonts on the document), target (default window.parent).
  function McpApp(info, options) {
    options = options || {};
    this.info = info || { name: "mcp-app", version: "0.0.0" };
    this.capabilities = options.capabilities || {};
    this.autoResize = options.autoResize !== false;
    this.applyHostStyles = options.applyHostStyles !== false;
    this.target = options.target || global.parent;
    this.hostInfo = null;
    this.hostCapabilities = null;
    this.hostContext = {};
    this._nextId = 1;
    this._pending = new Map();
    this._listeners = {};
    this._last = {};
    this._requestHandlers = {
      ping: function () {
        return {};
      },
      "ui/resource-teardown": this._teardown.bind(this),
    };
    this._onMessage = this._onMessage.bind(this);
    global.addEventListener("message", this._onMessage);
  }

  // on adds a listener of an event: toolinput (the tool's arguments),
  // toolinputpartial, toolresult (a CallToolResult), toolcancelled (the
  // reason), hostcontextchanged (the whole context, merged), teardown
  // (may return a promise the host waits for). A listener of toolinput,
  // toolresult or toolcancelled added late gets the last one at once.
  McpApp.prototype.on = function (event, fn) {
    (this._listeners[event] = this._listeners[event] || []).push(fn);
    if (STICKY[event] && event in this._last) {
      fn(this._last[event]);
    }
    return this;
  };

  // off removes a listener added with on.
  McpApp.prototype.off = function (event, fn) {
    var list = this._listeners[event] || [];
    var i = list.indexOf(fn);
    if (i >= 0) list.splice(i, 1);
    return this;
  };

  McpApp.prototype._emit = function (event, value) {
    if (STICKY[event]) this._last[event] = value;
    var list = (this._listeners[event] || []).slice();
    var results = [];
    for (var i = 0; i < list.length; i++) {
      try {
        results.push(list[i](value));
      } catch (err) {
        this._report(err);
      }
    }
    return results;
  };

  McpApp.prototype._report = function (err) {
    if (global.console) global.console.error("McpApp:", err);
  };

  // connect performs the handshake: ui/initialize, then
  // ui/notifications/initialized. It resolves with the host's answer
  // (protocolVersion, hostInfo, hostCapabilities, hostContext).
  McpApp.prototype.connect = function () {
    var self = this;
    return this.request("ui/initialize", {
      appInfo: this.info,
      appCapabilities: this.capabilities,
      protocolVersion: PROTOCOL_VERSION,
    }).then(function (result) {
      self.hostInfo = result.hostInfo || null;
      self.hostCapabilities = result.hostCapabilities || {};
      self._mergeContext(result.hostContext || {});
      self.notify("ui/notifications/initialized", {});
      if (self.autoResize) self._watchSize();
      return result;
    });
  };

  // request sends a JSON-RPC request to the host and resolves with its
  // result; a JSON-RPC error rejects with an McpAppError (code, data).
  McpApp.prototype.request = function (method, params) {
    var id = this._nextId++;
    var self = this;
    return new Promise(function (resolve, reject) {
      self._pending.set(id, { resolve: resolve, reject: reject });
      self._post({ jsonrpc: "2.0", id: id, method: method, params: params || {} });
    });
  };

  // notify sends a JSON-RPC notification to the host.
  McpApp.prototype.notify = function (method, params) {
    this._post({ jsonrpc: "2.0", method: method, params: params || {} });
  };

  // callTool calls a tool of the view's server through the host: a tool
  // visible to the app (an app-only tool, or one of both). A tool result
  // with isError resolves; the caller checks it.
  McpApp.prototype.callTool = function (name, args) {
    return this.request("tools/call", { name: name, arguments: args || {} });
  };

  // readResource reads a resource of the view's server through the host.
  McpApp.prototype.readResource = function (uri) {
    return this.request("resources/read", { uri: uri });
  };

  // openLink asks the host to open url in the user's browser.
  McpApp.prototype.openLink = function (url) {
    return this.request("ui/open-link", { url: url });
  };

  // sendMessage adds a user message to the conversation: a string, or
  // content blocks.
  McpApp.prototype.sendMessage = function (content) {
    if (typeof content === "string") content = [{ type: "text", text: content }];
    return this.request("ui/message", { role: "user", content: content });
  };

  // updateModelContext tells the host what the model should know of the
  // view from now on ({content, structuredContent}); it replaces the last.
  McpApp.prototype.updateModelContext = function (context) {
    return this.request("ui/update-model-context", context || {});
  };

  // requestDisplayMode asks for "inline", "fullscreen" or "pip" and
  // resolves with the mode the host set.
  McpApp.prototype.requestDisplayMode = function (mode) {
    return this.request("ui/request-display-mode", { mode: mode });
  };

  // log sends a log message to the host (notifications/message).
  McpApp.prototype.log = function (level, data) {
    this.notify("notifications/message", { level: level, logger: this.info.name, data: data });
  };

  // close stops listening to the host and fails the requests in flight.
  McpApp.prototype.close = function () {
    global.removeEventListener("message", this._onMessage);
    if (this._resize) this._resize.disconnect();
    this._pending.forEach(function (p) {
      p.reject(McpAppError({ code: -32000, message: "McpApp closed" }));
    });
    this._pending.clear();
  };

  McpApp.prototype._post = function (message) {
    this.target.postMessage(message, "*");
  };

  McpApp.prototype._onMessage = function (event) {
    // Only the host (or the sandbox proxy it speaks through) is heard.
    if (event.source !== this.target) return;
    var m = event.data;
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return;
    if (m.method === undefined) {
      var p = this._pending.get(m.id);
      if (!p) return;
      this._pending.delete(m.id);
      if (m.error) p.reject(McpAppError(m.error));
      else p.resolve(m.result);
      return;
    }
    if (m.id === undefined || m.id === null) {
      this._notification(m.method, m.params || {});
      return;
    }
    this._answer(m);
  };

  McpApp.prototype._notification = function (method, params) {
    var event = NOTIFICATIONS[method];
    switch (event) {
      case "toolinput":
      case "toolinputpartial":
        this._emit(event, params.arguments || {});
        break;
      case "toolcancelled":
        this._emit(event, params.reason);
        break;
      case "hostcontextchanged":
        this._mergeContext(params);
        this._emit(event, this.hostContext);
        break;
      case "toolresult":
        this._emit(event, params);
        break;
    }
  };

  // _answer runs a request of the host and posts its response.
  McpApp.prototype._answer = function (m) {
    var self = this;
    var handler = this._requestHandlers[m.method];
    if (!handler) {
      this._post({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found: " + m.method } });
      return;
    }
    Promise.resolve()
      .then(function () {
        return handler(m.params || {});
      })
      .then(
        function (result) {
          self._post({ jsonrpc: "2.0", id: m.id, result: result || {} });
        },
        function (err) {
          self._post({ jsonrpc: "2.0", id: m.id, error: { code: -32000, message: String((err && err.message) || err) } });
        }
      );
  };

  McpApp.prototype._teardown = function (params) {
    return Promise.all(this._emit("teardown", params)).then(function () {
      return {};
    });
  };

  McpApp.prototype._mergeContext = function (ctx) {
    for (var k in ctx) {
      if (Object.prototype.hasOwnProperty.call(ctx, k)) this.hostContext[k] = ctx[k];
    }
    if (this.applyHostStyles) this._applyStyles();
  };

  // _applyStyles puts the host's theme, CSS variables and fonts on the
  // document, so that a view styled with var(--color-text-primary, …)
  // looks like its host.
  McpApp.prototype._applyStyles = function () {
    var doc = global.document;
    if (!doc) return;
    var root = doc.documentElement;
    var ctx = this.hostContext;
    if (ctx.theme === "light" || ctx.theme === "dark") {
      root.setAttribute("data-theme", ctx.theme);
      root.style.colorScheme = ctx.theme;
    }
    var styles = ctx.styles || {};
    var vars = styles.variables || {};
    for (var name in vars) {
      if (Object.prototype.hasOwnProperty.call(vars, name) && name.indexOf("--") === 0 && typeof vars[name] === "string") {
        root.style.setProperty(name, vars[name]);
      }
    }
    var fonts = styles.css && styles.css.fonts;
    if (typeof fonts === "string" && fonts !== this._fonts) {
      this._fonts = fonts;
      var el = doc.getElementById("mcp-app-host-fonts") || doc.createElement("style");
      el.id = "mcp-app-host-fonts";
      el.textContent = fonts;
      (doc.head || root).appendChild(el);
    }
  };

  // _watchSize reports the document's size whenever it changes, once per
  // frame, so that hosts with flexible containers fit the iframe to it.
  McpApp.prototype._watchSize = function () {
    var self = this;
    var doc = global.document;
    if (!doc || typeof global.ResizeObserver !== "function") return;
    var last = "";
    var queued = false;
    var send = function () {
      queued = false;
      var el = doc.documentElement;
      var width = Math.ceil(el.scrollWidth);
      var height = Math.ceil(el.scrollHeight);
      var key = width + "x" + height;
      if (key === last) return;
      last = key;
      self.notify("ui/notifications/size-changed", { width: width, height: height });
    };
    this._resize = new global.ResizeObserver(function () {
      if (queued) return;
      queued = true;
      (global.requestAnimationFrame || global.setTimeout).call(global, send);
    });
    this._resize.observe(doc.documentElement);
    if (doc.body) this._resize.observe(doc.body);
  };

  McpApp.PROTOCOL_VERSION = PROTOCOL_VERSION;
  global.McpApp = McpApp;
})(window);
