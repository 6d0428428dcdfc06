/**
 * Exponential moving average with TensorBoard's debiasing, so the first points are not pulled
 * towards zero. weight 0 returns the values unchanged; nulls (gaps, non-finite points) are kept
 * as nulls and do not disturb the average.
 */
export function smooth(values: readonly (number | null)[], weight: number): (number | null)[] {
  if (weight <= 0) return values.slice();
  let average = 0;
  let seen = 0;
  return values.map((value) => {
    if (value === null) return null;
    seen++;
    average = average * weight + (1 - weight) * value;
    return average / (1 - weight ** seen);
  });
}
