import bufferUtil = require('bufferutil-simd');

const key: bufferUtil.MaskKey = [1, 2, 3, 4];
const data = new Uint8Array(8);

bufferUtil.mask(data, key, data, 0, data.length);
bufferUtil.unmask(data, key);
const level: string = bufferUtil.backend;
const jsFrom: number | undefined = bufferUtil.backendFrom.mask.js;
// @ts-expect-error frozen: read only
bufferUtil.backendFrom.unmask.js = 0;

// @ts-expect-error CommonJS has no `default` property
bufferUtil.default;

export { level, jsFrom };
