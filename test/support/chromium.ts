import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Headless Chromium for tests that open what earshot writes (the HTML report).
 * Debian's `chromium` package (scripts/install-deps.sh --test) driven by
 * playwright-core; CHROMIUM_PATH points elsewhere when needed. A missing browser
 * is a failure with the install command, never a skip.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: run scripts/install-deps.sh --test (or set CHROMIUM_PATH)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--autoplay-policy=no-user-gesture-required',
      ...extraArgs,
    ],
  });
}

/** What a page did that a test asserts on: console errors, uncaught exceptions, dialogs, requests. */
export interface PageWatch {
  consoleErrors: string[];
  pageErrors: string[];
  dialogs: string[];
  requests: string[];
}

/** Records a page's errors, dialogs (dismissed) and every URL it requests. */
export function watchPage(page: Page): PageWatch {
  const watch: PageWatch = { consoleErrors: [], pageErrors: [], dialogs: [], requests: [] };
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') watch.consoleErrors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => watch.pageErrors.push(e.message));
  page.on('dialog', (d) => {
    watch.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on('request', (r) => watch.requests.push(r.url()));
  return watch;
}

/** A page of a file earshot wrote, open in a fresh headless Chromium, watched from before it loads. */
export interface OpenedFile {
  browser: Browser;
  page: Page;
  watch: PageWatch;
}

/**
 * Opens `file` (a local HTML file) and waits until `readySelector` is drawn, so a
 * test starts on a rendered page. The default viewport is the report's desktop
 * width; the caller closes `browser`.
 */
export async function openInChromium(
  file: string,
  readySelector: string,
  viewport = { width: 1280, height: 900 },
): Promise<OpenedFile> {
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport });
  const watch = watchPage(page);
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector(readySelector);
  return { browser, page, watch };
}
