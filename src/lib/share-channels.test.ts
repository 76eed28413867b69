/** The button text a theme's accent gets: whichever of white and black reads on it at WCAG AA. */
import { describe, expect, it } from 'vitest';
import { contrastRatio, textOnAccent, themeVariables } from './share-channels.js';

describe('text on an accent', () => {
  it('contrast ratios as WCAG computes them', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBe(1);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  it('white on a dark accent, black on a pale one (the accent that left white text at 2.1:1 included)', () => {
    expect(textOnAccent('#4338ca')).toBe('#ffffff');
    expect(textOnAccent('#9d174d')).toBe('#ffffff');
    expect(textOnAccent('#f59e0b')).toBe('#000000'); // white on it: 2.15:1
    expect(contrastRatio('#f59e0b', '#ffffff')).toBeLessThan(2.2);
    expect(textOnAccent('#fde047')).toBe('#000000');
    expect(textOnAccent('#777777')).toBe('#000000');
  });

  it('every accent of a 4,096-colour sweep gets text at 4.5:1 or better', () => {
    const hex = (n: number) => n.toString(16).padStart(2, '0');
    let worst = 21;
    for (let r = 0; r < 256; r += 17)
      for (let g = 0; g < 256; g += 17)
        for (let b = 0; b < 256; b += 17) {
          const accent = `#${hex(r)}${hex(g)}${hex(b)}`;
          worst = Math.min(worst, contrastRatio(accent, textOnAccent(accent)));
        }
    expect(worst).toBeGreaterThanOrEqual(4.5);
  });

  it("a theme's variables carry the text colour with the accent, and nothing without one", () => {
    expect(themeVariables({ accent: '#f59e0b' }, '--cs-')).toEqual([
      ['--cs-accent', '#f59e0b'],
      ['--cs-accent-text', '#000000'],
    ]);
    expect(themeVariables({ radius: 4 }, '--cs-')).toEqual([['--cs-radius', '4px']]);
  });
});
