// The CommonJS entry re-exported, by name and as the default export.
import bufferUtil from './index.js';

export const { mask, unmask, backend } = bufferUtil;
export default bufferUtil;
