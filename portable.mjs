// portable.js as an ES module, where addons are off (`node --no-addons`, bundlers).
import bufferUtil from './portable.js';

export const { mask, unmask, backend } = bufferUtil;
export default bufferUtil;
