'use strict';

// Draws a bench.js result file as an SVG: throughput against size, log–log, one line per implementation,
// one panel per case. vega-lite writes the chart; vega renders it headless (no browser, no canvas).
//
//   node benchmark/chart.js [results/bench-node20.json [out.svg]]

const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');
const { ensureTools } = require('../scripts/tools');

const MiB = 1024 * 1024;

function chartSpec(report) {
  const labels = new Map(report.implementations.map((impl) => [impl.id, impl.label]));
  const groups = new Map(report.implementations.map((impl) => [impl.id, impl.group]));
  const titles = new Map(report.cases.map((c) => [c.id, c.title]));
  // Implementations called directly (schema 2 also has them behind ws's wrapper: `view: 'ws'`).
  const values = report.results.filter((r) => (r.view ?? 'direct') === 'direct').map((r) => ({
    case: titles.get(r.case),
    implementation: labels.get(r.impl),
    line: groups.get(r.impl) === 'reference' ? 'reference (copy/fill, not masking)' : 'masking',
    size: r.size,
    gbps: r.gbps,
    ns: r.medianNs,
  }));
  const { machine } = report;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `WebSocket masking throughput (${report.mode === 'quick' ? 'a QUICK run: not meaningful' : 'median of interleaved rounds, each at its own call site'})`,
      subtitle: `${machine.cpu.model}, ${machine.cpu.logicalCores} threads · ${report.runtime ?? `Node ${machine.node}`} · ` +
        `bufferutil-simd ${report.bufferutilSimd.backend} (${report.bufferutilSimd.addon.profile}) · ${report.date.slice(0, 10)}`,
    },
    data: { values },
    facet: { field: 'case', type: 'nominal', title: null, sort: report.cases.map((c) => c.title) },
    columns: 3,
    spec: {
      width: 330,
      height: 260,
      mark: { type: 'line', point: { size: 18 }, strokeWidth: 1.5 },
      encoding: {
        x: {
          field: 'size',
          type: 'quantitative',
          title: 'payload size (bytes)',
          scale: { type: 'log', base: 2, nice: false },
          axis: {
            values: [16, 64, 256, 1024, 4096, 16384, 65536, 262144, MiB, 4 * MiB, 16 * MiB],
            labelExpr: "datum.value >= 1048576 ? datum.value / 1048576 + ' MiB' : datum.value >= 1024 ? datum.value / 1024 + ' KiB' : datum.value + ' B'",
            labelAngle: -45,
          },
        },
        y: { field: 'gbps', type: 'quantitative', title: 'GB/s (bytes ÷ median ns)', scale: { type: 'log' } },
        color: {
          field: 'implementation',
          type: 'nominal',
          title: 'implementation',
          sort: [...labels.values()],
          legend: { labelLimit: 400 },
        },
        strokeDash: { field: 'line', type: 'nominal', title: null },
        tooltip: [{ field: 'implementation' }, { field: 'size' }, { field: 'gbps', format: '.3g' }, { field: 'ns', format: '.4g' }],
      },
    },
    resolve: { scale: { y: 'shared' } },
    config: { legend: { orient: 'bottom', columns: 3, labelLimit: 320 } },
  };
}

/** Renders `jsonPath` to `svgPath`; returns the SVG path. */
async function renderChart(jsonPath, svgPath = jsonPath.replace(/\.json$/, '.svg')) {
  // vega and vega-lite need Node 22+: they are maintainer tools (tools/), installed on first use.
  const { vega, vegaLite } = await import(pathToFileURL(path.join(ensureTools(), 'chart-deps.mjs')).href);
  const report = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));
  const { spec } = vegaLite.compile(chartSpec(report));
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  fs.writeFileSync(svgPath, await view.toSVG());
  view.finalize();
  return svgPath;
}

if (require.main === module) {
  const [jsonPath = path.join(__dirname, 'results', `bench-node${process.versions.node.split('.')[0]}.json`), svgPath] =
    process.argv.slice(2);
  renderChart(jsonPath, svgPath).then(
    (out) => console.log(`wrote ${out}`),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

module.exports = { renderChart, chartSpec };
