'use strict';

// The SVG chart of bench.js's `--json` runs: a panel per op, a line per run of one implementation's speed-up per size, a bar
// its spread. Plain SVG on its own background, no script or external font: it reads the same in light or dark mode.

const { formatSize } = require('./common');

const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9']; // Okabe–Ito
const OP_TITLES = { mask: 'mask into another buffer', 'mask-in-place': 'mask in place', unmask: 'unmask' };
const [WIDTH, HEIGHT, LEFT, GAP, TOP] = [300, 230, 44, 26, 92]; // a panel's, its left margin and gap, the title's height

const xml = (text) => String(text).replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);
const text = (x, y, body, attrs = '') => `<text x="${x}" y="${y}"${attrs ? ` ${attrs}` : ''}>${xml(body)}</text>`;
const round = (n) => Math.round(n * 10) / 10;

/** The chart of `runs`, `id`'s ratio to `baseline` per op and size; throws when no run has that ratio. */
function chart(runs, { id = 'bufferutil-simd', baseline = 'bufferutil', note } = {}) {
  const series = runs.map((run, i) => ({
    label: run.runtime,
    color: COLORS[i % COLORS.length],
    dx: (i - (runs.length - 1) / 2) * 4, // each line's bars a few pixels apart, not hiding each other's
    points: run.cells
      .map(({ op, size, rows }) => ({ op, size, ratio: rows.find((row) => row.id === id)?.ratios?.[baseline] }))
      .filter((point) => point.ratio),
  }));
  const points = series.flatMap((s) => s.points);
  if (!points.length) throw new Error(`no ${id} ÷ ${baseline} ratio in the results`);
  const ops = Object.keys(OP_TITLES).filter((op) => points.some((p) => p.op === op));
  const sizes = [...new Set(points.map((p) => p.size))].sort((a, b) => a - b);
  const top = Math.max(2, Math.ceil(Math.max(...points.map((p) => p.ratio.max))));
  const step = top > 6 ? 2 : top > 3 ? 1 : 0.5;
  const [width, height] = [LEFT + ops.length * (WIDTH + GAP), TOP + HEIGHT + 74];
  const x = (size) => (sizes.length === 1 ? WIDTH / 2 : 12 + (sizes.indexOf(size) * (WIDTH - 24)) / (sizes.length - 1));
  const y = (ratio) => round(TOP + HEIGHT - (Math.min(ratio, top) / top) * HEIGHT);
  const baseLabel = runs[0].implementations?.find((impl) => impl.id === baseline)?.label ?? baseline;
  const [spreadOf, one] = runs[0].spread === 'processes' ? ['processes', 'process'] : ['rounds', 'round'];
  const font = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";
  const about = `median of ${spreadOf}' median per-round ratios, bar: lowest–highest ${one} · large sizes depend on the CPU's caches`;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${font}" font-size="12" fill="#222">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    text(LEFT, 24, `${id} speed-up over ${baseLabel} (above 1: faster)`, 'font-size="16" font-weight="600"'),
    text(LEFT, 44, `CPU: ${runs[0].cpu}${note ? ` (${note})` : ''}`, 'font-size="13"'),
    text(LEFT, 62, `${runs[0].date?.slice(0, 10) ?? ''} · ${about}`, 'font-size="11" fill="#555"'),
  ];
  // Shapes that share their look share one element: a path of many strokes, a group's attributes.
  const group = (attrs, items) => `<g ${attrs}>${items.join('')}</g>`;
  const ticks = Array.from({ length: Math.floor(top / step + 1e-9) + 1 }, (_, i) => i * step);
  ops.forEach((op, o) => {
    out.push(`<g transform="translate(${LEFT + o * (WIDTH + GAP)} 0)">`);
    out.push(text(WIDTH / 2, TOP - 10, OP_TITLES[op], 'text-anchor="middle" font-weight="600"'));
    const grid = ticks.map((tick) => (tick === 1 ? '' : `M0 ${y(tick)}H${WIDTH}`)).join(''); // 1× is dashed
    out.push(`<path d="${grid}" stroke="#e4e4e4"/>`, `<path d="M0 ${y(1)}H${WIDTH}" stroke="#555" stroke-dasharray="4 3"/>`);
    const tickLabels = ticks.map((tick) => text(-6, y(tick) + 4, `${tick}×`));
    if (o === 0) out.push(group('text-anchor="end" fill="#555"', tickLabels));
    out.push(`<rect x="0" y="${TOP}" width="${WIDTH}" height="${HEIGHT}" fill="none" stroke="#999"/>`);
    const labels = sizes.map((size) => text(round(x(size)), TOP + HEIGHT + 16, formatSize(size)));
    out.push(group('text-anchor="middle" font-size="10" fill="#555"', labels));
    for (const { color, dx, points: all } of series) {
      const mine = all.filter((p) => p.op === op).map((p) => ({ ...p, cx: round(x(p.size) + dx) }));
      if (!mine.length) continue;
      const path = mine.map((p, i) => `${i ? 'L' : 'M'}${p.cx} ${y(p.ratio.median)}`).join('');
      out.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="2"/>`);
      const bars = mine.map((p) => `M${p.cx} ${y(p.ratio.min)}V${y(p.ratio.max)}`).join('');
      out.push(`<path d="${bars}" stroke="${color}" stroke-opacity="0.45" stroke-width="5"/>`);
      const dots = mine.map((p) => `<circle cx="${p.cx}" cy="${y(p.ratio.median)}" r="3"/>`);
      out.push(group(`fill="${color}"`, dots));
    }
    out.push('</g>');
  });
  let legendX = LEFT;
  const legendY = TOP + HEIGHT + 44;
  for (const { label, color } of series) {
    out.push(`<path d="M${legendX} ${legendY - 4}h22" stroke="${color}" stroke-width="3"/>`, text(legendX + 28, legendY, label));
    legendX += 40 + label.length * 7;
  }
  out.push(text(legendX + 10, legendY, `dashed: 1× (as fast as ${baseline})`, 'fill="#555"'), '</svg>');
  return `${out.join('\n')}\n`;
}

module.exports = { chart };
