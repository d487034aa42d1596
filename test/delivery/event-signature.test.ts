// The delivery events' signature against the Standard Webhooks
// specification's published test vector: matching it is what lets a school
// verify our deliveries with any of that specification's libraries.
import { eventSignature, eventSigningKey, isEventSecret, newEventSecret } from '../../src/shared/event-signature';

const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('delivery event signature', () => {
  it('reproduces the Standard Webhooks test vector', () => {
    expect(eventSignature(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it('signs the same with the secret kept as a key, for every signature made with it', () => {
    const key = eventSigningKey(VECTOR.secret);
    expect(eventSignature(key, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(eventSignature(key, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(eventSignature(key, VECTOR.id, VECTOR.timestamp + 1, VECTOR.body)).toBe(
      eventSignature(VECTOR.secret, VECTOR.id, VECTOR.timestamp + 1, VECTOR.body),
    );
  });

  it('changes with the id, the timestamp and the body', () => {
    const { secret, id, timestamp, body, signature } = VECTOR;
    expect(eventSignature(secret, `${id}x`, timestamp, body)).not.toBe(signature);
    expect(eventSignature(secret, id, timestamp + 1, body)).not.toBe(signature);
    expect(eventSignature(secret, id, timestamp, `${body} `)).not.toBe(signature);
  });

  it('makes secrets of 32 random bytes, each different, that it accepts', () => {
    const made = newEventSecret();
    expect(made).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(made.slice(6), 'base64')).toHaveLength(32);
    expect(newEventSecret()).not.toBe(made);
    expect(isEventSecret(made)).toBe(true);
  });

  it('accepts whsec_ and the base64 of 24 to 64 bytes, nothing else', () => {
    expect(isEventSecret(VECTOR.secret)).toBe(true);
    expect(isEventSecret(`whsec_${Buffer.alloc(64).toString('base64')}`)).toBe(true);
    expect(isEventSecret(`whsec_${Buffer.alloc(23).toString('base64')}`)).toBe(false);
    expect(isEventSecret(`whsec_${Buffer.alloc(65).toString('base64')}`)).toBe(false);
    expect(isEventSecret('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe(false);
    expect(isEventSecret('whsec_not base64!')).toBe(false);
    expect(isEventSecret('whsec_')).toBe(false);
  });
});
