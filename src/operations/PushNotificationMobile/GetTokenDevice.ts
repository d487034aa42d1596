// GetTokenDevice(id): a device's push token; an unknown device, or one
// without a token, is the null string (docs/design.md#what-each-operation-does).
import type { GetTokenDeviceArgs, GetTokenDeviceResult } from '../../contract/generated';
import type { OperationDeps } from '../define';
import { holdsNul } from '../../shared/nul';

export const GetTokenDevice =
  ({ store }: OperationDeps) =>
  ({ id: deviceId }: GetTokenDeviceArgs): GetTokenDeviceResult | Promise<GetTokenDeviceResult> =>
    // Not async: the token read at once is the answer at once (docs/benchmark.md#fourth-round).
    // A missing id, or one holding a NUL, matches nothing (src/shared/nul.ts).
    deviceId === null || holdsNul(deviceId) ? null : store.records.getDeviceToken(deviceId);
