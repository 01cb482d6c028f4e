'use strict';

// Concurrency: the addon loaded in 8 worker_threads at once (8 Node-API environments sharing one kernel
// selection), each making 10^5 random mask/unmask calls checked against the byte loop while the main
// thread does the same; then workers terminated while busy. Every worker must finish with 0 mismatches
// and exit cleanly.

const { test } = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const { runDifferential } = require('./helpers/differential');

const BINDING = path.join(__dirname, '..', 'binding.js');
const WORKERS = 8;
const CALLS = 100_000;

if (!isMainThread) {
  const native = require(BINDING);
  const { seed, count, shared } = workerData;
  parentPort.postMessage({ loaded: native.backend });
  // runDifferential throws on the first mismatch, which fails the worker with its message.
  const counts = runDifferential(native, { count, seed, shared });
  parentPort.postMessage({ backend: native.backend, calls: Object.values(counts).reduce((a, b) => a + b, 0) });
} else {
  const start = (index, count) =>
    new Worker(__filename, { workerData: { seed: 1000 + index, count, shared: index % 2 === 1 } });

  /** Resolves with the worker's report and exit code; rejects on its error. */
  const finished = (worker) =>
    new Promise((resolve, reject) => {
      let report;
      worker.on('message', (message) => {
        if (!message.loaded) report = message;
      });
      worker.on('error', reject);
      worker.on('exit', (code) => resolve({ report, code }));
    });

  test(`${WORKERS} workers x ${CALLS} calls, and the main thread, concurrently`, async (t) => {
    const workers = Array.from({ length: WORKERS }, (_, index) => start(index, CALLS));
    const done = Promise.all(workers.map(finished));
    const mainCalls = runDifferential(require(BINDING), { count: CALLS, seed: 999 });
    const results = await done;
    results.forEach(({ report, code }, index) => {
      assert.strictEqual(code, 0, `worker ${index} exit code`);
      assert.strictEqual(report.calls, CALLS, `worker ${index} calls`);
    });
    const calls = results.reduce((sum, { report }) => sum + report.calls, 0);
    t.diagnostic(`${WORKERS} workers: ${calls} calls, 0 mismatches, all exit 0; main thread: ${Object.values(mainCalls).reduce((a, b) => a + b, 0)} calls`);
  });

  test('workers terminated in the middle of their calls', async () => {
    const workers = Array.from({ length: WORKERS }, (_, index) => start(index, 10 * CALLS));
    // Each worker has loaded the addon and started its calls (a fixed delay is not enough under emulation).
    await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('message', resolve))));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const exits = await Promise.all(workers.map(async (worker) => {
      const outcome = finished(worker);
      await worker.terminate();
      return (await outcome).code;
    }));
    // terminate() makes a worker exit with code 1; what matters is that the process is still here.
    assert.deepStrictEqual(exits, Array(WORKERS).fill(1));
  });
}
