'use strict';

// The timing harness of `npx bufferutil-simd` and `npm run bench`: the command's timer here, the benchmark's mitata.
// The command's own, shipped with it; the benchmark borrows it. It requires nothing but Node's own modules.

const { randomBytes } = require('node:crypto');

const ROTATION = 8; // input sets each timed call cycles through; a power of two
const MAX_INPUT_BYTES = 64 * 2 ** 20; // `rotate`: big sizes rotate over fewer distinct buffers
const OFFSET = 6; // where `mask` writes: after the smallest masked frame header, as ws does

// ws's own loops (lib/buffer-util.js), what a caller without a native bufferutil runs; the reference.
function wsMask(source, mask, output, offset, length) {
  for (let i = 0; i < length; i++) output[offset + i] = source[i] ^ mask[i & 3];
}
function wsUnmask(buffer, mask) {
  for (let i = 0; i < buffer.length; i++) buffer[i] ^= mask[i & 3];
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2;
}
const spread = (values) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values) });

/** `items` in a new random order (Fisher–Yates), in place. */
function shuffle(items) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** One op and size's input sets `{ source, key, output, offset, length }`, in place but for `mask`; `pair`: one buffer pair. */
function inputsFor(op, size, { workingSet = 'rotate', keyAsArray = false } = {}) {
  const inPlace = op !== 'mask';
  const distinct = workingSet === 'pair' ? 1 : Math.max(1, Math.min(ROTATION, Math.floor(MAX_INPUT_BYTES / 2 / (size + OFFSET))));
  const sources = Array.from({ length: distinct }, () => randomBytes(size));
  const outputs = inPlace ? sources : sources.map(() => Buffer.alloc(OFFSET + size));
  return Array.from({ length: ROTATION }, (_, j) => {
    const [source, key, output] = [sources[j % distinct], randomBytes(4), outputs[j % distinct]];
    return { source, key: keyAsArray ? [...key] : key, output, offset: inPlace ? 0 : OFFSET, length: size };
  });
}

// Per op, each implementation as `{ op, impl, call }`: `call(input)` does the op, compiled from source text of its own (V8
// shares feedback between closures of one source) to stay monomorphic, as a library's caller is. EvalError where refused.
const ARGS = { mask: 'input.source, input.key, input.output, input.offset, input.length', unmask: 'input.source, input.key' };
const callSites = (ops, impls) =>
  ops.flatMap((op) =>
    impls.map((impl) => {
      const kind = op === 'unmask' ? 'unmask' : 'mask'; // mask-in-place is a mask
      const name = `${op}_${impl.id}`.replace(/\W/g, '_');
      return { op, impl, call: new Function('fn', `return function ${name}(input) { fn(${ARGS[kind]}); };`)(impl[kind]) };
    })
  );

/** What the first site's call, as timed, got wrong against ws's loop on `sizes` and a few odd ones (a ceiling masks nothing). */
function check(sites, sizes, { keyAsArray } = {}) {
  for (const { op, impl, call } of sites.filter((site) => !site.impl.ceiling)) {
    for (const size of new Set([0, 1, 7, 65, 4097, ...sizes])) {
      const [input] = inputsFor(op, size, { workingSet: 'pair', keyAsArray });
      const [source, expected] = [Buffer.from(input.source), Buffer.from(input.output)];
      wsMask(source, input.key, expected, input.offset, size); // in place, expected starts as the source: an unmask
      call(input);
      if (!input.output.equals(expected) || !input.source.equals(input.source === input.output ? expected : source))
        return `${impl.id} ${op} of ${size} B differs from the byte loop; nothing timed`;
    }
  }
}

// Per op and size `{ op, size, rows }`: the sites readied by `timer(site, inputs)`, then each timed once a round (ns per call)
// in an order shuffled per round; per site `{ id, ns, ratios }`: median ns, per base the spread of base's ÷ its time per round.
async function measure(sites, sizes, { rounds, timer, bases, onCell, ...options }) {
  const cells = [];
  for (const op of new Set(sites.map((site) => site.op))) {
    const ofOp = sites.filter((site) => site.op === op);
    const against = bases.map((base) => [base, ofOp.findIndex((site) => site.impl.id === base)]).filter(([, b]) => b >= 0);
    for (const size of sizes) {
      const [inputs, times, ns, order] = [inputsFor(op, size, options), [], ofOp.map(() => []), ofOp.map((_, i) => i)];
      for (const site of ofOp) times.push(await timer(site, inputs));
      for (let round = 0; round < rounds; round++) for (const i of shuffle(order)) ns[i].push(await times[i]());
      const ratios = (i) => Object.fromEntries(against.map(([base, b]) => [base, spread(ns[i].map((t, r) => ns[b][r] / t))]));
      cells.push({ op, size, rows: ofOp.map((site, i) => ({ id: site.impl.id, ns: median(ns[i]), ratios: ratios(i) })) });
      onCell?.();
    }
  }
  return cells;
}

/** `measure`'s timer for a budget of `slice` ns per site and round: a `process.hrtime` loop compiled per site and size, its
 * count sized to the slice, run once untimed; a round is the fastest of `samples` loops (other processes only add time). */
function loopTimer(slice, samples) {
  const clock = 'process.hrtime.bigint()';
  const body = `const start = ${clock}; for (let i = 0; i < n; i++) call(inputs[i & ${ROTATION - 1}]); return Number(${clock} - start);`;
  return ({ call }, inputs) => {
    const timed = new Function('call', `return function ${call.name}_${inputs[0].length}(inputs, n) { ${body} };`)(call);
    let [n, took] = [2, timed(inputs, 2)];
    for (; took < slice / 4 && n < 2 ** 30; took = timed(inputs, n)) n *= 2;
    n = Math.max(1, Math.round((n * slice) / took / samples));
    timed(inputs, n * samples);
    return () => Math.min(...Array.from({ length: samples }, () => timed(inputs, n))) / n;
  };
}

module.exports = { ROTATION, OFFSET, wsMask, wsUnmask, median, spread, shuffle, inputsFor, callSites, check, measure, loopTimer };
