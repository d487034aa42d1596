// The bounds on recording refused calls (src/operations/refused-call.ts):
// per second, writes at once, and counted per service instance.
import { MAX_IN_FLIGHT, RECORDS_PER_SECOND, RefusalRecorder } from '../../src/operations/refused-call';

function takeAll(recorder: RefusalRecorder, tries: number): number {
  let taken = 0;
  for (let i = 0; i < tries; i++) {
    if (recorder.take()) {
      taken += 1;
      recorder.done();
    }
  }
  return taken;
}

describe('RefusalRecorder', () => {
  it('records up to RECORDS_PER_SECOND a second, and again in the next second', () => {
    let now = 1_700_000_000_000;
    const recorder = new RefusalRecorder(() => now);
    expect(takeAll(recorder, RECORDS_PER_SECOND * 3)).toBe(RECORDS_PER_SECOND);
    now += 1000;
    expect(takeAll(recorder, RECORDS_PER_SECOND * 3)).toBe(RECORDS_PER_SECOND);
  });

  it('holds at most MAX_IN_FLIGHT writes at once, and frees a place when one is done', () => {
    let now = 0;
    const recorder = new RefusalRecorder(() => now);
    let taken = 0;
    // Spread over seconds so that the per-second bound is not the one reached.
    for (let i = 0; i < MAX_IN_FLIGHT * 2; i++) {
      if (i % RECORDS_PER_SECOND === 0) now += 1000;
      if (recorder.take()) taken += 1;
    }
    expect(taken).toBe(MAX_IN_FLIGHT);
    recorder.done();
    now += 1000;
    expect(recorder.take()).toBe(true);
    expect(recorder.take()).toBe(false);
  });

  it('counts for one service instance: a second one has its own budget', () => {
    const now = () => 5_000;
    const first = new RefusalRecorder(now);
    const second = new RefusalRecorder(now);
    expect(takeAll(first, RECORDS_PER_SECOND + 1)).toBe(RECORDS_PER_SECOND);
    expect(takeAll(second, RECORDS_PER_SECOND + 1)).toBe(RECORDS_PER_SECOND);
  });
});
