/**
 * The reference bot's tool domains (NeMo's per-domain tool registry, keyed by a scenario's `domain` /
 * `tool_domain`): for each, the tools a planned call may run against the connection's scenario state, the
 * functions `initialization_actions` may replay, and which tools end the conversation (NeMo's `<exit>`).
 */
import type { RefbotDomain } from './domain.js';
import { RESTAURANT_DOMAIN } from './restaurant.js';

export const REFBOT_DOMAINS: Readonly<Record<string, RefbotDomain>> = {
  restaurant: RESTAURANT_DOMAIN,
};

export function domainOf(name: string | null | undefined): RefbotDomain | undefined {
  return name && Object.hasOwn(REFBOT_DOMAINS, name) ? REFBOT_DOMAINS[name] : undefined;
}
