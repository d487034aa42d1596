// GET /X.asmx: the operation list page ASMX shows (ASMX-WIRE.md rule 24).
import { DEFAULT_NAMESPACE, type EndpointModel } from '../../contract';
import { escapeAttribute, escapeText } from '../xml-text';

export function renderOperationList(endpoint: EndpointModel, requestPath: string): string {
  const name = escapeText(endpoint.name);
  const self = escapeAttribute(requestPath.slice(requestPath.lastIndexOf('/') + 1));
  const operations = endpoint.operations
    .map((op) => op.wireName)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((op) => `<li><a href="${self}?op=${escapeAttribute(op)}">${escapeText(op)}</a></li>`)
    .join('\n');
  const advisory =
    endpoint.namespace === DEFAULT_NAMESPACE
      ? '<hr>\n<h3>This web service is using http://tempuri.org/ as its default namespace.</h3>\n' +
        '<h3>Recommendation: Change the default namespace before the XML Web service is made public.</h3>\n' +
        '<p>Set SOAP_NAMESPACE to a namespace of your own once every client has been generated from it.</p>'
      : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="alternate" type="text/xml" href="${escapeAttribute(requestPath)}?disco"/>
<title>${name} Web Service</title>
</head>
<body>
<main id="content">
<h1>${name}</h1>
<p>The following operations are supported.  For a formal definition, please review the <a href="${self}?WSDL">Service Description</a>.</p>
<ul>
${operations}
</ul>
${advisory}
</main>
</body>
</html>
`;
}
