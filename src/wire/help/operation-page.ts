// GET /X.asmx?op=Op: an operation's page (docs/design.md#rule-25): a link back,
// a test form that posts to the HTTP POST binding, and a sample request and
// response for each binding. An unknown operation gets ASMX's
// `Method Not Found` page.
import type { EndpointModel, OperationModel, ParameterSpec } from '../../contract';
import { RESULT_TYPES } from '../results';
import { html, type Html } from '../../shared/markup';
import { renderEndpointPage } from './layout';
import { endpointHref, invokeHref } from './links';
import { operationSamples, type Sample, type SampleTarget, type SampleText } from './samples';

const placeholdersText = (binding: string): Html =>
  html`<p>The following is a sample ${binding} request and response.  The <var>placeholders</var> shown need to be replaced with actual values.</p>`;

export function renderOperationPage(endpoint: EndpointModel, operationName: string, target: SampleTarget): string {
  const operation = endpoint.operations.find((op) => op.wireName === operationName);
  const linkBack = html`<p>Click <a href="${endpointHref(endpoint.name)}">here</a> for a complete list of operations.</p>`;
  if (operation === undefined) {
    return renderEndpointPage(
      endpoint,
      html`${linkBack}
<h2>Method Not Found</h2>
<p>Method '${operationName}' was not found in service ${endpoint.name}.</p>`,
    );
  }
  return renderEndpointPage(
    endpoint,
    html`${linkBack}
<h2>${operation.wireName}</h2>
${testForm(endpoint, operation)}
${operationSamples(operation, endpoint.namespace, target).map((sample) => sampleBlock(sample, operation))}`,
    `${operation.wireName} - ${endpoint.name} Web Service`,
  );
}

function testForm(endpoint: EndpointModel, operation: OperationModel): Html {
  const fields = operation.parameters.map((parameter) => {
    const id = `param-${parameter.wireName}`;
    const hint = parameter.type === 'char' ? `hint-${parameter.wireName}` : null;
    // Phones must not capitalise or correct an identifier as it is typed.
    return html`<div class="field"><label for="${id}">${parameter.wireName}:</label><input type="text" id="${id}" name="${parameter.wireName}" autocapitalize="none" autocomplete="off" spellcheck="false"${hint === null ? null : html` aria-describedby="${hint}"`} />${hint === null ? null : html`<span class="hint" id="${hint}">One character (a .NET <code>char</code>).</span>`}</div>\n`;
  });
  return html`<h3>Test</h3>
<p>To test the operation using the HTTP POST protocol, click the 'Invoke' button.</p>
<form action="${invokeHref(endpoint.name, operation.wireName)}" method="POST" target="_blank" accept-charset="utf-8">
${fields}<p><input type="submit" value="Invoke" class="button" /></p>
</form>
<p class="note">${resultNote(operation)}</p>`;
}

function resultNote(operation: OperationModel): Html {
  const root = RESULT_TYPES[operation.result].httpRoot;
  if (root === null)
    return html`${operation.wireName} returns nothing: a successful call answers HTTP 200 with an empty body, so the new window stays blank.`;
  return html`The answer opens in a new window as the HTTP POST binding returns it: XML whose root element is <code>${root}</code>.`;
}

function sampleBlock(sample: Sample, operation: OperationModel): Html {
  const chars = sample.binding.startsWith('SOAP') ? operation.parameters.filter((p) => p.type === 'char') : [];
  return html`<section>
<h3>${sample.binding}</h3>
${placeholdersText(sample.binding)}
${chars.map(charNote)}<figure><figcaption>Request</figcaption><pre tabindex="0">${renderSampleText(sample.request)}</pre></figure>
<figure><figcaption>Response</figcaption><pre tabindex="0">${renderSampleText(sample.response)}</pre></figure>
</section>
`;
}

/** In SOAP a .NET char is its UTF-16 code, which surprises people who type the character (docs/design.md#rule-13). */
function charNote(parameter: ParameterSpec): Html {
  return html`<p class="note">In SOAP, <code>${parameter.wireName}</code> (a .NET <code>char</code>) is sent as its UTF-16 code in decimal: <code>49</code> for the character <code>1</code>.</p>\n`;
}

function renderSampleText(tokens: SampleText): Html[] {
  return tokens.map((token) => {
    switch (token.kind) {
      case 'text':
        return html`${token.text}`;
      case 'key':
        return html`<span class="key">${token.name}</span>`;
      case 'parameter':
      case 'result':
        return html`<var>${token.word}</var>`;
      case 'length':
        return html`<var>length</var>`;
    }
  });
}
