import { describe, expect, it } from 'vitest';
import {
  chunkText,
  normalizeText,
  parseTemplate,
  renderTemplate,
  splitSentences,
  TemplateSyntaxError,
  tidyText,
} from './text.js';

describe('normalizeText', () => {
  it('makes typed text look like PocketSphinx output: lowercase, no punctuation', () => {
    expect(normalizeText('What is the capital of Germany?')).toBe('what is the capital of germany');
    expect(normalizeText('Remind me — what’s my name, and where am I going?!')).toBe(
      'remind me what is my name and where am i going',
    );
  });

  it('expands contractions the same way for typed text and PocketSphinx apostrophes', () => {
    expect(normalizeText("My name is Alex, and I'm planning a trip to Italy.")).toBe(
      'my name is alex and i am planning a trip to italy',
    );
    expect(normalizeText("i'm planning a trip")).toBe('i am planning a trip');
    expect(normalizeText("It's what's there; we're sure you'll see, I've, I'd")).toBe(
      'it is what is there we are sure you will see i have i would',
    );
    expect(normalizeText("Don't, can't, won't, isn't")).toBe('do not can not will not is not');
  });

  it("drops a possessive 's instead of reading it as is", () => {
    expect(normalizeText("Germany's capital")).toBe('germany capital');
    expect(normalizeText("The user's name is Alex")).toBe('the user name is alex');
  });

  it('strips accents and keeps digits', () => {
    expect(normalizeText('Café in Zürich at 9 AM')).toBe('cafe in zurich at 9 am');
  });

  it('keeps a trailing * only for patterns', () => {
    expect(normalizeText('restaurant*')).toBe('restaurant');
    expect(normalizeText('Restaurant*', true)).toBe('restaurant*');
  });
});

describe('chunking', () => {
  it('cuts one chunk per word, whitespace carried in front, so joining with "" restores the text', () => {
    const text = 'The capital of Germany is Berlin.';
    const chunks = chunkText(text);
    expect(chunks).toEqual(['The', ' capital', ' of', ' Germany', ' is', ' Berlin.']);
    expect(chunks.join('')).toBe(text);
  });

  it('splits sentences at . ! and ?', () => {
    expect(splitSentences('Hello! How are you? I am fine. Bye')).toEqual([
      'Hello!',
      'How are you?',
      'I am fine.',
      'Bye',
    ]);
  });

  it('tidies folded YAML text into single spaces', () => {
    expect(tidyText('  one\n two   three\n')).toBe('one two three');
  });
});

describe('templates', () => {
  it('lists the slots a template needs and fills them', () => {
    const t = parseTemplate('Nice to meet you, {{name}}. Enjoy {{ place }} and {{name}}.');
    expect(t.slots).toEqual(['name', 'place']);
    const values: Record<string, string> = { name: 'Alex', place: 'Italy' };
    expect(renderTemplate(t, (s) => values[s])).toBe('Nice to meet you, Alex. Enjoy Italy and Alex.');
  });

  it('applies the title, upper and lower filters', () => {
    const t = parseTemplate('{{city|title}} / {{city | upper}} / {{city|lower}}');
    expect(renderTemplate(t, () => 'new YORK')).toBe('New YORK / NEW YORK / new york');
  });

  it('rejects malformed placeholders', () => {
    for (const bad of ['{{Name}}', '{{name|shout}}', '{{a|title|upper}}', 'x {{name', 'x }} y', '{{}}']) {
      expect(() => parseTemplate(bad), bad).toThrow(TemplateSyntaxError);
    }
  });

  it('refuses to render with a slot missing instead of saying "undefined"', () => {
    expect(() => renderTemplate(parseTemplate('Hi {{name}}'), () => undefined)).toThrow(/no value for \{\{name\}\}/);
  });
});
