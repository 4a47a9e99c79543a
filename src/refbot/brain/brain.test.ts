import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import { DtmfAggregator, ManualScheduler } from '../input/dtmf-aggregator.js';
import { BrainMemory, loadBrain, type Reply } from './brain.js';

/** The default brain (fixtures/brain.yaml): what the example scenarios are written against. */
const brain = loadBrain();

function say(memory: BrainMemory, text: string): Reply {
  return brain.respond({ kind: 'text', text }, memory);
}
function press(memory: BrainMemory, digits: string): Reply {
  return brain.respond({ kind: 'dtmf', digits }, memory);
}

describe('default brain: greeting and chunking', () => {
  it('greets with a short keypad menu mentioning pressing 1 and 2', () => {
    const reply = brain.greeting();
    expect(reply.text).toBe(
      'Hello, I can answer questions. You can also press 1 for business hours, press 2 for our location, or press 3 and we will call you back.',
    );
    expect(reply.source).toBe('greeting');
    expect(reply.calls).toEqual([]);
    expect(reply.isStory).toBe(false);
  });

  it('streams replies as word chunks that join back to the text, like LLM tokens', () => {
    const reply = say(new BrainMemory(), 'What is the capital of Germany?');
    expect(reply.chunks).toEqual(['The', ' capital', ' of', ' Germany', ' is', ' Berlin.']);
    expect(reply.chunks.join('')).toBe(reply.text);
    expect(reply.sentences).toEqual(['The capital of Germany is Berlin.']);
  });

  it('records the greeting and each exchange in the conversation history', () => {
    const memory = new BrainMemory();
    brain.greeting(memory);
    say(memory, 'Thanks!');
    press(memory, '1#');
    expect(memory.history.map((m) => [m.role, m.content])).toEqual([
      ['assistant', brain.greeting().text],
      ['user', 'Thanks!'],
      ['assistant', 'You are welcome.'],
      ['user', 'DTMF: 1#'],
      ['assistant', 'We are open 9 AM to 5 PM, Monday through Friday.'],
    ]);
  });
});

describe('default brain: capitals', () => {
  it.each([
    ['What is the capital of Germany?', 'The capital of Germany is Berlin.'],
    ['what is the capital of france', 'The capital of France is Paris.'],
    ["Actually, never mind that — what's the capital of Japan?", 'The capital of Japan is the city of Tokyo.'],
    ["Italy's capital?", 'The capital of Italy is the famous city of Rome.'],
    ['CAPITAL OF SPAIN', 'The capital of Spain is Madrid.'],
    ['What is the capital of Peru?', 'I only know the capitals of Germany, France, Japan, Italy and Spain.'],
  ])('%s', (question, answer) => {
    expect(say(new BrainMemory(), question).text).toBe(answer);
  });
});

describe('default brain: function calls', () => {
  it('weather in a city plans get_current_weather with the city, then answers in Fahrenheit', () => {
    const reply = say(new BrainMemory(), "What's the weather in San Francisco, California? Use Fahrenheit.");
    expect(reply.source).toBe('rule:weather');
    expect(reply.text).toBe('It is 75 degrees and sunny in San Francisco.');
    expect(reply.calls).toEqual([
      {
        name: 'get_current_weather',
        args: { location: 'San Francisco' },
        durationMs: 300,
        result: { conditions: 'sunny', temperature: 75, unit: 'fahrenheit' },
        toolCallId: 'call_1',
      },
    ]);
  });

  it('takes a typed city outside the vocabulary from the words after "in"', () => {
    const reply = say(new BrainMemory(), 'How is the weather in Austin today?');
    expect(reply.text).toBe('It is 75 degrees and sunny in Austin.');
    expect(reply.calls[0].args).toEqual({ location: 'Austin' });
  });

  it('weather and a restaurant in one utterance plan both calls in one turn, ids in order', () => {
    const memory = new BrainMemory();
    const reply = say(
      memory,
      "What's the weather in San Francisco, and what's a good restaurant there? Use Fahrenheit.",
    );
    expect(reply.text).toBe('It is 75 degrees and sunny in San Francisco. For dinner, I recommend The Golden Dragon.');
    expect(reply.calls.map((c) => [c.name, c.args, c.toolCallId])).toEqual([
      ['get_current_weather', { location: 'San Francisco' }, 'call_1'],
      ['get_restaurant_recommendation', { location: 'San Francisco' }, 'call_2'],
    ]);
    expect(reply.calls[1].result).toEqual({ name: 'The Golden Dragon' });
    // Ids keep counting for the whole connection.
    expect(say(memory, 'Can you recommend a restaurant in Paris?').calls.map((c) => c.toolCallId)).toEqual(['call_3']);
    expect(say(new BrainMemory(), 'Weather in Paris?').calls[0].toolCallId).toBe('call_1');
  });

  it('a restaurant recommendation plans get_restaurant_recommendation', () => {
    const reply = say(new BrainMemory(), 'Can you recommend a good restaurant in New York?');
    expect(reply.text).toBe('I recommend The Golden Dragon in New York.');
    expect(reply.calls.map((c) => [c.name, c.args])).toEqual([
      ['get_restaurant_recommendation', { location: 'New York' }],
    ]);
  });

  it('"there" means the last city talked about; with none, the bot asks and calls nothing', () => {
    const fresh = new BrainMemory();
    expect(say(fresh, "What's the weather like?")).toMatchObject({ text: 'Which city are you in?', calls: [] });
    expect(say(fresh, 'Any good restaurants?')).toMatchObject({
      text: 'In which city would you like to eat?',
      calls: [],
    });
    const memory = new BrainMemory();
    say(memory, 'What is the weather in Seattle?');
    expect(say(memory, 'And a good restaurant there?').calls[0].args).toEqual({ location: 'Seattle' });
    expect(say(memory, 'What is the temperature there now?').calls[0].args).toEqual({ location: 'Seattle' });
  });

  it('a favorite color is recorded with record_favorite_color', () => {
    const reply = say(new BrainMemory(), 'My favorite color is blue.');
    expect(reply.text).toBe('Blue is a lovely color.');
    expect(reply.calls.map((c) => [c.name, c.args])).toEqual([['record_favorite_color', { color: 'blue' }]]);
  });
});

describe('default brain: memory', () => {
  it('remembers a name and recalls it; before that it says it does not know', () => {
    const memory = new BrainMemory();
    expect(say(memory, 'What is my name?').text).toBe('You have not told me your name yet.');
    expect(say(memory, 'Hi, my name is Alex.').text).toBe('Nice to meet you, Alex.');
    expect(memory.slots.get('name')).toBe('Alex');
    expect(say(memory, 'what is my name').text).toBe('Your name is Alex.');
  });

  it('remembers the name and the destination of a trip from one sentence and recalls both', () => {
    const memory = new BrainMemory();
    expect(say(memory, "My name is Alex, and I'm planning a trip to Italy.").text).toBe(
      'Nice to meet you, Alex. Enjoy your trip to Italy.',
    );
    expect(say(memory, "Remind me — what's my name and where am I going?").text).toBe(
      'Your name is Alex, and you are going to Italy.',
    );
    expect(say(memory, 'Where am I going?').text).toBe('You are going to Italy.');
  });

  it('a destination alone is remembered; asking for it before gets a plain "not yet"', () => {
    const memory = new BrainMemory();
    expect(say(memory, 'Where am I going?').text).toBe('You have not told me where you are going yet.');
    expect(say(memory, 'I am flying to Tokyo next week.').text).toBe('Enjoy your trip to Tokyo.');
    expect(say(memory, 'where am i going').text).toBe('You are going to Tokyo.');
  });

  it('memory is per connection', () => {
    const a = new BrainMemory();
    say(a, 'My name is Alex.');
    expect(say(new BrainMemory(), 'What is my name?').text).toBe('You have not told me your name yet.');
  });
});

describe('default brain: eval-context seeding', () => {
  it('a developer message saying the user introduced themselves as Alex makes "what is my name" answer Alex', () => {
    const memory = new BrainMemory();
    brain.seedContext(
      [
        { role: 'system', content: 'You are a helpful assistant. Keep answers short.' },
        { role: 'developer', content: 'The user has already introduced themselves as Alex.' },
      ],
      memory,
    );
    expect(say(memory, 'What is my name?').text).toBe('Your name is Alex.');
  });

  it('replaces the conversation: history becomes the messages, earlier slots and keypad entry are gone', () => {
    const memory = new BrainMemory();
    say(memory, 'My name is Sam and I am going to Spain.');
    press(memory, '3');
    brain.seedContext([{ role: 'user', content: [{ type: 'text', text: "I'm planning a trip to Japan." }] }], memory);
    expect(memory.history).toEqual([{ role: 'user', content: "I'm planning a trip to Japan." }]);
    expect([...memory.slots]).toEqual([['destination', 'Japan']]);
    expect(memory.keypadCollecting).toBeNull();
    expect(say(memory, 'What is my name?').text).toBe('You have not told me your name yet.');
  });

  it("does not take slots from the assistant's own messages", () => {
    const memory = new BrainMemory();
    brain.seedContext([{ role: 'assistant', content: 'My name is Robo.' }], memory);
    expect(memory.slots.size).toBe(0);
  });

  it('reads every sentence of a message, not just the first', () => {
    const memory = new BrainMemory();
    brain.seedContext(
      [{ role: 'system', content: "Be brief. The user's name is Maria. She is planning a trip to France." }],
      memory,
    );
    expect(say(memory, 'Do you know my name and my destination?').text).toBe(
      'Your name is Maria, and you are going to France.',
    );
  });
});

describe('default brain: the long story', () => {
  it('a long detailed story about the history of Paris is the interruptible story', () => {
    const reply = say(new BrainMemory(), 'Tell me a long, detailed story about the history of Paris.');
    expect(reply.isStory).toBe(true);
    expect(reply.source).toBe('story');
    expect(reply.text.startsWith('Paris began more than two thousand years ago')).toBe(true);
    expect(reply.chunks.length).toBeGreaterThan(100);
    expect(reply.sentences.length).toBeGreaterThanOrEqual(8);
    expect(reply.chunks.join('')).toBe(reply.text);
  });

  it('"tell me a story" triggers it too; "history" alone is not "story"', () => {
    expect(say(new BrainMemory(), 'Tell me a story.').isStory).toBe(true);
    expect(say(new BrainMemory(), 'What a history!').isStory).toBe(false);
  });
});

describe('default brain: keypad menu', () => {
  it('1# gives the business hours', () => {
    expect(press(new BrainMemory(), '1#')).toMatchObject({
      text: 'We are open 9 AM to 5 PM, Monday through Friday.',
      source: 'keypad:1',
    });
  });

  it('2 (flushed by the idle timeout, no #) gives the office location', () => {
    expect(press(new BrainMemory(), '2').text).toBe('Our office is located at 123 Main Street.');
  });

  it('3 asks for a callback number, then the digits and # are confirmed', () => {
    const memory = new BrainMemory();
    expect(press(memory, '3').text).toBe('Please enter the number to call you back on, then press the pound key.');
    expect(memory.keypadCollecting).toBe('3');
    const reply = press(memory, '5551234567#');
    expect(reply).toMatchObject({
      text: 'Thank you. We will call you back at 5551234567.',
      source: 'keypad:3:collected',
    });
    expect(memory.slots.get('callback')).toBe('5551234567');
    expect(memory.keypadCollecting).toBeNull();
    // Back at the menu.
    expect(press(memory, '2#').text).toBe('Our office is located at 123 Main Street.');
  });

  it('a lone # while a number is expected asks again', () => {
    const memory = new BrainMemory();
    press(memory, '3');
    expect(press(memory, '#').source).toBe('keypad:3');
    expect(press(memory, '42#').text).toBe('Thank you. We will call you back at 42.');
  });

  it('speaking instead of typing the number leaves the number entry', () => {
    const memory = new BrainMemory();
    press(memory, '3');
    say(memory, 'What is the capital of France?');
    expect(press(memory, '1#').source).toBe('keypad:1');
  });

  it('an unknown key gets the menu again', () => {
    expect(press(new BrainMemory(), '9#')).toMatchObject({
      source: 'keypad:invalid',
      text: 'Sorry, that is not a menu option. Press 1 for business hours, press 2 for our location, or press 3 and we will call you back.',
    });
  });

  it('runs the whole menu through the DTMF aggregator: 1#, then 2 flushed when idle, then 3 and a number', () => {
    const clock = new ManualClock();
    const scheduler = new ManualScheduler(clock);
    const memory = new BrainMemory();
    const heard: string[] = [];
    const replies: string[] = [];
    const keys = new DtmfAggregator({
      clock,
      scheduler,
      onEntry: (entry) => {
        heard.push(entry.text);
        replies.push(brain.respond({ kind: 'dtmf', digits: entry.digits }, memory).text);
      },
    });
    for (const k of '1#') keys.press(k);
    keys.press('2');
    scheduler.advance(2000);
    keys.press('3');
    scheduler.advance(2000);
    for (const k of '5551234567#') keys.press(k);
    expect(heard).toEqual(['DTMF: 1#', 'DTMF: 2', 'DTMF: 3', 'DTMF: 5551234567#']);
    expect(replies).toEqual([
      'We are open 9 AM to 5 PM, Monday through Friday.',
      'Our office is located at 123 Main Street.',
      'Please enter the number to call you back on, then press the pound key.',
      'Thank you. We will call you back at 5551234567.',
    ]);
  });

  it('"DTMF: 1#" arriving as text is keypad input', () => {
    expect(say(new BrainMemory(), 'DTMF: 1#').source).toBe('keypad:1');
  });

  it('asking by voice gives the same hours and location as the keys', () => {
    expect(say(new BrainMemory(), 'What are your business hours?').text).toBe(press(new BrainMemory(), '1#').text);
    expect(say(new BrainMemory(), 'What is your address?').text).toBe(press(new BrainMemory(), '2#').text);
  });
});

describe('default brain: what PocketSphinx made of the example questions (measured, Flite voices slt and awb)', () => {
  it.each([
    ["actually nevermind then what's the capital of japan", 'rule:capital-japan'],
    ["my name is alex and i'm planning a trip to italy", 'rule:introduce-name-and-trip'],
    ["what's the weather in san francisco california he is fair and nine", 'rule:weather'],
    [
      "what's the weather in san francisco and once again restaurant their views fahrenheit",
      'rule:weather-and-restaurant',
    ],
    ['tell me oh and detailed story about the history of paris', 'story'],
  ])('%s', (heard, source) => {
    expect(say(new BrainMemory(), heard).source).toBe(source);
  });

  it('"remind me what\'s my name and what am i going" still recalls both', () => {
    const memory = new BrainMemory();
    say(memory, "my name is alex and i'm planning a trip to italy");
    expect(say(memory, "remind me what's my name and what am i going").text).toBe(
      'Your name is Alex, and you are going to Italy.',
    );
  });
});

describe('default brain: small talk and fallback', () => {
  it.each([
    ['Thank you, goodbye.', 'Goodbye, and have a nice day.'],
    ['Thanks a lot!', 'You are welcome.'],
    ['Tell me a joke.', 'Why did the chicken cross the road? To get to the other side.'],
    ['Hello there', 'Hello! How can I help you today?'],
  ])('%s', (said, answer) => {
    expect(say(new BrainMemory(), said).text).toBe(answer);
  });

  it('anything else gets the fallback', () => {
    const reply = say(new BrainMemory(), 'Purple monkey dishwasher.');
    expect(reply).toMatchObject({
      source: 'fallback',
      text: 'Sorry, I did not catch that. Could you say it again?',
      calls: [],
    });
  });
});
