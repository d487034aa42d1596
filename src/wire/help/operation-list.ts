// GET /X.asmx: the operation list page ASMX shows (docs/design.md#rule-24).
import { DEFAULT_NAMESPACE, type EndpointModel } from '../../contract';
import { html } from '../../shared/markup';
import { renderEndpointPage } from './layout';
import { compareOrdinal, operationHref, wsdlHref } from './links';

export function renderOperationList(endpoint: EndpointModel): string {
  const operations = endpoint.operations.map((op) => op.wireName).sort(compareOrdinal);
  const advisory =
    endpoint.namespace === DEFAULT_NAMESPACE
      ? html`
<section class="note">
<h2>This web service is using http://tempuri.org/ as its default namespace.</h2>
<h3>Recommendation: Change the default namespace before the XML Web service is made public.</h3>
<p>Here the namespace is part of the contract: the existing clients were generated against it. Change it (<code>SOAP_NAMESPACE</code>) only together with every client, since it changes each SOAP action and the namespace of every request and answer.</p>
</section>`
      : null;
  return renderEndpointPage(
    endpoint,
    html`<p>The following operations are supported.  For a formal definition, please review the <a href="${wsdlHref(endpoint.name)}">Service Description</a>.</p>
<ul class="plain">
${operations.map((op) => html`<li><a href="${operationHref(endpoint.name, op)}">${op}</a></li>\n`)}</ul>${advisory}`,
  );
}
