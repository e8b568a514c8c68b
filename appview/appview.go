// Package appview is the view's side of MCP Apps (the
// io.modelcontextprotocol/ui extension): a small script, McpApp, that
// the HTML of a UI resource (specter.Router.UI) includes to talk to the
// host rendering it in a sandboxed iframe. It sends ui/initialize and
// ui/notifications/initialized, hands the view the tool's input and
// result as the host sends them, calls the server's tools and reads its
// resources through the host (tools/call and resources/read over
// postMessage), reports the view's size, applies the host's theme and
// CSS variables, and answers the host's teardown.
//
// Hosts render UI resources with a restrictive Content Security Policy
// that allows inline scripts but no script from elsewhere unless the
// resource names its origin, so the script goes inline, in the page:
//
//	<script>{{.}}</script>   with ScriptTag, in an html/template page
//
// In the page:
//
//	const app = new McpApp({ name: "dashboard", version: "1.0.0" });
//	app.on("toolresult", (result) => render(result.structuredContent));
//	await app.connect();
//	const res = await app.callTool("update_item", { id: 7, done: true });
//
// The script depends on nothing and needs no build step.
package appview

import (
	_ "embed"
	"html/template"
)

// Script is the JavaScript source of McpApp, for pages that inline it
// themselves.
//
//go:embed mcp-app.js
var Script string

// ScriptTag is Script in a <script> element, ready to put in a page:
// html/template writes it as it is.
func ScriptTag() template.HTML {
	return template.HTML("<script>\n" + Script + "</script>") // our own script, which holds no "</script"
}
