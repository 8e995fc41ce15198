/** chart.js has no error bars: both chart pages draw each 95% interval as a whisker with end caps. */

/**
 * One whisker from a to b (pixels along the value axis) at `at` (pixels along the other axis):
 * vertical for a column or a point, horizontal for a bar of a horizontal chart.
 */
export function drawWhisker(ctx: CanvasRenderingContext2D, at: number, a: number, b: number, horizontal: boolean, cap = 3): void {
  ctx.beginPath();
  if (horizontal) {
    ctx.moveTo(a, at);
    ctx.lineTo(b, at);
    ctx.moveTo(a, at - cap);
    ctx.lineTo(a, at + cap);
    ctx.moveTo(b, at - cap);
    ctx.lineTo(b, at + cap);
  } else {
    ctx.moveTo(at, a);
    ctx.lineTo(at, b);
    ctx.moveTo(at - cap, a);
    ctx.lineTo(at + cap, a);
    ctx.moveTo(at - cap, b);
    ctx.lineTo(at + cap, b);
  }
  ctx.stroke();
}
