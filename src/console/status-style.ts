// How a message's status looks wherever it is shown (docs/console.md#overview):
// sent in green, retrying in amber, dead and uncertain (given up) in red, each
// with its name beside the colour, so that retrying and dead are told apart by
// colour and by text alike. A refused call (never queued) reads as given up.
import type { OutboxStatus } from '../store';

/** The class of a status's name: `ok`, `retrying`, `given-up`, or none. */
export function statusClass(status: OutboxStatus | 'refused'): string {
  switch (status) {
    case 'sent':
      return 'ok';
    case 'failed':
      return 'retrying';
    case 'dead':
    case 'uncertain':
    case 'refused':
      return 'given-up';
    default:
      return '';
  }
}
