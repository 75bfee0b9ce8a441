// The edge reasons the built-in hosts define (decisions 0032, 0076): the reason a delivery from a
// host is ignored with when it is about a repository that is not its Works' (`Host.noWorkReason`),
// listed here for the API's documentation beside core/reasons.ts's EDGE_REASONS.
import { NO_GITHUB_WORK } from '../github/host.js';
import { NO_GITLAB_WORK } from '../gitlab/host.js';

export const BUILT_IN_HOST_EDGE_REASONS: readonly string[] = [NO_GITLAB_WORK, NO_GITHUB_WORK];
