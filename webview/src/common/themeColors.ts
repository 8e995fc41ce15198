/**
 * Colours for canvas drawing (chart.js, the heatmap), read from VS Code's theme variables at draw
 * time: a canvas cannot use CSS variables itself. Fallbacks only for a page without a theme.
 */

export interface ThemeColors {
  foreground: string;
  muted: string;
  grid: string;
  background: string;
  focus: string;
  fontFamily: string;
  fontSize: number;
  /** Series colours: realized, reachable, blind, repair, unreached, then more for extra probes. */
  series: string[];
  realized: string;
  reachable: string;
  blind: string;
  repair: string;
  damage: string;
  unreached: string;
  /** Heatmap: repaired cell / not repaired cell. */
  cellOn: string;
  cellOff: string;
}

function read(style: CSSStyleDeclaration, name: string, fallback: string): string {
  const value = style.getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

export function themeColors(): ThemeColors {
  const style = getComputedStyle(document.body);
  const blue = read(style, '--vscode-charts-blue', '#3794ff');
  const green = read(style, '--vscode-charts-green', '#89d185');
  const purple = read(style, '--vscode-charts-purple', '#b180d7');
  const orange = read(style, '--vscode-charts-orange', '#d18616');
  const red = read(style, '--vscode-charts-red', '#f14c4c');
  const yellow = read(style, '--vscode-charts-yellow', '#cca700');
  const foreground = read(style, '--vscode-foreground', '#cccccc');
  const size = parseFloat(read(style, '--vscode-font-size', '13'));
  const muted = read(style, '--vscode-descriptionForeground', foreground);
  return {
    foreground,
    muted,
    grid: read(style, '--vscode-editorWidget-border', read(style, '--vscode-panel-border', 'rgba(128,128,128,0.35)')),
    background: read(style, '--vscode-editor-background', '#1e1e1e'),
    focus: read(style, '--vscode-focusBorder', blue),
    fontFamily: read(style, '--vscode-font-family', 'sans-serif'),
    fontSize: Number.isFinite(size) ? Math.max(10, size - 2) : 11,
    series: [blue, orange, purple, green, yellow, red],
    realized: green,
    reachable: blue,
    blind: purple,
    repair: orange,
    damage: red,
    unreached: red,
    cellOn: orange,
    cellOff: withAlpha(muted, 0.2),
  };
}

/** `color` with `alpha` (0..1) for bands and fills; works for #rgb, #rrggbb and rgb()/rgba(). */
export function withAlpha(color: string, alpha: number): string {
  const c = color.trim();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(c);
  if (hex) {
    let digits = hex[1];
    if (digits.length === 3) digits = digits.split('').map((d) => d + d).join('');
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16));
    return `rgba(${r}, ${g}, ${b}, ${alpha})`;
  }
  const rgb = /^rgba?\(([^)]+)\)$/i.exec(c);
  if (rgb) {
    const [r, g, b] = rgb[1].split(/[\s,/]+/).filter(Boolean);
    return `rgba(${r}, ${g}, ${b}, ${alpha})`;
  }
  return c;
}
