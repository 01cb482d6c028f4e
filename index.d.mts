// Types of the ES module entry: the same functions as the CommonJS one, plus a default export holding them.
import * as bufferUtil from './index.js';

export { mask, unmask, backend } from './index.js';
export type { MaskKey, Backend } from './index.js';
export default bufferUtil;
