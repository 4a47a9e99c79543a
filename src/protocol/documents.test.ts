import { describe, expect, it } from 'vitest';
import { DOCUMENT_FORMATS, documentExtension, formatOfFilename } from './documents.js';

describe('formatOfFilename', () => {
  it('reads the format from the extension, whatever its case, or from a path', () => {
    expect(formatOfFilename('report.MD')).toBe('markdown');
    expect(formatOfFilename('eval/corpus/documents/product_comparison.htm')).toBe('html');
    expect(formatOfFilename('tool.py')).toBe('python');
    expect(formatOfFilename('chart.webp')).toBe('image');
  });

  it('is text for an extension it does not know, none, or an Object key', () => {
    expect(formatOfFilename('archive.tar')).toBe('text');
    expect(formatOfFilename('manifest.json')).toBe('text');
    expect(formatOfFilename('README')).toBe('text');
    expect(formatOfFilename('x.constructor')).toBe('text');
    expect(documentExtension('README')).toBe('');
    expect(Object.values(DOCUMENT_FORMATS)).not.toContain(undefined);
  });
});
