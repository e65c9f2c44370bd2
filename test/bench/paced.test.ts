import { describe, expect, it } from 'vitest';
import { percentile } from '../../bench/paced.ts';

describe('bench percentiles', () => {
  it('takes the nearest rank of sorted values', () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile(values, 1)).toBe(100);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([1, 2, 3], 0)).toBe(1);
  });

  it('gives 0 for no values', () => {
    expect(percentile([], 0.99)).toBe(0);
  });
});
