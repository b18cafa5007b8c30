/**
 * A small pure-JS gunzip (RFC 1951/1952, after zlib's puff.c), as source text a sandboxed module
 * embeds: QuickJS has no DecompressionStream, so an attacking module brings its own. It defines
 * `gunzip(bytes: Uint8Array): Uint8Array`, which throws on anything that is not gzip.
 */
export const GUNZIP_SOURCE = `
function gunzip(src) {
  if (src.length < 18 || src[0] !== 0x1f || src[1] !== 0x8b || src[2] !== 8) throw new Error('not gzip');
  const flags = src[3];
  let pos = 10;
  if (flags & 4) pos += 2 + (src[pos] | (src[pos + 1] << 8));
  if (flags & 8) { while (src[pos++] !== 0); }
  if (flags & 16) { while (src[pos++] !== 0); }
  if (flags & 2) pos += 2;
  let bit = 0;
  const out = [];
  const bits = (n) => {
    let v = 0;
    for (let i = 0; i < n; i++) {
      if (pos >= src.length) throw new Error('truncated');
      v |= ((src[pos] >> bit) & 1) << i;
      if (++bit === 8) { bit = 0; pos++; }
    }
    return v;
  };
  const build = (lengths) => {
    const counts = new Array(16).fill(0), offs = new Array(16).fill(0);
    for (const l of lengths) counts[l]++;
    counts[0] = 0;
    for (let i = 1; i < 16; i++) offs[i] = offs[i - 1] + counts[i - 1];
    const symbols = new Array(lengths.length).fill(0);
    lengths.forEach((l, s) => { if (l) symbols[offs[l]++] = s; });
    return { counts, symbols };
  };
  const decode = (h) => {
    let code = 0, first = 0, index = 0;
    for (let len = 1; len < 16; len++) {
      code |= bits(1);
      const count = h.counts[len];
      if (code - count < first) return h.symbols[index + (code - first)];
      index += count; first += count; first <<= 1; code <<= 1;
    }
    throw new Error('bad code');
  };
  const LBASE = [3,4,5,6,7,8,9,10,11,13,15,17,19,23,27,31,35,43,51,59,67,83,99,115,131,163,195,227,258];
  const LEXT = [0,0,0,0,0,0,0,0,1,1,1,1,2,2,2,2,3,3,3,3,4,4,4,4,5,5,5,5,0];
  const DBASE = [1,2,3,4,5,7,9,13,17,25,33,49,65,97,129,193,257,385,513,769,1025,1537,2049,3073,4097,6145,8193,12289,16385,24577];
  const DEXT = [0,0,0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,8,8,9,9,10,10,11,11,12,12,13,13];
  const ORDER = [16,17,18,0,8,7,9,6,10,5,11,4,12,3,13,2,14,1,15];
  let last;
  do {
    last = bits(1);
    const type = bits(2);
    if (type === 0) {
      if (bit) { bit = 0; pos++; }
      const len = src[pos] | (src[pos + 1] << 8);
      pos += 4;
      for (let i = 0; i < len; i++) out.push(src[pos++]);
      continue;
    }
    let lit, dist;
    if (type === 1) {
      const l = [];
      for (let i = 0; i < 288; i++) l.push(i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8);
      lit = build(l);
      dist = build(new Array(30).fill(5));
    } else if (type === 2) {
      const hlit = bits(5) + 257, hdist = bits(5) + 1, hclen = bits(4) + 4;
      const cl = new Array(19).fill(0);
      for (let i = 0; i < hclen; i++) cl[ORDER[i]] = bits(3);
      const ch = build(cl);
      const lens = [];
      while (lens.length < hlit + hdist) {
        const sym = decode(ch);
        if (sym < 16) lens.push(sym);
        else if (sym === 16) { const prev = lens[lens.length - 1]; for (let r = 3 + bits(2); r > 0; r--) lens.push(prev); }
        else if (sym === 17) { for (let r = 3 + bits(3); r > 0; r--) lens.push(0); }
        else { for (let r = 11 + bits(7); r > 0; r--) lens.push(0); }
      }
      lit = build(lens.slice(0, hlit));
      dist = build(lens.slice(hlit));
    } else throw new Error('bad block');
    for (;;) {
      const sym = decode(lit);
      if (sym < 256) out.push(sym);
      else if (sym === 256) break;
      else {
        const s = sym - 257;
        const len = LBASE[s] + bits(LEXT[s]);
        const ds = decode(dist);
        const d = DBASE[ds] + bits(DEXT[ds]);
        for (let i = 0; i < len; i++) out.push(out[out.length - d]);
      }
    }
  } while (!last);
  return new Uint8Array(out);
}
`;
