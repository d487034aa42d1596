// GET /: the way in for a person who has never seen the service: every
// endpoint with its operations and its service description, and the version.
import type { EndpointModel } from '../../contract';
import { html } from '../../shared/markup';
import { SERVICE_TITLE, renderPage } from './layout';
import { compareOrdinal, discoHref, endpointHref, operationHref, wsdlHref } from './links';

export function renderServiceList(endpoints: readonly EndpointModel[]): string {
  const sorted = [...endpoints].sort((a, b) => compareOrdinal(a.name, b.name));
  const entries = sorted.map((endpoint) => {
    const operations = endpoint.operations.map((op) => op.wireName).sort(compareOrdinal);
    return html`<section>
<h3><a href="${endpointHref(endpoint.name)}">${endpoint.name}</a></h3>
<p>Operations: ${operations.map((op, i) => html`${i === 0 ? '' : ', '}<a href="${operationHref(endpoint.name, op)}">${op}</a>`)}</p>
<p><a href="${wsdlHref(endpoint.name)}">Service Description (WSDL)</a> · <a href="${discoHref(endpoint.name)}">Discovery document</a></p>
</section>
`;
  });
  return renderPage({
    title: SERVICE_TITLE,
    heading: SERVICE_TITLE,
    content: html`<p>ASMX web services for schools' systems and parents' mobile apps. Every operation answers over SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST.</p>
<p>Open an endpoint to see its operations. Each operation's page shows a sample request and response for every binding and has a form to call it from this browser.</p>
<h2>Endpoints</h2>
${entries}`,
  });
}
