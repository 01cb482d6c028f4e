'use strict';

// Randomized differential: an implementation's mask/unmask against the forward byte loop on random lengths,
// keys, view types and layouts, with guard bytes around every written range.

const reference = require('./reference');

const ARENA = 1 << 16;
const GUARD = 32;
const LAYOUTS = ['distinct', 'in place', 'output ahead (overlap)', 'output behind (overlap)', 'separate buffers', 'unmask'];

function xorshift(seed) {
  let state = seed >>> 0 || 0x9e3779b9;
  return (n) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

/** A view of `byteLength` bytes at `byteOffset` of `buffer`, of a random type its alignment allows. */
function randomView(random, buffer, byteOffset, byteLength) {
  const pick = random(8);
  if (pick === 0) return new DataView(buffer, byteOffset, byteLength);
  if (pick === 1) return new Uint8Array(buffer, byteOffset, byteLength);
  if (pick === 2) {
    const Type = [Int16Array, Int32Array, Float64Array, BigUint64Array][random(4)];
    const size = Type.BYTES_PER_ELEMENT;
    if (byteOffset % size === 0 && byteLength % size === 0) return new Type(buffer, byteOffset, byteLength / size);
  }
  return Buffer.from(buffer, byteOffset, byteLength);
}

function randomKey(random, keyStore) {
  const key = [random(256), random(256), random(256), random(256)];
  const form = random(4);
  if (form === 0) return { key, argument: key.slice() };
  const at = random(keyStore.length - 8);
  keyStore.set(key, at);
  if (form === 1) return { key, argument: keyStore.subarray(at, at + 4 + random(4)) };
  return { key, argument: form === 2 ? new DataView(keyStore.buffer, at, 4) : Buffer.from(keyStore.buffer, at, 4) };
}

function randomLength(random) {
  const bucket = random(100);
  if (bucket < 70) return random(131);
  if (bucket < 95) return 131 + random(1000);
  return 1131 + random(4000);
}

/** Runs `count` random cases of `implementation` (`{ mask, unmask }`); throws on the first mismatch with everything
 * needed to reproduce it, or if a layout was never drawn. `shared` puts the arena on a SharedArrayBuffer. */
function runDifferential(implementation, { count, seed, shared = false }) {
  const random = xorshift(seed);
  const arenaBytes = new Uint8Array(shared ? new SharedArrayBuffer(ARENA) : new ArrayBuffer(ARENA));
  const otherBytes = new Uint8Array(ARENA);
  for (let i = 0; i < ARENA; i++) arenaBytes[i] = otherBytes[i] = random(256);
  const [expectedArena, expectedOther] = [arenaBytes.slice(), otherBytes.slice()];
  const keyStore = new Uint8Array(64);
  const counts = Object.fromEntries(LAYOUTS.map((layout) => [layout, 0]));

  for (let n = 0; n < count; n++) {
    const layout = random(LAYOUTS.length);
    const length = randomLength(random);
    const { key, argument } = randomKey(random, keyStore);
    const span = 2 * length + 2 * GUARD + 64;
    const base = GUARD + random(ARENA - span - GUARD);
    let [source, output] = [base, base];
    if (layout === 0) output = base + length + random(64);
    else if (layout === 2) output = base + 1 + random(Math.max(1, length - 1));
    else if (layout === 3) source = base + 1 + random(Math.max(1, length - 1));
    const [outputBytes, expectedOut] = layout === 4 ? [otherBytes, expectedOther] : [arenaBytes, expectedArena];

    if (layout === 5) {
      implementation.unmask(randomView(random, arenaBytes.buffer, source, length), argument);
      reference.unmask(expectedArena.subarray(source, source + length), key);
    } else {
      // The output view starts up to 16 bytes before where the writing starts, and may run past its end.
      const offset = Math.min(output, random(17));
      const outputView = randomView(random, outputBytes.buffer, output - offset, offset + length + random(9));
      const sourceView = randomView(random, arenaBytes.buffer, source, length + random(9));
      implementation.mask(sourceView, argument, outputView, offset, length);
      reference.mask(expectedArena.subarray(source, source + length), key, expectedOut, output, length);
    }
    counts[LAYOUTS[layout]]++;

    // Check the written window and GUARD bytes either side, in both buffers, then resynchronise.
    const from = Math.min(source, output) - GUARD;
    const to = Math.max(source, output) + length + GUARD;
    for (const [actual, expected] of [
      [arenaBytes, expectedArena],
      [otherBytes, expectedOther],
    ]) {
      if (Buffer.compare(actual.subarray(from, to), expected.subarray(from, to)) !== 0) {
        let at = from;
        while (actual[at] === expected[at]) at++;
        throw new Error(
          `case ${n} (seed ${seed}): ${LAYOUTS[layout]}, source ${source}, output ${output}, length ${length}, ` +
            `key [${key}] as ${Array.isArray(argument) ? 'array' : argument.constructor.name}: ` +
            `byte ${at} is ${actual[at]}, expected ${expected[at]}`
        );
      }
    }
    // And now and then every byte of both buffers, for a write far from the window.
    if (n % 1024 === 0 && (Buffer.compare(arenaBytes, expectedArena) !== 0 || Buffer.compare(otherBytes, expectedOther) !== 0)) {
      throw new Error(`case ${n} (seed ${seed}) or one of the 1023 before it wrote outside its window`);
    }
  }
  // Deterministic for a seed: from a thousand cases on, a layout never drawn is a broken draw.
  const missing = LAYOUTS.filter((layout) => counts[layout] === 0);
  if (count >= 1000 && missing.length > 0) throw new Error(`seed ${seed}: ${count} cases and never ${missing.join(', ')}`);
  return counts;
}

module.exports = { runDifferential };
