// How the pages show a time, an amount, a CI state and a link to the host (issue 33): words beside every
// colour, the exact instant on hover, the currency after every amount, a link a screen reader can say.
import type { FC } from 'hono/jsx';
import type { Task } from '../core/types.js';
import type { PageContext } from './page-context.js';
import { ago, exact } from './time-words.js';

/** A relative time with the exact one on hover. */
export const When: FC<{ at: string; page: PageContext }> = ({ at, page }) => (
  <time datetime={at} title={exact(at)}>
    {ago(at, page.nowMs ?? Date.now())}
  </time>
);

export const money = (n: number, page: PageContext) => `${n.toFixed(2)} ${page.currency ?? 'USD'}`;

/** The CI state in words beside its colour (issue 33: never colour alone). */
const CI_WORDS: Record<string, string> = { red: 'red', pending: 'running', passing: 'green', unknown: 'not seen yet' };

export const Dot: FC<{ ci: Task['ciState'] }> = ({ ci }) => {
  const word = ci === 'red' ? 'red' : ci === 'pending' ? 'pending' : ci === 'passing' ? 'passing' : 'unknown';
  return (
    <span class="ci">
      <span class={`dot dot-${word}`} data-ci={word} aria-hidden="true"></span>{' '}
      <span class="ci-words">{CI_WORDS[word]}</span>
    </span>
  );
};

/** The "↗" link to the pull request on its host, with a name a screen reader can say. */
export const External: FC<{ url: string; label: string; host: string }> = ({ url, label, host }) => (
  <a href={url} class="ext" rel="noreferrer" aria-label={`${label} on ${host}`} title={`${label} on ${host}`}>
    ↗
  </a>
);
