import bufferUtil, { mask, unmask, backend, type Backend, type MaskKey } from 'bufferutil-simd';

const key = new Uint8Array([1, 2, 3, 4]);
const data = new Uint8Array(16);
const frame = new Uint8Array(22);

mask(data, key, frame, 6, data.length);
mask(new Float64Array(2), [1, 2, 3, 4], new DataView(frame.buffer), 0, 16);
const nothing: void = unmask(data, key);
unmask(new DataView(data.buffer), [0, 0, 0, 0] as const);
bufferUtil.mask(data, key, data, 0, data.length);
bufferUtil.unmask(data, key);

const sameLevel: typeof backend = bufferUtil.backend;
const named: Backend = backend;
// @ts-expect-error the package exports no backendFrom
bufferUtil.backendFrom;

// @ts-expect-error a string is not an ArrayBufferView
unmask('text', key);
// @ts-expect-error the key is bytes, not a number
mask(data, 0x01020304, data, 0, 16);
// @ts-expect-error offset and length are required
mask(data, key, data);
const typedKey: MaskKey = [9, 8, 7, 6] as [number, number, number, number];
unmask(data, typedKey);
mask(data, new DataView(frame.buffer, 0, 4), frame, 0, 16);

// A key array has exactly 4 numbers.
// @ts-expect-error 3 elements
mask(data, [1, 2, 3], frame, 6, 16);
// @ts-expect-error 5 elements
unmask(data, [1, 2, 3, 4, 5]);
// @ts-expect-error an empty array
unmask(data, []);
// @ts-expect-error elements are numbers
unmask(data, ['1', 2, 3, 4]);
const loose: number[] = [1, 2, 3, 4];
// @ts-expect-error an array of unknown length may not have 4 elements
unmask(data, loose);
// @ts-expect-error an ArrayBuffer is no view
unmask(data, new ArrayBuffer(4));

// @ts-expect-error backend names only the known levels
const wrong: 'simd128' = backend;

export { sameLevel, nothing, wrong, named };
