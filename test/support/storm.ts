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
