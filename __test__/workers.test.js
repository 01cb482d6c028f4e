'use strict';

// Concurrency: worker_threads (Node-API environments, each with its own block and level) masking at once.

const { test } = require('node:test');
const assert = require('node:assert');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const { runNode } = require('./helpers/child');
const { runDifferential } = require('./helpers/differential');
const { load } = require('./helpers/implementations');

const WORKERS = 8;
const CALLS = 100_000;
const native = require('../lib/tiers/native');

if (!isMainThread && workerData.mode === 'level') {
  // Started with its own BUFFERUTIL_SIMD_LEVEL: report what this environment got, and check it works.
  const index = require('..');
  runDifferential(load('native'), { count: 2000, seed: 7 });
  parentPort.postMessage({ backend: native.backend, kernelLevel: native.level(), index: index.backend });
} else if (!isMainThread) {
  parentPort.postMessage({ started: true });
  // runDifferential throws on the first mismatch, which fails the worker with its message.
  const counts = runDifferential(load('native'), workerData);
  parentPort.postMessage({ backend: native.backend, calls: Object.values(counts).reduce((a, b) => a + b, 0) });
} else {
  // Every other worker capped to the scalar level: environments at different levels, side by side.
  const start = (index, count) =>
    new Worker(__filename, {
      env: index % 2 === 0 ? { ...process.env, BUFFERUTIL_SIMD_LEVEL: 'scalar' } : process.env,
      workerData: { seed: 1000 + index, count, shared: index % 4 >= 2 },
    });

  /** Resolves once the worker has loaded the addon and begun its calls. */
  const busy = (worker) =>
    new Promise((resolve, reject) => {
      worker.on('message', (message) => message.started && resolve());
      worker.on('exit', (code) => reject(new Error(`worker exited (code ${code}) before it began its calls`)));
    });

  /** Resolves with the worker's report and exit code; rejects on its error. */
  const finished = (worker) =>
    new Promise((resolve, reject) => {
      let report;
      worker.on('message', (message) => message.started || (report = message));
      worker.on('error', reject);
      worker.on('exit', (code) => resolve({ report, code }));
    });

  test(`${WORKERS} workers x ${CALLS} calls, and the main thread, concurrently`, async () => {
    const done = Promise.all(Array.from({ length: WORKERS }, (_, index) => finished(start(index, CALLS))));
    runDifferential(load('native'), { count: CALLS, seed: 999 });
    const best = native.level();
    const expected = (_, index) => ({ report: { backend: index % 2 === 0 ? 'scalar' : best, calls: CALLS }, code: 0 });
    assert.deepStrictEqual(await done, Array.from({ length: WORKERS }, expected));
  });

  test('a worker with another BUFFERUTIL_SIMD_LEVEL changes nothing for the main thread', async () => {
    const index = require('..');
    const [best, indexBackend] = [native.level(), index.backend];
    assert.strictEqual(native.backend, best);
    for (const level of ['scalar', 'SSE2', 'js']) {
      const env = { ...process.env, BUFFERUTIL_SIMD_LEVEL: level };
      // What a whole process asking for this level gets: what the worker alone must get.
      const capped = level === 'js' ? best : runNode("process.stdout.write(require('./lib/tiers/native').backend)", { env });
      const ended = await finished(new Worker(__filename, { env, workerData: { mode: 'level' } }));
      const report = { backend: capped, kernelLevel: capped, index: level === 'js' ? 'js' : capped };
      assert.deepStrictEqual(ended, { report, code: 0 });
      const mainThread = [native.level(), native.backend, index.backend];
      assert.deepStrictEqual(mainThread, [best, best, indexBackend], `main thread after a worker asked for ${level}`);
    }
    runDifferential(load('native'), { count: 2000, seed: 8 });
  });

  test('workers terminated in the middle of their calls', async () => {
    const workers = Array.from({ length: WORKERS }, (_, index) => start(index, 10 * CALLS));
    const outcomes = workers.map(finished);
    // A worker terminated before it runs any code exits 0: wait until each is in its calls (seconds of work).
    await Promise.all(workers.map(busy));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all(workers.map((worker) => worker.terminate()));
    const exits = (await Promise.all(outcomes)).map(({ code }) => code);
    assert.deepStrictEqual(exits, Array(WORKERS).fill(1));
  });
}
