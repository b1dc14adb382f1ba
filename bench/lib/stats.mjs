// Order statistics over samples. Quantiles are "nearest rank" on the sorted
// samples: no interpolation, so a reported figure is always one that was
// actually measured.

export function quantile(samples, q) {
  if (samples.length === 0) return NaN
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

export const median = (samples) => quantile(samples, 0.5)

/** Median, p95, p99, min, max and count of a list of samples. */
export function summarize(samples) {
  return {
    n: samples.length,
    median: median(samples),
    p95: quantile(samples, 0.95),
    p99: quantile(samples, 0.99),
    min: samples.length ? Math.min(...samples) : NaN,
    max: samples.length ? Math.max(...samples) : NaN,
  }
}
