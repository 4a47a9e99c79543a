/**
 * XML 1.0 text for untrusted strings. Characters XML cannot carry at all (most
 * C0 controls, lone surrogates, U+FFFE/U+FFFF) become U+FFFD instead of making
 * the whole file unreadable to CI.
 */
const NOT_XML = /[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

export function xmlSafeChars(text: string): string {
  return text.replace(NOT_XML, '\ufffd');
}

export function xmlText(text: string): string {
  return xmlSafeChars(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Attribute values keep their newlines and tabs (a raw newline would be normalized to a space). */
export function xmlAttr(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
