/**
 * A masking key: the first 4 bytes of any ArrayBufferView (Buffer, TypedArray, DataView) of at least 4
 * bytes, or an array of exactly 4 integers 0–255. It is read once, before any byte is written.
 */
export type MaskKey = ArrayBufferView | readonly [number, number, number, number]

/**
 * Masks `length` bytes of `source` into `output` at `offset`, as RFC 6455 §5.3 masks a WebSocket payload:
 * `output[offset + i] = source[i] ^ mask[i & 3]`. `output` may be `source` itself (in place) or overlap it in
 * any way: the result is the forward byte loop's. The key is read once, before any byte is written, so a
 * key that lies inside `output` masks with the bytes it held when the call began.
 *
 * @param source The bytes to mask: any ArrayBufferView, read as bytes.
 * @param mask The key: the first 4 bytes of a view, or an array of 4 integers 0–255.
 * @param output Where the masked bytes go: any ArrayBufferView, written as bytes.
 * @param offset Where in `output` to start writing, in bytes: an integer >= 0.
 * @param length How many bytes to mask: an integer, at most `source.byteLength` and
 *   `output.byteLength - offset`.
 * @throws {TypeError} `ERR_INVALID_ARG_TYPE` for an argument of the wrong type.
 * @throws {TypeError} `ERR_INVALID_ARG_VALUE` for a key view shorter than 4 bytes or a key array whose length
 *   is not 4, and for an output backed by an immutable ArrayBuffer.
 * @throws {RangeError} `ERR_OUT_OF_RANGE` for an offset or length that is not an integer >= 0, or that
 *   reaches past `source` or `output` (measured after an array key's getters ran), and for a key element
 *   that is not an integer 0–255. Nothing is written when it throws.
 */
export declare function mask(
  source: ArrayBufferView,
  mask: MaskKey,
  output: ArrayBufferView,
  offset: number,
  length: number
): void

/**
 * Unmasks `buffer` in place: `buffer[i] ^= mask[i & 3]`. The key is read once, before any byte is written.
 *
 * @param buffer The bytes to unmask: any ArrayBufferView, read and written as bytes.
 * @param mask The key: the first 4 bytes of a view, or an array of 4 integers 0–255.
 * @throws {TypeError} `ERR_INVALID_ARG_TYPE` for an argument of the wrong type.
 * @throws {TypeError} `ERR_INVALID_ARG_VALUE` for a key view shorter than 4 bytes or a key array whose length
 *   is not 4, and for a buffer backed by an immutable ArrayBuffer.
 * @throws {RangeError} `ERR_OUT_OF_RANGE` for a key element that is not an integer 0–255. Nothing is written when it throws.
 */
export declare function unmask(buffer: ArrayBufferView, mask: MaskKey): void

/** A backend's name: a native instruction-set level, WebAssembly SIMD, or JavaScript. */
export type Backend = 'avx512' | 'avx2' | 'sse2' | 'neon' | 'scalar' | 'wasm' | 'js'

/**
 * What does the work: `'avx512'`, `'avx2'`, `'sse2'`, `'neon'` or `'scalar'` for the native addon at that
 * instruction-set level (the widest the CPU runs, or up to `BUFFERUTIL_SIMD_LEVEL`), at every size; avx512
 * (streamed outputs with 256-bit stores). `'wasm'` for WebAssembly SIMD where the addon cannot load, `'js'`
 * for the JavaScript fallback. Short payloads run in JavaScript on every tier, below a size measured per
 * runtime.
 */
export declare const backend: Backend
