// The ES module entry where addons are off (`node --no-addons`): the JavaScript implementation alone.
import bufferUtil from './fallback.js';

export const { mask, unmask, backend } = bufferUtil;
export default bufferUtil;
