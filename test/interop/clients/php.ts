// PHP: ext-soap's SoapClient, which loads the WSDL at run time; its
// soap_version option picks SOAP 1.1 or 1.2 over the same SOAP binding.
import type { Binding } from '../calls';
import { driverFile, isExecutable } from '../paths';
import { MINUTE, run } from '../process';
import { drivers, type InteropClient } from './client';

const BINDINGS: readonly Binding[] = ['soap11', 'soap12'];

export const php: InteropClient = {
  name: 'php',
  title: 'PHP: SoapClient',
  packages: ['php-cli', 'php-soap'],
  bindings: BINDINGS,

  faultType: () => 'SoapFault',

  async missing() {
    if (!isExecutable('php')) return ['php'];
    const probe = await run({ file: 'php', args: ['-r', 'exit(class_exists("SoapClient") ? 0 : 1);'] }, MINUTE);
    return probe.code === 0 ? [] : ['the soap extension'];
  },

  prepare(context) {
    return Promise.resolve(drivers(BINDINGS, (binding) => ({ file: 'php', args: [driverFile('php', 'driver.php'), binding, context.baseUrl] })));
  },
};
