// PHP: ext-soap's SoapClient, which loads the WSDL at run time; its
// soap_version option picks SOAP 1.1 or 1.2 over the same SOAP binding.
import type { Binding } from '../calls';
import { driverFile, isExecutable } from '../paths';
import { MINUTE, run } from '../process';
import { drivers, saveWsdls, type InteropClient } from './client';

const BINDINGS: readonly Binding[] = ['soap11', 'soap12'];

export const php: InteropClient = {
  name: 'php',
  title: 'PHP: SoapClient',
  packages: ['php-cli', 'php-soap'],
  bindings: BINDINGS,

  faultType: () => 'SoapFault',
  // ext-soap raises an HTTP error as a SoapFault too: faultcode HTTP, the status text as its message.
  unauthorizedType: () => 'SoapFault',

  async missing() {
    if (!isExecutable('php')) return ['php'];
    const probe = await run({ file: 'php', args: ['-r', 'exit(class_exists("SoapClient") ? 0 : 1);'] }, MINUTE);
    return probe.code === 0 ? [] : ['the soap extension'];
  },

  async prepare(context) {
    // The auth run's refused call needs a SoapClient without login: it loads the WSDL from a local copy.
    let wsdlDir: string[] = [];
    if (context.credentials !== undefined)
      wsdlDir = [await saveWsdls({ ...context, credentials: context.credentials })];
    return drivers(BINDINGS, (binding) => ({
      file: 'php',
      args: [driverFile('php', 'driver.php'), binding, context.baseUrl, ...wsdlDir],
    }));
  },
};
