/**
 * A document's sentences, as the reference bot indexes them: markup removed (Markdown, HTML), headings dropped
 * (a title is not an answer), paragraphs cut at sentence ends. Each sentence keeps its written form, which is what
 * the bot says; matching runs on its tokens.
 */
import { NUMBER_WORDS } from './spoken-numbers.js';
import { normalizeText, splitSentences, tidyText } from './text.js';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function htmlParagraphs(html: string): string[] {
  const body = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(head|script|style|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<h[1-6]\b[\s\S]*?<\/h[1-6]\s*>/gi, '\n\n')
    .replace(/<\/?(p|div|li|tr|br|section|article|ul|ol|table|td|th|h[1-6])\b[^>]*>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#39|[a-z]+);/gi, (m, name: string) => ENTITIES[name.toLowerCase()] ?? m);
  return body.split(/\n\s*\n/);
}

function markdownParagraphs(markdown: string): string[] {
  const lines = markdown.split(/\r?\n/).map((line) => {
    if (/^\s*#/.test(line)) return '';
    // A table row reads as its cells; its rule line as nothing.
    if (/^\s*\|/.test(line))
      return /^[\s|:-]+$/.test(line)
        ? ''
        : `${line
            .split('|')
            .map((c) => c.trim())
            .filter(Boolean)
            .join(', ')}.`;
    return line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').replace(/[*_`]{1,3}/g, '');
  });
  return lines.join('\n').split(/\n\s*\n/);
}

/** The sentences of a document's text, in order. */
export function documentSentences(content: string, format: string): string[] {
  const paragraphs =
    format === 'html'
      ? htmlParagraphs(content)
      : format === 'markdown'
        ? markdownParagraphs(content)
        : content.split(/\n\s*\n/);
  return paragraphs.flatMap((p) => splitSentences(tidyText(p))).filter((s) => normalizeText(s) !== '');
}

/** Words that carry no subject: a question's "what was", "tell me about", "from the document". */
const STOPWORDS = new Set(
  (
    'a an the what was is are were be been being do does did done how many much who whom which when where why ' +
    'me you your yours i my we our us they them their it its this that these those there here can could would ' +
    'should will shall may might must tell about please and or but of in on at for to from with by into as if ' +
    'so just also know say says said let give show has have had any some one two per than then up out ' +
    'document documents file files according hi hello okay ok well now again check whether wonder ' +
    'wondering want like ask find'
  ).split(' '),
);

/**
 * Plural `s` off (not `ss`, `us`, `is`), so "costs" meets "cost" and "employees" meets "employee"; `ing` off a
 * longer word, so "working remotely" meets "work remotely".
 */
export function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  return word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word) ? word.slice(0, -1) : word;
}

/** A sentence's tokens: every normalized word, stemmed. */
export function sentenceTokens(sentence: string): Set<string> {
  return new Set(normalizeText(sentence).split(' ').filter(Boolean).map(stem));
}

/**
 * A question's tokens: its subject words only. No stopwords; no numbers, in digits or in words as a recognizer writes
 * them ("seventy five thousand dollars"), which are the question's data; no single letters, which are an acronym a
 * recognizer spelled out and broke up (PocketSphinx hears "CFO" as "c f"): matched, they would weigh as subject
 * words no sentence has.
 */
export function queryTokens(question: string): string[] {
  const words = normalizeText(question)
    .split(' ')
    .filter((w) => w.length > 1 && !STOPWORDS.has(w) && !NUMBER_WORDS.has(w) && !/^\d+$/.test(w));
  return [...new Set(words.map(stem))];
}
