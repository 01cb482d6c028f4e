//! The oracle the kernel tests and the fuzz target (which includes this file) hold every level against.

/// `buf[dst + i] = buf[src + i] ^ key[i & 3]` for `i < len`, forward, one byte at a time, each byte read
/// just before it is written: the loop of RFC 6455 §5.3, with the source and output in one buffer so that
/// they may overlap in any way.
pub fn oracle(buf: &mut [u8], src: usize, dst: usize, len: usize, key: [u8; 4]) {
    for i in 0..len {
        buf[dst + i] = buf[src + i] ^ key[i & 3];
    }
}
