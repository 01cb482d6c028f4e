'use strict';

// The SVG chart of bench.js's results: per op a panel, per run (a runtime) a line of one implementation's
// speed-up over a baseline at each size, the median with its spread as a bar. Plain SVG with its own
// background and no script or external font, so it reads the same in a GitHub README in light or dark mode.

const { formatSize } = require('./common');

const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9']; // Okabe–Ito
const OP_TITLES = { mask: 'mask into another buffer', 'mask-in-place': 'mask in place', unmask: 'unmask' };
const PANEL = { width: 300, height: 230, left: 44, gap: 26 };
const TOP = 92;

const xml = (text) => String(text).replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);
const text = (x, y, body, attrs = '') => `<text x="${x}" y="${y}"${attrs ? ` ${attrs}` : ''}>${xml(body)}</text>`;
const round = (n) => Math.round(n * 10) / 10;

/**
 * The chart of `runs` (bench.js `--json` summaries, one per runtime), `id`'s ratio to `baseline` per op
 * and size. Throws when no run has that ratio.
 */
function chart(runs, { id = 'bufferutil-simd', baseline = 'bufferutil', note } = {}) {
  const series = runs.map((run, i) => {
    const points = run.cells
      .map(({ op, size, rows }) => ({ op, size, ratio: rows.find((row) => row.id === id)?.ratios?.[baseline] }))
      .filter((point) => point.ratio);
    // Each line's bars a few pixels apart, so that lines at one size do not hide each other's.
    return { label: run.runtime, color: COLORS[i % COLORS.length], dx: (i - (runs.length - 1) / 2) * 4, points };
  });
  const points = series.flatMap((s) => s.points);
  if (!points.length) throw new Error(`no ${id} ÷ ${baseline} ratio in the results`);
  const ops = Object.keys(OP_TITLES).filter((op) => points.some((p) => p.op === op));
  const sizes = [...new Set(points.map((p) => p.size))].sort((a, b) => a - b);
  const top = Math.max(2, Math.ceil(Math.max(...points.map((p) => p.ratio.max ?? p.ratio.median))));
  const step = top > 6 ? 2 : top > 3 ? 1 : 0.5;
  const width = PANEL.left + ops.length * (PANEL.width + PANEL.gap);
  const height = TOP + PANEL.height + 74;
  const x = (size) =>
    sizes.length === 1 ? PANEL.width / 2 : 12 + (sizes.indexOf(size) * (PANEL.width - 24)) / (sizes.length - 1);
  const y = (ratio) => TOP + PANEL.height - (Math.min(ratio, top) / top) * PANEL.height;
  const baseLabel = runs[0].implementations?.find((impl) => impl.id === baseline)?.label ?? baseline;
  const spreadOf = runs[0].spread === 'processes' ? 'processes' : 'rounds';
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" font-size="12" fill="#222">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    text(PANEL.left, 24, `${id} speed-up over ${baseLabel} (above 1: faster)`, 'font-size="16" font-weight="600"'),
    text(PANEL.left, 44, `CPU: ${runs[0].cpu}${note ? ` (${note})` : ''}`, 'font-size="13"'),
    text(
      PANEL.left,
      62,
      `${runs[0].date?.slice(0, 10) ?? ''} · median of ${spreadOf}' median per-round ratios, bar: lowest–highest ${spreadOf === 'processes' ? 'process' : 'round'} · large sizes depend on the CPU's caches`,
      'font-size="11" fill="#555"'
    ),
  ];
  ops.forEach((op, o) => {
    const left = PANEL.left + o * (PANEL.width + PANEL.gap);
    out.push(`<g transform="translate(${left} 0)">`);
    out.push(text(PANEL.width / 2, TOP - 10, OP_TITLES[op], 'text-anchor="middle" font-weight="600"'));
    for (let tick = 0; tick <= top + 1e-9; tick += step) {
      const attrs = tick === 1 ? 'stroke="#555" stroke-dasharray="4 3"' : 'stroke="#e4e4e4"';
      out.push(`<line x1="0" x2="${PANEL.width}" y1="${round(y(tick))}" y2="${round(y(tick))}" ${attrs}/>`);
      if (o === 0) out.push(text(-6, round(y(tick)) + 4, `${tick}×`, 'text-anchor="end" fill="#555"'));
    }
    out.push(`<rect x="0" y="${TOP}" width="${PANEL.width}" height="${PANEL.height}" fill="none" stroke="#999"/>`);
    for (const size of sizes) {
      out.push(
        text(round(x(size)), TOP + PANEL.height + 16, formatSize(size), 'text-anchor="middle" font-size="10" fill="#555"')
      );
    }
    for (const { color, dx, points: all } of series) {
      const mine = all.filter((p) => p.op === op);
      if (!mine.length) continue;
      const path = mine.map((p, i) => `${i ? 'L' : 'M'}${round(x(p.size) + dx)} ${round(y(p.ratio.median))}`).join(' ');
      out.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="2"/>`);
      for (const { size, ratio } of mine) {
        const cx = round(x(size) + dx);
        if (ratio.min !== undefined)
          out.push(
            `<line x1="${cx}" x2="${cx}" y1="${round(y(ratio.min))}" y2="${round(y(ratio.max))}" stroke="${color}" stroke-opacity="0.45" stroke-width="5"/>`
          );
        out.push(`<circle cx="${cx}" cy="${round(y(ratio.median))}" r="3" fill="${color}"/>`);
      }
    }
    out.push('</g>');
  });
  let legendX = PANEL.left;
  const legendY = TOP + PANEL.height + 44;
  for (const { label, color } of series) {
    out.push(
      `<line x1="${legendX}" x2="${legendX + 22}" y1="${legendY - 4}" y2="${legendY - 4}" stroke="${color}" stroke-width="3"/>`
    );
    out.push(text(legendX + 28, legendY, label));
    legendX += 40 + label.length * 7;
  }
  out.push(text(legendX + 10, legendY, `dashed: 1× (as fast as ${baseline})`, 'fill="#555"'));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

module.exports = { chart };
