// The frame every help page shares: one inline style sheet (no external
// asset, so the pages work offline and behind any proxy), a viewport for
// phones, the page's heading, and a footer with the service's version.
import type { EndpointModel } from '../../contract';
import { Html, html } from '../../shared/markup';
import { discoHref } from './links';
import { SERVICE_VERSION } from '../../shared/version';

export const SERVICE_TITLE = 'Student Notification Service';

export interface PageOptions {
  readonly title: string;
  readonly heading: string;
  /** The endpoint's discovery document; ASMX announces it on its pages for tools that follow `<link rel="alternate">`. */
  readonly discoHref?: string;
  readonly content: Html;
}

// Colours keep at least 4.5:1 against their background (WCAG AA); the
// samples scroll inside their block, never the page, on a narrow screen.
const STYLE = `
body { margin: 0; color: #1a1a1a; background: #fff; font-family: system-ui, -apple-system, "Segoe UI", Roboto, Verdana, sans-serif; font-size: 1rem; line-height: 1.5; }
header { background: #003366; color: #fff; padding: 0.75rem 1rem; }
header h1 { margin: 0 auto; max-width: 60rem; font-size: 1.6rem; font-weight: normal; overflow-wrap: anywhere; }
main, footer { display: block; max-width: 60rem; margin: 0 auto; padding: 0 1rem; }
footer { margin-top: 2rem; padding-bottom: 1.5rem; border-top: 1px solid #ccc; font-size: 0.9rem; color: #4a4a4a; }
a { color: #1d4f91; font-weight: bold; }
a:visited { color: #5b3a8c; }
a:focus-visible, input:focus-visible, pre:focus-visible { outline: 3px solid #b35900; outline-offset: 2px; }
h2 { margin: 1.75rem 0 0.75rem; padding-top: 0.5rem; border-top: 1px solid #003366; color: #003366; font-size: 1.35rem; overflow-wrap: anywhere; }
h3 { margin: 1.5rem 0 0.5rem; font-size: 1.1rem; }
ul.plain { padding-left: 1.25rem; }
ul.plain li { margin: 0.4rem 0; }
code, pre, label { font-family: ui-monospace, Menlo, Consolas, "Courier New", monospace; }
figure { margin: 0 0 1rem; }
figcaption { font-size: 0.9rem; color: #4a4a4a; }
pre { margin: 0.25rem 0 0; padding: 0.75rem; overflow-x: auto; background: #f5f5ec; border: 1px solid #d8d8c8; font-size: 0.875rem; line-height: 1.45; }
var { font-style: normal; font-weight: bold; color: #00008b; }
.key { font-weight: bold; color: #005a00; }
.note { padding: 0.5rem 0.75rem; background: #eef3f8; border-left: 4px solid #1d4f91; }
section.note { margin-top: 2rem; }
.note h2 { margin: 0.25rem 0 0.5rem; padding: 0; border: 0; font-size: 1.15rem; }
.note h3 { margin: 0 0 0.5rem; font-size: 1rem; }
.field { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.25rem 0.75rem; margin: 0 0 0.75rem; }
.field label { flex: 0 0 12rem; overflow-wrap: anywhere; }
.field input { flex: 1 1 14rem; min-width: 0; padding: 0.4rem; font: inherit; border: 1px solid #767676; border-radius: 3px; }
.hint { flex-basis: 100%; font-size: 0.9rem; color: #4a4a4a; }
.button { padding: 0.5rem 1.5rem; font: inherit; font-weight: bold; color: #fff; background: #003366; border: 0; border-radius: 3px; cursor: pointer; }
@media (max-width: 30rem) { header h1 { font-size: 1.3rem; } .field label { flex-basis: 100%; } pre { font-size: 0.8rem; } }
`;
// A constant of ours, so it goes into the page as it is.
const STYLE_SHEET = new Html(STYLE);

export function renderPage(options: PageOptions): string {
  const disco =
    options.discoHref === undefined
      ? null
      : html`<link rel="alternate" type="text/xml" href="${options.discoHref}" />\n`;
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
${disco}<title>${options.title}</title>
<style>${STYLE_SHEET}</style>
</head>
<body>
<header><h1>${options.heading}</h1></header>
<main id="content">
${options.content}
</main>
<footer><p><a href="./">${SERVICE_TITLE}</a>, version ${SERVICE_VERSION}</p></footer>
</body>
</html>
`.text;
}

/** A page of one endpoint: its name as the heading and, as ASMX does, its discovery document announced. */
export function renderEndpointPage(
  endpoint: EndpointModel,
  content: Html,
  title = `${endpoint.name} Web Service`,
): string {
  return renderPage({ title, heading: endpoint.name, discoHref: discoHref(endpoint.name), content });
}
