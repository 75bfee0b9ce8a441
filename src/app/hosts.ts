// The code-host seam (issue 34, decision 0060; SPEC Q1, Q3, R2): what a host (GitHub, GitLab, a
// third) gives fixloop, declared once, and the registry the composition root builds from a list of
// them. A host is one folder implementing `Host`; nothing outside it names the host. The webhook
// route asks the registry for the receiver of a path, ingest and the evaluation queue ask it to
// classify a delivery into neutral events, and use-cases reach "the host of this repository"
// through one routed ProviderPort (providers.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Classification } from '../core/neutral-events.js';
import type { Work } from '../core/types.js';
import type { Ingestor } from './ingest.js';
import type { Logger } from './ports.js';
import type { ProviderPort } from './provider-port.js';

// The host's own words live in core (core/host-words.ts), where the texts that use them are made.
export { referenceOf, type HostWords } from '../core/host-words.js';
import type { HostWords } from '../core/host-words.js';

/** What a webhook receiver needs from the rest of fixloop: where verified deliveries go, and its bounds. */
export interface WebhookReceiverDeps {
  /** Where a verified delivery goes (its `provider` is the host's id); answered once committed. */
  ingestor: Pick<Ingestor, 'ingest'>;
  logger: Logger;
  /** WEBHOOK_MAX_BYTES: a body past it is refused with 413 while it streams. */
  maxBytes: number;
  /** WEBHOOK_MAX_INFLIGHT_BYTES: bytes held at once for bodies not yet authenticated (503 beyond). */
  maxInflightBytes: number;
  /** Told how long each request took to be answered (metrics, N2). */
  observeAck?: (seconds: number, status: number) => void;
}

/** One raw HTTP handler: a receiver reads and verifies the exact bytes itself. */
export type WebhookReceiver = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Host {
  /** The id a Work's `provider` names and a CheckResult's `source` carries: 'github', 'gitlab'. */
  id: string;
  words: HostWords;
  webhook: {
    /** Where the host delivers, e.g. '/api/github/webhooks'. */
    path: string;
    /** The receiver: its signature check, header names and event name, ending in `deps.ingest`. */
    receiver(deps: WebhookReceiverDeps): WebhookReceiver;
  };
  /** Whether an event name is this host's: a stored delivery is classified again by its owner. */
  ownsEvent(eventName: string): boolean;
  /** A delivery's body as neutral events (ci.result, pr.changed, review.submitted, comment). */
  classify(eventName: string, body: unknown, deliveryId: string): Classification;
  /**
   * Its web address, under which a change's page is its words' `changePath` (core/change-link.ts):
   * the dashboard and the notices sent to sinks link a change there.
   */
  webUrl: string;
  /**
   * Q1 (decisions 0032, 0076): the reason a delivery it sent is ignored with at the edge when it is
   * about a repository that is not its Works' (core/route.ts hostMismatch). Stored in the decision
   * log and said in the webhook's answer, so a host's value never changes once released.
   */
  noWorkReason: string;
  /** This host's half of the provider port; null when it is not configured (its repositories then read as 404). */
  port(): ProviderPort | null;
  /**
   * K4: globs of its CI configuration in a repository (a workflow folder, a pipeline file), which a
   * fix never edits unseen; every registered host's are guarded in every repository.
   */
  ciFiles?: readonly string[];
}

export interface HostRegistry {
  readonly hosts: readonly Host[];
  byId(id: string): Host | undefined;
  /** The host a repository's Work names; a repository no Work names is the first host's (the default). */
  hostOfRepository(repository: string): Host;
  /** The receiver of a webhook path, or undefined for a path no host delivers to. */
  byWebhookPath(path: string): Host | undefined;
  /** A stored delivery classified again by the host that owns its event name. */
  classify(eventName: string, body: unknown, deliveryId: string): Classification;
}

/**
 * The registry over `hosts`, in order; the first is the default host of a repository no Work names.
 * Throws when two hosts share an id or a webhook path, or a Work names a host not among them.
 */
export function createHostRegistry(hosts: readonly Host[], works: readonly Work[]): HostRegistry {
  if (hosts.length === 0) throw new Error('at least one code host is required');
  const ids = new Set<string>();
  const paths = new Set<string>();
  for (const h of hosts) {
    if (ids.has(h.id)) throw new Error(`two code hosts share the id ${h.id}`);
    if (paths.has(h.webhook.path)) throw new Error(`two code hosts share the webhook path ${h.webhook.path}`);
    ids.add(h.id);
    paths.add(h.webhook.path);
  }
  // A Work on a host nobody registered would read as the default host's: refused at start instead.
  for (const w of works) {
    const id = w.provider ?? hosts[0]!.id;
    if (!ids.has(id))
      throw new Error(
        `the Work "${w.name}" names the code host "${id}", which is not registered (${[...ids].join(', ')})`,
      );
  }
  const byId = new Map(hosts.map((h) => [h.id, h]));
  const byPath = new Map(hosts.map((h) => [h.webhook.path, h]));
  const fallback = hosts[0]!;
  const hostIdOf = new Map(
    works.flatMap((w) => w.repositories.map((r) => [r.name.toLowerCase(), w.provider ?? fallback.id] as const)),
  );
  return {
    hosts,
    byId: (id) => byId.get(id),
    hostOfRepository: (repository) => byId.get(hostIdOf.get(repository.toLowerCase()) ?? fallback.id) ?? fallback,
    byWebhookPath: (path) => byPath.get(path),
    classify(eventName, body, deliveryId) {
      const owner = hosts.find((h) => h.ownsEvent(eventName));
      return owner ? owner.classify(eventName, body, deliveryId) : { kind: 'unknown_event' };
    },
  };
}
