// src/contract/generated.ts is written from wsdl/*.wsdl by `npm run contract`;
// the WSDL files stay the source, and this test fails when the committed
// file no longer matches them.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ContractSourceError, GENERATED_FILE, renderContract } from '../../src/contract/generate';
import { WSDL_DIR } from '../../src/contract/wsdl-reader';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'wsdl-'));
  cpSync(WSDL_DIR, dir, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const edit = (file: string, from: string, to: string) => {
  const target = path.join(dir, file);
  const text = readFileSync(target, 'utf8');
  expect(text).toContain(from);
  writeFileSync(target, text.replaceAll(from, to));
};

describe('the generated contract', () => {
  it('is what npm run contract writes from the WSDL files today (run it after changing one)', async () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(await renderContract());
  });

  it('changes with a WSDL: a renamed parameter is a new argument name and reader', async () => {
    edit('PushNotificationMobile.wsdl', 'name="id" type="s:string"', 'name="deviceKey" type="s:string"');
    const text = await renderContract(dir);
    expect(text).not.toBe(readFileSync(GENERATED_FILE, 'utf8'));
    expect(text).toContain('export interface GetTokenDeviceArgs {\n  readonly deviceKey: string | null;\n}');
    expect(text).toContain('GetTokenDevice: (values) => ({ deviceKey: values[0] ?? null }),');
  });

  it('refuses a parameter type the contract has no reader for', async () => {
    edit('PushNotificationMobile.wsdl', 'name="id" type="s:string"', 'name="id" type="s:int"');
    await expect(renderContract(dir)).rejects.toThrow(
      new ContractSourceError(
        'PushNotificationMobile.wsdl, operation GetTokenDevice: parameter id has the type s:int, which the contract does not use',
      ),
    );
  });

  it('refuses a WSDL whose service is not named after its file', async () => {
    cpSync(path.join(dir, 'PushNotificationMobile.wsdl'), path.join(dir, 'Other.wsdl'));
    await expect(renderContract(dir)).rejects.toThrow(
      'Other.wsdl: the service is named PushNotificationMobile, not after its file',
    );
  });
});
