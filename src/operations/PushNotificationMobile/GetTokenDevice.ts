// GetTokenDevice(id): a device's push token; an unknown device, or one
// without a token, is the null string (docs/design.md#what-each-operation-does).
import type { GetTokenDeviceArgs, GetTokenDeviceResult } from '../../contract/generated';
import type { OperationDeps } from '../define';

export const GetTokenDevice =
  ({ store }: OperationDeps) =>
  async ({ id: deviceId }: GetTokenDeviceArgs): Promise<GetTokenDeviceResult> => {
    if (deviceId === null) return null;
    return store.records.getDeviceToken(deviceId);
  };
