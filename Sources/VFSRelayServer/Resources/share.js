// The share link's page (issue 51): decrypts an age file in the browser with the key
// from the URL's fragment, which the browser never sends; and a file request's page,
// which encrypts a file to the request's X25519 recipients and sends it. The relay serves
// this script itself (no CDN, no inline script: its CSP allows only 'self').
// WebCrypto gives X25519, HKDF, HMAC and SHA-256; ChaCha20-Poly1305 and scrypt are here.
"use strict";

const VfsAge = (() => {
  const enc = new TextEncoder();

  // ---- ChaCha20 (RFC 8439 §2.3, §2.4) ----
  function rotl(v, c) { return (v << c) | (v >>> (32 - c)); }

  /// One ChaCha20 block of state `s` (16 words) into `out`.
  function chachaBlock(s, out) {
    let x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3], x4 = s[4], x5 = s[5], x6 = s[6], x7 = s[7];
    let x8 = s[8], x9 = s[9], x10 = s[10], x11 = s[11], x12 = s[12], x13 = s[13], x14 = s[14], x15 = s[15];
    let t;
    for (let i = 0; i < 10; i++) {
        x0 = (x0 + x4) | 0; t = x12 ^ x0; x12 = (t << 16) | (t >>> 16); x8 = (x8 + x12) | 0; t = x4 ^ x8; x4 = (t << 12) | (t >>> 20); x0 = (x0 + x4) | 0; t = x12 ^ x0; x12 = (t << 8) | (t >>> 24); x8 = (x8 + x12) | 0; t = x4 ^ x8; x4 = (t << 7) | (t >>> 25);
        x1 = (x1 + x5) | 0; t = x13 ^ x1; x13 = (t << 16) | (t >>> 16); x9 = (x9 + x13) | 0; t = x5 ^ x9; x5 = (t << 12) | (t >>> 20); x1 = (x1 + x5) | 0; t = x13 ^ x1; x13 = (t << 8) | (t >>> 24); x9 = (x9 + x13) | 0; t = x5 ^ x9; x5 = (t << 7) | (t >>> 25);
        x2 = (x2 + x6) | 0; t = x14 ^ x2; x14 = (t << 16) | (t >>> 16); x10 = (x10 + x14) | 0; t = x6 ^ x10; x6 = (t << 12) | (t >>> 20); x2 = (x2 + x6) | 0; t = x14 ^ x2; x14 = (t << 8) | (t >>> 24); x10 = (x10 + x14) | 0; t = x6 ^ x10; x6 = (t << 7) | (t >>> 25);
        x3 = (x3 + x7) | 0; t = x15 ^ x3; x15 = (t << 16) | (t >>> 16); x11 = (x11 + x15) | 0; t = x7 ^ x11; x7 = (t << 12) | (t >>> 20); x3 = (x3 + x7) | 0; t = x15 ^ x3; x15 = (t << 8) | (t >>> 24); x11 = (x11 + x15) | 0; t = x7 ^ x11; x7 = (t << 7) | (t >>> 25);
        x0 = (x0 + x5) | 0; t = x15 ^ x0; x15 = (t << 16) | (t >>> 16); x10 = (x10 + x15) | 0; t = x5 ^ x10; x5 = (t << 12) | (t >>> 20); x0 = (x0 + x5) | 0; t = x15 ^ x0; x15 = (t << 8) | (t >>> 24); x10 = (x10 + x15) | 0; t = x5 ^ x10; x5 = (t << 7) | (t >>> 25);
        x1 = (x1 + x6) | 0; t = x12 ^ x1; x12 = (t << 16) | (t >>> 16); x11 = (x11 + x12) | 0; t = x6 ^ x11; x6 = (t << 12) | (t >>> 20); x1 = (x1 + x6) | 0; t = x12 ^ x1; x12 = (t << 8) | (t >>> 24); x11 = (x11 + x12) | 0; t = x6 ^ x11; x6 = (t << 7) | (t >>> 25);
        x2 = (x2 + x7) | 0; t = x13 ^ x2; x13 = (t << 16) | (t >>> 16); x8 = (x8 + x13) | 0; t = x7 ^ x8; x7 = (t << 12) | (t >>> 20); x2 = (x2 + x7) | 0; t = x13 ^ x2; x13 = (t << 8) | (t >>> 24); x8 = (x8 + x13) | 0; t = x7 ^ x8; x7 = (t << 7) | (t >>> 25);
        x3 = (x3 + x4) | 0; t = x14 ^ x3; x14 = (t << 16) | (t >>> 16); x9 = (x9 + x14) | 0; t = x4 ^ x9; x4 = (t << 12) | (t >>> 20); x3 = (x3 + x4) | 0; t = x14 ^ x3; x14 = (t << 8) | (t >>> 24); x9 = (x9 + x14) | 0; t = x4 ^ x9; x4 = (t << 7) | (t >>> 25);
    }
    out[0] = (x0 + s[0]) | 0; out[1] = (x1 + s[1]) | 0; out[2] = (x2 + s[2]) | 0; out[3] = (x3 + s[3]) | 0;
    out[4] = (x4 + s[4]) | 0; out[5] = (x5 + s[5]) | 0; out[6] = (x6 + s[6]) | 0; out[7] = (x7 + s[7]) | 0;
    out[8] = (x8 + s[8]) | 0; out[9] = (x9 + s[9]) | 0; out[10] = (x10 + s[10]) | 0; out[11] = (x11 + s[11]) | 0;
    out[12] = (x12 + s[12]) | 0; out[13] = (x13 + s[13]) | 0; out[14] = (x14 + s[14]) | 0; out[15] = (x15 + s[15]) | 0;
  }

  function words(bytes) {
    const w = new Uint32Array(bytes.length / 4);
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < w.length; i++) w[i] = v.getUint32(4 * i, true);
    return w;
  }

  const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  /// ChaCha20 of `data` from block `counter` (RFC 8439 §2.4).
  function chacha20(key, nonce, counter, data) {
    const k = words(key), n = words(nonce);
    const state = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, ...k, counter >>> 0, n[0], n[1], n[2]]);
    const out = new Uint8Array(data.length);
    const block = new Uint32Array(16);
    const stream = new Uint8Array(block.buffer);
    const full = data.length - (data.length % 64);
    const aligned = LITTLE && data.byteOffset % 4 === 0;
    const in32 = aligned ? new Uint32Array(data.buffer, data.byteOffset, full / 4) : null;
    const out32 = aligned ? new Uint32Array(out.buffer, 0, full / 4) : null;
    for (let off = 0; off < data.length; off += 64) {
      chachaBlock(state, block);
      state[12] = (state[12] + 1) | 0;
      if (!LITTLE) for (let i = 0; i < 16; i++) { const b = block[i]; block[i] = ((b & 0xff) << 24) | ((b & 0xff00) << 8) | ((b >>> 8) & 0xff00) | (b >>> 24); }
      if (aligned && off < full) {
        const w = off / 4;
        for (let i = 0; i < 16; i++) out32[w + i] = in32[w + i] ^ block[i];
      } else {
        const end = Math.min(64, data.length - off);
        for (let i = 0; i < end; i++) out[off + i] = data[off + i] ^ stream[i];
      }
    }
    return out;
  }

  // ---- Poly1305 (RFC 8439 §2.5), 130-bit arithmetic on BigInt ----
  const P1305 = (1n << 130n) - 5n;
  function leBig(bytes, start, end) {
    let v = 0n;
    for (let i = end - 1; i >= start; i--) v = (v << 8n) | BigInt(bytes[i]);
    return v;
  }
  /// 16 bytes at `m[o]` (little-endian) plus `top` at bit 128 as ten 13-bit limbs into `out`.
  function limbs(m, o, top, out) {
    const t0 = m[o] | (m[o + 1] << 8), t1 = m[o + 2] | (m[o + 3] << 8), t2 = m[o + 4] | (m[o + 5] << 8);
    const t3 = m[o + 6] | (m[o + 7] << 8), t4 = m[o + 8] | (m[o + 9] << 8), t5 = m[o + 10] | (m[o + 11] << 8);
    const t6 = m[o + 12] | (m[o + 13] << 8), t7 = m[o + 14] | (m[o + 15] << 8);
    out[0] = t0 & 0x1fff;
    out[1] = ((t0 >>> 13) | (t1 << 3)) & 0x1fff;
    out[2] = ((t1 >>> 10) | (t2 << 6)) & 0x1fff;
    out[3] = ((t2 >>> 7) | (t3 << 9)) & 0x1fff;
    out[4] = ((t3 >>> 4) | (t4 << 12)) & 0x1fff;
    out[5] = (t4 >>> 1) & 0x1fff;
    out[6] = ((t4 >>> 14) | (t5 << 2)) & 0x1fff;
    out[7] = ((t5 >>> 11) | (t6 << 5)) & 0x1fff;
    out[8] = ((t6 >>> 8) | (t7 << 8)) & 0x1fff;
    out[9] = (t7 >>> 5) | (top << 11);
  }

  /// Poly1305 on ten 13-bit limbs held in doubles (every product and sum stays below
  /// 2^53, so exact); 2^130 = 5 (mod p) folds the high limbs back. BigInt only at the end.
  function poly1305(key, msg) {
    const rb = key.slice(0, 16);
    rb[3] &= 15; rb[7] &= 15; rb[11] &= 15; rb[15] &= 15; rb[4] &= 252; rb[8] &= 252; rb[12] &= 252;
    const r = new Float64Array(10), r5 = new Float64Array(10), h = new Float64Array(10), m = new Float64Array(10), d = new Float64Array(10);
    limbs(rb, 0, 0, r);
    for (let i = 0; i < 10; i++) r5[i] = 5 * r[i];
    const block = new Uint8Array(16);
    for (let o = 0; o < msg.length; o += 16) {
      if (o + 16 <= msg.length) {
        limbs(msg, o, 1, m);
      } else {
        block.fill(0);
        block.set(msg.subarray(o));
        block[msg.length - o] = 1;
        limbs(block, 0, 0, m);
      }
      for (let i = 0; i < 10; i++) h[i] += m[i];
      for (let i = 0; i < 10; i++) {
        let sum = 0;
        for (let j = 0; j <= i; j++) sum += h[j] * r[i - j];
        for (let j = i + 1; j < 10; j++) sum += h[j] * r5[i - j + 10];
        d[i] = sum;
      }
      let c = 0;
      for (let i = 0; i < 10; i++) {
        const v = d[i] + c;
        c = Math.floor(v / 8192);
        h[i] = v - c * 8192;
      }
      h[0] += 5 * c;
      c = Math.floor(h[0] / 8192);
      h[0] -= c * 8192;
      h[1] += c;
    }
    let acc = 0n;
    for (let i = 9; i >= 0; i--) acc = (acc << 13n) + BigInt(h[i]);
    acc = (acc % P1305 + leBig(key, 16, 32)) & ((1n << 128n) - 1n);
    const tag = new Uint8Array(16);
    for (let i = 0; i < 16; i++) { tag[i] = Number(acc & 0xffn); acc >>= 8n; }
    return tag;
  }

  function pad16(n) { return (16 - (n % 16)) % 16; }
  function macData(aad, ct) {
    const len = aad.length + pad16(aad.length) + ct.length + pad16(ct.length) + 16;
    const m = new Uint8Array(len);
    m.set(aad, 0);
    let o = aad.length + pad16(aad.length);
    m.set(ct, o);
    o += ct.length + pad16(ct.length);
    const v = new DataView(m.buffer);
    v.setUint32(o, aad.length >>> 0, true); v.setUint32(o + 4, Math.floor(aad.length / 2 ** 32), true);
    v.setUint32(o + 8, ct.length >>> 0, true); v.setUint32(o + 12, Math.floor(ct.length / 2 ** 32), true);
    return m;
  }
  function equal(a, b) {
    if (a.length !== b.length) return false;
    let d = 0;
    for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
    return d === 0;
  }

  /// AEAD_CHACHA20_POLY1305 (RFC 8439 §2.8): ciphertext || tag.
  function seal(key, nonce, plaintext, aad = new Uint8Array(0)) {
    const polyKey = chacha20(key, nonce, 0, new Uint8Array(32));
    const ct = chacha20(key, nonce, 1, plaintext);
    const out = new Uint8Array(ct.length + 16);
    out.set(ct);
    out.set(poly1305(polyKey, macData(aad, ct)), ct.length);
    return out;
  }
  /// The plaintext, or null when the tag does not match.
  function open(key, nonce, sealed, aad = new Uint8Array(0)) {
    if (sealed.length < 16) return null;
    const ct = sealed.subarray(0, sealed.length - 16);
    const polyKey = chacha20(key, nonce, 0, new Uint8Array(32));
    if (!equal(poly1305(polyKey, macData(aad, ct)), sealed.subarray(sealed.length - 16))) return null;
    return chacha20(key, nonce, 1, ct);
  }

  // ---- SHA-256 based: HKDF, HMAC (WebCrypto); PBKDF2-HMAC-SHA256 and scrypt for passphrases ----
  async function hkdf(ikm, salt, info, length = 32) {
    const key = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
    return new Uint8Array(await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info: enc.encode(info) }, key, 8 * length));
  }
  async function hmac(key, data) {
    const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return new Uint8Array(await crypto.subtle.sign("HMAC", k, data));
  }
  async function pbkdf2(password, salt, length) {
    const key = await crypto.subtle.importKey("raw", password, "PBKDF2", false, ["deriveBits"]);
    return new Uint8Array(await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations: 1 }, key, 8 * length));
  }

  function salsa208(B) {
    const x = new Uint32Array(B);
    function R(a, b) { return (a << b) | (a >>> (32 - b)); }
    for (let i = 0; i < 8; i += 2) {
      x[4] ^= R(x[0] + x[12], 7); x[8] ^= R(x[4] + x[0], 9); x[12] ^= R(x[8] + x[4], 13); x[0] ^= R(x[12] + x[8], 18);
      x[9] ^= R(x[5] + x[1], 7); x[13] ^= R(x[9] + x[5], 9); x[1] ^= R(x[13] + x[9], 13); x[5] ^= R(x[1] + x[13], 18);
      x[14] ^= R(x[10] + x[6], 7); x[2] ^= R(x[14] + x[10], 9); x[6] ^= R(x[2] + x[14], 13); x[10] ^= R(x[6] + x[2], 18);
      x[3] ^= R(x[15] + x[11], 7); x[7] ^= R(x[3] + x[15], 9); x[11] ^= R(x[7] + x[3], 13); x[15] ^= R(x[11] + x[7], 18);
      x[1] ^= R(x[0] + x[3], 7); x[2] ^= R(x[1] + x[0], 9); x[3] ^= R(x[2] + x[1], 13); x[0] ^= R(x[3] + x[2], 18);
      x[6] ^= R(x[5] + x[4], 7); x[7] ^= R(x[6] + x[5], 9); x[4] ^= R(x[7] + x[6], 13); x[5] ^= R(x[4] + x[7], 18);
      x[11] ^= R(x[10] + x[9], 7); x[8] ^= R(x[11] + x[10], 9); x[9] ^= R(x[8] + x[11], 13); x[10] ^= R(x[9] + x[8], 18);
      x[12] ^= R(x[15] + x[14], 7); x[13] ^= R(x[12] + x[15], 9); x[14] ^= R(x[13] + x[12], 13); x[15] ^= R(x[14] + x[13], 18);
    }
    for (let i = 0; i < 16; i++) B[i] = (B[i] + x[i]) | 0;
  }
  function blockMix(B, Y, r) {
    const X = B.slice(32 * r - 16, 32 * r);
    for (let i = 0; i < 2 * r; i++) {
      for (let j = 0; j < 16; j++) X[j] ^= B[16 * i + j];
      salsa208(X);
      Y.set(X, 16 * i);
    }
    for (let i = 0; i < r; i++) B.set(Y.subarray(32 * i, 32 * i + 16), 16 * i);
    for (let i = 0; i < r; i++) B.set(Y.subarray(32 * i + 16, 32 * i + 32), 16 * (i + r));
  }
  /// scrypt (RFC 7914) with p = 1; the little-endian words of this machine's typed arrays.
  async function scrypt(password, salt, logN, r = 8, dkLen = 32) {
    const N = 2 ** logN;
    const b = await pbkdf2(password, salt, 128 * r);
    const X = words(b);
    const V = new Uint32Array(32 * r * N);
    const Y = new Uint32Array(32 * r);
    for (let i = 0; i < N; i++) { V.set(X, 32 * r * i); blockMix(X, Y, r); }
    for (let i = 0; i < N; i++) {
      const j = X[32 * r - 16] & (N - 1);
      for (let k = 0; k < 32 * r; k++) X[k] ^= V[32 * r * j + k];
      blockMix(X, Y, r);
    }
    const out = new Uint8Array(X.length * 4);
    const v = new DataView(out.buffer);
    for (let i = 0; i < X.length; i++) v.setUint32(4 * i, X[i], true);
    return pbkdf2(password, out, dkLen);
  }

  // ---- X25519 (WebCrypto) ----
  const PKCS8_X25519 = new Uint8Array([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20]);
  async function x25519Private(scalar) {
    const der = new Uint8Array(48);
    der.set(PKCS8_X25519); der.set(scalar, 16);
    return crypto.subtle.importKey("pkcs8", der, { name: "X25519" }, true, ["deriveBits"]);
  }
  /// X25519(scalar, u) (RFC 7748 §5).
  async function x25519(scalar, u) {
    const priv = await x25519Private(scalar);
    const pub = await crypto.subtle.importKey("raw", u, { name: "X25519" }, true, []);
    return new Uint8Array(await crypto.subtle.deriveBits({ name: "X25519", public: pub }, priv, 256));
  }
  async function x25519Public(scalar) {
    const jwk = await crypto.subtle.exportKey("jwk", await x25519Private(scalar));
    return b64decode(jwk.x, true);
  }

  // ---- encodings ----
  function b64decode(text, url = false) {
    let t = text;
    if (url) t = t.replace(/-/g, "+").replace(/_/g, "/");
    else if (/[=\s]/.test(t) || !/^[A-Za-z0-9+/]*$/.test(t)) throw new Error("not canonical base64");
    while (t.length % 4) t += "=";
    const s = atob(t);
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  const BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
  function bech32Polymod(values) {
    const G = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
    let chk = 1;
    for (const v of values) {
      const top = chk >>> 25;
      chk = ((chk & 0x1ffffff) << 5) ^ v;
      for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= G[i];
    }
    return chk;
  }
  /// The 32 bytes of a bech32 string of `hrp` (`what` names it in errors, `kind` what it must be).
  function bech32Bytes(text, hrp, what, kind) {
    const s = text.trim().toLowerCase();
    const sep = s.lastIndexOf("1");
    if (s.slice(0, sep) !== hrp) throw new Error(what + " is not " + kind);
    const data = [];
    for (const c of s.slice(sep + 1)) {
      const v = BECH32.indexOf(c);
      if (v < 0) throw new Error(what + " is not valid bech32");
      data.push(v);
    }
    const expand = [];
    for (const c of hrp) expand.push(c.charCodeAt(0) >> 5);
    expand.push(0);
    for (const c of hrp) expand.push(c.charCodeAt(0) & 31);
    if (bech32Polymod(expand.concat(data)) !== 1) throw new Error(what + " has a wrong checksum: was it copied whole?");
    let acc = 0, bits = 0;
    const out = [];
    for (const v of data.slice(0, -6)) {
      acc = (acc << 5) | v; bits += 5;
      if (bits >= 8) { bits -= 8; out.push((acc >>> bits) & 0xff); }
    }
    if (out.length !== 32) throw new Error(what + " is not 32 bytes");
    return new Uint8Array(out);
  }
  /// The 32 bytes of an `AGE-SECRET-KEY-1…` identity.
  function parseIdentity(text) {
    return bech32Bytes(text, "age-secret-key-", "the link's key", "an age identity (AGE-SECRET-KEY-1…)");
  }
  /// The 32 bytes of an `age1…` X25519 recipient.
  function parseRecipient(text) {
    return bech32Bytes(text, "age", "recipient " + text, "an X25519 age recipient (age1…)");
  }

  // ---- the age header (age-encryption.org/v1), parsed as strictly as age parses it ----
  function b64encode(bytes) {
    let s = "";
    for (const b of bytes) s += String.fromCharCode(b);
    return btoa(s).replace(/=+$/, "");
  }
  /// Canonical unpadded base64 (age's encoding), or an error.
  function canonical(text, length) {
    if (!/^[A-Za-z0-9+/]*$/.test(text) || text.length % 4 === 1) throw new Error("malformed age header: not canonical base64");
    const bytes = b64decode(text);
    if (b64encode(bytes) !== text || (length !== undefined && bytes.length !== length)) throw new Error("malformed age header: not canonical base64");
    return bytes;
  }
  /// Parses the header at the start of `bytes`; null when more bytes are needed.
  function parseHeader(bytes) {
    const lines = [];
    let start = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] !== 0x0a) continue;
      let text = "";
      for (let j = start; j < i; j++) {
        if (bytes[j] < 0x20 || bytes[j] > 0x7e) throw new Error("malformed age header: a character outside printable ASCII");
        text += String.fromCharCode(bytes[j]);
      }
      lines.push({ text, start });
      start = i + 1;
      if (lines.length === 1 && text !== "age-encryption.org/v1") throw new Error("not an age file of version age-encryption.org/v1");
      if (!text.startsWith("---")) continue;
      const m = /^--- ([A-Za-z0-9+/]{43})$/.exec(text);
      if (!m) throw new Error("malformed age header: its MAC line");
      const mac = canonical(m[1], 32);
      const stanzas = [];
      let n = 1;
      const last = lines.length - 1;
      while (n < last) {
        const args = lines[n].text.startsWith("-> ") ? lines[n].text.slice(3).split(" ") : [];
        if (!args.length || !args.every((a) => /^[\x21-\x7e]+$/.test(a))) throw new Error("malformed age header: a stanza's first line");
        n++;
        let body = "";
        for (;;) {
          if (n >= last) throw new Error("malformed age header: a stanza without its last line");
          const b = lines[n++].text;
          if (b.length > 64 || !/^[A-Za-z0-9+/]*$/.test(b)) throw new Error("malformed age header: a stanza's body");
          body += b;
          if (b.length < 64) break;
        }
        stanzas.push({ type: args[0], args: args.slice(1), body: canonical(body) });
      }
      if (stanzas.some((st) => st.type === "scrypt") && stanzas.length !== 1) throw new Error("malformed age header: a scrypt stanza must be alone");
      return { stanzas, mac, macd: bytes.subarray(0, lines[last].start + 3), length: start };
    }
    if (bytes.length > 1 << 20) throw new Error("the age header is too long");
    return null;
  }

  const ZERO12 = new Uint8Array(12);
  /// The file key from the header's stanzas: an X25519 stanza for `identity`, or the one
  /// scrypt stanza with `passphrase`.
  async function fileKey(header, { identity, passphrase }) {
    if (identity) {
      const pub = await x25519Public(identity);
      for (const st of header.stanzas) {
        if (st.type !== "X25519") continue;
        if (st.args.length !== 1 || st.body.length !== 32) throw new Error("malformed age header: an X25519 stanza");
        const share = canonical(st.args[0], 32);
        const shared = await x25519(identity, share);
        const salt = new Uint8Array(64); salt.set(share); salt.set(pub, 32);
        const wrap = await hkdf(shared, salt, "age-encryption.org/v1/X25519");
        const key = open(wrap, ZERO12, st.body);
        if (key) return key;
      }
      throw new Error("this file was not encrypted to the link's key");
    }
    const st = header.stanzas.find((s) => s.type === "scrypt");
    if (!st) throw new Error("this file is not encrypted to a passphrase");
    if (st.args.length !== 2 || st.body.length !== 32 || !/^[1-9][0-9]?$/.test(st.args[1])) throw new Error("malformed age header: the scrypt stanza");
    const salt = canonical(st.args[0], 16);
    const logN = Number(st.args[1]);
    if (logN > 22) throw new Error("the scrypt work factor is too high for a browser");
    const label = enc.encode("age-encryption.org/v1/scrypt");
    const full = new Uint8Array(label.length + 16); full.set(label); full.set(salt, label.length);
    const key = open(await scrypt(enc.encode(passphrase), full, logN), ZERO12, st.body);
    if (!key) throw new Error("wrong passphrase");
    return key;
  }

  const CHUNK = 64 * 1024;
  /// Decrypts an age file read from `reader` (a ReadableStream reader of bytes), passing
  /// each plaintext chunk to `onChunk` as it is authenticated.
  async function decryptStream(reader, secret, onChunk) {
    let buf = new Uint8Array(0);
    let done = false;
    async function more() {
      const { value, done: end } = await reader.read();
      if (end) { done = true; return; }
      const next = new Uint8Array(buf.length + value.length);
      next.set(buf); next.set(value, buf.length);
      buf = next;
    }
    let header;
    while (!(header = parseHeader(buf))) {
      if (done) throw new Error("the file ended inside its age header");
      await more();
    }
    const key = await fileKey(header, secret);
    const hmacKey = await hkdf(key, new Uint8Array(0), "header");
    if (!equal(await hmac(hmacKey, header.macd), header.mac)) throw new Error("the age header's MAC does not match: the file was changed");
    buf = buf.subarray(header.length);
    while (buf.length < 16 && !done) await more();
    if (buf.length < 16) throw new Error("the file ended before its payload");
    const payloadKey = await hkdf(key, buf.subarray(0, 16), "payload");
    buf = buf.subarray(16);
    const nonce = new Uint8Array(12);
    let counter = 0;
    for (;;) {
      while (buf.length <= CHUNK + 16 && !done) await more();
      const last = buf.length <= CHUNK + 16;
      const sealed = buf.subarray(0, Math.min(buf.length, CHUNK + 16));
      let c = counter;
      for (let i = 10; i >= 0; i--) { nonce[i] = c % 256; c = Math.floor(c / 256); }
      nonce[11] = last ? 1 : 0;
      const plain = open(payloadKey, nonce, sealed);
      if (!plain) throw new Error("a chunk of the file does not authenticate: it was changed or cut short");
      if (plain.length === 0 && (counter > 0 || !last)) throw new Error("an empty last chunk");
      await onChunk(plain);
      buf = buf.subarray(sealed.length);
      counter++;
      if (last) return;
    }
  }

  // ---- encryption: an age file to X25519 recipients (a file request's page) ----
  function random(length) {
    return crypto.getRandomValues(new Uint8Array(length));
  }
  /// The age header (age-encryption.org/v1) sealing `key` (16 bytes) to each recipient's
  /// public key: one X25519 stanza each, with a fresh ephemeral share, and the header's MAC.
  async function header(key, recipients) {
    let text = "age-encryption.org/v1\n";
    for (const pub of recipients) {
      const ephemeral = random(32);
      const share = await x25519Public(ephemeral);
      const shared = await x25519(ephemeral, pub);
      if (shared.every((b) => b === 0)) throw new Error("a recipient's key is not a valid X25519 point");
      const salt = new Uint8Array(64); salt.set(share); salt.set(pub, 32);
      const wrap = await hkdf(shared, salt, "age-encryption.org/v1/X25519");
      text += "-> X25519 " + b64encode(share) + "\n" + b64encode(seal(wrap, ZERO12, key)) + "\n";
    }
    text += "---";
    const mac = await hmac(await hkdf(key, new Uint8Array(0), "header"), enc.encode(text));
    return enc.encode(text + " " + b64encode(mac) + "\n");
  }
  /// Encrypts `size` bytes read by `read(offset, length)` (a Promise of a Uint8Array) to
  /// `recipients` (age1… strings) as an age file, passing each piece (the header, the
  /// nonce, each sealed 64 KiB chunk of the STREAM) to `onPiece` in order.
  async function encryptStream(size, read, recipients, onPiece) {
    const keys = recipients.map(parseRecipient);
    if (!keys.length) throw new Error("no recipients");
    const key = random(16);
    await onPiece(await header(key, keys));
    const nonce = random(16);
    await onPiece(nonce);
    const payloadKey = await hkdf(key, nonce, "payload");
    const chunks = Math.max(1, Math.ceil(size / CHUNK));
    const chunkNonce = new Uint8Array(12);
    for (let n = 0; n < chunks; n++) {
      const start = n * CHUNK;
      const plain = await read(start, Math.min(CHUNK, size - start));
      let c = n;
      for (let i = 10; i >= 0; i--) { chunkNonce[i] = c % 256; c = Math.floor(c / 256); }
      chunkNonce[11] = n === chunks - 1 ? 1 : 0;
      await onPiece(seal(payloadKey, chunkNonce, plain));
    }
  }

  return { b64encode, chacha20, poly1305, seal, open, hkdf, scrypt, x25519, x25519Public, parseIdentity, parseRecipient, parseHeader,
           decryptStream, encryptStream };
})();

// ---- the pages: one button each, what it does said in #status ----
/// Runs `work(say)` on a click of `button`, the button held meanwhile; `root`'s data-state
/// is "ready", then "done" or "error" (the error said), which the tests wait for.
function onButton(root, button, work) {
  const status = document.getElementById("status");
  const say = (text) => { status.textContent = text; };
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await work(say);
      root.dataset.state = "done";
    } catch (error) {
      say("error: " + error.message);
      root.dataset.state = "error";
      button.disabled = false;
    }
  });
  root.dataset.state = "ready";
}

// ---- saving: the plaintext streamed to the browser's download, or gathered in a Blob ----
// The script's own address, read while it runs: the service worker is this same file,
// registered for the folder `assets/saved/` beside it, which nothing on the relay serves.
const SCRIPT = typeof document !== "undefined" && document.currentScript ? document.currentScript.src : "";

/// The active service worker that turns a stream this page hands it into a download (the
/// part of this file below, run as a worker), or null where there is none: a page over
/// plain HTTP other than localhost, a browser without service workers or with them off.
async function saveWorker() {
  if (!SCRIPT || !("serviceWorker" in navigator) || !window.isSecureContext || typeof ReadableStream === "undefined") return null;
  try {
    const registration = await navigator.serviceWorker.register(SCRIPT, { scope: new URL("saved/", SCRIPT).pathname });
    const worker = registration.installing || registration.waiting || registration.active;
    if (worker && worker.state !== "activated") {
      await new Promise((resolve, reject) => {
        const look = () => {
          if (worker.state === "activated") resolve();
          else if (worker.state === "redundant") reject(new Error("the service worker did not start"));
        };
        worker.addEventListener("statechange", look);
        look();
      });
    }
    return registration.active;
  } catch (error) {
    return null;
  }
}

/// A download the browser writes to disk as the page produces it: `write(chunk)` waits
/// while the browser is behind (at most 16 chunks, 1 MiB, wait in memory), `close()`
/// finishes it, `fail(error)` makes the browser drop it as a failed download, never
/// keeping it under its name. `name` is the file's name.
async function streamedDownload(worker, name) {
  let controller = null, wake = null, cancelled = null;
  const stream = new ReadableStream({
    start(c) { controller = c; },
    pull() { if (wake) { const w = wake; wake = null; w(); } },
    cancel() {
      cancelled = new Error("the download was cancelled in the browser");
      if (wake) { const w = wake; wake = null; w(); }
    },
  }, new CountQueuingStrategy({ highWaterMark: 16 }));
  const id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  const channel = new MessageChannel();
  const heard = (what) => new Promise((resolve) => {
    channel.port1.addEventListener("message", (event) => { if (event.data === what) resolve(); });
  });
  const taken = heard("taken"), started = heard("started");
  channel.port1.start();
  let timer;
  const late = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error("the browser did not start the download; try again, or another browser")), 30000);
  });
  try {
    worker.postMessage({ id, name, stream }, [channel.port2, stream]);
    await Promise.race([taken, late]);
    // A navigation, not a link with `download` (the browser sends those past the worker):
    // the worker's answer is an attachment, so the page stays. Should the worker not
    // answer it, the relay's own answer to `saved/ID` is 204, which leaves the page as it is.
    location.assign(new URL("saved/" + id, SCRIPT).href);
    await Promise.race([started, late]);
  } catch (error) {
    controller.error(error);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  // A worker the browser finds idle may be stopped; a message now and then keeps it.
  const alive = setInterval(() => worker.postMessage({ ping: true }), 10000);
  return {
    async write(chunk) {
      if (cancelled) throw cancelled;
      controller.enqueue(chunk);
      while (controller.desiredSize <= 0 && !cancelled) await new Promise((resolve) => { wake = resolve; });
      if (cancelled) throw cancelled;
    },
    close() { clearInterval(alive); controller.close(); },
    fail(error) { clearInterval(alive); if (!cancelled) controller.error(error); },
  };
}

/// A download of the chunks gathered in memory (where no service worker can stream).
function blobDownload(name) {
  const parts = [];
  return {
    write(chunk) { parts.push(chunk); },
    close() {
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob(parts, { type: "application/octet-stream" }));
      link.download = name;
      link.id = "save";
      link.textContent = "Save " + name;
      document.getElementById("saved").replaceChildren(link);
      link.click();
    },
    fail() { parts.length = 0; },
  };
}

/// A reader of the link's ciphertext (`response`, the counted download) that carries on
/// where a broken connection left it: the relay's `VFS-Resume` token with a Range from the
/// byte reached gets the rest without counting another download (within a day, while the
/// link is neither revoked nor expired), so a link allowing one download is not lost to a
/// dropped connection. Six tries, 0.5 s to 16 s apart, after each failure; `onBytes(n)`
/// for each piece read.
function continuing(response, say, onBytes) {
  const resume = response.headers.get("VFS-Resume");
  const etag = response.headers.get("ETag");
  let reader = response.body.getReader();
  let offset = 0, tries = 0;
  async function reopen(broken) {
    for (;;) {
      if (!resume || tries >= 6) throw broken;
      tries++;
      say("the connection broke at byte " + offset + "; continuing (try " + tries + " of 6)…");
      await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** (tries - 1)));
      let again;
      try {
        const headers = { Accept: "application/octet-stream", "VFS-Resume": resume, Range: "bytes=" + offset + "-" };
        if (etag) headers["If-Range"] = etag;
        again = await fetch(location.pathname, { headers, cache: "no-store" });
      } catch (error) {
        continue;  // the network is still down
      }
      if (again.status === 410) throw new Error("this link was revoked or expired while it downloaded");
      const range = again.headers.get("Content-Range") || "";
      if (again.status !== 206 || !range.startsWith("bytes " + offset + "-")) {
        throw new Error("the relay did not continue the download (" + again.status + ")");
      }
      return again.body.getReader();
    }
  }
  return {
    async read() {
      for (;;) {
        try {
          const r = await reader.read();
          if (r.value) {
            offset += r.value.length;
            tries = 0;
            onBytes(r.value.length);
          }
          return r;
        } catch (error) {
          reader = await reopen(error);
        }
      }
    },
    cancel() { reader.cancel().catch(() => {}); },
  };
}

// ---- a share link's page ----
(function page() {
  if (typeof document === "undefined") return;
  const root = document.getElementById("share");
  if (!root) return;
  const passphrase = document.getElementById("passphrase");
  const key = location.hash.slice(1);
  if (key) passphrase.closest("p").hidden = true;
  const worker = saveWorker();
  onButton(root, document.getElementById("download"), async (say) => {
    const secret = key ? { identity: VfsAge.parseIdentity(decodeURIComponent(key)) } : { passphrase: passphrase.value };
    say("downloading…");
    const response = await fetch(location.pathname, { headers: { Accept: "application/octet-stream" }, cache: "no-store" });
    if (response.status === 410) throw new Error("this link was revoked, has expired or has had all its downloads");
    if (!response.ok) throw new Error("the relay answered " + response.status);
    const total = Number(response.headers.get("Content-Length")) || 0;
    let got = 0, saved = 0;
    const counting = continuing(response, say, (n) => {
      got += n;
      say("decrypting… " + (total ? Math.floor(100 * got / total) + "%" : got + " bytes"));
    });
    // The download starts with the first authenticated chunk: a wrong key or passphrase
    // is said here and starts none. The relay knows no file name (it is not sent); a
    // bundle of several files is a tar archive.
    let sink = null;
    const streaming = await worker;
    try {
      await VfsAge.decryptStream(counting, secret, async (chunk) => {
        if (!sink) {
          const tar = chunk.length >= 262 && new TextDecoder().decode(chunk.subarray(257, 262)) === "ustar";
          const name = tar ? "shared-files.tar" : "shared-file";
          sink = streaming ? await streamedDownload(streaming, name) : blobDownload(name);
          root.dataset.saving = streaming ? "stream" : "memory";
        }
        saved += chunk.length;
        await sink.write(chunk);
      });
    } catch (error) {
      if (sink) sink.fail(error);
      counting.cancel();
      throw error;
    }
    sink.close();
    say("decrypted: " + saved + " bytes");
  });
})();

// ---- the service worker (this file, run as one): a stream a page hands it becomes the
// response to the download of `saved/ID`, and so a file the browser writes as it comes ----
(function saveWorkerScope() {
  if (typeof ServiceWorkerGlobalScope === "undefined" || !(self instanceof ServiceWorkerGlobalScope)) return;
  const waiting = new Map();
  self.addEventListener("install", () => { self.skipWaiting(); });
  self.addEventListener("activate", (event) => { event.waitUntil(self.clients.claim()); });
  self.addEventListener("message", (event) => {
    const { id, name, stream } = event.data || {};
    if (typeof id !== "string" || !(stream instanceof ReadableStream)) return;
    if (!event.ports[0]) return;
    waiting.set(id, { name: String(name || "shared-file"), stream, port: event.ports[0] });
    event.ports[0].postMessage("taken");
  });
  self.addEventListener("fetch", (event) => {
    const match = /\/saved\/([0-9a-f]{32})$/.exec(new URL(event.request.url).pathname);
    if (!match) return;
    const item = waiting.get(match[1]);
    waiting.delete(match[1]);
    if (!item) {
      event.respondWith(new Response("this download was already taken\n", { status: 404, headers: { "Content-Type": "text/plain" } }));
      return;
    }
    item.port.postMessage("started");
    event.respondWith(new Response(item.stream, { headers: {
      "Content-Type": "application/octet-stream",
      "Content-Disposition": "attachment; filename=\"" + item.name.replace(/[^A-Za-z0-9._-]/g, "_") + "\"",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-store",
    } }));
  });
})();

// ---- a file request's page ----
(function requestPage() {
  if (typeof document === "undefined") return;
  const root = document.getElementById("request");
  if (!root) return;
  const input = document.getElementById("file");
  const recipients = root.dataset.recipients.split(" ").filter(Boolean);
  onButton(root, document.getElementById("upload"), async (say) => {
    const file = input.files[0];
    if (!file) throw new Error("choose a file first");
    // The ciphertext is gathered into one Blob and sent with one PUT: a browser streams
    // a request's body only over HTTP/2, which a relay behind no proxy does not speak.
    const pieces = [];
    let done = 0;
    await VfsAge.encryptStream(file.size, async (offset, length) => {
      done = offset + length;
      say("encrypting… " + (file.size ? Math.floor(100 * done / file.size) : 100) + "%");
      return new Uint8Array(await file.slice(offset, offset + length).arrayBuffer());
    }, recipients, (piece) => { pieces.push(piece); });
    const body = new Blob(pieces, { type: "application/octet-stream" });
    say("sending " + body.size + " bytes…");
    const response = await fetch(location.pathname.replace(/\/$/, "") + "/" + encodeURIComponent(file.name),
                                 { method: "PUT", body, cache: "no-store" });
    if (response.status === 410) throw new Error("this link no longer takes files");
    if (!response.ok) {
      let message = "";
      try { message = (await response.json()).message; } catch (ignored) { message = ""; }
      throw new Error("the relay answered " + response.status + (message ? ": " + message : ""));
    }
    say("sent: " + file.name + ", " + body.size + " bytes encrypted to " + recipients.length + " recipient(s)");
  });
})();
