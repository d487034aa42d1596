// ?wsdl and ?disco: the service description with every address pointing at
// the URL the client used, written as .NET does (UTF-8, no BOM, CRLF).
import { create } from 'xmlbuilder2';
import { AUTHORED_ADDRESS_PREFIX, type EndpointModel } from '../../contract';
import { escapeAttribute } from '../../shared/markup';

export interface DescriptionDocuments {
  wsdl(address: string): string;
  disco(address: string): string;
}

export function createDescriptionDocuments(endpoint: EndpointModel): DescriptionDocuments {
  const placeholder = `location="${AUTHORED_ADDRESS_PREFIX}${endpoint.name}.asmx"`;
  const pieces = endpoint.wsdl.replace(/\r?\n/g, '\r\n').split(placeholder);
  if (pieces.length !== 5) {
    throw new Error(`${endpoint.name}.wsdl must hold the address ${placeholder} once per port (4), found ${pieces.length - 1}`);
  }
  const namespace = endpoint.namespace;

  return {
    wsdl(address) {
      return pieces.join(`location="${escapeAttribute(address)}"`);
    },
    disco(address) {
      const soapEntry = (prefix: string, binding: string) => ({
        address,
        [`xmlns:${prefix}`]: namespace,
        binding: `${prefix}:${binding}`,
        xmlns: 'http://schemas.xmlsoap.org/disco/soap/',
      });
      return create({ version: '1.0', encoding: 'utf-8' })
        .ele('discovery', {
          'xmlns:xsd': 'http://www.w3.org/2001/XMLSchema',
          'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
          xmlns: 'http://schemas.xmlsoap.org/disco/',
        })
        .ele('contractRef', { ref: `${address}?wsdl`, docRef: address, xmlns: 'http://schemas.xmlsoap.org/disco/scl/' })
        .up()
        .ele('soap', soapEntry('q1', `${endpoint.name}Soap`))
        .up()
        .ele('soap', soapEntry('q2', `${endpoint.name}Soap12`))
        .up()
        .end({ prettyPrint: true, indent: '  ', newline: '\r\n', spaceBeforeSlash: true });
    },
  };
}
