/**
 * A chart's canvas names the series it draws with their colours (`data-series`, JSON of
 * `[label, colour]`), taken from the very datasets handed to chart.js: the colours are painted
 * into pixels, so this is how a page check (panel and Tables tests) reads which colour each probe
 * got in each chart. Band datasets (labels ending in a zero-width space) are left out.
 */
interface SeriesLike {
  label?: string;
  borderColor?: unknown;
}

export function markSeries(canvas: HTMLCanvasElement, datasets: readonly SeriesLike[]): void {
  const series = datasets
    .filter((d) => typeof d.label === 'string' && !d.label.endsWith('\u200b'))
    .map((d) => [d.label, typeof d.borderColor === 'string' ? d.borderColor : null]);
  canvas.dataset.series = JSON.stringify(series);
}
