// The ES module entry where addons are off (`node --no-addons`, bundlers): WebAssembly or JavaScript.
import bufferUtil from './portable.js';

export const { mask, unmask, backend } = bufferUtil;
export default bufferUtil;
