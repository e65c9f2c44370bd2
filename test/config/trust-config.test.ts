import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/config.ts';

describe('CHALLENGE_* and WEB_BOT_AUTH_*', () => {
  it('default to no proof of work, verification on, loopback refused', () => {
    const config = readConfig({});
    expect(config.challenge).toEqual({ mode: 'off', hmacKey: undefined, maxNumber: 10_000, expiresSeconds: 600, pressurePercent: 50, sourcePercent: 50 });
    expect(config.botAuth).toEqual({ enabled: true, allowLoopback: false, cacheSeconds: 3_600 });
  });

  it('stop the start on a malformed value, naming the variable', () => {
    for (const [name, value] of [
      ['CHALLENGE_MODE', 'sometimes'],
      ['CHALLENGE_MAX_NUMBER', '5'],
      ['CHALLENGE_PRESSURE_PERCENT', '101'],
      ['CHALLENGE_HMAC_KEY', 'too short'],
      ['WEB_BOT_AUTH_ALLOW_LOOPBACK', 'yes'],
    ]) {
      expect(() => readConfig({ [name!]: value }), name).toThrow(ConfigError);
      expect(() => readConfig({ [name!]: value }), name).toThrow(new RegExp(`^${name}:`));
    }
  });
});
