// A school's key from its base URL (src/domain/school-key.ts,
// docs/design.md#school-matching), the same whether computed or kept.
import { schoolKey } from '../../src/domain/school-key';

describe('school keys', () => {
  it('matches scheme and host in any case, a trailing / ignored, the same from what it keeps', () => {
    for (let round = 0; round < 2; round++) {
      expect(schoolKey('HTTPS://Alnoor.School.Example/')).toBe('https://alnoor.school.example');
      expect(schoolKey(' https://alnoor.school.example:443/app// ')).toBe('https://alnoor.school.example/app');
      expect(schoolKey('not a url/')).toBe('not a url');
    }
  });

  it('gives every key right past the number it keeps', () => {
    for (let i = 0; i < 3000; i++) expect(schoolKey(`https://S${i}.example/`)).toBe(`https://s${i}.example`);
    expect(schoolKey('https://S1.example/')).toBe('https://s1.example');
  });
});
