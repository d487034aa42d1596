import { SharedResources } from '../../src/store/connection/shared-resources';

describe('SharedResources', () => {
  it('creates once per key, and destroys when the last user releases', async () => {
    const shared = new SharedResources<{ n: number }>();
    const create = jest.fn(async () => ({ n: 1 }));
    const destroy = jest.fn(async () => undefined);
    const [a, b] = await Promise.all([shared.acquire('k', create, destroy), shared.acquire('k', create, destroy)]);
    expect(create).toHaveBeenCalledTimes(1);
    expect(a.value).toBe(b.value);
    await a.release();
    await a.release();
    expect(destroy).not.toHaveBeenCalled();
    await b.release();
    expect(destroy).toHaveBeenCalledTimes(1);
    await shared.acquire('k', create, destroy);
    expect(create).toHaveBeenCalledTimes(2);
  });

  it('forgets a failed creation so that the next attempt retries', async () => {
    const shared = new SharedResources<string>();
    const destroy = async () => undefined;
    await expect(shared.acquire('k', () => Promise.reject(new Error('down')), destroy)).rejects.toThrow('down');
    await expect(shared.acquire('k', () => Promise.resolve('up'), destroy)).resolves.toMatchObject({ value: 'up' });
  });
});
