'use strict';

// This CPU as /proc/cpuinfo describes it (Linux), for reports and checks; os.cpus() elsewhere. Deno opens /proc only to
// --allow-all, so there it is not read.

const { readFileSync } = require('node:fs');
const os = require('node:os');

/** `{ name, flags }`: the model name, with family and model where given (a VM may give only a brand), and the x86
 * feature flags (empty elsewhere); `flags` undefined where /proc/cpuinfo cannot be read. */
function cpuInfo() {
  let info;
  try {
    if (!globalThis.Deno) info = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {}
  const field = (name) => info?.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1];
  const family = field('cpu family') ? ` (family ${field('cpu family')} model ${field('model')})` : '';
  const name = field('model name') ? `${field('model name')}${family}` : os.cpus()[0]?.model || `unknown ${process.arch} CPU`;
  return { name, flags: info === undefined ? undefined : new Set((field('flags') ?? '').trim().split(/\s+/)) };
}

module.exports = { cpuInfo };
