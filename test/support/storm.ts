// One red push of a twelve-job matrix, as GitHub sends it: each job's created, in_progress and
// completed check_run, the completed suite and the completed workflow run — every delivery twice
// (38 distinct, 76 in all; SPEC C2).
import {
  checkRunPayload,
  checkSuitePayload,
  delivery,
  workflowRunPayload,
  type Delivery,
  type RepoSpec,
} from './deliveries.js';

export function matrixStorm(repo: RepoSpec, pr: number, sha: string, seed = 1): Delivery[] {
  const distinct: Delivery[] = [];
  for (let job = 0; job < 12; job++) {
    const id = seed * 1000 + job;
    const base = {
      repo,
      sha,
      id,
      name: `test (node ${18 + (job % 3)}, shard ${job})`,
      pr: { number: pr, headSha: sha },
    };
    distinct.push(delivery('check_run', checkRunPayload({ ...base, status: 'queued' })));
    distinct.push(delivery('check_run', checkRunPayload({ ...base, status: 'in_progress' })));
    distinct.push(
      delivery(
        'check_run',
        checkRunPayload({
          ...base,
          status: 'completed',
          conclusion: job % 4 === 0 ? 'failure' : 'success',
          output: `shard ${job} failed: expected 1 to be 2`,
        }),
      ),
    );
  }
  distinct.push(
    delivery(
      'check_suite',
      checkSuitePayload({ repo, sha, id: seed * 1000 + 900, conclusion: 'failure', pr: { number: pr, headSha: sha } }),
    ),
  );
  distinct.push(
    delivery(
      'workflow_run',
      workflowRunPayload({ repo, sha, id: seed * 1000 + 901, conclusion: 'failure', pr: { number: pr, headSha: sha } }),
    ),
  );
  // A redelivery is byte-identical and keeps its delivery id.
  return [...distinct, ...distinct.map((d) => ({ ...d }))];
}

/**
 * Wait until fixloop has decided on every delivery of a storm (an outcome past `stored` for each
 * distinct delivery id: dropped at the edge, or evaluated), on a database of the test's own, the point after which nothing more can come of it, so that a test may then
 * assert what did not happen. Fails, naming the undecided, when that takes longer than `timeoutMs`.
 */
const PAGE = 1000; // the API's largest page of decisions

export async function stormDecided(
  url: string,
  headers: Record<string, string>,
  deliveryIds: readonly string[],
  timeoutMs = 30_000,
): Promise<void> {
  const wanted = new Set(deliveryIds);
  let undecided: string[] = [...wanted];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${url}/api/deliveries?limit=${PAGE}`, { headers });
    const { decisions } = (await res.json()) as { decisions: Array<{ deliveryId: string | null; outcome: string }> };
    if (decisions.length >= PAGE) throw new Error(`more than ${PAGE} decisions: page them`);
    const decided = new Set(decisions.filter((d) => d.outcome !== 'stored').map((d) => d.deliveryId));
    undecided = [...wanted].filter((id) => !decided.has(id));
    if (undecided.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${undecided.length} of ${wanted.size} storm deliveries to be decided: ${undecided.join(', ')}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
