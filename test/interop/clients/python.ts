// Python: zeep, which reads the WSDL at run time and binds any of its ports,
// SOAP and HTTP alike. Debian's python3-zeep, so /usr/bin/python3 (another
// python3 may come first on PATH).
import { ALL_BINDINGS } from '../calls';
import { driverFile, isExecutable } from '../paths';
import { MINUTE, run } from '../process';
import { drivers, type InteropClient } from './client';

const PYTHON = '/usr/bin/python3';

export const python: InteropClient = {
  name: 'python',
  title: 'Python: zeep',
  packages: ['python3-zeep'],
  bindings: ALL_BINDINGS,

  // zeep raises its Fault for a SOAP fault and, over GET/POST, for any answer that is not a 200.
  faultType: () => 'zeep.exceptions.Fault',
  // Over SOAP, zeep's error for an answer that is neither a 200 nor a fault, with its status_code; over
  // GET/POST its Fault again, with the answer's text as the message (the status code is not kept).
  unauthorizedType: (binding) =>
    binding.startsWith('soap') ? 'zeep.exceptions.TransportError' : 'zeep.exceptions.Fault',

  async missing() {
    if (!isExecutable(PYTHON)) return [PYTHON];
    const probe = await run({ file: PYTHON, args: ['-c', 'import zeep'] }, MINUTE);
    return probe.code === 0 ? [] : ['the zeep module'];
  },

  prepare(context) {
    return Promise.resolve(
      drivers(ALL_BINDINGS, (binding) => ({
        file: PYTHON,
        args: ['-B', driverFile('python', 'driver.py'), binding, context.baseUrl],
      })),
    );
  },
};
