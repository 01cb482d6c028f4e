import bufferUtil = require('bufferutil-simd');

const key: bufferUtil.MaskKey = [1, 2, 3, 4];
const data = new Uint8Array(8);

bufferUtil.mask(data, key, data, 0, data.length);
bufferUtil.unmask(data, key);
const level: string = bufferUtil.backend;
// @ts-expect-error backend is read only
bufferUtil.backend = 'js';

// @ts-expect-error CommonJS has no `default` property
bufferUtil.default;

export { level };
