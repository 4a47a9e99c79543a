import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentLibrary } from './library.js';

/** A library folder of its own: two report.md in different folders, notes, a JSON manifest, and an image. */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'earshot-library-'));
  mkdirSync(join(dir, 'a'));
  mkdirSync(join(dir, 'b'));
  writeFileSync(join(dir, 'a', 'report.md'), '# North\n\nThe north office sold 40 bicycles in March.\n');
  writeFileSync(join(dir, 'b', 'report.md'), '# South\n\nThe south office hired 12 engineers in April.\n');
  writeFileSync(join(dir, 'notes.txt'), 'The parking garage closes at 9 pm.\n');
  writeFileSync(join(dir, 'manifest.json'), '{"question": "How many bicycles?", "answer": "40 bicycles"}\n');
  writeFileSync(join(dir, 'chart.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DocumentLibrary', () => {
  it('reads the text formats DOCUMENT_FORMATS lists: never an image, nor a JSON manifest', () => {
    const files = new DocumentLibrary(dir).list();
    expect(files.map((f) => [f.path, f.document.format])).toEqual([
      [join(dir, 'a', 'report.md'), 'markdown'],
      [join(dir, 'b', 'report.md'), 'markdown'],
      [join(dir, 'notes.txt'), 'text'],
    ]);
  });

  it('finds each of two same-named files in different folders, by what each says', () => {
    const library = new DocumentLibrary(dir);
    const north = library.search('How many bicycles did the north office sell?', new Set());
    expect(north?.file.path).toBe(join(dir, 'a', 'report.md'));
    expect(north?.match.sentence).toBe('The north office sold 40 bicycles in March.');
    const south = library.search('How many engineers did the south office hire?', new Set());
    expect(south?.file.path).toBe(join(dir, 'b', 'report.md'));
    expect(south?.match.sentence).toBe('The south office hired 12 engineers in April.');
    expect(library.search('When does the parking garage close?', new Set())?.file.document.filename).toBe('notes.txt');
  });

  it('leaves out the files already indexed, by file name', () => {
    const library = new DocumentLibrary(dir);
    expect(library.search('How many bicycles did the north office sell?', new Set(['report.md']))).toBeNull();
    expect(library.search('When does the parking garage close?', new Set(['report.md']))?.file.shown).toMatch(
      /notes\.txt$/,
    );
  });
});
