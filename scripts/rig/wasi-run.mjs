// Runs a wasm32-wasip1 program (a cargo test binary) under Node's WASI, as cargo's runner for that target
// (wasi.sh): `node scripts/rig/wasi-run.mjs program.wasm [args…]`; exits with its code.
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';

const [program, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [program, ...args], env: {}, returnOnExit: true });
const instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(program)), wasi.getImportObject());
process.exitCode = wasi.start(instance);
