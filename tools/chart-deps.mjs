// benchmark/chart.js imports vega and vega-lite through this file, so that they resolve from tools/.
export * as vega from 'vega';
export * as vegaLite from 'vega-lite';
