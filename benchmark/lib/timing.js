'use strict';

// How bench.js times: each implementation at a call site of its own, as a caller that uses one library
// has it. A loop shared by every implementation (one closure, or mitata's one generated loop fed different
// functions) is megamorphic at the call, and a loop with fixed arguments lets the JIT specialise on them;
// neither is what a caller sees (measured: a 16 B JS mask took 28–32 ns through a shared closure, 10.6 ns
// at its own call site).

const ROTATION = 8; // buffers and keys each timed loop cycles through; a power of two (`i & 7`)

const now = typeof process.hrtime?.bigint === 'function' ? process.hrtime.bigint : () => BigInt(Math.round(performance.now() * 1e6));

/** The statement one timed iteration runs, by what it times. `j` picks the rotating inputs. */
const BODIES = {
  mask: 'fn(sources[j], keys[j], outputs[j], offset, length);',
  unmask: 'fn(sources[j], keys[j]);',
  copy: 'outputs[j].set(sources[j], offset);', // memcpy: TypedArray.prototype.set
  fill: 'sources[j].fill(0x5a);', // memset: Buffer.prototype.fill
};

/**
 * A timed loop of its own for `fn`: compiled from its own source text (`new Function`), so its call site,
 * feedback and optimised code belong to this implementation alone. Returns `(inputs, calls) => ns`.
 */
function makeTimer(kind, id, fn) {
  const name = `time_${kind}_${id.replace(/\W/g, '_')}`;
  const source = `
    return function ${name}(sources, keys, outputs, offset, length, calls) {
      const start = now();
      for (let i = 0; i < calls; i++) {
        const j = i & ${ROTATION - 1};
        ${BODIES[kind]}
      }
      return Number(now() - start);
    };`;
  const loop = new Function('fn', 'now', source)(fn, now);
  return ({ sources, keys, outputs, offset, length }, calls) => loop(sources, keys, outputs, offset, length, calls);
}

/**
 * `lib` behind ws 8.23's lib/buffer-util.js, as ws users get it: ws's own byte loop below `maskFrom` /
 * `unmaskFrom` bytes, `lib` from there (48 / 32 for bufferutil, 24 / 24 for Node's http.websocketMask).
 * One wrapper per library, compiled apart, as each process has one.
 */
function throughWs(id, lib, wsLoop, { maskFrom, unmaskFrom }) {
  const tag = id.replace(/\W/g, '_');
  const source = `
    return {
      mask: function wsMask_${tag}(source, mask, output, offset, length) {
        if (length < ${maskFrom}) jsMask(source, mask, output, offset, length);
        else lib.mask(source, mask, output, offset, length);
      },
      unmask: function wsUnmask_${tag}(buffer, mask) {
        if (buffer.length < ${unmaskFrom}) jsUnmask(buffer, mask);
        else lib.unmask(buffer, mask);
      },
    };`;
  return new Function('jsMask', 'jsUnmask', 'lib', source)(wsLoop.mask, wsLoop.unmask, lib);
}

/** The q-quantile of sorted numbers, interpolated. */
function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}

/** min, p25, median, p75 of a list of numbers. */
function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0], p25: quantile(sorted, 0.25), median: quantile(sorted, 0.5), p75: quantile(sorted, 0.75) };
}

/** Per-round ratios `numerator[r] / denominator[r]` (rounds where both ran), summarised. */
function ratioSummary(numerator, denominator) {
  const ratios = [];
  for (let r = 0; r < Math.min(numerator.length, denominator.length); r++) ratios.push(numerator[r] / denominator[r]);
  const { p25, median, p75 } = summary(ratios);
  return { median, p25, p75 };
}

module.exports = { ROTATION, makeTimer, throughWs, summary, ratioSummary };
